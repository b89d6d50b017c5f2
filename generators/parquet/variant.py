"""VARIANT values: the Variant binary encoding decoded byte by byte (apache/parquet-format VariantEncoding.md,
24102ed5), shredded values put back together (VariantShredding.md, "Reconstructing a Shredded Variant"), and the
normal form a decoded variant takes as canonical tokens (generators/canonical.py), which every reader of VARIANT is
held to (docs/spec-notes.md#variant).

The normal form keeps a variant's value, not its encoding: an int8, int16, int32 or int64 is `{"int": ...}`; a float
or a double `{"float": ...}` (a float widened exactly); a decimal4/8/16 `{"dec": ...}` at its scale; a date, a
time and the four timestamps their tokens (nanoseconds: a timestamp with and without a zone alike); a UUID its
lowercase hyphenated text (as readers hand it over); string, binary and boolean theirs; a Variant null `null`; an
object `{"struct": {name: value}}` with only the fields it has (a missing field is absent, a field holding Variant
null is null); an array a list. Written from the spec's text alone; tests/test_variant.py holds it against every
`.variant.bin` of apache/parquet-testing's shredded_variant."""

from __future__ import annotations

import decimal
import struct
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from parquet_conformance.generators.canonical import canonical_value, date_text


class VariantError(ValueError):
    """Bytes that are not a Variant the spec defines, or shredded columns that conflict."""


@dataclass(frozen=True)
class Primitive:
    kind: str  # the Variant physical type as VariantEncoding.md's primitive table names it
    value: object  # None, bool, int (integers, dates as days, times and timestamps in their unit), float, Decimal,
    # str, bytes, uuid.UUID


@dataclass(frozen=True)
class Object:
    fields: tuple[tuple[str, Value], ...]  # in the order of their field ids: the names' byte order


@dataclass(frozen=True)
class Array:
    items: tuple[Value, ...]


Value = Primitive | Object | Array

# primitive_header -> (physical type, struct format of its value_data; "" for none, "scale" for a decimal's
# 1-byte scale and unscaled little-endian integer, "sized" for a 4-byte size and bytes)
PRIMITIVES: dict[int, tuple[str, str]] = {
    0: ("null", ""), 1: ("boolean", ""), 2: ("boolean", ""), 3: ("int8", "<b"), 4: ("int16", "<h"),
    5: ("int32", "<i"), 6: ("int64", "<q"), 7: ("double", "<d"), 8: ("decimal4", "scale4"), 9: ("decimal8", "scale8"),
    10: ("decimal16", "scale16"), 11: ("date", "<i"), 12: ("timestamp", "<q"), 13: ("timestamp_ntz", "<q"),
    14: ("float", "<f"), 15: ("binary", "sized"), 16: ("string", "sized"), 17: ("time", "<q"),
    18: ("timestamp_nanos", "<q"), 19: ("timestamp_ntz_nanos", "<q"), 20: ("uuid", "uuid"),
}
MAX_DEPTH = 256  # nesting a decoder follows before it calls the value hostile


def _uint(buf: bytes, pos: int, size: int) -> int:
    if pos < 0 or pos + size > len(buf):
        raise VariantError(f"{size}-byte integer at {pos} past the end ({len(buf)} bytes)")
    return int.from_bytes(buf[pos:pos + size], "little")


def _text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise VariantError("a string that is not UTF-8") from None


def metadata_names(metadata: bytes) -> tuple[str, ...]:
    """The metadata's dictionary (header, dictionary_size, dictionary_size + 1 offsets, the strings)."""
    names, end = _metadata(metadata)
    if end != len(metadata):
        raise VariantError(f"{len(metadata) - end} bytes after the metadata's dictionary")
    return names


def split(blob: bytes) -> tuple[bytes, bytes]:
    """(metadata, value) of a metadata followed by a value (apache/parquet-testing's `.variant.bin` files): the
    metadata says its own length."""
    _, end = _metadata(blob)
    return blob[:end], blob[end:]


def _metadata(metadata: bytes) -> tuple[tuple[str, ...], int]:
    if not metadata:
        raise VariantError("empty metadata")
    header = metadata[0]
    if header & 0x0F != 1:
        raise VariantError(f"metadata version {header & 0x0F}, not 1")
    size = (header >> 6) + 1  # offset_size_minus_one + 1; bit 5 is reserved and ignored
    count = _uint(metadata, 1, size)
    offsets = [_uint(metadata, 1 + size * (i + 1), size) for i in range(count + 1)]
    start = 1 + size * (count + 2)
    if offsets[0] != 0 or any(b < a for a, b in pairwise(offsets)) \
            or start + offsets[-1] > len(metadata):
        raise VariantError("metadata offsets out of order or past the end")
    names = tuple(_text(metadata[start + a:start + b]) for a, b in pairwise(offsets))
    return names, start + offsets[-1]


def decode(metadata: bytes, value: bytes) -> Value:
    """The Variant a metadata and a value encode. Every value is contiguous and self-contained (VariantEncoding.md),
    so a value holds at most one nested value per byte: offsets that point several elements at the same bytes (which
    would unfold exponentially, 64 bytes into 2^60 values) are refused as no Variant."""
    return _whole(metadata_names(metadata), value)


def _whole(names: tuple[str, ...], value: bytes) -> Value:
    return _value(names, value, 0, 0, [len(value)])


def _value(names: tuple[str, ...], buf: bytes, pos: int, depth: int, budget: list[int]) -> Value:
    if depth > MAX_DEPTH:
        raise VariantError("nested too deep")
    budget[0] -= 1
    if budget[0] < 0:
        raise VariantError("more values than bytes: elements overlap")
    if pos >= len(buf):
        raise VariantError(f"value at {pos} past the end ({len(buf)} bytes)")
    basic, header = buf[pos] & 0x03, buf[pos] >> 2
    pos += 1
    if basic == 1:  # short string: the header is its length
        if pos + header > len(buf):
            raise VariantError("short string past the end")
        return Primitive("string", _text(buf[pos:pos + header]))
    if basic == 0:
        return _primitive(header, buf, pos)
    large = header >> (4 if basic == 2 else 2) & 1
    offset_size = (header & 0x03) + 1
    id_size = (header >> 2 & 0x03) + 1 if basic == 2 else 0
    count = _uint(buf, pos, 4 if large else 1)
    pos += 4 if large else 1
    if pos + id_size * count + offset_size * (count + 1) > len(buf):  # before any list of `count` is made
        raise VariantError(f"{count} elements' ids and offsets past the end ({len(buf)} bytes)")
    ids = [_uint(buf, pos + id_size * i, id_size) for i in range(count)]
    pos += id_size * count
    offsets = [_uint(buf, pos + offset_size * i, offset_size) for i in range(count + 1)]
    first = pos + offset_size * (count + 1)
    if first + offsets[-1] > len(buf) or any(o > offsets[-1] for o in offsets):
        raise VariantError("field offsets past the end")
    items = [_value(names, buf[:first + offsets[-1]], first + o, depth + 1, budget) for o in offsets[:-1]]
    if basic == 3:
        return Array(tuple(items))
    if any(i >= len(names) for i in ids):
        raise VariantError("a field id past the metadata's dictionary")
    keys = [names[i] for i in ids]
    if len(set(keys)) != len(keys):
        raise VariantError("an object with a field name twice")
    return Object(tuple(zip(keys, items, strict=True)))


def _primitive(header: int, buf: bytes, pos: int) -> Primitive:
    if header not in PRIMITIVES:
        raise VariantError(f"primitive type {header}, which VariantEncoding.md does not define")
    kind, form = PRIMITIVES[header]
    if not form:
        return Primitive(kind, None if header == 0 else header == 1)
    if form.startswith("scale"):
        width = int(form[5:])
        scale = _uint(buf, pos, 1)
        if scale > 38:
            raise VariantError(f"decimal scale {scale} beyond 38")
        unscaled = int.from_bytes(_bytes(buf, pos + 1, width), "little", signed=True)
        return Primitive(kind, decimal.Decimal(unscaled).scaleb(-scale))
    if form == "sized":
        raw = _bytes(buf, pos + 4, _uint(buf, pos, 4))
        return Primitive(kind, _text(raw) if kind == "string" else raw)
    if form == "uuid":
        return Primitive(kind, uuid.UUID(bytes=_bytes(buf, pos, 16)))
    (v,) = struct.unpack(form, _bytes(buf, pos, struct.calcsize(form)))
    return Primitive(kind, v)


def _bytes(buf: bytes, pos: int, size: int) -> bytes:
    if pos + size > len(buf):
        raise VariantError(f"{size} bytes at {pos} past the end ({len(buf)} bytes)")
    return bytes(buf[pos:pos + size])


# -- the normal form ------------------------------------------------------------------------------

_NS = {"timestamp": 1000, "timestamp_ntz": 1000, "timestamp_nanos": 1, "timestamp_ntz_nanos": 1}


def tokens(v: Value) -> object:
    """A decoded variant as canonical tokens, in the normal form of this module's docstring."""
    if isinstance(v, Array):
        return [tokens(x) for x in v.items]
    if isinstance(v, Object):
        return {"struct": {k: tokens(x) for k, x in v.fields}}
    x = v.value
    if v.kind == "date":
        return {"date": date_text(int(x))}  # type: ignore[call-overload]
    if v.kind in _NS:
        return {"ts_ns": str(int(x) * _NS[v.kind])}  # type: ignore[call-overload]
    if v.kind == "time":
        return {"time_ns": str(int(x) * 1000)}  # type: ignore[call-overload]
    if v.kind == "uuid":
        return str(x)  # its text: readers hand a UUID over as text (hyparquet), and text it stays
    return canonical_value(x)


def row_tokens(metadata: bytes, value: bytes) -> object:
    return tokens(decode(metadata, value))


# -- shredded columns put back together -----------------------------------------------------------

MISSING = object()  # a shredded field that is not there (both value and typed_value null)


def reconstruct(group: Mapping[str, Any] | None, wins: str | None = None) -> object:
    """The normal form of a VARIANT column's value from its physical group as canonical tokens (`{"struct":
    {"metadata": ..., "value": ..., "typed_value": ...}}`, the shredded fields' typed values in the normal form
    their Parquet types give), by VariantShredding.md's construct_variant. VariantError where value and typed_value
    conflict (a primitive or an array in both, a non-object value beside shredded fields, a field in both); where
    `wins` is "typed", the reading that uses typed_value there instead ("If engines choose to read in such cases, then
    the `typed_value` column must be used"; "Readers must return an object when `typed_value` is non-null containing
    the shredded fields"); "value", the one that uses value (a field in both: "reads ... may be inconsistent")."""
    if group is None:
        return None
    fields = group["struct"]
    names = metadata_names(_bin(fields["metadata"]))
    if wins not in (None, "typed", "value"):
        raise ValueError(f"wins={wins!r}")
    out = _construct(names, fields.get("value"), fields.get("typed_value"), wins)
    return None if out is MISSING else out  # missing where a value is required: Variant null


def _bin(token: object) -> bytes:
    if not (isinstance(token, dict) and isinstance(token.get("bin"), str)):
        raise VariantError(f"not binary: {str(token)[:60]}")
    return bytes.fromhex(token["bin"])


def _construct(names: tuple[str, ...], value: object, typed: object, wins: str | None) -> object:
    if typed is None:
        return MISSING if value is None else tokens(_whole(names, _bin(value)))
    if isinstance(typed, dict) and "struct" in typed:
        shredded = {}
        for name, f in typed["struct"].items():
            got = _construct(names, *_pair(f), wins)
            if got is not MISSING:
                shredded[name] = got
        if value is None:
            return {"struct": shredded}
        rest = _whole(names, _bin(value))
        if not isinstance(rest, Object):
            if wins is None:
                raise VariantError("a non-object value beside shredded fields")
            return {"struct": shredded} if wins == "typed" else tokens(rest)
        if (overlap := {k for k, _ in rest.fields} & set(typed["struct"])) and wins is None:
            raise VariantError(f"field {sorted(overlap)[0]!r} both in value and shredded")
        unshredded = {k: tokens(x) for k, x in rest.fields}
        if wins == "value":
            return {"struct": {**{k: v for k, v in shredded.items() if k not in unshredded}, **unshredded}}
        return {"struct": {**{k: v for k, v in unshredded.items() if k not in typed["struct"]}, **shredded}}
    if value is not None:
        if wins is None:
            raise VariantError("conflicting value and typed_value")
        if wins == "value":
            return tokens(_whole(names, _bin(value)))
    if isinstance(typed, list):
        # "If a Variant is missing in a context where a value is required, readers must return a Variant null"
        return [None if e is MISSING else e for e in (_construct(names, *_pair(e), wins) for e in typed)]
    if isinstance(typed, dict) and "uuid" in typed:
        return typed["uuid"]  # a UUID's text, as decoded ones are
    return typed  # a shredded primitive: its Parquet type's token is the normal form's


def _pair(element: object) -> tuple[object, object]:
    inner = element["struct"] if isinstance(element, dict) and "struct" in element else {}
    return inner.get("value"), inner.get("typed_value")


