"""Thrift FileMetaData -> FlatBuffers FileMetaData (apache/parquet-format PR #544), and one
normalized plain-Python form computed from either side, so that

    thrift_comparable(meta, rev) == flatbuffer_comparable(thrift_to_flatbuffer(meta, rev), rev)

is the round-trip check, for either schema revision (schema.REVISIONS). The normalized form keeps
only what both footers can represent; what either side drops, and every choice the schema comments
leave open, is listed in README.md. `thrift_comparable` reads the Thrift struct directly (it does
not go through the converter) so that the check also covers which Thrift field lands in which
FlatBuffers field.

Under the PR head revision, statistics are packed as README.md "Decisions" says. Under the
prototypes' revision (a77d2774) they are packed as the Arrow C++ prototype packs them
(`pack_bounds_prototype`), created_by is always written, and what that revision has no slot for
(distinct_count, geospatial statistics, the fields of EncryptionWithColumnKey) is left out.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Mapping

from parquet_conformance.generators.parquet.flatbuf.schema import (
    PR_HEAD,
    PROTOTYPES,
    FlatbufferError,
    decode,
    encode,
    schema_of,
    verify,
)
from parquet_conformance.generators.parquet.thrift import Struct

__all__ = ["PROTOTYPES", "PR_HEAD", "FlatbufferError", "flatbuffer_comparable", "fully_dict_encoded", "pack_bounds",
           "pack_bounds_prototype", "thrift_comparable", "thrift_to_flatbuffer", "unpack_bound",
           "unpack_bound_prototype", "verify"]

BOOLEAN, INT32, INT64, INT96, FLOAT, DOUBLE, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY = range(8)
WIDTH = {INT32: 4, FLOAT: 4, INT64: 8, DOUBLE: 8, INT96: 12}  # min/max packed in lo4/lo8
BINARY = (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY)  # min/max packed as prefix + lo8/hi8
DATA_PAGES = (0, 3)  # PageType DATA_PAGE, DATA_PAGE_V2
DICTIONARY_ENCODINGS = (2, 8)  # PLAIN_DICTIONARY, RLE_DICTIONARY
U64 = (1 << 64) - 1

# Thrift LogicalType union field id -> FlatBuffers LogicalType member; Thrift 19 (FILE) has none.
LOGICAL = {1: "StringType", 2: "MapType", 3: "ListType", 4: "EnumType", 5: "DecimalType", 6: "DateType",
           7: "TimeType", 8: "TimestampType", 10: "IntType", 11: "NullType", 12: "JsonType", 13: "BsonType",
           14: "UUIDType", 15: "Float16Type", 16: "VariantType", 17: "GeometryType", 18: "GeographyType"}
# member -> {Thrift field id of its struct: FlatBuffers field name}
PARAMS = {"DecimalType": {1: "scale", 2: "precision"}, "TimeType": {1: "is_adjusted_to_utc", 2: "unit"},
          "TimestampType": {1: "is_adjusted_to_utc", 2: "unit"}, "IntType": {1: "bit_width", 2: "is_signed"},
          "VariantType": {1: "specification_version"}, "GeometryType": {1: "crs"},
          "GeographyType": {1: "crs", 2: "algorithm"}}
ENCRYPTION = {1: "AesGcmV1", 2: "AesGcmCtrV1"}
CRYPTO = {1: "EncryptionWithFooterKey", 2: "EncryptionWithColumnKey"}
BBOX = ("xmin", "xmax", "ymin", "ymax", "zmin", "zmax", "mmin", "mmax")  # Thrift ids 1..8
# ColumnChunk's ColumnMetadata field: renamed between the revisions (same slot and type).
CHUNK_METADATA = {PR_HEAD: "metadata", PROTOTYPES: "meta_data"}


# --- shared pieces ---------------------------------------------------------------------

def fully_dict_encoded(encoding_stats: list[Struct] | None) -> bool:
    """True when encoding_stats lists data pages and every one is dictionary-encoded; no
    encoding_stats (or no data page in them) is no evidence, so False."""
    data = [e for e in encoding_stats or [] if e.value(1) in DATA_PAGES]
    return bool(data) and all(e.value(2) in DICTIONARY_ENCODINGS for e in data)


def pack_bounds(ptype: int | None, min_value: bytes | None, min_exact: bool,
                max_value: bytes | None, max_exact: bool) -> dict[str, int | bytes]:
    """The Statistics fields min_lo4 ... max_len, prefix for Thrift min_value/max_value, per the
    comments in parquet.fbs (and README.md Decisions where they leave a choice)."""
    out: dict[str, int | bytes] = {}
    sides = (("min", min_value, min_exact), ("max", max_value, max_exact))
    if ptype in WIDTH:
        width = WIDTH[ptype]
        for side, value, exact in sides:
            if value is None or len(value) != width:
                continue  # a value of the wrong width has no packed form
            if width == 12:  # INT96: lo4 = low 4 bytes, lo8 = high 8 bytes
                out[f"{side}_lo4"] = int.from_bytes(value[:4], "little")
                out[f"{side}_lo8"] = int.from_bytes(value[4:], "little")
            else:
                out[f"{side}_lo{width}"] = int.from_bytes(value, "little")
            out[f"{side}_len"] = width if exact else -width
    elif ptype in BINARY:
        prefix = _common_prefix(min_value, max_value) if None not in (min_value, max_value) else b""
        for side, value, exact in sides:
            if value is None or (packed := _pack_suffix(value[len(prefix):], exact, side == "max")) is None:
                continue
            length, number = packed
            out.update({f"{side}_lo8": number & U64, f"{side}_hi8": number >> 64, f"{side}_len": length})
        if prefix and out:
            out["prefix"] = prefix
    return out  # BOOLEAN: "none"


def _common_prefix(a: bytes, b: bytes) -> bytes:
    n = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return a[:n]


def _pack_suffix(suffix: bytes, exact: bool, is_max: bool) -> tuple[int, int] | None:
    """(len, 128-bit big-endian number) of a suffix of at most 16 bytes, truncating longer ones:
    a min to its first 16 bytes, a max to its first 16 with the last byte that is not 0xFF
    incremented (still an upper bound). None when there is no such form."""
    if len(suffix) <= 16:
        if not suffix and not exact:
            return None  # the length would have to be -0
        return (len(suffix) if exact else -len(suffix)), int.from_bytes(suffix, "big")
    suffix = suffix[:16]
    if is_max:
        suffix = suffix.rstrip(b"\xff")
        if not suffix:
            return None
        suffix = suffix[:-1] + bytes([suffix[-1] + 1])
    return -len(suffix), int.from_bytes(suffix, "big")


def unpack_bound(ptype: int | None, lo4: int, lo8: int, hi8: int, length: int | None,
                 prefix: bytes | None) -> tuple[bytes, bool] | None:
    """(value, exact) of one packed min or max; None when absent or when the type has none."""
    if length is None or (ptype not in WIDTH and ptype not in BINARY):
        return None
    exact, size = length >= 0, abs(length)
    if ptype in WIDTH:
        if size != WIDTH[ptype]:
            raise FlatbufferError(f"statistics length {length} for physical type {ptype} of width {WIDTH[ptype]}")
        if size == 12:
            return lo4.to_bytes(4, "little") + lo8.to_bytes(8, "little"), exact
        return (lo4 if size == 4 else lo8).to_bytes(size, "little"), exact
    number = hi8 << 64 | lo8
    if size > 16 or number >> (8 * size):
        raise FlatbufferError(f"statistics length {length} does not match lo8/hi8 (at most 16 bytes, zero-padded)")
    return (prefix or b"") + number.to_bytes(size, "big"), exact


def pack_bounds_prototype(ptype: int | None, min_value: bytes | None, min_exact: bool,
                          max_value: bytes | None, max_exact: bool) -> dict[str, int | bytes]:
    """The Statistics fields as the Arrow C++ prototype packs them (apache/arrow PR #48431
    cpp/src/parquet/metadata3.cc `Pack` and `To(const format::Statistics&)`, b3f493b0), not as the
    a77d2774 schema comment describes them: only when both bounds are set; BOOLEAN as two zero lengths;
    a byte-array suffix in `lo4`, big-endian and left-aligned, at most 4 bytes (a longer one becomes an
    inexact bound: its first 4 bytes -1 for a min, +1 for a max, or no bounds at all where that would
    wrap); a FIXED_LEN_BYTE_ARRAY(16) pair that is exact in `hi8:lo8` with no prefix. Where Arrow C++
    reads past a value of the wrong width, nothing is packed."""
    if min_value is None or max_value is None:
        return {}
    if ptype == BOOLEAN:
        return {"min_len": 0, "max_len": 0}
    sides = (("min", min_value, min_exact), ("max", max_value, max_exact))
    out: dict[str, int | bytes] = {}
    if ptype in WIDTH:
        width = WIDTH[ptype]
        if len(min_value) != width or len(max_value) != width:
            return {}
        for side, value, exact in sides:
            if width == 12:
                out[f"{side}_lo4"] = int.from_bytes(value[:4], "little")
                out[f"{side}_lo8"] = int.from_bytes(value[4:], "little")
            else:
                out[f"{side}_lo{width}"] = int.from_bytes(value, "little")
            out[f"{side}_len"] = width if exact else -width
        return out
    if ptype not in BINARY:
        return {}
    if ptype == FIXED_LEN_BYTE_ARRAY and len(min_value) == len(max_value) == 16 and min_exact and max_exact:
        for side, value, _ in sides:
            out.update({f"{side}_hi8": int.from_bytes(value[:8], "big"),
                        f"{side}_lo8": int.from_bytes(value[8:], "big"), f"{side}_len": 16})
        return out
    prefix = _common_prefix(min_value, max_value)
    for side, value, exact in sides:
        suffix = value[len(prefix):]
        if len(suffix) <= 4:
            out.update({f"{side}_lo4": int.from_bytes(suffix.ljust(4, b"\x00"), "big"),
                        f"{side}_len": len(suffix) if exact else -len(suffix)})  # an inexact empty suffix: 0, exact
            continue
        lo4 = int.from_bytes(suffix[:4], "big")
        if lo4 == (0xFFFFFFFF if side == "max" else 0):
            return {}
        out.update({f"{side}_lo4": lo4 + 1 if side == "max" else lo4 - 1, f"{side}_len": -4})
    if prefix:
        out["prefix"] = prefix
    return out


def unpack_bound_prototype(ptype: int | None, lo4: int, lo8: int, hi8: int, length: int | None,
                           prefix: bytes | None) -> tuple[bytes, bool] | None:
    """(value, exact) of one bound as the Arrow C++ prototype reads it back (metadata3.cc `Unpack`):
    fixed widths from lo4/lo8 whatever the length says, exact when the length is positive; byte arrays
    as prefix + hi8:lo8 when the length is 16, else prefix + big-endian lo4 cut (or zero-padded) to
    |length| bytes, exact when the length is not negative."""
    if length is None or ptype == BOOLEAN or (ptype not in WIDTH and ptype not in BINARY):
        return None
    if ptype in WIDTH:
        width = WIDTH[ptype]
        value = lo4.to_bytes(4, "little") + lo8.to_bytes(8, "little") if width == 12 else \
            (lo4 if width == 4 else lo8).to_bytes(width, "little")
        return value, length > 0
    if length == 16:
        return (prefix or b"") + hi8.to_bytes(8, "big") + lo8.to_bytes(8, "big"), True
    return (prefix or b"") + lo4.to_bytes(4, "big").ljust(abs(length), b"\x00")[:abs(length)], length >= 0


PACKING = {PR_HEAD: (pack_bounds, unpack_bound), PROTOTYPES: (pack_bounds_prototype, unpack_bound_prototype)}


def _bounds(ptype: int | None, s: Mapping[str, object], revision: str) -> dict[str, tuple[bytes, bool] | None]:
    unpack = PACKING[revision][1]
    if revision == PROTOTYPES and (s.get("min_len") is None or s.get("max_len") is None):
        return {"min": None, "max": None}  # the prototype reads bounds only when both lengths are there
    return {side: unpack(ptype, s.get(f"{side}_lo4") or 0, s.get(f"{side}_lo8") or 0,
                         s.get(f"{side}_hi8") or 0, s.get(f"{side}_len"), s.get("prefix"))
            for side in ("min", "max")}


def _has(revision: str, table: str, field: str) -> bool:
    return any(f.name == field for f in schema_of(revision).tables.get(table, ()))


def _map(items: Iterable | None, fn: Callable) -> list | None:
    return None if items is None else [fn(x) for x in items]


def _columns(chunks: list | None, types: list[int], fn: Callable) -> list | None:
    """fn(chunk, physical type of its leaf) for each column chunk of a row group."""
    return None if chunks is None else [fn(c, types[j] if j < len(types) else None) for j, c in enumerate(chunks)]


def _member(union: Struct | None, ids: Mapping[int, str]) -> tuple[str, Struct] | None:
    """The set member of a Thrift union, if this schema has a counterpart for it."""
    if not isinstance(union, Struct):
        return None
    return next(((ids[f.id], f.value) for f in union.fields if f.id in ids and isinstance(f.value, Struct)), None)


def _logical(lt: Struct | None) -> tuple[str, dict] | None:
    if (m := _member(lt, LOGICAL)) is None:
        return None
    member, value = m
    params = {name: value.value(fid) for fid, name in PARAMS.get(member, {}).items()}
    if "unit" in params:  # Thrift TimeUnit union MILLIS/MICROS/NANOS = ids 1/2/3 -> enum 0/1/2
        unit = params["unit"]
        params["unit"] = next((f.id - 1 for f in unit.fields if f.id in (1, 2, 3)), None) \
            if isinstance(unit, Struct) else None
        if params["unit"] is None:
            return None
    return member, params


def _leaves(meta: Struct) -> tuple[list[int], dict[int, Struct]]:
    """Physical types of the leaves (schema elements with a type) and each leaf's ColumnOrder."""
    leaves = [el for el in meta.value(2) or [] if el.get(1) is not None]
    return [el.value(1) for el in leaves], dict(zip(map(id, leaves), meta.value(7) or [], strict=False))


# --- Thrift -> FlatBuffers --------------------------------------------------------------

def thrift_to_flatbuffer(meta: Struct, revision: str = PR_HEAD) -> bytes:
    """The FlatBuffers FileMetaData (root table, no file identifier) of that schema revision for a
    decoded Thrift FileMetaData. Deterministic. Raises ValueError for a value its FlatBuffers field
    cannot hold (a null_count past 2^31 - 1 in the prototypes' `int`, a codec of 300 in a `byte`)."""
    types, orders = _leaves(meta)
    aes = _member(meta.value(8), ENCRYPTION)
    created_by = meta.value(6)
    if created_by is None and revision == PROTOTYPES:
        created_by = b""  # Arrow C++ always writes it, and its reader dereferences it unconditionally
    return encode({
        "version": meta.value(1),
        "schema": _map(meta.value(2), lambda el: _element(el, orders.get(id(el)))),
        "num_rows": meta.value(3),
        "row_groups": _map(meta.value(4), lambda rg: _row_group(rg, types, revision)),
        "kv": _map(meta.value(5), _kv),
        "created_by": created_by,
        "encryption_algorithm": aes and (aes[0], {"aad_prefix": aes[1].value(1), "aad_file_unique": aes[1].value(2),
                                                  "supply_aad_prefix": aes[1].value(3)}),
        "footer_signing_key_metadata": meta.value(9),
    }, revision)


def _element(el: Struct, order: Struct | None) -> dict:
    return {"type": el.value(1), "type_length": el.value(2), "repetition_type": el.value(3), "name": el.value(4),
            "num_children": el.value(5), "field_id": el.value(9), "logical_type": _logical(el.value(10)),
            "column_order": ("TypeDefinedOrder", {}) if order is not None and order.get(1) is not None else None}


def _kv(kv: Struct) -> dict:
    return {"key": kv.value(1), "val": kv.value(2)}


def _row_group(rg: Struct, types: list[int], revision: str) -> dict:
    rows = rg.value(3)
    return {
        "columns": _columns(rg.value(1), types, lambda cc, ptype: _chunk(cc, ptype, rows, revision)),
        "total_byte_size": rg.value(2), "num_rows": rows,
        "sorting_columns": _map(rg.value(4), lambda s: {"column_idx": s.value(1), "descending": s.value(2),
                                                        "nulls_first": s.value(3)}),
        "file_offset": rg.value(5), "total_compressed_size": rg.value(6), "ordinal": rg.value(7),
    }


def _crypto(cc: Struct, revision: str) -> tuple[str, dict] | None:
    crypto = _member(cc.value(8), CRYPTO)
    if crypto is None or crypto[0] == CRYPTO[1] or not _has(revision, "EncryptionWithColumnKey", "key_metadata"):
        return crypto and (crypto[0], {})  # footer key, or the prototypes' Empty member
    return crypto[0], {"path_in_schema": crypto[1].value(1), "key_metadata": crypto[1].value(2)}


def _chunk(cc: Struct, ptype: int | None, rows: int | None, revision: str) -> dict:
    md = cc.value(3)
    return {CHUNK_METADATA[revision]: None if md is None else _column_metadata(md, ptype, rows, revision),
            "crypto_metadata": _crypto(cc, revision), "encrypted_column_metadata": cc.value(9)}


def _column_metadata(md: Struct, ptype: int | None, rows: int | None, revision: str) -> dict:
    stats, geo, bloom = md.value(12), md.value(17), md.value(14)
    bbox = geo.value(1) if geo is not None else None
    pack = PACKING[revision][0]
    out = {
        "codec": md.value(4),
        "num_values": None if md.value(5) == rows else md.value(5),  # "only present if not equal to rg.num_rows"
        "total_uncompressed_size": md.value(6), "total_compressed_size": md.value(7),
        "key_value_metadata": _map(md.value(8), _kv),
        "data_page_offset": md.value(9), "index_page_offset": md.value(10), "dictionary_page_offset": md.value(11),
        "statistics": None if stats is None else {
            "null_count": stats.value(3), "distinct_count": stats.value(4),
            **pack(ptype, stats.value(6), stats.value(8, False), stats.value(5), stats.value(7, False))},
        "is_fully_dict_encoded": fully_dict_encoded(md.value(13)),
        "bloom_filter": None if bloom is None else {"offset": bloom, "length": md.value(15)},
        "geospatial_statistics": None if geo is None else {
            "bbox": None if bbox is None else {name: bbox.value(i) for i, name in enumerate(BBOX, 1)},
            "geospatial_types": geo.value(2)},
    }
    if not _has(revision, "ColumnMetadata", "geospatial_statistics"):
        del out["geospatial_statistics"]
    if out["statistics"] is not None and not _has(revision, "Statistics", "distinct_count"):
        del out["statistics"]["distinct_count"]
    return out


# --- the normalized form ----------------------------------------------------------------

def _bits(x: float | None) -> bytes | None:
    return None if x is None else struct.pack("<d", x)  # NaN == NaN and -0.0 != 0.0 as bit patterns


def _defaults(revision: str, table: str, values: Mapping[str, object]) -> dict:
    """`values` with absent (None) scalars replaced by the FlatBuffers schema default."""
    return {f.name: values.get(f.name) if values.get(f.name) is not None else f.default
            for f in schema_of(revision).tables[table] if f.kind != "utype"}


def thrift_comparable(meta: Struct, revision: str = PR_HEAD) -> dict:
    """The normalized form of a decoded Thrift FileMetaData (see flatbuffer_comparable), as far as
    that schema revision can hold it. Read as generated code reads it (footer.typed): a field of another wire
    type than declared is absent, so any footer that decodes has a normalized form."""
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.generators.parquet.footer import typed  # footer does not import flatbuf

    meta = typed(meta, "FileMetaData")
    types, orders = _leaves(meta)
    pack = PACKING[revision][0]
    # a77d2774 has `repetition_type = REQUIRED`, not `= null`: an absent one reads as REQUIRED there.
    repetition_default = _defaults(revision, "SchemaElement", {})["repetition_type"]

    def element(el: Struct) -> dict:
        logical = _logical(el.value(10))
        order = orders.get(id(el))
        return {"name": el.value(4), "type": el.value(1), "type_length": el.value(2),
                "repetition_type": el.value(3, repetition_default), "num_children": el.value(5, 0),
                "field_id": el.value(9),
                "logical_type": logical and (logical[0], _defaults(revision, _union_table(revision, "LogicalType",
                                                                                           logical[0]), logical[1])),
                "column_order": "TypeDefinedOrder" if order is not None and order.get(1) is not None else None}

    def column(md: Struct, ptype: int | None, rows: int) -> dict:
        stats, geo, bloom = md.value(12), md.value(17), md.value(14)
        bbox = geo.value(1) if geo is not None else None
        return {
            "codec": md.value(4, 0), "num_values": md.value(5, rows),
            "total_uncompressed_size": md.value(6, 0), "total_compressed_size": md.value(7, 0),
            "key_value_metadata": _map(md.value(8), lambda kv: (kv.value(1), kv.value(2))),
            "data_page_offset": md.value(9, 0), "index_page_offset": md.value(10),
            "dictionary_page_offset": md.value(11),
            "statistics": None if stats is None else {
                "null_count": stats.value(3),
                "distinct_count": stats.value(4) if _has(revision, "Statistics", "distinct_count") else None,
                **_bounds(ptype, pack(ptype, stats.value(6), stats.value(8, False), stats.value(5),
                                      stats.value(7, False)), revision)},
            "is_fully_dict_encoded": fully_dict_encoded(md.value(13)),
            "bloom_filter": None if bloom is None else (bloom, md.value(15) or None),
            "geospatial_statistics": None if geo is None or not _has(revision, "ColumnMetadata",
                                                                     "geospatial_statistics") else {
                "bbox": None if bbox is None else {name: _bits(bbox.value(i, 0.0 if i <= 4 else None))
                                                   for i, name in enumerate(BBOX, 1)},
                "geospatial_types": geo.value(2)},
        }

    def chunk(cc: Struct, ptype: int | None, rows: int) -> dict:
        return {**({} if cc.value(3) is None else column(cc.value(3), ptype, rows)),
                "crypto_metadata": _crypto(cc, revision), "encrypted_column_metadata": cc.value(9)}

    def row_group(rg: Struct) -> dict:
        rows = rg.value(3, 0)
        return {"num_rows": rows, "total_byte_size": rg.value(2, 0), "file_offset": rg.value(5, 0),
                "total_compressed_size": rg.value(6, 0), "ordinal": rg.value(7),
                "sorting_columns": _map(rg.value(4), lambda s: (s.value(1, 0), s.value(2, False), s.value(3, False))),
                "columns": _columns(rg.value(1), types, lambda cc, ptype: chunk(cc, ptype, rows))}

    aes = _member(meta.value(8), ENCRYPTION)
    return {
        "version": meta.value(1, 0), "num_rows": meta.value(3, 0),
        "created_by": meta.value(6, b"" if revision == PROTOTYPES else None),
        "kv": _map(meta.value(5), lambda kv: (kv.value(1), kv.value(2))),
        "schema": _map(meta.value(2), element),
        "row_groups": _map(meta.value(4), row_group),
        "encryption_algorithm": aes and (aes[0], {"aad_prefix": aes[1].value(1), "aad_file_unique": aes[1].value(2),
                                                  "supply_aad_prefix": bool(aes[1].value(3, False))}),
        "footer_signing_key_metadata": meta.value(9),
    }


def _union_table(revision: str, union: str, member: str) -> str:
    return dict(schema_of(revision).unions[union])[member]


def flatbuffer_comparable(buf: bytes, revision: str = PR_HEAD) -> dict:
    """The normalized form of a FlatBuffers FileMetaData: what both footers can represent, with
    schema defaults filled in, num_values as the effective count and min/max as (bytes, exact).
    Raises FlatbufferError for a malformed buffer (verify) or undecodable statistics.

    {version, num_rows, created_by, kv: [(key, value)], schema: [{name, type, type_length,
    repetition_type, num_children, field_id, logical_type: (member, {param: value}),
    column_order}], row_groups: [{num_rows, total_byte_size, file_offset, total_compressed_size,
    ordinal, sorting_columns: [(column_idx, descending, nulls_first)], columns: [{codec,
    num_values, total_uncompressed_size, total_compressed_size, key_value_metadata,
    data_page_offset, index_page_offset, dictionary_page_offset, statistics: {null_count,
    distinct_count, min: (bytes, exact), max}, is_fully_dict_encoded, bloom_filter: (offset,
    length), geospatial_statistics, crypto_metadata, encrypted_column_metadata}]}],
    encryption_algorithm, footer_signing_key_metadata}; a column chunk without metadata has only
    the last two keys; absent optional values are None; strings are bytes."""
    verify(buf, revision)
    d = decode(buf, revision)
    schema = d["schema"]
    types = [el["type"] for el in schema or [] if el["type"] is not None]

    def element(el: dict) -> dict:
        order = el["column_order"]
        return {"name": el["name"], "type": el["type"], "type_length": el["type_length"],
                "repetition_type": el["repetition_type"], "num_children": el["num_children"],
                "field_id": el["field_id"], "logical_type": el["logical_type"],
                "column_order": order and order[0]}

    def column(m: dict, ptype: int | None, rows: int) -> dict:
        stats, geo, bloom = m["statistics"], m.get("geospatial_statistics"), m["bloom_filter"]
        return {
            "codec": m["codec"], "num_values": rows if m["num_values"] is None else m["num_values"],
            "total_uncompressed_size": m["total_uncompressed_size"],
            "total_compressed_size": m["total_compressed_size"],
            "key_value_metadata": _map(m["key_value_metadata"], lambda kv: (kv["key"], kv["val"])),
            "data_page_offset": m["data_page_offset"], "index_page_offset": m["index_page_offset"],
            "dictionary_page_offset": m["dictionary_page_offset"],
            "statistics": None if stats is None else {"null_count": stats["null_count"],
                                                      "distinct_count": stats.get("distinct_count"),
                                                      **_bounds(ptype, stats, revision)},
            "is_fully_dict_encoded": m["is_fully_dict_encoded"],
            "bloom_filter": None if bloom is None else (bloom["offset"], bloom["length"] or None),
            "geospatial_statistics": None if geo is None else {  # never set under a77d2774 (no such field)
                "bbox": None if geo["bbox"] is None else {k: _bits(v) for k, v in geo["bbox"].items()},
                "geospatial_types": geo["geospatial_types"]},
        }

    def chunk(cc: dict, ptype: int | None, rows: int) -> dict:
        md = cc[CHUNK_METADATA[revision]]
        return {**({} if md is None else column(md, ptype, rows)),
                "crypto_metadata": cc["crypto_metadata"],
                "encrypted_column_metadata": cc["encrypted_column_metadata"]}

    def row_group(rg: dict) -> dict:
        rows = rg["num_rows"]
        return {"num_rows": rows, "total_byte_size": rg["total_byte_size"], "file_offset": rg["file_offset"],
                "total_compressed_size": rg["total_compressed_size"], "ordinal": rg["ordinal"],
                "sorting_columns": _map(rg["sorting_columns"],
                                        lambda s: (s["column_idx"], s["descending"], s["nulls_first"])),
                "columns": _columns(rg["columns"], types, lambda cc, ptype: chunk(cc, ptype, rows))}

    return {
        "version": d["version"], "num_rows": d["num_rows"], "created_by": d["created_by"],
        "kv": _map(d["kv"], lambda kv: (kv["key"], kv["val"])),
        "schema": _map(schema, element),
        "row_groups": _map(d["row_groups"], row_group),
        "encryption_algorithm": d["encryption_algorithm"],
        "footer_signing_key_metadata": d["footer_signing_key_metadata"],
    }
