"""What the track builds on besides the codec: the lenient (upstream) reading of the table rules, stream spans,
YSON respelling, and the canonical tokens with their normalization of worker answers."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parquet_conformance.generators.skiff import codec, schema, tokens, yson
from tests.skiff.test_codec import node, optional, sparse, table, yson_values

NARROW = table(node("int16", name="n"), optional("uint128", "o"))


def test_lenient_reading_takes_upstream_columns() -> None:
    with pytest.raises(schema.SkiffSchemaError, match="dense column 'n' must be one of"):
        schema.validate_table_schema(NARROW)
    rows: list[codec.Row] = [(0, {"n": -2, "o": (1 << 128) - 1}), (0, {"n": 3})]
    data = codec.encode_rows([NARROW], rows, lenient=True)
    assert data == bytes.fromhex("0000 feff 01" + "ff" * 16 + "0000 0300 00")
    assert codec.decode_rows([NARROW], data, lenient=True) == rows
    special = table(node("int64", name="$tablet_index"))
    with pytest.raises(schema.SkiffSchemaError, match="unknown special name"):
        schema.validate_table_schema(special)
    schema.validate_table_schema(special, lenient=True)
    optional_sparse = table(sparse(optional("int64", "s")))
    data = codec.encode_rows([optional_sparse], [(0, {"s": 5})], lenient=True)
    # upstream deoptionalizes a sparse column: a present value without the variant's tag (schema_match.cpp Simplify)
    assert data == bytes.fromhex("0000 0000 0500000000000000 ffff")
    assert codec.decode_rows([optional_sparse], data, lenient=True) == [(0, {"s": 5})]


def test_spans_find_rows_and_yson_fields() -> None:
    tables = [table(node("int64", name="a"), node("yson32", name="$other_columns")), table(node("yson32", name="y"))]
    data = codec.encode_rows(tables, [(0, {"a": 1, "k": b"v"}), (1, {"y": b"[1]"})])
    assert codec.row_spans(tables, data) == [(0, 19), (19, 28)]
    assert [data[s + 4:e] for s, e in codec.yson_spans(tables, data)] == [b"{k=v}", b"[1]"]
    with pytest.raises(codec.SkiffDecodeError, match="table index 2 is out of range"):
        codec.yson_spans(tables, data + b"\x02\x00")


@given(yson_values(), st.integers(0, 2**32))
def test_every_respelling_reads_back_as_the_same_value(value: yson.YsonValue, seed: int) -> None:
    assert yson.loads(yson.dumps_varied(value, random.Random(seed))) == value


def test_normalize_rows() -> None:
    answer = {"rows": [[0, {"a": {"int": "007"}, "n": None, "s": "ё", "f": {"float": "1.0E-300"}}],
                       [1, [["a", {"int": "1"}], ["a", {"int": "2"}]]], [0, [["b", True]]]]}
    assert tokens.normalize(answer) == {"rows": [
        [0, {"a": {"int": "7"}, "s": {"bin": "d191"}, "f": {"float": "1e-300"}}],
        [1, [["a", {"int": "1"}], ["a", {"int": "2"}]]], [0, {"b": True}]]}
    for bad in ({"rows": [["0", {}]]}, {"rows": [[0, {"a": {"int": "x"}}]]}, {"rows": [[0, 1]]},
                {"rows": {}}, {"nothing": 1}, {"rows": [[0, {"a": {"text": "x"}}]]}):
        with pytest.raises(ValueError):
            tokens.normalize(bad)


def test_normalize_streams_compares_yson_as_values() -> None:
    fmt = {"table_skiff_schemas": [{"wire_type": "tuple", "children": [
        {"name": "a", "wire_type": "int64"}, {"name": "$other_columns", "wire_type": "yson32"}]}]}
    text = bytes.fromhex("0000 0100000000000000") + codec.encode(node("yson32"), b"{foo=bar}")
    binary = bytes.fromhex("0000 0100000000000000") + codec.encode(node("yson32"), b'{\x01\x06foo=\x01\x06bar;}')
    seen = tokens.normalize({"format": fmt, "streams": [text.hex()]})
    assert seen == tokens.normalize({"format": fmt, "streams": [binary.hex()]}) == {"streams": [
        ["00000100000000000000", {"yson": {"struct": {"foo": {"bin": "626172"}}}}]]}
    assert tokens.normalize({"format": fmt, "streams": [text[:-1].hex()]}) == {"streams": [{"raw": text[:-1].hex()}]}
    assert tokens.normalize({"format": "nope", "streams": ["00"]}) == {"streams": [{"raw": "00"}]}
    with pytest.raises(ValueError, match="hex"):
        tokens.normalize({"format": fmt, "streams": ["zz"]})
