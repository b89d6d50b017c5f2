"""The pipeline scaled out: a Spark standalone cluster (a master and two workers on loopback) and a Spark
Connect server, both started from the pyspark wheel alone, give the same verdicts as the embedded `local[*]`.
Slow: run with `pytest -m slow`; .ci/run does."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from parquet_conformance.conformance.harness.results import read_cells
from tests.helpers import CLI

pytestmark = pytest.mark.slow
ONLY = "base/*,corrupt/footer-length/*,ext/file-metadata/*"
ADAPTERS = ("pyarrow", "datafusion", "polars")
SPARK_ENV = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the Spark daemon exited"
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.5)
    raise TimeoutError(f"nothing listens on {port}")


def daemon(args: list[str], log: Path) -> subprocess.Popen:
    from pyspark.find_spark_home import _find_spark_home

    spark_class = Path(_find_spark_home()) / "bin" / "spark-class"
    env = {**SPARK_ENV, "SPARK_LOG_DIR": str(log.parent), "SPARK_WORKER_DIR": str(log.parent)}
    return subprocess.Popen([str(spark_class), *args], env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
                            start_new_session=True)


def stop(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        os.killpg(proc.pid, 9)
        proc.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    logs, port = tmp_path_factory.mktemp("cluster"), free_port()
    procs = [daemon(["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                     "--webui-port", str(free_port())], logs / "master.log")]
    url = f"spark://127.0.0.1:{port}"
    try:
        wait_for_port(port, procs[0])
        for i in range(2):
            procs.append(daemon(["org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1", "--cores", "1",
                                 "--memory", "3g", "--webui-port", str(free_port())], logs / f"worker{i}.log"))
        time.sleep(3)
        yield url
    finally:
        stop(procs)


@pytest.fixture(scope="module")
def connect(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Spark Connect server (the wheel's spark-connect jar) over local[2]."""
    logs, port = tmp_path_factory.mktemp("connect"), free_port()
    proc = daemon(["org.apache.spark.deploy.SparkSubmit", "--class",
                   "org.apache.spark.sql.connect.service.SparkConnectServer", "--master", "local[2]",
                   "--conf", f"spark.connect.grpc.binding.port={port}", "--conf", "spark.ui.enabled=false",
                   "--conf", f"spark.pyspark.python={sys.executable}", "spark-internal"], logs / "connect.log")
    try:
        wait_for_port(port, proc)
        yield f"sc://127.0.0.1:{port}"
    finally:
        stop([proc])


def verdicts(out: Path, *where: str) -> dict[tuple[str, str], str]:
    adapters = [a for name in ADAPTERS for a in ("--adapter", name)]
    proc = subprocess.run([*CLI, "run", "--out", str(out), "--only", ONLY, *adapters, "--run-id", "r", *where],
                          capture_output=True, text=True, timeout=1200, env=SPARK_ENV)
    assert proc.returncode == 0, proc.stderr[-3000:]
    _, cells = read_cells(out / "results", "r")
    return {(c.case, c.adapter): c.verdict for c in cells}


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], str]:
    found = verdicts(tmp_path_factory.mktemp("local"))
    assert len(found) > 60 and {a for _, a in found} == set(ADAPTERS)
    return found


def test_a_standalone_cluster_gives_the_same_verdicts(cluster: str, embedded: dict, tmp_path: Path) -> None:
    assert verdicts(tmp_path, "--master", cluster, "--conf", "spark.driver.host=127.0.0.1",
                    "--conf", "spark.executor.memory=2g") == embedded


def test_a_spark_connect_server_gives_the_same_verdicts(connect: str, embedded: dict, tmp_path: Path) -> None:
    assert verdicts(tmp_path, "--remote", connect) == embedded
