"""Shared by the tests: how to start the command line in a fresh process."""

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
