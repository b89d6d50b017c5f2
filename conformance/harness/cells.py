"""Cells run: (case, adapter) pairs, read by workers, in tasks any executor runs (conformance/harness/executor.py).

`run_cells` is the one way to run cells: it cuts them into tasks, one adapter each (`plan_cells`: the costliest
first, an adapter split only to fill idle slots or to keep one task from outlasting the rest), and hands them to
the executor; a task (`cells_in_task`, the same body locally and in a Spark executor) reads its cells in order with
a worker process made for the task and closed after it (a harness/reading.py WorkerSet of its one adapter), so that
no more workers are busy than the executor has slots, and only adapters with cells to run start one. Judging
happens afterwards, once every outcome, including each adapter's baseline, is known (harness/judge.py).
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from parquet_conformance.conformance.harness.derived import OUTCOME_SCHEMA
from parquet_conformance.conformance.harness.model import OutcomeRow
from parquet_conformance.conformance.harness.progress import Counts
from parquet_conformance.conformance.harness.reading import Attempt, WorkerSet
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.corpus.model import CaseEntry, Manifest

if TYPE_CHECKING:
    from parquet_conformance.conformance.harness.executor import Executor

Job = tuple[CaseEntry, Attempt]
SPLIT_MIN_S = 1.0  # a task is split only when a part of it would still be worth a worker's start
FLUSH_S = 1.0  # a task hands over its rows at least this often (the local executor's progress)
# case: the CaseEntry as JSON; path (an executor that shares this disk) or data (one that does not); round, fresh,
# confirm: the Attempt; expect: the data hashes that count as the right data (no sample is kept of such a read)
TASK_SCHEMA = pa.schema([("adapter", pa.string()), ("case", pa.string()), ("path", pa.string()),
                         ("data", pa.binary()), ("round", pa.int64()), ("fresh", pa.bool_()), ("confirm", pa.bool_()),
                         ("expect", pa.list_(pa.string()))])


@dataclass(frozen=True)
class CellTask:
    """One adapter's share of the cells, read in order by a worker process made for the task (a fresh one per cell
    for fresh attempts). `cost`: its expected seconds, by which the costliest go first."""

    adapter: str
    jobs: tuple[Job, ...]
    cost: float = 0.0


def plan_cells(jobs: Iterable[Job], specs: list[AdapterSpec], slots: int) -> list[CellTask]:
    """The jobs as tasks of one adapter each, in the jobs' order within a task, costliest first (cells x the
    adapter's `cell_cost_s`). A task is split (every n-th cell, so that big cases spread) while there are fewer tasks
    than slots, or when it alone would cost more than an even share of the slots: an adapter's second worker costs
    its start, an idle slot or a long tail costs more."""
    by_adapter: dict[str, list[Job]] = {}
    tracks_of = {s.name: s.build().track for s in specs}
    for case, attempt in jobs:
        for name in (attempt.adapters or [n for n, t in tracks_of.items() if t == case.track]):
            if tracks_of.get(name) == case.track:
                by_adapter.setdefault(name, []).append((case, replace(attempt, adapters=(name,))))
    cell_cost = {s.name: s.build().cell_cost_s for s in specs}
    tasks = [CellTask(name, tuple(js), len(js) * cell_cost[name]) for name, js in by_adapter.items()]
    total = sum(t.cost for t in tasks)
    share = total / max(1, slots)
    out: list[CellTask] = []
    for task in sorted(tasks, key=lambda t: -t.cost):
        parts = max(1, math.ceil(task.cost / share) if share > 0 else 1)
        out += _split(task, parts)
    while len(out) < slots:
        biggest = max(out, key=lambda t: t.cost, default=None)
        if biggest is None or len(biggest.jobs) < 2 or biggest.cost / 2 < SPLIT_MIN_S:
            break
        out.remove(biggest)
        out += _split(biggest, 2)
    return sorted(out, key=lambda t: -t.cost)


def _split(task: CellTask, parts: int) -> list[CellTask]:
    parts = min(parts, len(task.jobs), max(1, int(task.cost // SPLIT_MIN_S)))
    if parts <= 1:
        return [task]
    return [CellTask(task.adapter, task.jobs[k::parts], task.cost * len(task.jobs[k::parts]) / len(task.jobs))
            for k in range(parts)]


def cells_table(task: CellTask, root: Path, with_data: bool,
                expected: Mapping[str, frozenset[str]] | None = None) -> pa.Table:
    """A task's input: a row per cell, with the case file's path, or its bytes for an executor without this disk."""
    jobs = task.jobs
    return pa.table({"adapter": [task.adapter] * len(jobs), "case": [json.dumps(c.to_json()) for c, _ in jobs],
                     "path": [None if with_data else str((root / c.file).resolve()) for c, _ in jobs],
                     "data": [(root / c.file).read_bytes() if with_data else None for c, _ in jobs],
                     "round": [a.round for _, a in jobs], "fresh": [a.fresh for _, a in jobs],
                     "confirm": [a.confirm for _, a in jobs],
                     "expect": [sorted((expected or {}).get(c.id, ())) for c, _ in jobs]}, schema=TASK_SCHEMA)


def cells_in_task(batches: Iterator[pa.RecordBatch], specs: tuple[AdapterSpec, ...]) -> Iterator[pa.RecordBatch]:
    """A task's body (the local executor's and a Spark executor's alike): each cell read in order by a worker of its
    adapter made for this task, the rows handed over at least every FLUSH_S seconds; the workers are closed at the
    end. A case that came as bytes is written to a temporary file of its own (a name never used twice in a task: a
    reader may keep what it learnt of a file by its name, as Velox does)."""
    by_name = {s.name: s for s in specs}
    workers: WorkerSet | None = None
    pending: list[dict[str, Any]] = []
    flushed, names = time.monotonic(), itertools.count()
    try:
        with tempfile.TemporaryDirectory(prefix="pqc-task-") as tmp:
            for batch in batches:
                for cell in batch.to_pylist():
                    if workers is None:
                        workers = WorkerSet([by_name[cell["adapter"]]])
                    case = CaseEntry.from_json(json.loads(cell["case"]))
                    path = Path(cell["path"] or Path(tmp) / f"case-{next(names)}{Path(case.file).suffix}")
                    if cell["path"] is None:
                        path.write_bytes(cell["data"])
                    attempt = Attempt((cell["adapter"],), cell["round"], cell["fresh"], cell["confirm"])
                    pending.append(workers.run_one(cell["adapter"], case, path, attempt,
                                                   frozenset(cell["expect"] or ())).to_row())
                    if cell["path"] is None:
                        path.unlink()
                    if time.monotonic() - flushed >= FLUSH_S:
                        yield pa.RecordBatch.from_pylist(pending, schema=OUTCOME_SCHEMA)
                        pending, flushed = [], time.monotonic()
            if pending:
                yield pa.RecordBatch.from_pylist(pending, schema=OUTCOME_SCHEMA)
    finally:
        if workers is not None:
            workers.close()


def expected_hashes(manifest: Manifest, cases: Iterable[CaseEntry]) -> dict[str, frozenset[str]]:
    """case -> the data hashes a read of it may give and be right (the judge's good hashes, but the adapter's own
    baseline): a read of one keeps no sample, since no data diff will be drawn of it."""
    return {c.id: frozenset({manifest.bases[c.base].data_hash, *c.expect_hash.values(),
                             *(a.data_hash for a in c.alternatives)}) - {""}
            for c in cases if c.base in manifest.bases}


def run_cells(executor: Executor, jobs: list[Job], root: Path, specs: list[AdapterSpec],
              stage: Callable[[list[OutcomeRow]], None], counts: Counts | None = None,
              tasks: list[list[Job]] | None = None, manifest: Manifest | None = None) -> None:
    """The jobs' cells on the executor, each task's rows handed to `stage` as they come. `tasks`: the jobs already
    cut into tasks of one adapter each (the confirmation pass: harness/confirm.py), instead of `plan_cells`.
    `manifest`: whose expected data hashes spare a right read its sample."""
    if not jobs:
        return
    if tasks is not None:
        planned = [CellTask(t[0][1].adapters[0], tuple(t)) for t in tasks if t and t[0][1].adapters]
    else:
        planned = plan_cells(jobs, specs, executor.slots)
    if counts is not None:
        counts.plan(planned)
    expected = expected_hashes(manifest, {c.id: c for t in planned for c, _ in t.jobs}.values()) if manifest else None

    def done(task: CellTask, result: pa.Table) -> None:
        stage([OutcomeRow.from_row(r) for r in result.to_pylist()])
        if counts is not None:
            counts.add(task.adapter, result.num_rows, task)

    def table_of(task: CellTask) -> pa.Table:  # called as the task is taken up
        if counts is not None:
            counts.start(task.adapter)
        return cells_table(task, root, not executor.shared_disk, expected)

    executor.run(planned, table_of, functools.partial(cells_in_task, specs=tuple(specs)), OUTCOME_SCHEMA, done,
                 tick=counts.running if counts is not None else None)
