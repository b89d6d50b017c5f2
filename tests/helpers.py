"""Shared by the tests: how to start the command line in a fresh process."""

from __future__ import annotations

import sys

CLI = [sys.executable, "-m", "parquet_conformance.conformance.cli"]
