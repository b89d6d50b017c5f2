"""The driver itself dies: by SIGKILL (nothing of ours runs afterwards) or SIGTERM. No worker, nor any child
of a worker, may outlive it: each worker runs under a reaper that the kernel tells when the driver is gone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from parquet_conformance.corpus.build import generate
from tests.helpers import CLI
from tests.hostile import WORKER, assert_nothing_left, survivors, token


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("corpus")
    generate(out, only="corrupt/tiny/*")
    return out


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
@pytest.mark.parametrize("mode", ["hang", "child-then-hang"])
def test_nothing_outlives_the_driver(corpus: Path, tmp_path: Path, sig: signal.Signals, mode: str) -> None:
    mark = token()
    command = f"{sys.executable} {WORKER} {mode} {mark} --all-bad"
    driver = subprocess.Popen([*CLI, "run", "--corpus", str(corpus), "--out", str(tmp_path / "out"), "--master",
                               "none", "--adapter-cmd", f"h={command}"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        # Wait until the worker is busy (hang) or busy with its child left behind (child-then-hang).
        while len(survivors(mark)) < (1 if mode == "hang" else 2) and time.monotonic() < deadline:
            assert driver.poll() is None, "the driver ended before the worker started"
            time.sleep(0.1)
        assert survivors(mark), "the worker never started"
        os.kill(driver.pid, sig)
        driver.wait(timeout=60)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert_nothing_left(mark)
