"""Base datasets: small tables written by pyarrow with fixed settings, so the same pyarrow
version always writes the same bytes. Cases extend or corrupt these files."""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import io
import json
import struct
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from parquet_conformance.generators.canonical import canonical_table, data_hash
from parquet_conformance.generators.parquet import evolution, features, thrift
from parquet_conformance.generators.parquet.edits import apply_edits, remove_fields, select, set_fields
from parquet_conformance.generators.parquet.encryption import MODES
from parquet_conformance.generators.parquet.footer import field_id, read_footer

# Fixed writer settings: uncompressed PLAIN pages v1, statistics on, no page index or bloom
# filter (nothing in the footer points between pages, see docs/spec-notes.md on PageHeader).
WRITE_OPTIONS = dict(compression="none", data_page_version="1.0", write_statistics=True,
                     use_dictionary=False, write_page_index=False, version="2.6")
# The features family writes without statistics too: a feature's file holds nothing a reader could lack but the
# feature (statistics are a feature of their own, features/format-stats-min-max/*).
FEATURE_OPTIONS: tuple[tuple[str, object], ...] = (("write_statistics", False),)
# pyarrow writes ColumnMetaData.size_statistics in every file and has no option to leave it out: the features
# family takes it out of what pyarrow writes for it (features/format-size-statistics/* keeps it).
NO_SIZE_STATISTICS = (("ColumnMetaData", "all", ("size_statistics",)),)


@dataclass(frozen=True)
class Base:
    """`build` gives the data every reader must return. Most bases write exactly that table; the typed ones write
    `written` (physical stand-ins, e.g. 12-byte binaries for INT96) and then `annotate` the footer with what pyarrow
    cannot write (the physical type INT96, ConvertedType INTERVAL, BSON, ENUM, a DECIMAL on BYTE_ARRAY)."""

    name: str
    description: str
    build: Callable[[], pa.Table]
    options: tuple[tuple[str, object], ...] = ()
    written: Callable[[], pa.Table] | None = None
    annotate: dict[str, dict[str, tuple[int, Any]]] = field(default_factory=dict)  # column -> SchemaElement fields
    fixture: str | None = None  # a committed file written by another writer (fixtures/, provenance.json there)
    encrypted: bool = False  # Parquet modular encryption (generators/parquet/encryption.py): no reading without keys
    # Fields taken out of what the writer wrote, (struct, which, fields): the base of a feature is the file without
    # it, so that a case can put it back as the writer wrote it (the evolution family; written_bytes is the whole).
    strip: tuple[tuple[str, int | str, tuple[str, ...]], ...] = ()
    row_groups: tuple[int, ...] = ()  # row groups of these sizes, in order (pyarrow's row_group_size is one size)
    # A committed apache/parquet-testing file (fixtures/parquet-testing, evolution.upstream_bytes)
    upstream: str | None = None
    # The case that is this base unmodified, when it is not base/<name>: an upstream file's own case, a feature's own
    # file (the features family), whose case is its feature's
    case: str | None = None


def _flat() -> pa.Table:
    n = 24
    def nulls(values: list) -> list:
        return [None if i % 5 == 3 else v for i, v in enumerate(values)]
    floats = [1.5, -0.0, float("nan"), float("inf"), float("-inf"), 1e-300, 2.5e300, 0.1]
    text = ["", "a", "Grüße", "日本語", "emoji \U0001f600", "tab\there", "quote\"", "x" * 40]
    return pa.table({
        "i32": pa.array(nulls([i * 7 - 50 for i in range(n)]), pa.int32()),
        "i64": pa.array(nulls([(-1) ** i * (2 ** 62 + i) for i in range(n)]), pa.int64()),
        "f64": pa.array(nulls([floats[i % 8] * (i + 1) for i in range(n)]), pa.float64()),
        "f32": pa.array(nulls([float(i) / 4 for i in range(n)]), pa.float32()),
        "flag": pa.array(nulls([i % 3 == 0 for i in range(n)]), pa.bool_()),
        "text": pa.array(nulls([text[i % 8] for i in range(n)]), pa.string()),
        "blob": pa.array(nulls([bytes([i, 255 - i, 0]) for i in range(n)]), pa.binary()),
        "day": pa.array(nulls([dt.date(1969, 12, 25) + dt.timedelta(days=37 * i) for i in range(n)]), pa.date32()),
        "ts": pa.array(nulls([dt.datetime(2001, 2, 3, 4, 5, 6) + dt.timedelta(seconds=86399 * i, microseconds=i)
                              for i in range(n)]), pa.timestamp("us")),
        "amount": pa.array(nulls([decimal.Decimal(i * 1234 - 9000) / 100 for i in range(n)]), pa.decimal128(9, 2)),
    })


def _nested() -> pa.Table:
    ints = [[1, 2], [], None, [None], [3, None, 4], [5]]
    strs = [[["a"], ["b", "c"]], [[]], None, [None, ["d"]], [], [["e", None]]]
    structs = [
        {"a": 1, "b": {"c": "x", "d": [0.5]}},
        None,
        {"a": None, "b": None},
        {"a": 2, "b": {"c": None, "d": []}},
        {"a": 3, "b": {"c": "y", "d": None}},
        {"a": 4, "b": {"c": "z", "d": [1.0, None, -2.0]}},
    ]
    items = [[{"x": 1, "y": "p"}], None, [], [None, {"x": None, "y": "q"}], [{"x": 2, "y": None}], [None]]
    return pa.table({
        "id": pa.array(range(6), pa.int32()),
        "ints": pa.array(ints, pa.list_(pa.int32())),
        "strs": pa.array(strs, pa.list_(pa.list_(pa.string()))),
        "rec": pa.array(structs, pa.struct([("a", pa.int32()), ("b", pa.struct([
            ("c", pa.string()), ("d", pa.list_(pa.float64()))]))])),
        "items": pa.array(items, pa.list_(pa.struct([("x", pa.int64()), ("y", pa.string())]))),
    })


def _multi_row_group() -> pa.Table:
    n = 3000
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "label": pa.array([None if i % 11 == 0 else f"row-{i:05d}" for i in range(n)], pa.string()),
        "value": pa.array([i * 0.25 for i in range(n)], pa.float64()),
    })


def _dictionary() -> pa.Table:
    words = ["alpha", "beta", "gamma", "delta", None]
    return pa.table({
        "word": pa.array([words[(i * 7) % 5] for i in range(200)], pa.string()),
        "code": pa.array([(i * 13) % 4 for i in range(200)], pa.int32()),
        "score": pa.array([float(i % 3) for i in range(200)], pa.float64()),
    })


_JULIAN_EPOCH = 2440588  # the Julian day of 1970-01-01, where INT96 counts its days from


def _int96(day: int, nanos: int) -> bytes:
    """An INT96 timestamp as Impala and Spark write it: nanoseconds of the day (i64) and the Julian day (i32), LE."""
    return struct.pack("<qi", nanos, day + _JULIAN_EPOCH)


def _ns(day: int, nanos: int) -> int:
    return day * 86_400_000_000_000 + nanos


INT96_IN_RANGE = [(0, 1), None, (-25567, 0), (19_000, 86_399_999_999_999), (106_751, 0), (-106_751, 5)]
# Beyond the nanosecond range: whole microseconds, which is what a 64-bit timestamp can still hold there.
INT96_EXTREMES = [(3_000_000, 0), None, (-800_000, 12_000), (2_932_896, 1_000), (-719_162, 0),
                  (10**7, 86_399_999_999_000)]


def _all_types(stand_ins: bool = False) -> pa.Table:
    """Every physical and logical type a reader may return, with nulls and extremes. With `stand_ins`, the columns
    pyarrow cannot write as such are plain binaries that `annotate` turns into their type in the footer."""
    n = 6

    def col(values: list, typ: pa.DataType) -> pa.Array:
        assert len(values) == n
        return pa.array(values, typ)

    dec = decimal.Decimal
    days = [0, None, -800_000, 2_932_896, 3_000_000, -719_162]  # 1970, 221 BC, 9999-12-31, year 10183, year 1
    int96 = [None if v is None else (_int96(*v) if stand_ins else _ns(*v)) for v in INT96_IN_RANGE]
    decb = [dec("-123.45"), None, dec("0.01"), dec("99999999.99"), dec("-0.00"), dec("1.00")]
    return pa.table({
        "i8": col([-128, 127, None, 0, -1, 1], pa.int8()),
        "i16": col([-32768, 32767, None, 0, -1, 1], pa.int16()),
        "i32": col([-2**31, 2**31 - 1, None, 0, -1, 1], pa.int32()),
        "i64": col([-2**63, 2**63 - 1, None, 0, -1, 1], pa.int64()),
        "u8": col([0, 255, None, 1, 128, 7], pa.uint8()),
        "u16": col([0, 65535, None, 1, 32768, 7], pa.uint16()),
        "u32": col([0, 2**32 - 1, None, 1, 2**31, 7], pa.uint32()),
        "u64": col([0, 2**64 - 1, None, 1, 2**63, 7], pa.uint64()),
        "f16": pa.array(np.array([1.5, -0.0, 65504, np.nan, 6e-8, np.inf], dtype=np.float16)),
        "f32": col([3.4028235e38, -0.0, None, float("nan"), 1e-45, float("-inf")], pa.float32()),
        "f64": col([1.7976931348623157e308, -0.0, None, float("nan"), 5e-324, float("inf")], pa.float64()),
        "bool": col([True, False, None, True, False, True], pa.bool_()),
        "utf8": col(["", "Grüße", None, "nul\x00inside", "emoji \U0001f600", "x" * 300], pa.string()),
        "large_utf8": col(["a", "", None, "日本語", "b", "c"], pa.large_string()),
        "utf8_view": col(["view", "", None, "a much longer string than twelve bytes", "v", "w"], pa.string_view()),
        "bin": col([b"", b"\x00\xff", None, bytes(range(256)), b"x", b"y"], pa.binary()),
        "large_bin": col([b"a", b"", None, b"\xfe", b"b", b"c"], pa.large_binary()),
        "bin_view": col([b"", b"a longer binary value than twelve", None, b"\x01", b"b", b"c"], pa.binary_view()),
        "fixed5": col([b"abcde", b"\x00" * 5, None, b"\xff" * 5, b"12345", b"zzzzz"], pa.binary(5)),
        "dec9_2": col([dec("-9999999.99"), dec("9999999.99"), None, dec("0.00"), dec("-0.01"), dec("1.00")],
                      pa.decimal128(9, 2)),
        "dec18_3": col([dec("-999999999999999.999"), dec("999999999999999.999"), None, dec("0.000"), dec("1.500"),
                        dec("-2.250")], pa.decimal128(18, 3)),
        "dec38_10": col([dec("-" + "9" * 28 + "." + "9" * 10), dec("1E-10"), None, dec("0E-10"), dec("1.5"), dec("2")],
                        pa.decimal128(38, 10)),
        "dec76_5": col([dec("-" + "9" * 71 + ".99999"), dec("1.00000"), None, dec("0E-5"), dec("3"), dec("4")],
                       pa.decimal256(76, 5)),
        "dec_bytes": pa.array([None if v is None else int(v.scaleb(2)).to_bytes(5, "big", signed=True)
                               for v in decb], pa.binary()) if stand_ins else col(decb, pa.decimal128(10, 2)),
        "date": col(days, pa.date32()),
        "time_ms": col([0, 86_399_999, None, 1, 43_200_000, 5], pa.time32("ms")),
        "time_us": col([0, 86_399_999_999, None, 1, 43_200_000_000, 5], pa.time64("us")),
        "time_ns": col([0, 86_399_999_999_999, None, 1, 43_200_000_000_001, 5], pa.time64("ns")),
        "ts_s": col([0, None, -62_135_596_800, 253_402_300_799, 1, -1], pa.timestamp("s")),
        "ts_ms": col([0, None, -62_135_596_800_000, 253_402_300_799_999, 1, -1], pa.timestamp("ms")),
        "ts_us": col([0, None, -62_135_596_800_000_000, 253_402_300_799_999_999, 1, -1], pa.timestamp("us")),
        "ts_ns": col([0, None, -2**63 + 1, 2**63 - 1, 1, -1], pa.timestamp("ns")),
        "ts_us_utc": col([0, None, 1, -1, 10**15, -(10**15)], pa.timestamp("us", tz="UTC")),
        "ts_ns_zone": col([0, None, 1, -1, 10**18, -(10**18)], pa.timestamp("ns", tz="America/New_York")),
        "int96": pa.array(int96, pa.binary(12)) if stand_ins else col(int96, pa.timestamp("ns")),
        "interval": col([None if i == 1 else struct.pack("<III", i, 31 * i, 86_400_000 - i) for i in range(n)],
                        pa.binary(12)),
        "uuid": col([None if i == 2 else uuid.UUID(int=(i * 0x1234567890ABCDEF) << 64 | i).bytes for i in range(n)],
                    pa.uuid()),
        "json": col(['{"a": 1}', "[]", None, '"text"', "null", '{"nested": {"b": [1, 2.5]}}'], pa.json_()),
        "bson": col([b"\x05\x00\x00\x00\x00", None, b"\x0c\x00\x00\x00\x10a\x00\x01\x00\x00\x00\x00",
                     b"\x05\x00\x00\x00\x00", b"\x05\x00\x00\x00\x00", b"\x05\x00\x00\x00\x00"],
                    pa.binary()),
        "enum": col([b"RED", b"GREEN", None, b"BLUE", b"RED", b""], pa.binary()),
        "null": pa.nulls(n),
        "list": col([[1, None], [], None, [2**31 - 1], [-1, -2, -3], [0]], pa.list_(pa.int32())),
        "list_list": col([[["a"], []], [None], None, [["b", None]], [], [[""]]], pa.list_(pa.list_(pa.string()))),
        "list_struct": col([[{"a": 1, "b": "x"}], [None], None, [{"a": None, "b": None}], [], [{"a": 2, "b": "y"}]],
                           pa.list_(pa.struct([("a", pa.int64()), ("b", pa.string())]))),
        "large_list": col([[1], None, [], [2, 3], [2**62], [-1]], pa.large_list(pa.int64())),
        "fixed_list": col([[1, 2], None, [3, None], [0, 0], [-1, 1], [7, 8]], pa.list_(pa.int16(), 2)),
        "map": col([[("a", 1)], None, [], [("b", None), ("c", 3)], [("", -1)], [("d", 4)]],
                   pa.map_(pa.string(), pa.int64())),
        "map_struct": col([[(1, {"x": 0.5})], [], None, [(2, None)], [(3, {"x": None})], [(-1, {"x": -1.5})]],
                          pa.map_(pa.int32(), pa.struct([("x", pa.float64())]))),
        "struct": col([{"a": 1, "b": {"c": "x", "d": [1.5]}}, None, {"a": None, "b": None},
                       {"a": 2, "b": {"c": None, "d": []}}, {"a": 3, "b": {"c": "y", "d": None}},
                       {"a": 4, "b": {"c": "z", "d": [None]}}],
                      pa.struct([("a", pa.int32()), ("b", pa.struct([("c", pa.string()),
                                                                    ("d", pa.list_(pa.float64()))]))])),
        "dict": pa.array(["red", "green", None, "red", "red", "blue"]).dictionary_encode(),
    })


def _int96_extremes(stand_ins: bool = False) -> pa.Table:
    """INT96 instants outside what a nanosecond timestamp holds (and outside Python's years 1..9999)."""
    values = [None if v is None else (_int96(*v) if stand_ins else _ns(*v)) for v in INT96_EXTREMES]
    if stand_ins:
        return pa.table({"int96": pa.array(values, pa.binary(12))})
    # No Arrow type holds these instants; the expected data is written straight as tokens (see base_expected).
    return pa.table({"int96": pa.array(values, pa.decimal256(40, 0))})


def _logical(member: int, body: bytes = b"\x00") -> tuple[int, bytes]:
    """A LogicalType union value with one member (parquet.thrift field ids) for SchemaElement.logicalType."""
    return thrift.STRUCT, thrift.encode_struct([(member, thrift.STRUCT, body)])


INT96, CONVERTED_INTERVAL, CONVERTED_BSON, CONVERTED_ENUM, CONVERTED_DECIMAL = 3, 21, 20, 4, 5
ANNOTATE_ALL_TYPES: dict[str, dict[str, tuple[int, Any]]] = {
    "int96": {"type": (thrift.I32, INT96)},
    "interval": {"converted_type": (thrift.I32, CONVERTED_INTERVAL)},
    "bson": {"converted_type": (thrift.I32, CONVERTED_BSON), "logicalType": _logical(13)},
    "enum": {"converted_type": (thrift.I32, CONVERTED_ENUM), "logicalType": _logical(4)},
    "dec_bytes": {"converted_type": (thrift.I32, CONVERTED_DECIMAL), "scale": (thrift.I32, 2),
                  "precision": (thrift.I32, 10),
                  "logicalType": _logical(5, thrift.encode_struct([(1, thrift.I32, 2), (2, thrift.I32, 10)]))},
}


def _paged() -> pa.Table:
    """Rows for the page-level bases: several pages per chunk, a dictionary column, nulls, a high-cardinality
    text column for a bloom filter."""
    n = 1200
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "label": pa.array([None if i % 13 == 0 else f"label-{i % 40:02d}" for i in range(n)], pa.string()),
        "key": pa.array([f"k{i * 7919 % 100_003:06d}" for i in range(n)], pa.string()),
        "value": pa.array([None if i % 17 == 0 else i * 0.5 - 300 for i in range(n)], pa.float64()),
        "flag": pa.array([i % 3 == 0 for i in range(n)], pa.bool_()),
    })


# Page index on every column, bloom filters on two, `label` dictionary-encoded, small pages: everything a
# reader may parse outside the footer (generators/parquet/layout.py).
PAGED = (("row_group_size", 600), ("data_page_size", 1024), ("write_batch_size", 100), ("write_page_index", True),
         ("use_dictionary", ["label"]), ("bloom_filter_options", {"id": {"ndv": 600, "fpp": 0.05},
                                                                  "key": {"ndv": 600, "fpp": 0.05}}))
CODECS = {"snappy": "snappy", "gzip": "gzip", "brotli": "brotli", "zstd": "zstd", "lz4-raw": "lz4"}


def writers_table() -> pa.Table:
    """The rows every other writer is given (generators/parquet/fixtures/write.py): types all of them write."""
    n = 300
    names = ["alpha", "Grüße", "日本語", "", "emoji \U0001f600", "quote\"", "x" * 30]
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "name": pa.array([None if i % 7 == 3 else names[i % 7] for i in range(n)], pa.string()),
        "score": pa.array([i * 0.25 - 20 for i in range(n)], pa.float64()),
        "flag": pa.array([i % 3 == 0 for i in range(n)], pa.bool_()),
        "ts": pa.array([dt.datetime(2001, 2, 3) + dt.timedelta(seconds=3607 * i, milliseconds=i) for i in range(n)],
                       pa.timestamp("ms")),
    })


def _wide() -> pa.Table:
    return pa.table({f"c{i:04d}": pa.array([i, None if i % 7 == 0 else -i, i * 3], pa.int32())
                     for i in range(1000)})


FIXTURES = Path(__file__).parent / "fixtures"
SPHERICAL = b'{"edges": "spherical"}'
# Without pyarrow's ARROW:schema, whose geoarrow.wkb would annotate the stripped base again for an Arrow reader.
NO_ARROW_SCHEMA = (("store_schema", False),)


def _evolution_bases() -> list[Base]:
    """The bases of the evolution family (corpus/parquet/catalog/evolution.py; tables in evolution.py): each the
    physical file a reader that does not know the addition reads, the addition stripped where a writer wrote it."""
    schema1 = ("SchemaElement", 1, ("logicalType",))
    geo_stats = ("ColumnMetaData", "all", ("geospatial_statistics",))
    return [
        Base("evo-variant", "7 rows of a VARIANT column as DuckDB 2.0.1 shreds it (metadata, value, typed_value INT32) "
             "and an id, its VARIANT annotation taken out: the group a reader that does not know VARIANT reads",
             evolution.variant_table, fixture="duckdb-variant.parquet",
             strip=(("SchemaElement", 2, ("logicalType",)),)),
        Base("evo-nan-count", "12 rows of a DOUBLE with NaNs and nulls and a FLOAT with NaNs as DuckDB 2.0.1 writes "
             "them, their statistics' nan_count taken out", evolution.nan_count_table,
             fixture="duckdb-nan-count.parquet", strip=(("Statistics", "all", ("nan_count",)),)),
        Base("evo-geometry", "5 rows of WKB (points, a line, a polygon, a null) as pyarrow writes a geoarrow.wkb "
             "column, its GEOMETRY annotation and geospatial statistics taken out", evolution.wkb_table,
             written=evolution.geo_written(b"{}"), strip=(schema1, geo_stats), options=NO_ARROW_SCHEMA),
        Base("evo-geography", "the WKB of 'evo-geometry' as pyarrow writes a geoarrow.wkb column with spherical edges, "
             "its GEOGRAPHY annotation and geospatial statistics taken out", evolution.wkb_table,
             written=evolution.geo_written(SPHERICAL), strip=(schema1, geo_stats), options=NO_ARROW_SCHEMA),
        Base("evo-file", "5 rows of an id and a group of the FILE fields (uri, offset, size, content_type, checksum, "
             "inline): external files, a range, inline bytes with and without a locator, a null", evolution.file_table),
        Base("evo-int32-uuid", "the content of apache/parquet-testing's int32_with_uuid_logical_type.parquet (#122): "
             "a required INT32 column int32_uuid holding 0..9, unannotated", evolution.int32_uuid_table),
        Base("evo-flba12", "the content of apache/parquet-testing's flba12_timestamp.parquet: three "
             "FIXED_LEN_BYTE_ARRAY(12) columns of 96-bit counts of ms, us and ns (six instants from year 1 to 9999), "
             "unannotated", evolution.flba12_table),
        *(Base(f"evo-flba12-{name.removeprefix('timestamp_')}", f"the {name} column of 'evo-flba12' alone: six "
               "96-bit counts of its unit, unannotated", partial(evolution.flba12_table, name))
          for name in evolution.FLBA12_UNITS),
        Base("evo-int96-order", "the content of apache/parquet-testing's int96_timestamp_order.parquet: a required "
             "INT96 column ts of four instants a byte-wise comparison orders otherwise, without statistics",
             evolution.int96_order_table, (("write_statistics", False),), written=evolution.int96_order_written,
             annotate={"ts": {"type": (thrift.I32, INT96)}}),
        Base("evo-vector", f"{evolution.VECTOR_LENGTH * evolution.VECTOR_ROWS} rows of a required float in a required "
             "group in a required group (emb.list.element): PR #592's VECTOR element slots before their annotation",
             evolution.vector_table),
        Base("evo-no-path", "the content of apache/parquet-testing's no_path_in_schema.zstd.parquet (#108): a "
             "map<string, map<int32, bool>>, an INT32 and a DOUBLE, 6 rows, uncompressed", evolution.no_path_table),
        Base("evo-alp", "9032 rows of FLOAT and DOUBLE columns in five row groups, the distribution apache/parquet-"
             "testing's alp_extended.zstd.parquet describes (decimals, NaNs with payloads, infinities, -0.0, "
             "subnormals, full-mantissa values, a constant, nulls, integers to 8e18), PLAIN and uncompressed",
             evolution.alp_table, row_groups=evolution.ALP_ROW_GROUPS),
    ]


def _shredded_base(case: evolution.ShreddedCase) -> Base:
    return Base(f"evo-shredded-{case.stem}", f"apache/parquet-testing shredded_variant/{case.parquet_file} as it is "
                f"(parquet-java, Iceberg's {case.test}): an id and a VARIANT group (metadata, value, typed_value); its "
                "data is that group's physical values", lambda: evolution.shredded_physical(case),
                upstream=f"shredded_variant/{case.parquet_file}", case=f"evolution/variant/shredded-{case.stem}")


# The committed apache/parquet-testing files, each its own base and, unmodified, its own case (the evolution family):
# apart from BASES, which every family of extensions iterates.
UPSTREAM_BASES: dict[str, Base] = {b.name: b for b in map(_shredded_base, evolution.shredded_cases())}


def lookup(name: str) -> Base:
    """A base of either list."""
    return BASES[name] if name in BASES else UPSTREAM_BASES[name]
def _constant(table: pa.Table) -> Callable[[], pa.Table]:
    return lambda: table


def _feature_bases() -> list[Base]:
    """The bases of the features family (corpus/parquet/catalog/features.py; tables in features.py): a file per
    physical and logical type apache/parquet-site tracks, each its feature's case, and the reference files the
    encodings, codecs, page features and legacy nested forms are varied over."""
    out = []
    for group, tables in (("physical", features.physical_tables()), ("logical", features.logical_tables())):
        for slug, (table, options) in tables.items():
            out.append(Base(f"feat-{slug}", f"{table.num_rows} rows of {', '.join(table.column_names)}: the "
                            f"{slug} {group} type as pyarrow writes it, PLAIN, uncompressed, v1 pages, no statistics",
                            _constant(table), (*FEATURE_OPTIONS, *options), strip=NO_SIZE_STATISTICS,
                            case=f"features/{group}-{slug}/pyarrow"))
    for slug, (table, stand_in) in features.annotated_tables().items():
        column = table.column_names[0]
        annotate = {column: ANNOTATE_ALL_TYPES[{"enum": "enum", "bson": "bson"}.get(slug, "dec_bytes")]}
        out.append(Base(f"feat-{slug}", f"{table.num_rows} rows of {column}: BYTE_ARRAY values pyarrow writes as "
                        f"binaries, annotated {slug.upper()} by our codec (pyarrow does not write the type)",
                        _constant(table), FEATURE_OPTIONS, written=_constant(stand_in), annotate=annotate,
                        strip=NO_SIZE_STATISTICS,
                        case=f"features/logical-{slug}/pyarrow-annotated"))
    out += [
        Base("feat-interval", f"{features.ROWS} rows of an INTERVAL column (FIXED_LEN_BYTE_ARRAY(12)) as DuckDB "
             "writes it, uncompressed", features.interval_table, fixture="duckdb-interval.parquet",
             case="features/logical-interval/duckdb"),
        Base("feat-reference", "200 rows of INT32, INT64, FLOAT, DOUBLE, BOOLEAN, text, BYTE_ARRAY and "
             "FIXED_LEN_BYTE_ARRAY(4) columns with nulls, PLAIN, uncompressed, v1 pages, no statistics: what the "
             "encodings, codecs and page features vary", features.reference_table, FEATURE_OPTIONS,
             strip=NO_SIZE_STATISTICS, case="features/encoding-plain/pyarrow"),
        *(Base(f"feat-reference-{slug}", f"the {', '.join(columns)} column{'s' if len(columns) > 1 else ''} of "
               "'feat-reference' alone: what an encoding, a codec or a page feature is also varied over alone",
               partial(features.narrow_reference_table, columns), FEATURE_OPTIONS, strip=NO_SIZE_STATISTICS,
               case=f"features/encoding-plain/{slug}") for slug, columns in features.NARROW.items()),
        Base("feat-reference-i32-s-sized", "the i32 and s columns of 'feat-reference' alone, with the SizeStatistics "
             "pyarrow writes: what the encrypted files hold without the encryption",
             partial(features.narrow_reference_table, features.NARROW["i32-s"]), FEATURE_OPTIONS,
             case="features/reference/pyarrow-i32-s-sized"),
        Base("feat-reference-polars-i32-s", "the i32 and s columns of 'feat-reference' as polars writes them, "
             "uncompressed, no statistics: what its encryption varies", partial(features.narrow_reference_table,
                                                                                features.NARROW["i32-s"]),
             fixture="polars-i32-s.parquet", case="features/reference/polars-i32-s"),
        Base("feat-reference-polars-i32-s-pages", "'feat-reference-polars-i32-s' in data pages of at most 256 bytes: "
             "several pages in each column chunk", partial(features.narrow_reference_table, features.NARROW["i32-s"]),
             fixture="polars-i32-s-pages.parquet", case="features/reference/polars-i32-s-pages"),
        Base("feat-reference-parquet-java", "the rows of 'feat-reference' as parquet-java writes them through Spark, "
             "uncompressed, no dictionary", features.reference_table, fixture="spark-uncompressed.parquet",
             case="features/reference/parquet-java"),
        Base("feat-reference-parquet-java-i32-s", "the i32 and s columns of 'feat-reference-parquet-java' alone: what "
             "its codec is also varied over alone", partial(features.narrow_reference_table, features.NARROW["i32-s"]),
             fixture="spark-uncompressed-i32-s.parquet", case="features/reference/parquet-java-i32-s"),
        Base("feat-keyed", "160 rows of an INT64 id, a text key, INT32, DOUBLE, FLOAT and BOOLEAN columns in two "
             "row groups, PLAIN, uncompressed, no statistics: what the features read through an operation vary",
             features.keyed_table, (*FEATURE_OPTIONS, ("row_group_size", features.KEYED_ROW_GROUP)),
             strip=NO_SIZE_STATISTICS, case="features/reference/keyed"),
        Base("feat-list-required", f"{features.ROWS} rows of lists with required elements (int32, a struct of two, "
             "a list, a struct of one) in the 3-level LIST form", features.legacy_list_table, FEATURE_OPTIONS,
             strip=NO_SIZE_STATISTICS, case="features/logical-list/required-elements"),
        Base("feat-list-unannotated", f"{features.ROWS} rows of required lists of required int32s and of structs, "
             "in the 3-level LIST form", features.unannotated_table, FEATURE_OPTIONS,
             strip=NO_SIZE_STATISTICS, case="features/logical-list/required-lists"),
        Base("feat-annotations", f"{features.ROWS} rows of DATE, TIMESTAMP(MILLIS), DECIMAL(9, 2) on INT32 and "
             "STRING, each annotated with its LogicalType and its ConvertedType",
             features.date_time_table, (*FEATURE_OPTIONS, ("store_decimal_as_integer", True)), strip=NO_SIZE_STATISTICS,
             case="features/logical-type-union/both"),
    ]
    return out


def fixture_bytes(name: str) -> bytes:
    """A committed fixture's bytes, checked against its sha256 in provenance.json."""
    data = (FIXTURES / name).read_bytes()
    if hashlib.sha256(data).hexdigest() != provenance()[name.removesuffix(".parquet")]["sha256"]:
        raise ValueError(f"{FIXTURES / name} does not match the sha256 in provenance.json")
    return data


def provenance() -> dict[str, dict[str, str]]:
    """Who wrote each committed fixture, with which version and call (fixtures/write.py rewrites them)."""
    return json.loads((FIXTURES / "provenance.json").read_text(encoding="utf-8"))


def _fixtures() -> list[tuple[str, dict[str, str], int]]:
    """(base name, provenance, row groups) of each fixture of bases.writers_table, from the file's own footer (the
    fixtures of other tables are the evolution bases)."""
    out = []
    for writer, p in provenance().items():
        if "table" in p:
            continue
        if writer in MODES:
            out.append((writer, p, 2))
            continue
        groups = pq.read_metadata(io.BytesIO((FIXTURES / p["file"]).read_bytes())).num_row_groups
        out.append((f"writer-{writer}", p, groups))
    return out


BASES: dict[str, Base] = {b.name: b for b in [
    Base("flat", "24 rows of flat primitives (ints, floats with NaN/inf/-0.0, bool, UTF-8, binary, date, "
         "timestamp[us], decimal(9,2)) with nulls", _flat),
    Base("nested", "6 rows of lists, lists of lists, nested structs and lists of structs with nulls and "
         "empty lists at every level (Dremel repetition/definition levels)", _nested),
    Base("multi-row-group", "3000 rows in 3 row groups with several data pages per column chunk",
         _multi_row_group, (("row_group_size", 1000), ("data_page_size", 2048), ("write_batch_size", 250))),
    Base("dictionary", "200 rows of low-cardinality columns, dictionary-encoded", _dictionary,
         (("use_dictionary", True),)),
    Base("wide", "3 rows x 1000 int32 columns", _wide),
    Base("checksummed", "200 rows of low-cardinality columns, dictionary-encoded, with a CRC-32 in every page header "
         "(PageHeader.crc)", _dictionary, (("use_dictionary", True), ("write_page_checksum", True))),
    Base("all-types", "6 rows of every physical and logical type a reader may return, with nulls and extremes: "
         "signed and unsigned integers, float16/32/64 with NaN, -0.0, inf and subnormals, text and binary in plain, "
         "large and view layouts, fixed-size binary, DECIMAL on INT32, INT64, FIXED_LEN_BYTE_ARRAY (precision 38 "
         "and 76) and BYTE_ARRAY, DATE beyond years 1..9999, TIME in ms/us/ns, TIMESTAMP in s/ms/us/ns with and "
         "without a zone, INT96 (within the nanosecond range), INTERVAL, UUID, FLOAT16, JSON, BSON, ENUM, a null "
         "column, lists of lists and of structs, large and fixed-size lists, maps, nested structs, dictionary",
         _all_types, (("store_decimal_as_integer", True), ("write_statistics", False)),
         written=lambda: _all_types(stand_ins=True), annotate=ANNOTATE_ALL_TYPES),
    Base("page-index", "1200 rows in 2 row groups of small v1 data pages, with a column index and offset index "
         "for every chunk, bloom filters on two columns and a dictionary-encoded column", _paged, PAGED),
    Base("data-page-v2", "the 'page-index' rows written as DATA_PAGE_V2 pages, with page index and bloom filters",
         _paged, (*PAGED, ("data_page_version", "2.0"))),
    *(Base(f"codec-{slug}", f"the 'page-index' rows, pages compressed with {codec.upper()} (pyarrow's "
           f"'{codec}'{', which writes LZ4_RAW' if codec == 'lz4' else ''}), with page index and bloom filters",
           _paged, (*PAGED, ("compression", codec))) for slug, codec in CODECS.items()),
    *(Base(name, f"the 300 rows of bases.writers_table in {n} row group(s), written by {p['created_by']} "
           "(generators/parquet/fixtures/provenance.json)" + (f", {name} mode, `name` under a column key"
                                                              if name in MODES else ""),
           writers_table, fixture=p["file"], encrypted=name in MODES) for name, p, n in _fixtures()),
    Base("int96-extremes", "6 INT96 timestamps outside the nanosecond range (years 221 BC, 1, 9999, 10183, "
         "29349) with a null, as Impala and Spark write INT96", _int96_extremes, (("write_statistics", False),),
         written=lambda: _int96_extremes(stand_ins=True), annotate={"int96": {"type": (thrift.I32, INT96)}}),
    *_evolution_bases(),
    *_feature_bases(),
]}


# The bases the extension families are built on; the typed ones (all-types, int96-extremes) have a family of
# their own (corpus/parquet/catalog/types.py), so a reader that lacks a type does not fail every extension case.
# Bases written by other writers (committed fixtures): the footer and page-level families on each.
WRITER_BASES = tuple(name for name, b in BASES.items() if b.fixture is not None and not b.encrypted
                     and b.build is writers_table)  # not the evolution family's fixtures
ENCRYPTED_BASES = tuple(name for name, b in BASES.items() if b.encrypted)
# What pyarrow reads without keys: the bases every reader test iterates.
READABLE_BASES = tuple(name for name, b in BASES.items() if not b.encrypted)
EXTENSION_BASES = ("flat", "nested", "multi-row-group", "dictionary", "wide")
# The bases with a page index and bloom filters: the page-level family (corpus/parquet/catalog/pages.py).
PAGE_LEVEL_BASES = ("page-index", "data-page-v2", *(f"codec-{slug}" for slug in CODECS))


@cache
def base_table(name: str) -> pa.Table:
    return lookup(name).build()


@cache
def written_bytes(name: str) -> bytes:
    """The base as its writer wrote it (and our codec annotated it), before `strip`."""
    base = lookup(name)
    if base.upstream is not None:
        return evolution.upstream_bytes(base.upstream)
    if base.fixture is not None:
        return fixture_bytes(base.fixture)
    sink = io.BytesIO()
    table, options = (base.written or base.build)(), {**WRITE_OPTIONS, **dict(base.options)}
    if base.annotate:  # pyarrow's ARROW:schema would name the stand-ins' types (binary) against our annotation: a
        options.update(NO_ARROW_SCHEMA)  # file that contradicts itself, which Arrow readers (polars) follow
    if base.row_groups:
        with pq.ParquetWriter(sink, table.schema, **options) as writer:
            start = 0
            for size in base.row_groups:
                writer.write_table(table.slice(start, size), row_group_size=size)
                start += size
    else:
        pq.write_table(table, sink, **options)
    return _annotated(sink.getvalue(), base.annotate) if base.annotate else sink.getvalue()


@cache
def base_bytes(name: str) -> bytes:
    base = lookup(name)
    return stripped(written_bytes(name), base.strip) if base.strip else written_bytes(name)


def stripped(data: bytes, strip: tuple[tuple[str, int | str, tuple[str, ...]], ...]) -> bytes:
    """The file without these footer fields (those of the selected structs that have them)."""
    footer, _ = read_footer(data)
    edits = [remove_fields(data, ref, fields) for struct, which, fields in strip
             for ref in select(footer, struct, which)
             if all(ref.node.get(field_id(struct, f)) is not None for f in fields)]
    return apply_edits(data, edits)


def _annotated(data: bytes, annotate: dict[str, dict[str, tuple[int, Any]]]) -> bytes:
    """Set SchemaElement fields of the named leaf columns; a new physical `type` goes into their ColumnMetaData too
    (INT96 and FIXED_LEN_BYTE_ARRAY values are both 12 plain bytes, so the pages stay as written)."""
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.generators.parquet.strict import parse_file

    footer = parse_file(data)
    edits = []
    leaves = [r for r in footer.root.children("schema") if not r.value("num_children")]
    for i, leaf in enumerate(leaves):
        fields = annotate.get(leaf.value("name").decode(), {})
        edits += set_fields(leaf, fields) if fields else []
        if "type" in fields:
            for rg in footer.row_groups():
                edits += set_fields(rg.children("columns")[i].need("meta_data"), {"type": fields["type"]})
    return apply_edits(data, edits)


@cache
def base_expected(name: str) -> dict[str, Any]:
    data = canonical_table(base_table(name))
    if name == "int96-extremes":  # instants no Arrow timestamp holds: nanoseconds as exact integers
        data["rows"] = [[None if v is None else {"ts_ns": v["dec"]}] for (v,) in data["rows"]]
    return data


def base_hash(name: str) -> str:
    return data_hash(base_expected(name))
