"""The features family's tables (corpus/parquet/catalog/features.py): one small table per physical and logical type
apache/parquet-site tracks, each a base of its own whose file is written with nothing else the reader could lack
(PLAIN, uncompressed, v1 pages, no statistics, no dictionary: bases.WRITE_OPTIONS), and the reference tables the
encodings, codecs, page features and legacy nested forms are varied over (the same rows with and without the
feature, so that a failure is the feature's).

Where pyarrow writes the type, pyarrow writes it; where it cannot (ENUM, BSON, DECIMAL on BYTE_ARRAY), the column is
written as binaries of the same bytes and the footer annotated by our codec, as base/all-types is
(bases.ANNOTATE_ALL_TYPES); INTERVAL is DuckDB's (a committed fixture, fixtures/write.py)."""

from __future__ import annotations

import decimal
import struct
import uuid
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np
import pyarrow as pa

ROWS = 24
T = TypeVar("T")


def _nulls(values: Sequence[T], every: int = 7) -> list[T | None]:
    """A null at every `every`-th row (from the fourth): the definition levels a nullable column writes."""
    return [None if i % every == 3 else v for i, v in enumerate(values)]


def _column(name: str, values: Sequence[Any], typ: pa.DataType) -> pa.Table:
    return pa.table({name: pa.array(values, typ)})


FLOATS = [1.5, -0.0, float("nan"), float("inf"), float("-inf"), 0.1, -2.5e-3, 1e30]


def _ints(bits: int, signed: bool = True) -> list[int | None]:
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return _nulls([low, high, 0, -1 if signed else 1, *[(i * 7919) % high for i in range(ROWS - 4)]])


def _texts() -> list[str | None]:
    words = ["", "a", "Grüße", "日本語", "emoji \U0001f600", "nul\x00inside", "quote\"", "x" * 40]
    return _nulls([words[i % 8] for i in range(ROWS)])


def _binaries() -> list[bytes | None]:
    return _nulls([b"", b"\x00\xff", bytes(range(9)), b"\xfe\xfd", *[bytes([i, 255 - i]) for i in range(ROWS - 4)]])


def _decimals(scale: int, digits: int) -> list[decimal.Decimal | None]:
    top = decimal.Decimal(10) ** (digits - scale) - decimal.Decimal(1).scaleb(-scale)
    values = [top, -top, decimal.Decimal(0).scaleb(-scale), *[decimal.Decimal(i * 12345 - 99999).scaleb(-scale)
                                                               for i in range(ROWS - 3)]]
    return _nulls(values)


def _days() -> list[int | None]:
    return _nulls([-25567, 0, 10957, 2932896, *[i * 1111 - 9000 for i in range(ROWS - 4)]])  # 1900 .. 9999


def _instants(unit_per_second: int) -> list[int | None]:
    return _nulls([0, -1, 1, 946684800 * unit_per_second, *[(i * 86_399 + 17) * unit_per_second + i
                                                              for i in range(ROWS - 4)]])


def interval_bytes(months: int, days: int, millis: int) -> bytes:
    return struct.pack("<III", months, days, millis)


# The rows fixtures/write.py gives DuckDB for the INTERVAL base: `INTERVAL (i) MONTH + INTERVAL (2*i) DAY +
# INTERVAL (3*i) MILLISECOND` for i in range(ROWS), NULL where i % 7 == 3.
INTERVAL_SQL = (f"SELECT CASE WHEN i % 7 = 3 THEN NULL ELSE INTERVAL (i) MONTH + INTERVAL (2 * i) DAY + "
                f"INTERVAL (3 * i) MILLISECOND END AS interval FROM range({ROWS}) r(i) ORDER BY i")


def interval_table() -> pa.Table:
    return _column("interval", _nulls([interval_bytes(i, 2 * i, 3 * i) for i in range(ROWS)]), pa.binary(12))


BSON = [b"\x05\x00\x00\x00\x00", b"\x0c\x00\x00\x00\x10a\x00\x01\x00\x00\x00\x00",
        b"\x16\x00\x00\x00\x02s\x00\x06\x00\x00\x00hello\x00\x00"]


# Each value feature: its table, and the pyarrow options that write it (on top of bases.WRITE_OPTIONS).
def physical_tables() -> dict[str, tuple[pa.Table, tuple[tuple[str, object], ...]]]:
    return {
        "boolean": (_column("boolean", _nulls([i % 3 == 0 for i in range(ROWS)]), pa.bool_()), ()),
        "int32": (_column("int32", _ints(32), pa.int32()), ()),
        "int64": (_column("int64", _ints(64), pa.int64()), ()),
        # whole microseconds: the case is INT96 support; nanosecond precision is logical-nanosecond-time-timestamp's
        "int96": (_column("int96", [None if v is None else v * 1000 for v in _instants(1_000_000)], pa.timestamp("ns")),
                  (("use_deprecated_int96_timestamps", True),)),
        "float": (_column("float", _nulls([*FLOATS, 1e-45, 3.4028235e38, *[i / 8 for i in range(ROWS - 10)]]),
                          pa.float32()), ()),
        "double": (_column("double", _nulls([*FLOATS, 5e-324, 1.7976931348623157e308,
                                             *[i / 3 for i in range(ROWS - 10)]]), pa.float64()), ()),
        "byte-array": (_column("byte_array", _binaries(), pa.binary()), ()),
        "fixed-len-byte-array": (_column("fixed_len_byte_array", _nulls([bytes([i, i * 3 % 256, 0, 255, 7])
                                                                          for i in range(ROWS)]), pa.binary(5)), ()),
    }


def logical_tables() -> dict[str, tuple[pa.Table, tuple[tuple[str, object], ...]]]:
    """The pyarrow-written logical types (the annotated and fixture ones: annotated_tables, interval_table)."""
    as_int = (("store_decimal_as_integer", True),)
    ids = [uuid.UUID(int=((i * 0x9E3779B97F4A7C15) % (1 << 64)) << 64 | i).bytes for i in range(ROWS)]
    return {
        "string": (_column("string", _texts(), pa.string()), ()),
        "uuid": (_column("uuid", _nulls(ids), pa.uuid()), ()),
        "int-types": (pa.table({"int8": pa.array(_ints(8), pa.int8()), "int16": pa.array(_ints(16), pa.int16()),
                                "uint8": pa.array(_ints(8, False), pa.uint8()),
                                "uint16": pa.array(_ints(16, False), pa.uint16()),
                                "uint32": pa.array(_ints(32, False), pa.uint32()),
                                "uint64": pa.array(_ints(64, False), pa.uint64())}), ()),
        "decimal-int32": (_column("decimal_int32", _decimals(2, 9), pa.decimal128(9, 2)), as_int),
        "decimal-int64": (_column("decimal_int64", _decimals(3, 18), pa.decimal128(18, 3)), as_int),
        "decimal-fixed-len-byte-array": (_column("decimal_flba", _decimals(4, 20), pa.decimal128(20, 4)), ()),
        "float16": (pa.table({"float16": pa.array(np.array([1.5, -0.0, 65504, np.nan, 6e-8, np.inf, -np.inf]
                                                           + [i / 4 for i in range(ROWS - 7)], dtype=np.float16))}),
                    ()),
        "date": (_column("date", _days(), pa.date32()), ()),
        "time-int32": (_column("time_ms", _nulls([0, 86_399_999, 1, *[i * 3_600_017 for i in range(ROWS - 3)]]),
                               pa.time32("ms")), ()),
        "time-int64": (_column("time_us", _nulls([0, 86_399_999_999, 1, *[i * 3_600_017_003 for i in range(ROWS - 3)]]),
                               pa.time64("us")), ()),
        "timestamp-int64": (pa.table({"ts_ms": pa.array(_instants(1_000), pa.timestamp("ms")),
                                      "ts_us": pa.array(_instants(1_000_000), pa.timestamp("us")),
                                      "ts_us_utc": pa.array(_instants(1_000_000), pa.timestamp("us", tz="UTC"))}), ()),
        "nanosecond-time-timestamp": (pa.table({
            "time_ns": pa.array(_nulls([0, 86_399_999_999_999, 1, *[i * 3_600_017_003_001 for i in range(ROWS - 3)]]),
                                pa.time64("ns")),
            "ts_ns": pa.array(_instants(1_000_000_000), pa.timestamp("ns")),
            "ts_ns_utc": pa.array(_instants(1_000_000_000), pa.timestamp("ns", tz="UTC"))}), ()),
        "json": (_column("json", _nulls(['{"a": 1}', "[]", '"text"', "null", "1.5", '{"b": [1, 2]}'] * 4), pa.json_()),
                 ()),
        "unknown": (pa.table({"unknown": pa.nulls(ROWS)}), ()),
        "list": (pa.table({"list": pa.array(_nulls([[i, None, -i] if i % 4 else [] for i in range(ROWS)]),
                                            pa.list_(pa.int32())),
                           "list_list": pa.array(_nulls([[["a", None], []] if i % 2 else [["b"]] for i in range(ROWS)]),
                                                 pa.list_(pa.list_(pa.string())))}), ()),
        "map": (_column("map", _nulls([[("a", i), ("b", None)] if i % 3 else [] for i in range(ROWS)]),
                        pa.map_(pa.string(), pa.int32())), ()),
    }


def annotated_tables() -> dict[str, tuple[pa.Table, pa.Table]]:
    """feature -> (the data a reader returns, the binaries pyarrow writes before our codec annotates them)."""
    enum = _nulls([[b"RED", b"GREEN", b"BLUE"][i % 3] for i in range(ROWS)])
    bson = _nulls([BSON[i % 3] for i in range(ROWS)])
    dec = _decimals(2, 10)
    unscaled = [None if v is None else int(v.scaleb(2)).to_bytes(5, "big", signed=True) for v in dec]
    return {
        "enum": (_column("enum", enum, pa.binary()), _column("enum", enum, pa.binary())),
        "bson": (_column("bson", bson, pa.binary()), _column("bson", bson, pa.binary())),
        "decimal-byte-array": (_column("decimal_byte_array", dec, pa.decimal128(10, 2)),
                               _column("decimal_byte_array", unscaled, pa.binary())),
    }


def reference_table() -> pa.Table:
    """The rows the encodings, codecs and page features vary: a column of each physical type an encoding applies
    to, with nulls, repeated values (dictionaries) and shared prefixes (DELTA_BYTE_ARRAY)."""
    n = 200
    words = ["alpha", "alphabet", "alphanumeric", "beta", "betamax", "gamma"]
    return pa.table({
        "i32": pa.array(_nulls([(i * 37) % 1000 - 500 for i in range(n)]), pa.int32()),
        "i64": pa.array(_nulls([(-1) ** i * (2 ** 40 + i * 1_000_003) for i in range(n)]), pa.int64()),
        "f32": pa.array(_nulls([i / 8 - 12.5 for i in range(n)]), pa.float32()),
        "f64": pa.array(_nulls([i * 0.1 - 7.25 for i in range(n)]), pa.float64()),
        "flag": pa.array(_nulls([i % 5 < 2 for i in range(n)]), pa.bool_()),
        "s": pa.array(_nulls([f"{words[i % 6]}-{i // 6:03d}" for i in range(n)]), pa.string()),
        "b": pa.array(_nulls([bytes([i % 7, i % 11, 255]) * (i % 3 + 1) for i in range(n)]), pa.binary()),
        "fx": pa.array(_nulls([struct.pack("<i", (i % 13) * 1000 - 6000) for i in range(n)]), pa.binary(4)),
    })


# The reference's columns an encoding, a codec or a page feature is also varied over alone (their `narrow` cases):
# the columns it changes but the FIXED_LEN_BYTE_ARRAY(4) one, which a reader may not read at all (the whole-reference
# case keeps it; physical-fixed-len-byte-array judges the type), so that a reader failing another column of the whole
# reference still shows what it does with the feature. Codecs and page versions change every column: INT32 and text.
NARROW: dict[str, tuple[str, ...]] = {
    "i32": ("i32",), "i32-s": ("i32", "s"), "flag": ("flag",), "i32-i64": ("i32", "i64"), "s-b": ("s", "b"),
    "f32-f64": ("f32", "f64"),
}


def narrow_reference_table(columns: tuple[str, ...]) -> pa.Table:
    """The reference's rows with only these columns."""
    return reference_table().select(list(columns))


def keyed_table() -> pa.Table:
    """The rows of the features an operation reads (statistics, page index, bloom filters): an INT64 key, a
    text key and numbers whose statistics every reader can state (no NaN, ASCII text), in two row groups."""
    n = 160
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "key": pa.array([f"k{i * 7919 % 100_003:06d}" for i in range(n)], pa.string()),
        "i32": pa.array(_nulls([(i * 37) % 1000 - 500 for i in range(n)]), pa.int32()),
        "f64": pa.array(_nulls([i * 0.25 - 30 for i in range(n)]), pa.float64()),
        "f32": pa.array([i / 8 for i in range(n)], pa.float32()),
        "flag": pa.array([i % 3 == 0 for i in range(n)], pa.bool_()),
    })


KEYED_ROW_GROUP = 80


def legacy_list_table() -> pa.Table:
    """Lists whose elements are required, written in the 3-level form: LogicalTypes.md's backward-compatibility
    rules each read one of them rewritten in a legacy form (our footer edit; the pages stay as written)."""
    return pa.table({
        "nums": pa.array(_nulls([[i, -i, 7] if i % 4 else [] for i in range(ROWS)]),
                         pa.list_(pa.field("element", pa.int32(), nullable=False))),
        "pairs": pa.array(_nulls([[{"str": f"s{i}", "num": i}] if i % 3 else [] for i in range(ROWS)]),
                          pa.list_(pa.field("element", pa.struct([pa.field("str", pa.string(), nullable=False),
                                                                   pa.field("num", pa.int32(), nullable=False)]),
                                            nullable=False))),
        "nested": pa.array(_nulls([[[i, 1], []] if i % 2 else [[2]] for i in range(ROWS)]),
                           pa.list_(pa.field("element", pa.list_(pa.field("element", pa.int32(), nullable=False)),
                                             nullable=False))),
        "tuples": pa.array(_nulls([[{"str": f"t{i}"}, {"str": ""}] if i % 5 else [] for i in range(ROWS)]),
                           pa.list_(pa.field("element", pa.struct([pa.field("str", pa.string(), nullable=False)]),
                                             nullable=False))),
    })


def unannotated_table() -> pa.Table:
    """Required lists of required elements: what an unannotated repeated field is read as (LogicalTypes.md)."""
    schema = pa.schema([
        pa.field("nums", pa.list_(pa.field("element", pa.int32(), nullable=False)), nullable=False),
        pa.field("records", pa.list_(pa.field("element", pa.struct([pa.field("num", pa.int32(), nullable=False),
                                                                      pa.field("str", pa.string())]),
                                              nullable=False)), nullable=False)])
    return pa.table({"nums": [[i, i + 1] if i % 3 else [] for i in range(ROWS)],
                     "records": [[{"num": i, "str": None if i % 4 == 1 else f"r{i}"}] * (i % 3) for i in range(ROWS)]},
                    schema=schema)


def date_time_table() -> pa.Table:
    """Columns pyarrow annotates with both a LogicalType and its ConvertedType (not a local TIME: pyarrow writes no
    ConvertedType for it, TIME_MILLIS being UTC-adjusted): the LogicalType union's cases take one of the two away."""
    return pa.table({"date": pa.array(_days(), pa.date32()), "ts_ms": pa.array(_instants(1_000), pa.timestamp("ms")),
                     "decimal": pa.array(_decimals(2, 9), pa.decimal128(9, 2)),
                     "text": pa.array(_texts(), pa.string())})
