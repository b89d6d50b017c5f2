"""CPU accounting for the benchmarks: what a run and every process it starts cost in CPU-seconds, which a busy
machine cannot hide (wall time it can).

    python bench/cpu.py -- COMMAND ...     runs COMMAND in a CPU account of its own; prints its CPU-s and wall

Where a cpuacct cgroup can be made (cgroup v1 at /sys/fs/cgroup/cpuacct, or v2 with the cpu controller, and the
right to write there: root, or a delegated subtree), the account is one: every process started inside it, JVMs and
their threads included, is counted, however it ends; a child account per adapter splits the run's figure (the
harness puts each worker in its adapter's account when PARQUET_CONFORMANCE_CPUACCT names one:
conformance/harness/accounting.py). Elsewhere the account is the rusage of this process and of every process below
it that ends before the account is read (this process becomes a child subreaper so that orphans are reaped here
too): no split per adapter, and a process still running when it is read is not in it.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

V1 = Path("/sys/fs/cgroup/cpuacct")
V2 = Path("/sys/fs/cgroup")
PR_SET_CHILD_SUBREAPER = 36


def _v2_ready() -> bool:
    return (V2 / "cgroup.controllers").is_file() and "cpu" in (V2 / "cgroup.subtree_control").read_text().split()


class Account:
    """A cgroup that counts CPU-seconds (`usage`), with child accounts (`child`); `enter` moves a process in."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.v2 = not (path / "cpuacct.usage").exists()

    @staticmethod
    def make(name: str) -> Account | None:
        """A new account at the top of the hierarchy, or None where none can be made here."""
        for root in (V1, V2):
            if root == V2 and not _v2_ready():
                continue
            path = root / f"{name}-{os.getpid()}"
            try:
                path.mkdir()
            except OSError:
                continue
            return Account(path)
        return None

    def child(self, name: str) -> Account:
        path = self.path / name
        path.mkdir(exist_ok=True)
        return Account(path)

    def children(self) -> dict[str, Account]:
        return {p.name: Account(p) for p in sorted(self.path.iterdir()) if p.is_dir()}

    def enter(self, pid: int) -> None:
        (self.path / "cgroup.procs").write_text(str(pid))

    def usage(self) -> float:
        """CPU-seconds of every process that ever ran here (or in a child account)."""
        if not self.v2:
            return int((self.path / "cpuacct.usage").read_text()) / 1e9
        for line in (self.path / "cpu.stat").read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) / 1e6
        return 0.0

    def remove(self) -> None:
        """The account and its children, once their processes are gone (theirs move to the parent first)."""
        for child in self.children().values():
            child.remove()
        parent = self.path.parent
        with contextlib.suppress(OSError):
            for pid in (self.path / "cgroup.procs").read_text().split():
                with contextlib.suppress(OSError):
                    (parent / "cgroup.procs").write_text(pid)
            self.path.rmdir()


def rusage_s() -> float:
    """This process's CPU-seconds and those of every ended process below it (reaped here)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def become_subreaper() -> bool:
    """Orphans below this process are reparented here (and reaped here: their rusage counts), not to init."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def reap_orphans() -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


class Sampler:
    """The account's usage every `every` seconds, in a thread: the CPU spent between two monotonic times
    (`between`), e.g. a run's phases, which the run marks in its own timings."""

    def __init__(self, read: Callable[[], float], every: float = 0.2) -> None:
        self.read, self.every = read, every
        self.points: list[tuple[float, float]] = [(time.monotonic(), read())]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            self.points.append((time.monotonic(), self.read()))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self.points.append((time.monotonic(), self.read()))

    def at(self, t: float) -> float:
        """The usage at monotonic time t, interpolated between the samples around it."""
        pts = self.points
        if t <= pts[0][0]:
            return pts[0][1]
        for (t0, u0), (t1, u1) in itertools.pairwise(pts):
            if t0 <= t <= t1:
                return u0 + (u1 - u0) * ((t - t0) / (t1 - t0) if t1 > t0 else 1.0)
        return pts[-1][1]

    def between(self, start: float, end: float) -> float:
        return self.at(end) - self.at(start)


@contextlib.contextmanager
def accounted(name: str) -> Iterator[tuple[Account | None, Callable[[], float]]]:
    """This process (and all it starts from now on) in a new account; yields it (None: rusage instead) and a
    function that reads its CPU-seconds so far."""
    account = Account.make(name)
    if account is None:
        become_subreaper()

        def read() -> float:
            reap_orphans()
            return rusage_s()

        yield None, read
        return
    account.enter(os.getpid())
    try:
        yield account, account.usage
    finally:
        account.remove()


def main() -> int:
    argv = sys.argv[1:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        print(__doc__.splitlines()[2].strip(), file=sys.stderr)
        return 2
    with accounted("pqc-cpu") as (account, read):
        cpu0, t0 = read(), time.monotonic()
        rc = subprocess.call(argv)
        wall = time.monotonic() - t0
        cpu = read() - cpu0
    how = "one cgroup" if account is not None else "rusage of ended processes"
    print(f"cpu {cpu:.1f} s, wall {wall:.1f} s ({how}); exit {rc}", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
