"""Hostile strings in what a worker reports (names, versions, messages) through every report format: the
JUnit XML stays well-formed, the Markdown tables keep their shape, the HTML runs no script."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
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
            assert len(re.findall(r"(?<!\\)\|", line)) in (6, 11, 4, 5), line  # the table's column count, intact
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
