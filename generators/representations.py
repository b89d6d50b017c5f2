"""Representations a library documents: each a named transform of the expected canonical data (canonical.py), so
that a reader which returns the data in the form its library documents is told apart from one that returns wrong
data (conformance/harness/judge.py gives such a read the verdict `representation`).

The set is closed: an adapter declares which of these its library documents, with the library's own words
(conformance/adapters/representations.py), and nothing else is forgiven. A transform changes only what it names;
data it does not apply to (no such column, or data without columns) comes back unchanged. They apply
in the order of the enum (a struct's leaves are columns before a null among them becomes NaN), and an adapter that
declares several is judged against each non-empty subset of them: a file may hold only some of what they change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from itertools import combinations
from typing import Any

from parquet_conformance.generators.canonical import data_hash


class Representation(StrEnum):
    # A struct column comes back as one column per leaf, named by its dotted path (`rec.b.c`); a null struct is a
    # null in each leaf. Lists are left as they are.
    STRUCT_AS_LEAF_COLUMNS = "struct-as-leaf-columns"
    # A null in a floating-point column comes back as NaN (pandas' float64 has no null).
    NULL_FLOAT_AS_NAN = "null-float-as-nan"
    # Timestamps and times come back at microsecond resolution, floored (the nanoseconds below it dropped).
    TEMPORAL_MICROSECONDS = "temporal-microseconds"


def represent(data: Mapping[str, Any], representation: Representation) -> dict[str, Any]:
    """The data as a library that documents `representation` returns it (a new object; `data` is not changed)."""
    out = dict(data)
    if not isinstance(data.get("columns"), list) or not isinstance(data.get("rows"), list):
        return out
    columns, rows = list(data["columns"]), [list(r) for r in data["rows"]]
    match representation:
        case Representation.STRUCT_AS_LEAF_COLUMNS:
            columns, rows = _leaf_columns(columns, rows)
        case Representation.NULL_FLOAT_AS_NAN:
            rows = _nan_for_null(columns, rows)
        case Representation.TEMPORAL_MICROSECONDS:
            rows = [[_micros(v) for v in row] for row in rows]
    out.update(columns=columns, rows=rows)
    return out


def variants(data: Mapping[str, Any], declared: Iterable[Representation]) -> dict[str, tuple[Representation, ...]]:
    """data_hash -> the representations whose transforms make it, for each non-empty subset of `declared` that
    changes the data (the smallest subset first: it names the difference best)."""
    order = sorted(set(declared), key=list(Representation).index)
    base = data_hash(data)
    out: dict[str, tuple[Representation, ...]] = {}
    for size in range(1, len(order) + 1):
        for subset in combinations(order, size):
            made: Mapping[str, Any] = data
            for representation in subset:
                made = represent(made, representation)
            h = data_hash(made)
            if h != base:
                out.setdefault(h, subset)
    return out


# -- the transforms ---------------------------------------------------------------------------------


def _is_struct(v: object) -> bool:
    return isinstance(v, dict) and set(v) == {"struct"} and isinstance(v["struct"], dict)


def _leaves(values: Sequence[object]) -> list[tuple[str, ...]] | None:
    """The leaf paths of a column of struct values (None: not such a column, or one with no value to say its
    fields), in the order of the first value's fields."""
    present = [v for v in values if v is not None]
    if not present or not all(_is_struct(v) for v in present):
        return None
    out: list[tuple[str, ...]] = []
    for name in present[0]["struct"]:  # type: ignore[index]
        inner = _leaves([v["struct"].get(name) for v in present])  # type: ignore[index]
        out += [(name, *p) for p in inner] if inner is not None else [(name,)]
    return out


def _at(value: object, path: tuple[str, ...]) -> object:
    for name in path:
        if not _is_struct(value):
            return None  # a null struct on the way: a null in each of its leaves
        value = value["struct"].get(name)  # type: ignore[index]
    return value


def _leaf_columns(columns: list[str], rows: list[list[object]]) -> tuple[list[str], list[list[object]]]:
    out_columns: list[str] = []
    pickers: list[tuple[int, tuple[str, ...]]] = []
    for j, name in enumerate(columns):
        leaves = _leaves([r[j] for r in rows])
        for path in leaves or [()]:
            out_columns.append(".".join((name, *path)))
            pickers.append((j, path))
    return out_columns, [[_at(r[j], path) for j, path in pickers] for r in rows]


def _is_float(v: object) -> bool:
    return isinstance(v, dict) and set(v) == {"float"}


def _nan_for_null(columns: list[str], rows: list[list[object]]) -> list[list[object]]:
    floating = [j for j in range(len(columns))
                if any(r[j] is not None for r in rows) and all(r[j] is None or _is_float(r[j]) for r in rows)]
    for row in rows:
        for j in floating:
            if row[j] is None:
                row[j] = {"float": "nan"}
    return rows


def _micros(v: object) -> object:
    if isinstance(v, list):
        return [_micros(x) for x in v]
    if _is_struct(v):
        return {"struct": {k: _micros(x) for k, x in v["struct"].items()}}  # type: ignore[index]
    if isinstance(v, dict) and len(v) == 1:
        ((tag, text),) = v.items()
        if tag in ("ts_ns", "time_ns") and isinstance(text, str):
            return {tag: str(int(text) // 1000 * 1000)}
    return v
