"""New, known, fixed: a run's cells against a previous run or against expected-failure lists, each cell by the gate's
own rule (conformance/harness/gate.py `decide`), so that report.html, summary.md and JUnit say what `check` would
(against lists, at the level `check` enforces by default). A previous run's failures are read as the list
`check --write-expected-failures --level policy` would have written from it (each cell pinned to its verdict, every
level); a failure is `new` only where that run's cell passed: a failing cell that run does not have (a case or an
implementation added), or whose verdict there says nothing to compare with (flaky, skipped, not judged), is
`unseen`, neither new nor known, as run diffs keep such cells apart (reports/diff.py), and its mark says what the
cell was. Flaky cells get no mark: they are counted apart."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from parquet_conformance.conformance.harness.gate import Entry, Status, decide, entry_for
from parquet_conformance.conformance.harness.model import Cell, Verdict
from parquet_conformance.conformance.harness.results import ResultsError, read_cells, read_record, warn
from parquet_conformance.corpus.model import Level
from parquet_conformance.reports.model import CellMark, Comparison, Mark

MARKS = {Status.UNEXPECTED_FAILURE: Mark.NEW, Status.KNOWN: Mark.KNOWN, Status.CHANGED_FAILURE: Mark.CHANGED,
         Status.UNEXPECTED_PASS: Mark.FIXED}


def marks(cells: list[Cell], lists: dict[str, list[Entry]], level: Level = Level.MUST) -> list[CellMark]:
    """Each cell against its adapter's list (`lists`: adapter -> entries; an adapter without one has an empty
    list: all its failures at or above `level` are new)."""
    out = []
    for cell in cells:
        entry = entry_for(cell, lists.get(cell.adapter, []))
        mark = MARKS.get(decide(cell, entry, level))
        if mark is not None:
            before = str(entry.verdict) if entry is not None and entry.verdict is not None else None
            out.append(CellMark(cell.case, cell.adapter, cell.role, mark, before))
    return out


def against_lists(cells: list[Cell], lists: dict[str, list[Entry]], names: list[str]) -> Comparison:
    """Against expected-failure lists (`names`: their file names, as the reports show them)."""
    return Comparison("expected-failures", ", ".join(names), marks(cells, lists))


def against_run(cells: list[Cell], before: list[Cell], run_id: str) -> Comparison:
    lists: dict[str, list[Entry]] = {}
    for c in before:
        if c.verdict.is_failure:
            lists.setdefault(c.adapter, []).append(Entry(c.case, c.role, c.verdict, 0))
    was = {(c.case, c.adapter, c.role): c.verdict for c in before}
    out = []
    for m in marks(cells, lists, Level.POLICY):
        key = (m.case, m.adapter, m.role)
        # New only against a pass: a cell that was flaky, skipped or not judged then, or absent, is not compared.
        mark = Mark.UNSEEN if m.mark == Mark.NEW and was.get(key) != Verdict.PASS else m.mark
        out.append(CellMark(*key, mark, str(was[key]) if key in was else None))  # before: its verdict then
    return Comparison("run", run_id, out)


def _runs(results: Path) -> dict[str, str | None]:
    """The runs of a results dataset with when each started (None: not recorded, or a record that does not read)."""
    out: dict[str, str | None] = {}
    for p in sorted(results.glob("run=*")):
        if (p / "cells.parquet").is_file():
            run_id = p.name.removeprefix("run=")
            try:
                record = read_record(results, run_id)
            except ResultsError:
                record = None
            out[run_id] = record.info.started if record else None
    return out


def _key(by_time: bool) -> Callable[[str, str | None], tuple[str, str]]:
    """Runs in the order history draws them: by start time when every run has one, else by id."""
    return lambda run, started: ((started or "") if by_time else "", run)


def run_before(results: Path, run_id: str, started: str | None = None) -> str | None:
    """The run of `results` that came last before `run_id` (a run of the dataset, or one being written that
    started at `started`); None when there is none."""
    runs = _runs(results)
    started = runs.get(run_id, started)
    others = {r: s for r, s in runs.items() if r != run_id}
    key = _key(started is not None and all(others.values()))
    earlier = [r for r, s in others.items() if key(r, s) < key(run_id, started)]
    return max(earlier, key=lambda r: key(r, others[r]), default=None)


def latest_run(results: Path, but: str | None = None) -> str | None:
    """The latest run of a results dataset (given as a baseline), leaving out `but`."""
    others = {r: s for r, s in _runs(results).items() if r != but}
    key = _key(all(others.values()))
    return max(others, key=lambda r: key(r, others[r]), default=None)


def compare(cells: list[Cell], run_id: str, started: str | None, results: Path, baseline: Path | None = None,
            lists: dict[str, list[Entry]] | None = None, names: list[str] | None = None) -> Comparison | None:
    """What a run is compared with, as `run` and `report --rewrite` are asked: expected-failure lists when given
    (`lists`: adapter -> entries), else the latest run of `baseline` (a results dataset), else the run before this
    one in its own dataset `results`; None when there is nothing to compare with."""
    if lists:
        return against_lists(cells, lists, names or [])
    if baseline is not None and baseline.resolve() != results.resolve():
        before = latest_run(baseline)
        source = baseline
    else:
        before, source = run_before(results, run_id, started), results
    if before is None:
        return None
    try:
        earlier = read_cells(source, before)[1]
    except ResultsError as e:  # a damaged partition: left out with a warning, as everywhere (docs/results.md)
        warn(f"{e}; left out")  # the same words everywhere: one warning per damaged partition
        return None
    return against_run(cells, earlier, before)
