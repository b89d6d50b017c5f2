"""Rows a codec must refuse to encode, each from one valid row through `set_value` / `drop_column` /
`set_row_table`: a value outside its wire type (`corrupt`), a null or missing value for a column that is not
`variant8<nothing;T>`, or a column with nowhere to go (`nonconforming`); and the one golden rule of encoding
sparse columns, that a null one is left out."""

from __future__ import annotations

from typing import Any

from parquet_conformance.corpus.model import Citation
from parquet_conformance.corpus.skiff.catalog.common import (
    BOOLEAN,
    DENSE_ALWAYS,
    DENSE_NULL,
    DOUBLE,
    INT64,
    OTHER_ERROR,
    OUTPUT,
    SPARSE_PRESENT,
    STRING32,
    Entries,
    b,
    f,
    fmt,
    i,
    node,
    opt,
    requiring,
    sparse,
    table,
)
from parquet_conformance.generators.skiff.mutations import DropColumn, Mutation, SetRowTable, SetValue

FORMAT = fmt(table(node("int64", "i"), node("uint64", "u"), node("boolean", "flag"), node("double", "d"),
                   node("string32", "s"), opt("o", "int64")))
ROW = {"i": i(-1), "u": i(1), "flag": True, "d": f(0.5), "s": b("s"), "o": i(2)}


def entries() -> Entries:
    e = Entries("encode")
    base = e.add("valid-row", "encode", "encode: one row of every required column type and a nullable one",
                 [INT64, BOOLEAN, DOUBLE, STRING32, DENSE_ALWAYS], format=FORMAT, rows=[[0, ROW]]).base

    def bad(name: str, title: str, cites: list[Citation], step: Mutation, kind: str = "corrupt") -> None:
        e.add(name, "encode", f"encode: {title}", requiring(cites), format=FORMAT, kind=kind, expect="reject",
              mutations=[step], base=base)

    value: list[tuple[str, str, list[Citation], str, Any]] = [
        ("int64-2-63", "2^63 for an int64 column", [INT64], "i", i(1 << 63)),
        ("int64-below-min", "-2^63-1 for an int64 column", [INT64], "i", i(-(1 << 63) - 1)),
        ("uint64-negative", "-1 for a uint64 column", [INT64], "u", i(-1)),
        ("uint64-2-64", "2^64 for a uint64 column", [INT64], "u", i(1 << 64)),
        ("int64-given-bytes", "bytes for an int64 column", [INT64], "i", b("12")),
        ("int64-given-double", "1.5 for an int64 column", [INT64], "i", f(1.5)),
        ("boolean-given-int", "the integer 1 for a boolean column", [BOOLEAN], "flag", i(1)),
        ("double-given-bytes", "bytes for a double column", [DOUBLE], "d", b("0.5")),
        ("string32-given-int", "an integer for a string32 column", [STRING32], "s", i(7)),
        ("string32-given-list", "a list for a string32 column", [STRING32], "s", [b("a")]),
    ]
    for name, title, cites, column, tok in value:
        bad(name, title, cites, SetValue(0, column, tok))
    for column, wire_type in [("i", "int64"), ("s", "string32"), ("flag", "boolean")]:
        bad(f"null-{wire_type}", f"null for a required {wire_type} column", [DENSE_NULL],
            SetValue(0, column, None), "nonconforming")
    for column, wire_type in [("i", "int64"), ("u", "uint64"), ("d", "double"), ("s", "string32"),
                              ("flag", "boolean")]:
        bad(f"missing-{wire_type}", f"no value for a required {wire_type} column", [DENSE_NULL, DENSE_ALWAYS],
            DropColumn(0, column), "nonconforming")
    bad("unknown-column", "a column the table has no place for (no $other_columns)", [OTHER_ERROR],
        SetValue(0, "zz", i(1)), "nonconforming")
    bad("table-index-1-of-1", "a row for output table 1 when the format has one table", [OUTPUT],
        SetRowTable(0, 1))
    sparse_format = fmt(table(node("int64", "id"), sparse(node("string32", "s"), node("int64", "t"))))
    e.add("sparse-null-left-out", "encode", "encode: a null sparse value is left out of $sparse_columns",
          [SPARSE_PRESENT], format=sparse_format, rows=[[0, {"id": i(1), "s": None, "t": i(5)}]])
    return e
