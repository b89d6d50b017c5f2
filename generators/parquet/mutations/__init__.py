"""Mutations: the typed steps from a base file to a case file, on the one mutation base (generators/steps.py:
the record, the registry, parse and the checks). `apply` replays a case's steps on its base. One module per
family: extension (field 32767 in structs and page headers), fields (fields of any type and id, removed fields,
rewritten values, swapped statistics, and the field edits by position that `fuzz` draws), tail (footer length,
magic, truncation), flatbuffer (FlatBuffers footers and their damage), encoding (the encoding extension), pages
(field 32767 outside the footer), structure (byte and varint edits confined to a region: the steps of `fuzz`),
rewrite (the features family: rows written again with a feature, another writer's fixture, legacy nested forms,
BIT_PACKED levels).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from parquet_conformance.generators.steps import MutationError, Registry, Step

__all__ = ["MUTATIONS", "Context", "Mutation", "MutationError", "apply", "parse", "register"]


@dataclass
class Context:
    """Per-case state: the seeded RNG, and a log of the extensions the steps wrote."""

    rng: random.Random
    extensions: list[dict[str, Any]] = field(default_factory=list)

    def wrote(self, struct: str, path: str, header: str, payload: bytes) -> None:
        self.extensions.append({"struct": struct, "path": path, "header": header, "length": len(payload),
                                "sha256": hashlib.sha256(payload).hexdigest()})


@dataclass(frozen=True)
class Mutation(Step):
    """A Parquet step: bytes in, bytes out (the base, registry and checks are generators/steps.py's)."""

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        raise NotImplementedError


def _load_families() -> None:
    from parquet_conformance.generators.parquet.mutations import (  # noqa: F401
        encoding,
        extension,
        fields,
        flatbuffer,
        pages,
        rewrite,
        structure,
        tail,
    )


MUTATIONS: Registry[Mutation] = Registry("parquet", _load_families)
register = MUTATIONS.register
parse = MUTATIONS.parse


def apply(buf: bytes, mutations: Sequence[Mutation], seed: int) -> tuple[bytes, list[dict[str, Any]]]:
    """Replays the steps; returns the bytes and the log of extensions written."""
    ctx = Context(random.Random(seed))
    for step in mutations:
        buf = step.apply(buf, ctx)
    return buf, ctx.extensions
