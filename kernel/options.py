"""Argument types every command line shares (app/cli.py, corpus/cli.py): numbers that are finite and in
range, and folders that can be written and stored. Each refuses a bad value with one line (argparse prints it as
`parquet-conformance: error: argument --timeout: ...`, exit 2) before anything runs: a `--time nan` would fuzz
forever, a `--timeout nan` ignore its deadline, a path that is not UTF-8 could not be recorded in a run."""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
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
        if _utf8(os.fsencode(text)) and sys.getfilesystemencoding() != "utf-8":  # the locale's fault, not the name's
            raise argparse.ArgumentTypeError(
                f"{_shown(text)} cannot be named under this locale's {sys.getfilesystemencoding()} encoding: set a "
                "UTF-8 locale (LC_ALL=C.UTF-8) or PYTHONUTF8=1") from None
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not valid UTF-8; rename it") from None
    if "\x00" in text or not text:
        raise argparse.ArgumentTypeError("an empty path, or one with a NUL byte")
    return text


def output_dir(text: str) -> str:
    """A folder to write into: a stored path that is a folder or can be made one, by this user (each check is made
    with this process's own rights: a folder above it that it cannot search is refused as one it cannot write)."""
    stored_path(text)
    path = Path(text)
    try:
        if path.exists() and not path.is_dir():
            raise argparse.ArgumentTypeError(f"{_shown(text)} exists and is not a folder")
        existing = next((p for p in (path, *path.absolute().parents) if p.exists()), None)
    except OSError as e:  # a folder above it this user cannot search
        shut = next((p for p in reversed(path.absolute().parents) if not _may(p, os.X_OK)), e.filename)
        raise argparse.ArgumentTypeError(f"{_shown(text)} cannot be written here ({shut} cannot be searched by this "
                                         "user)") from None
    if existing is None or not existing.is_dir() or not _may(existing, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{_shown(text)} cannot be written here ({existing} is not writable)")
    return text


def _may(path: Path, mode: int) -> bool:
    """Whether this process may use the folder so, by its effective user and groups (as the writes will be made)."""
    return os.access(path, mode, effective_ids=os.access in os.supports_effective_ids)


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _shown(text: str) -> str:
    cut = text if len(text) <= 60 else text[:60] + "..."
    return repr(cut.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))


# -- Spark: what `--master` and `--conf` may say, checked before Spark starts (a bad value would otherwise end in a
# JVM's stack trace, or fail only in a task) -----------------------------------------------------------------------

_HOST_PORT = r"[A-Za-z0-9_.\-]+|\[[0-9A-Fa-f:.]+\]"  # a name, an IPv4 address or a bracketed IPv6 one
_MASTER = re.compile(
    r"local(\[(\*|[1-9]\d{0,4})(,\s*[1-9]\d{0,4})?\])?"  # local, local[N], local[*], local[N,F]
    r"|local-cluster\[[1-9]\d{0,4},\s*[1-9]\d{0,4},\s*[1-9]\d{0,7}\]"  # local-cluster[workers,cores,MiB]
    rf"|spark://({_HOST_PORT}):[1-9]\d{{0,4}}(,({_HOST_PORT}):[1-9]\d{{0,4}})*"  # standalone (HA: several masters)
    rf"|sc://({_HOST_PORT})(:[1-9]\d{{0,4}})?(/;[^\s]*)?"  # Spark Connect, with its ;key=value parameters
    rf"|k8s://(https?://)?({_HOST_PORT}):[1-9]\d{{0,4}}"
    r"|yarn|none", re.ASCII)
_PORT_MAX = 65535
_SIZE = re.compile(r"\d+[kmgtp]?b?", re.IGNORECASE | re.ASCII)  # Spark's byte strings: 512m, 2g, 1024
_DURATION = re.compile(r"\d+(us|ms|s|m|min|h|d)?", re.IGNORECASE | re.ASCII)
_CONF_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")
# The typed settings a run is most often given, checked as Spark would (the rest Spark checks, lazily).
_CONF_TYPES: tuple[tuple[re.Pattern[str], str, re.Pattern[str]], ...] = (
    (re.compile(r".*\.(memory|memoryOverhead|maxResultSize|offHeap\.size)$"), "a size such as 512m or 2g", _SIZE),
    (re.compile(r".*\.(cores|instances|maxFailures|parallelism|partitions|maxSize)$"), "a positive integer",
     re.compile(r"[1-9]\d{0,9}", re.ASCII)),
    (re.compile(r".*\.(enabled|reuse|showConsoleProgress)$"), "true or false", re.compile(r"true|false",
                                                                                          re.IGNORECASE)),
    (re.compile(r".*\.(timeout|interval|heartbeatInterval)$"), "a duration such as 120s or 500ms", _DURATION),
)


def spark_master(text: str) -> str:
    """A Spark master Spark can start with: local[N], local[*], spark://HOST:PORT, sc://HOST:PORT, k8s://..., yarn
    (with HADOOP_CONF_DIR or YARN_CONF_DIR set), or none."""
    value = text.strip()
    ports = [int(p) for p in re.findall(r":(\d+)", value.split("/;")[0], re.ASCII)]
    if not _MASTER.fullmatch(value) or any(p > _PORT_MAX for p in ports):
        raise argparse.ArgumentTypeError(
            f"{_shown(text)} is no Spark master: local, local[N], local[*], spark://HOST:PORT, sc://HOST:PORT, "
            "k8s://https://HOST:PORT, yarn, or none")
    if value == "yarn" and not (os.environ.get("HADOOP_CONF_DIR") or os.environ.get("YARN_CONF_DIR")):
        raise argparse.ArgumentTypeError("yarn needs HADOOP_CONF_DIR or YARN_CONF_DIR set to the cluster's "
                                         "configuration")
    return value


def spark_connect(text: str) -> str:
    """A Spark Connect server, sc://HOST:PORT (`--remote`: the same as `--master sc://...`)."""
    value = spark_master(text)
    if not value.startswith("sc://"):
        raise argparse.ArgumentTypeError(f"--remote wants a Spark Connect URL sc://HOST:PORT, got {_shown(text)}")
    return value


def spark_conf(text: str) -> str:
    """One Spark setting, KEY=VALUE: a key of letters, digits, '.', '_', '-' (not spark.master: that is --master),
    and for the settings whose type is known here, a value of that type."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not _CONF_KEY.fullmatch(key):
        raise argparse.ArgumentTypeError(f"{_shown(text)}: want KEY=VALUE, e.g. spark.executor.memory=2g")
    if key in ("spark.master", "spark.remote"):
        raise argparse.ArgumentTypeError(f"{key} is set by --master, not --conf")
    for pattern, what, good in _CONF_TYPES:
        if pattern.fullmatch(key) and not good.fullmatch(value.strip()):
            raise argparse.ArgumentTypeError(f"{key}={_shown(value)}: {key} wants {what}")
    return f"{key}={value}"
