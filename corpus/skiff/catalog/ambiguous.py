"""Where seed 004 can be read two ways (docs/spec-notes.md#skiff), a case holds both readings: it expects
`either` (refuse, or return exactly the data of the other reading, which the base carries). The strict
reference takes the narrow reading; the base is built with the upstream one (schema.validate_table_schema's
`lenient`), or given byte for byte where our encoder writes neither."""

from __future__ import annotations

from parquet_conformance.corpus.skiff.catalog.common import (
    BOOLEAN,
    DENSE,
    DENSE_NULL,
    KEY_SWITCH,
    NOTES,
    OTHER_MAP,
    SPARSE_PRESENT,
    SPARSE_TYPES,
    SPECIAL,
    UP_BOOLEAN,
    UP_NARROW,
    UP_SIMPLIFY,
    UP_WIDE,
    YSON32,
    Entries,
    fmt,
    hexs,
    i,
    le,
    node,
    one,
    opt,
    s32,
    sparse,
    table,
)
from parquet_conformance.generators.skiff.mutations import OverwriteStream

NARROW = [("int8", 1, True), ("int16", 2, True), ("int32", 4, True), ("uint8", 1, False), ("uint16", 2, False),
          ("uint32", 4, False), ("int128", 16, True), ("uint128", 16, False), ("int256", 32, True),
          ("uint256", 32, False)]


def entries() -> Entries:
    e = Entries("ambiguous")
    note = f"the seed allows two readings: {NOTES}"

    # A boolean byte other than 0 or 1: the seed names only 1 and 0; upstream refuses the rest. Read as true or refuse.
    for name, byte in [("2", "02"), ("ff", "ff"), ("80", "80")]:
        e.add(f"boolean-byte-{name}", "decode", f"decode: a boolean column holding the byte 0x{byte}",
              [BOOLEAN, UP_BOOLEAN], format=one("boolean"), rows=[[0, {"c": True}]], kind="corrupt",
              expect="either", mutations=[OverwriteStream(2, byte)], notes=note)
    e.add("key-switch-byte-2", "decode", "decode: $key_switch holding the byte 0x02", [KEY_SWITCH, BOOLEAN],
          format=fmt(table(node("boolean", "$key_switch"), node("int64", "a"))),
          rows=[[0, {"$key_switch": True, "a": i(1)}]], kind="corrupt", expect="either",
          mutations=[OverwriteStream(2, "02")], notes=note)

    # `#` in a yson32 column that is not variant8<nothing;yson32>: a YSON value of any type, or a NULL that needs
    # a variant8. The row's data is the same either way (a null column); a codec may refuse it.
    yson_null = hexs("0000", s32(b"#"))
    e.add("yson32-entity", "decode", "decode: a required yson32 column holding # (YSON's entity)",
          [YSON32, DENSE_NULL], format=one("yson32"), rows=[[0, {}]], stream=yson_null, expect="either", notes=note)
    e.add("optional-yson32-entity", "decode", "decode: variant8<nothing;yson32> with tag 1 holding #: null either way",
          [YSON32, DENSE_NULL], format=fmt(table(opt("c", "yson32"))), rows=[[0, {}]],
          stream=hexs("0000", "01", s32(b"#")), notes=note)
    e.add("yson32-null", "encode", "encode: null for a required yson32 column, written as #", [YSON32, DENSE_NULL],
          format=one("yson32"), rows=[[0, {"c": None}]], streams=[yson_null], kind="nonconforming",
          expect="either", notes=note)
    e.add("yson32-missing", "encode", "encode: no value for a required yson32 column, written as #",
          [YSON32, DENSE_NULL], format=one("yson32"), rows=[[0, {}]], streams=[yson_null], kind="nonconforming",
          expect="either", notes=note)
    e.add("key-switch-missing", "encode", "encode: no value for $key_switch, written as false",
          [KEY_SWITCH, DENSE_NULL], format=fmt(table(node("boolean", "$key_switch"), node("int64", "a"))),
          rows=[[0, {"a": i(1)}]], streams=[hexs("0000", "00", le(1, 8))], kind="nonconforming", expect="either",
          notes=note)

    # A `$name` the seed does not list: special and unknown (refuse), or a dense column like any other.
    special = fmt(table(node("int64", "$tablet_index"), node("int64", "a")))
    for op in ("decode", "encode"):
        e.add("unknown-special-name", op, f"{op}: a column named $tablet_index, a $ name the seed does not list",
              [SPECIAL], format=special, rows=[[0, {"$tablet_index": i(3), "a": i(1)}]], kind="nonconforming",
              expect="either", lenient=True, notes=note)

    # A sparse column variant8<nothing;T>: the seed wants simple types; upstream takes the optional form.
    optional_sparse = fmt(table(node("int64", "id"), sparse(opt("s", "int64"))))
    for op in ("decode", "encode"):
        e.add("sparse-optional", op, f"{op}: a sparse column of type variant8<nothing;int64>",
              [SPARSE_TYPES, SPARSE_PRESENT, UP_SIMPLIFY], format=optional_sparse,
              rows=[[0, {"id": i(1), "s": i(42)}], [0, {"id": i(2)}]], kind="nonconforming", expect="either",
              lenient=True, notes=note)

    # Integers of other widths: upstream wire types the seed's table rules do not list for columns.
    for wire_type, width, signed in NARROW:
        low, high = (-(1 << (8 * width - 1)), (1 << (8 * width - 1)) - 1) if signed else (0, (1 << (8 * width)) - 1)
        cites = [DENSE, UP_NARROW, UP_SIMPLIFY] + ([UP_WIDE] if width > 8 else [])
        e.add(f"column-{wire_type}", "decode", f"decode: a {wire_type} column: {low}, {high}, 1",
              cites, format=one(wire_type), rows=[[0, {"c": i(v)}] for v in (low, high, 1)], kind="nonconforming",
              expect="either", lenient=True, notes=note)
    for wire_type in ("int32", "uint8"):
        e.add(f"column-{wire_type}", "encode", f"encode: a {wire_type} column", [DENSE, UP_NARROW, UP_SIMPLIFY],
              format=one(wire_type), rows=[[0, {"c": i(100)}]], kind="nonconforming", expect="either", lenient=True,
              notes=note)
    e.add("optional-int16", "decode", "decode: a variant8<nothing;int16> column: a value, then null",
          [DENSE, UP_NARROW, UP_SIMPLIFY], format=fmt(table(opt("c", "int16"))), rows=[[0, {"c": i(-2)}], [0, {}]],
          kind="nonconforming", expect="either", lenient=True, notes=note)

    # One column twice in a row: nothing in the seed allows it; a codec may refuse, or keep the last value.
    e.add("sparse-tag-twice", "decode", "decode: $sparse_columns giving the same column twice (the last is 2)",
          [SPARSE_PRESENT], format=fmt(table(sparse(node("int64", "s")))), rows=[[0, {"s": i(2)}]],
          stream=hexs("0000", "0000", le(1, 8), "0000", le(2, 8), "ffff"), kind="corrupt", expect="either",
          notes=note)
    e.add("other-columns-key-twice", "decode", "decode: $other_columns giving the key x twice (the last is 2)",
          [OTHER_MAP], format=fmt(table(node("int64", "a"), node("yson32", "$other_columns"))),
          rows=[[0, {"a": i(1), "x": i(2)}]], stream=hexs("0000", le(1, 8), s32(b"{x=1;x=2}")), kind="corrupt",
          expect="either", notes=note)
    return e

