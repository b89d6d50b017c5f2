"""The canonical data form: one token per value for every type a reader may return, from Arrow buffers (no
Python datetime, so no year limits), unit-free temporal values, and normalization of other programs' tokens."""

from __future__ import annotations

import datetime as dt
import decimal
import uuid

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parquet_conformance.conformance.harness.sample import sample_of, sample_of_texts
from parquet_conformance.generators.canonical import (
    ArrowData,
    Normal,
    canonical_array,
    canonical_table,
    canonical_value,
    data_hash,
    date_days,
    date_text,
    dumps,
    normalize,
    texts_hash,
)


@given(st.integers(min_value=-10**9, max_value=10**9))
def test_dates_round_trip_in_any_year(days: int) -> None:
    assert date_days(date_text(days)) == days


def test_dates_match_python_where_python_reaches() -> None:
    for d in (dt.date(1, 1, 1), dt.date(1969, 12, 31), dt.date(2001, 2, 3), dt.date(9999, 12, 31)):
        assert date_text((d - dt.date(1970, 1, 1)).days) == d.isoformat()
    assert date_text(3_000_000) == "+10183-09-21" and date_text(-800_000) == "-0221-09-04"


@pytest.mark.parametrize(("arr", "tokens"), [
    (pa.array([1, None], pa.timestamp("s")), [{"ts_ns": "1000000000"}, None]),
    (pa.array([1], pa.timestamp("ms", tz="UTC")), [{"ts_ns": "1000000"}]),
    (pa.array([1], pa.timestamp("us")), [{"ts_ns": "1000"}]),
    (pa.array([-(2**63) + 1], pa.timestamp("ns")), [{"ts_ns": str(-(2**63) + 1)}]),
    (pa.array([1], pa.time32("ms")), [{"time_ns": "1000000"}]),
    (pa.array([86_399_999_999_999], pa.time64("ns")), [{"time_ns": "86399999999999"}]),
    (pa.array([3_000_000], pa.date32()), [{"date": "+10183-09-21"}]),
    (pa.array([86_400_000 * 2], pa.date64()), [{"date": "1970-01-03"}]),
    (pa.array([uuid.UUID(int=5).bytes], pa.uuid()), [{"uuid": "00000000-0000-0000-0000-000000000005"}]),
    (pa.array(np.array([1.5, -0.0], dtype=np.float16)), [{"float": "1.5"}, {"float": "-0.0"}]),
    (pa.array([pa.MonthDayNano([1, 2, 3_000_000])], pa.month_day_nano_interval()),
     [{"bin": "010000000200000003000000"}]),
    (pa.array([[("a", 1)], None, []], pa.map_(pa.string(), pa.int8())), [[["a", {"int": "1"}]], None, []]),
    (pa.array([[1, 2], None], pa.list_(pa.int8(), 2)), [[{"int": "1"}, {"int": "2"}], None]),
    (pa.array(["a", None, "a"]).dictionary_encode(), ["a", None, "a"]),
    (pa.array([decimal.Decimal("1.50")], pa.decimal256(40, 2)), [{"dec": "1.50"}]),
    (pa.array([2**64 - 1], pa.uint64()), [{"int": str(2**64 - 1)}]),
    (pa.array([b"\x00"], pa.binary_view()), [{"bin": "00"}]),
    (pa.array([{"x": None}, None], pa.struct([("x", pa.int8())])), [{"struct": {"x": None}}, None]),
])
def test_every_arrow_type_has_its_token(arr: pa.Array, tokens: list[object]) -> None:
    assert canonical_array(arr) == tokens
    assert canonical_array(pa.chunked_array([arr[:1], arr[1:]])) == tokens  # chunked the same


def test_slices_keep_their_own_values() -> None:
    table = pa.table({"l": pa.array([[1], None, [2, 3]], pa.list_(pa.int8())),
                      "m": pa.array([[("a", 1)], None, [("b", 2)]], pa.map_(pa.string(), pa.int8()))})
    assert canonical_table(table.slice(2))["rows"] == [[[{"int": "2"}, {"int": "3"}], [["b", {"int": "2"}]]]]


def test_python_values_give_the_same_tokens_as_arrow() -> None:
    values = [dt.datetime(2001, 2, 3, 4, 5, 6, 7), dt.date(2001, 2, 3), dt.time(1, 2, 3, 4), uuid.UUID(int=9),
              decimal.Decimal("1.50"), b"\x00", "t", 1.5, 7, True]
    arrow = [pa.array([dt.datetime(2001, 2, 3, 4, 5, 6, 7)], pa.timestamp("us")),
             pa.array([dt.date(2001, 2, 3)]), pa.array([dt.time(1, 2, 3, 4)], pa.time64("us")),
             pa.array([uuid.UUID(int=9).bytes], pa.uuid()), pa.array([decimal.Decimal("1.50")]),
             pa.array([b"\x00"]), pa.array(["t"]), pa.array([1.5]), pa.array([7]), pa.array([True])]
    assert [canonical_value(v) for v in values] == [canonical_array(a)[0] for a in arrow]


def test_other_programs_tokens_are_normalized() -> None:
    rows = [[{"ts_us": "5"}, {"ts_ms": "1"}, {"time_us": "2"}, {"date": "+010183-09-21"}, {"int": "007"},
             {"float": "1.0E-300"}, {"uuid": "00000000000000000000000000000005"}, {"bin": "0A"}]]
    assert normalize({"columns": ["a"], "rows": rows})["rows"] == [[
        {"ts_ns": "5000"}, {"ts_ns": "1000000"}, {"time_ns": "2000"}, {"date": "+10183-09-21"}, {"int": "7"},
        {"float": "1e-300"}, {"uuid": "00000000-0000-0000-0000-000000000005"}, {"bin": "0a"}]]
    for bad in ([{"weird": "1"}], [{"int": 1}], [{"date": "not a date"}], {"x": 1}):
        with pytest.raises(ValueError):
            normalize({"columns": ["a"], "rows": [bad] if isinstance(bad, list) else bad})


SCALARS = [
    (pa.int8(), st.integers(-2**7, 2**7 - 1)), (pa.uint64(), st.integers(0, 2**64 - 1)),
    (pa.int64(), st.integers(-2**63, 2**63 - 1)), (pa.float64(), st.floats(allow_nan=True, allow_infinity=True)),
    (pa.float32(), st.floats(width=32)), (pa.bool_(), st.booleans()), (pa.string(), st.text(max_size=8)),
    (pa.binary(), st.binary(max_size=8)), (pa.date32(), st.integers(-2**31, 2**31 - 1)),
    (pa.timestamp("us"), st.integers(-2**63, 2**63 - 1)), (pa.time64("ns"), st.integers(0, 86_400 * 10**9 - 1)),
    (pa.decimal128(38, 4), st.decimals(min_value=-10**33, max_value=10**33, places=4, allow_nan=False)),
    (pa.decimal256(76, -3), st.integers(-10**72, 10**72).map(lambda i: decimal.Decimal(i).scaleb(3))),
    (pa.float16(), st.floats(width=16)), (pa.large_string(), st.text(max_size=4)),
    (pa.binary(3), st.binary(min_size=3, max_size=3)), (pa.timestamp("s", tz="UTC"), st.integers(-2**63, 2**63 - 1)),
    (pa.timestamp("ns"), st.integers(-2**63, 2**63 - 1)), (pa.time32("ms"), st.integers(0, 86_400_000 - 1)),
    (pa.date64(), st.integers(-2**36, 2**36).map(lambda d: d * 86_400_000)),
]


@st.composite
def arrow_arrays(draw: st.DrawFn, depth: int = 2) -> pa.Array:
    """An Arrow array of a scalar type, or a list, a struct or a map of them, with nulls."""
    nested = ["list", "struct", "map"] if depth else []
    kind = draw(st.sampled_from(["scalar"] * 3 + ["not utf-8", "dictionary", *nested]))
    if kind == "not utf-8":  # text a reader returned unchecked: its bytes
        return pa.array(draw(st.lists(st.none() | st.binary(max_size=4), max_size=5)), pa.binary()).view(pa.string())
    if kind == "dictionary":
        return pa.array(draw(st.lists(st.none() | st.text(max_size=3), max_size=5)), pa.string()).dictionary_encode()
    if kind == "scalar":
        arrow_type, values = draw(st.sampled_from(SCALARS))
        items = draw(st.lists(st.none() | values, max_size=5))
        if pa.types.is_temporal(arrow_type):
            return pa.array(items, pa.int64() if arrow_type.bit_width == 64 else pa.int32()).view(arrow_type)
        if pa.types.is_float16(arrow_type):
            return pa.array(np.array([v if v is not None else 0 for v in items], np.float16),
                            mask=np.array([v is None for v in items], bool))
        return pa.array(items, arrow_type)
    if kind == "list":
        child = draw(arrow_arrays(depth - 1))
        cuts = sorted(draw(st.lists(st.integers(0, len(child)), max_size=3)))
        offsets = pa.array([0, *cuts, len(child)], pa.int32())
        return pa.ListArray.from_arrays(offsets, child)
    if kind == "struct":
        a, b = draw(arrow_arrays(depth - 1)), draw(arrow_arrays(depth - 1))
        n = min(len(a), len(b))
        return pa.StructArray.from_arrays([a[:n], b[:n]], names=["a", "b"])
    keys = pa.array(draw(st.lists(st.text(max_size=3), max_size=4)), pa.string())
    items = draw(arrow_arrays(depth - 1))
    n = min(len(keys), len(items))
    return pa.MapArray.from_arrays(pa.array([0, n], pa.int32()), keys[:n], items[:n])


@given(st.lists(arrow_arrays(), min_size=1, max_size=3))
def test_arrow_data_is_already_normal(arrays: list[pa.Array]) -> None:
    """What a worker of ours hashes as it is (canonical.Normal) is what the harness's normalize would make of it."""
    n = min(len(a) for a in arrays)
    table = canonical_table(pa.table({f"c{i}": a[:n] for i, a in enumerate(arrays)}))
    assert isinstance(table, Normal)
    assert normalize(table) == {"columns": table["columns"], "rows": table["rows"]}


@given(st.lists(arrow_arrays(), min_size=0, max_size=3), st.integers(0, 30))
def test_arrow_data_hashes_and_samples_as_its_tokens_do(arrays: list[pa.Array], rows: int) -> None:
    """What a worker of ours sends for Arrow data (canonical.ArrowData: each value's JSON text straight from Arrow, the
    hash and the sample made from the texts) is what the harness would make of the data's tokens."""
    n = min([rows, *(len(a) for a in arrays)])
    table = pa.table({f"c{i}": a[:n] for i, a in enumerate(arrays)}) if arrays else pa.table({})
    tokens = canonical_table(table)
    data = ArrowData(table)
    texts = data.texts()
    assert texts == [[dumps(row[i]) for row in tokens["rows"]] for i in range(len(tokens["columns"]))]
    assert texts_hash(data["columns"], texts) == data_hash(tokens)
    assert sample_of_texts(data["columns"], texts) == sample_of(tokens)
    assert dict(data) == dict(tokens)
