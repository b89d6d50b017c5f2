"""Shared by the tests: how to start the command line in a fresh process; every case of a list read by adapters."""

from __future__ import annotations

import sys

CLI = [sys.executable, "-m", "parquet_conformance.conformance.app.cli"]


def upstream_failures(adapter: str) -> dict[str, str]:
    """case -> the verdict pinned for `adapter` in tests/upstream/<adapter>.txt (upstream bugs the tests expect)."""
    from pathlib import Path

    from parquet_conformance.conformance.harness.gate import parse_expected

    path = Path(__file__).parent / "upstream" / f"{adapter}.txt"
    if not path.is_file():
        return {}
    return {e.case: str(e.verdict) for e in parse_expected(path.read_text())}


def read_cases(cases: list, root: object, specs: list) -> list:
    """Every case read by every adapter of its track, locally (harness/execute.run_cells on the local executor): the
    outcome rows."""
    from pathlib import Path

    from parquet_conformance.conformance.harness.execute import Attempt, run_cells
    from parquet_conformance.conformance.harness.executor import LocalExecutor

    rows: list = []
    run_cells(LocalExecutor(), [(c, Attempt()) for c in cases], Path(str(root)), specs, rows.extend)
    return rows
