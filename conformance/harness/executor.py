"""The executor seam's contract: what runs tasks (`Executor`), and the local one. Which executor a command gets is
decided in one place, harness/placement.py `executor_for` (`--master`, `--remote`, `--conf`), and every command that
runs tasks goes through it: `run` (cells, their confirmation), `run --writers` (writes, and the written files' cells),
`fuzz` (batches), `bisect` (a release's cells); the skip-overhead measurement takes an executor as given.

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
from typing import Any, Protocol, Self, TypeVar

import pyarrow as pa

T = TypeVar("T")
Body = Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]


def always() -> bool:
    return True


class Executor(Protocol):
    master: str  # "none", or the Spark master
    shared_disk: bool  # its tasks can read this machine's files by path

    @property
    def slots(self) -> int: ...

    @property
    def started_s(self) -> float:
        """The seconds it took to start (a Spark session's start; 0 for one that needs none, or until it started)."""

    def run(self, tasks: Iterable[Any], table_of: Callable[[Any], pa.Table], body: Body, schema: pa.Schema,
            done: Callable[[Any, pa.Table], None], more: Callable[[], bool] = always,
            at_once: int | None = None, tick: Callable[[Any, int], None] | None = None) -> None:
        """Every task (new ones taken while `more()`: `tasks` may be endless), at most `at_once` at a time (default:
        the slots); `done(task, result)` as results come; `tick(task, rows)`, where an executor hands a task's
        result over only at its end, the rows it has made so far (for progress; no row is handed over by it)."""

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *_: object) -> None: ...


class Closing:
    """An executor as a context manager: closed on leaving, whatever happened."""

    def close(self) -> None:
        """Nothing to close."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class LocalExecutor(Closing):
    """Tasks in threads of this process, one per slot (the cores): a task's worker processes do the work, so that
    no more of them are busy than there are cores. Nothing outlives `run`: what a body keeps between its tasks is the
    body's to close."""

    master = "none"
    shared_disk = True
    started_s = 0.0  # nothing to start

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
        with ThreadPoolExecutor(max_workers=width, thread_name_prefix="pqc-slot") as pool:
            loop(pool, tasks, one, width, more)


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
