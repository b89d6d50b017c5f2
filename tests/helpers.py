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
    """Every case read by every adapter of its track, locally (harness/execute.run_locally): the outcome rows."""
    from pathlib import Path

    from parquet_conformance.conformance.harness.execute import Attempt, run_locally

    rows: list = []
    run_locally([(c, Attempt()) for c in cases], Path(str(root)), specs, rows.extend)
    return rows


def md_text(text: str) -> str:
    """Markdown we wrote, its escapes undone (kernel/escape.py markdown): what GitHub shows, to assert on."""
    import re

    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text.replace("<!-- -->", ""))
