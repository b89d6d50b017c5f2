"""The cells on Spark: corpus x adapters as Spark tasks, outcomes staged as each task finishes.

- A task is a few cases; its rows carry the file bytes and the case entry, so executors need no
  shared disk. The task writes each case to a temporary file and runs every adapter of the case's
  track on it.
- Each task is its own small Spark job, submitted from a pool of driver threads as wide as the
  cluster's parallelism: a slow task never holds back the others, and the driver stages a task's
  outcomes (results.Store.stage) the moment it finishes, so an interrupted run resumes without
  redoing them.
- Adapter workers live in the Python worker process of the executor and are reused by every task
  that process runs (Spark reuses Python workers), so a JVM or Node worker starts once per executor
  process, not once per cell or task.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

import pyarrow as pa

from parquet_conformance.conformance.derived import OUTCOME_SCHEMA
from parquet_conformance.conformance.execute import AdapterSpec, Attempt, WorkerSet
from parquet_conformance.conformance.model import OutcomeRow
from parquet_conformance.corpus.model import CaseEntry

CASES_PER_TASK = 4
# case: the CaseEntry as JSON; adapters, round, fresh: the Attempt (execute.py)
TASK_SCHEMA = pa.schema([("case", pa.string()), ("data", pa.binary()), ("adapters", pa.list_(pa.string())),
                         ("round", pa.int64()), ("fresh", pa.bool_())])


def spark_session(master: str, conf: dict[str, str]) -> Any:
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # executors need this venv's packages
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = (SparkSession.builder.master(master).appName("parquet-conformance")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.pyspark.python", sys.executable)
               .config("spark.pyspark.driver.python", sys.executable)
               .config("spark.python.worker.reuse", "true")
               .config("spark.rpc.message.maxSize", "512")  # a case's bytes travel inside its task
               .config("spark.sql.execution.arrow.maxRecordsPerBatch", "1")
               .config("spark.scheduler.mode", "FAIR")  # concurrent jobs share the executors
               .config("spark.task.maxFailures", "1"))
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


# -- inside the executors -------------------------------------------------------------

_POOL: dict[tuple[AdapterSpec, ...], WorkerSet] = {}


def _cells_in_task(batches: Iterator[pa.RecordBatch], specs: tuple[AdapterSpec, ...]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body: write each case's bytes to a temp file, run every adapter of its track on it."""
    if specs not in _POOL:  # the workers outlive the task, in this executor's Python process
        _POOL[specs] = WorkerSet(specs)
        atexit.register(_POOL[specs].close)
    workers = _POOL[specs]
    with tempfile.TemporaryDirectory(prefix="pqc-task-") as tmp:
        for batch in batches:
            for task in batch.to_pylist():
                case = CaseEntry.from_json(json.loads(task["case"]))
                attempt = Attempt(tuple(task["adapters"]) if task["adapters"] is not None else None, task["round"],
                                  task["fresh"])
                path = Path(tmp) / f"case{Path(case.file).suffix}"
                path.write_bytes(task["data"])
                rows = [r.to_row() for r in workers.run(case, path, attempt)]
                yield pa.RecordBatch.from_pylist(rows, schema=OUTCOME_SCHEMA)


# -- on the driver ----------------------------------------------------------------------

Job = tuple[CaseEntry, Attempt]


def run_on_spark(jobs: list[Job], corpus: Path, specs: list[AdapterSpec], stage: Callable[[list[OutcomeRow]], None],
                 *, master: str = "local[*]", conf: dict[str, str] | None = None,
                 progress: Callable[[int, int], None] | None = None) -> float:
    """Runs `jobs` in the order given and hands each task's outcomes to `stage` as it finishes; returns the
    seconds Spark took to start."""
    from pyspark.sql.pandas.types import from_arrow_schema

    t0 = time.monotonic()
    spark = spark_session(master, conf or {})
    started = time.monotonic() - t0
    parallelism = spark.sparkContext.defaultParallelism
    tasks = [jobs[i:i + CASES_PER_TASK] for i in range(0, len(jobs), CASES_PER_TASK)]
    frozen, schema = tuple(specs), from_arrow_schema(OUTCOME_SCHEMA)

    def one_task(part: list[Job]) -> list[OutcomeRow]:
        table = pa.table({"case": [json.dumps(c.to_json()) for c, _ in part],
                          "data": [(corpus / c.file).read_bytes() for c, _ in part],
                          "adapters": [list(a.adapters) if a.adapters is not None else None for _, a in part],
                          "round": [a.round for _, a in part], "fresh": [a.fresh for _, a in part]},
                         schema=TASK_SCHEMA)
        df = spark.createDataFrame(table).coalesce(1)
        result = df.mapInArrow(lambda it, s=frozen: _cells_in_task(it, s), schema).toArrow()
        return [OutcomeRow.from_row(r) for r in result.to_pylist()]

    done = 0
    with ThreadPoolExecutor(max_workers=parallelism) as pool:
        pending = {pool.submit(one_task, part): len(part) for part in tasks}
        try:
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    stage(future.result())
                    done += pending.pop(future)
                    if progress:
                        progress(done, len(jobs))
        finally:
            for future in pending:
                future.cancel()
    return started
