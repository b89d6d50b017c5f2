"""The one mutation base, for every track and the fuzzer: a step is a frozen dataclass registered under its
manifest name; its fields are its parameters, checked against their annotations when it is built (so a catalog
with a bad step fails when it loads, naming the step), and `check` adds rules the types cannot say. A manifest
entry lists a case's steps as `{"mutation": name, **fields}`; a track's `Registry` parses them back, so the manifest
alone says how to rebuild every file.

What a step does (`apply`) is the track's: a step edits a file's bytes, or a case document, as its track's
mutations module defines it (generators/<track>/mutations).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Literal, TypeVar, get_args, get_origin


class MutationError(ValueError):
    """A step that cannot be built or applied: an unknown name, a missing or unknown parameter, a bad value."""


@dataclass(frozen=True)
class Step:
    """Base of every mutation: field checks on construction, `check`, and the manifest form."""

    name: ClassVar[str]

    def __post_init__(self) -> None:
        hints = typing.get_type_hints(type(self))
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if not conforms(value, hints[f.name]):
                raise MutationError(f"mutation {self.name!r}: {f.name}={value!r} is not {describe(hints[f.name])}")
        self.check()

    def check(self) -> None:
        """Rules beyond the field types; raise MutationError."""

    def to_json(self) -> dict[str, Any]:
        return {"mutation": self.name, **{f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}}


S = TypeVar("S", bound=type[Step])
T = TypeVar("T", bound=Step)


class Registry(Generic[T]):
    """A track's steps (of its Step subclass T) by manifest name. `load` imports the modules that register them (on
    first parse)."""

    def __init__(self, track: str, load: Callable[[], None] | None = None) -> None:
        self.track = track
        self.steps: dict[str, type[T]] = {}
        self._load = load

    def register(self, name: str) -> Callable[[S], S]:
        def add(cls: S) -> S:
            if name in self.steps:
                raise MutationError(f"{self.track} mutation {name!r} registered twice")
            cls.name = name
            self.steps[name] = cls  # type: ignore[assignment]  # a subclass of T: the track registers its own
            return cls
        return add

    def names(self) -> list[str]:
        if self._load:
            self._load()
        return sorted(self.steps)

    def parse(self, obj: Mapping[str, Any]) -> T:
        """A step from its manifest form; MutationError naming it if it is not one."""
        known_names = self.names()
        if not isinstance(obj, Mapping) or not isinstance(obj.get("mutation"), str):
            raise MutationError(f"a mutation is an object with a 'mutation' name, not {obj!r}"[:300])
        name = obj["mutation"]
        cls = self.steps.get(name)
        if cls is None:
            raise MutationError(f"unknown mutation {name!r}"[:200] + f"; known: {', '.join(known_names)}")
        params = {k: v for k, v in obj.items() if k != "mutation"}
        hints = typing.get_type_hints(cls)
        known = {f.name for f in dataclasses.fields(cls)}
        if unknown := sorted(set(params) - known):
            raise MutationError(f"mutation {name!r} has no parameter {unknown[0]!r}"[:200]
                                + f"; it takes {', '.join(sorted(known))}")
        for key, value in params.items():  # nested records (a Payload, a tuple of them) from their JSON form
            hint = hints[key]
            if hasattr(hint, "from_json") and isinstance(value, Mapping):
                params[key] = hint.from_json(value)
            elif get_origin(hint) is tuple and isinstance(value, list):
                item = get_args(hint)[0]
                params[key] = tuple(item.from_json(v) if hasattr(item, "from_json") and isinstance(v, Mapping) else v
                                    for v in value)
        try:
            return cls(**params)
        except TypeError as e:
            raise MutationError(f"mutation {name!r}: {e}") from None


def _plain(value: object) -> object:
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


def conforms(value: object, hint: object) -> bool:
    """A small runtime check of the annotations steps use: scalars, Literal, unions, tuples, dicts, records."""
    origin = get_origin(hint)
    if hint is Any:
        return True
    if origin is Literal:
        return value in get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(conforms(value, h) for h in get_args(hint))
    if origin is tuple:
        args = get_args(hint)
        return isinstance(value, tuple) and all(conforms(v, args[0]) for v in value)
    if origin in (dict, Mapping):
        return isinstance(value, Mapping)
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, origin or hint)  # type: ignore[arg-type]


def describe(hint: object) -> str:
    if get_origin(hint) is Literal:
        return "one of " + ", ".join(repr(a) for a in get_args(hint))
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")
