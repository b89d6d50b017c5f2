"""Golden cases across every column type and placement the seed defines, each decoded and encoded: bounds of
int64/uint64, double's special values, string32 bytes, YSON values of every kind, nullable dense columns,
sparse columns, `$other_columns`, the control columns, registry references, wide rows, long streams, and tag
widths past one byte (sparse tags and table indexes)."""

from __future__ import annotations

from parquet_conformance.corpus.skiff.catalog.common import (
    BOOLEAN,
    DENSE,
    DENSE_ALWAYS,
    DENSE_NULL,
    DOUBLE,
    INPUT,
    INT64,
    KEY_SWITCH,
    OTHER,
    OTHER_COLUMNS,
    OTHER_MAP,
    REFERENCE,
    REPEATED,
    ROW_INDEX,
    SPARSE,
    SPARSE_PRESENT,
    STRING32,
    TUPLE,
    VARIANT,
    YSON32,
    Entries,
    b,
    f,
    fmt,
    hexs,
    i,
    le,
    m,
    node,
    one,
    opt,
    s32,
    sparse,
    table,
    u,
)

COLUMN_TYPES = ("int64", "uint64", "boolean", "double", "string32", "yson32")
SAMPLE = {"int64": i(-7), "uint64": i(7), "boolean": True, "double": f(0.25), "string32": b("x"),
          "yson32": [i(1), b("a")]}


def rows(column: str, *values: object) -> list[list[object]]:
    return [[0, {column: v}] for v in values]


def entries() -> Entries:
    e = Entries("types")
    e.both("int64-bounds", "int64 column: min, -1, 0, max", [INT64], format=one("int64"),
           rows=rows("c", i(-(1 << 63)), i(-1), i(0), i((1 << 63) - 1)))
    e.both("uint64-bounds", "uint64 column: 0, 1, 2^63, 2^64-2", [INT64], format=one("uint64"),
           rows=rows("c", i(0), i(1), i(1 << 63), i((1 << 64) - 2)))
    e.both("uint64-max", "uint64 column: 2^64-1, the largest 8-byte unsigned value", [INT64], format=one("uint64"),
           rows=rows("c", i((1 << 64) - 1)), notes="ytsaurus-yson 0.4.10 refuses it (off by one): spec-notes")
    e.both("double-specials", "double column: 0, -0, infinities, NaN, the smallest subnormal, the largest finite",
           [DOUBLE], format=one("double"),
           rows=rows("c", f(0.0), f(-0.0), f(float("inf")), f(float("-inf")), {"float": "nan"}, f(5e-324),
                     f(1.7976931348623157e308)))
    e.both("boolean-rows", "boolean column: true, false", [BOOLEAN], format=one("boolean"),
           rows=rows("c", True, False))
    e.both("string32-bytes", "string32 column: empty, NUL, bytes that are not UTF-8, UTF-8 text", [STRING32],
           format=one("string32"), rows=rows("c", b(b""), b(b"\x00"), b(b"\xff\xfe\x80"), b("Формат Skiff")))
    e.both("string32-70k", "string32 column: 70000 bytes, a length past 16 bits", [STRING32], format=one("string32"),
           rows=rows("c", b(bytes(range(256)) * 273 + b"tail")))
    e.both("yson32-values", "yson32 column: a value of each YSON kind, nested", [YSON32], format=one("yson32"),
           rows=rows("c", [i(1), i(2)], m(a=m(b=[None, True])), b("text"), i(-5), f(1.5), True, u(7), m(), [],
                     {"float": "nan"}))
    for wire_type in COLUMN_TYPES:
        e.both(f"optional-{wire_type}", f"variant8<nothing;{wire_type}> column: a value, then null", [DENSE_NULL,
               VARIANT, DENSE], format=fmt(table(opt("c", wire_type))), rows=[[0, {"c": SAMPLE[wire_type]}], [0, {}]])
    all_sparse = fmt(table(node("int64", "id"), sparse(*(node(t, f"s_{t}") for t in COLUMN_TYPES))))
    e.both("sparse-all-types", "$sparse_columns of every column type: all present, none, every other one",
           [SPARSE, SPARSE_PRESENT, REPEATED], format=all_sparse,
           rows=[[0, {"id": i(1), **{f"s_{t}": SAMPLE[t] for t in COLUMN_TYPES}}], [0, {"id": i(2)}],
                 [0, {"id": i(3), **{f"s_{t}": SAMPLE[t] for t in COLUMN_TYPES[::2]}}]])
    e.both("sparse-and-other", "$sparse_columns then $other_columns: a sparse value and other columns",
           [SPARSE, OTHER, OTHER_MAP], format=fmt(table(sparse(node("double", "s")), OTHER_COLUMNS)),
           rows=[[0, {"s": f(0.5), "city": b("Oslo"), "n": u(3)}], [0, {}], [0, {"tags": [b("a"), i(1)]}]])
    e.both("other-columns-values", "$other_columns: values of every YSON kind, an empty map, a null",
           [OTHER, OTHER_MAP], format=fmt(table(node("int64", "id"), OTHER_COLUMNS)),
           rows=[[0, {"id": i(1), "a": i(-1), "b": u(2), "c": f(2.5), "d": True, "e": b("x y"), "f": [i(1)],
                      "g": m(k=b("v"))}],
                 [0, {"id": i(2)}], [0, {"id": i(3), "gone": None}]])
    e.both("key-switch", "$key_switch: false, then true at a new key", [KEY_SWITCH],
           format=fmt(table(node("boolean", "$key_switch"), node("string32", "key"))),
           rows=[[0, {"$key_switch": False, "key": b("a")}], [0, {"$key_switch": True, "key": b("b")}]])
    e.both("row-range-index", "$row_index and $range_index: given, then left out (tag 0)", [ROW_INDEX],
           format=fmt(table(opt("$range_index", "int64"), opt("$row_index", "int64"), node("int64", "v"))),
           rows=[[0, {"$range_index": i(0), "$row_index": i(100), "v": i(1)}], [0, {"v": i(2)}],
                 [0, {"$range_index": i(1), "$row_index": i(0), "v": i(3)}]])
    e.both("no-rows", "a stream without rows", [INPUT], format=one("int64"), rows=[])
    e.both("empty-table", "a table of no columns: each row is its table index alone", [TUPLE],
           format=fmt(table()), rows=[[0, {}], [0, {}]])
    registry = {"id": node("int64", "id"), "maybe_name": opt("name", "string32"), "row": table("$id", "$maybe_name")}
    e.both("registry-columns", "columns through skiff_schema_registry references, shared by two tables",
           [REFERENCE], format=fmt("$row", "$row", registry=registry),
           rows=[[0, {"id": i(1), "name": b("a")}], [1, {"id": i(2)}]])
    wide = [node(COLUMN_TYPES[n % 6], f"c{n:02d}") for n in range(48)]
    e.both("wide-row", "48 dense columns, every type in turn", [DENSE_ALWAYS, TUPLE], format=fmt(table(*wide)),
           rows=[[0, {f"c{n:02d}": SAMPLE[COLUMN_TYPES[n % 6]] for n in range(48)}]])
    e.both("many-rows", "1000 rows of two columns", [INPUT, TUPLE],
           format=fmt(table(node("int64", "n"), node("string32", "s"))),
           rows=[[0, {"n": i(n), "s": b(str(n))}] for n in range(1000)])
    e.both("three-tables", "three tables, rows interleaved", [INPUT],
           format=fmt(table(node("int64", "a")), table(node("string32", "b")), table(node("boolean", "c"))),
           rows=[[2, {"c": True}], [0, {"a": i(1)}], [2, {"c": False}], [1, {"b": b("x")}], [0, {"a": i(2)}]])
    many_sparse = fmt(table(sparse(*(node("int64", f"s{n}") for n in range(300)))))
    e.both("sparse-tag-u16", "300 sparse columns: tags past one byte (0x012b)", [SPARSE, REPEATED],
           format=many_sparse, rows=[[0, {"s299": i(1), "s0": i(2), "s255": i(3)}]])
    tables = [table(node("int64", f"t{n}")) for n in range(260)]
    e.both("table-index-u16", "260 tables: a table index past one byte (0x0103)", [INPUT, VARIANT],
           format=fmt(*tables), rows=[[259, {"t259": i(1)}], [0, {"t0": i(2)}], [256, {"t256": i(3)}]])
    # Decode only: YSON as the binding writes it (binary scalars, trailing ';'), and text with spaces.
    yson_table = fmt(table(node("yson32", "y"), OTHER_COLUMNS))
    e.add("binary-yson", "decode", "decode: yson32 and $other_columns in binary YSON, as the binding writes them",
          [YSON32, OTHER_MAP], format=yson_table,
          rows=[[0, {"y": [i(1), u(2), f(2.0), True, b("s")], "foo": b("bar"), "n": i(-2)}]],
          stream=hexs("0000", s32(b"[\x02\x02;\x06\x02;\x03" + le(0x4000000000000000, 8) + b";\x05;\x01\x02s;]"),
                      s32(b"{\x01\x06foo=\x01\x06bar;\x01\x02n=\x02\x03;}")))
    e.add("spaced-yson", "decode", "decode: YSON text with spaces, newlines, quotes and trailing ';'",
          [YSON32, OTHER_MAP], format=yson_table,
          rows=[[0, {"y": m(a=[i(1), i(2)]), "k": b("v w")}]],
          stream=hexs("0000", s32(b' { "a" = [ 1 ; 2 ; ] ; } '), s32(b'{\n  k = "v w";\n}')))
    return e
