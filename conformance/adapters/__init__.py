"""Adapters: one module per implementation under test.

An adapter says who it is (name, implementation, version read from the library at run
time, roles) and reads one file. It never runs in the harness process: `conformance.runner`
starts it in a persistent worker that speaks the JSON-lines protocol of
docs/adapter-protocol.md, so a crash of the library is an outcome, not our crash.

Two kinds:
- `PythonAdapter`: the library is imported inside `python -m conformance.worker NAME`;
  `read` returns a pyarrow Table or canonical rows.
- `CommandAdapter`: the worker is another program (Java, Node, anything) given by `command()`.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

from generators.canonical import canonical_table

BUILTIN = ("pyarrow", "duckdb", "polars", "fastparquet", "datafusion", "parquet-java", "spark", "hyparquet",
           "reference")


class Unavailable(Exception):
    """The implementation's runtime is missing; the message says what to install."""


class Adapter:
    name = ""
    implementation = ""
    roles: tuple[str, ...] = ("legacy",)
    # Per-cell limits the runner applies to this adapter's worker.
    timeout_s = 60.0
    memory_limit_bytes: int | None = 8 << 30  # address space; None where a VM reserves its own (JVM)
    start_timeout_s = 120.0

    def describe(self) -> dict:
        return {"adapter": self.name, "implementation": self.implementation, "roles": list(self.roles)}


class PythonAdapter(Adapter):
    module = ""  # the import that must succeed

    def load(self) -> object:
        try:
            return importlib.import_module(self.module)
        except ImportError as e:
            raise Unavailable(f"python module {self.module!r} is not installed ({e}); "
                              f"pip install 'parquet-conformance[readers]'") from None

    def version(self) -> str:
        return str(getattr(self.load(), "__version__", "unknown"))

    def prepare(self) -> None:
        """Warm-up inside the worker before the first cell (e.g. start a JVM)."""
        self.load()

    def read(self, path: str) -> dict:
        raise NotImplementedError

    def command(self) -> list[str]:
        return [sys.executable, "-m", "conformance.worker", self.name]


class CommandAdapter(Adapter):
    # Another program (often a VM) bounds its own memory; an address-space limit would break a JVM.
    memory_limit_bytes = None

    def command(self) -> list[str]:
        raise NotImplementedError


def arrow_rows(table: object) -> dict:
    return canonical_table(table)


def require_program(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise Unavailable(f"program {name!r} is not on PATH")
    return path


def cache_dir(*parts: str) -> Path:
    root = Path.home() / ".cache" / "parquet-conformance"
    path = root.joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextlib.contextmanager
def cache_lock(path: Path) -> Iterator[None]:
    """Exclusive while a cache entry is built: Spark starts one worker per executor at once."""
    with (path / ".lock").open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def get(name: str) -> Adapter:
    if name not in BUILTIN:
        raise KeyError(f"unknown adapter {name!r}; known: {', '.join(BUILTIN)}")
    module = importlib.import_module(f"conformance.adapters.{name.replace('-', '_')}")
    return module.ADAPTER
