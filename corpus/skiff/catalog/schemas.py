"""Formats that break a rule of seed 004 (the table rules, or the schema description), each from a valid base
through `replace_format`: a codec must refuse them. Where the bytes still matter, the stream is one the
generic codec decodes under the broken schema, so that only the rule is at fault."""

from __future__ import annotations

from typing import Any

from parquet_conformance.corpus.model import Citation
from parquet_conformance.corpus.skiff.catalog.common import (
    CONFIG,
    DENSE,
    DESCRIPTION,
    FIND_NODE,
    KEY_SWITCH,
    NAMED,
    NOTES,
    NOTHING,
    OTHER,
    OTHER_COLUMNS,
    REFERENCE,
    ROLE,
    ROOT_TUPLE,
    ROW_INDEX,
    SPARSE,
    SPARSE_TYPES,
    SPECIAL,
    UP_INCREMENTAL_WITH_ERROR,
    UP_MATCH,
    VARIANT,
    Entries,
    fmt,
    hexs,
    i,
    le,
    node,
    opt,
    requiring,
    rule,
    s32,
    sparse,
    table,
    upstream,
)
from parquet_conformance.generators.skiff.mutations import Mutation, ReplaceFormat, ReplaceStream

I42 = le(42, 8)
BASE_FORMAT = fmt(table(node("int64", "a")))
BASE_ROWS = [[0, {"a": i(42)}]]
# That "" is no name is ours, the seed does not say: the rule requires the reject, the seed's sentence gives context
EMPTY_NAME = rule("skiff", "A column named with the empty string has no name: no column can be found by it, so the "
                  "seed's rule that the root's children must have names refuses it.").requiring(ROLE)
DUPLICATE = upstream(UP_MATCH, "CreateTableDescription", "THROW_ERROR_EXCEPTION(\"Name %Qv is found multiple times\"")


def entries() -> Entries:
    e = Entries("schema")

    def bad(name: str, title: str, cites: list[Citation], format: dict[str, Any], stream: str | None = None,
            ops: tuple[str, ...] = ("decode",), notes: str = "", expect: str = "reject") -> None:
        for op in ops:
            steps: list[Mutation] = [ReplaceFormat(format)]
            if stream is not None and op == "decode":
                steps.append(ReplaceStream(stream))
            e.add(name, op, f"{op}: {title}", requiring(cites) if expect == "reject" else cites, format=BASE_FORMAT,
                  rows=BASE_ROWS, kind="nonconforming", expect=expect, mutations=steps, notes=notes)

    both = ("decode", "encode")
    bad("root-variant8", "a table schema whose root is variant8<nothing;int64>, not a tuple", [ROOT_TUPLE],
        fmt(node("variant8", None, node("nothing"), node("int64", "a"))), hexs("0000", "01", I42))
    bad("root-int64", "a table schema that is a bare int64 named a", [ROOT_TUPLE], fmt(node("int64", "a")),
        hexs("0000", I42), both)
    bad("unnamed-column", "a column without a name", [NAMED], fmt(table(node("int64"))), hexs("0000", I42), both)
    bad("empty-name", "a column named \"\"", [EMPTY_NAME, NAMED], fmt(table(node("int64", ""))), hexs("0000", I42),
        notes="The seed: the root's children must have names; that an empty string is none (no column can be found "
              "by it) is this suite's reading, the seed does not say: docs/spec-notes.md#skiff")
    bad("second-unnamed", "the second of two columns without a name", [NAMED],
        fmt(table(node("int64", "a"), node("int64"))), hexs("0000", I42, I42))
    bad("other-columns-first", "$other_columns before a dense column", [OTHER],
        fmt(table(OTHER_COLUMNS, node("int64", "a"))), hexs("0000", s32(b"{}"), I42), both)
    bad("other-columns-string32", "$other_columns of type string32", [OTHER],
        fmt(table(node("int64", "a"), node("string32", "$other_columns"))), hexs("0000", I42, s32(b"{}")))
    bad("sparse-repeated-variant8", "$sparse_columns of type repeated_variant8", [SPARSE],
        fmt(table(node("int64", "a"), node("repeated_variant8", "$sparse_columns", node("int64", "s")))),
        hexs("0000", I42, "ff"))
    bad("sparse-before-dense", "$sparse_columns before a dense column and $other_columns", [SPARSE],
        fmt(table(sparse(node("int64", "s")), node("int64", "a"), OTHER_COLUMNS)),
        hexs("0000", "ffff", I42, s32(b"{}")), both)
    bad("sparse-unnamed", "a sparse column without a name", [SPARSE],
        fmt(table(node("int64", "a"), sparse(node("int64")))), hexs("0000", I42, "ffff"))
    bad("sparse-key-switch", "$key_switch as a sparse column", [SPARSE, KEY_SWITCH, SPECIAL],
        fmt(table(node("int64", "a"), sparse(node("boolean", "$key_switch")))), hexs("0000", I42, "ffff"),
        expect="either", notes="The seed gives $ names their meaning among the root's children and asks of sparse "
        "nodes only a simple type and a name: a sparse boolean named $key_switch is a column to one reading, a "
        f"misplaced $key_switch to the other. The stream has no sparse value, so both read the base row: {NOTES}")
    bad("sparse-tuple", "a sparse column of type tuple<int64>", [SPARSE_TYPES],
        fmt(table(node("int64", "a"), sparse(node("tuple", "s", node("int64"))))), hexs("0000", I42, "ffff"))
    bad("key-switch-int64", "$key_switch of type int64", [KEY_SWITCH],
        fmt(table(node("int64", "$key_switch"), node("int64", "a"))), hexs("0000", le(0, 8), I42))
    bad("row-index-int64", "$row_index of type int64, not variant8<nothing;int64>", [ROW_INDEX],
        fmt(table(node("int64", "$row_index"), node("int64", "a"))), hexs("0000", le(7, 8), I42))
    bad("range-index-uint64", "$range_index of type variant8<nothing;uint64>", [ROW_INDEX],
        fmt(table(opt("$range_index", "uint64"), node("int64", "a"))), hexs("0000", "00", I42))
    bad("row-index-three-children", "$row_index of type variant8<nothing;int64;nothing> (upstream's "
        "IncrementalWithError form)", [ROW_INDEX, UP_INCREMENTAL_WITH_ERROR],
        fmt(table(node("variant8", "$row_index", node("nothing"), node("int64"), node("nothing")),
                  node("int64", "a"))), hexs("0000", "01", le(7, 8), I42), both,
        notes=f"upstream accepts this form where the seed does not: {NOTES}")
    bad("dense-tuple", "a dense column of type tuple<int64>", [DENSE],
        fmt(table(node("tuple", "a", node("int64")))), hexs("0000", I42), both)
    bad("dense-optional-tuple", "a dense column of type variant8<nothing;tuple<int64>>", [DENSE],
        fmt(table(node("variant8", "a", node("nothing"), node("tuple", None, node("int64"))))),
        hexs("0000", "01", I42))
    bad("dense-variant8-reversed", "a dense column of type variant8<int64;nothing>", [DENSE],
        fmt(table(node("variant8", "a", node("int64"), node("nothing")))), hexs("0000", "00", I42))
    bad("dense-nothing", "a dense column of type nothing", [NOTHING, DENSE],
        fmt(table(node("nothing", "n"), node("int64", "a"))), hexs("0000", I42))
    bad("dense-repeated-variant8", "a dense column of type repeated_variant8<int64> (a list)", [DENSE],
        fmt(table(node("repeated_variant8", "a", node("int64")))), hexs("0000", "00", I42, "ff"))
    bad("duplicate-name", "two dense columns named a", [NAMED, FIND_NODE.requiring(ROLE), DUPLICATE],
        fmt(table(node("int64", "a"), node("int64", "a"))), hexs("0000", I42, I42), both)
    bad("dense-and-sparse-name", "a dense and a sparse column both named a",
        [SPARSE, FIND_NODE.requiring(ROLE), DUPLICATE],
        fmt(table(node("int64", "a"), sparse(node("int64", "a")))), hexs("0000", I42, "ffff"))
    bad("unknown-reference", "a table schema \"$nope\" that skiff_schema_registry lacks", [REFERENCE],
        fmt("$nope", registry={"table1": table(node("int64", "a"))}), hexs("0000", I42), both)
    bad("recursive-reference", "a registry entry that refers to itself (its column r is then a "
        "variant8<nothing;tuple>)", [REFERENCE, DENSE.requiring(ROLE)],
        fmt("$t", registry={"t": table(node("int64", "a"), node("variant8", "r", node("nothing"), "$t"))}),
        hexs("0000", I42, "00"))
    bad("reference-without-dollar", "a table schema given as the string \"table1\" (no $)", [REFERENCE],
        fmt("table1", registry={"table1": table(node("int64", "a"))}), hexs("0000", I42))
    bad("variant8-no-children", "a column of type variant8 with no children",
        [VARIANT, DENSE.requiring(ROLE), DESCRIPTION.requiring(ROLE)],
        fmt(table(node("variant8", "v"), node("int64", "a"))), hexs("0000", I42), both)
    bad("tuple-without-children", "a root tuple whose description has no `children`", [DESCRIPTION],
        fmt({"wire_type": "tuple"}), hexs("0000"))
    bad("unknown-wire-type", "a column of wire type float (not in the seed)", [DESCRIPTION, DENSE.requiring(ROLE)],
        fmt(table(node("float", "a"))), hexs("0000", "00002842"))
    bad("no-table-skiff-schemas", "format attributes without table_skiff_schemas", [CONFIG],
        {"skiff_schema_registry": {"table1": table(node("int64", "a"))}}, hexs("0000", I42))
    bad("registry-not-map", "skiff_schema_registry given as a list", [CONFIG],
        {"table_skiff_schemas": ["$table1"], "skiff_schema_registry": [table(node("int64", "a"))]}, hexs("0000", I42))
    return e
