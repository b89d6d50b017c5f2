"""Seeded random table formats and rows that follow seed 004's table rules: every column type, dense
(required or `variant8<nothing;T>`), sparse, the control columns, `$other_columns`, several tables, and YSON
values nested in lists and maps. Pure functions of the RNG: the same seed gives the same document."""

from __future__ import annotations

import random
import struct
from typing import Any

from . import tokens, yson

__all__ = ["random_document", "random_format", "random_rows", "random_yson"]

COLUMN_TYPES = ("int64", "uint64", "boolean", "double", "string32", "yson32")
NAMES = ("id", "name", "key", "value", "ts", "score", "flag", "tags", "city", "count", "ratio", "payload",
         "kind", "user", "size", "note")


def _node(name: str | None, wire_type: str, *children: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"wire_type": wire_type}
    if name is not None:
        out["name"] = name
    if children or wire_type == "tuple":  # a composite type lists its children, none included
        out["children"] = list(children)
    return out


def _optional(name: str, wire_type: str) -> dict[str, Any]:
    return _node(name, "variant8", _node(None, "nothing"), _node(None, wire_type))


def random_table(rng: random.Random) -> dict[str, Any]:
    names = rng.sample(NAMES, rng.randint(1, 8))
    children = []
    if rng.random() < 0.3:
        children.append(_node("$key_switch", "boolean"))
    for special in ("$row_index", "$range_index"):
        if rng.random() < 0.25:
            children.append(_optional(special, "int64"))
    dense = names[:rng.randint(0, len(names))]
    for name in dense:
        wire_type = rng.choice(COLUMN_TYPES)
        children.append(_optional(name, wire_type) if rng.random() < 0.4 else _node(name, wire_type))
    sparse = names[len(dense):]
    if sparse and rng.random() < 0.7:
        children.append(_node("$sparse_columns", "repeated_variant16",
                              *(_node(n, rng.choice(COLUMN_TYPES)) for n in sparse)))
    if rng.random() < 0.5:
        children.append(_node("$other_columns", "yson32"))
    return _node(None, "tuple", *children)


def random_format(rng: random.Random) -> dict[str, Any]:
    """1 to 3 tables; sometimes through `skiff_schema_registry` references (seed «Конфигурация формата»)."""
    tables = [random_table(rng) for _ in range(rng.choice((1, 1, 2, 3)))]
    if rng.random() < 0.3:
        registry = {f"table{i}": t for i, t in enumerate(tables)}
        return {"table_skiff_schemas": [f"$table{i}" for i in range(len(tables))],
                "skiff_schema_registry": registry}
    return {"table_skiff_schemas": tables}


def random_yson(rng: random.Random, depth: int = 0) -> yson.YsonValue:
    kind = rng.randrange(9 if depth < 2 else 7)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.choice((0, -1, 42, rng.randrange(-(1 << 63), 1 << 63)))
    if kind == 3:
        return yson.YsonUint64(rng.choice((0, 100500, rng.randrange(1 << 64))))
    if kind == 4:
        return rng.choice((0.0, -1.5, 2.718281828, rng.uniform(-1e9, 1e9)))
    if kind in (5, 6):
        return _bytes(rng)
    if kind == 7:
        return [random_yson(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(NAMES) + str(i): random_yson(rng, depth + 1) for i in range(rng.randint(0, 3))}


def _bytes(rng: random.Random) -> bytes:
    if rng.random() < 0.2:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 12)))  # any bytes: not UTF-8 either
    return "".join(rng.choice("abcxyz _-.;=\"ё") for _ in range(rng.randint(0, 12))).encode()


def _column_value(rng: random.Random, wire_type: str) -> object:
    if wire_type == "int64":
        return rng.choice((0, -1, 42, rng.randrange(-(1 << 63), 1 << 63)))
    if wire_type == "uint64":
        return rng.choice((0, 100500, rng.randrange(1 << 64)))
    if wire_type == "boolean":
        return rng.random() < 0.5
    if wire_type == "double":
        return struct.unpack("<d", struct.pack("<Q", rng.randrange(1 << 64)))[0] if rng.random() < 0.3 \
            else rng.uniform(-1e6, 1e6)
    if wire_type == "string32":
        return _bytes(rng)
    value = random_yson(rng)
    return value if value is not None else {}  # `#` in a required yson32 is a case of its own (spec-notes)


def _columns(table: dict[str, Any]) -> list[tuple[str, str, bool, bool]]:
    """(name, type, nullable, sparse) of each column a row fills."""
    out = []
    for child in table["children"]:
        name = child["name"]
        if name == "$sparse_columns":
            out += [(c["name"], c["wire_type"], True, True) for c in child["children"]]
        elif name != "$other_columns":
            nullable = child["wire_type"] == "variant8"
            out.append((name, child["children"][1]["wire_type"] if nullable else child["wire_type"], nullable, False))
    return out


def random_rows(rng: random.Random, fmt: dict[str, Any]) -> list[list[Any]]:
    registry = fmt.get("skiff_schema_registry", {})
    tables = [registry[t[1:]] if isinstance(t, str) else t for t in fmt["table_skiff_schemas"]]
    rows = []
    for _ in range(rng.randint(0, 6)):
        index = rng.randrange(len(tables))
        table = tables[index]
        row: dict[str, Any] = {}
        for name, wire_type, nullable, sparse in _columns(table):
            if nullable and rng.random() < (0.5 if sparse else 0.3):
                continue
            value = _column_value(rng, wire_type)
            if name in ("$row_index", "$range_index"):
                value = rng.randrange(1 << 40)
            row[name] = tokens.token(value)
        if table["children"] and table["children"][-1]["name"] == "$other_columns":
            taken = {c[0] for c in _columns(table)}
            for _ in range(rng.randint(0, 3)):
                name = rng.choice(NAMES) + "_x"
                if name not in taken:
                    row[name] = tokens.token(random_yson(rng))
        rows.append([index, row])
    return rows


def random_document(seed: str) -> tuple[dict[str, Any], list[list[Any]]]:
    """A format and rows from a seed text (e.g. a base name): fixed for a generator version."""
    rng = random.Random(seed)
    fmt = random_format(rng)
    return fmt, random_rows(rng, fmt)
