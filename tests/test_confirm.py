"""What makes a verdict confirmed (conformance/harness/confirm.py, docs/results.md#what-a-verdict-guarantees): one
new worker per adapter for the confirmation pass, single-cell re-runs where it disagrees, the hang limit from the
adapter's own distribution, and reuse of an earlier run's attempts when the inputs are unchanged."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from parquet_conformance.conformance.harness.confirm import confirmation_tasks, disagreements, hang_limits, reusable
from parquet_conformance.conformance.harness.judge import Judge
from parquet_conformance.conformance.harness.model import (
    Crash,
    Error,
    HarnessError,
    OutcomeRow,
    Read,
    Rejected,
    Timeout,
    Unavailable,
    Verdict,
)
from parquet_conformance.conformance.harness.results import read_cells, read_runs_in_order
from parquet_conformance.conformance.harness.specs import AdapterSpec
from tests.helpers import CLI
from tests.test_judge import manifest

FAKE = Path(__file__).parent / "hostile" / "worker.py"


def row(case: str, outcome: object, duration: float = 0.01, **kw: object) -> OutcomeRow:
    return OutcomeRow.of(case, "a", "a", "1", ["legacy"], outcome, duration, **kw)  # type: ignore[arg-type]


def test_the_hang_limit_follows_the_adapters_slowest_answered_cell() -> None:
    rows = [row("x", Read("h", 1), 0.5), row("y", Read("h", 1), 2.0), row("z", Timeout(5.0), 5.0)]
    spec = AdapterSpec("a", "true", timeout_s=60.0)
    assert hang_limits(rows, [spec]) == {"a": 20.0}  # 10x the slowest answer; the timeout is not an answer
    assert hang_limits([row("x", Read("h", 1), 0.1)], [spec]) == {"a": 10.0}  # at least the floor
    assert hang_limits([row("x", Read("h", 1), 30.0)], [spec]) == {"a": 60.0}  # at most the adapter's own timeout
    assert hang_limits(rows, [spec], override=3.0) == {"a": 3.0}


def test_the_confirmation_pass_is_one_task_per_adapter_in_a_seeded_order() -> None:
    m = manifest([(f"corrupt/c{i}", "reject") for i in range(8)] + [("base/b", "read")])
    cells = {(f"corrupt/c{i}", a) for i in range(8) for a in ("a", "b")}
    tasks = confirmation_tasks(cells, m, seed=1)
    assert [{a.adapters for _, a in t} for t in tasks] == [{("a",)}, {("b",)}]
    assert all(a.confirm and not a.fresh for t in tasks for _, a in t)
    order = [c.id for c, _ in tasks[0]]
    assert sorted(order) == sorted(c for c, _ in cells if _ == "a") and order != sorted(order)
    assert [c.id for c, _ in confirmation_tasks(cells, m, seed=1)[0]] == order  # the same seed, the same order


def test_an_adapter_whose_confirmations_cost_more_than_a_share_is_cut_into_tasks_costliest_first() -> None:
    m = manifest([(f"corrupt/c{i}", "reject") for i in range(8)] + [("base/b", "read")])
    cells = {(f"corrupt/c{i}", a) for i in range(8) for a in ("slow", "quick")}
    cost = {(f"corrupt/c{i}", "slow"): 10.0 if i < 4 else 0.1 for i in range(8)}  # four hangs at their limit
    cost |= {(f"corrupt/c{i}", "quick"): 0.1 for i in range(8)}
    tasks = confirmation_tasks(cells, m, seed=1, cost=cost, slots=2)
    assert sorted((c.id, a.adapters[0]) for t in tasks for c, a in t) == sorted(cells)  # each cell once
    assert all(len({a.adapters for _, a in t}) == 1 for t in tasks)  # a task is one adapter's new worker
    spent = [sum(cost[c.id, a.adapters[0]] for c, a in t) for t in tasks]
    assert len(tasks) > 2 and spent == sorted(spent, reverse=True)  # 'slow' cut; the costliest start first
    assert max(spent) <= sum(cost.values()) / 2
    assert len(confirmation_tasks(cells, m, seed=1, cost=cost, slots=1)) == 2  # one slot: one task per adapter
    quick = {k: 0.05 for k in cost}  # reads of a fraction of a second: not worth a second worker's start
    assert len(confirmation_tasks(cells, m, seed=1, cost=quick, slots=2)) == 2


def test_a_confirmation_that_disagrees_is_re_run_alone_and_every_attempt_counts() -> None:
    m = manifest([("base/b", "read"), ("corrupt/x", "reject"), ("corrupt/y", "reject")])
    refused = Rejected(Error("E", "no"))
    rows = [row("base/b", Read("h", 1)), row("corrupt/x", Read("h", 1), previous_case="base/b"),
            row("corrupt/x", Read("h", 1), confirming=True),
            row("corrupt/y", Read("h", 1), previous_case="base/b"), row("corrupt/y", refused, confirming=True)]
    assert disagreements(rows) == {("corrupt/y", "a")}
    verdicts = {c.case: c.verdict for c in Judge.of(m).cells(rows)}
    assert verdicts["corrupt/x"] == Verdict.ACCEPTED_INVALID and verdicts["corrupt/y"] == Verdict.FLAKY
    alone = {c.case: c for c in Judge.of(m).cells([*rows, row("corrupt/y", Read("h", 1), fresh=True)])}
    assert alone["corrupt/y"].verdict == Verdict.FLAKY  # a pass among failures: flaky, whichever came last
    assert alone["corrupt/y"].disagreement is not None and alone["corrupt/y"].disagreement.count("->") == 3


def test_only_unchanged_inputs_of_judged_cells_are_reused() -> None:
    m = manifest([("base/b", "read"), ("corrupt/x", "reject"), ("corrupt/y", "reject")])
    m_cases = [c for c in m.cases]
    sha = {c.id: c.sha256 for c in m_cases}
    rows = [row(c.id, Read("h", 1) if c.id != "corrupt/y" else Rejected(Error("E", "no")), fingerprint="fp",
                case_sha256=sha[c.id]) for c in m_cases]
    rows.append(row("corrupt/x", Read("h", 1), confirming=True, fingerprint="fp", case_sha256=sha["corrupt/x"]))
    earlier = Judge.of(m).cells(rows)
    spec = AdapterSpec("a", fingerprint="fp")
    replayed = reusable(earlier, "r0 (started t)", m_cases, [spec])
    assert {(r.case, r.confirming) for r in replayed} == {("base/b", False), ("corrupt/x", False),
                                                          ("corrupt/x", True), ("corrupt/y", False)}
    assert all(r.reused_from == "r0 (started t)" for r in replayed)
    assert [c.verdict for c in Judge.of(m).cells(replayed)] == [c.verdict for c in earlier]
    assert reusable(earlier, "r0", m_cases, [AdapterSpec("a", fingerprint="other")]) == []  # a new library version
    assert reusable(earlier, "r0", m_cases, [AdapterSpec("a")]) == []  # no fingerprint: never reused


def test_skips_flaky_cells_and_harness_errors_are_reused_on_the_same_evidence() -> None:
    """A skip is reused like any other cell; a flaky cell and a harness error replay every attempt of theirs from the
    earlier run's staged attempts (without them they run again); an unavailable reader always runs again."""
    m = manifest([("base/b", "reject"), ("corrupt/s", "reject"), ("corrupt/f", "reject"), ("corrupt/h", "reject"),
                  ("corrupt/u", "reject")])
    sha = {c.id: c.sha256 for c in m.cases}
    refused, crashed = Rejected(Error("E", "no")), Crash(Error("SIGSEGV", "killed"))
    staged = [row("base/b", crashed), row("base/b", crashed, confirming=True),  # the base itself: a failure
              row("corrupt/s", crashed),  # fails as its base does: skip
              row("corrupt/f", Read("h", 1)), row("corrupt/f", refused, confirming=True),
              row("corrupt/f", refused, fresh=True),  # alone, it disagrees with the run's attempt too: flaky
              row("corrupt/h", HarnessError(Error("protocol-error", "ours"))),
              row("corrupt/u", Unavailable("no library"))]
    staged = [replace(r, fingerprint="fp", case_sha256=sha[r.case]) for r in staged]
    earlier = Judge.of(m).cells(staged)
    verdicts = {c.case: c.verdict for c in earlier}
    assert (verdicts["corrupt/s"], verdicts["corrupt/f"], verdicts["corrupt/h"], verdicts["corrupt/u"]) == (
        Verdict.SKIP, Verdict.FLAKY, Verdict.HARNESS_ERROR, Verdict.SKIP)
    spec = AdapterSpec("a", fingerprint="fp")
    replayed = reusable(earlier, "r0", m.cases, [spec], lambda: staged)
    assert {r.case for r in replayed} == {"base/b", "corrupt/s", "corrupt/f", "corrupt/h"}  # not the unavailable one
    assert sorted((r.case, r.confirming, r.fresh) for r in replayed if r.case == "corrupt/f") == [
        ("corrupt/f", False, False), ("corrupt/f", False, True), ("corrupt/f", True, False)]
    assert not any(r.confirming for r in replayed if r.case == "corrupt/s")  # a skip was never confirmed
    again = {c.case: c for c in Judge.of(m).cells(replayed)}
    assert {k: c.verdict for k, c in again.items()} == {k: v for k, v in verdicts.items() if k != "corrupt/u"}
    assert again["corrupt/f"].disagreement == next(c for c in earlier if c.case == "corrupt/f").disagreement
    without = {r.case for r in reusable(earlier, "r0", m.cases, [spec])}
    assert without == {"base/b", "corrupt/s"}  # no staged attempts: the flaky cell and the harness error run again


@pytest.mark.integration
def test_an_unchanged_re_run_reuses_every_cell_and_fresh_runs_them_again(tmp_path: Path) -> None:
    from parquet_conformance.corpus.build import generate

    generate(tmp_path / "corpus", only="base/flat,corrupt/tiny/*,ext/file-metadata/flat/*")
    base = [*CLI, "run", "--master", "none", "--corpus", str(tmp_path / "corpus"), "--out", str(tmp_path / "out"),
            "--adapter", "pyarrow"]
    for extra in ([], [], ["--fresh"]):
        proc = subprocess.run([*base, *extra], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[-2000:]
    first, again, fresh = read_runs_in_order(tmp_path / "out" / "results")
    cells = {run: {(c.case, c.role): c for c in read_cells(tmp_path / "out" / "results", run)[1]}
             for run in (first, again, fresh)}
    assert {k: c.verdict for k, c in cells[first].items()} == {k: c.verdict for k, c in cells[again].items()} \
        == {k: c.verdict for k, c in cells[fresh].items()}
    assert all(c.reused_from is None for c in cells[first].values())
    assert all(c.reused_from and c.reused_from.startswith(first) for c in cells[again].values())
    assert all(c.reused_from is None for c in cells[fresh].values())
    # An external worker has no fingerprint: it always runs.
    ext = [*base[:-2], "--adapter-cmd", f"fake={sys.executable} {FAKE} none"]
    for _ in range(2):
        assert subprocess.run(ext, capture_output=True, text=True).returncode == 0
    last = read_runs_in_order(tmp_path / "out" / "results")[-1]
    assert all(c.reused_from is None for c in read_cells(tmp_path / "out" / "results", last)[1])
