"""A results store that survives damage (issue 29, class 4): one damaged partition is left out with one warning
by every reader that does not name it (history, reuse, the comparison, check and diff of other runs), and is one
line when named; a stored cell whose record changed since it was stored (its digest no longer matches) is not
reused: it runs again, with a warning."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from parquet_conformance.conformance.harness.derived import RESULT_SCHEMA
from parquet_conformance.conformance.harness.model import Cell, OutcomeKind, RunInfo, Verdict
from parquet_conformance.conformance.harness.results import (
    ResultsError,
    RunRecord,
    Store,
    cell_digest,
    read_cells,
    reusable_cells,
)
from parquet_conformance.corpus.model import Expectation, Kind
from parquet_conformance.reports.compare import compare
from parquet_conformance.reports.history import load_history
from tests.helpers import CLI


def cell(case: str, verdict: Verdict = Verdict.PASS) -> Cell:
    return Cell(case=case, track="parquet", group="base", kind=Kind.GOLDEN, adapter="pyarrow",
                implementation="pyarrow", version="1", role="legacy", expected=Expectation.READ,
                outcome=OutcomeKind.READ, verdict=verdict, error_class=None, error_message=None, rows=2,
                data_hash="ab" * 32, duration_s=0.25, metadata=None, attempts=1, previous_case=None,
                disagreement=None, fingerprint="f" * 16, case_sha256="c" * 64)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store(tmp_path / "out")
    for i, run in enumerate(("r1", "r2", "r3"), 1):
        cells = [cell("base/flat"), cell("base/nested", Verdict.CRASH if run == "r3" else Verdict.PASS)]
        info = RunInfo(run, "0", 0, "none", "/c", None, ["parquet"], "0" * 64, f"2026-01-0{i}T00:00:00+00:00")
        store.write(run, cells, RunRecord(info, [c.case for c in cells], [c.case for c in cells]))
    return store


def damage(store: Store, run: str) -> None:
    (store.results / f"run={run}" / "cells.parquet").write_bytes(b"PAR1 not a parquet file at all PAR1")


def test_a_damaged_old_partition_is_left_out_everywhere_with_one_warning(store: Store,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    damage(store, "r1")
    history = load_history(store.results)
    assert [p.run for p in history.runs] == ["r2", "r3"] and len(history.skipped) == 1
    assert "run=r1" in history.skipped[0] and "damaged" in history.skipped[0]
    assert read_cells(store.results)[0] == "r3"  # the gate's default: the latest run, read alone
    assert len(read_cells(store.results, "r2")[1]) == 2  # diff of two other runs
    with pytest.raises(ResultsError, match="damaged partition") as e:  # named: one line
        read_cells(store.results, "r1")
    assert "\n" not in str(e.value)
    damage(store, "r3")
    capsys.readouterr()
    found = reusable_cells(store.results, "r4")  # the latest readable earlier run
    assert found is not None and found[0] == "r2"
    cells = read_cells(store.results, "r2")[1]
    comparison = compare(cells, "r4", "2026-01-04T00:00:00+00:00", store.results)  # the run before is damaged
    assert comparison is None
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "run=r3" in err  # one warning, however often it was met


def test_a_cell_that_changed_since_it_was_stored_is_not_reused(store: Store,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = store.results / "run=r3" / "cells.parquet"
    rows = pq.read_table(path).to_pylist()
    rows[1]["verdict"] = "pass"  # the crash, made a pass after the fact
    pq.write_table(pa.Table.from_pylist(rows, schema=RESULT_SCHEMA), path)
    found = reusable_cells(store.results, "r4")
    assert found is not None
    run, cells = found
    assert run == "r3" and [c.case for c in cells] == ["base/flat"]  # base/nested runs again
    assert "do not match the digests" in capsys.readouterr().err


def test_a_run_stored_without_digests_is_not_reused(store: Store) -> None:
    (store.results / "run=r3" / "_digests.json").unlink()
    assert reusable_cells(store.results, "r4") is None


def test_the_digest_is_the_records() -> None:
    a = cell("base/flat")
    assert cell_digest(a) == cell_digest(replace(a))
    assert cell_digest(a) != cell_digest(replace(a, duration_s=0.5))


def test_history_and_check_commands_with_a_damaged_partition(store: Store, tmp_path: Path) -> None:
    damage(store, "r1")
    history = subprocess.run([*CLI, "report", "--history", str(store.results), "--out", str(tmp_path / "h")],
                             capture_output=True, text=True, timeout=300)
    assert history.returncode == 0, history.stderr
    assert history.stderr.count("warning") == 1 and "Traceback" not in history.stderr
    lists = tmp_path / "x.txt"
    check = subprocess.run([*CLI, "check", "--adapter", "pyarrow", "--expected-failures", str(lists),
                            "--write-expected-failures", "--results", str(store.results)], capture_output=True,
                           text=True, timeout=300)
    assert check.returncode == 0, check.stderr
    assert "base/nested" in lists.read_text()  # r3's crash: the latest run was checked, r1 never read


def test_a_partition_whose_data_file_is_a_link_is_damaged_and_the_link_is_not_followed(
        store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    elsewhere = tmp_path / "elsewhere.parquet"
    (store.results / "run=r2" / "cells.parquet").rename(elsewhere)  # a readable results file, outside the store
    (store.results / "run=r2" / "cells.parquet").symlink_to(elsewhere)
    history = load_history(store.results)
    assert [p.run for p in history.runs] == ["r1", "r3"] and len(history.skipped) == 1
    assert "run=r2" in history.skipped[0] and "damaged" in history.skipped[0]
    with pytest.raises(ResultsError, match="symbolic link"):
        read_cells(store.results, "r2")
