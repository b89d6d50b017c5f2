"""The evolution family (corpus/parquet/catalog/evolution.py, issue 28): files as their writers wrote them, citations
with their force and commit, the ALP encoder against its normative decode, and the reference reader's rule 7."""

from __future__ import annotations

import os
import random
import re
import struct
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_conformance.corpus.model import Citation, Kind
from parquet_conformance.corpus.parquet import TRACK
from parquet_conformance.corpus.parquet.catalog import all_cases
from parquet_conformance.corpus.parquet.catalog import evolution as family
from parquet_conformance.generators.parquet import alp, thrift
from parquet_conformance.generators.parquet.bases import base_bytes, written_bytes
from parquet_conformance.generators.parquet.edits import field_list
from parquet_conformance.generators.parquet.footer import read_footer
from parquet_conformance.generators.parquet.layout import chunk_pages
from parquet_conformance.generators.parquet.mutations import Context
from parquet_conformance.generators.parquet.mutations.encoding import EncodeAlp
from parquet_conformance.generators.parquet.mutations.fields import AddTypedField
from parquet_conformance.generators.parquet.reference import without_unsupported_annotations
from parquet_conformance.generators.parquet.strict import check_file, strict_objections

EVOLUTION = {c.id: c for c in all_cases() if c.id.startswith("evolution/")}
# The cases whose file is a writer's own, byte for byte: the base strips the addition and the case puts it back.
AS_WRITTEN = ("evolution/variant/duckdb-shredded", "evolution/geometry/pyarrow", "evolution/geography/pyarrow",
              "evolution/nan-count/duckdb")


def build(case_id: str) -> bytes:
    return TRACK.build(EVOLUTION[case_id], 0)[0]


@pytest.mark.parametrize("case_id", AS_WRITTEN)
def test_a_case_as_written_is_the_writers_file_byte_for_byte(case_id: str) -> None:
    case = EVOLUTION[case_id]
    assert build(case_id) == written_bytes(case.base) != base_bytes(case.base)


def test_the_family_covers_the_additions_and_the_collisions() -> None:
    """At least 15 additions or collisions of issue 28, each a case in the default corpus."""
    additions = {re.sub(r"/(pr-\d+|[^/]*)$", "", i.removeprefix("evolution/")) if i.count("/") > 2
                 else i.removeprefix("evolution/") for i in EVOLUTION}
    assert len(EVOLUTION) >= 20 and len(additions) >= 15, sorted(additions)
    assert all(not c.large for c in EVOLUTION.values())


def test_every_citation_of_ours_has_a_force_and_a_commit() -> None:
    """The family's own citations (upstream files and PRs) say how strong they are and where the text was read."""
    imported = (family.COMPAT_OLD, family.ENUM_DEFS, family.LOST, family.FORWARD, family.GOLDEN, family.ORDER,
                family.SKIPS_NEW, family.UNDEFINED_ENUM, family.UNSUPPORTED)
    ours = [v for v in (*vars(family).values(), *family.SHREDDED.values())
            if isinstance(v, Citation) and not any(v is c for c in imported)]
    used = {c.quote for case in EVOLUTION.values() for c in case.citations}
    assert len(ours) > 15 and {c.quote for c in ours} <= used
    for c in ours:  # where the text was read; its force is checked against the repository (test_commit_facts)
        assert re.search(r"\((PR #\d+|[0-9a-f]{8})\)", c.source), c.source


def test_kinds_are_the_strict_decoders_word() -> None:
    for case_id, case in EVOLUTION.items():
        _, problems = check_file(build(case_id))
        assert (Kind.NONCONFORMING if strict_objections(problems) else Kind.GOLDEN) == case.kind, case_id


FLOATS = st.floats(width=64) | st.integers(0, 2**64 - 1).map(lambda b: struct.unpack("<d", b.to_bytes(8, "little"))[0])
DECIMALS = st.integers(-10**9, 10**9).map(lambda n: n / 100)


@settings(max_examples=300, deadline=None)
@given(st.lists(FLOATS | DECIMALS, max_size=300), st.integers(3, 9), st.booleans())
def test_alp_decodes_every_value_bit_for_bit(values: list[float], log_size: int, double: bool) -> None:
    """Whatever the values (NaN payloads, infinities, -0.0, subnormals, decimals), the normative decode of our
    encoding gives each value's exact bits, in binary64 and in binary32."""
    with np.errstate(over="ignore"):  # doubles beyond binary32 become infinities
        array = np.array(values, np.float64 if double else np.float32)
    assert alp.decode(alp.encode(array, double, log_size), double) == [v.tobytes() for v in array]


def test_alp_pages_decode_to_the_plain_values_they_replace() -> None:
    before = base_bytes("flat")
    after = EncodeAlp(column="f64").apply(before, Context(random.Random(0)))
    assert not strict_objections(check_file(after)[1])
    old, new = read_footer(before)[0], read_footer(after)[0]
    old_md, new_md = ([r for r in f.structs() if r.name == "ColumnMetaData"][2] for f in (old, new))
    assert old_md.value("encodings") == [3, 0] and new_md.value("encodings") == [3, alp.ALP]
    (old_page,), (new_page,) = chunk_pages(old, old_md), chunk_pages(new, new_md)
    def values(buf: bytes, start: int, end: int) -> bytes:
        header = thrift.decode_struct(buf, start)
        return buf[header.end + 4 + int.from_bytes(buf[header.end:header.end + 4], "little"):end]  # after the levels
    plain = values(before, old_page.start, old_page.end)
    decoded = alp.decode(values(after, new_page.start, new_page.end), True)
    assert b"".join(decoded) == plain


def test_a_field_given_as_hex_goes_in_id_order_spelled_as_a_writer_spells_it() -> None:
    data = base_bytes("flat")
    step = AddTypedField("FileMetaData", "i32", field_id=6 - 1 + 5, hex=thrift.encode_value(thrift.I32, 14).hex())
    after = step.apply(data, Context(random.Random(0)))
    footer, _ = read_footer(after)
    ids = [f.id for f in footer.metadata.fields]
    assert ids == sorted(ids) and 10 in ids and footer.root.node.get(10).value == 14
    assert all(f.header is not None and (f.header[0] >> 4) for f in field_list(after, footer.root))  # short headers


@pytest.mark.parametrize(("case_id", "dropped"), [("evolution/file/group", 1), ("evolution/uuid-on-int32", 1),
                                                   ("evolution/timestamp-on-flba12/nanos", 1),
                                                   ("evolution/variant/duckdb-shredded", 0),
                                                   ("evolution/geometry/pyarrow", 0)])
def test_the_reference_ignores_only_the_annotations_it_does_not_recognize(case_id: str, dropped: int) -> None:
    def annotated(buf: bytes) -> int:
        return sum(1 for r in read_footer(buf)[0].root.children("schema") if r.get("logicalType") is not None)
    data = build(case_id)
    assert annotated(data) - annotated(without_unsupported_annotations(data)) == dropped


SOURCE = re.compile(r"(apache/parquet-format|apache/parquet-testing) (?:PR #\d+ )?(\S+) \(([0-9a-f]{8})\)")
GITS = {"apache/parquet-format": "PARQUET_FORMAT_GIT", "apache/parquet-testing": "PARQUET_TESTING_GIT"}


@pytest.mark.skipif(not os.environ.get("PARQUET_FORMAT_GIT"), reason="PARQUET_FORMAT_GIT is not set")
def test_every_quote_of_the_family_is_verbatim_at_its_commit() -> None:
    """Where the upstream repositories are reachable (git directories named by PARQUET_FORMAT_GIT and
    PARQUET_TESTING_GIT), each quote's fragments are in the file at the commit its source names; a commit the copy
    lacks is passed over."""
    from tests.test_expectation_audit import missing_fragments

    checked = 0
    for c in [v for v in (*vars(family).values(), *family.SHREDDED.values()) if isinstance(v, Citation)]:
        found = SOURCE.fullmatch(c.source)
        git = os.environ.get(GITS[found.group(1)]) if found else None
        if found is None or git is None:
            continue
        path = {"parquet.thrift": "src/main/thrift/parquet.thrift"}.get(found.group(2), found.group(2))
        shown = subprocess.run(["git", "--git-dir", git, "show", f"{found.group(3)}:{path}"], capture_output=True,
                               text=True)
        if shown.returncode:  # a commit newer than the stored copy (parquet-testing 56653c43, 570ec73d)
            continue
        text = shown.stdout
        assert not missing_fragments(c.quote, text, thrift=path.endswith(".thrift")), c.source
        checked += 1
    assert checked >= 20
