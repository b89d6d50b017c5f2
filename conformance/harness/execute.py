"""Cells: (case, adapter) pairs, read by workers, in tasks any executor runs (conformance/harness/executor.py).

`AdapterSpec` is the one way to build an adapter and its worker (by registered name, or an external command).
`run_cells` is the one way to run cells: it cuts them into tasks, one adapter each (`plan_cells`: the costliest
first, an adapter split only to fill idle slots or to keep one task from outlasting the rest), and hands them to
the executor; a task (`cells_in_task`, the same body locally and in a Spark executor) reads its cells in order with
a worker process made for the task and closed after it, so that no more workers are busy than the executor has
slots, and only adapters with cells to run start one. Judging happens afterwards, once every outcome, including each
adapter's baseline, is known (harness/judge.py).
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import functools
import itertools
import json
import math
import shlex
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from parquet_conformance.conformance import adapters
from parquet_conformance.conformance.adapters import Adapter, AdapterUnavailable, CommandAdapter
from parquet_conformance.conformance.harness.derived import OUTCOME_SCHEMA
from parquet_conformance.conformance.harness.envs import check_version
from parquet_conformance.conformance.harness.model import Error, HarnessError, OutcomeRow, Read, Timeout, Unavailable
from parquet_conformance.conformance.harness.protocol import StartReply
from parquet_conformance.conformance.harness.workers import Worker
from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus.dist import sha256_file
from parquet_conformance.corpus.model import NAME_RE, CaseEntry, Manifest
from parquet_conformance.generators.representations import Representation

if TYPE_CHECKING:
    from parquet_conformance.conformance.harness.executor import Executor


class SpecError(ValueError):
    """An adapter that cannot be built as given (unknown name, bad command line)."""


@dataclass(frozen=True)
class AdapterSpec:
    """A registered adapter by name, a release of one (`NAME==VERSION`, `NAME@VERSION`: its cells are named
    `NAME-VERSION`), or an external one by command line (`NAME=COMMAND`), with an optional per-cell timeout
    that overrides the adapter's own."""

    name: str
    command: str | None = None
    track: str | None = None  # for an external adapter: the track its worker reads (default: the first registered)
    timeout_s: float | None = None
    release: str | None = None  # a released version, run in an environment of its own (conformance/harness/envs.py)
    of: str | None = None  # the registered adapter a release belongs to
    fingerprint: str | None = None  # Adapter.fingerprint, computed once on the driver (with_fingerprint)

    @staticmethod
    def parse(text: str) -> AdapterSpec:
        """NAME, NAME==VERSION (PyPI) or NAME@VERSION (npm)."""
        name, sep, version = text.partition("==")
        if not sep and "@" in text:
            name, sep, version = text.rpartition("@")
        if not sep:
            return AdapterSpec(text.strip())
        name, version = name.strip(), version.strip()
        try:
            check_version(version)
        except ValueError as e:
            raise SpecError(f"--adapter {text}: {e}") from None
        return AdapterSpec(f"{name}-{version}", release=version, of=name)

    @staticmethod
    def parse_external(text: str, track: str | None = None) -> AdapterSpec:
        name, sep, command = text.partition("=")
        name = name.strip()
        if not sep or not name or not command.strip():
            raise SpecError(f"--adapter-cmd wants NAME='command ...', got {text!r}")
        spec = AdapterSpec(name, command, track)
        spec.argv()  # a command a shell could not split is an error now, not in a worker
        return spec

    def __post_init__(self) -> None:
        if not NAME_RE.fullmatch(self.name):
            raise SpecError(f"adapter name {self.name!r}: use letters, digits, '.', '_', '+', '-'")

    def options(self) -> list[str]:
        """How a command line of parquet-conformance (`read`, `run`) names this adapter again: what a report's
        reproduction command uses."""
        if self.command is not None:
            return ["--adapter-cmd", f"{self.name}={self.command}", *(["--track", self.track] if self.track else [])]
        if self.release is not None and self.of is not None:
            npm = getattr(self.build(), "index", "pypi") == "npm"
            return ["--adapter", f"{self.of}{'@' if npm else '=='}{self.release}"]
        return ["--adapter", self.name]

    def argv(self) -> list[str] | None:
        if self.command is None:
            return None
        try:
            argv = shlex.split(self.command)
        except ValueError as e:
            raise SpecError(f"--adapter-cmd {self.name}: {e}") from None
        if not argv:
            raise SpecError(f"--adapter-cmd {self.name}: empty command")
        return argv

    def build(self) -> Adapter:
        if self.command is None:
            try:
                adapter = copy.copy(adapters.get(self.of or self.name))  # a copy: changes stay with this spec
            except LookupError as e:
                raise SpecError(str(e)) from None
            if self.release is not None:
                adapter.release = self.release
        else:
            adapter = CommandAdapter()
            adapter.name, adapter.implementation = self.name, self.name
            adapter.track = self.track or tracks.names()[0]
        if self.timeout_s is not None:
            adapter.timeout_s = self.timeout_s
        return adapter

    def worker(self) -> Worker:
        adapter = self.build()
        return Worker(adapter, self.argv(), tracks.get(adapter.track).normalize, self.name)

    def with_fingerprint(self) -> AdapterSpec:
        """The spec with its adapter's fingerprint (None for an external command: its version is unknown until it
        runs), so that its attempts record what they depended on."""
        return replace(self, fingerprint=None if self.command is not None else self.build().fingerprint())


def representations(specs: Iterable[AdapterSpec]) -> dict[str, tuple[Representation, ...]]:
    """Each adapter's documented representations (Adapter.representations), by the name its cells carry (a
    release's NAME-VERSION): what the Judge hashes the bases' expected data under. An external worker has none."""
    return {s.name: tuple(d.representation for d in s.build().representations) for s in specs}


def describe(spec: AdapterSpec) -> dict[str, Any]:
    """Start the adapter's worker once: its description, or why it is unavailable."""
    worker = spec.worker()
    base = {**worker.adapter.describe(), "adapter": spec.name,  # a release is named NAME-VERSION
            "roles": worker.adapter.role_names()}
    try:
        info = worker.start()
        return {**base, "implementation": info.implementation, "engine": info.engine or base["engine"],
                "roles": info.roles or base["roles"], "version": info.version, "available": True, "reason": None}
    except AdapterUnavailable as e:
        return {**base, "version": None, "available": False, "reason": str(e)}
    finally:
        worker.close()


def implementation(info: StartReply) -> str:
    """The implementation a row names, with the engine underneath when it is another library (daft on arrow-rs
    59, parquet-wasm 0.6.1 on arrow-rs 51), so that a report never counts one engine twice by accident."""
    return f"{info.implementation} [{info.engine}]" if info.engine else info.implementation


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
            timed = worker.read(str(path), case.id, case.op, timeout_s=limit, expect=expect)
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


# -- workers kept for the life of an executor's process (fuzz batches) ---------------------------

_KEPT = threading.local()
_KEPT_SETS: list[WorkerSet] = []
_KEPT_LOCK = threading.Lock()


def kept_workers(specs: tuple[AdapterSpec, ...]) -> WorkerSet:
    """A worker set that outlives the task, one per thread that runs tasks (a Spark executor's Python worker, a slot
    of the local executor): the next task of the same adapters finds its workers running. Closed by
    `close_kept` (fuzz, after its batches: the kept workers are its state, unknown to the executor) or when
    the process exits."""
    sets: dict[tuple[AdapterSpec, ...], WorkerSet] | None = getattr(_KEPT, "sets", None)
    if sets is None:
        sets = _KEPT.sets = {}
    if specs not in sets:
        sets[specs] = WorkerSet(specs)
        with _KEPT_LOCK:
            if not _KEPT_SETS:
                atexit.register(close_kept)
            _KEPT_SETS.append(sets[specs])
    return sets[specs]


def close_kept() -> None:
    with _KEPT_LOCK:
        kept, _KEPT_SETS[:] = list(_KEPT_SETS), []
    for workers in kept:
        workers.close()
    _KEPT.__dict__.clear()


# -- cells as tasks ---------------------------------------------------------------------------

Job = tuple[CaseEntry, Attempt]
SPLIT_MIN_S = 1.0  # a task is split only when a part of it would still be worth a worker's start
FLUSH_S = 1.0  # a task hands over its rows at least this often (the local executor's progress)
# case: the CaseEntry as JSON; path (an executor that shares this disk) or data (one that does not); round, fresh,
# confirm: the Attempt; expect: the data hashes that count as the right data (no sample is kept of such a read)
TASK_SCHEMA = pa.schema([("adapter", pa.string()), ("case", pa.string()), ("path", pa.string()),
                         ("data", pa.binary()), ("round", pa.int64()), ("fresh", pa.bool_()), ("confirm", pa.bool_()),
                         ("expect", pa.list_(pa.string()))])


@dataclass(frozen=True)
class CellTask:
    """One adapter's share of the cells, read in order by a worker process made for the task (a fresh one per cell
    for fresh attempts). `cost`: its expected seconds, by which the costliest go first."""

    adapter: str
    jobs: tuple[Job, ...]
    cost: float = 0.0


def plan_cells(jobs: Iterable[Job], specs: list[AdapterSpec], slots: int) -> list[CellTask]:
    """The jobs as tasks of one adapter each, in the jobs' order within a task, costliest first (cells x the
    adapter's `cell_cost_s`). A task is split (every n-th cell, so that big cases spread) while there are fewer tasks
    than slots, or when it alone would cost more than an even share of the slots: an adapter's second worker costs
    its start, an idle slot or a long tail costs more."""
    by_adapter: dict[str, list[Job]] = {}
    tracks_of = {s.name: s.build().track for s in specs}
    for case, attempt in jobs:
        for name in (attempt.adapters or [n for n, t in tracks_of.items() if t == case.track]):
            if tracks_of.get(name) == case.track:
                by_adapter.setdefault(name, []).append((case, replace(attempt, adapters=(name,))))
    cell_cost = {s.name: s.build().cell_cost_s for s in specs}
    tasks = [CellTask(name, tuple(js), len(js) * cell_cost[name]) for name, js in by_adapter.items()]
    total = sum(t.cost for t in tasks)
    share = total / max(1, slots)
    out: list[CellTask] = []
    for task in sorted(tasks, key=lambda t: -t.cost):
        parts = max(1, math.ceil(task.cost / share) if share > 0 else 1)
        out += _split(task, parts)
    while len(out) < slots:
        biggest = max(out, key=lambda t: t.cost, default=None)
        if biggest is None or len(biggest.jobs) < 2 or biggest.cost / 2 < SPLIT_MIN_S:
            break
        out.remove(biggest)
        out += _split(biggest, 2)
    return sorted(out, key=lambda t: -t.cost)


def _split(task: CellTask, parts: int) -> list[CellTask]:
    parts = min(parts, len(task.jobs), max(1, int(task.cost // SPLIT_MIN_S)))
    if parts <= 1:
        return [task]
    return [CellTask(task.adapter, task.jobs[k::parts], task.cost * len(task.jobs[k::parts]) / len(task.jobs))
            for k in range(parts)]


def cells_table(task: CellTask, root: Path, with_data: bool,
                expected: Mapping[str, frozenset[str]] | None = None) -> pa.Table:
    """A task's input: a row per cell, with the case file's path, or its bytes for an executor without this disk."""
    jobs = task.jobs
    return pa.table({"adapter": [task.adapter] * len(jobs), "case": [json.dumps(c.to_json()) for c, _ in jobs],
                     "path": [None if with_data else str((root / c.file).resolve()) for c, _ in jobs],
                     "data": [(root / c.file).read_bytes() if with_data else None for c, _ in jobs],
                     "round": [a.round for _, a in jobs], "fresh": [a.fresh for _, a in jobs],
                     "confirm": [a.confirm for _, a in jobs],
                     "expect": [sorted((expected or {}).get(c.id, ())) for c, _ in jobs]}, schema=TASK_SCHEMA)


def cells_in_task(batches: Iterator[pa.RecordBatch], specs: tuple[AdapterSpec, ...]) -> Iterator[pa.RecordBatch]:
    """A task's body (the local executor's and a Spark executor's alike): each cell read in order by a worker of its
    adapter made for this task, the rows handed over at least every FLUSH_S seconds; the workers are closed at the
    end. A case that came as bytes is written to a temporary file of its own (a name never used twice in a task: a
    reader may keep what it learnt of a file by its name, as Velox does)."""
    by_name = {s.name: s for s in specs}
    workers: WorkerSet | None = None
    pending: list[dict[str, Any]] = []
    flushed, names = time.monotonic(), itertools.count()
    try:
        with tempfile.TemporaryDirectory(prefix="pqc-task-") as tmp:
            for batch in batches:
                for cell in batch.to_pylist():
                    if workers is None:
                        workers = WorkerSet([by_name[cell["adapter"]]])
                    case = CaseEntry.from_json(json.loads(cell["case"]))
                    path = Path(cell["path"] or Path(tmp) / f"case-{next(names)}{Path(case.file).suffix}")
                    if cell["path"] is None:
                        path.write_bytes(cell["data"])
                    attempt = Attempt((cell["adapter"],), cell["round"], cell["fresh"], cell["confirm"])
                    pending.append(workers.run_one(cell["adapter"], case, path, attempt,
                                                   frozenset(cell["expect"] or ())).to_row())
                    if cell["path"] is None:
                        path.unlink()
                    if time.monotonic() - flushed >= FLUSH_S:
                        yield pa.RecordBatch.from_pylist(pending, schema=OUTCOME_SCHEMA)
                        pending, flushed = [], time.monotonic()
            if pending:
                yield pa.RecordBatch.from_pylist(pending, schema=OUTCOME_SCHEMA)
    finally:
        if workers is not None:
            workers.close()


class Counts:
    """Cells per adapter, planned and finished: the progress line of a phase (`line`), at any moment."""

    def __init__(self, what: str) -> None:
        self.what, self.t0 = what, time.monotonic()
        self.total: dict[str, int] = {}
        self.done: dict[str, int] = {}
        self.started: set[str] = set()
        self._partial: dict[int, tuple[str, int]] = {}  # a running task's rows, until its result comes
        self._ended: set[int] = set()
        self._lock = threading.Lock()

    def plan(self, tasks: list[CellTask]) -> None:
        with self._lock:
            for t in tasks:
                self.total[t.adapter] = self.total.get(t.adapter, 0) + len(t.jobs)

    def start(self, adapter: str) -> None:
        """A task of the adapter is under way (an executor that hands over rows only at a task's end, Spark's, shows
        at least which adapters are reading)."""
        with self._lock:
            self.started.add(adapter)

    def add(self, adapter: str, n: int, task: CellTask | None = None) -> None:
        with self._lock:
            self.done[adapter] = self.done.get(adapter, 0) + n
            if task is not None:
                self._partial.pop(id(task), None)
                self._ended.add(id(task))

    def running(self, task: CellTask, n: int) -> None:
        """Rows a task still under way has made (an executor that hands them over only at its end says so)."""
        with self._lock:
            if id(task) not in self._ended:
                self._partial[id(task)] = (task.adapter, n)

    def line(self) -> str:
        with self._lock:
            now = dict(self.done)
            for adapter, n in self._partial.values():
                now[adapter] = now.get(adapter, 0) + n
            done, total = sum(now.values()), sum(self.total.values())
            busy = [f"{a} {now.get(a, 0)}/{n}" for a, n in self.total.items()
                    if now.get(a, 0) < n and (a in self.started or now.get(a, 0))]
            finished = sum(1 for a, n in self.total.items() if self.done.get(a, 0) >= n)
        return (f"[{done}/{total}] {self.what}, {time.monotonic() - self.t0:.0f}s; {finished} of {len(self.total)} "
                f"adapters done" + (f"; under way: {', '.join(busy)}" if busy else ""))


def expected_hashes(manifest: Manifest, cases: Iterable[CaseEntry]) -> dict[str, frozenset[str]]:
    """case -> the data hashes a read of it may give and be right (the judge's good hashes, but the adapter's own
    baseline): a read of one keeps no sample, since no data diff will be drawn of it."""
    return {c.id: frozenset({manifest.bases[c.base].data_hash, *c.expect_hash.values(),
                             *(a.data_hash for a in c.alternatives)}) - {""}
            for c in cases if c.base in manifest.bases}


def run_cells(executor: Executor, jobs: list[Job], root: Path, specs: list[AdapterSpec],
              stage: Callable[[list[OutcomeRow]], None], counts: Counts | None = None,
              tasks: list[list[Job]] | None = None, manifest: Manifest | None = None) -> None:
    """The jobs' cells on the executor, each task's rows handed to `stage` as they come. `tasks`: the jobs already
    cut into tasks of one adapter each (the confirmation pass: harness/confirm.py), instead of `plan_cells`.
    `manifest`: whose expected data hashes spare a right read its sample."""
    if not jobs:
        return
    if tasks is not None:
        planned = [CellTask(t[0][1].adapters[0], tuple(t)) for t in tasks if t and t[0][1].adapters]
    else:
        planned = plan_cells(jobs, specs, executor.slots)
    if counts is not None:
        counts.plan(planned)
    expected = expected_hashes(manifest, {c.id: c for t in planned for c, _ in t.jobs}.values()) if manifest else None

    def done(task: CellTask, result: pa.Table) -> None:
        stage([OutcomeRow.from_row(r) for r in result.to_pylist()])
        if counts is not None:
            counts.add(task.adapter, result.num_rows, task)

    def table_of(task: CellTask) -> pa.Table:  # called as the task is taken up
        if counts is not None:
            counts.start(task.adapter)
        return cells_table(task, root, not executor.shared_disk, expected)

    executor.run(planned, table_of, functools.partial(cells_in_task, specs=tuple(specs)), OUTCOME_SCHEMA, done,
                 tick=counts.running if counts is not None else None)
