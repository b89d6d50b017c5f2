"""Cells: (case, adapter) pairs, run through persistent workers.

`AdapterSpec` is the one way to build an adapter and its worker (by registered name, or an external
command); `WorkerSet.run` is what one executor does with one case (every adapter of the case's
track); `run_locally` runs jobs without Spark (`--master none`), as a Spark task runs its share
(harness/spark.py). Judging happens afterwards, once every outcome, including each adapter's baseline,
is known (harness/judge.py).
"""

from __future__ import annotations

import contextlib
import copy
import shlex
import statistics
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from parquet_conformance.conformance import adapters
from parquet_conformance.conformance.adapters import Adapter, AdapterUnavailable, CommandAdapter
from parquet_conformance.conformance.harness.envs import check_version
from parquet_conformance.conformance.harness.model import OutcomeRow, Timeout
from parquet_conformance.conformance.harness.protocol import StartReply
from parquet_conformance.conformance.harness.workers import Worker
from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus.model import NAME_RE, CaseEntry


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
        return Worker(adapter, self.argv(), tracks.get(adapter.track).normalize)

    def with_fingerprint(self) -> AdapterSpec:
        """The spec with its adapter's fingerprint (None for an external command: its version is unknown until it
        runs), so that its attempts record what they depended on."""
        return replace(self, fingerprint=None if self.command is not None else self.build().fingerprint())


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


Progress = Callable[[str, str], None]


@dataclass(frozen=True)
class Attempt:
    """Which cells of a case to run, and how: `adapters` None is every adapter of the case's track; `confirm` marks
    the confirmation pass (run in worker processes of their own, made for the pass: see run_locally and
    spark._cells_in_task); `fresh` runs each in a new worker process that reads only this case."""

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
    """Persistent workers per adapter; `run_many` gives, per case, one outcome row per adapter of the case's track.

    Each worker has a lane: a thread of its own for the life of the set, in which it is read and, after a death,
    started again, reading its queue of cases in order (so its history is the order given). Every (case, adapter)
    is queued on its lane at once: an adapter works through the cases at its own pace, and one adapter's latency (a
    JVM planning a Spark job, a Node round trip) overlaps the others' work instead of adding to it. An adapter with
    `copies` > 1 (a latency-bound one: spark) has that many workers, each its own lane, taking the cases in turn. A
    worker is always spawned by a thread that outlives it (its lane, or the caller of start_all): the reaper's
    parent-death signal follows the spawning thread (workers.Worker.launch)."""

    def __init__(self, specs: Iterable[AdapterSpec]) -> None:
        self.specs = {spec.name: spec for spec in specs}
        self.copies = {name: [spec.worker() for _ in range(max(1, spec.build().copies))]
                       for name, spec in self.specs.items()}
        self.workers = {name: copies[0] for name, copies in self.copies.items()}  # the first copy of each
        self.pace = {name: Pace() for name in self.specs}
        self.lanes = {(name, k): ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"lane-{name}-{k}")
                      for name, copies in self.copies.items() for k in range(len(copies))}

    def start_all(self) -> dict[str, float]:
        """Starts every worker at once (a JVM starting does not hold back the others); the seconds each adapter's
        took (unavailable ones included: their reason is kept for their cells). The processes are spawned here, in
        the caller's thread (see Worker.launch); only the waiting is done by a thread each."""
        t0 = time.monotonic()
        every = [(name, w) for name, copies in self.copies.items() for w in copies]
        asked = [w.launch() for _, w in every]

        def wait(i: int) -> float:
            with contextlib.suppress(AdapterUnavailable):
                every[i][1].await_start(asked[i])
            return time.monotonic() - t0

        with ThreadPoolExecutor(max_workers=max(1, len(every))) as pool:
            took = list(pool.map(wait, range(len(every))))
        out: dict[str, float] = {}
        for (name, _), seconds in zip(every, took, strict=True):
            out[name] = max(out.get(name, 0.0), seconds)
        return out

    def names(self, case: CaseEntry, attempt: Attempt) -> list[str]:
        return [n for n, w in self.workers.items() if w.adapter.track == case.track
                and (attempt.adapters is None or n in attempt.adapters)]

    def run(self, case: CaseEntry, path: Path, attempt: Attempt = Attempt(),
            progress: Progress | None = None) -> list[OutcomeRow]:
        return next(self.run_many([(case, path, attempt)], progress))

    def run_many(self, items: Iterable[tuple[CaseEntry, Path, Attempt]],
                 progress: Progress | None = None) -> Iterator[list[OutcomeRow]]:
        """Every (case, adapter) of the items queued on its lane at once; the rows yielded per case, in the items'
        order (a case's files must stay until its rows are yielded)."""
        pending = []
        for i, (case, path, attempt) in enumerate(items):
            pending.append([self.lanes[n, i % len(self.copies[n])].submit(
                self.run_one, n, case, path, attempt, progress, i % len(self.copies[n]))
                for n in self.names(case, attempt)])
        for futures in pending:
            yield [f.result() for f in futures]

    def run_one(self, name: str, case: CaseEntry, path: Path, attempt: Attempt = Attempt(),
                progress: Progress | None = None, copy: int = 0) -> OutcomeRow:
        worker = self.specs[name].worker() if attempt.fresh else self.copies[name][copy]
        full = worker.adapter.timeout_s
        limit = full if attempt.fresh else self.pace[name].limit(full)
        if progress:
            progress(case.id, name)
        try:
            timed = worker.read(str(path), case.id, case.op, timeout_s=limit)
            info = worker.info
        finally:
            if attempt.fresh:
                worker.close()
        timeout = isinstance(timed.outcome, Timeout)
        if not attempt.fresh and not timeout and timed.previous_case is not None:  # a warm worker's own pace
            self.pace[name].seconds.append(timed.duration_s)
        roles = list(info.roles) if info and info.roles else worker.adapter.role_names()
        return OutcomeRow.of(
            case=case.id, adapter=name, implementation=implementation(info) if info else worker.adapter.implementation,
            version=info.version if info else None, roles=roles,
            outcome=timed.outcome, duration_s=timed.duration_s, round=attempt.round, fresh=attempt.fresh,
            previous_case=timed.previous_case, cut_short=timeout and limit < full, library_s=timed.library_s,
            confirming=attempt.confirm, fingerprint=self.specs[name].fingerprint, case_sha256=case.sha256 or None)

    def close(self) -> None:
        for copies in self.copies.values():
            for worker in copies:
                worker.close()
        for lane in self.lanes.values():
            lane.shutdown(wait=False)


Job = tuple[CaseEntry, Attempt]


def run_locally(jobs: list[Job], root: Path, specs: list[AdapterSpec], stage: Callable[[list[OutcomeRow]], None],
                progress: Callable[[int, int], None] | None = None, say: Callable[[str], None] | None = None) -> None:
    """The jobs without Spark (`--master none`): one persistent worker per adapter, each case's rows staged as they
    come."""
    workers = WorkerSet(specs)
    try:
        if say and not any(a.fresh or a.confirm for _, a in jobs):
            say(f"starting {len(specs)} adapter workers (JVMs take ~10 s)")
            workers.start_all()
        items = [(case, (root / case.file).resolve(), attempt) for case, attempt in jobs]
        for i, rows in enumerate(workers.run_many(items), 1):
            stage(rows)
            if progress:
                progress(i, len(jobs))
    finally:
        workers.close()
