"""The issue's bar: one `run` whose worker misbehaves in every way we know, each on its own case (tests/hostile/
worker.py --plan), ends with exit 0 and its reports written; each misbehaving cell is one harness error or failure
(or the rejection it answered, sanitised), every other cell is judged as in a clean run of the same reader, and no
process of the run survives it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from parquet_conformance.conformance.harness.model import Verdict
from parquet_conformance.conformance.harness.results import read_cells
from parquet_conformance.corpus.build import generate
from tests.helpers import CLI
from tests.hostile import WORKER, assert_nothing_left, token

# The base of corrupt/tiny/* (base/flat) behaves: its reading is the baseline of the cases on it.
FAILING = ["segfault", "abort", "garbage", "bad-rows", "big-line", "mismatched", "child-holds-stdout",
           "setsid-holds-stdout", "exit-after-read", "bad-decimal", "huge-number", "deep-line", "deep-rows"]
REJECTING = ["bad-utf8", "nul", "surrogate", "surviving-child"]
ANSWERING = ["twice", "stray-later", "setsid-child", "double-fork", "exit-after-answer", "stderr-flood"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("every-way") / "corpus"
    generate(out, only="base/*,corrupt/tiny/*")
    return out


def plan(corpus: Path) -> dict[str, str]:
    """case id -> its misbehaviour, for every case but base/flat, in order."""
    manifest = json.loads((corpus / "manifest.json").read_text())
    cases = sorted(c["id"] for c in manifest["cases"] if c["id"] != "base/flat")
    modes = FAILING + REJECTING + ANSWERING
    assert len(cases) >= len(modes)
    return dict(zip(cases, modes, strict=False))


def run(corpus: Path, out: Path, run_id: str, mark: str, *options: str) -> subprocess.CompletedProcess[str]:
    worker = f"{sys.executable} {WORKER} none {mark} --real --bad=no-such-file {' '.join(options)}"
    return subprocess.run([*CLI, "run", "--corpus", str(corpus), "--out", str(out), "--master", "none", "--run-id",
                           run_id, "--adapter-cmd", f"evil={worker}"], capture_output=True, text=True, timeout=900)


def test_a_worker_that_misbehaves_in_every_way(corpus: Path, tmp_path: Path) -> None:
    mark = token()
    ways = plan(corpus)
    option = "--plan=" + ",".join(f"cases/{case}.parquet:{mode}" for case, mode in ways.items())
    evil = run(corpus, tmp_path / "evil", "evil", mark, option, "--flood=32")
    assert evil.returncode == 0, evil.stderr[-3000:]
    clean = run(corpus, tmp_path / "clean", "clean", mark)
    assert clean.returncode == 0, clean.stderr[-3000:]
    assert_nothing_left(mark)
    for report in ("report.html", "results.json", "summary.md", "junit/evil.xml"):
        assert (tmp_path / "evil" / report).is_file(), report

    _, got = read_cells(tmp_path / "evil" / "results", "evil")
    _, want = read_cells(tmp_path / "clean" / "results", "clean")
    assert {(c.case, c.role) for c in got} == {(c.case, c.role) for c in want}
    clean_cells = {(c.case, c.role): c for c in want}
    for cell in got:
        like = clean_cells[(cell.case, cell.role)]
        mode = ways.get(cell.case)
        if mode in FAILING:
            assert cell.verdict == Verdict.HARNESS_ERROR or cell.verdict.is_failure, (mode, cell)
        elif mode in REJECTING:
            assert cell.outcome == "rejected" and cell.error_message, (mode, cell)
            (cell.error_message or "").encode("utf-8")  # sanitised: storable
        else:  # ANSWERING, or no misbehaviour at all: as in the clean run
            assert (cell.verdict, cell.outcome, cell.data_hash) == (like.verdict, like.outcome, like.data_hash), (
                mode, cell, like)
