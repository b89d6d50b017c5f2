"""The cells on Spark: corpus x adapters as Spark tasks, outcomes staged as each task finishes.

- A task is a share of the cases (about TASKS_PER_SLOT tasks per executor slot: enough to balance the
  load to the end, few enough that Spark's fixed cost per job, ~0.3 s, stays small); its rows carry
  the file bytes and the case entry, so executors need no shared disk. The task writes each case to
  a temporary file and runs every adapter of the case's track on it.
- Each task is its own small Spark job, submitted from a pool of driver threads as wide as the
  cluster's parallelism: a slow task never holds back the others, and the driver stages a task's
  outcomes (results.Store.stage) the moment it finishes, so an interrupted run resumes without
  redoing them.
- Before the cells, a warm-up job with one task per slot starts every adapter's worker at once in
  each executor (JVMs, Node), so that the driver can say what it is waiting for.
- Adapter workers live in the Python worker process of the executor and are reused by every task
  that process runs (Spark reuses Python workers), so a JVM or Node worker starts once per executor
  process, not once per cell or task.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import json
import math
import os
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, TypeVar

import pyarrow as pa

from parquet_conformance.conformance.harness.derived import OUTCOME_SCHEMA
from parquet_conformance.conformance.harness.execute import AdapterSpec, Attempt, Job, WorkerSet
from parquet_conformance.conformance.harness.model import OutcomeRow
from parquet_conformance.corpus.model import CaseEntry
from parquet_conformance.kernel.errors import UsageError

TASKS_PER_SLOT = 6
MIN_CASES_PER_TASK = 2
WARM_SCHEMA = pa.schema([("adapter", pa.string()), ("seconds", pa.float64())])
# case: the CaseEntry as JSON; adapters, round, fresh, confirm: the Attempt (execute.py)
TASK_SCHEMA = pa.schema([("case", pa.string()), ("data", pa.binary()), ("adapters", pa.list_(pa.string())),
                         ("round", pa.int64()), ("fresh", pa.bool_()), ("confirm", pa.bool_())])


LOG4J = Path(__file__).with_name("log4j2.properties")
# pyspark's own warning about pandas 3, which it works with for what we use (Arrow in and out, no pandas API).
PANDAS_WARNING = "PySpark does not yet fully support pandas"


def quiet_pyspark() -> None:
    warnings.filterwarnings("ignore", message=PANDAS_WARNING, category=FutureWarning)


def java_options() -> str:
    """Options for a Spark JVM started from Python: our log4j configuration (errors only)."""
    return f"-Dlog4j2.configurationFile=file:{LOG4J}"


def spark_session(master: str, conf: dict[str, str], log: Path | None = None) -> Any:
    """The run's session. `log`: where the driver JVM writes its console output (in local mode, the executors'
    too) for the whole run, instead of the terminal: the JVM inherits that stderr when it starts."""
    from pyspark.sql import SparkSession

    quiet_pyspark()
    if master.startswith("sc://"):  # Spark Connect: the server's own configuration holds
        remote = SparkSession.builder.remote(master)
        for key, value in conf.items():
            remote = remote.config(key, value)
        try:
            return remote.getOrCreate()
        except ImportError as e:  # pyspark's client needs grpcio and friends (its `connect` extra)
            raise UsageError(f"Spark Connect needs pyspark[connect] ({e}): "
                             "pip install 'parquet-conformance[spark]'") from None
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # executors need this venv's packages
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = (SparkSession.builder.master(master).appName("parquet-conformance")
               .config("spark.driver.extraJavaOptions", java_options())
               .config("spark.executor.extraJavaOptions", java_options())
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
    try:
        with _stderr_to(log):
            spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
    except Exception as e:  # the JVM did not start, or refused a setting: why, in one line (its output is in `log`)
        raise UsageError(f"Spark did not start with --master {master}: {jvm_reason(e)}"
                         + (f" (the JVM's output: {log})" if log else "")) from None
    return spark


def jvm_reason(e: BaseException) -> str:
    """A failed start in one line: the deepest Java cause a Py4J error carries, else the first line of the error."""
    java = getattr(e, "java_exception", None)
    try:
        while java is not None and java.getCause() is not None:
            java = java.getCause()
        text = str(java.toString()) if java is not None else ""
    except Exception:  # the gateway is gone: its message is what there is
        text = ""
    text = text or next((ln.strip() for ln in str(e).splitlines() if ln.strip()), type(e).__name__)
    return " ".join(text.split())[:300]


@contextlib.contextmanager
def _stderr_to(log: Path | None) -> Iterator[None]:
    """fd 2 points at `log` while the JVM is launched (it keeps that stderr), then back at the terminal."""
    if log is None:
        yield
        return
    log.parent.mkdir(parents=True, exist_ok=True)
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with log.open("ab") as fh:
            os.dup2(fh.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


# -- inside the executors -------------------------------------------------------------

_POOL: dict[tuple[AdapterSpec, ...], WorkerSet] = {}


def _workers(specs: tuple[AdapterSpec, ...]) -> WorkerSet:
    if specs not in _POOL:  # the workers outlive the task, in this executor's Python process
        _POOL[specs] = WorkerSet(specs)
        atexit.register(_POOL[specs].close)
    return _POOL[specs]


executor_workers = _workers  # the same pool for other jobs run in the executors (conformance/app/fuzz.py)


def _warm_up(batches: Iterator[pa.RecordBatch], specs: tuple[AdapterSpec, ...]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body of the warm-up job: every worker of this executor started at once."""
    for _ in batches:
        took = _workers(specs).start_all()
        yield pa.RecordBatch.from_pylist([{"adapter": a, "seconds": t} for a, t in took.items()], schema=WARM_SCHEMA)


def _cells_in_task(batches: Iterator[pa.RecordBatch], specs: tuple[AdapterSpec, ...]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body: write each case's bytes to a temp file, run every adapter of its track on it. A task of the
    confirmation pass runs in worker processes of its own, made for the task and closed after it (a history
    unlike the run's persistent workers'); every other task in this executor's persistent workers."""
    with tempfile.TemporaryDirectory(prefix="pqc-task-") as tmp:
        items: list[tuple[CaseEntry, Path, Attempt]] = []
        for batch in batches:
            for i, task in enumerate(batch.to_pylist(), len(items)):
                case = CaseEntry.from_json(json.loads(task["case"]))
                attempt = Attempt(tuple(task["adapters"]) if task["adapters"] is not None else None,
                                  task["round"], task["fresh"], task["confirm"])
                path = Path(tmp) / f"case-{i}{Path(case.file).suffix}"
                path.write_bytes(task["data"])
                items.append((case, path, attempt))
        own = WorkerSet(specs) if any(a.confirm for _, _, a in items) else None
        try:
            for rows in (own or _workers(specs)).run_many(items):
                yield pa.RecordBatch.from_pylist([r.to_row() for r in rows], schema=OUTCOME_SCHEMA)
        finally:
            if own is not None:
                own.close()


# -- on the driver ----------------------------------------------------------------------



def parallelism_of(spark: Any) -> int:
    """The cluster's task slots; a Spark Connect client has no SparkContext and asks the server's configuration."""
    try:
        return int(spark.sparkContext.defaultParallelism)
    except Exception:  # pyspark's Connect client raises its own "not implemented" error here
        return int(spark.conf.get("spark.default.parallelism", None) or os.cpu_count() or 1)


def tasks_of(jobs: list[Job], slots: int) -> list[list[Job]]:
    """Consecutive shares of the jobs (their order is kept: big cases first), about TASKS_PER_SLOT per slot."""
    size = max(MIN_CASES_PER_TASK, math.ceil(len(jobs) / (max(1, slots) * TASKS_PER_SLOT)))
    return [jobs[i:i + size] for i in range(0, len(jobs), size)]


def warm_up(spark: Any, specs: list[AdapterSpec]) -> dict[str, float]:
    """Starts every adapter's worker in each executor slot; the longest start per adapter, in seconds."""
    from pyspark.sql.pandas.types import from_arrow_schema

    slots, frozen = parallelism_of(spark), tuple(specs)
    df = spark.range(slots, numPartitions=slots)
    took = df.mapInArrow(lambda it, s=frozen: _warm_up(it, s), from_arrow_schema(WARM_SCHEMA)).toArrow()
    longest: dict[str, float] = {}
    for row in took.to_pylist():
        longest[row["adapter"]] = max(longest.get(row["adapter"], 0.0), row["seconds"])
    return longest


T = TypeVar("T")


def run_tasks(spark: Any, tasks: Iterable[T], table_of: Callable[[T], pa.Table],
              body: Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]], schema: pa.Schema,
              done: Callable[[T, pa.Table], None], more: Callable[[], bool] = lambda: True) -> None:
    """The one Spark task loop (the cells of `run`, the batches of `fuzz`): each task its own small job, its input
    `table_of(task)` in one partition, `body` the mapInArrow function the executors run, submitted from a pool of
    driver threads as wide as the cluster's parallelism; `done(task, result)` is called as each job finishes, so
    that a slow task never holds back the others. `tasks` may be endless: new ones are taken while `more()`."""
    from pyspark.sql.pandas.types import from_arrow_schema

    spark_schema = from_arrow_schema(schema)

    def one(task: T) -> pa.Table:
        df = spark.createDataFrame(table_of(task)).coalesce(1)
        return df.mapInArrow(body, spark_schema).toArrow()

    pending_tasks = iter(tasks)
    with ThreadPoolExecutor(max_workers=parallelism_of(spark)) as pool:
        pending: dict[Future[pa.Table], T] = {}

        def submit() -> bool:
            task = next(pending_tasks, None)
            if task is None:
                return False
            pending[pool.submit(one, task)] = task
            return True

        while len(pending) < parallelism_of(spark) and submit():
            pass
        try:
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    task = pending.pop(future)
                    done(task, future.result())
                    if more():
                        submit()
        finally:
            for future in pending:
                future.cancel()


def run_on_spark(jobs: list[Job], corpus: Path, specs: list[AdapterSpec], stage: Callable[[list[OutcomeRow]], None],
                 *, master: str = "local[*]", conf: dict[str, str] | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 say: Callable[[str], None] | None = None, log: Path | None = None,
                 tasks: list[list[Job]] | None = None) -> float:
    """Runs `jobs` in the order given and hands each task's outcomes to `stage` as it finishes; returns the
    seconds Spark took to start. `say`: progress lines for the steps before the first cell. `tasks`: the jobs
    already cut into tasks (the confirmation pass: one task per adapter), instead of shares of about
    TASKS_PER_SLOT per slot."""
    t0 = time.monotonic()
    say = say if not any(a.fresh or a.confirm for _, a in jobs) else None  # a session and workers exist
    if say:
        say(f"starting Spark ({master}; its log: {log})" if log else f"starting Spark ({master})")
    spark = spark_session(master, conf or {}, log)
    started = time.monotonic() - t0
    parallelism = parallelism_of(spark)
    if say:
        say(f"starting {len(specs)} adapter workers in each of {parallelism} executor slots (JVMs take ~10 s)")
        took = warm_up(spark, specs)
        slowest = sorted(took.items(), key=lambda kv: -kv[1])[:3]
        say("workers started (slowest: " + ", ".join(f"{a} {t:.1f}s" for a, t in slowest) + ")")
    frozen = tuple(specs)

    def table_of(part: list[Job]) -> pa.Table:
        return pa.table({"case": [json.dumps(c.to_json()) for c, _ in part],
                         "data": [(corpus / c.file).read_bytes() for c, _ in part],
                         "adapters": [list(a.adapters) if a.adapters is not None else None for _, a in part],
                         "round": [a.round for _, a in part], "fresh": [a.fresh for _, a in part],
                         "confirm": [a.confirm for _, a in part]},
                        schema=TASK_SCHEMA)

    finished = [0]

    def done(part: list[Job], result: pa.Table) -> None:
        stage([OutcomeRow.from_row(r) for r in result.to_pylist()])
        finished[0] += len(part)
        if progress:
            progress(finished[0], len(jobs))

    run_tasks(spark, tasks if tasks is not None else tasks_of(jobs, parallelism), table_of,
              functools.partial(_cells_in_task, specs=frozen), OUTCOME_SCHEMA, done)
    return started
