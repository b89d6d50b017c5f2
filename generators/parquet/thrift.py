"""Token-level Thrift compact protocol codec with byte spans.

Reference: Apache Thrift `doc/specs/thrift-compact-protocol.md`. The decoder keeps the
offset of every field header, value and stop byte so that callers can splice bytes into
a struct without re-encoding it. The encoder helpers can write what a normal codec
refuses to (overlong varints, any field type for any id, no stop field).

Decoding is bounded: a list may not claim more elements than bytes remain (every compact
element takes at least one byte), nesting is capped and the bounds a caller gives are clamped to the
buffer, so any input, bytes or a memory map, decodes or fails with ThriftError in time linear in its length.

Three ways to read (`Reader`): strict (`strict_varints`: only minimal varints of at most 5 bytes for
32-bit quantities, as our strict decoder wants), exact (the default: non-minimal varints of up to 10
bytes, as Thrift C++ reads them, noted in `overlong`; a stop byte with a non-zero high nibble, which
Thrift C++ and Java take for a stop by its low nibble, noted in `odd_stops`; values as written), and
`int32=...`, which reads every 32-bit quantity (binary and container lengths, i16/i32 values) the
way a Thrift runtime with 32-bit integers does, to see what such a reader makes of a length that
does not fit: `cast` (Thrift C++: up to 10 bytes into 64 bits, then cast to int32) or `shift`
(Thrift Java, JavaScript: each 7-bit group shifted left by its shift mod 32 into an int32). Both
also end a struct at any byte whose low nibble is 0, as those runtimes do.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass, field
from typing import Any, Literal

STOP, TRUE, FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT, UUID = range(14)
TYPE_NAMES = {
    TRUE: "bool", FALSE: "bool", BYTE: "i8", I16: "i16", I32: "i32", I64: "i64", DOUBLE: "double",
    BINARY: "binary", LIST: "list", SET: "set", MAP: "map", STRUCT: "struct", UUID: "uuid",
}
MAX_DEPTH = 64
Int32 = Literal["cast", "shift"]  # how a 32-bit runtime folds a wider varint (module docstring)


# What the codec reads from: file bytes, a view of them, or a mapped file.
Buffer = bytes | bytearray | memoryview | mmap.mmap


class ThriftError(ValueError):
    """Bytes that are not valid compact protocol; `offset` is where decoding failed."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"{message} at byte {offset}")
        self.offset = offset


@dataclass
class Field:
    id: int
    type: int
    header_start: int  # first byte of the field header
    header_end: int  # first byte of the value
    end: int  # one past the value
    value: Any  # int | float | bool | bytes | Struct | list

    @property
    def header_form(self) -> str:
        """`short` (delta in the type byte) or `long` (type byte + zigzag varint id)."""
        return "long" if self.header_end - self.header_start > 1 else "short"


@dataclass
class Struct:
    start: int
    end: int = 0  # one past the stop byte
    fields: list[Field] = field(default_factory=list)

    @property
    def stop_offset(self) -> int:
        return self.end - 1

    def get(self, fid: int) -> Field | None:
        return next((f for f in self.fields if f.id == fid), None)

    def value(self, fid: int, default: object = None) -> Any:
        f = self.get(fid)
        return default if f is None else f.value


class Reader:
    def __init__(self, buf: Buffer, pos: int = 0, end: int | None = None, *,
                 strict_varints: bool = False, int32: Int32 | None = None) -> None:
        # A caller's bounds come from the file itself (an offset and a length in the footer): they are clamped
        # to the buffer here, so that a read past its end is a ThriftError, never an IndexError (or, with a
        # negative start, a read from the other end of the buffer).
        if not 0 <= pos <= len(buf):
            raise ThriftError(f"start outside the {len(buf)}-byte buffer", pos)
        self.buf = buf
        self.pos = pos
        self.end = len(buf) if end is None else max(pos, min(end, len(buf)))
        self.strict_varints = strict_varints
        self.int32 = int32
        self.overlong: list[int] = []  # where non-minimal varints start (when not strict)
        self.odd_stops: list[int] = []  # stop bytes with a non-zero high nibble (when not strict)

    def byte(self) -> int:
        if self.pos >= self.end:
            raise ThriftError("unexpected end of input", self.pos)
        b = self.buf[self.pos]
        self.pos += 1
        return b

    def take(self, n: int) -> bytes:
        if n < 0 or n > self.end - self.pos:
            raise ThriftError(f"length {n} overruns the buffer ({self.end - self.pos} bytes left)", self.pos)
        out = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        return out

    def varint(self, max_bytes: int = 10) -> int:
        start = self.pos
        if start < self.end and (b := self.buf[start]) < 0x80:  # one byte, most varints: the loop's first round
            self.pos = start + 1
            return b
        result, shift = 0, 0
        for i in range(max_bytes):
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                if i > 0 and b == 0:
                    if self.strict_varints:
                        raise ThriftError("overlong varint", start)
                    self.overlong.append(start)
                return result
            shift += 7
        raise ThriftError(f"varint longer than {max_bytes} bytes", start)

    def zigzag(self, max_bytes: int = 10) -> int:
        n = self.varint(max_bytes)
        return (n >> 1) ^ -(n & 1)

    def varint32(self) -> int:
        """A 32-bit quantity (length, count, i16/i32 before zigzag): at most 5 bytes when strict, 10 (as Thrift
        C++ reads it) otherwise, or as `int32` folds it."""
        if self.int32 is None:
            return self.varint(5 if self.strict_varints else 10)
        start, groups = self.pos, []
        while True:
            b = self.byte()
            groups.append(b & 0x7F)
            if not b & 0x80:
                break
            if len(groups) == 10 and self.int32 == "cast":
                raise ThriftError("varint longer than 10 bytes", start)
        if self.int32 == "cast":
            n = sum(g << (7 * i) for i, g in enumerate(groups)) & 0xFFFFFFFF
        else:
            n = 0
            for i, g in enumerate(groups):
                n |= (g << (7 * i % 32)) & 0xFFFFFFFF
        return n - (1 << 32) if n & 0x80000000 else n

    def zigzag32(self) -> int:
        n = self.varint32() & 0xFFFFFFFF
        return (n >> 1) ^ -(n & 1)

    def field_header(self, last_id: int) -> tuple[int, int]:
        """Returns (type, id); type STOP means the struct ended."""
        b = self.byte()
        ftype, delta = b & 0x0F, b >> 4
        if ftype == STOP:
            if delta and self.strict_varints:
                raise ThriftError(f"stop byte with non-zero high nibble 0x{b:02x}", self.pos - 1)
            if delta:
                self.odd_stops.append(self.pos - 1)
            return STOP, 0
        if ftype not in TYPE_NAMES:
            raise ThriftError(f"unknown field type {ftype}", self.pos - 1)
        fid = last_id + delta if delta else to_i16(self.zigzag32() if self.int32 else self.zigzag(5))
        return ftype, fid

    def value(self, ftype: int, depth: int) -> object:
        if ftype in (TRUE, FALSE):
            return ftype == TRUE
        if ftype == BYTE:
            b = self.byte()
            return b - 256 if b > 127 else b
        if ftype == I64:
            return self.zigzag(10)
        if ftype in (I16, I32):
            return self.zigzag32() if self.int32 else self.zigzag(5)
        if ftype == DOUBLE:
            return struct.unpack("<d", self.take(8))[0]
        if ftype == BINARY:
            return self.take(self.varint32())
        if ftype == UUID:
            return self.take(16)
        if ftype == STRUCT:
            return self.struct(depth + 1)
        if ftype in (LIST, SET):
            return self.list_(depth + 1)
        if ftype == MAP:
            return self.map_(depth + 1)
        raise ThriftError(f"unknown type {ftype}", self.pos)

    def element(self, etype: int, depth: int) -> object:
        # Inside containers a bool is one byte: 1 is true (writers have used 2 and 0 for false).
        if etype in (TRUE, FALSE):
            return self.byte() == TRUE
        return self.value(etype, depth)

    def _element_type(self, t: int) -> int:
        if t not in TYPE_NAMES:
            raise ThriftError(f"bad element type {t}", self.pos - 1)
        return t

    def _check_count(self, n: int, start: int) -> None:
        if n < 0:
            raise ThriftError(f"negative container size {n}", start)
        if n > self.end - self.pos:
            raise ThriftError(f"container claims {n} elements with {self.end - self.pos} bytes left", start)

    def list_(self, depth: int) -> list:
        start = self.pos
        b = self.byte()
        n = b >> 4
        if n == 15:
            n = self.varint32()
        if n == 0 and b & 0x0F == STOP:  # fastparquet writes an empty list's header as 00; Thrift C++ reads it
            return []
        etype = self._element_type(b & 0x0F)
        self._check_count(n, start)
        return [self.element(etype, depth) for _ in range(n)]

    def map_(self, depth: int) -> list:
        start = self.pos
        n = self.varint32()
        if n == 0:
            return []
        kv = self.byte()
        ktype, vtype = self._element_type(kv >> 4), self._element_type(kv & 0x0F)
        self._check_count(n, start)
        return [(self.element(ktype, depth), self.element(vtype, depth)) for _ in range(n)]

    def struct(self, depth: int = 0) -> Struct:
        if depth > MAX_DEPTH:
            raise ThriftError(f"nesting deeper than {MAX_DEPTH}", self.pos)
        s = Struct(start=self.pos)
        last = 0
        while True:
            header_start = self.pos
            ftype, fid = self.field_header(last)
            if ftype == STOP:
                s.end = self.pos
                return s
            header_end = self.pos
            val = self.value(ftype, depth)
            s.fields.append(Field(fid, ftype, header_start, header_end, self.pos, val))
            last = fid


def decode_struct(buf: Buffer, pos: int = 0, end: int | None = None, *,
                  strict_varints: bool = False, int32: Int32 | None = None) -> Struct:
    return Reader(buf, pos, end, strict_varints=strict_varints, int32=int32).struct()


def to_i16(n: int) -> int:
    """Field ids are i16 on the wire; readers truncate wider values the same way."""
    n &= 0xFFFF
    return n - 0x10000 if n & 0x8000 else n


# --- encoding -------------------------------------------------------------------------

def uleb(n: int, pad_to: int = 0) -> bytes:
    """Unsigned LEB128; `pad_to` > minimal length writes an overlong (non-canonical) form."""
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n == 0 and len(out) + 1 >= pad_to:
            out.append(b)
            return bytes(out)
        out.append(b | 0x80)


def zigzag_encode(n: int) -> int:
    return (n << 1) ^ (n >> 63)


def field_header(ftype: int, fid: int, last_id: int = 0, *, long_form: bool = False) -> bytes:
    delta = fid - last_id
    if not long_form and 0 < delta <= 15:
        return bytes([(delta << 4) | ftype])
    return bytes([ftype]) + uleb(zigzag_encode(fid))


def binary_field(fid: int, payload: bytes, last_id: int = 0) -> bytes:
    return field_header(BINARY, fid, last_id) + uleb(len(payload)) + payload


def i64_value(n: int) -> bytes:
    return uleb(zigzag_encode(n))


def encode_fields(fields: list[tuple[int, int, Any]]) -> bytes:
    """Fields to splice into an existing struct: the first in long form (its id absolute, whatever came
    before it), the rest as deltas from it; no stop byte."""
    out, last = bytearray(), None
    for fid, ftype, value in fields:
        if ftype in (TRUE, FALSE):
            out += field_header(TRUE if value else FALSE, fid, last or 0, long_form=last is None)
        else:
            out += field_header(ftype, fid, last or 0, long_form=last is None) + encode_value(ftype, value)
        last = fid
    return bytes(out)


def encode_struct(fields: list[tuple[int, int, Any]]) -> bytes:
    """A well-formed struct from (id, type, value) in ascending id order; None values are left out.
    Values: ints for integer types, bool for bools, bytes for binary, encoded bytes for structs,
    (element type, [values]) for lists."""
    out, last = bytearray(), 0
    for fid, ftype, value in fields:
        if value is None:
            continue
        if ftype in (TRUE, FALSE):
            out += field_header(TRUE if value else FALSE, fid, last)
        else:
            out += field_header(ftype, fid, last) + encode_value(ftype, value)
        last = fid
    return bytes(out + b"\x00")


def encode_value(ftype: int, value: Any) -> bytes:
    if ftype == BYTE:
        return bytes([value & 0xFF])
    if ftype in (I16, I32, I64):
        return uleb(zigzag_encode(value))
    if ftype == BINARY:
        return uleb(len(value)) + value
    if ftype == STRUCT:
        return value
    if ftype == LIST:
        etype, items = value
        head = bytes([(len(items) << 4) | etype]) if len(items) < 15 else bytes([0xF0 | etype]) + uleb(len(items))
        if etype in (TRUE, FALSE):
            return head + bytes(TRUE if v else FALSE for v in items)
        return head + b"".join(encode_value(etype, v) for v in items)
    raise ValueError(f"cannot encode type {ftype}")
