"""Base datasets: small tables written by pyarrow with fixed settings, so the same pyarrow
version always writes the same bytes. Cases extend or corrupt these files."""

from __future__ import annotations

import datetime as dt
import decimal
import io
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import pyarrow as pa
import pyarrow.parquet as pq

from parquet_conformance.generators.canonical import canonical_table, data_hash

# Fixed writer settings: uncompressed PLAIN pages v1, statistics on, no page index or bloom
# filter (nothing in the footer points between pages, see docs/spec-notes.md on PageHeader).
WRITE_OPTIONS = dict(compression="none", data_page_version="1.0", write_statistics=True,
                     use_dictionary=False, write_page_index=False, version="2.6")


@dataclass(frozen=True)
class Base:
    name: str
    description: str
    build: Callable[[], pa.Table]
    options: tuple[tuple[str, object], ...] = ()


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


def _wide() -> pa.Table:
    return pa.table({f"c{i:04d}": pa.array([i, None if i % 7 == 0 else -i, i * 3], pa.int32())
                     for i in range(1000)})


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
]}


@cache
def base_table(name: str) -> pa.Table:
    return BASES[name].build()


@cache
def base_bytes(name: str) -> bytes:
    sink = io.BytesIO()
    pq.write_table(base_table(name), sink, **{**WRITE_OPTIONS, **dict(BASES[name].options)})
    return sink.getvalue()


@cache
def base_expected(name: str) -> dict:
    return canonical_table(base_table(name))


def base_hash(name: str) -> str:
    return data_hash(base_expected(name))
