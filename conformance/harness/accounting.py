"""CPU accounting per adapter, for the benchmarks (bench/matrix.py): when PARQUET_CONFORMANCE_CPUACCT names a cgroup
(a cpuacct folder the benchmark made and may write), each worker process is moved, as it starts, into the child
group `adapter-<name>`, so that its CPU-seconds, and those of everything it starts (a JVM, Node), are counted apart.
Unset (every ordinary run), this does nothing; a group that cannot be written is skipped, never a failure.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

ENV = "PARQUET_CONFORMANCE_CPUACCT"


def group(adapter: str) -> str:
    return "adapter-" + re.sub(r"[^A-Za-z0-9._+-]", "_", adapter)


def enter(pid: int, adapter: str) -> None:
    """The process (and what it started so far) into the adapter's group, when accounting is on."""
    root = os.environ.get(ENV)
    if not root:
        return
    if not (Path(root) / "cpuacct.usage").exists():
        # cgroup v2: the worker's place is its box's (transport.Box, killed as one); the box is below this process's
        # group, so the run's total still counts it, without a split per adapter
        return
    path = Path(root) / group(adapter)
    with contextlib.suppress(OSError):
        path.mkdir(exist_ok=True)
        for p in [pid, *_children(pid)]:
            with contextlib.suppress(OSError):
                (path / "cgroup.procs").write_text(str(p), encoding="utf-8")


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text(encoding="utf-8").split()]
    except (OSError, ValueError):
        return []
