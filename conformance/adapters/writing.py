"""The writing capability: an adapter that writes its track's tables (`run --writers`, app/writers.py)
puts `Writer` beside its adapter class (a Python one `PythonWriter`) and names the profiles it has a way to ask for.
Reading needs none of it; a reader that does not write leaves it out."""

from __future__ import annotations

from pathlib import Path
from typing import Any


class NotExpressible(Exception):
    """An adapter cannot hand a table to its library to write (its `write_source` or `write` has no way to say one of
    its types in the library's input): the table is declined as the library declines one."""


class Writer:
    # The profiles of its track it writes (corpus/track.py Writable), and whether `run --writers` takes it without
    # --writer.
    profiles: tuple[str, ...] = ()
    default_writer = True

    def write_source(self, table: Any, profile: str) -> bytes | None:
        """What its worker is given to write `table` (a pyarrow Table) with: None for the table as an Arrow IPC file;
        a worker that cannot read Arrow gets its own document instead, made here, in the harness (a mistake in it is
        a harness error, never the writer's)."""
        return None


class PythonWriter(Writer):
    """A writer whose library is imported in the Python worker (conformance/harness/worker.py answers `write`)."""

    def write(self, source: str, path: str, profile: str) -> str | None:
        """The library writes the table of `source` (an Arrow IPC file: `table(source)`) to `path` with the profile's
        options, as a user calls it. Returns the library and version that wrote when they are not the adapter's own
        (hyparquet's writer is hyparquet-writer), else None."""
        raise NotImplementedError

    @staticmethod
    def table(source: str) -> Any:
        """The table a write is given (pyarrow reads it: our part, not the writer's)."""
        import pyarrow as pa

        return pa.ipc.open_file(pa.BufferReader(Path(source).read_bytes())).read_all()


def writes(adapter: object) -> bool:
    """Whether an adapter writes (it has the capability and a profile)."""
    return isinstance(adapter, Writer) and bool(adapter.profiles)
