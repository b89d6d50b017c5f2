"""The cache folder: what parquet-conformance can make again and keeps between runs (release environments, compiled
workers, generated corpora, compiled report templates), under $XDG_CACHE_HOME or ~/.cache, each entry built behind a
lock of its own."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path


def cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "parquet-conformance"


def cache_dir(*parts: str) -> Path:
    path = cache_root().joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextlib.contextmanager
def cache_lock(path: Path) -> Iterator[None]:
    """Exclusive while a cache entry is built: workers of one adapter may start at once."""
    with (path / ".lock").open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
