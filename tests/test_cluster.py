"""The pipeline on a real Spark standalone cluster (master + worker on loopback, started from the
pyspark wheel alone). Slow: run with `pytest -m slow`; .ci/run does."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from parquet_conformance.conformance.results import read_cells
from tests.helpers import CLI

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the Spark daemon exited"
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.5)
    raise TimeoutError(f"nothing listens on {port}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from pyspark.find_spark_home import _find_spark_home

    spark_class = Path(_find_spark_home()) / "bin" / "spark-class"
    logs = tmp_path_factory.mktemp("spark-logs")
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(logs), "SPARK_WORKER_DIR": str(logs)}
    port = free_port()
    master = subprocess.Popen([str(spark_class), "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                               "--port", str(port), "--webui-port", str(free_port())], env=env,
                              stdout=open(logs / "master.log", "w"), stderr=subprocess.STDOUT, start_new_session=True)
    url = f"spark://127.0.0.1:{port}"
    worker = None
    try:
        wait_for_port(port, master)
        worker = subprocess.Popen([str(spark_class), "org.apache.spark.deploy.worker.Worker", url, "--host",
                                   "127.0.0.1", "--cores", "2", "--memory", "4g", "--webui-port", str(free_port())],
                                  env=env, stdout=open(logs / "worker.log", "w"), stderr=subprocess.STDOUT,
                                  start_new_session=True)
        time.sleep(3)
        yield url
    finally:
        for proc in (worker, master):
            if proc is not None:
                os.killpg(proc.pid, 9)
                proc.wait()


def test_run_on_a_standalone_cluster(cluster: str, tmp_path: Path) -> None:
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"}
    proc = subprocess.run([*CLI, "run", "--out", str(tmp_path),
                           "--master", cluster,
                           "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.executor.memory=2g",
                           "--only", "base/*,corrupt/footer-length/*", "--adapter", "pyarrow",
                           "--adapter", "datafusion", "--run-id", "cluster"],
                          capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    _, cells = read_cells(tmp_path / "results", "cluster")
    manifest = json.loads((tmp_path / "corpus" / "manifest.json").read_text())
    wanted = [c["id"] for c in manifest["cases"] if c["id"].startswith(("base/", "corrupt/footer-length/"))]
    assert sorted((c.case, c.adapter) for c in cells) == sorted(
        (case, a) for case in wanted for a in ("pyarrow", "datafusion"))
    assert all(c.verdict == "pass" for c in cells if c.adapter == "pyarrow")
