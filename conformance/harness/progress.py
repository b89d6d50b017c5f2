"""Progress while cells run: cells per adapter, planned, under way and finished, as one line (`Counts.line`) that a
run's heartbeat prints at any moment. It counts any task that names its adapter and its cells (`Share`: the tasks of
harness/cells.py), also where the executor hands a task's rows over only at its end (harness/spark.py Ticks).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sized
from typing import Protocol


class Share(Protocol):
    """One adapter's share of the cells, as a task carries it."""

    @property
    def adapter(self) -> str: ...

    @property
    def jobs(self) -> Sized: ...


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

    def plan(self, tasks: Iterable[Share]) -> None:
        with self._lock:
            for t in tasks:
                self.total[t.adapter] = self.total.get(t.adapter, 0) + len(t.jobs)

    def start(self, adapter: str) -> None:
        """A task of the adapter is under way (an executor that hands over rows only at a task's end, Spark's, shows
        at least which adapters are reading)."""
        with self._lock:
            self.started.add(adapter)

    def add(self, adapter: str, n: int, task: Share | None = None) -> None:
        with self._lock:
            self.done[adapter] = self.done.get(adapter, 0) + n
            if task is not None:
                self._partial.pop(id(task), None)
                self._ended.add(id(task))

    def running(self, task: Share, n: int) -> None:
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
