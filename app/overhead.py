"""Skip overhead: what an extension a reader must skip costs it. The Parquet spec promises that "existing readers
will ignore the extension bytes with little processing overhead" (BinaryProtocolExtensions.md); this measures it.

Each adapter reads a base as it is and with a skippable extension of 0 B, 1 MiB, 16 MiB and 64 MiB (a track
that can make one: `Track.skippable`), several times in one persistent worker; the figure is the median of the
library's own time (`library_s`, the cell's time when a worker does not report it), relative to the base as it is.
bench/skip_overhead.py --out DIR writes the rows to DIR/skip-overhead.json (FILE); a run's document takes them from
there (`load`), so that the reports, which read no file, show them.
A reader is flagged when its largest extension (where the signal is strongest: smaller ones flap between runs on
a shared machine; never one under 1 MiB) costs it more than FLAG_FACTOR times reading those bytes once (measured
here, on the same files, in the same run), beyond what noise can add. Bytes read are the `rchar` of the worker's
process tree (/proc/PID/io: read() calls, whatever the language) over one read: memory-mapped reads are not in it,
and without /proc there is no figure. reports/overhead.py renders the rows.
"""

from __future__ import annotations

import functools
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow as pa

from parquet_conformance.conformance.harness.derived import arrow_schema
from parquet_conformance.conformance.harness.executor import Executor, LocalExecutor
from parquet_conformance.conformance.harness.model import Overhead, Read
from parquet_conformance.conformance.harness.specs import AdapterSpec, implementation
from parquet_conformance.conformance.harness.workers import Worker
from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus.track import Track
from parquet_conformance.kernel import documents
from parquet_conformance.kernel.documents import DocumentError
from parquet_conformance.kernel.errors import UsageError

FILE = "skip-overhead.json"
MAX_FILE = 16 << 20  # a row per adapter, base and size: a few KiB

SIZES: tuple[int | None, ...] = (None, 0, 1 << 20, 16 << 20, 64 << 20)
FLAG_FACTOR = 10.0
FLAG_MIN_SIZE = 1 << 20  # smaller extensions cost less than the noise of a shared machine
FLAG_NOISE = 0.5  # of the base's own time, plus FLAG_SLACK_S: what noise alone can add
FLAG_SLACK_S = 0.005


def _read_once(path: Path, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        path.read_bytes()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


OVERHEAD_SCHEMA = arrow_schema(Overhead)
# folder: where the files are (an executor that shares this disk), else each task makes its own
TASK_SCHEMA = pa.schema([("adapter", pa.string()), ("folder", pa.string())])


def measure(specs: list[AdapterSpec], track: Track, bases: list[str], repeat: int = 5,
            progress: Callable[[str], None] | None = None, sizes: tuple[int | None, ...] = SIZES,
            executor: Executor | None = None) -> list[Overhead]:
    """Each adapter a task of the executor (the local one by default), one at a time so that no two measurements
    share the cores; its rows in the order of `specs`."""
    if not isinstance(track, tracks.Skippable):
        raise ValueError(f"track {track.name!r} has no skippable extension to measure")
    sizes = (None, *(s for s in sizes if s is not None))  # the base as it is comes first: the reference
    on: Executor = executor or LocalExecutor()
    got: dict[str, list[Overhead]] = {}

    def done(spec: AdapterSpec, table: pa.Table) -> None:
        got.setdefault(spec.name, []).extend(Overhead.from_json(r) for r in table.to_pylist())
        if progress:
            last = got[spec.name][-1]
            progress(f"{spec.name}: {last.base} with {Overhead.size_text(last.size)} extension")

    with tempfile.TemporaryDirectory(prefix="pqc-overhead-") as tmp:
        folder = None
        if on.shared_disk:  # made once, here, for every task
            _files(track, tuple(bases), sizes, Path(tmp))
            folder = tmp
        on.run(specs, lambda spec: pa.table({"adapter": [spec.name], "folder": [folder]}, schema=TASK_SCHEMA),
               functools.partial(overhead_in_task, specs=tuple(specs), track=track.name, bases=tuple(bases),
                                 repeat=repeat, sizes=sizes), OVERHEAD_SCHEMA, done, at_once=1)
    return [row for spec in specs for row in got.get(spec.name, [])]


def _files(track: Track, bases: tuple[str, ...], sizes: tuple[int | None, ...],
           folder: Path) -> dict[tuple[str, int | None], Path]:
    """Each base as it is and with each size of extension, in `folder` (made once, unless there already)."""
    assert isinstance(track, tracks.Skippable)
    files = {(b, size): folder / f"{b}-{size}{track.suffix}" for b in bases for size in sizes}
    for (b, size), path in files.items():
        if not path.is_file():
            path.write_bytes(track.skippable(b, size))
    return files


def overhead_in_task(batches: Iterator[pa.RecordBatch], specs: tuple[AdapterSpec, ...], track: str,
                     bases: tuple[str, ...], repeat: int, sizes: tuple[int | None, ...]) -> Iterator[pa.RecordBatch]:
    """A task's body: one adapter's rows, a batch per (base, size), its files those of the task's folder or made
    here (no 64 MiB file travels in a task)."""
    by_name = {s.name: s for s in specs}
    with tempfile.TemporaryDirectory(prefix="pqc-overhead-") as tmp:
        for batch in batches:
            for task in batch.to_pylist():
                files = _files(tracks.get(track), bases, sizes, Path(task["folder"] or tmp))
                for row in _measure_one(by_name[task["adapter"]], bases, sizes, files, repeat):
                    yield pa.RecordBatch.from_pylist([row.to_json()], schema=OVERHEAD_SCHEMA)


def _measure_one(spec: AdapterSpec, bases: tuple[str, ...], sizes: tuple[int | None, ...],
                 files: dict[tuple[str, int | None], Path], repeat: int) -> Iterator[Overhead]:
    worker = spec.worker()
    try:
        for b in bases:
            plain: float | None = None
            for size in sizes:
                path = files[(b, size)]
                worker.read(str(path))  # warm: the first read of a file pays for the page cache and JITs
                before = _bytes_read(worker)
                timed = [worker.read(str(path))]
                after = _bytes_read(worker)
                timed += [worker.read(str(path)) for _ in range(repeat - 1)]
                outcome = timed[-1].outcome
                seconds = (statistics.median(t.library_s if t.library_s is not None else t.duration_s
                                             for t in timed) if isinstance(outcome, Read) else None)
                if size is None:
                    plain = seconds
                once = _read_once(path, repeat) - _read_once(files[(b, None)], repeat)
                extra = (seconds - plain) if seconds is not None and plain is not None else None
                info = worker.info
                yield Overhead(
                    adapter=spec.name, implementation=implementation(info) if info else spec.name,
                    version=info.version if info else None, base=b, size=size, seconds=seconds,
                    outcome=outcome.kind.value, ratio=seconds / plain if seconds is not None and plain else None,
                    read_once_s=max(once, 0.0),
                    flagged=size == max(s for s in sizes if s is not None)
                    and _flagged(size, extra, max(once, 0.0), plain),
                    bytes_read=after - before if before is not None and after is not None else None)
    finally:
        worker.close()


def _flagged(size: int | None, extra: float | None, once: float, plain: float | None) -> bool:
    if size is None or size < FLAG_MIN_SIZE or extra is None or plain is None:
        return False
    return extra > FLAG_FACTOR * once + FLAG_NOISE * plain + FLAG_SLACK_S


def _bytes_read(worker: Worker) -> int | None:
    """The `rchar` of the worker's processes (the reaper and everything under it), or None without /proc."""
    pid = worker.transport.pid
    if pid is None:
        return None
    total, todo = 0, [pid]
    try:
        while todo:
            pid = todo.pop()
            io = Path(f"/proc/{pid}/io").read_text(encoding="utf-8")
            total += int(next(line.split()[1] for line in io.splitlines() if line.startswith("rchar:")))
            for task in Path(f"/proc/{pid}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text(encoding="utf-8").split()]
    except (OSError, StopIteration, ValueError):
        return None
    return total


def load(out: Path) -> list[Overhead]:
    """OUT/skip-overhead.json's rows; none without one; UsageError (one line naming the file and the field) for a
    file that is not one: held to the JSON Schema of a list of Overhead rows, within MAX_FILE bytes."""
    path = out / FILE
    if not os.path.lexists(path):
        return []
    try:
        rows = documents.read_json(path, MAX_FILE, documents.records_schema(Overhead))
    except DocumentError as e:
        raise UsageError(f"not a skip-overhead file of bench/skip_overhead.py: {e}") from None
    return [Overhead.from_json(obj) for obj in rows]
