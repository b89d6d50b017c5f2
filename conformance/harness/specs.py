"""Which adapter, built how: `AdapterSpec` is the one way to build an adapter and its worker (by registered name, a
release of one, or an external command), and what a spec says of its adapter without reading a cell: its documented
representations, its description (its worker started once), the implementation its rows name.
"""

from __future__ import annotations

import copy
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from parquet_conformance.conformance import adapters
from parquet_conformance.conformance.adapters import Adapter, AdapterUnavailable, CommandAdapter
from parquet_conformance.conformance.harness.envs import check_version
from parquet_conformance.conformance.harness.protocol import StartReply
from parquet_conformance.conformance.harness.workers import Worker
from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus.model import NAME_RE
from parquet_conformance.generators.representations import Representation


class SpecError(ValueError):
    """An adapter that cannot be built as given (unknown name, bad command line)."""


@dataclass(frozen=True)
class AdapterSpec:
    """A registered adapter by name, a release of one (`NAME==VERSION`, `NAME@VERSION`: its cells are named
    `NAME-VERSION`), or an external one by command line (`NAME=COMMAND`), with an optional per-cell timeout
    that overrides the adapter's own."""

    name: str
    command: str | None = None
    track: str | None = None  # for an external adapter: the track its worker reads (default: the first registered)
    timeout_s: float | None = None
    release: str | None = None  # a released version, run in an environment of its own (conformance/harness/envs.py)
    of: str | None = None  # the registered adapter a release belongs to
    fingerprint: str | None = None  # Adapter.fingerprint, computed once on the driver (with_fingerprint)

    @staticmethod
    def parse(text: str) -> AdapterSpec:
        """NAME, NAME==VERSION (PyPI) or NAME@VERSION (npm)."""
        name, sep, version = text.partition("==")
        if not sep and "@" in text:
            name, sep, version = text.rpartition("@")
        if not sep:
            return AdapterSpec(text.strip())
        name, version = name.strip(), version.strip()
        try:
            check_version(version)
        except ValueError as e:
            raise SpecError(f"--adapter {text}: {e}") from None
        return AdapterSpec(f"{name}-{version}", release=version, of=name)

    @staticmethod
    def parse_external(text: str, track: str | None = None) -> AdapterSpec:
        name, sep, command = text.partition("=")
        name = name.strip()
        if not sep or not name or not command.strip():
            raise SpecError(f"--adapter-cmd wants NAME='command ...', got {text!r}")
        spec = AdapterSpec(name, command, track)
        spec.argv()  # a command a shell could not split is an error now, not in a worker
        return spec

    def __post_init__(self) -> None:
        if not NAME_RE.fullmatch(self.name):
            raise SpecError(f"adapter name {self.name!r}: use letters, digits, '.', '_', '+', '-'")

    def options(self) -> list[str]:
        """How a command line of parquet-conformance (`read`, `run`) names this adapter again: what a report's
        reproduction command uses."""
        if self.command is not None:
            return ["--adapter-cmd", f"{self.name}={self.command}", *(["--track", self.track] if self.track else [])]
        if self.release is not None and self.of is not None:
            npm = getattr(self.build(), "index", "pypi") == "npm"
            return ["--adapter", f"{self.of}{'@' if npm else '=='}{self.release}"]
        return ["--adapter", self.name]

    def argv(self) -> list[str] | None:
        if self.command is None:
            return None
        try:
            argv = shlex.split(self.command)
        except ValueError as e:
            raise SpecError(f"--adapter-cmd {self.name}: {e}") from None
        if not argv:
            raise SpecError(f"--adapter-cmd {self.name}: empty command")
        return argv

    def build(self) -> Adapter:
        if self.command is None:
            try:
                adapter = copy.copy(adapters.get(self.of or self.name))  # a copy: changes stay with this spec
            except LookupError as e:
                raise SpecError(str(e)) from None
            if self.release is not None:
                adapter.release = self.release
        else:
            adapter = CommandAdapter()
            adapter.name, adapter.implementation = self.name, self.name
            adapter.track = self.track or tracks.names()[0]
        if self.timeout_s is not None:
            adapter.timeout_s = self.timeout_s
        return adapter

    def worker(self) -> Worker:
        adapter = self.build()
        return Worker(adapter, self.argv(), tracks.get(adapter.track).normalize, self.name)

    def with_fingerprint(self) -> AdapterSpec:
        """The spec with its adapter's fingerprint (None for an external command: its version is unknown until it
        runs), so that its attempts record what they depended on."""
        return replace(self, fingerprint=None if self.command is not None else self.build().fingerprint())


def representations(specs: Iterable[AdapterSpec]) -> dict[str, tuple[Representation, ...]]:
    """Each adapter's documented representations (Adapter.representations), by the name its cells carry (a
    release's NAME-VERSION): what the Judge hashes the bases' expected data under. An external worker has none."""
    return {s.name: tuple(d.representation for d in s.build().representations) for s in specs}


def describe(spec: AdapterSpec) -> dict[str, Any]:
    """Start the adapter's worker once: its description, or why it is unavailable."""
    worker = spec.worker()
    base = {**worker.adapter.describe(), "adapter": spec.name,  # a release is named NAME-VERSION
            "roles": worker.adapter.role_names()}
    try:
        info = worker.start()
        return {**base, "implementation": info.implementation, "engine": info.engine or base["engine"],
                "roles": info.roles or base["roles"], "version": info.version, "available": True, "reason": None}
    except AdapterUnavailable as e:
        return {**base, "version": None, "available": False, "reason": str(e)}
    finally:
        worker.close()


def implementation(info: StartReply) -> str:
    """The implementation a row names, with the engine underneath when it is another library (daft on arrow-rs
    59, parquet-wasm 0.6.1 on arrow-rs 51), so that a report never counts one engine twice by accident."""
    return f"{info.implementation} [{info.engine}]" if info.engine else info.implementation
