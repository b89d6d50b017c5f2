"""Writes: each writer (an adapter with write profiles) given its track's tables, in a worker as isolated as a
reader's (a crash, a hang, running out of memory are outcomes), one task per writer so that a JVM or a Spark session
starts once for all its files, on any executor (conformance/harness/executor.py: its rows carry the input table and
the written file's bytes, so a Spark executor needs no shared disk).

A writer that declines a whole table with its defaults (a type it lacks), or crashes on it, is asked for each column
alone, then for the columns it took: what it does with the rest of the table is still worth reading
(`WriteRow.columns`).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from parquet_conformance.conformance.adapters.writing import NotExpressible, Writer
from parquet_conformance.conformance.harness.derived import arrow_schema
from parquet_conformance.conformance.harness.executor import Executor
from parquet_conformance.conformance.harness.model import (
    WRITTEN,
    Error,
    HarnessError,
    Outcome,
    OutcomeKind,
    Rejected,
    WriteRow,
    Wrote,
    outcome_fields,
)
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.conformance.harness.workers import Worker
from parquet_conformance.corpus import track as tracks
from parquet_conformance.kernel import trees

OUTPUT = "written"  # where a writer is asked to write (with its track's suffix), in a folder of its own per write
MAX_WRITTEN = 256 << 20  # bytes of a written file read back (the tables are small; a sparse 1 TiB file is refused)
PROBED_PROFILE = "default"  # where a declined table is asked for column by column
PROBED = (OutcomeKind.REJECTED, OutcomeKind.CRASH)  # not a hang: each column alone would hang again
WRITE_SCHEMA = arrow_schema(WriteRow).append(pa.field("data", pa.binary()))
# One row per file asked for: the writer's AdapterSpec as JSON, the profile, the table and its Arrow IPC bytes.
TASK_SCHEMA = pa.schema([("spec", pa.string()), ("profile", pa.string()), ("table", pa.string()),
                         ("input", pa.binary())])


@dataclass(frozen=True)
class WriteJob:
    writer: AdapterSpec
    profile: str
    table: str


def jobs_of(specs: list[AdapterSpec], wanted: list[tuple[str, str]]) -> list[list[WriteJob]]:
    """One task per writer: its (profile, table) of `wanted` whose profile it writes."""
    out = []
    for spec in specs:
        adapter = spec.build()
        profiles = adapter.profiles if isinstance(adapter, Writer) else ()
        mine = [WriteJob(spec, p, t) for p, t in wanted if p in profiles]
        if mine:
            out.append(mine)
    return out


def task_table(task: list[WriteJob], inputs: dict[str, bytes]) -> pa.Table:
    return pa.table({"spec": [json.dumps(dataclasses.asdict(j.writer)) for j in task],
                     "profile": [j.profile for j in task], "table": [j.table for j in task],
                     "input": [inputs[j.table] for j in task]}, schema=TASK_SCHEMA)


def writes_in_task(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body (and the local loop's): every file of the task by one worker, closed at the end."""
    worker: Worker | None = None
    try:
        with tempfile.TemporaryDirectory(prefix="pqc-write-") as tmp:
            for batch in batches:
                for task in batch.to_pylist():
                    spec = AdapterSpec(**json.loads(task["spec"]))
                    worker = worker or spec.worker()
                    table = pa.ipc.open_file(pa.BufferReader(task["input"])).read_all()
                    rows = write_table(worker, spec.name, task["profile"], task["table"], table, Path(tmp))
                    yield pa.RecordBatch.from_pylist(rows, schema=WRITE_SCHEMA)
    finally:
        if worker is not None:
            worker.close()


def write_table(worker: Worker, name: str, profile: str, table_name: str, table: pa.Table,
                tmp: Path) -> list[dict[str, Any]]:
    """The write of a whole table; where the writer declines it with its defaults, each column alone, then the
    columns it took (a second row)."""
    row, data = write_one(worker, name, profile, table_name, table, tmp, None)
    rows = [{**row.to_row(), "data": data}]
    if row.outcome not in PROBED or profile != PROBED_PROFILE or table.num_columns < 2:
        return rows
    taken = [c for c in table.column_names
             if write_one(worker, name, profile, table_name, table.select([c]), tmp, [c])[0].outcome == WRITTEN]
    if 0 < len(taken) < table.num_columns:
        row, data = write_one(worker, name, profile, table_name, table.select(taken), tmp, taken)
        rows.append({**row.to_row(), "data": data})
    return rows


def write_one(worker: Worker, name: str, profile: str, table_name: str, table: pa.Table, tmp: Path,
              columns: list[str] | None) -> tuple[WriteRow, bytes | None]:
    tmp.mkdir(parents=True, exist_ok=True)  # the writer may have removed the task's folder
    work = Path(tempfile.mkdtemp(prefix="write-", dir=tmp))  # a fresh folder per write: nothing a writer left counts
    try:
        return _write_one(worker, name, profile, table_name, table, work, columns)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _write_one(worker: Worker, name: str, profile: str, table_name: str, table: pa.Table, work: Path,
               columns: list[str] | None) -> tuple[WriteRow, bytes | None]:
    output = OUTPUT + tracks.get(worker.adapter.track).suffix
    out, source = work / output, work / "source"
    t0 = time.monotonic()
    outcome: Wrote | Outcome
    try:
        assert isinstance(worker.adapter, Writer), "only a writer is given writes (jobs_of)"
        document = worker.adapter.write_source(table, profile)
    except NotExpressible as e:  # our mapping into the library's input: the table holds what it cannot say
        outcome = Rejected(Error("not-expressible", f"{worker.adapter.name}'s adapter cannot hand this table to "
                                                    f"the library: {e}"))
        return _row(worker, name, profile, table_name, columns, outcome, time.monotonic() - t0, None), None
    except Exception as e:
        outcome = HarnessError(Error(type(e).__name__, f"making the writer's input: {e}"))
        return _row(worker, name, profile, table_name, columns, outcome, time.monotonic() - t0, None), None
    if document is None:
        with pa.OSFile(str(source), "wb") as sink, pa.ipc.new_file(sink, table.schema) as ipc:
            ipc.write_table(table)
    else:
        source.write_bytes(document)
    timed = worker.write(str(source), str(out), profile, table_name)
    outcome, data = timed.outcome, None
    if isinstance(outcome, Wrote):
        try:  # the writer's output is whatever it left: a regular file of at most MAX_WRITTEN bytes, or no file
            data = trees.read_below(work, output, MAX_WRITTEN)
        except (OSError, trees.TreeError) as e:
            why = str(e) if isinstance(e, trees.TreeError) else f"{out}: {e.strerror or e}"
            outcome = HarnessError(Error("no-file", f"the worker answered `written`, but its output is no file to "
                                                    f"read: {why}"))
    row = _row(worker, name, profile, table_name, columns, outcome, timed.duration_s, timed.library_s, data)
    return row, data


def _row(worker: Worker, name: str, profile: str, table: str, columns: list[str] | None, outcome: Wrote | Outcome,
         duration_s: float, library_s: float | None, data: bytes | None = None) -> WriteRow:
    info = worker.info
    version = info.version if info else None
    if isinstance(outcome, Wrote):
        kind, error_class, message = WRITTEN, None, None
        version = outcome.writer or version
    else:
        flat = outcome_fields(outcome)
        kind, error_class, message = str(flat["outcome"]), flat["error_class"], flat["error_message"]
    implementation = info.implementation if info else worker.adapter.implementation
    return WriteRow(writer=name, implementation=implementation, version=version, profile=profile, table=table,
                    columns=columns, outcome=kind, error_class=error_class, error_message=message,
                    duration_s=duration_s, library_s=library_s, size=None if data is None else len(data),
                    sha256=None if data is None else hashlib.sha256(data).hexdigest())


Written = tuple[WriteRow, bytes | None]


def write_all(executor: Executor, tasks: list[list[WriteJob]], inputs: dict[str, bytes],
              done: Callable[[list[Written]], None]) -> None:
    """The tasks on the executor (conformance/harness/executor.py), each writer's files as they come."""
    executor.run(tasks, functools.partial(task_table, inputs=inputs), writes_in_task, WRITE_SCHEMA,
                 lambda _task, result: done(_rows(result)))


def _rows(result: pa.Table) -> list[Written]:
    return [(WriteRow.from_row(r), r["data"]) for r in result.to_pylist()]
