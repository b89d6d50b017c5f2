"""What the core knows of a track it learns from the track's object (corpus/track.py): its metadata forms, its own
report formats, its written variants, its words in an archive's README; the core names none of them itself
(tests/test_architecture.py fails on a track's word outside its folders)."""

from __future__ import annotations

import pytest

from parquet_conformance.conformance.harness.judge import classify
from parquet_conformance.conformance.harness.model import Read, RunInfo, Verdict
from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus.build import build_case
from parquet_conformance.corpus.model import ANY_FORM, Case, Expectation
from parquet_conformance.reports.model import RESULTS_FORMAT, RESULTS_VERSION, AdapterScore, ResultsDocument
from tests.toy import TOY, ToyTrack


def test_a_case_names_only_metadata_forms_its_track_declares() -> None:
    parquet = tracks.get("parquet")
    assert tracks.metadata_forms(parquet) == ("thrift", "flatbuffers") and tracks.metadata_forms(ToyTrack()) == ()
    odd = Case(id="toy/odd", title="a form no toy file has", kind="golden", base="two", mutations=(),
               expect={"reader": "read"}, citations=(TOY,), decode={"reader": "protobuf"})
    with pytest.raises(ValueError, match="metadata form 'protobuf' is none of track toy's"):
        build_case(ToyTrack(), odd, 0)
    either = Case(id="toy/any", title="any form", kind="golden", base="two", mutations=(),
                  expect={"reader": "read"}, citations=(TOY,), decode={"reader": ANY_FORM})
    assert build_case(ToyTrack(), either, 0)[0].decode == {"reader": ANY_FORM}


@pytest.mark.parametrize(("decode", "used", "verdict"), [
    ("flatbuffers", "thrift", Verdict.WRONG_METADATA), ("flatbuffers", "flatbuffers", Verdict.PASS),
    (ANY_FORM, "thrift", Verdict.PASS), (None, "thrift", Verdict.PASS), ("thrift", None, Verdict.PASS)])
def test_the_judge_compares_the_form_used_with_the_form_asked(decode: str | None, used: str | None,
                                                               verdict: Verdict) -> None:
    read = Read(data_hash="h", rows=1, metadata=used)
    assert classify(Expectation.READ, read, {"h"}, decode) == verdict


def test_a_tracks_own_report_format_is_given_its_cells_alone() -> None:
    assert tracks.report_formats() == {"parquet-site": "parquet"}
    scores = [AdapterScore(adapter=a, implementation=a, version="1", track=t, passed=1, fail=0, flaky=0, skip=0,
                           harness_errors=0, total=1, pass_rate=1.0, failures={})
              for a, t in (("p", "parquet"), ("s", "skiff"))]
    doc = ResultsDocument(RESULTS_FORMAT, RESULTS_VERSION, RunInfo("r1", "0", 0, "none", "", None, [], ""), scores,
                          [], [])
    assert [a.adapter for a in doc.of_track("parquet").adapters] == ["p"]
    assert [a.adapter for a in doc.of_track("skiff").adapters] == ["s"]


def test_the_writers_variants_and_the_archive_words_are_the_tracks() -> None:
    parquet = tracks.get("parquet")
    assert isinstance(parquet, tracks.Writable) and next(iter(parquet.written_variants())) == "as-written"
    assert isinstance(parquet, tracks.Described) and "golden" in parquet.kinds
    assert not isinstance(tracks.get("skiff"), tracks.Described)
