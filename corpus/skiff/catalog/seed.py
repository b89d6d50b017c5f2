"""Golden vectors from seed 004's own byte examples, byte for byte: each example is the one column of a one-row
table (the stream is the table index 00 00, then the seed's bytes), decoded and encoded; the seed's format
configuration example (a table through skiff_schema_registry); and a two-table input stream."""

from __future__ import annotations

from parquet_conformance.corpus.skiff.catalog.common import (
    BOOLEAN,
    CONFIG,
    DOUBLE_EXAMPLE,
    INPUT,
    INT_EXAMPLES,
    OUTPUT,
    REFERENCE,
    STRING32_EXAMPLE,
    VARIANT_NOTHING,
    YSON32_EXAMPLES,
    Entries,
    b,
    f,
    fmt,
    hexs,
    i,
    m,
    node,
    one,
    opt,
    table,
    u,
)

# (name, wire type, the seed's bytes, the value as a token, citation)
EXAMPLES = [
    ("int64-42", "int64", "2a00000000000000", i(42), INT_EXAMPLES),
    ("int64-100500", "int64", "9488010000000000", i(100500), INT_EXAMPLES),
    ("uint64-42", "uint64", "2a00000000000000", i(42), INT_EXAMPLES),
    ("uint64-100500", "uint64", "9488010000000000", i(100500), INT_EXAMPLES),
    ("double-e", "double", "9b91048b0abf0540", f(2.718281828), DOUBLE_EXAMPLE),
    ("string32-foobar", "string32", "06000000" + b"foobar".hex(), b("foobar"), STRING32_EXAMPLE),
    ("yson32-map", "yson32", "09000000" + b"{foo=bar}".hex(), m(foo=b("bar")), YSON32_EXAMPLES),
    ("yson32-uint", "yson32", "07000000" + b"100500u".hex(), u(100500), YSON32_EXAMPLES),
    ("boolean-true", "boolean", "01", True, BOOLEAN),
    ("boolean-false", "boolean", "00", False, BOOLEAN),
]

TABLE1 = table(node("uint64", "uint64_column"), node("int64", "int64_column"), node("boolean", "boolean_column"),
               node("string32", "string32_column"), node("yson32", "yson32_column"))


def entries() -> Entries:
    e = Entries("seed")
    for name, wire_type, data, value, cite in EXAMPLES:
        stream = hexs("0000", data)
        title = f"the seed's {wire_type} example {data} as a one-column row"
        e.add(name, "decode", f"decode: {title}", [cite, INPUT], format=one(wire_type), rows=[[0, {"c": value}]],
              stream=stream)
        e.add(name, "encode", f"encode: {title}", [cite, OUTPUT], format=one(wire_type), rows=[[0, {"c": value}]],
              streams=[stream])
    # variant8<nothing;int64>: the seed's \x00 is a null, which a row leaves out.
    null = hexs("0000", "00")
    e.add("variant8-nothing", "decode", "decode: the seed's variant8 example \\x00 (nothing) as a null column",
          [VARIANT_NOTHING, INPUT], format=fmt(table(opt("c", "int64"))), rows=[[0, {}]], stream=null)
    e.add("variant8-nothing", "encode", "encode: a null in a variant8<nothing;int64> column is the seed's \\x00",
          [VARIANT_NOTHING, OUTPUT], format=fmt(table(opt("c", "int64"))), rows=[[0, {"c": None}]], streams=[null])
    # The seed's format configuration example, one row of the seed's example values.
    config = {"table_skiff_schemas": ["$table1"], "skiff_schema_registry": {"table1": TABLE1}}
    row = {"uint64_column": i(100500), "int64_column": i(42), "boolean_column": True,
           "string32_column": b("foobar"), "yson32_column": m(foo=b("bar"))}
    stream = hexs("0000", "9488010000000000", "2a00000000000000", "01", "06000000" + b"foobar".hex(),
                  "09000000" + b"{foo=bar}".hex())
    for op in ("decode", "encode"):
        e.add("format-config", op, f"{op}: the seed's format configuration ($table1 through skiff_schema_registry), "
              "one row of the seed's example values", [CONFIG, REFERENCE, INPUT if op == "decode" else OUTPUT],
              format=config, rows=[[0, row]], **({"stream": stream} if op == "decode" else {"streams": [stream]}))
    # Two tables: the input stream's root is variant16 over both; the output is one stream per table.
    two = fmt(table(node("int64", "c")), table(node("string32", "c")))
    rows = [[0, {"c": i(42)}], [1, {"c": b("foobar")}], [0, {"c": i(100500)}]]
    e.add("two-tables", "decode", "decode: rows of two tables in one input stream, table index before each row",
          [INPUT, INT_EXAMPLES, STRING32_EXAMPLE], format=two, rows=rows,
          stream=hexs("0000", "2a00000000000000", "0100", "06000000" + b"foobar".hex(), "0000", "9488010000000000"))
    e.add("two-tables", "encode", "encode: rows of two tables, one output stream each, every row behind index 0",
          [OUTPUT, INT_EXAMPLES, STRING32_EXAMPLE], format=two, rows=rows,
          streams=[hexs("0000", "2a00000000000000", "0000", "9488010000000000"),
                   hexs("0000", "06000000" + b"foobar".hex())])
    return e

