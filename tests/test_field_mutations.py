"""The field mutations (generators/parquet/mutations/fields.py) and the row-group and tail cuts: what they
change, and that they change nothing else."""

from __future__ import annotations

import io
import random

import pyarrow.parquet as pq
import pytest

from parquet_conformance.generators.canonical import canonical_table, data_hash
from parquet_conformance.generators.parquet import thrift
from parquet_conformance.generators.parquet.bases import base_bytes, base_hash
from parquet_conformance.generators.parquet.footer import FooterError, read_footer
from parquet_conformance.generators.parquet.mutations import Context, MutationError
from parquet_conformance.generators.parquet.mutations.fields import (
    NON_UTF8_TEXT,
    TYPED_VALUES,
    UTF8_TEXT,
    AddTypedField,
    RemoveFields,
    SetField,
    SwapMinMax,
)
from parquet_conformance.generators.parquet.mutations.tail import TruncateAtRowGroup, TruncateTail
from parquet_conformance.generators.parquet.strict import parse_file


def run(step: object, base: str = "flat") -> bytes:
    return step.apply(base_bytes(base), Context(random.Random(0)))  # type: ignore[attr-defined]


def test_the_utf8_pair_differs_in_one_byte() -> None:
    assert len(UTF8_TEXT) == len(NON_UTF8_TEXT)
    assert sum(a != b for a, b in zip(UTF8_TEXT, NON_UTF8_TEXT, strict=True)) == 1
    UTF8_TEXT.decode("utf-8")
    with pytest.raises(UnicodeDecodeError):
        NON_UTF8_TEXT.decode("utf-8")


@pytest.mark.parametrize("type_", list(TYPED_VALUES))
def test_every_typed_value_is_one_well_formed_field(type_: str) -> None:
    ftype, value = TYPED_VALUES[type_]
    buf = thrift.field_header(ftype, 1000, long_form=True) + value + b"\x00"
    (f,) = thrift.decode_struct(buf, strict_varints=True).fields
    assert (f.id, f.type, f.end) == (1000, ftype, len(buf) - 1)


def test_removing_a_field_rewrites_the_next_header_in_long_form() -> None:
    """created_by (6) sits between key_value_metadata (5) and column_orders (7), which follows it by delta 1."""
    out = run(RemoveFields(struct="FileMetaData", fields=("created_by",)))
    root = parse_file(out).root
    assert root.get("created_by") is None
    orders = root.get("column_orders")
    assert orders is not None and orders.header_form == "long"
    assert data_hash(canonical_table(pq.read_table(io.BytesIO(out)))) == base_hash("flat")


def test_remove_fields_with_all_skips_the_structs_without_them_and_refuses_when_none_has() -> None:
    out = run(RemoveFields(struct="SchemaElement", which="all", fields=("converted_type",)))
    assert all(r.get("converted_type") is None for r in parse_file(out).root.children("schema"))
    with pytest.raises(ValueError, match="no SchemaElement has field_id"):
        run(RemoveFields(struct="SchemaElement", which="all", fields=("field_id",)))
    with pytest.raises(MutationError, match="has no field 'nope'"):
        RemoveFields(struct="FileMetaData", fields=("nope",))


def test_set_field_keeps_the_wire_type_and_edits_one_list_element() -> None:
    out = run(SetField(struct="ColumnMetaData", field="encodings", value=11, index=0))
    footer, _ = read_footer(out)
    md = footer.row_groups()[0].children("columns")[0].need("meta_data")
    before = parse_file(base_bytes("flat")).row_groups()[0].children("columns")[0].need("meta_data")
    assert md.value("encodings") == [11, *before.value("encodings")[1:]]
    with pytest.raises(FooterError, match="11 is not a Encoding"):
        parse_file(out)
    with pytest.raises(MutationError, match="exactly one of value and xor"):
        SetField(struct="PageHeader", field="crc")


def test_a_page_crc_flip_in_the_second_page_moves_nothing() -> None:
    data = base_bytes("checksummed")
    out = run(SetField(struct="PageHeader", field="crc", xor=1, page=1), "checksummed")
    assert len(out) == len(data) and sum(a != b for a, b in zip(out, data, strict=True)) == 1
    with pytest.raises(FooterError, match=r"pages\[1\]: crc"):
        parse_file(out)


def test_a_field_added_to_a_later_page_grows_the_chunk_and_moves_nothing_recorded() -> None:
    data = base_bytes("checksummed")
    out = run(AddTypedField(struct="PageHeader", type="i64", field_id=1000, page=1), "checksummed")
    before, after = parse_file(data), parse_file(out)  # strict: pages tile the chunk, CRCs and data_page_offset hold
    old, new = (f.row_groups()[-1].children("columns")[-1].need("meta_data") for f in (before, after))
    grown = len(TYPED_VALUES["i64"][1]) + 3
    assert new.value("total_compressed_size") == old.value("total_compressed_size") + grown
    assert new.value("data_page_offset") == old.value("data_page_offset")  # the data page is page 1 itself
    assert data_hash(canonical_table(pq.read_table(io.BytesIO(out)))) == base_hash("checksummed")


def test_swap_min_max_swaps_both_pairs() -> None:
    out = run(SwapMinMax(which=0))
    stats = next(r for r in read_footer(out)[0].structs() if r.name == "Statistics")
    old = next(r for r in parse_file(base_bytes("flat")).structs() if r.name == "Statistics")
    assert (stats.value("min_value"), stats.value("max_value")) == (old.value("max_value"), old.value("min_value"))
    assert (stats.value("min"), stats.value("max")) == (old.value("max"), old.value("min"))


def test_cuts_at_row_groups_and_in_the_tail() -> None:
    data = base_bytes("multi-row-group")
    groups = parse_file(data).row_groups()
    second = min(cc.need("meta_data").value("data_page_offset") for cc in groups[1].children("columns"))
    assert run(TruncateAtRowGroup(row_group=1, where="start"), "multi-row-group") == data[:second]
    assert run(TruncateAtRowGroup(row_group=0, where="end"), "multi-row-group") == data[:second]
    assert run(TruncateTail(keep=4), "multi-row-group") == data[:-4]
    with pytest.raises(MutationError, match="has 3 row groups"):
        run(TruncateAtRowGroup(row_group=3, where="end"), "multi-row-group")


@pytest.mark.parametrize("struct", ["PageHeader", "DataPageHeader", "OffsetIndex", "ColumnIndex"])
def test_the_fuzzers_field_edits_reach_every_struct_outside_the_footer(struct: str) -> None:
    """insert_field and delete_field go through the catalog's field rewriter and layout.move: an unknown field
    inserted into (then deleted from) a struct outside the footer moves the data after it with every offset, so
    pyarrow still reads exactly the base's data, and deleting it again gives the base's bytes back."""
    from parquet_conformance.generators.parquet.layout import all_structs
    from parquet_conformance.generators.parquet.mutations.structure import DeleteField, InsertField

    base = base_bytes("page-index")
    last = len([r for r in all_structs(read_footer(base)[0]) if r.name == struct][1].node.fields)
    grown = InsertField(struct=struct, id=1000, type=thrift.I32, hex="0e", which=1, position=last).apply(
        base, Context(random.Random(0)))
    assert len(grown) >= len(base) + 4  # a long-form header (type, zigzag id in 2 bytes), a 1-byte value, and any
    # offset varint in the footer that grew with the data it points past
    assert data_hash(canonical_table(pq.read_table(io.BytesIO(grown)))) == base_hash("page-index")
    parse_file(grown)  # the strict decoder: every offset and length still right
    assert DeleteField(struct=struct, which=1, field=last).apply(grown, Context(random.Random(0))) == base
