"""Spark as an executor (conformance/harness/executor.py): every task its own small Spark job.

- A task's input table travels inside the job in one partition (on a cluster, cells carry the case file's bytes,
  so executors need no shared disk; an embedded session's read the files by path); its body runs there through
  `mapInArrow`, and its result comes back when it ends.
- Jobs are submitted from a pool of driver threads as wide as the cluster's parallelism: a slow task never holds
  back the others, and the driver hands a task's result on (a run stages its outcomes) the moment it finishes, so
  an interrupted run resumes without redoing them.
- The session starts on the first task (a run with nothing to run starts none), and its start is timed.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import shutil
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pyarrow as pa

from parquet_conformance.conformance.harness.executor import Body, Closing, always, loop
from parquet_conformance.kernel.errors import UsageError

T = TypeVar("T")


LOG4J = Path(__file__).with_name("log4j2.properties")
# pyspark's own warning about pandas 3, which it works with for what we use (Arrow in and out, no pandas API).
PANDAS_WARNING = "PySpark does not yet fully support pandas"


def quiet_pyspark() -> None:
    warnings.filterwarnings("ignore", message=PANDAS_WARNING, category=FutureWarning)


def java_options() -> str:
    """Options for a Spark JVM started from Python: our log4j configuration (errors only)."""
    return f"-Dlog4j2.configurationFile=file:{LOG4J}"


# The session's own JVM (the driver; in local mode its executors too) does the harness's bookkeeping, not a library's
# work: its first tier of compilation only and one garbage collector thread. A one-adapter gate's JVM burnt a third
# less CPU (33 -> 22 CPU-s, 20 -> 16 s wall on 2 cores: docs/ci-gate.md). The Spark adapter's own JVM, the library
# under test, keeps Java's defaults.
SESSION_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


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
               .config("spark.driver.extraJavaOptions", f"{java_options()} {SESSION_JVM}")
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


def parallelism_of(spark: Any) -> int:
    """The cluster's task slots; a Spark Connect client has no SparkContext and asks the server's configuration."""
    try:
        return int(spark.sparkContext.defaultParallelism)
    except Exception:  # pyspark's Connect client raises its own "not implemented" error here
        return int(spark.conf.get("spark.default.parallelism", None) or os.cpu_count() or 1)


def ticking(batches: Iterator[pa.RecordBatch], body: Body, path: str) -> Iterator[pa.RecordBatch]:
    """A task's body, a line appended to `path` with the rows of each batch it yields: Spark keeps a task's rows
    until it ends, and the driver on this machine reads the lines meanwhile (Ticks)."""
    with open(path, "a", encoding="ascii") as f:
        for batch in body(batches):
            f.write(f"{batch.num_rows}\n")
            f.flush()
            yield batch


class Ticks:
    """The rows each running task of an embedded session has made, read every TICK_S from the files its body
    (`ticking`) appends to, and told to `tick(task, rows)`: a count per adapter that moves while Spark keeps the rows.
    A cluster's executors have no disk of ours: there a task's count moves when it ends."""

    TICK_S = 1.0

    def __init__(self, tick: Callable[[Any, int], None]) -> None:
        self.tick = tick
        self.folder = Path(tempfile.mkdtemp(prefix="pqc-ticks-"))  # removed on leaving: make it as the `with` begins
        self._running: dict[int, tuple[Any, Path]] = {}
        self._ids = itertools.count()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, name="pqc-ticks", daemon=True)

    def __enter__(self) -> Ticks:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        shutil.rmtree(self.folder, ignore_errors=True)

    @contextlib.contextmanager
    def noted(self, task: Any) -> Iterator[str]:
        key = next(self._ids)
        path = self.folder / f"task-{key}"
        with self._lock:
            self._running[key] = (task, path)
        try:
            yield str(path)
        finally:
            with self._lock:
                del self._running[key]

    def _read(self) -> None:
        while not self._stop.wait(self.TICK_S):
            with self._lock:
                running = list(self._running.values())
            for task, path in running:
                with contextlib.suppress(OSError, ValueError):  # not yet written, or a line half written
                    self.tick(task, sum(int(n) for n in path.read_text("ascii").split()))


class SparkExecutor(Closing):
    """Tasks as Spark jobs (the module's doc). `started_s`: the seconds the session took to start (0 until then).
    An embedded session (`local[...]`) runs its executors on this machine: their tasks read its files by path."""

    def __init__(self, master: str, conf: dict[str, str], log: Path | None = None,
                 say: Callable[[str], None] | None = None) -> None:
        self.master, self.conf, self.log, self.say = master, conf, log, say
        self.shared_disk = master == "local" or master.startswith("local[")
        self.started_s = 0.0
        self._session: Any = None
        self._lock = threading.Lock()

    @property
    def session(self) -> Any:
        with self._lock:
            if self._session is None:
                if self.say:
                    self.say(f"starting Spark ({self.master}; its log: {self.log})" if self.log else
                             f"starting Spark ({self.master})")
                t0 = time.monotonic()
                self._session = spark_session(self.master, self.conf, self.log)
                self.started_s = time.monotonic() - t0
            return self._session

    @property
    def slots(self) -> int:
        return parallelism_of(self.session)

    def run(self, tasks: Iterable[T], table_of: Callable[[T], pa.Table], body: Body, schema: pa.Schema,
            done: Callable[[T, pa.Table], None], more: Callable[[], bool] = always,
            at_once: int | None = None, tick: Callable[[T, int], None] | None = None) -> None:
        from pyspark.sql.pandas.types import from_arrow_schema

        spark = self.session
        spark_schema = from_arrow_schema(schema)
        width = max(1, min(self.slots, at_once or self.slots))
        with contextlib.ExitStack() as stack:  # left in reverse: the tasks end, then the ticks' reader and folder
            ticks = stack.enter_context(Ticks(tick)) if tick is not None and self.shared_disk else None

            def one(task: T) -> pa.Table:
                df = spark.createDataFrame(table_of(task)).coalesce(1)
                if ticks is None:
                    return df.mapInArrow(body, spark_schema).toArrow()
                with ticks.noted(task) as path:
                    return df.mapInArrow(functools.partial(ticking, body=body, path=path), spark_schema).toArrow()

            pool = stack.enter_context(ThreadPoolExecutor(max_workers=width, thread_name_prefix="pqc-spark"))
            loop(pool, tasks, one, width, more, done)

    def close(self) -> None:
        """The session stays for the process (a later command in it finds it running)."""
