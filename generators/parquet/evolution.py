"""The tables of the evolution family (corpus/parquet/catalog/evolution.py): what parquet-format 2.12-2.14 added
and what its open proposals would add, each as the physical values a reader that does not know the addition reads
(LogicalTypes.md "Unsupported Logical Types", PR #606), and the content of the apache/parquet-testing files that
exercise them: transcribed where only a later commit than the stored copy has them (corpus/parquet/upstream.json pins
them, and `generate --upstream DIR` puts a checkout's copies beside these), committed byte for byte where the stored
copy has them (fixtures/parquet-testing: shredded_variant).

Each `*_table` is a base's expected data; `*_written` is what pyarrow is given where it differs (an extension type
pyarrow writes a logical type for, stand-ins the footer is then annotated over: generators/parquet/bases.py).
"""

from __future__ import annotations

import hashlib
import json
import random
import struct
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from parquet_conformance.generators.parquet.edits import apply_edits, remove_fields
from parquet_conformance.generators.parquet.footer import read_footer


def _wkb_point(x: float, y: float) -> bytes:
    return struct.pack("<BIdd", 1, 1, x, y)


def _wkb_line(*points: tuple[float, float]) -> bytes:
    return struct.pack("<BII", 1, 2, len(points)) + b"".join(struct.pack("<dd", *p) for p in points)


def _wkb_polygon(*ring: tuple[float, float]) -> bytes:
    return struct.pack("<BIII", 1, 3, 1, len(ring)) + b"".join(struct.pack("<dd", *p) for p in ring)


# WKB as Geospatial.md requires of GEOMETRY and GEOGRAPHY (little-endian ISO WKB), with a null: a point, a line,
# a closed polygon, a point again (longitudes and latitudes in range, so the same bytes serve GEOGRAPHY).
WKB = [_wkb_point(1.0, 2.0), _wkb_line((0.0, 0.0), (10.5, -3.25), (20.0, 45.0)), None,
       _wkb_polygon((0.0, 0.0), (4.0, 0.0), (4.0, 3.0), (0.0, 0.0)), _wkb_point(-73.97, 40.78)]


class GeoArrowWkb(pa.ExtensionType):
    """`geoarrow.wkb` over binary: the extension type pyarrow (Arrow C++ 21+) writes as GEOMETRY, or as GEOGRAPHY
    when its metadata says `"edges": "spherical"`."""

    def __init__(self, metadata: bytes = b"{}") -> None:
        self._metadata = metadata
        super().__init__(pa.binary(), "geoarrow.wkb")

    def __arrow_ext_serialize__(self) -> bytes:
        return self._metadata

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type: pa.DataType, serialized: bytes) -> GeoArrowWkb:
        return cls(serialized)


def wkb_table() -> pa.Table:
    return pa.table({"geom": pa.array(WKB, pa.binary())})


def geo_written(metadata: bytes) -> Callable[[], pa.Table]:
    def table() -> pa.Table:
        return pa.table({"geom": pa.ExtensionArray.from_storage(GeoArrowWkb(metadata), pa.array(WKB, pa.binary()))})
    return table


# LogicalTypes.md "FILE" (PR #585, as #603 leaves it): a group of optional fields, each a reference form of the
# Resolution table: an external file, a range of one, inline bytes with and without a locator, a null reference.
FILE_FIELDS = [("uri", pa.string()), ("offset", pa.int64()), ("size", pa.int64()), ("content_type", pa.string()),
               ("checksum", pa.string()), ("inline", pa.binary())]
FILE_ROWS = [
    {"uri": "s3://bucket/images/cat.png", "offset": None, "size": None, "content_type": "image/png",
     "checksum": "MD5:d41d8cd98f00b204e9800998ecf8427e", "inline": None},
    {"uri": "https://example.org/archive.bin", "offset": 1024, "size": 4096, "content_type": None,
     "checksum": None, "inline": None},
    {"uri": None, "offset": None, "size": None, "content_type": "text/plain", "checksum": "CRC32:1c291ca3",
     "inline": b"hello, world"},
    None,
    {"uri": "file:///data/a.txt", "offset": None, "size": 5, "content_type": None, "checksum": None,
     "inline": b"abcde"},
]


def file_table() -> pa.Table:
    return pa.table({"id": pa.array(range(len(FILE_ROWS)), pa.int32()),
                     "file": pa.array(FILE_ROWS, pa.struct(FILE_FIELDS))})


def int32_uuid_table() -> pa.Table:
    """apache/parquet-testing#122 `int32_with_uuid_logical_type.parquet`: one required INT32 column, int32_uuid,
    holding 0..9 (as Hardwood's test of the file reads it), annotated UUID, which only FIXED_LEN_BYTE_ARRAY(16) may
    carry."""
    schema = pa.schema([pa.field("int32_uuid", pa.int32(), nullable=False)])
    return pa.table({"int32_uuid": pa.array(range(10), pa.int32())}, schema=schema)


# apache/parquet-testing flba12_timestamp.md: the same six instants in every column, scaled to its unit.
FLBA12_SECONDS = [0, 1, -1, 9_223_372_036, 253_402_300_799, -62_135_596_800]
FLBA12_UNITS = {"timestamp_millis": 1_000, "timestamp_micros": 1_000_000, "timestamp_nanos": 1_000_000_000}


def flba12_table(only: str | None = None) -> pa.Table:
    """The three FIXED_LEN_BYTE_ARRAY(12) columns as their bytes (`only`: that column alone): a signed 96-bit
    little-endian count of units (PR #601), what a reader that does not take TIMESTAMP on FLBA(12) returns."""
    return pa.table({name: pa.array([(s * scale).to_bytes(12, "little", signed=True) for s in FLBA12_SECONDS],
                                    pa.binary(12)) for name, scale in FLBA12_UNITS.items() if only in (None, name)})


def flba12_instants(name: str) -> dict[str, Any]:
    """The column as PR #601's instants: canonical data (nanoseconds since the epoch, whatever the unit)."""
    return {"columns": [name], "rows": [[{"ts_ns": str(s * 1_000_000_000)}] for s in FLBA12_SECONDS]}


JULIAN_EPOCH = 2_440_588  # the Julian day of 1970-01-01
# apache/parquet-testing int96_timestamp_order.md: (Julian day, nanoseconds of the day), written in this order
# (LATE_IN_DAY, NEXT_DAY, EARLY, SAME_DAY_EARLY), so that byte-wise and chronological order disagree.
INT96_ORDER = [(2_440_588, 86_399_999_999_999), (2_440_589, 0), (2_440_000, 123), (2_440_588, 1_000)]


def int96_bytes(day: int, nanos: int) -> bytes:
    return struct.pack("<qi", nanos, day)


def int96_order_written() -> pa.Table:
    schema = pa.schema([pa.field("ts", pa.binary(12), nullable=False)])
    return pa.table({"ts": pa.array([int96_bytes(*v) for v in INT96_ORDER], pa.binary(12))}, schema=schema)


def int96_order_table() -> pa.Table:
    schema = pa.schema([pa.field("ts", pa.timestamp("ns"), nullable=False)])
    ns = [(day - JULIAN_EPOCH) * 86_400_000_000_000 + nanos for day, nanos in INT96_ORDER]
    return pa.table({"ts": pa.array(ns, pa.timestamp("ns"))}, schema=schema)


VECTOR_LENGTH = 7
VECTOR_ROWS = 2


def vector_table() -> pa.Table:
    """PR #592's VECTOR layout before its annotation: the 14 element slots of two vectors of 7 as 14 rows of
    `emb.list.element`, every level required (the case then says 2 rows, VECTOR repetition and vector_length 7)."""
    element = pa.struct([pa.field("element", pa.float32(), nullable=False)])
    schema = pa.schema([pa.field("emb", pa.struct([pa.field("list", element, nullable=False)]), nullable=False)])
    values = [{"list": {"element": float(i) + 0.5}} for i in range(VECTOR_LENGTH * VECTOR_ROWS)]
    return pa.table({"emb": pa.array(values, schema.field("emb").type)}, schema=schema)


def no_path_table() -> pa.Table:
    """apache/parquet-testing#108 `no_path_in_schema.zstd.parquet` (64810dd2): a map<string, map<int32, bool>>,
    an INT32 and a DOUBLE, 6 rows, as polars 2.1.0 reads it."""
    inner = [[("a", [(1, True), (2, False)])], [("b", [(1, True)])], [("c", None)], [("d", [])], [("e", [(1, True)])],
             [("f", [(3, True), (4, False), (5, True)])]]
    return pa.table({"a": pa.array(inner, pa.map_(pa.string(), pa.map_(pa.int32(), pa.bool_()))),
                     "b": pa.array([1] * 6, pa.int32()), "c": pa.array([1.0] * 6, pa.float64())})


# apache/parquet-testing alp_extended.zstd.parquet, as its README's "ALP encoding" section describes it (the values
# are drawn anew; the file's are its writer's random draws): 9032 rows in five row groups.
ALP_ROW_GROUPS = (6144, 1024, 1024, 808, 32)
ALP_VECTORS = {"alp_1024": 10, "alp_4096": 12, "alp_32": 5}  # column suffix -> log2 of its vector size
NAN_BITS = {1024: (0x7FF8000000000000, 0x7FC00000), 1500: (0x7FF800DEADBEEF00, 0x7FC0DEAD),
            2047: (0xFFF8000000000001, 0xFFC00001)}


def _alp_values() -> tuple[list[float | None], list[float | None]]:
    """(double values, float values): the README's distribution, float values the same numbers as binary32 (NaN
    payloads set bit by bit)."""
    rng = random.Random(557)
    def base() -> float:
        return round(rng.random() * 20 - 10, 2)
    def full() -> float:
        return rng.random() * 20 - 10
    doubles: list[float | None] = []
    for i in range(9032):
        if i < 6144 and 4096 <= i < 5120:
            v = full() if i % 2 else base()
        elif 5120 <= i < 6144:
            v = full()
        elif 6144 <= i < 7168:
            v = round(rng.random() * 20 - 10, 4)
        elif 7168 <= i < 8192:
            v = 7.77
        elif 9000 <= i:
            v = float(rng.randrange(-8 * 10**18, 8 * 10**18))
        else:
            v = base()
        doubles.append(v)
    specials = {2000: float("inf"), 2001: float("-inf"), 2002: -0.0, 2003: 5e-324, 2500: 3.141592653589793,
                3100: 44974934523.343, 3711: -1243432432.3432, 9000: -8e18, 9001: 8e18}
    for i, v in specials.items():
        doubles[i] = v
    for i in range(8200, 9000, 100):
        doubles[i] = None
    floats: list[float | None] = [None if v is None else struct.unpack("<f", struct.pack("<f", v))[0]
                                  if abs(v) < 3.4e38 else v for v in doubles]
    floats[2003] = 1e-45
    for i, (bits64, _) in NAN_BITS.items():
        doubles[i] = struct.unpack("<d", bits64.to_bytes(8, "little"))[0]
    return doubles, floats


def alp_table() -> pa.Table:
    doubles, floats = _alp_values()
    f32 = pa.array(floats, pa.float32())
    buffers = f32.buffers()  # NaN payloads: set in the binary32 data buffer itself
    data = bytearray(buffers[1].to_pybytes())
    for i, (_, bits32) in NAN_BITS.items():
        data[4 * i:4 * i + 4] = bits32.to_bytes(4, "little")
    f32 = pa.Array.from_buffers(pa.float32(), len(floats), [buffers[0], pa.py_buffer(bytes(data))])
    f64 = pa.array(doubles, pa.float64())
    columns: dict[str, pa.Array] = {"float_plain": f32, "double_plain": f64}
    for suffix in ALP_VECTORS:
        columns[f"float_{suffix}"] = f32
        columns[f"double_{suffix}"] = f64
    return pa.table(columns)


# apache/parquet-testing's files committed byte for byte (fixtures/parquet-testing/provenance.json: repository,
# commit, each path's sha256): the shredded_variant cases, parquet-java's (Iceberg's TestVariantReaders) files.
PARQUET_TESTING = Path(__file__).parent / "fixtures" / "parquet-testing"


@cache
def parquet_testing() -> dict[str, Any]:
    return dict(json.loads((PARQUET_TESTING / "provenance.json").read_text(encoding="utf-8")))


def upstream_bytes(path: str) -> bytes:
    """A committed apache/parquet-testing file, refused where a byte differs from its recorded sha256."""
    data = (PARQUET_TESTING / path).read_bytes()
    if hashlib.sha256(data).hexdigest() != parquet_testing()["files"].get(path):
        raise ValueError(f"{PARQUET_TESTING / path} does not match its sha256 in provenance.json")
    return data


@dataclass(frozen=True)
class ShreddedCase:
    """One entry of shredded_variant/cases.json: a single record (`variants` of one), several, or an error."""

    number: int
    test: str
    parquet_file: str
    variants: tuple[str | None, ...]  # the variant files, one per row (None: a null variant)
    text: str  # the `variant`, `variants` or `error_message` string as cases.json gives it
    error: bool
    notes: str

    @property
    def stem(self) -> str:
        return self.parquet_file.removesuffix(".parquet")


@cache
def shredded_cases() -> tuple[ShreddedCase, ...]:
    """The entries of cases.json that name a file (case 3 names none)."""
    out = []
    for c in json.loads(upstream_bytes("shredded_variant/cases.json")):
        if "parquet_file" not in c:
            continue
        files = c.get("variant_files", [c["variant_file"]] if "variant_file" in c else [])
        out.append(ShreddedCase(int(c["case_number"]), str(c["test"]), str(c["parquet_file"]),
                                tuple(None if f is None else str(f) for f in files),
                                str(c.get("error_message") or c.get("variants") or c.get("variant")),
                                "error_message" in c, str(c.get("notes", ""))))
    return tuple(out)


def shredded_physical(case: ShreddedCase) -> pa.Table:
    """The file's rows as their physical values (id, and the var group of metadata, value, typed_value): what a
    reader that does not know VARIANT reads; pyarrow reads it from the file with its VARIANT annotation taken out."""
    data = upstream_bytes(f"shredded_variant/{case.parquet_file}")
    footer, _ = read_footer(data)
    edits = [remove_fields(data, e, ("logicalType",)) for e in footer.root.children("schema")
             if (lt := e.child("logicalType")) is not None and [f.id for f in lt.node.fields] == [VARIANT_MEMBER]]
    assert len(edits) == 1, case.parquet_file
    return pq.read_table(pa.BufferReader(apply_edits(data, edits)))


VARIANT_MEMBER = 16  # LogicalType.VARIANT


# What DuckDB 2.0.1 wrote (generators/parquet/fixtures/write.py, provenance.json): a VARIANT column shredded as
# DuckDB shreds it (typed_value INT32 where a row is one), read as its physical group.
VARIANT_ROWS = [
    {"metadata": b"\x01\x00\x00", "value": None, "typed_value": 42},
    {"metadata": b"\x01\x00\x00", "value": b"\x11text", "typed_value": None},
    {"metadata": b"\x01\x02\x00\x01\x02ab", "value": b"\x02\x02\x00\x01\x00\x05\x07\x14\x01\x00\x00\x00\x05x",
     "typed_value": None},
    {"metadata": b"\x01\x00\x00",
     "value": b"\x03\x03\x00\x05\n\x0f\x14\x01\x00\x00\x00\x14\x02\x00\x00\x00\x14\x03\x00\x00\x00",
     "typed_value": None},
    None,
    {"metadata": b"\x01\x00\x00", "value": None, "typed_value": 7},
    {"metadata": b"\x01\x00\x00", "value": b"\x1c\x00\x00\x00\x00\x00\x00\x04@", "typed_value": None},
]
VARIANT_SQL = ("SELECT id, v FROM (VALUES (0, 42::VARIANT), (1, 'text'::VARIANT), (2, {'a': 1, 'b': 'x'}::VARIANT), "
               "(3, [1, 2, 3]::VARIANT), (4, NULL::VARIANT), (5, 7::VARIANT), (6, 2.5::DOUBLE::VARIANT)) t(id, v) "
               "ORDER BY id")


def variant_table() -> pa.Table:
    var = pa.struct([pa.field("metadata", pa.binary(), nullable=False), pa.field("value", pa.binary()),
                     pa.field("typed_value", pa.int32())])
    return pa.table({"id": pa.array(range(len(VARIANT_ROWS)), pa.int32()), "v": pa.array(VARIANT_ROWS, var)})


NAN_COUNT_SQL = ("SELECT i::INT AS id, CASE WHEN i % 4 = 1 THEN 'nan'::DOUBLE WHEN i % 5 = 2 THEN NULL "
                 "ELSE i * 0.5 - 3 END AS d, CASE WHEN i % 3 = 2 THEN 'nan'::FLOAT ELSE (i * 0.25)::FLOAT END AS f "
                 "FROM range(12) r(i) ORDER BY i")


def nan_count_table() -> pa.Table:
    """The rows of NAN_COUNT_SQL: a DOUBLE with NaNs and nulls, a FLOAT with NaNs."""
    def d(i: int) -> float | None:
        return float("nan") if i % 4 == 1 else None if i % 5 == 2 else i * 0.5 - 3
    return pa.table({"id": pa.array(range(12), pa.int32()), "d": pa.array([d(i) for i in range(12)], pa.float64()),
                     "f": pa.array([float("nan") if i % 3 == 2 else i * 0.25 for i in range(12)], pa.float32())})
