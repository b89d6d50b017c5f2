"""Hostile strings in what a worker reports (names, versions, messages) through every report format: the
JUnit XML stays well-formed, the Markdown tables keep their shape, the HTML runs no script, charts draw text as
text, the site's file names stay short and in their folder; a history leaves out a run it cannot read."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

from parquet_conformance.conformance.harness import protocol
from parquet_conformance.conformance.harness.model import Cell, OutcomeKind, RunInfo, Verdict
from parquet_conformance.corpus.model import Expectation, Kind
from parquet_conformance.reports import write_reports
from parquet_conformance.reports.model import RESULTS_FORMAT, RESULTS_VERSION, CaseSummary, ResultsDocument, scores

HOSTILE = ("nul \x00 bell \x07 esc \x1b[31m lone \ud800 | pipe\nnew line <script>alert(1)</script> ]]> "
           "& `tick` <b>bold</b>")


def cell(case: str, verdict: Verdict, outcome: OutcomeKind, message: str | None) -> Cell:
    return Cell(case=case, track="parquet", group=case.split("/")[0], kind=Kind.GOLDEN, adapter="evil",
                implementation=protocol.clean("Evil | <impl>\n"), version=protocol.clean("1|2<3>"), role="legacy",
                expected=Expectation.READ, outcome=outcome, verdict=verdict, error_class=protocol.clean("E|<x>"),
                error_message=message, rows=None, data_hash=None, duration_s=0.1, metadata=None, attempts=1,
                previous_case=None, disagreement=None)


def document(message: str) -> ResultsDocument:
    cells = [cell(f"ext/case-{i}", v, o, message) for i, (v, o) in enumerate([
        (Verdict.REJECTED_VALID, OutcomeKind.REJECTED), (Verdict.CRASH, OutcomeKind.CRASH),
        (Verdict.HARNESS_ERROR, OutcomeKind.HARNESS_ERROR), (Verdict.FLAKY, OutcomeKind.REJECTED),
        (Verdict.SKIP, OutcomeKind.UNAVAILABLE), (Verdict.PASS, OutcomeKind.READ)])]
    run = RunInfo("r", "0", 0, "none", "/c", None, ["parquet"], "0" * 64)
    cases = [CaseSummary(id=c.case, track="parquet", title=HOSTILE, group=c.group, kind=Kind.GOLDEN,
                         expect={"legacy": Expectation.READ}, citations=[], notes=HOSTILE) for c in cells]
    return ResultsDocument(RESULTS_FORMAT, RESULTS_VERSION, run, scores(cells), cases, cells)


def test_raw_hostile_strings_are_written_safely(tmp_path: Path) -> None:
    """Even a message that was never sanitised (another tool's cells) cannot break a report."""
    doc = document(HOSTILE)
    write_reports(doc, tmp_path)
    suite = ET.parse(tmp_path / "junit" / "evil.xml").getroot()  # well-formed, or this raises
    assert suite.get("failures") == "2" and suite.get("errors") == "1" and suite.get("skipped") == "2"  # flaky apart
    failure = suite.find("testcase/failure")
    assert failure is not None and "<script>" in (failure.text or "")  # escaped by the XML writer, kept as text
    summary = (tmp_path / "summary.md").read_text()
    for line in summary.splitlines():
        if line.startswith("| ") and "evil" in line:
            assert len(re.findall(r"(?<!\\)\|", line)) in (6, 13, 4, 5), line  # the table's column count, intact
    assert "<script>" not in summary and "\x00" not in summary
    html = (tmp_path / "report.html").read_text()
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html
    json.loads((tmp_path / "results.json").read_text())


def test_sanitised_strings_stay_identifiable(tmp_path: Path) -> None:
    clean = protocol.clean(HOSTILE)
    assert "\x00" not in clean and "\ud800" not in clean and "sha256 of the raw text" in clean
    clean.encode("utf-8")
    write_reports(document(clean), tmp_path)
    ET.parse(tmp_path / "junit" / "evil.xml")


def test_any_name_renders_in_charts_and_site_file_names(tmp_path: Path) -> None:
    """A version with `$` (math text to matplotlib), a case id of 300 characters (a file name too long for any file
    system) and an adapter name that is no name at all: the history chart and the site render them, and every file
    the site writes stays in its folder."""
    from parquet_conformance.conformance.harness.results import RunRecord, Store
    from parquet_conformance.reports.document import stored_document
    from parquet_conformance.reports.history import chart_svg, load_history, write_history
    from parquet_conformance.reports.site import write_site

    long_case = "ext/" + "x" * 300
    store = Store(tmp_path / "out")
    for run, started in (("r1", "2026-01-01T00:00:00+00:00"), ("r2", "2026-01-02T00:00:00+00:00")):
        cells = [replace(cell(long_case, Verdict.PASS, OutcomeKind.READ, None), version="1.0$\\alpha$x",
                         adapter="../../evil"),
                 replace(cell("base/flat", Verdict.CRASH, OutcomeKind.CRASH, protocol.clean(HOSTILE)), version="$$")]
        store.write(run, cells, RunRecord(RunInfo(run, "0", 0, "none", "/c", None, ["parquet"], "0" * 64, started),
                                          [c.case for c in cells], [c.case for c in cells]))
    history = load_history(store.results)
    assert "1.0$\\alpha$x" in chart_svg(history)  # drawn as given, not as a formula
    write_history(history, tmp_path / "history")
    site = tmp_path / "site"
    written = write_site(stored_document(store.results, "r2"), site, history)
    assert all(site.resolve() in p.resolve().parents for p in written), written
    assert all(len(part) <= 255 for p in written for part in p.relative_to(site).parts)


def test_a_malformed_run_record_is_left_out_of_a_history_with_a_warning(tmp_path: Path) -> None:
    from parquet_conformance.conformance.harness.results import RUN_RECORD, RunRecord, Store
    from parquet_conformance.reports.history import load_history

    store = Store(tmp_path)
    for run in ("r1", "r2", "r3"):
        info = RunInfo(run, "0", 0, "none", "/c", None, ["parquet"], "0" * 64, f"2026-01-0{run[1]}T00:00:00+00:00")
        store.write(run, [cell("base/flat", Verdict.PASS, OutcomeKind.READ, None)], RunRecord(info, [], []))
    record = store.results / "run=r2" / RUN_RECORD
    record.write_text(record.read_text().replace('"2026-01-02T00:00:00+00:00"', "20260102"))
    history = load_history(store.results)
    assert [p.run for p in history.runs] == ["r1", "r3"]
    assert len(history.skipped) == 1 and "info.started: 20260102 is not a string" in history.skipped[0]
