"""Adapters: one module per implementation under test, in the folder of its track
(adapters/parquet/...), registered by name in the entry-point group `parquet_conformance.adapters`.

An adapter says who it is (name, implementation, the engine underneath, version read from the
library at run time, roles, track) and reads one file. It never runs in the harness process:
conformance/harness/workers.py starts it in a persistent worker that speaks the JSON-lines protocol of
docs/adapter-protocol.md, so a crash of the library is an outcome, not our crash.

Two kinds:
- `PythonAdapter`: the library is imported inside `python -m parquet_conformance.conformance.harness.worker NAME`;
  `read` returns the canonical data of the file (e.g. `arrow_rows(table)`).
- `CommandAdapter`: the worker is another program (Java, Node, anything) given by `command()`.

An adapter with a `release` runs that released version of its `package` in an environment of its own
(conformance/harness/envs.py makes it and the worker's command there): `--adapter NAME==VERSION` sets it, and an
adapter whose library cannot share the harness's environment is pinned to one. The base says who an adapter is and
how it reads; writing (adapters/writing.py) and reproducing (adapters/reproducing.py) are capabilities an adapter
class adds beside it, and release environments are the harness's (envs.py), so that nothing here imports the
harness.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import shutil
import sys
from collections.abc import Callable, Iterator, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from parquet_conformance.conformance.adapters.representations import Documented
from parquet_conformance.conformance.adapters.taxonomy import GENERIC, Outcome, Refusals, classify
from parquet_conformance.conformance.adapters.writing import writes
from parquet_conformance.generators.canonical import ArrowData
from parquet_conformance.kernel import registry

FOLDER = __name__  # adapters/<track>/<module>.py: the track is the folder's name


class AdapterUnavailable(Exception):
    """The implementation's runtime is missing; the message says what to install."""


class AdapterError(Exception):
    """The adapter's own code failed around the library's call (not the library): a harness error."""


@contextlib.contextmanager
def ours(step: str) -> Iterator[None]:
    """A step of the adapter's own inside `read` (a side query, a schema probe, reading our case document, a
    conversion): what it raises is an AdapterError, a harness error, never the library's outcome
    (docs/adapters.md#the-data-path)."""
    try:
        yield
    except AdapterError:
        raise
    except Exception as e:
        raise AdapterError(f"{step}: {type(e).__name__}: {e}") from e


class Adapter:
    name = ""
    implementation = ""
    engine = ""  # the library that actually parses the file, when it is not the implementation itself
    # The track it reads: by default the folder it lives in (conformance/adapters/<track>/); an adapter of another
    # package names it. Roles: by default the track's default role (corpus/track.py).
    track_name: str | None = None
    roles: tuple[str, ...] = ()
    # Per-cell limits the runner applies to this adapter's worker.
    timeout_s = 60.0
    memory_limit_bytes: int | None = 8 << 30  # address space; None where a VM reserves its own (JVM)
    start_timeout_s = 120.0
    # Released versions: the package on its index, and the release run in an environment of its own (None:
    # the library installed beside the harness; envs.py makes the environment). Expensive adapters stay out of a
    # `run` without --adapter.
    index: Literal["pypi", "npm"] = "pypi"
    package = ""
    release: str | None = None
    default_run = True
    # The CPU-seconds a cell is expected to cost, by which a run orders and splits its tasks (harness/cells.py
    # plan_cells): a scheduling hint, measured with bench/matrix.py (an adapter's CPU over its cells), never a limit.
    cell_cost_s = 0.01
    python: tuple[int, int] | None = None  # a release needs at least this Python: its venv is made from one found here
    # How the library refuses input on purpose (docs/adapters.md#error-taxonomy): what else it raises is an unhandled
    # error. Applied in the Python worker; a worker in another language applies the same rule itself.
    refusals: Refusals = GENERIC
    # The forms of data its library documents (docs/adapters.md#documented-representations): a read in such a form is
    # `representation`, not wrong data; the harness hashes each base's expected data under them.
    representations: tuple[Documented, ...] = ()

    def command(self) -> list[str]:
        """The worker's command line (a release's is envs.py's: conformance/harness/envs.py worker_command)."""
        raise NotImplementedError

    def requirements(self, version: str) -> list[str]:
        """What the environment of a release installs: the library at that version, and the pins it needs."""
        if not self.package:
            raise AdapterUnavailable(f"adapter {self.name!r} has no released versions to install")
        return [f"{self.package}=={version}" if self.index == "pypi" else f"{self.package}@{version}"]

    @property
    def track(self) -> str:
        if self.track_name:
            return self.track_name
        package = type(self).__module__.rpartition(".")[0]
        if package.startswith(FOLDER + "."):
            return package.removeprefix(FOLDER + ".").split(".")[0]
        raise AdapterUnavailable(f"adapter {self.name!r} lives outside {FOLDER} and names no track_name")

    @track.setter
    def track(self, name: str) -> None:
        self.track_name = name

    def role_names(self) -> list[str]:
        """Its roles, or the track's default role (resolved in the harness: a worker does not load the track)."""
        # imported here, not at the top: start-up time (only this path needs it)
        from parquet_conformance.corpus import track

        return list(self.roles) or [track.get(self.track).default_role]

    def library_version(self) -> str | None:
        """The library's version as pinned or installed, known without starting the worker (None: unknown)."""
        if self.release:
            return self.release
        if self.package and self.index == "pypi":
            try:
                return metadata.version(self.package)
            except metadata.PackageNotFoundError:
                return None
        return None

    def fingerprint(self) -> str | None:
        """What this adapter's answers depend on, known before its worker starts: its name, the library's version,
        the Python it runs in, and our own code (every file of the package: an edit of ours may change a
        conversion). A later run reuses an earlier attempt only when the fingerprints agree (docs/results.md);
        None (a library whose version is unknown until it runs) is never reused."""
        version = self.library_version()
        if version is None:
            return None
        text = f"{self.name}|{self.package}|{version}|{sys.version}|{code_digest()}"
        return hashlib.sha256(text.encode()).hexdigest()[:20]

    def describe(self) -> dict[str, Any]:
        """What the worker announces; empty roles stand for the track's default role."""
        return {"adapter": self.name, "implementation": self.implementation, "engine": self.engine or None,
                "track": self.track, "roles": list(self.roles)}


class PythonAdapter(Adapter):
    module = ""  # the import that must succeed
    # The operations besides `read` the adapter's library can do (a method each, `-` read as `_`); the worker
    # answers `unavailable` for any other (docs/adapter-protocol.md#operations)
    operations: tuple[str, ...] = ()
    keyed: tuple[str, ...] = ()  # those of `operations` that take a case's keys: `method(path, keys)` (decrypt)

    def load(self) -> Any:
        try:
            return importlib.import_module(self.module)
        except ImportError as e:
            raise AdapterUnavailable(f"python module {self.module!r} is not installed ({e}); "
                              f"pip install 'parquet-conformance[readers]'") from None

    def version(self) -> str:
        return str(getattr(self.load(), "__version__", "unknown"))

    def prepare(self) -> None:
        """Warm-up inside the worker before the first cell (e.g. start a JVM)."""
        self.load()

    def read(self, path: str) -> Any:
        """The library reads the file, as a user would call it, and nothing else: what it raises is the library's
        outcome. What it returns goes to `canonical`; a step of ours that cannot wait for `canonical` runs under
        `ours`."""
        raise AdapterError(f"adapter {self.name!r} has no read")  # ours, not the library's: a harness error

    def outcome(self, error: BaseException) -> Outcome:
        """What an error the library raised means: its declared `refusals` decide (Spark asks the JVM's rule)."""
        return classify(self.refusals, error)

    def offers(self, op: str, path: str) -> bool:
        """Whether this release of the library has the API one of `operations` calls (an older release may lack it:
        DuckDB before parquet_page_index, pyarrow before geospatial statistics). Ours, asked before the operation:
        it only ever makes a cell `unavailable` (a skip), never the library's refusal, never a pass."""
        return True

    def takes(self, op: str, keys: Mapping[str, str]) -> bool:
        """Whether the library's API for a keyed operation can take these keys (a KMS hook needs master keys, an
        explicit-key API data keys). Ours, asked before the operation: False only makes the cell `unavailable`."""
        return True

    def run(self, op: str, path: str, keys: Mapping[str, str] | None = None) -> Any:
        """The library does the case's operation on the file: `read`, or a track's own (a method of that name, `-`
        read as `_`: e.g. `decode`, `encode`, `page-index`). The worker answers
        `unavailable` for an operation the adapter lacks (conformance/harness/worker.py)."""
        return self.operation(op, path, keys)()

    def operation(self, op: str, path: str, keys: Mapping[str, str] | None = None) -> Callable[[], Any]:
        """The library's call for the operation, resolved before it runs (ours: an AdapterError here is a harness
        error). An operation in `keyed` takes the case's keys (a decryption's) and needs them; no other takes any."""
        if op != "read" and op not in self.operations:
            raise AttributeError(f"adapter {self.name!r} has no operation {op!r}")
        method: Callable[..., Any] | None = self.read if op == "read" else getattr(self, op.replace("-", "_"), None)
        if method is None:
            raise AdapterError(f"adapter {self.name!r} lists operation {op!r} and has no method for it")
        if (op in self.keyed) != bool(keys):
            raise AdapterError(f"operation {op!r} of {self.name}: " + ("sent no keys" if op in self.keyed else
                                                                      "sent keys it takes none of"))
        return functools.partial(method, path, dict(keys)) if keys else functools.partial(method, path)

    def canonical(self, result: Any) -> Mapping[str, Any]:
        """Our conversion of the library's result into canonical data (an exception here is a harness error,
        never the library's). Default: a pyarrow Table (ArrowData: its tokens made only if asked for; the worker
        hashes it straight from Arrow)."""
        return ArrowData(result)

    def command(self) -> list[str]:
        """The worker in this Python (a release's runs in its environment: envs.py worker_command)."""
        return [sys.executable, "-m", "parquet_conformance.conformance.harness.worker", self.name]


class CommandAdapter(Adapter):
    # Another program (often a VM) bounds its own memory; an address-space limit would break a JVM.
    memory_limit_bytes = None

    def command(self) -> list[str]:
        raise NotImplementedError


@functools.cache
def code_digest() -> str:
    """The sha256 of every file of this package that can change an answer or a verdict (Python, Java, JavaScript),
    computed once per process."""
    root = Path(__file__).resolve().parents[2]  # the folder holding the six top-level folders
    h = hashlib.sha256()
    for folder in ("kernel", "generators", "corpus", "conformance", "reports", "app"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in (".py", ".java", ".mjs", ".json") and "__pycache__" not in path.parts:
                h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def require_program(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise AdapterUnavailable(f"program {name!r} is not on PATH")
    return path


def names(track: str | None = None, default_run: bool = False) -> list[str]:
    """Registered adapters (of one track; only those a `run` without --adapter runs), in registration order."""
    return [n for n in registry.names(registry.ADAPTERS)
            if (track is None or get(n).track == track) and (not default_run or get(n).default_run)]


def writers(track: str | None = None, default: bool = False) -> list[str]:
    """Registered adapters that write (of one track; only those `run --writers` takes without --writer)."""
    return [n for n in registry.names(registry.ADAPTERS) if writes(a := get(n))
            and (track is None or a.track == track) and (not default or getattr(a, "default_writer", True))]


def get(name: str) -> Adapter:
    """The registered adapter; registry.RegistryError (a LookupError) names the known ones."""
    adapter = registry.load(registry.ADAPTERS, name)
    if not isinstance(adapter, Adapter):
        raise registry.RegistryError(f"adapter {name!r} is registered as {adapter!r}, not an Adapter")
    return adapter
