"""The main job end to end on Spark (local), its outputs, resume, the gate and the HTML report
in headless Chromium."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from parquet_conformance.conformance.harness.model import Cell, RunInfo, Verdict
from parquet_conformance.conformance.harness.results import RunRecord, Store, read_cells
from parquet_conformance.corpus.build import generate
from parquet_conformance.corpus.model import Manifest
from parquet_conformance.reports import write_reports
from parquet_conformance.reports.document import results_document
from tests.helpers import CLI, cli_here, md_text

ADAPTERS = ("pyarrow", "parquet-java", "datafusion")
ONLY = "base/flat,ext/*/flat/*,corrupt/footer-length/*,corrupt/tiny/*"


def cli(*args: str, **kw: object) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True,
                          timeout=900, **kw)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("corpus")
    generate(out, only=ONLY)
    return out


@pytest.fixture(scope="module")
def run(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run")
    args = ["run", "--corpus", str(corpus), "--out", str(out), "--run-id", "first", "--master", "local[2]"]
    for a in ADAPTERS:
        args += ["--adapter", a]
    proc = cli(*args)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "cells/s" in proc.stdout and "Spark start" in proc.stdout
    return out


def test_every_cell_has_one_verdict_everywhere(run: Path, corpus: Path) -> None:
    manifest = json.loads((corpus / "manifest.json").read_text())
    _, cells = read_cells(run / "results", "first")
    keys = [(c.case, c.adapter) for c in cells]
    assert sorted(keys) == sorted((c["id"], a) for c in manifest["cases"] for a in ADAPTERS)
    doc = json.loads((run / "results.json").read_text())
    assert doc["format"] == "parquet-conformance-results" and len(doc["cells"]) == len(cells)
    assert {a["adapter"] for a in doc["adapters"]} == set(ADAPTERS)
    by_adapter = {c.adapter: 0 for c in cells}
    for a in ADAPTERS:
        suite = ET.parse(run / "junit" / f"{a}.xml").getroot()
        by_adapter[a] = int(suite.get("tests"))
        assert len(suite.findall("testcase")) == len(manifest["cases"])
    summary = md_text((run / "summary.md").read_text())
    assert all(f"| {a} |" in summary for a in ADAPTERS)
    # A real finding travels through: arrow-rs panics on footer lengths that point before the file, a panic its
    # binding catches (PanicException): an unhandled error (docs/adapters.md#error-taxonomy)
    panic = next(c for c in cells if c.adapter == "datafusion" and c.case.endswith("bit-31-before-start"))
    assert (panic.outcome, panic.verdict) == ("unhandled-error", "fail:unhandled-error")


@pytest.mark.slow  # .ci/run runs it after the default tests (which stay within ~15 minutes on 2 cores)
def test_results_dataset_reads_back_with_spark(run: Path) -> None:
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
    try:
        df = spark.read.parquet(str(run / "results"))
        assert df.filter("run = 'first'").count() == len(read_cells(run / "results", "first")[1])
        assert {"case", "adapter", "verdict", "outcome", "duration_s", "run"} <= set(df.columns)
    finally:
        spark.stop()


@pytest.mark.slow  # a run interrupted, then resumed (.ci/run runs it after the default tests)
def test_resume_finishes_an_interrupted_run_without_redoing_cells(corpus: Path, tmp_path: Path) -> None:
    args = [*CLI, "run", "--corpus", str(corpus), "--out", str(tmp_path),
            "--run-id", "cut", "--master", "local[2]", "--adapter", "pyarrow", "--adapter", "parquet-java"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    store = Store(tmp_path)
    deadline = time.monotonic() + 600
    while not store.staged("cut") and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    first = {(r.case, r.adapter): r.duration_s for r in store.staged("cut")}
    assert first, "the run was killed before it staged anything"
    done = cli("run", "--corpus", str(corpus), "--out", str(tmp_path), "--resume", "cut", "--master", "local[2]",
               "--adapter", "pyarrow", "--adapter", "parquet-java")
    assert done.returncode == 0, done.stderr[-2000:]
    _, cells = read_cells(tmp_path / "results", "cut")
    keys = [(c.case, c.adapter) for c in cells]
    assert len(keys) == len(set(keys)) == 2 * len(json.loads((corpus / "manifest.json").read_text())["cases"])
    after = {(c.case, c.adapter): c.duration_s for c in cells}
    assert all(after[k] == v for k, v in first.items()), "finished cells were run again"
    again = cli("run", "--corpus", str(corpus), "--out", str(tmp_path), "--run-id", "cut", "--master", "none",
                "--adapter", "pyarrow")
    assert again.returncode == 2 and "--resume" in again.stderr


def test_gate_exit_codes(run: Path, tmp_path: Path) -> None:
    results = str(run / "results")
    expected = tmp_path / "datafusion.txt"
    gate = ["check", "--adapter", "datafusion", "--expected-failures", str(expected), "--results", results]
    assert cli(*gate, "--write-expected-failures").returncode == 0
    lines = expected.read_text().splitlines()
    failures = [ln for ln in lines if ln and not ln.startswith("#")]
    assert failures, "datafusion is expected to fail some flat cases"
    ok = cli(*gate)
    assert ok.returncode == 0 and "gate ok" in ok.stdout
    # the other exit codes in this process (cli_here); the refusals' first in a new one
    expected.write_text("\n".join(lines[:-1]) + "\n")  # one failure no longer expected
    unexpected = cli_here(*gate)
    assert unexpected.returncode == 1 and "UNEXPECTED FAILURE" in unexpected.stdout
    expected.write_text("\n".join([*lines, "base/flat  # passes, so listing it is wrong"]) + "\n")
    xpass = cli_here(*gate)
    assert xpass.returncode == 1 and "UNEXPECTED PASS    base/flat" in xpass.stdout
    case, role, _verdict = failures[0].split()
    expected.write_text("\n".join([*[ln for ln in lines if ln != failures[0]], f"{case} {role} fail:hang"]) + "\n")
    pinned = cli_here(*gate)
    assert pinned.returncode == 1 and "CHANGED FAILURE" in pinned.stdout
    for i, bad in enumerate((["--expected-failures", str(tmp_path / "missing.txt")], ["--adapter", "nonesuch"],
                             ["--results", str(tmp_path / "nowhere")])):
        args = gate.copy()
        args[args.index(bad[0]) + 1] = bad[1]
        proc = (cli if i == 0 else cli_here)(*args)
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_report_diff_lists_changed_verdicts(run: Path, tmp_path: Path) -> None:
    _, cells = read_cells(run / "results", "first")
    record = RunRecord(RunInfo("x", "0", 0, "none", "", None, ["parquet"], ""), [], [])
    store = Store(tmp_path)
    store.write("a", cells, record)
    first = cells[0]
    flipped = Verdict.CRASH if first.verdict == Verdict.PASS else Verdict.PASS
    store.write("b", [Cell(**{**first.__dict__, "verdict": flipped}), *cells[1:]], record)
    proc = cli("report", "--diff", "a", "b", "--results", str(store.results), "--json")
    assert proc.returncode == 0, proc.stderr
    (change,) = json.loads(proc.stdout)["changes"]
    assert (change["case"], change["adapter"]) == (first.case, first.adapter)
    results = store.results
    assert "1 changed cells" in cli_here("report", "--diff", "a", "b", "--results", str(results)).stdout


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium(*args: str, profile: Path) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)")
def test_html_matrix_renders_in_chromium(run: Path, tmp_path: Path) -> None:
    doc = json.loads((run / "results.json").read_text())
    _, cells = read_cells(run / "results", "first")
    cells[0] = Cell(**{**cells[0].__dict__, "verdict": Verdict.CRASH,
                       "error_message": "<script>document.title='pwned'</script><b>x"})
    html = tmp_path / "report.html"
    manifest = Manifest.from_json(json.loads((Path(doc["run"]["corpus"]) / "manifest.json").read_text()))
    write_reports(results_document(cells, manifest, RunInfo(**doc["run"])), tmp_path)
    shot = tmp_path / "shot.png"
    chromium("--window-size=1400,900", f"--screenshot={shot}", html.as_uri(), profile=tmp_path / "p1")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    dom = chromium("--dump-dom", html.as_uri(), profile=tmp_path / "p2").stdout
    assert dom.count('<tr class="case-row') == len(doc["cases"])
    assert dom.count('class="cell ') == len(cells)
    assert "<title>parquet-conformance run" in dom  # the injected script did not run
    assert dom.count("<script") == 2 and "<b>x" not in dom  # the page's data (JSON) and its own script
    assert "&lt;script&gt;document.title" in dom
