"""Skiff mutations: typed steps from a base document to a case document (reference.load/dump).

On the one mutation base (generators/steps.py: the record, the registry, parse and the checks); fields are
checked when a step is built, so a bad step fails when the catalog loads, naming the mutation. Steps that say
`None` for a number draw it from the case's seeded RNG: the same generator version and seed give the same bytes
(docs/manifest.md#mutations).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from parquet_conformance.generators.steps import MutationError, Registry, Step

from . import codec, reference, yson

__all__ = ["MUTATIONS", "Mutation", "MutationError", "apply", "parse"]


@dataclass(frozen=True)
class Mutation(Step):
    """A Skiff step: a case document in, a case document out (the base, registry and checks are
    generators/steps.py's)."""

    def apply(self, doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        raise NotImplementedError


MUTATIONS: Registry[Mutation] = Registry("skiff")
register = MUTATIONS.register
parse = MUTATIONS.parse


def _stream(doc: Mapping[str, Any], name: str) -> bytes:
    if not isinstance(doc.get("stream"), str):
        raise MutationError(f"mutation {name!r} needs a decode document (with a stream)")
    return bytes.fromhex(doc["stream"])


def _with_stream(doc: dict[str, Any], data: bytes) -> dict[str, Any]:
    return {**doc, "stream": data.hex()}


def _rows(doc: Mapping[str, Any], name: str, row: int) -> list[Any]:
    rows = doc.get("rows")
    if not isinstance(rows, list) or not -len(rows) <= row < len(rows):
        raise MutationError(f"mutation {name!r}: the document has no row {row}")
    return [list(r) if i != row % len(rows) else [r[0], dict(r[1])] for i, r in enumerate(rows)]


@register("replace_format")
@dataclass(frozen=True)
class ReplaceFormat(Mutation):
    """The format attributes (table schemas, registry) become these: a schema that breaks a rule."""

    format: dict[str, Any]

    def apply(self, doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        return {**doc, "format": self.format}


@register("replace_stream")
@dataclass(frozen=True)
class ReplaceStream(Mutation):
    """The whole input stream becomes these bytes (hand-made cases, byte for byte)."""

    hex: str

    def apply(self, doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        _stream(doc, self.name)
        return _with_stream(doc, bytes.fromhex(self.hex))


@register("overwrite_stream")
@dataclass(frozen=True)
class OverwriteStream(Mutation):
    """Bytes at `at` (negative: from the end) replaced by `hex`."""

    at: int
    hex: str

    def apply(self, doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        data = bytearray(_stream(doc, self.name))
        new = bytes.fromhex(self.hex)
        start = self.at % len(data) if data else 0
        if start + len(new) > len(data):
            raise MutationError(f"mutation {self.name!r}: {len(new)} bytes at {self.at} pass the end ({len(data)})")
        data[start:start + len(new)] = new
        return _with_stream(doc, bytes(data))


@register("append_stream")
@dataclass(frozen=True)
class AppendStream(Mutation):
    """Bytes after the last row."""

    hex: str

    def apply(self, doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        return _with_stream(doc, _stream(doc, self.name) + bytes.fromhex(self.hex))


@register("cut_row")
@dataclass(frozen=True)
class CutRow(Mutation):
    """The stream ends inside row `row` after `keep` of its bytes (None: seeded, 1 to its length - 1): always a
    truncated value, since a proper prefix of a row never decodes."""

    row: int = -1
    keep: int | None = None

    def apply(self, doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        data = _stream(doc, self.name)
        spans = codec.row_spans(reference.tables(doc), data)
        if not -len(spans) <= self.row < len(spans):
            raise MutationError(f"mutation {self.name!r}: the stream has no row {self.row}")
        start, end = spans[self.row]
        keep = rng.randrange(1, end - start) if self.keep is None else self.keep
        if not 0 < keep < end - start:
            raise MutationError(f"mutation {self.name!r}: keep={keep} is not inside the row ({end - start} bytes)")
        return _with_stream(doc, data[:start + keep])


@register("set_table_index")
@dataclass(frozen=True)
class SetTableIndex(Mutation):
    """Row `row`'s u16 table index becomes `index` (None: seeded, one the format does not have)."""

    row: int = -1
    index: int | None = None

    def apply(self, doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        data = bytearray(_stream(doc, self.name))
        schemas = reference.tables(doc)
        spans = codec.row_spans(schemas, bytes(data))
        if not -len(spans) <= self.row < len(spans):
            raise MutationError(f"mutation {self.name!r}: the stream has no row {self.row}")
        index = rng.randrange(len(schemas), 0x10000) if self.index is None else self.index
        start = spans[self.row][0]
        data[start:start + 2] = index.to_bytes(2, "little")
        return _with_stream(doc, bytes(data))


@register("respell_yson")
@dataclass(frozen=True)
class RespellYson(Mutation):
    """Every yson32 value of the stream in another YSON spelling (seeded): same data, other bytes."""

    def apply(self, doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        data = _stream(doc, self.name)
        out = bytearray()
        end = 0
        for start, stop in codec.yson_spans(reference.tables(doc), data):
            body = yson.dumps_varied(yson.loads(data[start + 4:stop]), rng)
            out += data[end:start] + len(body).to_bytes(4, "little") + body
            end = stop
        return _with_stream(doc, bytes(out + data[end:]))


@register("set_value")
@dataclass(frozen=True)
class SetValue(Mutation):
    """Encode documents: row `row`'s column `column` becomes the token `value` (null included)."""

    row: int
    column: str
    value: Any

    def apply(self, doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        rows = _rows(doc, self.name, self.row)
        rows[self.row][1][self.column] = self.value
        return {**doc, "rows": rows}


@register("drop_column")
@dataclass(frozen=True)
class DropColumn(Mutation):
    """Encode documents: row `row` without column `column`."""

    row: int
    column: str

    def apply(self, doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        rows = _rows(doc, self.name, self.row)
        if self.column not in rows[self.row][1]:
            raise MutationError(f"mutation {self.name!r}: row {self.row} has no column {self.column!r}")
        del rows[self.row][1][self.column]
        return {**doc, "rows": rows}


@register("set_row_table")
@dataclass(frozen=True)
class SetRowTable(Mutation):
    """Encode documents: row `row` is for table `index`."""

    row: int
    index: int

    def apply(self, doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        rows = _rows(doc, self.name, self.row)
        rows[self.row][0] = self.index
        return {**doc, "rows": rows}


def apply(base: bytes, steps: Sequence[Mutation], seed: int) -> bytes:
    """Replays the steps on a base document with the case's seed; the case document's bytes."""
    rng = random.Random(seed)
    doc = reference.load(base)
    for step in steps:
        try:
            doc = step.apply(doc, rng)
        except (codec.SkiffDecodeError, yson.YsonError) as e:
            raise MutationError(f"mutation {step.name!r}: {e}") from None
    return reference.dump(doc)
