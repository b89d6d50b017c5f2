"""Where tasks run: the one place that decides, from `--master` (`--remote` is `--master sc://...`) and `--conf`,
between this machine's cores (`none`: harness/executor.py LocalExecutor) and Spark (harness/spark.py SparkExecutor:
an embedded session, a cluster, or a Spark Connect server), and that refuses in one line what cannot run here."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

from parquet_conformance.conformance.harness.executor import Executor, LocalExecutor
from parquet_conformance.conformance.harness.spark import SparkExecutor
from parquet_conformance.kernel.errors import UsageError

HERE = "none"  # the master that runs every task on this machine's cores, without Spark


def executor_for(master: str, conf: dict[str, str] | None = None, log: Path | None = None,
                 say: Callable[[str], None] | None = None) -> Executor:
    """The executor `--master` names: `none` runs here; any other master is Spark's (its session started on first
    use, so that a run with nothing to run starts none; `log`: where its JVM writes). UsageError when Spark is asked
    for and pyspark is not installed."""
    if master == HERE:
        return LocalExecutor()
    if importlib.util.find_spec("pyspark") is None:
        raise UsageError(f"Spark needs pyspark: pip install 'parquet-conformance[spark]', or run with --master {HERE}")
    return SparkExecutor(master, conf or {}, log, say)
