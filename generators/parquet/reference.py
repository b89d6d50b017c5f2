"""The reference reader: aware of every FlatBuffers-footer profile, legacy for everything else.

Rules (docs/spec-notes.md#fallback):
1. The tail is parsed in reverse (generators.profiles.locate); the Thrift before it is not.
2. `PAR3` tail: the FlatBuffers footer is the only metadata; if any check fails, reject.
3. `PAR1` tail with a known UUID: use the FlatBuffers footer if every check passes (CRC of the
   size before the size is used, the size within the footer, CRC of the flatbuffer, FlatBuffers
   verification, internal consistency); otherwise ignore it and read the Thrift footer, as a
   legacy reader would, and say why.
4. No known UUID (none, or one we do not know): the Thrift footer.
5. `PARX` tail (apache/parquet-format PR #588, generators/parquet/parx.py): the flags (reject any but
   PATH_IN_SCHEMA_OMITTED: no keys, so no ENCRYPTED_FOOTER), then the length and the CRC; then the Thrift
   footer it frames, path_in_schema written back from the schema where the flag says it was left out.
The data is read by pyarrow from a file whose footer is rebuilt from the chosen metadata, so
what the FlatBuffers footer says is what gets read.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from parquet_conformance.generators.parquet.edits import apply_edits
from parquet_conformance.generators.parquet.profiles import PAR3, Located, ProfileError, locate

PROFILES = ("spec-example", "migration", "arrow-prototype", "par3", "encoding", "parx")


class ReferenceError(ValueError):
    """The reference reader rejects the file."""


@dataclass
class Choice:
    metadata: str  # "flatbuffers" | "thrift"
    profile: str | None = None
    reason: str | None = None  # why a recognized FlatBuffers footer was not used
    located: Located | None = None
    thrift_footer: bytes | None = None  # rebuilt from the flatbuffer
    new_encodings: int = 0  # column chunks read in their new encoding (the encoding extension)
    par1: bytes | None = None  # a PARX file unframed: the same file as PAR1 (parx.unframe)


def choose_footer(buf: bytes) -> Choice:
    from parquet_conformance.generators.parquet import parx

    if bytes(buf[-4:]) == parx.MAGIC:
        try:
            par1, _ = parx.unframe(buf)
        except parx.ParxError as e:
            raise ReferenceError(f"PARX footer unusable: {e}") from None
        return Choice("thrift", "parx", par1=par1)
    par3 = bytes(buf[-4:]) == PAR3
    try:
        found = locate(buf)
        if found is None:
            if par3:
                raise ProfileError("no FlatBuffers footer before PAR3")
            return Choice("thrift")
        thrift_footer = usable_thrift_footer(found, buf)
    except ProfileError as e:
        if par3:
            raise ReferenceError(f"PAR3 footer unusable: {e}") from None
        return Choice("thrift", reason=str(e))
    return Choice("flatbuffers", found.profile, located=found, thrift_footer=thrift_footer)


def usable_thrift_footer(found: Located, buf: bytes) -> bytes:
    """Verifies the flatbuffer and its consistency; returns it as a Thrift FileMetaData."""
    from parquet_conformance.generators.parquet.flatbuf.convert import FlatbufferError, flatbuffer_comparable
    from parquet_conformance.generators.parquet.flatbuf.to_thrift import comparable_to_thrift

    try:
        meta = flatbuffer_comparable(found.flatbuffer, found.revision)
    except FlatbufferError as e:
        raise ProfileError(f"flatbuffer fails verification: {e}") from None
    data_end = data_region_end(found, buf)
    check_consistency(meta, data_end)
    return comparable_to_thrift(meta)


def data_region_end(found: Located, buf: bytes) -> int:
    if found.profile == "par3":
        return found.offset
    (footer_len,) = struct.unpack("<I", buf[-8:-4])
    return len(buf) - 8 - footer_len


def check_consistency(meta: dict, data_end: int) -> None:
    """What a reader can check cheaply before trusting metadata it cannot cross-check: one schema tree, a chunk
    with metadata per leaf in every row group, row counts that add up, chunks inside the data region."""
    from parquet_conformance.generators.parquet.flatbuf.convert import FlatbufferError
    from parquet_conformance.generators.parquet.flatbuf.to_thrift import leaf_paths

    try:
        leaves = len(leaf_paths(meta["schema"]))
    except FlatbufferError as e:
        raise ProfileError(str(e)) from None
    groups = meta["row_groups"] or []
    rows = sum(rg["num_rows"] or 0 for rg in groups)
    if rows != meta["num_rows"]:
        raise ProfileError(f"row groups hold {rows} rows, num_rows says {meta['num_rows']}")
    for i, rg in enumerate(groups):
        columns = rg["columns"] or []
        if len(columns) != leaves:
            raise ProfileError(f"row group {i} has {len(columns)} column chunks for {leaves} leaf columns")
        for j, col in enumerate(columns):
            start = col.get("dictionary_page_offset") or col.get("data_page_offset")
            size = col.get("total_compressed_size")
            if start is None or size is None:
                raise ProfileError(f"row group {i} column {j} has no metadata")
            if not (4 <= start and start + size <= data_end):
                raise ProfileError(f"row group {i} column {j} lies outside the data region")


def rebuilt_file(buf: bytes, choice: Choice) -> bytes:
    if choice.par1 is not None:
        return choice.par1
    if choice.metadata == "thrift":
        return buf
    assert choice.located is not None and choice.thrift_footer is not None  # chose_footer set both
    data_end = data_region_end(choice.located, buf)
    footer = choice.thrift_footer
    return bytes(buf[:data_end]) + footer + struct.pack("<I", len(footer)) + b"PAR1"


def use_new_encodings(buf: bytes) -> tuple[bytes, int]:
    """Seed 001 "Encoding", as its custom reader: for each ColumnMetaData whose extension carries
    our encoding UUID and points at a chunk inside the data region, read that chunk instead of
    the old one. Extensions that do not check out are ignored (the old encoding is read)."""
    from parquet_conformance.generators.parquet import thrift
    from parquet_conformance.generators.parquet.edits import set_i64
    from parquet_conformance.generators.parquet.footer import FooterError, parse_file
    from parquet_conformance.generators.parquet.profiles import parse_encoding_payload

    try:
        footer = parse_file(buf)
    except FooterError:
        return buf, 0
    edits, used = [], 0
    for ext in footer.extensions(include_pages=False):
        where = parse_encoding_payload(ext.payload) if ext.struct == "ColumnMetaData" else None
        if where is None:
            continue
        offset, length, _encoding = where
        if not (4 <= offset and offset + length <= footer.footer_offset):
            continue
        try:
            thrift.decode_struct(buf, offset, offset + length)  # a page header must start there
        except thrift.ThriftError:
            continue
        md = next(r for r in footer.structs() if r.path == ext.path)
        edits += [set_i64(md, "data_page_offset", offset), set_i64(md, "total_compressed_size", length),
                  set_i64(md, "total_uncompressed_size", length)]
        used += 1
    return (apply_edits(buf, edits) if edits else buf), used


def read_table(buf: bytes) -> tuple[object, Choice]:
    choice = choose_footer(buf)
    data = rebuilt_file(buf, choice)
    if choice.metadata == "thrift":
        data, choice.new_encodings = use_new_encodings(data)
    return read_exactly(data), choice


INT64_MAX_US = (1 << 63) // 1000  # microseconds past this do not fit a 64-bit nanosecond timestamp


def read_exactly(data: bytes) -> Any:
    """pyarrow reads INT96 into nanoseconds and wraps instants beyond that range without a word; the reference
    reads such a column again in microseconds, which hold every INT96 day, and keeps that where it was needed."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    table = pq.read_table(pa.BufferReader(data))
    schema = pq.ParquetFile(pa.BufferReader(data)).schema
    int96 = [c.path for c in schema if c.physical_type == "INT96" and "." not in c.path]
    if not int96:
        return table
    wide = pq.read_table(pa.BufferReader(data), columns=int96, coerce_int96_timestamp_unit="us")
    for name in int96:
        micros = wide.column(name).cast(pa.int64())
        if (pc.max(pc.abs(micros)).as_py() or 0) >= INT64_MAX_US:
            table = table.set_column(table.schema.get_field_index(name), name, wide.column(name))
    return table
