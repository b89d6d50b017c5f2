"""Progress while cells run: a count per adapter that moves while a task is under way, also where the executor
hands a task's rows over only at its end (an embedded Spark session: harness/spark.py Ticks)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pyarrow as pa

from parquet_conformance.conformance.harness.cells import CellTask
from parquet_conformance.conformance.harness.progress import Counts
from parquet_conformance.conformance.harness.spark import Ticks, ticking


def test_a_running_task_counts_until_its_result_replaces_it() -> None:
    counts = Counts("cells done")
    task, other = CellTask("a", ()), CellTask("a", ())
    counts.plan([CellTask("a", ((None, None),) * 6), CellTask("b", ((None, None),) * 2)])  # type: ignore[arg-type]
    counts.start("a")
    counts.running(task, 2)
    counts.running(other, 1)
    assert counts.line().startswith("[3/8] cells done") and "a 3/6" in counts.line()
    counts.add("a", 4, task)  # its result: 4 rows, the 2 it had told are not counted again
    assert counts.line().startswith("[5/8]")
    counts.running(task, 3)  # a tick read before the task ended, told after: no longer counts
    assert counts.line().startswith("[5/8]") and "0 of 2 adapters done" in counts.line()


def test_the_rows_a_spark_task_yields_reach_the_driver_before_it_ends(tmp_path: object) -> None:
    told: list[int] = []
    seen = threading.Event()
    release = threading.Event()

    def tick(_task: object, rows: int) -> None:
        told.append(rows)
        if rows == 5:
            seen.set()

    def body(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for n in (2, 3):
            yield pa.RecordBatch.from_pydict({"x": list(range(n))})
        release.wait(10)  # the task is still under way: its rows are not handed over yet
        yield pa.RecordBatch.from_pydict({"x": [0]})

    ticks = Ticks(tick)
    ticks.TICK_S = 0.05
    with ticks, ticks.noted(object()) as path:
        out: list[pa.RecordBatch] = []
        worker = threading.Thread(target=lambda: out.extend(ticking(iter(()), body, path)))
        worker.start()
        assert seen.wait(10), told  # 2 + 3 rows told while the body waits
        release.set()
        worker.join()
    assert [b.num_rows for b in out] == [2, 3, 1]  # the body's batches pass through unchanged
    assert not ticks.folder.exists()  # the tick files go with the run
    assert told == sorted(told)  # a count never goes back


def test_the_heartbeat_speaks_only_after_a_silence_of_its_own_length() -> None:
    """A command refused in its first seconds prints its one error line, and no heartbeat before it: silence counts
    from the heartbeat's start, not from the process's (CI once saw "verifying the corpus, 0s" before a refusal)."""
    from parquet_conformance.app import console

    beat = console.Heartbeat(None, every=4.0)
    beat.now("verifying the corpus")
    start = beat._started
    assert beat.due(start + 3.9) is None
    assert (line := beat.due(start + 4.0)) is not None and line.startswith("verifying the corpus, ")
    console.progress_line("a line of the run's own")  # resets the silence
    assert beat.due(console._LAST[0] + 3.9) is None
    assert beat.due(console._LAST[0] + 4.0) is not None
