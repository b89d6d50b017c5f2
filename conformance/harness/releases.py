"""Many releases of one implementation: a registered adapter's released versions, and the version matrix of
`run --versions FILE` (the adapters an invocation names: app/console.py specs; `bisect` walks the
releases: app/versions.py).

The matrix file is a small TOML table: a registered adapter -> a list of versions, or a range of every
final release its index (PyPI, npm) offers between two versions, both ends included:

    pyarrow = ["15.0.2", "19.0.1", "23.0.1"]
    polars = { from = "1.39.0", to = "1.42.0" }

Each release is an `AdapterSpec` (`NAME==VERSION`, cells named NAME-VERSION) run in its own cached
environment (conformance/harness/envs.py); the adapter as registered (installed or pinned) runs beside them.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from parquet_conformance.conformance.adapters import AdapterUnavailable
from parquet_conformance.conformance.harness import envs
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.kernel import documents
from parquet_conformance.kernel.documents import DocumentError
from parquet_conformance.kernel.errors import UsageError


def in_range(versions: list[str], start: str | None, stop: str | None) -> list[str]:
    low = envs.version_key(start) if start else None
    high = envs.version_key(stop) if stop else None
    return [v for v in versions if (low is None or envs.version_key(v) >= low)
            and (high is None or envs.version_key(v) <= high)]


def released(name: str, start: str | None = None, stop: str | None = None) -> list[str]:
    """The final releases of a registered adapter's package between two versions, oldest first."""
    adapter = AdapterSpec(name).build()
    if not adapter.package:
        raise UsageError(f"adapter {name!r} has no released versions (no package on PyPI or npm)")
    try:
        found = in_range(envs.releases(adapter.index, adapter.package), start, stop)
    except AdapterUnavailable as e:
        raise UsageError(str(e)) from None
    if not found:
        raise UsageError(f"{adapter.package} has no release between {start or 'the first'} and {stop or 'the last'}")
    return found


MAX_MATRIX = 1 << 20  # a version matrix: a line per adapter


def matrix_specs(path: Path) -> list[AdapterSpec]:
    """The adapters of a version-matrix file (see the module's doc): a regular file of UTF-8 TOML within
    MAX_MATRIX bytes, registered adapters, versions of envs.VERSION_RE; one line naming the file otherwise."""
    try:
        table = tomllib.loads(documents.read_bytes(path, MAX_MATRIX).decode("utf-8"))
    except DocumentError as e:
        raise UsageError(str(e)) from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text") from None
    except (tomllib.TOMLDecodeError, RecursionError) as e:
        raise UsageError(f"{path}: not TOML: {str(e)[:200]}") from None
    specs = []
    for name, wanted in table.items():
        try:
            AdapterSpec(name).build()  # an unknown adapter is an error now
            if isinstance(wanted, list) and all(isinstance(v, str) for v in wanted):
                versions = [envs.check_version(v) for v in wanted]
            elif isinstance(wanted, dict) and set(wanted) <= {"from", "to"} and all(
                    isinstance(v, str) for v in wanted.values()):
                start, stop = wanted.get("from"), wanted.get("to")
                versions = released(name, start and envs.check_version(start), stop and envs.check_version(stop))
            else:
                raise UsageError(f"{name} wants a list of versions or {{ from = \"V\", to = \"V\" }}")
        except (ValueError, UsageError) as e:  # SpecError, a version of no release's form
            raise UsageError(f"{path}: {e}") from None
        specs.append(AdapterSpec(name))
        specs += [AdapterSpec.parse(f"{name}=={v}") for v in dict.fromkeys(versions)]
    return specs
