"""Input streams that do not decode, each made by hand byte for byte (`replace_stream`) from a valid base: values
cut short, lengths past the end, variant tags and table indexes out of range, repeated variants without their
end tag, trailing bytes, and yson32 fields that are not YSON (or, for `$other_columns`, not a YSON map)."""

from __future__ import annotations

from typing import Any

from parquet_conformance.corpus.model import Citation
from parquet_conformance.corpus.skiff.catalog.common import (
    BOOLEAN,
    DOUBLE,
    INPUT,
    INT64,
    OTHER,
    OTHER_COLUMNS,
    OTHER_MAP,
    REPEATED,
    ROW_INDEX,
    SPARSE,
    STRING32,
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
    requiring,
    s32,
    sparse,
    table,
)
from parquet_conformance.generators.skiff.mutations import ReplaceStream

I42 = le(42, 8)
SPARSE_TABLE = fmt(table(node("int64", "id"), sparse(node("int64", "s"), node("string32", "t"))))
OTHER_TABLE = fmt(table(node("int64", "a"), OTHER_COLUMNS))
YSON_TABLE = one("yson32")


def entries() -> Entries:
    e = Entries("corrupt")

    def bad(name: str, title: str, cites: list[Citation], format: dict[str, Any], rows: list[Any], stream: str) -> None:
        e.add(name, "decode", f"decode: {title}", requiring(cites, but=(OTHER, SPARSE)), format=format, rows=rows,
              kind="corrupt", expect="reject", mutations=[ReplaceStream(stream)])

    int_row = [[0, {"c": i(42)}]]
    bad("truncated-int64", "an int64 cut after 4 of its 8 bytes", [INT64], one("int64"), int_row,
        hexs("0000", I42[:4]))
    bad("truncated-double", "a double cut after 4 of its 8 bytes", [DOUBLE], one("double"), [[0, {"c": f(2.5)}]],
        hexs("0000", "00000000"))
    bad("missing-boolean", "a row of one boolean column without its byte", [BOOLEAN], one("boolean"),
        [[0, {"c": True}]], hexs("0000"))
    bad("truncated-table-index", "one byte of a u16 table index", [INPUT], one("int64"), int_row, hexs("00"))
    bad("trailing-byte", "a whole row, then one byte: a table index cut short", [INPUT], one("int64"), int_row,
        hexs("0000", I42, "00"))
    bad("partial-second-row", "a whole row, then a row cut inside its int64", [INPUT, INT64], one("int64"),
        int_row * 2, hexs("0000", I42, "0000", I42[:3]))
    foobar = [[0, {"c": b("foobar")}]]
    bad("string32-past-end", "a string32 of length 6 with 3 bytes left", [STRING32], one("string32"), foobar,
        hexs("0000", "06000000", b"foo"))
    bad("string32-length-ffffffff", "a string32 of length 0xFFFFFFFF with 1 byte left (no allocation may follow)",
        [STRING32], one("string32"), foobar, hexs("0000", "ffffffff", b"f"))
    bad("string32-truncated-length", "a string32 length cut after 2 of its 4 bytes", [STRING32], one("string32"),
        foobar, hexs("0000", "0600"))
    bad("yson32-past-end", "a yson32 of length 9 with 4 bytes left", [YSON32], YSON_TABLE,
        [[0, {"c": m(foo=b("bar"))}]], hexs("0000", "09000000", b"{foo"))
    optional_row = [[0, {"c": i(42)}]]
    optional = fmt(table(opt("c", "int64")))
    bad("variant8-tag-2", "variant8<nothing;int64> with tag 2", [VARIANT], optional, optional_row,
        hexs("0000", "02", I42))
    bad("variant8-tag-ff", "variant8<nothing;int64> with tag 0xFF", [VARIANT], optional, optional_row,
        hexs("0000", "ff"))
    bad("row-index-tag-2", "$row_index (variant8<nothing;int64>) with tag 2", [ROW_INDEX, VARIANT],
        fmt(table(opt("$row_index", "int64"))), [[0, {"$row_index": i(1)}]], hexs("0000", "02", le(1, 8)))
    bad("table-index-1-of-1", "table index 1 with one table (variant16 over the table schemas)", [INPUT, VARIANT],
        one("int64"), int_row, hexs("0100", I42))
    bad("table-index-ffff", "table index 0xFFFF with two tables", [INPUT, VARIANT],
        fmt(table(node("int64", "c")), table(node("int64", "c"))), int_row, hexs("ffff", I42))
    sparse_row = [[0, {"id": i(1), "s": i(42)}]]
    bad("sparse-no-end-tag", "$sparse_columns with a value and no 0xFFFF end tag", [SPARSE, REPEATED],
        SPARSE_TABLE, sparse_row, hexs("0000", le(1, 8), "0000", I42))
    bad("sparse-end-tag-cut", "$sparse_columns ending in one byte of its 0xFFFF end tag", [REPEATED],
        SPARSE_TABLE, sparse_row, hexs("0000", le(1, 8), "ff"))
    bad("sparse-tag-out-of-range", "$sparse_columns tag 5 with two sparse columns", [SPARSE, REPEATED],
        SPARSE_TABLE, sparse_row, hexs("0000", le(1, 8), "0500", I42, "ffff"))
    bad("sparse-tag-fffe", "$sparse_columns tag 0xFFFE, one short of the end tag", [REPEATED],
        SPARSE_TABLE, sparse_row, hexs("0000", le(1, 8), "feff", I42, "ffff"))
    bad("sparse-value-cut", "a sparse int64 cut short, then the end", [SPARSE, INT64], SPARSE_TABLE, sparse_row,
        hexs("0000", le(1, 8), "0000", I42[:5]))
    other_row = [[0, {"a": i(1), "x": i(2)}]]
    for name, title, body in [
        ("other-columns-list", "$other_columns holding a YSON list [1]", b"[1]"),
        ("other-columns-entity", "$other_columns holding a YSON entity #", b"#"),
        ("other-columns-scalar", "$other_columns holding a YSON string", b"abc"),
        ("other-columns-empty", "$other_columns of zero bytes (no YSON value)", b""),
        ("other-columns-unterminated", "$other_columns holding an unterminated map {x=", b"{x="),
        ("other-columns-two-values", "$other_columns holding two YSON values", b"{x=2} {y=3}"),
        ("other-columns-clash", "$other_columns naming the dense column a", b"{a=2}"),
    ]:
        bad(name, title, [OTHER, OTHER_MAP], OTHER_TABLE, other_row, hexs("0000", le(1, 8), s32(body)))
    yson_row = [[0, {"c": m(a=i(1))}]]
    for name, title, body in [
        ("yson32-unterminated", "a yson32 column holding {a=", b"{a="),
        ("yson32-empty", "a yson32 column of zero bytes", b""),
        ("yson32-two-values", "a yson32 column holding two YSON values", b"1 2"),
        ("yson32-cut-varint", "a yson32 column holding a binary int64 whose varint is cut", b"\x02\x80"),
    ]:
        bad(name, title, [YSON32], YSON_TABLE, yson_row, hexs("0000", s32(body)))
    return e
