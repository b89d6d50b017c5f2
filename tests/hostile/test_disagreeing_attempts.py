"""Attempts that disagree, through the whole run job with a scripted worker (tests/hostile/worker.py `steps:`): a
cell whose attempts all fail, in two different ways, is a failure, the worst of them, with every attempt kept; only a
pass among failures makes a cell flaky; and the same inputs run twice give no `new` failure (issue 30 items 3, 4:
fastparquet's SIGSEGV then KeyError was `flaky`, and a re-run announced "5 new failures" of cells that had been
flaky, not passing)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from parquet_conformance.conformance.harness.results import read_cells, read_runs_in_order
from parquet_conformance.corpus.build import generate
from tests.helpers import CLI

WORKER = Path(__file__).with_name("worker.py")
# Both expect reject, and are read after another case (so that the run's attempt is confirmed: read in the order of
# size, 12 bytes before 8).
TWO_WAYS = "corrupt/tiny/8-bytes"  # it crashes, then raises a KeyError, then crashes ...
FLAPS = "corrupt/tiny/12-bytes-zero-length"  # read (fails), refused (passes), then read (fails) for ever
PLAN = f"{TWO_WAYS.rsplit('/', 1)[1]}:steps:crash+unhandled,{FLAPS.rsplit('/', 1)[1]}:steps:read+refuse+read+read+read"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("disagreeing")
    generate(where / "corpus", only="base/flat,corrupt/tiny/*")
    (where / "memory").mkdir()
    command = f"{sys.executable} {WORKER} none --plan={PLAN} --memory={where / 'memory'}"
    for _ in range(2):  # the same inputs twice, into one results dataset: the second run compares with the first
        proc = subprocess.run([*CLI, "run", "--master", "none", "--corpus", str(where / "corpus"), "--out",
                               str(where / "out"), "--adapter-cmd", f"scripted={command}"],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[-3000:]
    return where / "out"


def cells_of(out: Path, index: int) -> dict[str, object]:
    run = read_runs_in_order(out / "results")[index]
    return {c.case: c for c in read_cells(out / "results", run)[1]}


def test_attempts_that_all_fail_two_ways_are_the_worst_failure_not_flaky(runs: Path) -> None:
    first = cells_of(runs, 0)
    two_ways = first[TWO_WAYS]
    assert (two_ways.verdict, two_ways.outcome) == ("fail:crash", "crash")  # type: ignore[attr-defined]
    assert two_ways.attempts == 3  # type: ignore[attr-defined]  # the run's, the confirmation's, a fresh worker's
    assert "-> fail:crash" in two_ways.disagreement and "-> fail:unhandled-error" in two_ways.disagreement  # type: ignore
    assert first[FLAPS].verdict == "flaky"  # type: ignore[attr-defined]  # a pass among failures: flaky
    assert not [c for c in first.values() if c.verdict == "flaky" and "-> pass" not in c.disagreement]  # type: ignore


def test_the_same_inputs_twice_give_no_new_failure(runs: Path) -> None:
    second = cells_of(runs, 1)
    assert second[FLAPS].verdict == "fail:accepted-invalid"  # type: ignore[attr-defined]  # read both times now
    doc = json.loads((runs / "results.json").read_text())
    marks = {m["case"]: (m["mark"], m["before"]) for m in doc["comparison"]["marks"]}
    assert not [c for c, (mark, _) in marks.items() if mark == "new"], marks
    assert marks[FLAPS] == ("unseen", "flaky")  # flaky before: nothing to compare with, and the mark says so
    assert marks[TWO_WAYS][0] in ("known", "changed")  # it failed both times, maybe otherwise
    summary = (runs / "summary.md").read_text()
    assert "0 new failures" in summary and "it was flaky in run" not in summary.split("### Scores")[1]
    assert f"{len(second)} verdicts decided in this run" in summary  # an external worker is never reused
