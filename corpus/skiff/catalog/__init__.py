"""The Skiff track's catalog: one module per family, each with `entries()` (its cases and their bases).

Expectations for the one role, `codec`: `read` (exactly the base data: the rows for `decode`, the output
streams for `encode`), `reject`, `either`. `kind` says what our strict reference (generators/skiff/reference.py)
concludes: `golden` decodes or encodes; `nonconforming` breaks a table rule of seed 004 (the format, or rows
that cannot be placed); `corrupt` does not decode (or a value does not fit its wire type).
"""

from __future__ import annotations

from collections import Counter
from functools import cache

from parquet_conformance.corpus.model import Case
from parquet_conformance.corpus.skiff.catalog import ambiguous, corrupt, encoding, generated, schemas, seed, types
from parquet_conformance.generators.skiff.bases import Base

FAMILIES = (seed, types, generated, corrupt, schemas, encoding, ambiguous)


class CatalogError(ValueError):
    """The catalog contradicts itself (a duplicate id or base, a case without its base)."""


@cache
def _catalog() -> tuple[tuple[Case, ...], dict[str, Base]]:
    cases: list[Case] = []
    bases: dict[str, Base] = {}
    for family in FAMILIES:
        entries = family.entries()
        cases += entries.cases
        for name, base in entries.bases.items():
            if name in bases:
                raise CatalogError(f"base {name!r} is defined by two families")
            bases[name] = base
    if dupes := [i for i, n in Counter(c.id for c in cases).items() if n > 1]:
        raise CatalogError(f"case id {dupes[0]!r} is defined more than once")
    if orphans := [c.id for c in cases if c.base not in bases]:
        raise CatalogError(f"case {orphans[0]!r} names a base no family defines")
    return tuple(cases), bases


def all_cases() -> tuple[Case, ...]:
    return _catalog()[0]


def all_bases() -> dict[str, Base]:
    return _catalog()[1]
