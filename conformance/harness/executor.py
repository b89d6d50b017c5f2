"""The executor seam: where tasks run, chosen once from `--master` (`executor_for`) and used alike by `run` (cells,
their confirmation), `run --writers` (writes, and the written files' cells), `fuzz` (batches), `bisect` (a release's
cells) and the skip-overhead measurement.

A task is an Arrow table in and a body that turns it into Arrow batches out (`Body`): the same body runs in a slot of
the local executor (`--master none`: a thread per slot, each task's batches handed over as the body yields them) or
in a Spark executor (harness/spark.py `SparkExecutor`: a small Spark job per task, its result at the task's end). An
executor has `slots` (tasks at once: the cores here, the cluster's parallelism on Spark), runs tasks in the order
given, and calls `done(task, table)` for each result, one call at a time.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pyarrow as pa

from parquet_conformance.conformance.harness.execute import close_kept

T = TypeVar("T")
Body = Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]


def always() -> bool:
    return True


class Executor(Protocol):
    master: str  # "none", or the Spark master
    shared_disk: bool  # its tasks can read this machine's files by path

    @property
    def slots(self) -> int: ...

    def run(self, tasks: Iterable[Any], table_of: Callable[[Any], pa.Table], body: Body, schema: pa.Schema,
            done: Callable[[Any, pa.Table], None], more: Callable[[], bool] = always,
            at_once: int | None = None, tick: Callable[[Any, int], None] | None = None) -> None:
        """Every task (new ones taken while `more()`: `tasks` may be endless), at most `at_once` at a time (default:
        the slots); `done(task, result)` as results come; `tick(task, rows)`, where an executor hands a task's
        result over only at its end, the rows it has made so far (for progress; no row is handed over by it)."""

    def close(self) -> None: ...


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class LocalExecutor:
    """Tasks in threads of this process, one per slot (the cores): a task's worker processes do the work, so that
    no more of them are busy than there are cores."""

    master = "none"
    shared_disk = True

    def __init__(self, slots: int | None = None) -> None:
        self._slots = slots or cores()

    @property
    def slots(self) -> int:
        return self._slots

    def run(self, tasks: Iterable[T], table_of: Callable[[T], pa.Table], body: Body, schema: pa.Schema,
            done: Callable[[T, pa.Table], None], more: Callable[[], bool] = always,
            at_once: int | None = None, tick: Callable[[T, int], None] | None = None) -> None:
        lock = threading.Lock()  # no tick: each batch is handed over as the body yields it

        def one(task: T) -> None:
            for batch in body(iter(table_of(task).to_batches())):
                result = pa.Table.from_batches([batch], schema=schema)
                with lock:
                    done(task, result)

        width = max(1, min(self._slots, at_once or self._slots))
        try:
            with ThreadPoolExecutor(max_workers=width, thread_name_prefix="pqc-slot") as pool:
                loop(pool, tasks, one, width, more)
        finally:
            close_kept()  # workers a body kept for the slot's next task (fuzz) end with the run

    def close(self) -> None:
        """Nothing outlives `run`."""


def loop(pool: ThreadPoolExecutor, tasks: Iterable[T], one: Callable[[T], Any], width: int,
         more: Callable[[], bool], done: Callable[[T, Any], None] | None = None) -> None:
    """At most `width` tasks in flight, the next one submitted as one finishes (while `more()`); the first failure
    is raised once the tasks in flight have been cancelled or have ended."""
    pending_tasks = iter(tasks)
    pending: dict[Future[Any], T] = {}

    def submit() -> bool:
        task = next(pending_tasks, None)
        if task is None:
            return False
        pending[pool.submit(one, task)] = task
        return True

    while len(pending) < width and submit():
        pass
    try:
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                task = pending.pop(future)
                result = future.result()
                if done is not None:
                    done(task, result)
                if more():
                    submit()
    finally:
        for future in pending:
            future.cancel()


def executor_for(master: str, conf: dict[str, str] | None = None, log: Path | None = None,
                 say: Callable[[str], None] | None = None) -> Executor:
    """The executor `--master` names: `none` runs here; any other master is Spark's (its session started on first use,
    so that a run with nothing to run starts none)."""
    if master == "none":
        return LocalExecutor()
    from parquet_conformance.conformance.harness.spark import SparkExecutor

    return SparkExecutor(master, conf or {}, log, say)
