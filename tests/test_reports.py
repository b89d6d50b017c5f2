"""The reports people read, on a real run (tests/report_demo.py: real readers and fake workers that misbehave on
chosen files) and on small made-up data: bounded samples and data diffs, error clusters, version sub-columns and
engines, run diffs, the history chart and the site. The browser tests (tests/test_browser.py) click through the
same run."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from parquet_conformance.conformance.harness.model import Verdict
from parquet_conformance.conformance.harness.results import read_cells
from parquet_conformance.conformance.harness.sample import SAMPLE_CHARS, SAMPLE_ROWS, sample_of
from parquet_conformance.reports.clusters import clusters, normalise
from parquet_conformance.reports.datadiff import data_diff
from parquet_conformance.reports.diff import diff_runs
from parquet_conformance.reports.document import stored_document
from parquet_conformance.reports.history import chart_svg, load_history
from parquet_conformance.reports.html import columns, engine_key, shared_engines
from tests.helpers import CLI, cli_here, md_text


@pytest.fixture(scope="module")
def demo(demo_run: Path) -> Path:
    return demo_run


def table(n: int, text: str = "x") -> dict:
    return {"columns": ["id", "s"], "rows": [[{"int": str(i)}, text] for i in range(n)]}


def test_the_sample_is_bounded_and_keeps_digests_of_every_column() -> None:
    sample = json.loads(sample_of(table(1000)) or "")
    assert len(sample["rows"]) == SAMPLE_ROWS and sample["total"] == 1000 and len(sample["digests"]) == 2
    wide = json.loads(sample_of(table(50, "y" * 5000)) or "")
    assert wide["rows"][0][1] == {"digest": wide["rows"][0][1]["digest"], "chars": 5002}  # a long value: its digest
    assert len(sample_of(table(50, "z" * 290)) or "") < SAMPLE_CHARS + 1000
    skiff = json.loads(sample_of({"rows": [[0, {"a": {"int": "1"}}]]}) or "")
    assert skiff["columns"] == ["row"] and skiff["total"] == 1
    assert sample_of("not a table") is None


def cell_with(sample_data: dict) -> object:
    from parquet_conformance.conformance.harness.model import Cell, OutcomeKind
    from parquet_conformance.corpus.model import Expectation, Kind

    return Cell(case="c", track="parquet", group="g", kind=Kind.GOLDEN, adapter="a", implementation="a", version="1",
                role="legacy", expected=Expectation.READ, outcome=OutcomeKind.READ, verdict=Verdict.WRONG_DATA,
                error_class=None, error_message=None, rows=len(sample_data["rows"]), data_hash="h", duration_s=0.0,
                metadata=None, attempts=2, previous_case=None, disagreement=None, sample=sample_of(sample_data))


def test_a_data_diff_names_the_first_differing_rows_and_the_columns() -> None:
    got = table(100)
    got["rows"][3][1] = "other"
    got["rows"][60][0] = {"int": "-1"}
    diff = data_diff(cell_with(got), table(100))  # type: ignore[arg-type]
    assert diff is not None and diff.differing_columns == ["id", "s"]
    assert [(r.row, r.columns, r.expected, r.returned) for r in diff.rows] == [(3, ["s"], ['"x"'], ['"other"'])]
    beyond = table(100)
    beyond["rows"][60][0] = {"int": "-1"}
    far = data_diff(cell_with(beyond), table(100))  # type: ignore[arg-type]
    assert far is not None and far.rows == [] and far.differing_columns == ["id"]
    assert "difference lies after them" in far.note
    short = data_diff(cell_with(table(3)), table(4))  # type: ignore[arg-type]
    assert short is not None and (short.rows[0].row, short.rows[0].returned) == (3, ["(no row)", "(no row)"])
    blind = data_diff(cell_with(table(3)), None)  # type: ignore[arg-type]
    assert blind is not None and "not at hand" in blind.note and len(blind.rows) == 3
    assert data_diff(cell_with(table(5)), table(5)) is None  # the same data: nothing to show  # type: ignore[arg-type]


def test_messages_are_normalised_into_clusters() -> None:
    assert normalise("Corrupted thrift data at 1234") == normalise("Corrupted thrift data at 77") == \
        "Corrupted thrift data at N"
    assert normalise("cannot open /tmp/x/cases/a.parquet at 0x1f: float64") == "cannot open PATH at N: float64"
    assert normalise("digest 0123456789abcdef0123") == "digest H"


def test_the_demo_run_has_each_kind_of_cell(demo: Path) -> None:
    """Several versions, a flaky cell, a harness error and a wrong-data cell, each as the run judged it."""
    _, cells = read_cells(demo / "results", "r3")
    verdict = {(c.case, c.adapter): c.verdict for c in cells}
    assert verdict[("ext/file-metadata/flat/spec-header", "toy-1.0")] == Verdict.WRONG_DATA
    assert verdict[("corrupt/tiny/8-bytes", "toy-2.0")] == Verdict.HARNESS_ERROR
    assert verdict[("base/nested", "moody")] == Verdict.FLAKY
    assert {c.version for c in cells if c.adapter.startswith("toy-")} == {"1.0", "2.0"}
    assert all(c.sample is None for c in cells if c.verdict == Verdict.PASS)  # kept only where a diff is shown


def test_reports_show_data_diffs_and_clusters(demo: Path) -> None:
    doc = stored_document(demo / "results", "r3")
    wrong = next(c for c in doc.cells if c.adapter == "toy-1.0" and c.verdict == Verdict.WRONG_DATA)
    diff = doc.diff_of(wrong)
    assert diff is not None and diff.differing_columns == ["i32"] and diff.rows[0].row == 2
    assert diff.rows[0].returned == ['{"int":"-999"}']
    suite = ET.parse(demo / "junit" / "toy-1.0.xml").getroot()
    failure = suite.find(f"testcase[@name='{wrong.case} [legacy]']/failure")
    assert failure is not None
    assert 'row 2 i32: expected {"int":"-36"}, returned {"int":"-999"}' in failure.get("message", "")
    assert "columns that differ (over every row): i32" in (failure.text or "")
    summary = md_text((demo / "summary.md").read_text())
    assert "toy-1.0: 2 failing cells in 1 cluster" in summary
    assert "| returned other data in i32 | fail:wrong-data | 2 |" in summary
    assert 'row 2 i32: expected {"int":"-36"}, returned {"int":"-999"}' in summary  # quotes as quotes
    found = {(k.adapter, k.verdict): len(k.cases) for k in clusters(doc)}
    assert found == {("moody", Verdict.FLAKY): 1, ("toy-1.0", Verdict.WRONG_DATA): 2,
                     ("toy-2.0", Verdict.HARNESS_ERROR): 1, ("sparky", Verdict.REJECTED_VALID): 2}


def test_versions_are_sub_columns_and_shared_engines_are_named(demo: Path) -> None:
    doc = stored_document(demo / "results", "r3")
    families = {f.name: [c.adapter for c in f.columns] for f in columns(doc)}
    assert families["toy"] == ["toy-1.0", "toy-2.0"] and families["pyarrow"] == ["pyarrow"]
    assert shared_engines(columns(doc))["arrow c++"][1] == ["pyarrow", "toy"]
    assert engine_key("arrow-rs 51") == engine_key("arrow-rs (via DataFusion)") == "arrow-rs"
    html = (demo / "report.html").read_text()
    assert re.search(r'<th colspan="2" class="family" data-family="toy"', html)
    assert 'id="case:base/nested"' in html  # a cell's id (cell:CASE:ADAPTER) is given by the script at load
    data = page_data(html)
    assert data["adapters"][:3] == ["moody", "pyarrow", "reference"] and "moody" in data["labels"]


def test_report_diff_keeps_cells_of_one_run_apart(demo: Path) -> None:
    runs = {r: read_cells(demo / "results", r)[1] for r in ("r2", "r3")}
    diff = diff_runs(runs["r2"], runs["r3"])
    assert {(c.case, c.adapter, c.kind) for c in diff.changes} == {
        ("base/flat", "pyarrow", "fix"), ("ext/file-metadata/flat/spec-header", "toy-1.0", "regression"),
        ("ext/file-metadata/flat/zigzag-header", "toy-1.0", "regression"),
        ("ext/column-meta-data/flat/spec-header", "sparky", "change")}
    assert diff.only_before == [] and {c.adapter for c in diff.only_after} == {"moody"}
    import subprocess

    proc = subprocess.run([*CLI, "report", "--diff", "r2", "r3", "--results", str(demo / "results")],
                          capture_output=True, text=True, check=True)
    assert "4 changed cells between r2 and r3: 2 regression, 1 fix, 1 change" in proc.stdout
    assert re.search(r"^24 cells only in r3 .*moody", proc.stdout, re.M)


def test_history_of_three_runs_draws_a_deterministic_trend(demo: Path, tmp_path: Path) -> None:
    history = load_history(demo / "results")
    assert [p.run for p in history.runs] == ["r1", "r2", "r3"] and history.ordered_by == "start time"
    series = history.series()
    assert series["toy 1.0"] == [100.0, 100.0, 91.67] and series["moody 0.1"][1] is None
    svg = chart_svg(history)
    assert svg == chart_svg(history) and "<dc:date>" not in svg and "toy 1.0" in svg and svg.count("<path") > 6
    import subprocess

    proc = subprocess.run([*CLI, "report", "--history", str(demo / "results"), "--out", str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "since r2: 2 newly failing, 1 newly fixed" in proc.stdout
    md = md_text((tmp_path / "history.md").read_text())
    assert "| toy 1.0 | 100 | 100 | 91.67 |" in md and "**2 newly failing**:" in md
    assert (tmp_path / "history.svg").read_text() == svg


def test_rewrite_adds_the_skip_overhead_table_and_chart(demo: Path, tmp_path: Path) -> None:
    import shutil
    import subprocess

    from parquet_conformance.conformance.harness.model import Overhead

    out = tmp_path / "out"
    shutil.copytree(demo / "results", out / "results")
    rows = [Overhead("toy", "Toy", "1.0", "flat", size, seconds, "read", seconds / 0.001, 0.0001 * (size or 0) / 2**20,
                     size == 64 << 20, 1000 + (size or 0)) for size, seconds in ((None, 0.001), (0, 0.001),
                                                                                  (1 << 20, 0.002), (64 << 20, 0.9))]
    (out / "skip-overhead.json").write_text(json.dumps([r.to_json() for r in rows]))
    proc = subprocess.run([*CLI, "report", "--rewrite", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    html = (out / "report.html").read_text()
    section = html[html.index('<section id="skip-overhead">'):]
    assert "<svg" in section and '<td class="fail">900.00x!</td>' in section and "1.0 MiB" not in section
    md = md_text((out / "skip-overhead.md").read_text())
    assert "| toy | 1.0 | flat | 1.0 | 1.00x | 2.00x | 900.00x! | 64.0 MiB |" in md
    assert "Flagged: toy (flat, 64 MiB)" in md
    assert (out / "skip-overhead.svg").read_text().startswith("<?xml")
    for bad in ("{not json", '[{"adapter": "toy"}]', '{"a": 1}'):  # a row without its fields; not a list
        (out / "skip-overhead.json").write_text(bad)
        before = (out / "report.html").read_text()
        proc = cli_here("report", "--rewrite", str(out))  # in this process: a new one ran the rewrite above
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert "not a skip-overhead file" in proc.stderr and (out / "report.html").read_text() == before


def test_report_errors_are_one_line(tmp_path: Path) -> None:
    import subprocess

    for i, args in enumerate((["--history", str(tmp_path / "none")],
                              ["--site", str(tmp_path / "s"), "--results", str(tmp_path)],
                              ["--rewrite", str(tmp_path / "none")],
                              ["--upstream", "polars", str(tmp_path / "u"), "--results", str(tmp_path)])):
        proc = subprocess.run([*CLI, "report", *args], capture_output=True, text=True) if i == 0 else \
            cli_here("report", *args)  # the others in this process
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    proc = cli_here("report")
    assert proc.returncode == 2
    assert "one of the arguments --rewrite --diff --history --site --upstream is required" in proc.stderr


def test_the_site_has_a_page_per_implementation_and_case(demo: Path, tmp_path: Path) -> None:
    import subprocess

    site = tmp_path / "site"
    proc = subprocess.run([*CLI, "report", "--site", str(site), "--results", str(demo / "results")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    doc = stored_document(demo / "results", "r3")
    assert {p.stem for p in (site / "impl").glob("*.html")} == {a.adapter for a in doc.adapters}
    assert len(list((site / "case").rglob("*.html"))) == len(doc.cases)
    case = (site / "case" / "ext" / "file-metadata" / "flat" / "spec-header.html").read_text()
    assert "BinaryProtocolExtensions.md" in case and 'href="../../../../impl/toy-1.0.html"' in case
    assert "row 2 i32: expected {&#34;int&#34;:&#34;-36&#34;}" in case or 'row 2 i32: expected {&quot;int&quot;' in case
    impl = (site / "impl" / "toy-1.0.html").read_text()
    assert 'src="toy-1.0.svg"' in impl and "returned other data in i32" in impl
    for page in [site / "index.html", *site.rglob("*.html")]:  # self-contained: nothing fetched from elsewhere
        text = page.read_text()  # (a link to a cited source is followed, not fetched)
        assert not re.search(r'src="(https?:)?//|<link[^>]+href="(https?:)?//', text), page


def test_flaky_cells_are_counted_apart_in_every_format(demo: Path) -> None:
    """Issue 21 item 4: moody's flaky cell is neither a pass nor a failure in the scores, results.json, JUnit,
    summary.md and report.html."""
    doc = stored_document(demo / "results", "r3")
    moody = next(a for a in doc.adapters if a.adapter == "moody")
    assert (moody.flaky, moody.fail, "flaky" in moody.failures) == (1, 0, False)
    assert moody.pass_rate == 1.0 and moody.passed + moody.flaky + moody.skip == moody.total
    scores = {a["adapter"]: a for a in json.loads((demo / "results.json").read_text())["adapters"]}
    assert (scores["moody"]["flaky"], scores["moody"]["fail"]) == (1, 0)
    suite = ET.parse(demo / "junit" / "moody.xml").getroot()
    skipped = suite.find("testcase[@name='base/nested [legacy]']/skipped")
    assert skipped is not None and skipped.get("type") == "flaky"
    assert skipped.get("message", "").startswith("flaky: the run: rejected")
    assert (suite.get("failures"), suite.find("testcase[@name='base/nested [legacy]']/failure")) == ("0", None)
    summary = md_text((demo / "summary.md").read_text())
    assert "| pass | fail | flaky |" in summary and "**1 flaky cell**" in summary
    assert re.search(r"^\| base/nested \| moody \| legacy \| the run: rejected", summary, re.M)
    html = (demo / "report.html").read_text()
    assert "<th>flaky</th>" in html


def test_new_fixed_and_known_in_every_format(demo: Path) -> None:
    """Issue 25 item 3: r3 against r2 (found in the dataset by `report --rewrite`): toy 1.0's wrong data is new,
    sparky's crash became a refusal (changed), its other refusal is known, pyarrow's base/flat is fixed."""
    doc = stored_document(demo / "results", "r3")
    assert doc.comparison is not None and doc.comparison.what == "run r2"
    marks = {(m.case, m.adapter): (m.mark, m.before) for m in doc.comparison.marks}
    assert marks == {("ext/file-metadata/flat/spec-header", "toy-1.0"): ("new", "pass"),
                     ("ext/file-metadata/flat/zigzag-header", "toy-1.0"): ("new", "pass"),
                     ("ext/column-meta-data/flat/spec-header", "sparky"): ("changed", "fail:crash"),
                     ("ext/column-meta-data/flat/zigzag-header", "sparky"): ("known", "fail:rejected-valid"),
                     ("base/flat", "pyarrow"): ("fixed", "fail:rejected-valid")}
    summary = md_text((demo / "summary.md").read_text())
    assert summary.index("**Compared with run r2: 2 new failures**, 1 changed, 1 fixed, 1 known.") < summary.index(
        "### New and changed failures (3)") < summary.index("### Scores")
    assert re.search(r"^\| toy-1\.0 \| ext/file-metadata/flat/spec-header \| legacy \| must: the spec requires "
                     r"“[^|]*” \([^|]*\) \| fail:wrong-data \| new failure: "
                     r"it passed in run r2 \| expected read \(legacy\), got 24 rows of other data", summary, re.M)
    assert "**Fixed (1)**: pyarrow base/flat [legacy]." in summary
    html = (demo / "report.html").read_text()
    row = re.search(r'<tr class="case-row" id="case:ext/file-metadata/flat/spec-header".*?</tr>', html, re.S)
    toy = page_data(html)["adapters"].index("toy-1.0")
    assert row is not None and re.findall(r'<td class="cell([^"]*)"', row.group(0))[toy] == " fail-wrong-data mark-new"
    assert re.search(r'id="comparison">Compared with run r2:\s*<a href="#view=changes"[^>]*><b>2 new failures</b>',
                     html)
    failures = {}
    for name in ("toy-1.0", "sparky", "pyarrow"):
        suite = ET.parse(demo / "junit" / f"{name}.xml").getroot()
        props = {p.get("name"): p.get("value") for p in suite.findall("properties/property")}
        assert props["run"] == "r3" and props["compared.with"] == "run r2" and props["corpus.digest"] == \
            doc.run.corpus_digest and props["version"] == next(a.version for a in doc.adapters if a.adapter == name)
        for case in suite.iter("testcase"):
            failure = case.find("failure")
            if failure is not None:
                failures[(name, case.get("name"))] = failure.get("message", "")
    assert failures[("toy-1.0", "ext/file-metadata/flat/spec-header [legacy]")].startswith(
        'NEW: fail:wrong-data (must: the spec requires): expected read (legacy), got 24 rows of other data: columns '
        'i32 differ; row 2 i32')
    assert failures[("sparky", "ext/column-meta-data/flat/zigzag-header [legacy]")].startswith(
        "known: fail:rejected-valid (must: the spec requires): expected read (legacy), got rejected: "
        "py4j.protocol.Py4JJavaError: "
        "java.io.IOException: can not read class org.apache.parquet.format.FileMetaData")  # the root cause first
    assert failures[("sparky", "ext/column-meta-data/flat/spec-header [legacy]")].startswith("changed: ")
    assert all("\n" not in m and len(m) <= 500 for m in failures.values())  # one line each


def test_an_expected_failure_list_marks_listed_failures_known(demo: Path, tmp_path: Path) -> None:
    import shutil
    import subprocess

    out = tmp_path / "out"
    shutil.copytree(demo / "results", out / "results")
    listed = tmp_path / "sparky-failures.txt"
    listed.write_text("ext/column-meta-data/flat/zigzag-header legacy fail:rejected-valid\nbase/nested\n")
    proc = subprocess.run([*CLI, "report", "--rewrite", str(out), "--run", "r3", "--expected-failures",
                           f"sparky={listed}"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "compared with the expected-failure list sparky-failures.txt (sparky)" in proc.stdout
    doc = stored_document(out / "results", "r3")  # kept with the run: the site draws it too
    assert doc.comparison is not None and doc.comparison.kind == "expected-failures"
    marks = {(m.case, m.adapter): m.mark for m in doc.comparison.marks}
    assert marks[("ext/column-meta-data/flat/zigzag-header", "sparky")] == "known"
    assert marks[("ext/column-meta-data/flat/spec-header", "sparky")] == "new"  # not listed
    assert marks[("ext/file-metadata/flat/zigzag-header", "toy-1.0")] == "new"  # toy has no list
    assert ("base/nested", "sparky") in marks and marks[("base/nested", "sparky")] == "fixed"  # listed, passes
    suite = ET.parse(out / "junit" / "sparky.xml").getroot()
    known = suite.find("testcase[@name='ext/column-meta-data/flat/zigzag-header [legacy]']/skipped")
    message = known.get("message", "") if known is not None else ""
    assert known is not None and known.get("type") == "xfail" and message.startswith(
        "known failure, listed: fail:rejected-valid (must: the spec requires): expected read (legacy)")
    assert (suite.get("failures"), suite.get("skipped")) == ("1", "1")
    summary = md_text((out / "summary.md").read_text())
    assert "**Compared with the expected-failure list sparky-failures.txt (sparky): 3 new failures**" in summary
    bad = tmp_path / "typo.txt"
    bad.write_text("no/such/case\n")
    proc = cli_here("report", "--rewrite", str(out), "--expected-failures", str(bad))
    assert proc.returncode == 2 and "no/such/case is not a case of the corpus" in proc.stderr


def test_the_words_a_user_reads(demo: Path) -> None:
    """Issue 25 item 5: cell arithmetic per track, no pass rate rounded up to 100%, a legend for verdicts and roles
    on the page and in summary.md, the root cause of a chained error first, and no Python repr anywhere."""
    from parquet_conformance.reports.text import percent

    assert (percent(685 / 688), percent(1.0), percent(0.9996), percent(0.0001), percent(None)) == (
        "99.6%", "100.0%", "99.9%", "0.1%", "–")
    html = (demo / "report.html").read_text()
    assert ("parquet: 24 cases × 6 implementations = 144 cells</span>; <span class=\"count-line\">skiff: 3 cases × 1 "
            "implementation = 3 cells") in html
    assert 'id="legend"' in html and "<dt>legacy</dt><dd>a reader that knows no extension" in html
    assert "<dt>attempts</dt>" in html and "the same worker process read" in html
    detail = cell_detail(html, "ext/column-meta-data/flat/zigzag-header", "sparky")
    assert "root cause: java.io.IOException: can not read class" in detail
    summary = md_text((demo / "summary.md").read_text())
    assert "<details><summary>Legend</summary>" in summary and "| legacy | a reader that knows no extension" in summary
    texts = [html, summary, *(p.read_text() for p in (demo / "junit").glob("*.xml"))]
    for text in texts:
        assert not re.search(r"<(Verdict|Expectation|Kind|OutcomeKind|Mark)\.|\{'[a-z_]+': ", text)


def page_data(html: str) -> dict:
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    assert found is not None
    return json.loads(found.group(1))


def cell_detail(html: str, case: str, adapter: str) -> str:
    """A cell's detail as report.html's script shows it: from the page's data (reports/html.py page_data)."""
    data = page_data(html)
    rows = re.findall(r'<tr class="case-row" id="case:([^"]+)"', html)
    index = data["details"][rows.index(case)][data["adapters"].index(adapter)]
    return data["labels"][adapter] + "\n" + data["texts"][index]


def test_the_metadata_role_and_reject_cases_are_not_diffed_against_the_base(demo: Path) -> None:
    """A cell judged on the file's own footer (the metadata role's expect_hash) has no data diff against the base's
    data: that is not what it must give."""
    import dataclasses

    from parquet_conformance.corpus.dist import read_manifest
    from parquet_conformance.reports.document import diffs

    root, manifest = read_manifest(demo / "corpus")
    case = next(c for c in manifest.cases if "metadata" in c.expect_hash)
    _, cells = read_cells(demo / "results", "r3")
    wrong = next(c for c in cells if c.verdict == Verdict.WRONG_DATA)
    as_metadata = dataclasses.replace(wrong, case=case.id, role="metadata")
    as_legacy = dataclasses.replace(wrong, case=case.id)
    assert [d.role for d in diffs([as_metadata, as_legacy], manifest, root)] == ["legacy"]


def test_what_the_new_parts_carry_is_escaped_everywhere(tmp_path: Path) -> None:
    """Hostile text in what issue 25 added to the document (reproduction options, role words, a comparison's name,
    citations, notes with docs references) breaks no format: no markup runs, tables keep their shape."""
    from parquet_conformance.conformance.harness.model import Cell, OutcomeKind, RunInfo
    from parquet_conformance.corpus.model import Citation, Expectation, Kind
    from parquet_conformance.reports import write_reports
    from parquet_conformance.reports.model import (
        RESULTS_FORMAT,
        RESULTS_VERSION,
        CaseSummary,
        CellMark,
        Comparison,
        Mark,
        ResultsDocument,
        scores,
    )

    evil = "</script><script>alert(1)</script> | `x` & <u>"
    cells = [Cell(case=f"ext/c{i}", track="parquet", group="ext", kind=Kind.GOLDEN, adapter="evil",
                  implementation=evil, version="1", role="legacy", expected=Expectation.READ, outcome=o, verdict=v,
                  error_class=evil, error_message=f"{evil}\nCaused by: {evil}", rows=None, data_hash=None,
                  duration_s=0.0, metadata=None, attempts=2, previous_case=evil, disagreement=evil)
             for i, (v, o) in enumerate([(Verdict.REJECTED_VALID, OutcomeKind.REJECTED),
                                         (Verdict.FLAKY, OutcomeKind.REJECTED), (Verdict.PASS, OutcomeKind.READ)])]
    cases = [CaseSummary(id=c.case, track="parquet", title=evil, group="ext", kind=Kind.GOLDEN,
                         expect={"legacy": Expectation.READ},
                         citations=[Citation(f"apache/parquet-format {evil}.md", evil, evil)],
                         notes=f"see docs/spec-notes.md#baseline {evil}", file=f"cases/{c.case}.parquet",
                         expected_data="expected/flat.json") for c in cells]
    comparison = Comparison("expected-failures", evil, [CellMark("ext/c0", "evil", "legacy", Mark.NEW, evil),
                                                        CellMark("ext/c2", "evil", "legacy", Mark.FIXED, evil)])
    run = RunInfo("r", evil, 0, "none", "/nowhere/corpus", None, ["parquet"], "0" * 64)
    doc = ResultsDocument(RESULTS_FORMAT, RESULTS_VERSION, run, scores(cells), cases, cells, comparison=comparison,
                          roles={"legacy": evil}, reproduce={"evil": f"--adapter-cmd 'evil={evil}'"})
    write_reports(doc, tmp_path)
    html = (tmp_path / "report.html").read_text()
    assert "<script>alert(1)" not in html and html.count("<script") == 2 and "<u>" not in html
    data = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    assert data is not None and json.loads(data.group(1))["reproduce"]["evil"] == f"--adapter-cmd 'evil={evil}'"
    summary = (tmp_path / "summary.md").read_text()
    assert not re.search(r"(?<!\\)<(script|u)>", summary)  # `\<`: a `<` shown, no tag
    table: int | None = None
    for line in summary.splitlines():  # every row of a table has its header's columns
        pipes = len(re.findall(r"(?<!\\)\|", line)) if line.startswith("|") else None
        if pipes is None:
            table = None
        elif table is None:
            table = pipes
        else:
            assert pipes == table, line
    suite = ET.parse(tmp_path / "junit" / "evil.xml").getroot()
    failure = suite.find("testcase/failure")
    message = failure.get("message", "") if failure is not None else ""
    assert message.startswith("NEW: fail:rejected-valid (must: the spec requires): expected read") and "“" in message


def test_the_default_run_s_page_is_light() -> None:
    """report.html of a document shaped like the default run's (tests/wide_report.py: 1,048 cases, 21
    implementations, real-sized messages) stays under 4 MB: the matrix's cells carry only their class and symbol, and
    each distinct detail is in the page's data once (issue 32: the default run's page was 15.7 MB)."""
    from parquet_conformance.reports.html import render
    from tests.wide_report import document

    doc = document()
    html = render(doc)
    assert len(html.encode()) <= 4 * 10**6, len(html.encode())
    body = html[html.index('<tr class="case-row"'):html.index("</tbody>", html.index('<tr class="case-row"'))]
    assert "data-detail" not in body and " title=" not in body
    cells = re.findall(r'<td class="cell[^"]*">', body)
    assert len(cells) == len(doc.cases) * len(doc.adapters)  # every column of every row, none with more
    data = page_data(html)
    assert len(data["texts"]) < len(doc.cells) / 2  # each distinct text once
    spark = data["adapters"].index("spark")
    chained = [data["texts"][row[spark]] for row in data["details"] if row[spark] >= 0]
    assert any("root cause: java.lang.NullPointerException" in t and "Caused by: java.lang.NullPointerException" in t
               for t in chained)  # a cut message keeps its root cause's block


def plain_markdown(text: str) -> str:
    """summary.md read as plain text (a CI log, a terminal): its own markup left out (headings' hashes, bold, code
    ticks, table pipes and delimiter rows, the details and summary tags), its escaped pipes as pipes; nothing else."""
    out = []
    for line in text.splitlines():
        if re.fullmatch(r"\|(-+:?\|)+|\|(---:?\|)+", line):
            continue
        line = re.sub(r"^#+ ", "", line).replace("**", "").replace("`", "")
        line = re.sub(r"</?(details|summary)>", " ", line)
        line = re.sub(r"(?<!\\)\|", " ", line).replace("\\|", "|")
        out.append(line)
    return " ".join(" ".join(out).split())


def test_summary_md_reads_the_same_raw_and_rendered() -> None:
    """Issue 39 item 6: summary.md in a CI log or a terminal reads as GitHub shows it: the text cmark-gfm renders is
    the text of the file without its own markup, so no escape shows where nothing needed one (the default run's had
    6,869 backslashes in 105 KB: `16\\,042`, `parquet\\: 816`), on a document shaped like the default run's."""
    from parquet_conformance.reports.markdown import summary
    from tests.helpers import rendered
    from tests.wide_report import document

    text = summary(document())
    page = rendered(text)
    shown = " ".join("".join(page.text).split())
    assert shown == plain_markdown(text)
    assert "\\" not in text  # nothing in this document needs an escape
