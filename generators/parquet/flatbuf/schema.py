"""The PR #544 FlatBuffers schema revisions as data, and a verifier, reader and writer driven by them.

Two revisions are vendored (README.md): the PR head, which the spec-example, migration and par3
profiles use, and a77d2774, the one both prototypes (Arrow C++, arrow-rs) compile, which the
arrow-prototype profile uses. Their field order differs, so a buffer is only meaningful under the
revision it was written with; every function here takes the revision's name.

The Python flatbuffers package has no verifier, so `verify` checks what flatbuffers::Verifier
(C++, default options) checks: every offset (root, vtable, fields, vectors, strings, union
values, nested tables) inside the buffer, scalars and offsets aligned, vector lengths times
element size within bounds, strings NUL-terminated, nesting depth at most 64. It is stricter
on unions: an unknown union type, a type without a value or a value without a type is an error
(the generated C++ code accepts all three). Work is bounded by a budget proportional to the
buffer length, and tables are verified once per position, so tables shared by many offsets
(legal in FlatBuffers) cost little while a buffer crafted to make the walk quadratic fails.

`decode` turns a buffer into nested dicts keyed by schema field names and `encode` does the
reverse with flatbuffers.Builder; the generated module (parquet_generated.py) is the
independent implementation the tests compare both with.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import flatbuffers
from flatbuffers import number_types as N

ROOT = "FileMetaData"
MAX_DEPTH = 64  # flatbuffers::Verifier's default max_depth
MIN_BUFFER = 12  # FLATBUFFERS_MIN_BUFFER_SIZE: root offset, soffset, vtable size, table size
MAX_BUFFER = 2**31 - 1  # FLATBUFFERS_MAX_BUFFER_SIZE
# struct format and builder flags of each scalar type
SCALARS = {"bool": ("?", N.BoolFlags), "byte": ("b", N.Int8Flags), "ubyte": ("B", N.Uint8Flags),
           "short": ("h", N.Int16Flags), "ushort": ("H", N.Uint16Flags), "int": ("i", N.Int32Flags),
           "uint": ("I", N.Uint32Flags), "long": ("q", N.Int64Flags), "ulong": ("Q", N.Uint64Flags),
           "float": ("f", N.Float32Flags), "double": ("d", N.Float64Flags)}


class FlatbufferError(ValueError):
    """The bytes are not a well-formed FileMetaData of the PR #544 schema."""


@dataclass(frozen=True)
class Slot:
    name: str
    slot: int  # vtable index
    kind: str  # scalar | utype (a union's type) | union | string | bytes | vector | strings | tables | table
    type: str  # scalar type, element scalar type, table or union name
    default: object  # scalars: the schema default, None for `= null`; others None
    enum: str | None = None  # the enum a scalar is declared as (flatc --json prints its names)


@dataclass(frozen=True)
class Schema:
    tables: dict[str, tuple[Slot, ...]]
    unions: dict[str, tuple[tuple[str, str], ...]]  # name -> (member, table); type code = index + 1
    enums: dict[str, tuple[str, tuple[tuple[str, int], ...]]]  # name -> (base type, values)


def parse_fbs(text: str) -> Schema:
    """The subset of the .fbs grammar that parquet.fbs uses: enums, unions, tables, scalar defaults."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
    decls = re.findall(r"\b(table|union|enum)\s+(\w+)\s*(?::\s*(\w+))?\s*\{([^}]*)\}", text)
    enums = {name: (base, tuple((k, int(v)) for k, v in re.findall(r"(\w+)\s*=\s*(-?\d+)", body)))
             for kind, name, base, body in decls if kind == "enum"}
    unions = {name: tuple((m, t or m) for m, t in re.findall(r"(\w+)\s*(?::\s*(\w+))?", body))
              for kind, name, _, body in decls if kind == "union"}
    tables: dict[str, tuple[Slot, ...]] = {}
    for kind, name, _, body in decls:
        if kind != "table":
            continue
        slots, i = [], 0
        for fname, ftype, default in re.findall(r"(\w+)\s*:\s*(\[?\w+\]?)\s*(?:=\s*([^;\s]+))?\s*;", body):
            inner = ftype.strip("[]")
            scalar = enums[inner][0] if inner in enums else inner
            if ftype.startswith("["):
                kind_ = {"byte": "bytes", "ubyte": "bytes", "string": "strings"}.get(
                    scalar, "vector" if scalar in SCALARS else "tables")
                slots.append(Slot(fname, i, kind_, scalar if scalar in SCALARS else inner, None))
            elif inner in unions:
                slots.append(Slot(fname + "_type", i, "utype", "ubyte", 0))
                i += 1
                slots.append(Slot(fname, i, "union", inner, None))
            elif scalar in SCALARS:
                slots.append(Slot(fname, i, "scalar", scalar, _default(scalar, default),
                                  inner if inner in enums else None))
            else:
                slots.append(Slot(fname, i, "string" if inner == "string" else "table", inner, None))
            i += 1
        tables[name] = tuple(slots)
    return Schema(tables, unions, enums)


def _default(scalar: str, text: str) -> object:
    if text == "null":
        return None
    if scalar == "bool":
        return text == "true"
    if scalar in ("float", "double"):
        return float(text or 0)
    return int(text or 0)


@dataclass(frozen=True)
class Revision:
    """A vendored revision of the schema: its file in this folder (a comment block naming the upstream
    commit, then the upstream file unchanged), the module flatc generates from it, and who writes it."""

    name: str  # the commit, abbreviated
    commit: str
    fbs: str
    used_by: str
    schema: Schema

    @property
    def path(self) -> Path:
        return HERE / self.fbs

    @property
    def module(self) -> str:
        """flatc --gen-onefile names the module after the schema file."""
        return self.fbs.removesuffix(".fbs") + "_generated"


HERE = Path(__file__).resolve().parent
PR_HEAD = "c938fc70"  # refs/pull/544/head
PROTOTYPES = "a77d2774"  # what apache/arrow PR #48431 and apache/arrow-rs PR #9042 compile


def _revision(name: str, commit: str, fbs: str, used_by: str) -> Revision:
    return Revision(name, commit, fbs, used_by, parse_fbs((HERE / fbs).read_text(encoding="utf-8")))


REVISIONS = {r.name: r for r in (
    _revision(PR_HEAD, "c938fc70f83c4953071d2ed63c2c34c8e60e4acd", "parquet.fbs",
              "the spec-example, migration and par3 profiles"),
    _revision(PROTOTYPES, "a77d2774c99d68953df0de9c1ea14af0fb4e4001", "parquet3.fbs",
              "the arrow-prototype profile (apache/arrow PR #48431, apache/arrow-rs PR #9042)"),
)}


def schema_of(revision: str) -> Schema:
    try:
        return REVISIONS[revision].schema
    except KeyError:
        raise ValueError(f"no FlatBuffers schema revision {revision!r}; known: {', '.join(REVISIONS)}") from None


# --- verify / decode -------------------------------------------------------------------

class _Walker:
    """One pass over a buffer; with `materialize` it also builds the decoded dicts."""

    def __init__(self, buf: bytes, materialize: bool, schema: Schema) -> None:
        self.buf, self.n, self.materialize, self.schema = buf, len(buf), materialize, schema
        self.budget = 8 * self.n + 1024  # an honest table costs <= 13 units and takes >= 8 bytes
        self.done: dict[tuple[int, str], dict | None] = {}

    def fail(self, message: str, pos: int) -> NoReturn:
        raise FlatbufferError(f"{message} at byte {pos}")

    def charge(self, pos: int) -> None:
        self.budget -= 1
        if self.budget < 0:
            self.fail("too many references for the buffer size", pos)

    def need(self, pos: int, size: int, align: int, what: str) -> None:
        if pos < 0 or pos + size > self.n:
            self.fail(f"{what} [{pos}, {pos + size}) outside the {self.n}-byte buffer", pos)
        if pos % align:
            self.fail(f"{what} not aligned to {align}", pos)

    def scalar(self, pos: int, type_: str, what: str) -> object:
        fmt = SCALARS[type_][0]
        size = struct.calcsize(fmt)
        self.need(pos, size, size, what)
        return struct.unpack_from("<" + fmt, self.buf, pos)[0]

    def follow(self, pos: int, what: str) -> int:
        """A uoffset at `pos`: non-zero, below 2^31 and pointing inside the buffer."""
        off = self.scalar(pos, "uint", what)
        if off == 0 or off >= 2**31 or pos + off >= self.n:
            self.fail(f"{what} offset {off} does not point inside the buffer", pos)
        return pos + off

    def vector(self, pos: int, elem_size: int, what: str) -> tuple[int, int]:
        count = self.scalar(pos, "uint", what + " length")
        if 4 + count * elem_size > self.n - pos:
            self.fail(f"{what} of {count} x {elem_size} bytes overruns the buffer", pos)
        return pos + 4, count

    def string(self, pos: int, what: str) -> bytes | None:
        start, count = self.vector(pos, 1, what)
        if start + count >= self.n or self.buf[start + count] != 0:
            self.fail(f"{what} is not NUL-terminated inside the buffer", pos)
        return self.buf[start:start + count] if self.materialize else None

    def table(self, pos: int, name: str, depth: int) -> dict | None:
        self.charge(pos)
        if (pos, name) in self.done:
            return self.done[pos, name]
        if depth > MAX_DEPTH:
            self.fail(f"tables nested deeper than {MAX_DEPTH}", pos)
        self.need(pos, 4, 4, name)
        vt = pos - self.scalar(pos, "int", name + " vtable offset")
        vsize = self.scalar(vt, "ushort", name + " vtable")
        if vsize % 2 or vt + vsize > self.n:
            self.fail(f"{name} vtable of {vsize} bytes is malformed", vt)
        out: dict | None = {} if self.materialize else None
        utype = 0
        for f in self.schema.tables[name]:
            self.charge(pos)
            entry = 4 + 2 * f.slot
            voff = self.scalar(vt + entry, "ushort", name + " vtable") if entry < vsize else 0
            at, what = pos + voff, f"{name}.{f.name}"
            if f.kind == "utype":
                utype = self.scalar(at, f.type, what) if voff else 0
                continue
            if f.kind == "scalar":
                value = self.scalar(at, f.type, what) if voff else f.default
            elif f.kind == "union":
                value = self.union(at if voff else None, f.type, utype, depth, what)
            elif not voff:
                value = None
            else:
                value = self.offset_field(self.follow(at, what), f, depth, what)
            if out is not None:
                out[f.name] = value
        self.done[pos, name] = out
        return out

    def union(self, at: int | None, union: str, utype: int, depth: int, what: str) -> tuple[str, dict] | None:
        members = self.schema.unions[union]
        if utype > len(members):
            self.fail(f"{what}: unknown {union} type {utype}", at or 0)
        if (utype == 0) != (at is None):
            self.fail(f"{what}: union type {utype} " + ("without a value" if at is None else "with a value"), at or 0)
        if at is None:
            return None
        member, table = members[utype - 1]
        value = self.table(self.follow(at, what), table, depth + 1)
        return (member, value) if self.materialize else None

    def offset_field(self, target: int, f: Slot, depth: int, what: str) -> object:
        if f.kind == "table":
            return self.table(target, f.type, depth + 1)
        if f.kind == "string":
            return self.string(target, what)
        if f.kind == "bytes":
            start, count = self.vector(target, 1, what)
            return self.buf[start:start + count] if self.materialize else None
        if f.kind == "vector":
            fmt = SCALARS[f.type][0]
            start, count = self.vector(target, struct.calcsize(fmt), what)
            return list(struct.unpack_from(f"<{count}{fmt}", self.buf, start)) if self.materialize else None
        start, count = self.vector(target, 4, what)  # strings or tables: vectors of uoffsets
        items = []
        for i in range(count):
            self.charge(start)
            item = self.follow(start + 4 * i, f"{what}[{i}]")
            value = self.string(item, what) if f.kind == "strings" else self.table(item, f.type, depth + 1)
            if self.materialize:
                items.append(value)
        return items if self.materialize else None

    def root(self) -> dict | None:
        if self.n < MIN_BUFFER or self.n > MAX_BUFFER:
            self.fail(f"a {self.n}-byte buffer cannot hold a FlatBuffer", 0)
        return self.table(self.follow(0, "root"), ROOT, 1)


def _as_bytes(buf: object) -> bytes:
    if isinstance(buf, bytes):
        return buf
    if isinstance(buf, (bytearray, memoryview)):
        return bytes(buf)
    raise FlatbufferError(f"expected bytes, got {type(buf).__name__}")


def verify(buf: bytes, revision: str = PR_HEAD) -> None:
    """Raises FlatbufferError unless `buf` is a well-formed FileMetaData of that revision; see the module
    docstring."""
    _Walker(_as_bytes(buf), False, schema_of(revision)).root()


def decode(buf: bytes, revision: str = PR_HEAD) -> dict:
    """The FileMetaData as nested dicts: every field of each table by name (schema default or None
    when absent), strings and [byte] as bytes, unions as (member, dict) or None. Verifies as it goes."""
    out = _Walker(_as_bytes(buf), True, schema_of(revision)).root()
    assert out is not None
    return out


# --- encode ----------------------------------------------------------------------------

def encode(obj: Mapping[str, object], revision: str = PR_HEAD, table: str = ROOT) -> bytes:
    """Writes nested dicts of the `decode` shape (missing keys and None mean absent) as a finished
    buffer without file identifier (neither revision declares one). Same input, same bytes."""
    b = flatbuffers.Builder(4096)
    b.Finish(_encode(b, schema_of(revision), table, obj))
    return bytes(b.Output())


def _encode(b: flatbuffers.Builder, schema: Schema, table: str, obj: Mapping[str, object]) -> int:
    slots = schema.tables[table]
    if unknown := set(obj) - {f.name for f in slots}:  # a field of the other revision is a bug, not a no-op
        raise ValueError(f"{table} has no field {sorted(unknown)[0]!r} in this schema revision")
    # Strings, vectors and sub-tables must be complete before the table is started.
    refs = {f.name: _child(b, schema, f, obj[f.name]) for f in slots
            if f.kind not in ("scalar", "utype") and obj.get(f.name) is not None}
    b.StartObject(slots[-1].slot + 1 if slots else 0)
    for f in slots:
        if f.kind not in ("scalar", "utype"):
            if f.name in refs:
                b.PrependUOffsetTRelativeSlot(f.slot, refs[f.name], 0)
            continue
        value = obj.get(f.name)
        if f.kind == "utype":  # follows from the union member in the next slot
            union = slots[f.slot + 1]
            member = obj.get(union.name)
            value = None if member is None else [m for m, _ in schema.unions[union.type]].index(member[0]) + 1
        if value is None or _is_default(value, f.default):
            continue  # like the generated code: defaults are not written
        fmt, flags = SCALARS[f.type]
        try:
            struct.pack("<" + fmt, value)
        except struct.error:
            raise ValueError(f"{table}.{f.name} = {value!r} does not fit a FlatBuffers {f.type}") from None
        b.Prepend(flags, value)
        b.Slot(f.slot)
    return b.EndObject()


def _is_default(value: object, default: object) -> bool:
    if default is None:
        return False
    if isinstance(value, float):  # -0.0 and NaN are not the default 0.0
        return math.copysign(1, value) == math.copysign(1, default) and value == default
    return value == default


def _child(b: flatbuffers.Builder, schema: Schema, f: Slot, value: object) -> int:
    if f.kind == "string":
        return b.CreateString(bytes(value))
    if f.kind == "bytes":
        return b.CreateByteVector(bytes(value))
    if f.kind == "table":
        return _encode(b, schema, f.type, value)
    if f.kind == "union":
        member, inner = value
        return _encode(b, schema, dict(schema.unions[f.type])[member], inner)
    if f.kind == "vector":
        fmt, flags = SCALARS[f.type]
        size = struct.calcsize(fmt)
        b.StartVector(size, len(value), size)
        for x in reversed(value):
            b.Prepend(flags, x)
        return b.EndVector()
    refs = [b.CreateString(bytes(x)) if f.kind == "strings" else _encode(b, schema, f.type, x) for x in value]
    b.StartVector(4, len(refs), 4)
    for ref in reversed(refs):
        b.PrependUOffsetTRelative(ref)
    return b.EndVector()
