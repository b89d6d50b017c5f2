"""Union cardinality in the strict decoder (footer.UNIONS) and the set_union step (mutations/fields.py)."""

from __future__ import annotations

import io
import random

import pyarrow.parquet as pq
import pytest

from parquet_conformance.generators.parquet.bases import base_bytes
from parquet_conformance.generators.parquet.footer import SCHEMA, UNIONS, read_footer
from parquet_conformance.generators.parquet.mutations import Context, MutationError, parse
from parquet_conformance.generators.parquet.mutations.extension import Extend, Payload
from parquet_conformance.generators.parquet.mutations.fields import SetUnion, UnionMember
from parquet_conformance.generators.parquet.strict import check_file, parse_file

CTX = Context(random.Random(0))


def union_findings(data: bytes) -> list[str]:
    return [p.message for p in check_file(data)[1] if p.rule == "union"]


def test_every_union_of_parquet_thrift_is_known() -> None:
    assert UNIONS <= set(SCHEMA)
    assert UNIONS == {"LogicalType", "TimeUnit", "ColumnOrder", "ColumnCryptoMetaData", "EncryptionAlgorithm",
                      "BloomFilterAlgorithm", "BloomFilterHash", "BloomFilterCompression"}


@pytest.mark.parametrize(("members", "finding"), [
    ((UnionMember(20, "00"),), None),  # a member of a later parquet.thrift: valid, passed over
    ((UnionMember(1), UnionMember(12, "00")), "LogicalType has 2 fields set (STRING, JSON)"),
    ((UnionMember(1), UnionMember(20, "00")), "LogicalType has 2 fields set (STRING, field 20)"),
    ((), "LogicalType has no field set"),
])
def test_cardinality(members: tuple[UnionMember, ...], finding: str | None) -> None:
    data = SetUnion("SchemaElement", "logicalType", members, which=6).apply(base_bytes("flat"), CTX)
    assert union_findings(data) == ([] if finding is None else [f"{finding}; a Thrift union holds exactly one"])
    read_footer(data)  # a Thrift reader decodes every one of them


def test_an_extension_in_a_union_is_a_second_field() -> None:
    data = Extend(struct="ColumnOrder", which=0, payload=Payload.random(8)).apply(base_bytes("flat"), CTX)
    assert union_findings(data) == ["ColumnOrder has 2 fields set (TYPE_ORDER, field 32767); a Thrift union holds "
                                    "exactly one"]


def test_set_union_keeps_a_member_as_written_and_adds_a_missing_union() -> None:
    flat = base_bytes("flat")
    same = SetUnion("SchemaElement", "logicalType", (UnionMember(8),), which=9).apply(flat, CTX)
    assert same == flat  # ts: TIMESTAMP kept byte for byte
    added = SetUnion("SchemaElement", "logicalType", (UnionMember(8, "121c4c000000"),), which=2).apply(flat, CTX)
    i64 = parse_file(added).root.children("schema")[2]
    assert [f.id for f in i64.child("logicalType").node.fields] == [8]
    offset = parse_file(flat).footer_offset
    assert added[:offset] == flat[:offset] and len(added) > len(flat)  # the data pages untouched: the footer grew


def test_set_union_outside_the_footer_moves_the_data() -> None:
    data = base_bytes("page-index")
    out = SetUnion("BloomFilterHeader", "hash", (UnionMember(1), UnionMember(2, "00")), which="all").apply(data, CTX)
    assert len(out) > len(data) and union_findings(out)
    assert pq.read_table(io.BytesIO(out)).equals(pq.read_table(io.BytesIO(data)))
    assert not [p for p in check_file(out)[1] if p.rule not in ("union",)]  # every offset fixed


def test_set_union_round_trips_and_checks_its_parameters() -> None:
    step = SetUnion("FileMetaData", "column_orders", (UnionMember(1), UnionMember(4, "00")), index=2)
    assert parse(step.to_json()) == step
    with pytest.raises(MutationError, match="not a union"):
        SetUnion("SchemaElement", "name", ())
    with pytest.raises(MutationError, match="index"):
        SetUnion("FileMetaData", "column_orders", ())
