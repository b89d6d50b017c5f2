"""Cells read: a worker per adapter (`WorkerSet`, each started on first use, again after a death), one cell at a time
(`run_one`: an `Attempt` says how: its round, a fresh worker, the confirmation pass), its limit paced by the adapter's
observed cells (`Pace`), its outcome a harness error when the case file is gone or changed (`case_file_gone`). The
tasks of harness/cells.py read with one, as do `corpus import` and fuzz.
"""

from __future__ import annotations

import contextlib
import statistics
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from parquet_conformance.conformance.adapters import AdapterUnavailable
from parquet_conformance.conformance.harness.model import Error, HarnessError, OutcomeRow, Read, Timeout, Unavailable
from parquet_conformance.conformance.harness.specs import AdapterSpec, implementation
from parquet_conformance.corpus.dist import sha256_file
from parquet_conformance.corpus.model import CaseEntry


@dataclass(frozen=True)
class Attempt:
    """Which cells of a case to run, and how: `adapters` None is every adapter of the case's track; `confirm` marks
    the confirmation pass (its tasks are cut by harness/confirm.py: a new worker per adapter or share, reading only
    those cells); `fresh` runs each in a new worker process that reads only this case."""

    adapters: tuple[str, ...] | None = None
    round: int = 0
    fresh: bool = False
    confirm: bool = False


PACE_MIN_CELLS = 20  # observed cells before an adapter's limit adapts
PACE_FACTOR = 50.0  # times its median cell
PACE_FLOOR_S = 5.0


@dataclass
class Pace:
    """An adapter's observed cell times in one worker set. Once there are enough, a cell waits a multiple of
    their median (with a floor) rather than the adapter's full timeout: a hang costs seconds, not a minute. A
    cell cut short is marked so, and only a fresh worker with the full limit may call it a hang."""

    seconds: list[float] = field(default_factory=list)

    def limit(self, full: float) -> float:
        if len(self.seconds) < PACE_MIN_CELLS:
            return full
        return min(full, max(PACE_FLOOR_S, PACE_FACTOR * statistics.median(self.seconds)))


class WorkerSet:
    """A worker per adapter, each started on first use (and again after a death) and kept until `close`; `run_one`
    reads one cell with one of them. It is used by one thread at a time: a task's, or a fuzz batch's."""

    def __init__(self, specs: Iterable[AdapterSpec]) -> None:
        self.specs = {spec.name: spec for spec in specs}
        self.workers = {name: spec.worker() for name, spec in self.specs.items()}
        self.pace = {name: Pace() for name in self.specs}

    def start_all(self) -> dict[str, float]:
        """Starts every worker at once (a JVM starting does not hold back the others); the seconds each adapter's
        took (unavailable ones included: their reason is kept for their cells). The processes are spawned here, in
        the caller's thread (see Worker.launch); only the waiting is done by a thread each."""
        t0 = time.monotonic()
        every = list(self.workers.items())
        asked = [w.launch() for _, w in every]

        def wait(i: int) -> float:
            with contextlib.suppress(AdapterUnavailable):
                every[i][1].await_start(asked[i])
            return time.monotonic() - t0

        with ThreadPoolExecutor(max_workers=max(1, len(every))) as pool:
            took = list(pool.map(wait, range(len(every))))
        return {name: seconds for (name, _), seconds in zip(every, took, strict=True)}

    def names(self, case: CaseEntry, attempt: Attempt) -> list[str]:
        return [n for n, w in self.workers.items() if w.adapter.track == case.track
                and (attempt.adapters is None or n in attempt.adapters)]

    def run(self, case: CaseEntry, path: Path, attempt: Attempt = Attempt()) -> list[OutcomeRow]:
        """The case read by every adapter of the set it is for, one after another."""
        return [self.run_one(n, case, path, attempt) for n in self.names(case, attempt)]

    def run_one(self, name: str, case: CaseEntry, path: Path, attempt: Attempt = Attempt(),
                expect: frozenset[str] = frozenset()) -> OutcomeRow:
        worker = self.specs[name].worker() if attempt.fresh else self.workers[name]
        full = worker.adapter.timeout_s
        limit = full if attempt.fresh else self.pace[name].limit(full)
        try:
            timed = worker.read(str(path), case.id, case.op, timeout_s=limit, expect=expect, keys=case.keys)
            info = worker.info
        finally:
            if attempt.fresh:
                worker.close()
        timeout = isinstance(timed.outcome, Timeout)
        if not attempt.fresh and not timeout and timed.previous_case is not None:  # a warm worker's own pace
            self.pace[name].seconds.append(timed.duration_s)
        roles = list(info.roles) if info and info.roles else worker.adapter.role_names()
        outcome = timed.outcome
        if not isinstance(outcome, Unavailable) and not (isinstance(outcome, Read) and outcome.data_hash in expect):
            outcome = case_file_gone(path, case) or outcome  # what the reader met was not the case
        return OutcomeRow.of(
            case=case.id, adapter=name, implementation=implementation(info) if info else worker.adapter.implementation,
            version=info.version if info else None, roles=roles,
            outcome=outcome, duration_s=timed.duration_s, round=attempt.round, fresh=attempt.fresh,
            previous_case=timed.previous_case, cut_short=timeout and limit < full, library_s=timed.library_s,
            confirming=attempt.confirm, fingerprint=self.specs[name].fingerprint, case_sha256=case.sha256 or None)

    def close(self) -> None:
        for worker in self.workers.values():
            worker.close()


def case_file_gone(path: Path, case: CaseEntry) -> HarnessError | None:
    """A harness error when the file a reader was given is not (or no longer) the case the manifest names: a file
    removed or changed while the run lasts would otherwise reach the judge as the reader's own outcome (its refusal of
    a missing file would pass a corrupt case). Asked only of outcomes that are not the right data, so that a run hashes
    again only the files of the cells that may fail; a case without a digest (fuzz's examples) is not checked."""
    if not case.sha256:
        return None
    try:
        digest = sha256_file(path)
    except OSError as e:
        return HarnessError(Error("case-file-gone", f"the case file {path} cannot be read any more "
                                                    f"({e.strerror or e}): it vanished during the run"))
    if digest != case.sha256:
        return HarnessError(Error("case-file-changed", f"the case file {path} changed during the run (sha256 "
                                                       f"{digest[:16]}, the manifest's {case.sha256[:16]})"))
    return None
