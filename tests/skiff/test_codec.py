"""Skiff schema, codec and YSON subset: the seed's byte examples, upstream's unit-test vectors, round trips
(fixed and property-based), every table-schema rule, and corrupt inputs."""

from __future__ import annotations

import math
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_conformance.generators.skiff import codec, schema, yson

W = schema.WireType
S = schema.SkiffSchema
SkiffDecodeError = codec.SkiffDecodeError
SkiffEncodeError = codec.SkiffEncodeError
SkiffSchemaError = schema.SkiffSchemaError
SIMPLE = sorted(w for w in W if w not in schema.COMPOSITE_TYPES)
TAGGED = [W.VARIANT8, W.VARIANT16, W.REPEATED_VARIANT8, W.REPEATED_VARIANT16]
NOTHING = S(W.NOTHING)


def node(wire_type: str, *children: schema.SkiffSchema, name: str | None = None) -> schema.SkiffSchema:
    return S(schema.WIRE_TYPES[wire_type], name, children)


def optional(wire_type: str, name: str | None = None) -> schema.SkiffSchema:
    return node("variant8", NOTHING, node(wire_type), name=name)


def table(*columns: schema.SkiffSchema) -> schema.SkiffSchema:
    return node("tuple", *columns)


# --- seed 004 byte examples -----------------------------------------------------------------

SEED_EXAMPLES = [
    ("int64", 42, b"\x2a\x00\x00\x00\x00\x00\x00\x00"),
    ("int64", 100500, b"\x94\x88\x01\x00\x00\x00\x00\x00"),
    ("uint64", 42, b"\x2a\x00\x00\x00\x00\x00\x00\x00"),
    ("uint64", 100500, b"\x94\x88\x01\x00\x00\x00\x00\x00"),
    ("double", 2.718281828, b"\x9b\x91\x04\x8b\x0a\xbf\x05\x40"),
    ("string32", b"foobar", b"\x06\x00\x00\x00foobar"),
    ("yson32", b"{foo=bar}", b"\x09\x00\x00\x00{foo=bar}"),
    ("yson32", b"100500u", b"\x07\x00\x00\x00100500u"),
    ("boolean", True, b"\x01"),
    ("boolean", False, b"\x00"),
]


@pytest.mark.parametrize(("wire_type", "value", "data"), SEED_EXAMPLES)
def test_seed_example_round_trips_byte_for_byte(wire_type: str, value: codec.Value, data: bytes) -> None:
    assert codec.encode(node(wire_type), value) == data
    assert codec.decode(node(wire_type), data) == value


def test_seed_variant8_with_nothing_child_is_one_zero_byte() -> None:
    variant = node("variant8", NOTHING, node("int64"))
    assert codec.decode(variant, b"\x00") == (0, None)
    assert codec.encode(variant, (0, None)) == b"\x00"


def test_seed_yson_examples_parse_and_rewrite_exactly() -> None:
    assert yson.loads(b"{foo=bar}") == {"foo": b"bar"}
    uint = yson.loads(b"100500u")
    assert uint == 100500 and isinstance(uint, yson.YsonUint64)
    assert yson.dumps(yson.loads(b"{foo=bar}")) == b"{foo=bar}"
    assert yson.dumps(uint) == b"100500u"


def test_seed_format_configuration_example() -> None:
    attributes = {
        "table_skiff_schemas": ["$table1"],
        "skiff_schema_registry": {"table1": {"wire_type": "tuple", "children": [
            {"name": "uint64_column", "wire_type": "uint64"},
            {"name": "int64_column", "wire_type": "int64"},
            {"name": "boolean_column", "wire_type": "boolean"},
            {"name": "string32_column", "wire_type": "string32"},
            {"name": "yson32_column", "wire_type": "yson32"},
        ]}},
    }
    [parsed] = schema.parse_format_attributes(attributes)
    schema.validate_table_schema(parsed)
    assert [c.name for c in parsed.children] == ["uint64_column", "int64_column", "boolean_column",
                                                  "string32_column", "yson32_column"]
    row: dict[str, yson.YsonValue] = {"uint64_column": 1, "int64_column": -1, "boolean_column": True,
                                      "string32_column": b"s", "yson32_column": b"%true"}
    assert codec.decode_rows([parsed], codec.encode_rows([parsed], [(0, row)])) == [(0, row)]


# --- upstream unit-test vectors (library/cpp/skiff/unittests/skiff_ut.cpp, ydb-platform/ydb) ------------

def _parts(*parts: int) -> int:
    """Little-endian u64 parts as one integer (TInt128 {Low, High}, TInt256 Parts[0..3])."""
    return sum((part % (1 << 64)) << (64 * index) for index, part in enumerate(parts))


def _signed(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) else value


UPSTREAM_VECTORS = [
    ("int8", [42, -42], "2a" "d6"),
    ("int16", [0x1234, -0x1234], "3412" "cced"),
    ("int32", [0x12345678, -0x12345678], "78563412" "88a9cbed"),
    ("int64", [-42, 100500, -0x123456789ABCDEF0], "d6ffffffffffffff" "9488010000000000" "1021436587a9cbed"),
    ("uint8", [42, 200], "2a" "c8"),
    ("uint16", [0x1234, 0xFEDC], "3412" "dcfe"),
    ("uint32", [0x12345678, 0x87654321], "78563412" "21436587"),
    ("uint64", [42, 100500, 0x123456789ABCDEF0], "2a00000000000000" "9488010000000000" "f0debc9a78563412"),
    ("int128", [_parts(0x1924CD4AEB9CED82, 0x0885E83F456D6A7E),
                _signed(_parts(0xE9BA36585ECCAE1A, -0x7854B6F9CE448BE9), 128)],
     "82ed9ceb4acd2419" "7e6a6d453fe88508" "1aaecc5e5836bae9" "1774bb310649ab87"),
    ("uint128", [_parts(0x1924CD4AEB9CED82, 0x0885E83F456D6A7E), _parts(0xE9BA36585ECCAE1A, 0x8854B6F9CE448BE9)],
     "82ed9ceb4acd2419" "7e6a6d453fe88508" "1aaecc5e5836bae9" "e98b44cef9b65488"),
    ("int256", [_parts(0x1924CD4AEB9CED82, 0x0885E83F456D6A7E, 0xE9BA36585ECCAE1A, 0x7854B6F9CE448BE9),
                _signed(_parts(0xE9BA36585ECCAE1A, 0x1924CD4AEB9CED82, 0x0885E83F456D6A7E, -0x7854B6F9CE448BE9), 256)],
     "82ed9ceb4acd2419" "7e6a6d453fe88508" "1aaecc5e5836bae9" "e98b44cef9b65478"
     "1aaecc5e5836bae9" "82ed9ceb4acd2419" "7e6a6d453fe88508" "1774bb310649ab87"),
]


@pytest.mark.parametrize(("wire_type", "values", "hex_data"), UPSTREAM_VECTORS, ids=[v[0] for v in UPSTREAM_VECTORS])
def test_upstream_integer_vectors(wire_type: str, values: list[int], hex_data: str) -> None:
    # upstream writes several values to one stream; a tuple of them is the same bytes
    row = node("tuple", *[node(wire_type) for _ in values])
    assert codec.encode(row, list(values)).hex() == hex_data
    assert codec.decode(row, bytes.fromhex(hex_data)) == values


# --- round trips for every wire type ---------------------------------------------------------

def _extremes(wire_type: schema.WireType) -> list[codec.Value]:
    width, signed = codec.INTEGERS[wire_type]
    bits = 8 * width
    return [-(1 << (bits - 1)), -1, 0, (1 << (bits - 1)) - 1] if signed else [0, 1, (1 << bits) - 1]


FIXED_CASES: list[tuple[schema.SkiffSchema, codec.Value]] = [
    *[(S(w), v) for w in codec.INTEGERS for v in _extremes(w)],
    (NOTHING, None), (node("boolean"), True), (node("boolean"), False),
    (node("double"), 0.0), (node("double"), -0.0), (node("double"), math.inf), (node("double"), -1e308),
    (node("string32"), b""), (node("string32"), bytes(range(256))),
    (node("yson32"), b"#"), (node("yson32"), b""),
    (node("tuple"), []),
    (node("tuple", node("int8"), NOTHING, node("string32")), [-1, None, b"x"]),
    (node("variant8", NOTHING, node("int32")), (1, -5)), (node("variant8", NOTHING, node("int32")), (0, None)),
    (node("variant16", NOTHING, node("boolean")), (1, True)),
    (node("repeated_variant8", NOTHING, node("uint16")), []),
    (node("repeated_variant8", NOTHING, node("uint16")), [(1, 7), (0, None), (1, 65535)]),
    (node("repeated_variant16", node("double")), [(0, 1.5)]),
    (node("repeated_variant8", node("tuple", node("repeated_variant16", node("int64")))), [(0, [[(0, 1)]])]),
]


@pytest.mark.parametrize(("skiff", "value"), FIXED_CASES, ids=[schema.short_string(c[0]) for c in FIXED_CASES])
def test_round_trip_every_wire_type(skiff: schema.SkiffSchema, value: codec.Value) -> None:
    data = codec.encode(skiff, value)
    assert codec.decode(skiff, data) == value
    assert codec.encode(skiff, codec.decode(skiff, data)) == data


def test_every_wire_type_is_covered_by_fixed_cases() -> None:
    assert {c[0].wire_type for c in FIXED_CASES} == set(W)


def test_double_keeps_sign_and_nan_bits() -> None:
    assert codec.encode(node("double"), -0.0) == b"\x00" * 7 + b"\x80"
    nan = bytes.fromhex("010000000000f87f")  # a quiet NaN with a payload
    assert math.isnan(codec.decode(node("double"), nan))  # type: ignore[arg-type]
    assert codec.encode(node("double"), codec.decode(node("double"), nan)) == nan


@pytest.mark.parametrize(("skiff", "value", "message"), [
    (node("int8"), 128, "out of int8 range"),
    (node("uint8"), -1, "out of uint8 range"),
    (node("uint64"), 1 << 64, "out of uint64 range"),
    (node("int64"), True, "int64 takes int"),
    (node("double"), 1, "double takes float"),
    (node("boolean"), 1, "boolean takes bool"),
    (node("string32"), "text", "string32 takes bytes"),
    (NOTHING, 0, "nothing takes None"),
    (node("tuple", node("int8")), [1, 2], "tuple has 1 children"),
    (node("tuple", node("int8")), (1,), "tuple takes a list"),
    (node("variant8", NOTHING), (1, None), "tag 1 is out of range"),
    (node("variant8", NOTHING), [0, None], r"takes a \(tag, value\) tuple"),
    (node("repeated_variant8", NOTHING), [(0, None), (255, None)], "tag 255 is out of range"),
    (node("tuple", node("variant8", NOTHING, node("int8"))), [(1, 300)], r"value\[0\]<1>: 300 is out of int8"),
])
def test_encode_rejects_values_that_do_not_fit(skiff: schema.SkiffSchema, value: codec.Value, message: str) -> None:
    with pytest.raises(SkiffEncodeError, match=message):
        codec.encode(skiff, value)


# --- property-based round trip ------------------------------------------------------------------

NAMES = st.none() | st.text("abcxyz_$", min_size=1, max_size=6)


def schemas(depth: int = 3) -> st.SearchStrategy[schema.SkiffSchema]:
    """Schemas of bounded depth; variants get 1-4 children, tuples 0-4."""
    leaf = st.builds(S, st.sampled_from(SIMPLE), NAMES)
    if depth == 0:
        return leaf
    child = schemas(depth - 1)
    tuples = st.builds(lambda name, kids: S(W.TUPLE, name, tuple(kids)), NAMES, st.lists(child, max_size=4))
    tagged = st.builds(lambda wire_type, name, kids: S(wire_type, name, tuple(kids)),
                       st.sampled_from(TAGGED), NAMES, st.lists(child, min_size=1, max_size=4))
    return st.one_of(leaf, tuples, tagged)


def yson_values() -> st.SearchStrategy[yson.YsonValue]:
    scalars = (st.none() | st.booleans() | st.integers(yson.INT64_MIN, yson.INT64_MAX)
               | st.integers(0, yson.UINT64_MAX).map(yson.YsonUint64) | st.floats(allow_nan=False) | st.binary())
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=8)


def values_for(skiff: schema.SkiffSchema) -> st.SearchStrategy[codec.Value]:
    wire_type = skiff.wire_type
    if wire_type in codec.INTEGERS:
        low, high = (_extremes(wire_type)[0], _extremes(wire_type)[-1])
        return st.integers(low, high)  # type: ignore[arg-type]
    simple: dict[schema.WireType, st.SearchStrategy[codec.Value]] = {
        W.NOTHING: st.none(), W.BOOLEAN: st.booleans(), W.DOUBLE: st.floats(allow_nan=False),
        W.STRING32: st.binary(max_size=16), W.YSON32: yson_values().map(yson.dumps)}
    if wire_type in simple:
        return simple[wire_type]
    if wire_type == W.TUPLE:
        return st.tuples(*[values_for(child) for child in skiff.children]).map(list)
    tagged = st.integers(0, len(skiff.children) - 1).flatmap(
        lambda tag: values_for(skiff.children[tag]).map(lambda value: (tag, value)))
    if wire_type in (W.VARIANT8, W.VARIANT16):
        return tagged
    return st.lists(tagged, max_size=4)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_property_round_trip(data: st.DataObject) -> None:
    skiff = data.draw(schemas())
    value = data.draw(values_for(skiff))
    encoded = codec.encode(skiff, value)
    assert codec.decode(skiff, encoded) == value
    assert codec.encode(skiff, codec.decode(skiff, encoded)) == encoded
    # a strict prefix never decodes: the decoder reads only what the schema asks for
    for cut in sorted({0, len(encoded) // 2, len(encoded) - 1}):
        if 0 <= cut < len(encoded):
            with pytest.raises(SkiffDecodeError):
                codec.decode(skiff, encoded[:cut])
    with pytest.raises(SkiffDecodeError, match="trailing"):
        codec.decode(skiff, encoded + b"\x00")


@settings(max_examples=200, deadline=None)
@given(schemas(), st.binary(max_size=64))
def test_property_arbitrary_bytes_decode_or_raise_decode_error(skiff: schema.SkiffSchema, data: bytes) -> None:
    try:
        value = codec.decode(skiff, data)
    except SkiffDecodeError as error:
        assert 0 <= error.offset <= len(data)
    else:
        assert codec.encode(skiff, value) == data


@settings(max_examples=200, deadline=None)
@given(schemas())
def test_property_description_round_trip(skiff: schema.SkiffSchema) -> None:
    assert schema.parse_schema(schema.to_description(skiff)) == skiff


@settings(max_examples=200, deadline=None)
@given(yson_values())
def test_property_yson_round_trip(value: yson.YsonValue) -> None:
    text = yson.dumps(value)
    assert yson.loads(text) == value
    assert yson.dumps(yson.loads(text)) == text


# --- corrupt input ----------------------------------------------------------------------------

CORRUPT = [
    ("truncated int64", node("int64"), b"\x2a\x00\x00\x00\x00\x00\x00", 0, "needs 8 bytes, 7 remain"),
    ("truncated double", node("double"), b"\x9b\x91", 0, "needs 8 bytes, 2 remain"),
    ("truncated string32 length", node("string32"), b"\x06\x00\x00", 0, r"string32 length\) needs 4 bytes"),
    ("string32 body past the end", node("string32"), b"\x06\x00\x00\x00foo", 4, "needs 6 bytes, 3 remain"),
    ("string32 length 4 GiB", node("string32"), b"\xff\xff\xff\xffab", 4, "needs 4294967295 bytes, 2 remain"),
    ("yson32 length past the end", node("yson32"), b"\x09\x00\x00\x00{foo", 4, "needs 9 bytes"),
    ("variant8 tag out of range", node("variant8", NOTHING, node("int64")), b"\x02", 0, "tag 2 is out of range"),
    ("variant16 tag out of range", node("variant16", NOTHING), b"\x00\x01", 0, "tag 256 is out of range"),
    ("variant8 tag 0xFF is not an end tag", node("variant8", NOTHING), b"\xff", 0, "tag 255 is out of range"),
    ("repeated_variant8 without terminator", node("repeated_variant8", NOTHING), b"\x00\x00", 2, "no end tag 0xFF"),
    ("repeated_variant16 without terminator", node("repeated_variant16", node("int8")), b"\x00\x00\x05\xff", 3,
     "no end tag 0xFFFF"),
    ("repeated_variant8 tag out of range", node("repeated_variant8", NOTHING), b"\x01\xff", 0, "tag 1 is out of range"),
    ("boolean byte 2", node("boolean"), b"\x02", 0, "boolean byte must be 0 or 1, got 2"),
    ("trailing bytes", node("int8"), b"\x01\x02", 1, "1 trailing bytes"),
    ("trailing bytes after nothing", NOTHING, b"\x00", 0, "1 trailing bytes"),
    ("empty input", node("boolean"), b"", 0, "needs 1 bytes, 0 remain"),
]


@pytest.mark.parametrize(("skiff", "data", "offset", "message"), [c[1:] for c in CORRUPT], ids=[c[0] for c in CORRUPT])
def test_corrupt_input_raises_decode_error_with_offset(skiff: schema.SkiffSchema, data: bytes, offset: int,
                                                       message: str) -> None:
    with pytest.raises(SkiffDecodeError, match=message) as caught:
        codec.decode(skiff, data)
    assert caught.value.offset == offset
    assert str(caught.value).startswith(f"at byte {offset}:")


def test_huge_length_prefix_allocates_nothing() -> None:
    tracemalloc.start()
    try:
        with pytest.raises(SkiffDecodeError):
            codec.decode(node("tuple", node("string32"), node("yson32")), b"\x00\x00\x00\x00\xff\xff\xff\x7f")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


# --- schema descriptions ----------------------------------------------------------------------

def test_parse_resolves_registry_references_and_shares_them() -> None:
    registry = {"opt_int": {"wire_type": "variant8", "children": [{"wire_type": "nothing"}, {"wire_type": "int64"}]},
                "row": {"wire_type": "tuple", "children": ["$opt_int", "$opt_int"]}}
    parsed = schema.parse_schema("$row", registry)
    assert parsed.children[0] is parsed.children[1]
    assert schema.short_string(parsed) == "tuple<variant8<nothing;int64;>;variant8<nothing;int64;>;>"
    assert schema.to_description(parsed)["children"] == [registry["opt_int"]] * 2


def test_to_description_round_trip_keeps_names() -> None:
    description = {"wire_type": "tuple", "name": "root", "children": [
        {"wire_type": "int8", "name": "a"}, {"wire_type": "tuple", "children": []}]}
    assert schema.to_description(schema.parse_schema(description)) == description


@pytest.mark.parametrize(("description", "registry", "message"), [
    ("$a", {"a": "$a"}, r"schema -> \$a: recursive reference \$a -> \$a"),
    ("$a", {"a": {"wire_type": "tuple", "children": ["$b"]}, "b": {"wire_type": "variant8", "children": ["$a"]}},
     r"schema -> \$a.children\[0\] -> \$b.children\[0\]: recursive reference \$a -> \$b -> \$a"),
    ({"wire_type": "tuple", "children": [{"wire_type": "int64"}, "$missing"]}, {},
     r"schema.children\[1\]: unknown reference '\$missing'"),
    ("row", {"row": {"wire_type": "int64"}}, "reference 'row' must start with '\\$'"),
    ({"name": "x"}, {}, "'wire_type' is required"),
    ({"wire_type": "int9"}, {}, "unknown wire_type 'int9'"),
    ({"wire_type": "float"}, {}, "unknown wire_type 'float'"),
    ({"wire_type": "tuple"}, {}, "composite type tuple needs 'children'"),
    ({"wire_type": "int64", "children": [{"wire_type": "int64"}]}, {}, "simple type and takes no children"),
    ({"wire_type": "variant8", "children": []}, {}, "variant8 must have at least one child"),
    ({"wire_type": "repeated_variant8", "children": [{"wire_type": "nothing"}] * 256}, {},
     "at most 255 children"),
    ({"wire_type": "tuple", "children": "abc"}, {}, "children must be a list"),
    ({"wire_type": "int64", "name": 5}, {}, "name must be a string"),
    ({"wire_type": "int64", "nmae": "x"}, {}, r"unknown keys \['nmae'\]"),
    (42, {}, "a schema is a map or a '\\$name' string, got int"),
])
def test_parse_errors_name_the_path(description: object, registry: dict[str, object], message: str) -> None:
    with pytest.raises(SkiffSchemaError, match=message):
        schema.parse_schema(description, registry)


def test_parse_bounds_nesting_depth() -> None:
    description: dict[str, object] = {"wire_type": "int64"}
    for _ in range(schema.MAX_DEPTH + 5):
        description = {"wire_type": "tuple", "children": [description]}
    with pytest.raises(SkiffSchemaError, match="nested deeper than"):
        schema.parse_schema(description)


def test_direct_construction_checks_shape() -> None:
    with pytest.raises(SkiffSchemaError, match="at least one child"):
        S(W.VARIANT16)
    with pytest.raises(SkiffSchemaError, match="takes no children"):
        S(W.INT64, "x", (NOTHING,))


# --- table-schema rules (seed 004 «Ограничения на skiff-схему таблицы») -----------------------------

OTHER = node("yson32", name="$other_columns")


def sparse(*columns: schema.SkiffSchema, wire_type: str = "repeated_variant16") -> schema.SkiffSchema:
    return node(wire_type, *columns, name="$sparse_columns")


def test_table_schema_with_every_special_column_is_valid() -> None:
    full = table(node("boolean", name="$key_switch"), optional("int64", "$row_index"),
                 optional("int64", "$range_index"), node("string32", name="key"), optional("yson32", "value"),
                 sparse(node("double", name="s1"), node("uint64", name="s2")), OTHER)
    schema.validate_table_schema(full)
    layout = schema.table_layout(full)
    assert [c.name for c in layout.dense] == ["$key_switch", "$row_index", "$range_index", "key", "value"]
    assert [c.name for c in layout.sparse] == ["s1", "s2"] and layout.other_columns
    schema.validate_table_schema(table(node("int64", name="a"), sparse(node("int64", name="s"))))
    schema.validate_table_schema(table())


TABLE_RULES = [
    ("root must be tuple", node("variant16", table()), "table schema root must be tuple, got variant16"),
    ("children named", table(node("int64", name="a"), node("int64")), r"child #1 of the table schema \(int64\) has no"),
    ("names unique", table(node("int64", name="a"), sparse(node("int64", name="a"))),
     "column name 'a' appears more than once"),
    ("$other_columns is yson32", table(node("string32", name="$other_columns")),
     "\\$other_columns must be yson32, got string32"),
    ("$other_columns is last", table(OTHER, node("int64", name="a")),
     r"\$other_columns must be the last child \(it is #0 of 2\)"),
    ("$sparse_columns is repeated_variant16", table(sparse(node("int64", name="s"), wire_type="repeated_variant8")),
     "\\$sparse_columns must be repeated_variant16, got repeated_variant8"),
    ("$sparse_columns is last or before $other_columns",
     table(sparse(node("int64", name="s")), node("int64", name="a"), OTHER),
     r"\$sparse_columns must be the last child, or second to last .* \(it is #0 of 3\)"),
    ("sparse children named", table(sparse(node("int64", name="s"), node("int64"))),
     r"child #1 of \$sparse_columns \(int64\) has no name"),
    ("sparse children not special", table(sparse(node("boolean", name="$key_switch"))),
     "sparse column '\\$key_switch' has a special name"),
    ("$key_switch is boolean", table(node("int64", name="$key_switch")), "\\$key_switch must be boolean, got int64"),
    ("$row_index is variant8<nothing;int64>", table(node("int64", name="$row_index")),
     r"\$row_index must be variant8<nothing;int64;>, got int64"),
    ("$range_index is variant8<nothing;int64>", table(optional("uint64", "$range_index")),
     r"\$range_index must be variant8<nothing;int64;>, got variant8<nothing;uint64;>"),
    ("unknown special name", table(node("int64", name="$tablet_index")),
     "column '\\$tablet_index': unknown special name"),
    ("dense is simple", table(node("tuple", node("int64"), name="t")),
     "dense column 't' must be one of .* got tuple<int64;>"),
    ("dense narrow integers are not column types", table(node("int32", name="n")), "dense column 'n' must be one of"),
    ("dense optional wraps a simple type", table(node("variant8", NOTHING, node("tuple"), name="o")),
     "dense column 'o' must be .* got variant8<nothing;tuple;>"),
    ("dense optional has nothing first", table(node("variant8", node("int64"), NOTHING, name="o")),
     "dense column 'o' must be .* got variant8<int64;nothing;>"),
    ("sparse is simple", table(sparse(optional("int64", "s"))), "sparse column 's' must be one of .* got variant8"),
]


@pytest.mark.parametrize(("table_schema", "message"), [r[1:] for r in TABLE_RULES], ids=[r[0] for r in TABLE_RULES])
def test_table_schema_rule(table_schema: schema.SkiffSchema, message: str) -> None:
    with pytest.raises(SkiffSchemaError, match=message):
        schema.validate_table_schema(table_schema)


# --- table row streams --------------------------------------------------------------------------

PEOPLE = table(node("boolean", name="$key_switch"), optional("int64", "$row_index"), node("string32", name="name"),
               optional("int64", "age"), sparse(node("double", name="score"), node("yson32", name="tags")), OTHER)
LOG = table(node("uint64", name="ts"), optional("string32", "message"))


def test_rows_round_trip_across_tables() -> None:
    rows: list[codec.Row] = [
        (0, {"$key_switch": False, "$row_index": 10, "name": b"ann", "age": 31, "score": 0.5, "city": b"Oslo"}),
        (1, {"ts": 7, "message": b"hi"}),
        (0, {"$key_switch": True, "name": b"bob", "tags": b"[a;b]", "extra": {"k": [1, None]}, "null": None}),
        (1, {"ts": 8}),
    ]
    data = codec.encode_rows([PEOPLE, LOG], rows)
    assert codec.decode_rows([PEOPLE, LOG], data) == rows
    assert codec.decode_rows([PEOPLE, LOG], b"") == []


def test_row_bytes_follow_the_seed_layout() -> None:
    data = codec.encode_rows([PEOPLE, LOG], [(1, {"ts": 42}), (0, {"$key_switch": True, "name": b"x", "score": 2.0})])
    assert data == (b"\x01\x00" + (42).to_bytes(8, "little") + b"\x00"  # table 1: ts, message null
                    + b"\x00\x00" + b"\x01" + b"\x00" + b"\x01\x00\x00\x00x" + b"\x00"  # table 0 dense part
                    + b"\x00\x00" + bytes.fromhex("0000000000000040")  # sparse tag 0 (score) = 2.0
                    + b"\xff\xff" + b"\x02\x00\x00\x00{}")  # sparse end, empty $other_columns


def test_other_columns_in_binary_yson_as_the_python_binding_writes_them() -> None:
    binding = table(node("int64", name="a"), optional("string32", "b"), OTHER)
    data = (b"\x00\x00*\x00\x00\x00\x00\x00\x00\x00\x01\x03\x00\x00\x00abc"
            b"\x0e\x00\x00\x00{\x01\x06foo=\x01\x06bar;}")  # from yt_yson_bindings.dump_skiff (ytsaurus-yson 0.4.10)
    assert codec.decode_rows([binding], data) == [(0, {"a": 42, "b": b"abc", "foo": b"bar"})]


def test_sparse_row_as_the_python_binding_writes_it() -> None:
    binding = table(node("int64", name="a"), sparse(node("string32", name="s1"), node("double", name="s2")))
    data = b"\x00\x00\x01" + bytes(7) + b"\x00\x00\x01\x00\x00\x00x" + b"\x01\x00" + bytes(6) + b"\x04@\xff\xff"
    rows: list[codec.Row] = [(0, {"a": 1, "s1": b"x", "s2": 2.5})]
    assert codec.decode_rows([binding], data) == rows
    assert codec.encode_rows([binding], rows) == data  # sparse entries in schema order, as the binding writes them


def test_structured_stream_from_the_python_binding_decodes_generically() -> None:
    # yt_yson_bindings.dump_skiff_structured of a yt_dataclass with a list and a nested struct: outside the
    # seed's table rules (dense tuple / repeated_variant8 columns), but plain Skiff under the generic codec
    inner = node("tuple", node("int64", name="x"), optional("string32", "y"), name="inner")
    row = table(node("int64", name="a"), optional("string32", "s"), node("repeated_variant8", node("int64"), name="l"),
                inner)
    data = (b"\x00\x00*" + bytes(7) + b"\x01\x02\x00\x00\x00hi" + b"\x00\x01" + bytes(7) + b"\xff" + b"\x07" + bytes(7)
            + b"\x00")
    stream = node("variant16", row)
    assert codec.decode(stream, data) == (0, [42, (1, b"hi"), [(0, 1)], [7, (0, None)]])
    assert codec.encode(stream, codec.decode(stream, data)) == data
    with pytest.raises(SkiffSchemaError, match="dense column 'l'"):
        schema.validate_table_schema(row)


@pytest.mark.parametrize(("rows", "message"), [
    ([(0, {"$key_switch": False, "age": 3})], r"row 0.name: missing or null, but string32 is not nullable"),
    ([(1, {"ts": 1, "city": b"x"})], r"columns \['city'\] are neither dense nor sparse.* no \$other_columns"),
    ([(2, {})], "table index 2 is out of range"),
    ([(0, {"$key_switch": False, "name": "str"})], "string32 takes bytes"),
    ([(0, {"$key_switch": False, "name": b"", "score": [1.0]})], "a column value is a scalar"),
    ([(0, {"$key_switch": False, "name": b"", "x": 1 << 64})], "int64 out of range"),
    ([(0, {"$key_switch": False, "name": b"", "$other_columns": {}})], "name the row's layout"),
])
def test_encode_rows_errors(rows: list[codec.Row], message: str) -> None:
    with pytest.raises(SkiffEncodeError, match=message):
        codec.encode_rows([PEOPLE, LOG], rows)


def _people_row(sparse_part: bytes, other: bytes | None = b"{}") -> bytes:
    """Table 0 of PEOPLE: index, $key_switch, $row_index, name, age (9 bytes), then the given rest."""
    head = b"\x00\x00" + b"\x00" + b"\x00" + b"\x00\x00\x00\x00" + b"\x00"
    return head + sparse_part + (b"" if other is None else len(other).to_bytes(4, "little") + other)


@pytest.mark.parametrize(("data", "offset", "message"), [
    (b"\x02\x00", 0, "table index 2 is out of range"),
    (b"\x01", 0, "table index.* needs 2 bytes"),
    (b"\x01\x00" + b"\x00" * 8 + b"\x02", 10, r"row 0.message: variant8 tag 2 is out of range"),
    (_people_row(b"\x00\x00" + b"\x00" * 8 + b"\x00\x00" + b"\x00" * 8 + b"\xff\xff"), 19,
     "sparse column 'score' appears twice"),
    (_people_row(b"\x02\x00\xff\xff"), 9, r"\$sparse_columns: repeated_variant16 tag 2 is out of range"),
    (_people_row(b"\x00\x00" + b"\x00" * 8, None), 19, "no end tag 0xFFFF"),
    (_people_row(b"\xff\xff", b"[1;2]"), 15, r"\$other_columns: must hold a YSON map, got list"),
    (_people_row(b"\xff\xff", b"{a=1;a=2}"), 20, r"\$other_columns: YSON: duplicate map key 'a'"),
    (_people_row(b"\xff\xff", b"{name=x}"), 15, r"columns \['name'\] are also dense or sparse"),
    (_people_row(b"\xff\xff", b"{a=<x=1>2}"), 18, "YSON attributes are not supported"),
    (b"\x00\x00\x02" + b"\x00" * 7, 2, "boolean byte must be 0 or 1"),
])
def test_decode_rows_errors(data: bytes, offset: int, message: str) -> None:
    with pytest.raises(SkiffDecodeError, match=message) as caught:
        codec.decode_rows([PEOPLE, LOG], data)
    assert caught.value.offset == offset


def test_row_streams_need_table_schemas() -> None:
    with pytest.raises(ValueError, match="1 to 65536 table schemas"):
        codec.decode_rows([], b"")
    with pytest.raises(SkiffSchemaError, match="root must be tuple"):
        codec.encode_rows([node("int64")], [])


# --- YSON subset -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "value"), [
    (b"#", None), (b"%true", True), (b"%false", False), (b"-42", -42), (b"42u", 42), (b"1.5", 1.5),
    (b"1e3", 1000.0), (b"%-inf", -math.inf), (b"foo.bar-1", b"foo.bar-1"),
    (b'"a\\"b\\\\\\n\\x00\\101"', b'a"b\\\n\x00A'),
    (b" [ 1 ; [] ; {} ; ] ", [1, [], {}]), (b'{"k y"="v";z=#;}', {"k y": b"v", "z": None}),
    (b"\x01\x06foo", b"foo"), (b"\x02\x53", -42), (b"\x06\x2a", 42), (b"\x03" + bytes(8), 0.0),
    (b"\x04", False), (b"\x05", True),
])
def test_yson_reads(text: bytes, value: yson.YsonValue) -> None:
    assert yson.loads(text) == value


@pytest.mark.parametrize(("text", "message"), [
    (b"", "unexpected end"), (b"<a=1>2", "attributes are not supported"), (b"1 2", "trailing data"),
    (b"9223372036854775808", "integer out of range"), (b"-1u", "malformed uint64"), (b'"abc', "needs 1 bytes"),
    (b"{a=1;a=2}", "duplicate map key"), (b"[" * 300, "nesting deeper"), (b"%maybe", "unknown %-literal"),
    (b"12ab", "malformed number"), (b"\x01\x7f", "negative string length"), (b"\x01\x10ab", "needs 8 bytes"),
    (b"\x02" + b"\xff" * 11, "varint longer than 64 bits"), (b'"\\q"', "bad escape"), (b"{1=2}", "unexpected byte"),
])
def test_yson_rejects(text: bytes, message: str) -> None:
    with pytest.raises(yson.YsonError, match=message):
        yson.loads(text)


def test_yson_writes_text() -> None:
    value: yson.YsonValue = {"a b": [None, True, -1, yson.YsonUint64(1), 0.5, math.nan, b'"\x01', b"_ok"]}
    assert yson.dumps(value) == b'{"a b"=[#;%true;-1;1u;0.5;%nan;"\\"\\x01";_ok]}'
    with pytest.raises(yson.YsonError, match="int64 out of range"):
        yson.dumps(1 << 63)
    with pytest.raises(yson.YsonError, match="cannot write str"):
        yson.dumps("text")  # type: ignore[arg-type]
