"""The Parquet step on the one mutation base (generators/steps.py): its context, the registry, `apply`."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from parquet_conformance.generators.steps import Registry, Step


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


MUTATIONS: Registry[Mutation] = Registry("parquet")  # filled as the package imports its families
register = MUTATIONS.register
parse = MUTATIONS.parse


def apply(buf: bytes, mutations: Sequence[Mutation], seed: int) -> tuple[bytes, list[dict[str, Any]]]:
    """Replays the steps; returns the bytes and the log of extensions written."""
    ctx = Context(random.Random(seed))
    for step in mutations:
        buf = step.apply(buf, ctx)
    return buf, ctx.extensions
