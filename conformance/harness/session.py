"""A run as one object: `RunSession` holds what a run's phases share (its results store and id, its executor, its
staged attempts, its adapters, the time of each phase) and offers the phases that run and judge cells:

    with RunSession(store, run_id, executor, specs, cases, ...) as run:  # takes the run's lock and staging
        run.reuse()                 # the attempts of cells unchanged since an earlier run
        run.prepare()               # each worker's one-time preparation
        run.cells(repeat)           # every cell, tasks of one adapter each, staged as they finish
        run.confirm_run(judge)      # every non-pass cell read again in a fresh worker; disagreements alone
        cells = run.judged(judge)
        run.store_cells(cells, record, parts)
    # left, whatever happened: the staging written, the lock released, the executor closed

The application (app/run.py) opens the corpus before a session begins, and draws the reports after its
cells are judged (the reports are a floor above the harness); `run --writers` (app/writers.py) runs its
written corpus through the same session: the same executor, staging, confirmation and timings.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol, Self, TypeVar

from parquet_conformance.conformance.harness.cells import Job, run_cells
from parquet_conformance.conformance.harness.confirm import (
    confirmation_costs,
    confirmation_tasks,
    disagreements,
    fresh_jobs,
    hang_limits,
    reusable,
)
from parquet_conformance.conformance.harness.envs import worker_command
from parquet_conformance.conformance.harness.executor import Executor
from parquet_conformance.conformance.harness.judge import Judge, to_confirm
from parquet_conformance.conformance.harness.model import Cell, OutcomeRow
from parquet_conformance.conformance.harness.progress import Counts
from parquet_conformance.conformance.harness.reading import Attempt
from parquet_conformance.conformance.harness.results import (
    ResultsError,
    RunRecord,
    Store,
    read_partition,
    read_record,
    reusable_cells,
)
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.corpus.model import CaseEntry, Manifest
from parquet_conformance.kernel.errors import UsageError

Progress = Callable[[str], None]
Key = tuple[str, str, int, bool, bool]  # OutcomeRow.key: case, adapter, round, fresh, confirming
Cells = set[tuple[str, str]]  # (case, adapter)


class RunError(UsageError):
    """A run that cannot start as asked (no matching case, a resume that would drop cells); the message is one
    line."""


class Phases(Protocol):
    """Who says, while a phase lasts, what it is doing (app/console.py Heartbeat)."""

    def now(self, what: str | Callable[[], str]) -> None: ...


@dataclass
class Timings:
    generation_s: float = 0.0
    spark_start_s: float = 0.0  # the executor's start (Executor.started_s)
    cells_s: float = 0.0
    confirm_s: float = 0.0  # the confirmation pass and the single-cell re-runs where it disagreed
    confirmed: int = 0  # non-pass cells, each confirmed (now or in the run their attempts were reused from)
    rerun: int = 0  # of which read again in the confirmation pass (the others: settled, or reused)
    disagreed: int = 0  # of those, re-run alone because the confirmation disagreed
    reused: int = 0  # cells whose attempts were reused from an earlier run (their inputs unchanged)
    reports_s: float = 0.0
    writers_s: float = 0.0  # the writer x reader matrix: writing, judging, reading
    writing_s: float = 0.0  # of which writing and judging the files
    writers_cells: int = 0
    prepared: dict[str, float] = field(default_factory=dict)  # the one-time preparations, and their seconds
    marks: dict[str, float] = field(default_factory=dict)  # phase -> when it began (time.monotonic): bench/matrix.py

    def mark(self, phase: str) -> float:
        """The phase begins now: its mark, returned."""
        self.marks[phase] = now = time.monotonic()
        return now


class RunSession:
    """One run's shared state and its phases (the module's doc). `specs`: the run's adapters, each with its
    fingerprint; `cases` of the corpus at `root` with its `manifest`: the cells the run reads (`run --writers`
    passes its written corpus to `execute` and `confirm`)."""

    def __init__(self, store: Store, run_id: str, executor: Executor, specs: list[AdapterSpec],
                 cases: list[CaseEntry], root: Path, manifest: Manifest, beat: Phases,
                 progress: Progress | None = None, hang_limit: float | None = None,
                 timings: Timings | None = None) -> None:
        self.store, self.run_id, self.executor = store, run_id, executor
        self.specs = [s.with_fingerprint() for s in specs]
        self.names = {s.name for s in specs}
        self.cases, self.wanted = cases, {c.id for c in cases}
        self.root, self.manifest = root, manifest
        self.beat, self.progress, self.hang_limit = beat, progress, hang_limit
        self.timings = timings or Timings()
        self.staging = Staging(store, run_id)
        self.done: set[Key] = set()  # the attempts staged (earlier in a resumed run, or replayed)
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> Self:
        with contextlib.ExitStack() as stack:  # a failed entry leaves nothing held
            stack.enter_context(self.executor)  # left last: closed in all cases
            stack.enter_context(self.store.lock(self.run_id))
            stack.enter_context(self.staging)
            self.done = {r.key for r in self.rows()}
            self._stack = stack.pop_all()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    # -- what is staged --------------------------------------------------------------------------------------------

    def rows(self, cases: set[str] | None = None, names: set[str] | None = None) -> list[OutcomeRow]:
        """The staged attempts of the run's adapters (or `names`) on its cases (or `cases`)."""
        cases, names = self.wanted if cases is None else cases, self.names if names is None else names
        return [r for r in self.staging.rows() if r.adapter in names and r.case in cases]

    def stage(self, rows: list[OutcomeRow]) -> None:
        self.staging.add([r for r in rows if r.key not in self.done])

    def execute(self, jobs: list[Job], what: str, specs: list[AdapterSpec] | None = None,
                tasks: list[list[Job]] | None = None, root: Path | None = None,
                manifest: Manifest | None = None) -> None:
        """The jobs' cells on the executor (harness/cells.py run_cells), staged as they come, counted on the
        heartbeat as `what`; on the run's corpus unless another is given."""
        counts = Counts(what)
        self.beat.now(counts.line)
        run_cells(self.executor, jobs, root or self.root, specs or self.specs, self.stage, counts, tasks,
                  manifest or self.manifest)
        self.timings.spark_start_s = self.executor.started_s

    # -- the phases -----------------------------------------------------------------------------------------------

    def reuse(self) -> None:
        """The attempts of cells unchanged since the latest earlier run of the store, staged as this run's."""
        self.beat.now("finding the cells unchanged since an earlier run")
        replayed = reused_attempts(self.store, self.run_id, self.cases, self.specs)
        self.stage(replayed)
        self.done |= {r.key for r in replayed}
        if replayed and self.progress:
            self.progress(f"{len({(r.case, r.adapter) for r in replayed})} cells unchanged since an earlier run: "
                          "their attempts reused (--fresh runs them again)")

    def prepare(self, early: Future[dict[str, float]] | None = None) -> None:
        """Each adapter that has a cell to run prepared (or the preparations begun `early`, while the corpus was
        made)."""
        self.beat.now("preparing the adapters")
        if early is not None:
            self.timings.prepared = early.result()
            return
        todo = [s for s in self.specs if any((c.id, s.name, 0, False, False) not in self.done
                                             for c in self.cases if c.track == s.build().track)]
        self.timings.prepared = prepare_adapters(todo, self.progress)

    def cells(self, repeat: int = 1) -> None:
        """Every cell not yet staged, `repeat` rounds: big cases first, so they do not trail at the end; later
        rounds shuffled, so that every cell meets other predecessors in its worker."""
        t1 = self.timings.mark("cells")
        by_track: dict[str, list[str]] = {}
        for s in self.specs:
            by_track.setdefault(s.build().track, []).append(s.name)
        for rnd in range(repeat):
            cases = self.cases
            order = sorted(cases, key=lambda c: -c.size) if rnd == 0 else random.Random(rnd).sample(cases, len(cases))
            jobs = []
            for c in order:
                todo = tuple(n for n in by_track.get(c.track, ()) if (c.id, n, rnd, False, False) not in self.done)
                if todo:
                    jobs.append((c, Attempt(todo if len(todo) < len(by_track[c.track]) else None, round=rnd)))
            self.execute(jobs, "cells done" if repeat == 1 else f"cells done in round {rnd + 1} of {repeat}")
        self.timings.cells_s = time.monotonic() - t1 - self.timings.spark_start_s

    def confirm(self, judge: Judge, rows: Callable[[], list[OutcomeRow]], root: Path | None = None,
                manifest: Manifest | None = None) -> tuple[Cells, Cells, Cells]:
        """Every non-pass cell not yet settled read again (a new worker per adapter or share, under the hang
        limit), and those whose confirmation disagreed alone: (non-pass, read again, disagreed) cells."""
        manifest = manifest or self.manifest
        self.beat.now("judging the cells to confirm")
        seen = rows()
        nonpass = to_confirm(judge.cells(seen))
        unconfirmed = nonpass - {(r.case, r.adapter) for r in seen if r.settled}
        if not unconfirmed:
            return nonpass, unconfirmed, set()
        limits = hang_limits(seen, self.specs, self.hang_limit)
        confirming = [replace(s, timeout_s=limits[s.name]) for s in self.specs]
        tasks = confirmation_tasks(unconfirmed, manifest, manifest.seed, confirmation_costs(seen, limits),
                                   self.executor.slots)
        self.execute([j for t in tasks for j in t], "cells confirmed (a new worker per adapter)", confirming, tasks,
                     root, manifest)
        if disagreed := disagreements(rows()):
            self.execute(fresh_jobs(disagreed, manifest), "cells re-run alone (their confirmation disagreed)",
                         confirming, root=root, manifest=manifest)
        return nonpass, unconfirmed, disagreed

    def confirm_run(self, judge: Judge) -> None:
        """The run's own cells confirmed (confirm), timed."""
        t2 = self.timings.mark("confirmation")
        nonpass, unconfirmed, disagreed = self.confirm(judge, self.rows)
        self.timings.confirm_s = time.monotonic() - t2
        self.timings.confirmed, self.timings.rerun, self.timings.disagreed = (
            len(nonpass), len(unconfirmed), len(disagreed))

    def judged(self, judge: Judge) -> list[Cell]:
        """The run's cells, judged from every attempt staged."""
        self.beat.now("judging")
        self.staging.flush()
        cells = judge.cells(self.rows())
        self.timings.reused = sum(1 for c in cells if c.reused_from)
        return cells

    def store_cells(self, cells: list[Cell], record: RunRecord, parts: dict[str, bytes]) -> None:
        """The judged cells, the run's record and its document's parts into the results dataset."""
        self.store.write(self.run_id, cells, record, parts)


class Staging:
    """The run's staged outcomes, kept here as they come and written to the store's staging folder at most every
    FLUSH_S seconds (and on leaving: an interrupted run resumes without redoing what was written): one file per
    second, not per task, and never read back while the run lasts."""

    FLUSH_S = 2.0

    def __init__(self, store: Store, run_id: str) -> None:
        self.store, self.run_id = store, run_id
        self._rows: dict[Key, OutcomeRow] = {r.key: r for r in store.staged(run_id)}
        self._unwritten: list[OutcomeRow] = []
        self._flushed = time.monotonic()

    def rows(self) -> list[OutcomeRow]:
        return list(self._rows.values())

    def add(self, rows: list[OutcomeRow]) -> None:
        for r in rows:
            self._rows[r.key] = r  # a re-run attempt replaces the old one, as in the store
        self._unwritten += rows
        if time.monotonic() - self._flushed >= self.FLUSH_S:
            self.flush()

    def flush(self) -> None:
        rows, self._unwritten, self._flushed = self._unwritten, [], time.monotonic()
        self.store.stage(self.run_id, rows)

    def __enter__(self) -> Staging:
        return self

    def __exit__(self, *_: object) -> None:
        self.flush()


def check_resume(store: Store, run_id: str, wanted: set[str], names: set[str], corpus_cases: set[str]) -> None:
    """A resumed run adds to what it holds (its staged attempts, its stored cells) and never drops any of it: every
    adapter it ran and every case of the corpus it ran on must be in the resumed selection; RunError otherwise."""
    held = {(r.case, r.adapter) for r in store.staged(run_id)}
    if store.run_dir(run_id).is_dir():
        held |= {(c.case, c.adapter) for c in read_partition(store.results, run_id)}
    if adapters := sorted({a for _, a in held} - names):
        raise RunError(f"run {run_id} holds cells of {', '.join(adapters)}: --resume it with every adapter it ran "
                       "(and any to add), or their verdicts would be dropped")
    if cases := sorted({c for c, _ in held if c in corpus_cases} - wanted):
        raise RunError(f"run {run_id} holds cells of {len(cases)} cases outside this selection (e.g. {cases[0]}): "
                       "--resume it with the --only it ran with, or a wider one")


def reused_attempts(store: Store, run_id: str, cases: list[CaseEntry], specs: list[AdapterSpec]) -> list[OutcomeRow]:
    """The attempts of the latest earlier run in this results dataset (by its recorded start) whose inputs are
    unchanged (harness/confirm.py reusable); none when there is no earlier run."""
    found = reusable_cells(store.results, run_id)  # damaged partitions skipped, cells checked against their digests
    if found is None:
        return []
    earlier, cells = found
    try:
        record = read_record(store.results, earlier)
    except ResultsError:
        record = None
    started = record.info.started if record and record.info.started else "start unknown"

    def attempts_then() -> list[OutcomeRow]:
        try:
            return store.staged(earlier)
        except ResultsError:  # its staging is damaged: what needed it runs again
            return []

    return reusable(cells, f"{earlier} (started {started})", cases, specs, attempts_then)


PREPARED_SHOWN_S = 1.0  # a preparation that took longer is the one-time kind (a compile, an install): it is timed


T = TypeVar("T")


def in_background(fn: Callable[..., T], *args: object) -> Future[T]:
    """`fn(*args)` in a daemon thread (a run refused meanwhile does not wait for it to end)."""
    future: Future[T] = Future()

    def work() -> None:
        try:
            future.set_result(fn(*args))
        except BaseException as e:
            future.set_exception(e)

    threading.Thread(target=work, name="background", daemon=True).start()
    return future


PREPARING_AT_ONCE = 4  # preparations wait mostly on the network (npm, PyPI) or on javac: a few at once


def prepare_adapters(specs: list[AdapterSpec], progress: Progress | None = None) -> dict[str, float]:
    """What an adapter's worker needs before it can start (a compiled Java worker, an npm prefix, a release's
    environment) is made here, on the driver, where its progress is seen, a few at once; the workers then find it
    cached. An adapter that cannot be prepared is left to its worker, which reports it unavailable. Returns the
    seconds of each preparation that took longer than PREPARED_SHOWN_S (the one-time steps: later runs find them
    cached)."""
    todo = [s for s in specs if s.command is None]
    took: dict[str, float] = {}

    def one(spec: AdapterSpec) -> None:
        t0 = time.monotonic()
        with contextlib.suppress(Exception):  # its worker says why, in one line, as every unavailable adapter does
            worker_command(spec.build())
        if (seconds := time.monotonic() - t0) > PREPARED_SHOWN_S:
            took[spec.name] = seconds
            if progress:
                progress(f"prepared {spec.name} in {seconds:.1f}s (once: cached for later runs)")

    if todo and progress:
        progress(f"preparing {len(todo)} adapters")
    with ThreadPoolExecutor(max_workers=PREPARING_AT_ONCE, thread_name_prefix="prepare") as pool:
        list(pool.map(one, todo))
    return took
