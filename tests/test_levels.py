"""Levels (docs/spec-notes.md#levels, issues 30 and 36): every expectation of the default corpus carries the force of
what it rests on, the strongest force among the sentences that require it, `policy` where none does (never a default
`must`); a sentence's force matches what it says and where it stands; the level weighs only reading versus refusing,
in the gate and in the scores, and every report shows the levels apart; spec-notes' tables are the catalogs'."""

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


# The modal words of a requirement and of a recommendation, in the languages of the texts we cite.
MUST_WORDS = re.compile(r"\b(?:must|MUST|required|REQUIRED|shall)\b|\*\*must\*\*|必须|должн|только")
SHOULD_WORDS = re.compile(r"\b(?:should|SHOULD|recommends?|RECOMMENDED)\b|应该|следует")
# Sentences with no modal word that still require at `must` (docs/spec-notes.md#levels): what the spec states as a
# consequence (the metadata is lost; a legacy reader cannot parse the file, gets an exception) and the two allowances
# (the definition of a Parquet file; seed 004 as the Skiff format's spec).
NORMATIVE = {
    ("apache/parquet-format README.md (24102ed5)", "Error recovery"): "the file, the column chunk is lost",
    ("shared/seeds/002 (storage-format design checklist; no upstream copy)", "常见格式 / Parquet / 错误恢复 (error "
     "recovery)"): "the seed's error recovery: the file is damaged",
    ("apache/parquet-format Encryption.md (24102ed5)", "5.4 Encrypted footer mode"): "legacy readers cannot parse it",
    ("apache/parquet-format Encryption.md (24102ed5)", "5.5 Plaintext footer mode"):
        "a legacy reader gets an exception",
    ("apache/parquet-format README.md (c47e2a66)", "File format"): "the definition of a Parquet file (allowance 1)",
    ("YTsaurus documentation «Формат Skiff»", None): "seed 004, the Skiff format's spec (allowance 2)",
}


def normative(c: Citation) -> bool:
    return (c.source, c.section) in NORMATIVE or (c.source, None) in NORMATIVE


def test_a_requiring_sentence_has_the_force_of_its_words() -> None:
    """A sentence requires at `must` only if it says must (or is a normative statement named above), at `should`
    only if it says should; this suite's rules and upstream code require at `policy` (proposals: test_commit_facts)."""
    bad = []
    for case_id, _, cites, _ in default_corpus():
        for c in cites:
            if not c.requires:
                continue
            if c.level == Level.MUST and not (MUST_WORDS.search(c.quote) or normative(c)):
                bad.append(f"{case_id}: must without a MUST: {c.source}, {c.section}: {c.quote[:50]!r}")
            if c.level == Level.SHOULD and not SHOULD_WORDS.search(c.quote):
                bad.append(f"{case_id}: should without a SHOULD: {c.source}: {c.quote[:50]!r}")
            if c.source.startswith("parquet-conformance") and c.level != Level.POLICY:
                bad.append(f"{case_id}: our own rule at {c.level}: {c.quote[:50]!r}")
    assert not bad, "\n".join(sorted(set(bad))[:10])


def test_no_expectation_defaults_to_must() -> None:
    """An expectation no sentence requires is `policy` (this suite's reading), whatever it is."""
    expect = {"legacy": Expectation.READ, "aware:x": Expectation.REJECT, "aware:y": Expectation.EITHER}
    assert expectation_levels(expect, [Citation("s", "a", "q", level=Level.MUST)]) == dict.fromkeys(expect,
                                                                                                   Level.POLICY)
    with pytest.raises(ValueError, match="states no force"):
        Citation("s", "a", "a definition", requires=("legacy",))


def test_spec_notes_tables_are_the_catalogs() -> None:
    """docs/spec-notes.md's tables of levels are drawn from the catalogs (`python -m tests.spec_tables --write`)."""
    from tests.spec_tables import SPEC_NOTES, TABLES, current

    text = SPEC_NOTES.read_text()
    stale = [name for name, make in TABLES.items() if current(text, name) != make()]
    assert not stale, f"run python -m tests.spec_tables --write: {stale} differ from the catalogs"


@pytest.mark.parametrize(("case_id", "level"), [
    ("unions/logical-type/unknown-only", Level.SHOULD),  # seed 002: old versions should ignore new fields
    ("unions/column-order/unknown-only", Level.SHOULD),  # parquet.thrift: the stats "should be ignored"
    ("ext/size/16MiB/spec-header", Level.POLICY),  # the spec bounds no size; Hyper documents a 16 MiB footer limit
    ("storage/enum/schema-element-repetition-type/value-minus-1", Level.POLICY),  # an inference, no sentence
    ("storage/recovery/cut-in-footer-25pct", Level.MUST),  # README: the file metadata is lost
    ("corrupt/tiny/empty", Level.MUST),
    ("ext/size/1MiB/spec-header", Level.MUST),  # the definition of a Parquet file: field 32767 is reserved
    ("storage/unknown-field/schema-element/id-1000/i32", Level.SHOULD),  # seed 002
    ("storage/unknown-field/schema-element/id-1000/uuid", Level.POLICY),  # `either`: only the floor
    # issue 36's audit: the evolution family at the force of its sentences
    ("evolution/variant/duckdb-shredded", Level.SHOULD),
    ("evolution/geometry/pyarrow", Level.SHOULD),
    ("evolution/file/group", Level.SHOULD),
    ("evolution/uuid-on-int32", Level.POLICY),  # PR #606 is open
    ("evolution/timestamp-on-flba12/millis", Level.POLICY),
    ("evolution/timestamp-on-flba12/nanos", Level.POLICY),  # `either` by the range rule
    ("evolution/variant/shredded-case-001", Level.SHOULD),  # seed 002; VariantShredding requires the data only
    ("evolution/variant/shredded-case-042", Level.POLICY),  # `either`: engines "should fail", or read typed_value
    ("evolution/alp/listed-in-encoding-stats", Level.POLICY),
    ("evolution/file-metadata-field-10/pr-581", Level.SHOULD),
    ("evolution/vector/pr-592", Level.POLICY),
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
                                                 "aware:y": Level.POLICY}
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

    from parquet_conformance.app.run import summary_table
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
    """Issue 39 item 1: the level and the sentence it rests on (its quote and source, in the words Level.phrase gives
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
    assert Level.MUST.phrase == "the spec requires" and Level.SHOULD.phrase == "the spec recommends"
    summary = md_text((tmp_path / "summary.md").read_text())
    assert f"| c/b | legacy | {must} |" in summary and f"| c/p | legacy | {policy} |" in summary
    suite = ET.parse(tmp_path / "junit" / "a.xml").getroot()
    failure = suite.find("testcase[@name='c/b [legacy]']/failure")
    message = failure.get("message", "") if failure is not None else ""
    assert message.startswith("fail:rejected-valid (must: the spec requires): expected read (legacy)")
    assert message.endswith("; “Parquet readers start file parsing by reading and checking the magic string” "
                            "(apache/parquet-format Encryption.md (24102ed5), File Format)")
    below = suite.find("testcase[@name='c/p [legacy]']/skipped")
    assert below is not None and below.get("message", "").endswith(
        "; why: Readers document limits; that they must read it is this suite's reading.")
    assert "level policy: this suite's reading" not in below.get("message", "")  # its level is said before
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


def test_an_upstream_readme_says_the_force_of_what_it_quotes() -> None:
    """A README never tells a vendor "must" for a should (issue 36, item 5): its lead and its quotes say the level in
    words, each quoted sentence with its force, and this suite's rules as ours."""
    from parquet_conformance.app.upstream_readme import LEAD, requirement
    from parquet_conformance.conformance.harness.model import Verdict
    from parquet_conformance.corpus.model import own_rule

    should = Citation("apache/parquet-format src/main/thrift/parquet.thrift (24102ed5)", "union ColumnOrder",
                      "min and max stats for this column should be ignored.", level=Level.SHOULD).requiring("legacy")
    text = "\n".join(requirement(Verdict.REJECTED_VALID, False, "legacy", Expectation.READ, Level.SHOULD, [should],
                                 ""))
    assert "The spec recommends this" in text and "its force: should" in text and "must" not in text
    assert "recommends" in LEAD[Level.SHOULD] and "requires that" not in LEAD[Level.SHOULD]
    ours = own_rule("enums", "An enum value that parquet.thrift's latest release does not define").requiring("legacy")
    text = "\n".join(requirement(Verdict.ACCEPTED_INVALID, False, "legacy", Expectation.REJECT, Level.POLICY, [ours],
                                 ""))
    assert "This is this suite's reading" in text and "spec-notes.md#enums" in text
