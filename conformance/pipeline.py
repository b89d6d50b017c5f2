"""The main job on Spark: corpus x adapters as Spark tasks, outcomes staged as they arrive,
verdicts on the driver, results appended to a Parquet dataset partitioned by run.

- The cases become a DataFrame whose rows carry the file bytes, so executors need no shared
  disk; each task writes its cases to a temporary directory and runs every adapter on them.
- Adapter workers live in the Python worker process of the executor and are reused by every
  task that process runs (Spark reuses Python workers), so a JVM or Node worker starts once
  per executor process, not once per cell or task.
- The corpus is run in chunks (one Spark job each); after each chunk its outcomes are written
  to `staging/run=<id>/`, so an interrupted run resumes (`--resume`) without redoing them.
"""

from __future__ import annotations

import atexit
import datetime as dt
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from conformance.cells import AdapterSpec, WorkerSet, judge, run_cells

CASES_PER_TASK = 6
OUTCOME_SCHEMA = pa.schema([
    ("case", pa.string()), ("adapter", pa.string()), ("implementation", pa.string()), ("version", pa.string()),
    ("roles", pa.list_(pa.string())), ("outcome", pa.string()), ("error_class", pa.string()),
    ("error_message", pa.string()), ("rows", pa.int64()), ("data_hash", pa.string()), ("duration_s", pa.float64()),
    ("metadata", pa.string()),
])
RESULT_SCHEMA = pa.schema([
    ("case", pa.string()), ("group", pa.string()), ("kind", pa.string()), ("adapter", pa.string()),
    ("implementation", pa.string()), ("version", pa.string()), ("role", pa.string()), ("expected", pa.string()),
    ("outcome", pa.string()), ("verdict", pa.string()), ("error_class", pa.string()), ("error_message", pa.string()),
    ("rows", pa.int64()), ("data_hash", pa.string()), ("duration_s", pa.float64()), ("metadata", pa.string()),
])


@dataclass
class Timings:
    spark_start_s: float = 0.0
    cells_s: float = 0.0


def new_run_id() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")


def spark_session(master: str, conf: dict[str, str]) -> object:
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
               .config("spark.task.maxFailures", "1"))
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


# -- inside the executors -------------------------------------------------------------

_POOL: dict[tuple, WorkerSet] = {}


def _cells_in_task(batches: Iterator, specs: list[AdapterSpec]) -> Iterator:
    """mapInArrow body: write each case's bytes to a temp file, run every adapter on it."""
    key = tuple(specs)
    if key not in _POOL:  # the workers outlive the task, in this executor's Python process
        _POOL[key] = WorkerSet(specs)
        atexit.register(_POOL[key].close)
    workers = _POOL[key]
    with tempfile.TemporaryDirectory(prefix="pqc-task-") as tmp:
        path = Path(tmp) / "case.parquet"
        for batch in batches:
            for case_id, data in zip(batch.column("case").to_pylist(), batch.column("data").to_pylist(), strict=True):
                path.write_bytes(data)
                yield pa.RecordBatch.from_pylist(workers.run(case_id, path), schema=OUTCOME_SCHEMA)


# -- on the driver ----------------------------------------------------------------------

def staged_outcomes(staging: Path) -> list[dict]:
    if not staging.exists():
        return []
    rows = pq.read_table(staging).to_pylist()
    return list({(r["case"], r["adapter"]): r for r in rows}.values())  # a re-run cell replaces the old one


def run_on_spark(manifest: dict, corpus: Path, specs: list[AdapterSpec], out: Path, run_id: str, *,
                 master: str = "local[*]", conf: dict[str, str] | None = None, resume: bool = False,
                 only: Callable[[str], bool] = lambda _: True,
                 progress: Callable[[int, int], None] | None = None) -> tuple[list[dict], Timings]:
    timings = Timings()
    staging = out / "staging" / f"run={run_id}"
    done = {(r["case"], r["adapter"]) for r in staged_outcomes(staging)} if resume else set()
    names = [s.name for s in specs]
    todo = [c for c in manifest["cases"] if only(c["id"]) and not all((c["id"], n) in done for n in names)]
    todo.sort(key=lambda c: -c["size"])  # big cases first, so they do not trail at the end
    total = len(todo)
    t0 = time.monotonic()
    from pyspark.sql.pandas.types import from_arrow_schema

    spark = spark_session(master, conf or {})
    timings.spark_start_s = time.monotonic() - t0
    parallelism = spark.sparkContext.defaultParallelism
    chunk = max(1, parallelism * CASES_PER_TASK)
    t1 = time.monotonic()
    staging.mkdir(parents=True, exist_ok=True)
    finished = 0
    try:
        for start in range(0, total, chunk):
            part = todo[start:start + chunk]
            table = pa.table({"case": [c["id"] for c in part],
                              "data": [(corpus / c["file"]).read_bytes() for c in part]})
            df = spark.createDataFrame(table).repartition(min(parallelism, len(part)))
            result = df.mapInArrow(lambda it, specs=specs: _cells_in_task(it, specs),
                                   from_arrow_schema(OUTCOME_SCHEMA)).toArrow()
            rows = [r for r in result.to_pylist() if (r["case"], r["adapter"]) not in done]
            pq.write_table(pa.Table.from_pylist(rows, schema=OUTCOME_SCHEMA),
                           staging / f"chunk-{start // chunk:05d}-{os.getpid()}-{time.time_ns()}.parquet")
            finished += len(part)
            if progress:
                progress(finished, total)
    finally:
        timings.cells_s = time.monotonic() - t1
    outcomes = [r for r in staged_outcomes(staging) if only(r["case"]) and r["adapter"] in names]
    return judge(sorted(outcomes, key=lambda r: (r["case"], r["adapter"])), manifest), timings


def write_results(cells: list[dict], results_dir: Path, run_id: str) -> Path:
    """Writes (or, on resume, replaces) the run's partition of the results dataset."""
    target = results_dir / f"run={run_id}"
    target.mkdir(parents=True, exist_ok=True)
    for old in target.glob("*.parquet"):
        old.unlink()
    table = pa.Table.from_pylist([{k: c.get(k) for k in RESULT_SCHEMA.names} for c in cells], schema=RESULT_SCHEMA)
    pq.write_table(table, target / "cells.parquet")
    return target


def read_results(results_dir: Path, run_id: str | None = None) -> pa.Table:
    dataset = ds.dataset(results_dir, format="parquet", partitioning="hive")
    return dataset.to_table(filter=(ds.field("run") == run_id) if run_id else None)


def run_local(manifest: dict, corpus: Path, specs: list[AdapterSpec], only: Callable[[str], bool],
              progress: Callable[[int, int], None] | None = None) -> tuple[list[dict], Timings]:
    """The same cells without Spark, for `--master none` and small jobs."""
    cases = [c for c in manifest["cases"] if only(c["id"])]
    total, t0 = len(cases), time.monotonic()
    rows = []
    for row in run_cells(((c["id"], (corpus / c["file"]).resolve()) for c in cases), specs):
        rows.append(row)
        if progress and len(rows) % len(specs) == 0:  # a case is done when all its adapters are
            progress(len(rows) // len(specs), total)
    return judge(rows, manifest), Timings(cells_s=time.monotonic() - t0)
