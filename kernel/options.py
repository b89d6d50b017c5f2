"""Argument types every command line shares (conformance/app/cli.py, corpus/cli.py): numbers that are finite and in
range, and folders that can be written and stored. Each refuses a bad value with one line (argparse prints it as
`parquet-conformance: error: argument --timeout: ...`, exit 2) before anything runs: a `--time nan` would fuzz
forever, a `--timeout nan` ignore its deadline, a path that is not UTF-8 could not be recorded in a run."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from pathlib import Path

SEED_MAX = (1 << 64) - 1
COUNT_MAX = (1 << 63) - 1
SECONDS_MAX = 366 * 86400.0  # a year: any longer deadline is a mistake


def integer(low: int, high: int = COUNT_MAX) -> Callable[[str], int]:
    """An integer in [low, high]."""
    def parse(text: str) -> int:
        try:
            value = int(text.strip(), 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not an integer") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not between {low} and {high}")
        return value
    return parse


def seconds(low: float = 0.0, high: float = SECONDS_MAX, *, zero: bool = False) -> Callable[[str], float]:
    """A finite number of seconds in (low, high] (or [low, high] with `zero`)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a number of seconds") from None
        if not math.isfinite(value) or value > high or value < low or (value == low and not zero):
            bounds = f"{'at least' if zero else 'more than'} {low:g} and at most {high:.0f}"
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a number of seconds {bounds}")
        return value
    return parse


def stored_path(text: str) -> str:
    """A path that can be recorded (in a run's record, a report): valid UTF-8, no NUL."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not valid UTF-8; rename it") from None
    if "\x00" in text or not text:
        raise argparse.ArgumentTypeError("an empty path, or one with a NUL byte")
    return text


def output_dir(text: str) -> str:
    """A folder to write into: a stored path that is a folder or can be made one, by this user."""
    stored_path(text)
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{_shown(text)} exists and is not a folder")
    existing = next((p for p in (path, *path.absolute().parents) if p.exists()), None)
    if existing is None or not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{_shown(text)} cannot be written here ({existing} is not writable)")
    return text


def _shown(text: str) -> str:
    cut = text if len(text) <= 60 else text[:60] + "..."
    return repr(cut.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
