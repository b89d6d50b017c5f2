"""Hostile tests: misbehaving workers, malicious corpora and archives, hostile strings, gate edge cases."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

from tests.helpers import cli_here

WORKER = Path(__file__).parent / "worker.py"


def token() -> str:
    """A marker for a worker's command line: every process it leaves behind still carries it."""
    return f"hostile-{uuid.uuid4().hex[:12]}"


def fake_command(mode: str, mark: str) -> list[str]:
    return [sys.executable, str(WORKER), mode, mark]


def survivors(mark: str) -> list[str]:
    """Live processes whose whole command line (-ww: never cut to a terminal's width) carries `mark`."""
    lines = subprocess.run(["ps", "-ww", "-eo", "pid,stat,args"], capture_output=True, text=True, check=True).stdout
    return [ln for ln in lines.splitlines() if mark in ln and " Z" not in ln and "ps -ww" not in ln]


def assert_nothing_left(mark: str, within_s: float = 10.0) -> None:
    """No process carrying `mark` is alive (zombies of a dead parent do not count) once `within_s` passed."""
    deadline = time.monotonic() + within_s
    while (left := survivors(mark)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not left, f"processes left behind: {left}"


def cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
        timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """The command line in a new process, its streams captured."""
    from tests.helpers import CLI

    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env={**os.environ, **(env or {})})


def cli_for(param: object, params: Sequence[object]) -> Callable[..., subprocess.CompletedProcess[str]]:
    """cli (a new process) for the first of a parametrized test's parameters, cli_here for the others."""
    return cli if param == params[0] else cli_here


def one_line(proc: subprocess.CompletedProcess[str], code: int = 2) -> str:
    """A refusal as the brief wants it: exit `code`, one line on stderr, no traceback."""
    assert proc.returncode == code, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    return proc.stderr
