"""Registries by Python entry points: tracks (`parquet_conformance.tracks`), adapters
(`parquet_conformance.adapters`) and report formats (`parquet_conformance.reports`).

This project registers its own in pyproject.toml; any installed package adds more with one line
in its own metadata, e.g. `[project.entry-points."parquet_conformance.adapters"] myreader =
"mypkg.adapter:ADAPTER"`. Names are unique per group: a second package claiming a taken name is
an error, never a silent override.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoint, entry_points

TRACKS = "parquet_conformance.tracks"
ADAPTERS = "parquet_conformance.adapters"
REPORTS = "parquet_conformance.reports"


class RegistryError(LookupError):
    """An unknown name, or a name two packages claim."""


@cache
def _entries(group: str) -> dict[str, EntryPoint]:
    found: dict[str, EntryPoint] = {}
    for ep in entry_points(group=group):
        if ep.name in found and found[ep.name].value != ep.value:
            raise RegistryError(f"{group}: {ep.name!r} is registered twice ({found[ep.name].value}, {ep.value})")
        found[ep.name] = ep
    return found


def names(group: str) -> list[str]:
    """Registered names, in registration order (this project's first, as pyproject.toml lists them)."""
    return list(_entries(group))


@cache
def load(group: str, name: str) -> object:
    ep = _entries(group).get(name)
    if ep is None:
        known = ", ".join(names(group)) or "none"
        raise RegistryError(f"unknown {group.rsplit('.', 1)[-1][:-1]} {name!r}; known: {known}")
    return ep.load()
