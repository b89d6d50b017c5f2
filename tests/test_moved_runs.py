"""Runs that can be moved (issue 39, item 2): a run records its corpus relative to its own folder, and every command
that reads a run finds it there, from any folder, on a copy of the run, never in the current folder (where another
run's out/latest may be); README's two commands in a row on a clone."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from parquet_conformance.corpus.build import generate
from tests.helpers import CLI

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=600, cwd=cwd)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(a copy of a run started with README's relative paths (out/latest, its corpus in it), a folder holding another
    run's out/latest with another corpus)."""
    root = tmp_path_factory.mktemp("moved")
    started, other = root / "started", root / "other"
    generate(started / "out" / "latest" / "corpus", only="base/flat,corrupt/tiny/empty")
    generate(other / "out" / "latest" / "corpus", only="base/flat")
    for where in (started, other):
        proc = cli("run", "--master", "none", "--adapter", "pyarrow", cwd=where)  # the default --out out/latest
        assert proc.returncode == 0, proc.stderr[-2000:]
    copy = root / "downloaded"
    shutil.copytree(started / "out" / "latest", copy)  # a copied or downloaded run
    shutil.rmtree(started)
    return copy, other


def test_a_run_records_its_corpus_relative_to_its_folder(runs: tuple[Path, Path]) -> None:
    copy, _ = runs
    assert json.loads((copy / "results.json").read_text())["run"]["corpus"] == "corpus"


def test_report_and_check_read_a_copied_run_from_a_folder_holding_another_run(runs: tuple[Path, Path],
                                                                              tmp_path: Path) -> None:
    copy, other = runs
    results = str(copy / "results")
    up = cli("report", "--upstream", "pyarrow", str(tmp_path / "up"), "--results", results, cwd=other)
    assert up.returncode == 0, up.stderr  # its own corpus, not the current folder's out/latest/corpus
    (tmp_path / "none.txt").write_text("")
    gate = cli("check", "--adapter", "pyarrow", "--expected-failures", str(tmp_path / "none.txt"), "--results",
               results, cwd=other)
    assert gate.returncode == 0, gate.stdout + gate.stderr  # not "changed since the run": it is the run's corpus
    rewritten = cli("report", "--rewrite", str(copy), cwd=other)
    assert rewritten.returncode == 0, rewritten.stderr
    data = re.search(r'<script type="application/json" id="report-data">(.*?)</script>',
                     (copy / "report.html").read_text(), re.S)
    assert data and json.loads(data.group(1))["corpus"] == "corpus"  # its case files link into the copy


def test_the_panel_command_goes_to_the_reports_folder_first() -> None:
    """Pasted into any shell, the command works: opened as a file, report.html knows its own folder and goes there
    (data.corpus is relative to it); served over HTTP, the label says where to run it from."""
    script = (ROOT / "reports" / "templates" / "report.js.j2").read_text(encoding="utf-8")
    assert "location.protocol === 'file:'" in script and "'cd ' + shq(folder) + ' && '" in script


@pytest.mark.integration
def test_readme_command_2_passes_on_a_clone_where_command_1_ran(tmp_path: Path) -> None:
    """README's first command (a run into the clone's out/latest, its corpus there) then the tests it touches, from
    the clone's folder: no test may take that run's out/latest for its own."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: no clone to make")
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    clone = tmp_path / "clone"
    for rel in filter(None, listed):
        if (ROOT / rel).is_file():
            (clone / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, clone / rel)
    # Command 1, cheaply: what it leaves is out/latest with the corpus in it; a small one, then a run on part of it.
    generate(clone / "out" / "latest" / "corpus", only="base/flat,corrupt/tiny/empty")
    proc = cli("run", "--only", "base/flat", "--adapter", "pyarrow", "--master", "none", cwd=clone)
    assert proc.returncode == 0, proc.stderr[-2000:]
    tests = ["tests/test_upstream_folders.py", "tests/test_moved_runs.py"]
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not integration",
                           *tests], cwd=clone, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert proc.returncode == 0, proc.stdout[-4000:]
