"""The Parquet track's catalog: which cases exist, what each tests, the sentence it rests on, and
what each kind of reader must do with it; one module per family.

Expectations per role (after nst/JSONTestSuite's y_/n_/i_ and parquet-testing's
shredded_variant cases.json): `read` (exactly the base data), `reject` (an error), `either`
(read correctly or reject). Under every expectation a crash, hang or wrong data fails.

`kind` says what our own strict decoder (generators/parquet/strict.parse_file) must conclude:
`golden` decodes; `nonconforming` is valid Thrift that breaks a rule of the spec (an extension
rule, an enum out of range, statistics out of order); `corrupt` is not a readable Parquet footer
at all, or its pages are damaged (a wrong CRC).
"""

from __future__ import annotations

from collections import Counter
from functools import cache

from parquet_conformance.corpus.model import Case
from parquet_conformance.corpus.parquet.catalog import (
    corrupt,
    encodings,
    encryption,
    evolution,
    features,
    flatbuffers,
    golden,
    nonconforming,
    pages,
    parx,
    storage,
    types,
    unions,
    writers,
)

FAMILIES = (golden, nonconforming, corrupt, flatbuffers, encodings, types, storage, pages, writers, encryption, parx,
            unions, evolution, features)


class CatalogError(ValueError):
    """The catalog contradicts itself (a duplicate id)."""


@cache
def all_cases() -> tuple[Case, ...]:
    cases = tuple(c for family in FAMILIES for c in family.cases())
    if dupes := [i for i, n in Counter(c.id for c in cases).items() if n > 1]:
        raise CatalogError(f"case id {dupes[0]!r} is defined {Counter(c.id for c in cases)[dupes[0]]} times")
    return cases
