"""Mutations: the typed steps from a base file to a case file.

Each mutation is a frozen dataclass registered under its manifest name (`@register("extend")`);
its fields are its parameters, checked when it is built, so a catalog with a bad step fails
when it loads, naming the mutation. A manifest entry lists a case's mutations as
`{"mutation": name, **fields}`; `parse` builds them back, `apply` replays them, so the
manifest alone says how to rebuild every file. One module per family: extension (field 32767
in structs and page headers), fields (fields of any type and id, removed fields, rewritten values,
swapped statistics), tail (footer length, magic, truncation), flatbuffer (FlatBuffers footers and
their damage), encoding (the encoding extension), structure (byte, varint and field edits confined to
a region: the steps of `fuzz`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeVar, get_args, get_origin


@dataclass
class Context:
    """Per-case state: the seeded RNG, and a log of the extensions the steps wrote."""

    rng: random.Random
    extensions: list[dict[str, Any]] = field(default_factory=list)

    def wrote(self, struct: str, path: str, header: str, payload: bytes) -> None:
        self.extensions.append({"struct": struct, "path": path, "header": header, "length": len(payload),
                                "sha256": hashlib.sha256(payload).hexdigest()})


class MutationError(ValueError):
    """A mutation that cannot be built: an unknown name, a missing or unknown parameter, a bad value."""


@dataclass(frozen=True)
class Mutation:
    """Base of every mutation: `apply` and the manifest form."""

    name: ClassVar[str]

    def __post_init__(self) -> None:
        hints = typing.get_type_hints(type(self))
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if not _conforms(value, hints[f.name]):
                raise MutationError(f"mutation {self.name!r}: {f.name}={value!r} is not {_describe(hints[f.name])}")
        self.check()

    def check(self) -> None:
        """Rules beyond the field types; raise MutationError."""

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mutation": self.name}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = _plain(value)
        return out


MUTATIONS: dict[str, type[Mutation]] = {}
M = TypeVar("M", bound=type[Mutation])


def register(name: str) -> Callable[[M], M]:
    def add(cls: M) -> M:
        if name in MUTATIONS:
            raise MutationError(f"mutation {name!r} registered twice")
        cls.name = name
        MUTATIONS[name] = cls
        return cls
    return add


def parse(obj: Mapping[str, Any]) -> Mutation:
    """A mutation from its manifest form."""
    _load_families()
    if not isinstance(obj, Mapping) or not isinstance(obj.get("mutation"), str):
        raise MutationError(f"a mutation is an object with a 'mutation' name, not {obj!r}")
    name = obj["mutation"]
    cls = MUTATIONS.get(name)
    if cls is None:
        raise MutationError(f"unknown mutation {name!r}; known: {', '.join(sorted(MUTATIONS))}")
    params = {k: v for k, v in obj.items() if k != "mutation"}
    hints = typing.get_type_hints(cls)
    known = {f.name for f in dataclasses.fields(cls)}
    if unknown := sorted(set(params) - known):
        raise MutationError(f"mutation {name!r} has no parameter {unknown[0]!r}; it takes {', '.join(sorted(known))}")
    for key, value in params.items():
        if hasattr(hints[key], "from_json") and isinstance(value, Mapping):
            params[key] = hints[key].from_json(value)
        elif get_origin(hints[key]) is tuple and isinstance(value, list):
            item = get_args(hints[key])[0]
            params[key] = tuple(item.from_json(v) if hasattr(item, "from_json") and isinstance(v, Mapping) else v
                                for v in value)
    try:
        return cls(**params)
    except TypeError as e:
        raise MutationError(f"mutation {name!r}: {e}") from None


def apply(buf: bytes, mutations: Sequence[Mutation], seed: int) -> tuple[bytes, list[dict[str, Any]]]:
    """Replays the steps; returns the bytes and the log of extensions written."""
    ctx = Context(random.Random(seed))
    for step in mutations:
        buf = step.apply(buf, ctx)
    return buf, ctx.extensions


def _load_families() -> None:
    from parquet_conformance.generators.parquet.mutations import (  # noqa: F401
        encoding,
        extension,
        fields,
        flatbuffer,
        pages,
        structure,
        tail,
    )


def _plain(value: object) -> object:
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _conforms(value: object, hint: object) -> bool:
    """A small runtime check of the annotations mutations use: scalars, Literal, unions, tuples, dicts."""
    origin = get_origin(hint)
    if hint is Any:
        return True
    if origin is Literal:
        return value in get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_conforms(value, h) for h in get_args(hint))
    if origin is tuple:
        args = get_args(hint)
        return isinstance(value, tuple) and all(_conforms(v, args[0]) for v in value)
    if origin in (dict, Mapping):
        return isinstance(value, Mapping)
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)  # type: ignore[arg-type]


def _describe(hint: object) -> str:
    if get_origin(hint) is Literal:
        return "one of " + ", ".join(repr(a) for a in get_args(hint))
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")
