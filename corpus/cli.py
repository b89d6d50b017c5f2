"""`parquet-conformance corpus ...`: pack, verify, fetch and add regression cases."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Adds the `corpus` command group to the main parser."""
