"""Levels (docs/spec-notes.md#levels, issue 30): every expectation of the default corpus carries the force of what it
rests on, derived from the sentences that require it, stated by the case where an inference or a policy is weaker,
and `must` where nothing is claimed beyond the spec's promise; the level weighs only reading versus refusing, in the
gate and in the scores, and every report shows the levels apart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_conformance.conformance.harness.gate import Entry, Status, decide, expected_failures_text
from parquet_conformance.conformance.harness.model import Cell, OutcomeKind, Verdict
from parquet_conformance.corpus import regression_store
from parquet_conformance.corpus.model import LEVELS, Citation, Expectation, Kind, Level, expectation_levels
from parquet_conformance.corpus.parquet.catalog import all_cases as parquet_cases
from parquet_conformance.corpus.skiff.catalog import all_cases as skiff_cases
from parquet_conformance.reports.model import scores
from tests.helpers import md_text

REPO = Path(__file__).resolve().parent.parent


def default_corpus() -> list[tuple[str, dict[str, Expectation], list[Citation], dict[str, Level]]]:
    """(id, expectations, citations, levels) of every case `generate` writes by default: both catalogs and the
    regression store, each as its manifest entry will carry it."""
    out = [(c.id, dict(c.expect), list(c.citations), {r: c.level(r) for r in c.expect})
           for c in (*parquet_cases(), *skiff_cases())]
    out += [(e.id, dict(e.expect), list(e.citations), dict(e.levels))
            for e, _ in regression_store.case_entries(regression_store.load())]
    return out


def test_every_expectation_of_the_default_corpus_has_a_level() -> None:
    missing = [f"{i} {r}" for i, expect, _, levels in default_corpus() for r in expect if r not in levels]
    assert not missing, missing[:5]
    assert {lv for *_, levels in default_corpus() for lv in levels.values()} == set(LEVELS)


def test_every_citation_of_the_default_corpus_states_its_force() -> None:
    unstated = sorted({f"{c.source}: {c.quote[:50]}" for *_, cites, _ in default_corpus() for c in cites
                       if c.level is None})
    assert not unstated, unstated[:5]


def test_a_stated_level_says_why_in_its_notes() -> None:
    """A level the sentences do not give (an inference, a policy) is the suite's own word: its notes point to the
    spec-notes paragraph that argues it."""
    for case in (*parquet_cases(), *skiff_cases()):
        if case.levels:
            assert re.search(r"docs/spec-notes\.md#[\w-]+", case.notes), case.id


@pytest.mark.parametrize(("case_id", "level"), [
    ("unions/logical-type/unknown-only", Level.SHOULD),  # "readers should ignore ... the logical type annotation"
    ("ext/size/16MiB/spec-header", Level.POLICY),  # the spec bounds no size; Hyper documents a 16 MiB footer limit
    ("storage/enum/schema-element-repetition-type/value-minus-1", Level.POLICY),  # an inference, no sentence
    ("storage/recovery/cut-in-footer-25pct", Level.MUST),  # README: the file metadata is lost
    ("corrupt/tiny/empty", Level.MUST),
    ("ext/size/1MiB/spec-header", Level.MUST),
    ("storage/unknown-field/schema-element/id-1000/uuid", Level.MUST),  # `either`: only the floor, at every level
])
def test_the_audits_levels(case_id: str, level: Level) -> None:
    [case] = [c for c in parquet_cases() if c.id == case_id]
    assert case.level("legacy") == level


def test_the_empty_file_rests_on_the_lost_metadata_not_on_a_magic() -> None:
    """Issue 30 item 5: `corrupt/tiny/empty` quoted Encryption.md's PARE sentence as what requires its reject."""
    [case] = [c for c in parquet_cases() if c.id == "corrupt/tiny/empty"]
    [required] = [c for c in case.citations if "legacy" in c.requires]
    assert required.section == "Error recovery" and "PARE" not in required.quote


def test_a_level_is_derived_from_the_strongest_requiring_sentence() -> None:
    must, should = (Citation("s", "a", "q", level=Level.MUST), Citation("s", "b", "r", level=Level.SHOULD))
    expect = {"legacy": Expectation.REJECT, "aware:x": Expectation.READ, "aware:y": Expectation.EITHER}
    cites = [must.requiring("legacy"), should.requiring("legacy", "aware:x")]
    assert expectation_levels(expect, cites) == {"legacy": Level.MUST, "aware:x": Level.SHOULD,
                                                 "aware:y": Level.MUST}
    assert expectation_levels(expect, cites, {"legacy": Level.POLICY})["legacy"] == Level.POLICY


def cell(verdict: Verdict, level: Level, case: str = "c/x") -> Cell:
    return Cell(case=case, track="parquet", group="c", kind=Kind.GOLDEN, adapter="a", implementation="a",
                version="1", role="legacy", expected=Expectation.READ, outcome=OutcomeKind.REJECTED, verdict=verdict,
                error_class=None, error_message=None, rows=None, data_hash=None, duration_s=0.0, metadata=None,
                attempts=1, previous_case=None, disagreement=None, level=level)


FAILURES = [v for v in Verdict if v.is_failure]


@settings(max_examples=300)
@given(st.sampled_from(FAILURES), st.sampled_from(LEVELS), st.sampled_from(LEVELS), st.booleans())
def test_the_level_weighs_only_reading_versus_refusing(verdict: Verdict, level: Level, enforced: Level,
                                                       listed: bool) -> None:
    """The gate at any level: an unlisted failure fails it unless it is a read-versus-refuse failure of a weaker
    level than enforced (then it is reported below the level); a listed one is judged by its line at every level;
    a crash, a hang, an unhandled error or other data fails at every level."""
    entry = Entry("c/x", None, None, 1) if listed else None
    status = decide(cell(verdict, level), entry, enforced)
    if listed:
        assert status == Status.KNOWN
    elif verdict in (Verdict.CRASH, Verdict.HANG, Verdict.UNHANDLED, Verdict.WRONG_DATA) or \
            LEVELS.index(level) <= LEVELS.index(enforced):
        assert status == Status.UNEXPECTED_FAILURE
    else:
        assert status == Status.BELOW_LEVEL and status.ok


def test_the_list_a_gate_writes_holds_what_it_enforces() -> None:
    cells = [cell(Verdict.REJECTED_VALID, Level.MUST, "c/a"), cell(Verdict.REJECTED_VALID, Level.SHOULD, "c/b"),
             cell(Verdict.CRASH, Level.POLICY, "c/c"), cell(Verdict.ACCEPTED_INVALID, Level.POLICY, "c/d")]
    listed = [line.split()[0] for line in expected_failures_text("a", "r", cells).splitlines()
              if line and not line.startswith("#")]
    assert listed == ["c/a", "c/c"]
    assert [line.split()[0] for line in expected_failures_text("a", "r", cells, Level.POLICY).splitlines()
            if line and not line.startswith("#")] == ["c/a", "c/b", "c/c", "c/d"]


def test_scores_count_each_level_apart() -> None:
    cells = [cell(Verdict.PASS, Level.MUST, "c/a"), cell(Verdict.REJECTED_VALID, Level.MUST, "c/b"),
             cell(Verdict.PASS, Level.SHOULD, "c/c"), cell(Verdict.CRASH, Level.POLICY, "c/d"),
             cell(Verdict.FLAKY, Level.POLICY, "c/e"), cell(Verdict.SKIP, Level.SHOULD, "c/f")]
    [score] = scores(cells)
    assert score.level_text() == "must 1/2 · should 1/1 · policy 0/1"  # flaky and skipped cells: in no level
    assert (score.passed, score.fail) == (2, 2)


def test_every_format_shows_the_levels_apart(tmp_path: Path) -> None:
    """The scores by level in results.json, summary.md, JUnit, report.html and the run's table; JUnit writes a
    read-versus-refuse failure below `must` as check does by default (skipped, below-level), a must one as a
    failure; and each says how many verdicts were decided in the run and how many reused, from which run."""
    import json
    import xml.etree.ElementTree as ET
    from dataclasses import replace

    from parquet_conformance.conformance.app.run import summary_table
    from parquet_conformance.conformance.harness.model import RunInfo
    from parquet_conformance.reports import write_reports
    from parquet_conformance.reports.model import RESULTS_FORMAT, RESULTS_VERSION, CaseSummary, ResultsDocument

    cells = [cell(Verdict.PASS, Level.MUST, "c/a"), cell(Verdict.REJECTED_VALID, Level.MUST, "c/b"),
             cell(Verdict.REJECTED_VALID, Level.SHOULD, "c/c"), cell(Verdict.PASS, Level.POLICY, "c/d")]
    cells[0] = replace(cells[0], reused_from="r0 (started 2026-11-01T09:00:00+00:00)")
    run = RunInfo("r1", "0", 0, "none", "", None, ["parquet"], "0" * 64)
    cases = [CaseSummary(id=c.case, track="parquet", title=c.case, group="c", kind=Kind.GOLDEN,
                         expect={"legacy": Expectation.READ}, citations=[], notes="") for c in cells]
    write_reports(ResultsDocument(RESULTS_FORMAT, RESULTS_VERSION, run, scores(cells), cases, cells), tmp_path)
    text = "must 1/2 · should 0/1 · policy 1/1"
    [adapter] = json.loads((tmp_path / "results.json").read_text())["adapters"]
    assert adapter["levels"] == {"must": {"pass": 1, "fail": 1}, "should": {"pass": 0, "fail": 1},
                                 "policy": {"pass": 1, "fail": 0}}
    summary = (tmp_path / "summary.md").read_text()
    assert f"| {text} |" in summary
    assert md_text(summary.splitlines()[2]) == ("3 verdicts decided in this run, 1 reused from run r0 (started "
                                       "2026-11-01T09:00:00+00:00) (case bytes and implementation unchanged; "
                                       "--fresh decides every one again).")
    suite = ET.parse(tmp_path / "junit" / "a.xml").getroot()
    props = {p.get("name"): p.get("value") for p in suite.find("properties") or []}
    assert (props["score.must"], props["score.should"], props["score.policy"]) == ("1/2", "0/1", "1/1")
    assert (props["verdicts.decided"], props["verdicts.reused.from.r0 (started 2026-11-01T09:00:00+00:00)"]) == \
        ("3", "1")
    assert suite.find("testcase[@name='c/b [legacy]']/failure") is not None
    below = suite.find("testcase[@name='c/c [legacy]']/skipped")
    assert below is not None and below.get("type") == "below-level" and "should" in below.get("message", "")
    html = (tmp_path / "report.html").read_text()
    levels = re.search(r'<td class="levels">(.*?)</td>', html)
    assert levels is not None and re.sub(r"<[^>]+>", "", levels.group(1)) == "1/2 · 0/1 · 1/1"  # must · should · policy
    assert '<span class="lv" title="should: 0 of 1 judged cells pass">' in html and "1 reused from run r0" in html
    assert text in summary_table(cells)


def test_every_place_a_verdict_is_shown_names_its_level_and_sentence(tmp_path: Path) -> None:
    """Issue 39 item 1: the level and the sentence it rests on (its quote and source, in the words Level.words gives
    every report) beside every failing verdict: report.html's panel (the cell's detail, the case's part), summary.md,
    the JUnit message."""
    import json
    import xml.etree.ElementTree as ET

    from parquet_conformance.conformance.harness.model import RunInfo
    from parquet_conformance.reports import write_reports
    from parquet_conformance.reports.model import RESULTS_FORMAT, RESULTS_VERSION, CaseSummary, ResultsDocument

    required = Citation("apache/parquet-format Encryption.md (24102ed5)", "File Format",
                        "Parquet readers start file parsing by reading and checking the magic string",
                        requires=("legacy",), level=Level.MUST)
    context = Citation("apache/parquet-format README.md (24102ed5)", "File format", "4-byte magic number",
                       level=Level.MUST)
    cells = [cell(Verdict.REJECTED_VALID, Level.MUST, "c/b"), cell(Verdict.REJECTED_VALID, Level.POLICY, "c/p")]
    cases = [CaseSummary(id="c/b", track="parquet", title="b", group="c", kind=Kind.GOLDEN,
                         expect={"legacy": Expectation.READ}, citations=[context, required], notes=""),
             CaseSummary(id="c/p", track="parquet", title="p", group="c", kind=Kind.GOLDEN,
                         expect={"legacy": Expectation.READ}, citations=[context],
                         notes="Readers document limits; that they must read it is this suite's reading.")]
    run = RunInfo("r1", "0", 0, "none", "", None, ["parquet"], "0" * 64)
    write_reports(ResultsDocument(RESULTS_FORMAT, RESULTS_VERSION, run, scores(cells), cases, cells), tmp_path)
    must = ("must: the spec requires “Parquet readers start file parsing by reading and checking the magic string” "
            "(apache/parquet-format Encryption.md (24102ed5), File Format)")
    policy = "policy: this suite's reading: Readers document limits; that they must read it is this suite's reading."
    assert Level.MUST.words == "the spec requires" and Level.SHOULD.words == "the spec recommends"
    summary = md_text((tmp_path / "summary.md").read_text())
    assert f"| c/b | legacy | {must} |" in summary and f"| c/p | legacy | {policy} |" in summary
    suite = ET.parse(tmp_path / "junit" / "a.xml").getroot()
    failure = suite.find("testcase[@name='c/b [legacy]']/failure")
    assert failure is not None and must in failure.get("message", "")
    below = suite.find("testcase[@name='c/p [legacy]']/skipped")
    assert below is not None and policy in below.get("message", "")
    html = (tmp_path / "report.html").read_text()
    data = json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html,
                                re.S).group(1))  # type: ignore[union-attr]
    detail = data["texts"][data["details"][0][0]]
    assert "level must (the spec requires): the gate fails on it by default" in detail
    [[role, _, _, level, said]] = data["cases"][0][3]
    assert (role, level, data["levelWords"][level]) == ("legacy", "must", "the spec requires")
    assert data["cites"][said][:3] == [required.source, required.section, required.quote]
    assert data["cases"][1][3][0][4] == -1  # a policy that rests on the case's notes: no sentence quoted
    policy_detail = data["texts"][data["details"][1][0]]
    assert "level policy (this suite's reading): the gate does not fail on it by default" in policy_detail
