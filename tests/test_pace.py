"""What keeps a run short without changing a verdict: adaptive limits (a cell cut short is only a question
for a fresh worker with the full limit) and attempts that are already a fresh worker's word (no re-run)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from parquet_conformance.conformance.harness.judge import Judge
from parquet_conformance.conformance.harness.model import Outcome, OutcomeKind, OutcomeRow, Read, Timeout
from parquet_conformance.conformance.harness.reading import PACE_FLOOR_S, PACE_MIN_CELLS, Attempt, Pace, WorkerSet
from parquet_conformance.conformance.harness.specs import AdapterSpec
from tests.hostile import WORKER
from tests.test_judge import manifest


def test_the_limit_adapts_only_after_enough_cells() -> None:
    pace = Pace()
    pace.seconds = [0.01] * (PACE_MIN_CELLS - 1)
    assert pace.limit(60.0) == 60.0
    pace.seconds.append(0.01)
    assert pace.limit(60.0) == PACE_FLOOR_S  # 50 x 10 ms is below the floor
    pace.seconds = [2.0] * PACE_MIN_CELLS
    assert pace.limit(60.0) == 60.0  # never more than the adapter's own


def row(case: str, outcome: Outcome, *, fresh: bool = False, previous: str | None = "x",
        cut: bool = False) -> OutcomeRow:
    return OutcomeRow.of(case=case, adapter="a", implementation="a", version="1", roles=["legacy"], outcome=outcome,
                         duration_s=1.0, fresh=fresh, previous_case=previous, cut_short=cut)


def test_a_cut_short_timeout_is_decided_by_the_fresh_attempt() -> None:
    m = manifest([("base/b", "read"), ("golden/slow", "read"), ("golden/hang", "read")])
    rows = [row("base/b", Read("h", 1)),
            row("golden/slow", Timeout(5.0), cut=True), row("golden/slow", Read("h", 1), fresh=True),
            row("golden/hang", Timeout(5.0), cut=True), row("golden/hang", Timeout(60.0), fresh=True)]
    cells = {c.case: c for c in Judge.of(m).cells(rows)}
    assert (cells["golden/slow"].verdict, cells["golden/slow"].attempts) == ("pass", 1)  # slow is not flaky
    assert (cells["golden/hang"].verdict, cells["golden/hang"].error_message) == ("fail:hang", "no answer within 60s")


def test_settled_attempts() -> None:
    assert row("c", Read("h", 1), fresh=True).settled
    assert row("c", Read("h", 1), previous=None).settled  # the first read of a new process
    assert not row("c", Read("h", 1)).settled
    assert not row("c", Timeout(5.0), previous=None, cut=True).settled  # not under the full limit


@pytest.mark.slow  # .ci/run runs it after the default tests (which stay within ~15 minutes on 2 cores)
def test_a_hang_after_enough_fast_cells_costs_the_adaptive_limit(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.parquet", tmp_path / "bad.parquet"
    good.write_bytes(b"")  # the bytes tests.test_judge's manifest pins (a changed case file is ours: harness-error)
    bad.write_bytes(b"")
    m = manifest([("base/b", "read"), ("golden/bad", "read")])
    spec = AdapterSpec("fake", f"{sys.executable} {WORKER} hang", timeout_s=8.0)
    workers = WorkerSet([spec])
    try:
        for _ in range(PACE_MIN_CELLS + 1):
            (first,) = workers.run(m.case("base/b"), good)
        (cut,) = workers.run(m.case("golden/bad"), bad)
    finally:
        workers.close()
    assert first.outcome == OutcomeKind.READ and not first.cut_short
    assert cut.outcome == OutcomeKind.TIMEOUT and cut.cut_short
    assert cut.typed == Timeout(PACE_FLOOR_S)
    fresh = WorkerSet([spec])
    try:  # a fresh attempt has the adapter's own limit
        (confirmed,) = fresh.run(m.case("golden/bad"), bad, Attempt(fresh=True))
    finally:
        fresh.close()
    assert confirmed.typed == Timeout(8.0) and not confirmed.cut_short and confirmed.settled
