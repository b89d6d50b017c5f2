"""Containment that does not depend on the reaper surviving (issue 29, class 5): a worker that kills or stops its
reaper after starting a daemon leaves nothing running, with a cgroup and with the watchdog alone; a worker killed by
SIGKILL (what the OOM killer sends) is an `oom` cell, with no traceback of ours; each worker's temporary folder is
its own and removed with it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from parquet_conformance.conformance.harness import transport
from parquet_conformance.conformance.harness.model import OutOfMemory, Read, Rejected
from tests.hostile import assert_nothing_left, token
from tests.hostile.test_workers import fake


@pytest.fixture(params=["cgroup", "watchdog"])
def containment(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "watchdog":
        monkeypatch.setenv(transport.NO_CGROUP_ENV, "1")
    elif transport._cgroup_parent() is None:
        pytest.skip("no cgroup v2 folder this process may make cgroups in")
    return str(request.param)


@pytest.mark.parametrize("mode", ["kill-reaper", "stop-reaper"])
def test_a_worker_that_kills_or_stops_its_reaper_leaves_nothing_running(mode: str, containment: str) -> None:
    mark = token()
    worker = fake(mode, mark, timeout=3.0)  # the daemon keeps the pipe open: the cell ends at the timeout
    try:
        first = worker.read("/x/bad.parquet", "c/bad")
        second = worker.read("/x/good.parquet", "c/good")  # a fresh worker: the next cell runs
    finally:
        worker.close()
    assert_nothing_left(mark)  # the daemon too, though its reaper could kill nothing
    assert isinstance(second.outcome, Read), second.outcome
    assert first.outcome.kind != "read"


def test_sigkill_is_oom_and_no_traceback_of_ours() -> None:
    mark = token()
    worker = fake("sigkill", mark)
    try:
        timed = worker.read("/x/bad.parquet", "c/bad")
        assert isinstance(timed.outcome, OutOfMemory), timed.outcome
        assert "killed by SIGKILL" in timed.outcome.error.cls, timed.outcome
        assert "Traceback" not in timed.outcome.error.message and "reaper" not in timed.outcome.error.message
        assert isinstance(worker.read("/x/good.parquet", "c/good").outcome, Read)
    finally:
        worker.close()
    assert_nothing_left(mark)


def test_each_worker_has_a_private_temporary_folder_removed_with_it(containment: str) -> None:
    mark = token()
    worker = fake("tmp-litter", mark)
    try:
        timed = worker.read("/x/bad.parquet", "c/bad")
        assert isinstance(timed.outcome, Rejected), timed.outcome
        folder = Path(timed.outcome.error.message)
        assert folder.name.startswith("parquet-conformance-worker-") and any(folder.iterdir())
    finally:
        worker.close()
    assert not folder.exists()
    assert_nothing_left(mark)


def test_the_box_holds_what_escaped_the_session(containment: str) -> None:
    """The box alone (no reaper involved): a double-forked process carrying its token is killed by `kill`."""
    box = transport.Box.make()
    pid = os.fork()
    if pid == 0:  # the daemon: a session of its own, the box's token in its environment, in its cgroup when any
        try:
            os.setsid()
            if box.cgroup is not None:
                (box.cgroup / "cgroup.procs").write_text(str(os.getpid()))
            os.execve("/bin/sleep", ["sleep", "600"], {**os.environ, **box.env()})
        finally:
            os._exit(1)
    try:
        import time

        deadline = time.monotonic() + 10
        while not transport._carrying(box.token) and time.monotonic() < deadline:
            time.sleep(0.01)
        box.kill()
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status), status
        assert not box.tmp.exists() and (box.cgroup is None or not box.cgroup.exists())
    finally:
        with __import__("contextlib").suppress(ProcessLookupError):
            os.kill(pid, 9)
