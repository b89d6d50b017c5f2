"""The YSON subset that Skiff table streams need: `$other_columns` maps and test fixtures.

Writes text YSON; reads text YSON and the binary scalar markers, because the reference writer
(the `yt_yson_bindings` Skiff dumper) puts binary YSON into `$other_columns` (`{\\x01\\x06foo=\\x01\\x06bar;}`).
Not supported: attributes (`<a=b>x`), and anything else past scalars, lists and maps.

Python forms: `#` is None, `%true`/`%false` are bool, `42` is int, `42u` is `YsonUint64`, doubles are
float, strings are bytes (YSON strings are byte strings), lists are list, maps are dict with str keys.
"""

from __future__ import annotations

import math
import random
import re
import struct
from typing import TypeAlias

__all__ = ["YsonError", "YsonUint64", "YsonValue", "dumps", "dumps_varied", "loads"]

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1
MAX_DEPTH = 128  # nesting limit on read: hostile input ends in YsonError well before RecursionError

# Binary YSON markers (scalars only).
STRING_MARKER, INT64_MARKER, DOUBLE_MARKER, FALSE_MARKER, TRUE_MARKER, UINT64_MARKER = range(1, 7)

_UNQUOTED = re.compile(rb"[A-Za-z_][A-Za-z0-9_.\-]*")
_NUMBER = re.compile(rb"[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?u?")
_WHITESPACE = b" \t\r\n"
_SIMPLE_ESCAPES = {ord("\\"): b"\\\\", ord('"'): b'\\"', ord("\n"): b"\\n", ord("\r"): b"\\r", ord("\t"): b"\\t"}
_UNESCAPES = {ord("\\"): 0x5C, ord('"'): 0x22, ord("'"): 0x27, ord("n"): 0x0A, ord("r"): 0x0D, ord("t"): 0x09}
_SPECIALS: dict[bytes, bool | float] = {b"%true": True, b"%false": False, b"%nan": math.nan, b"%inf": math.inf,
                                        b"%-inf": -math.inf}


class YsonError(ValueError):
    """Malformed or unsupported YSON; `offset` is the byte where reading stopped (None on write)."""

    def __init__(self, message: str, offset: int | None = None) -> None:
        super().__init__(message if offset is None else f"at byte {offset}: {message}")
        self.reason = message
        self.offset = offset


class YsonUint64(int):
    """A YSON uint64 (`100500u`): an int that remembers its YSON type, so that it round-trips."""

    def __repr__(self) -> str:
        return f"YsonUint64({int(self)})"


YsonValue: TypeAlias = "bool | int | float | bytes | list[YsonValue] | dict[str, YsonValue] | None"


# --- writing ---------------------------------------------------------------------------

def dumps(value: YsonValue) -> bytes:
    """Text YSON for `value`."""
    out = bytearray()
    _write(value, out)
    return bytes(out)


def _write(value: YsonValue, out: bytearray) -> None:
    if value is None:
        out += b"#"
    elif isinstance(value, bool):  # before int: bool is an int subclass
        out += b"%true" if value else b"%false"
    elif isinstance(value, int):
        out += _int_text(value)
    elif isinstance(value, float):
        out += _double_text(value)
    elif isinstance(value, bytes):
        out += _string_text(value)
    elif isinstance(value, list):
        out += b"["
        for index, item in enumerate(value):
            out += b";" if index else b""
            _write(item, out)
        out += b"]"
    elif isinstance(value, dict):
        _write_map(value, out)
    else:
        raise YsonError(f"cannot write {type(value).__name__} as YSON")


def _write_map(value: dict[str, YsonValue], out: bytearray) -> None:
    out += b"{"
    for index, (key, item) in enumerate(value.items()):
        if not isinstance(key, str):
            raise YsonError(f"YSON map keys must be str, got {type(key).__name__}")
        out += b";" if index else b""
        out += _string_text(key.encode())
        out += b"="
        _write(item, out)
    out += b"}"


def _int_text(value: int) -> bytes:
    if isinstance(value, YsonUint64):
        if not 0 <= value <= UINT64_MAX:
            raise YsonError(f"uint64 out of range: {int(value)}")
        return b"%du" % value
    if not INT64_MIN <= value <= INT64_MAX:
        raise YsonError(f"int64 out of range: {value} (wrap it in YsonUint64 for uint64)")
    return b"%d" % value


def _double_text(value: float) -> bytes:
    if math.isnan(value):
        return b"%nan"
    if math.isinf(value):
        return b"%inf" if value > 0 else b"%-inf"
    return repr(value).encode()  # repr always has '.' or 'e', which is what makes it a YSON double


def _string_text(value: bytes) -> bytes:
    if _UNQUOTED.fullmatch(value):
        return value
    out = bytearray(b'"')
    for byte in value:
        if byte in _SIMPLE_ESCAPES:
            out += _SIMPLE_ESCAPES[byte]
        elif 0x20 <= byte < 0x7F:
            out.append(byte)
        else:
            out += b"\\x%02x" % byte
    out += b'"'
    return bytes(out)


def dumps_varied(value: YsonValue, rng: random.Random) -> bytes:
    """`value` in one of YSON's many spellings, chosen by `rng`: binary or text scalars, quoted or bare
    strings, whitespace, trailing `;`. Same value, other bytes: what a reader must not care about."""
    out = bytearray()
    _write_varied(value, out, rng)
    return bytes(out)


def _space(rng: random.Random) -> bytes:
    return rng.choice([b"", b"", b" ", b"\n  ", b"\t"])


def _write_varied(value: YsonValue, out: bytearray, rng: random.Random) -> None:
    out += _space(rng)
    binary = rng.random() < 0.5
    if isinstance(value, list | dict):
        items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        out += b"{" if isinstance(value, dict) else b"["
        for index, (key, item) in enumerate(items):
            out += b";" if index else b""
            if isinstance(key, str):
                _write_string_varied(key.encode(), out, rng)
                out += _space(rng) + b"="
            _write_varied(item, out, rng)
        out += (b";" if items and rng.random() < 0.5 else b"") + _space(rng)
        out += b"}" if isinstance(value, dict) else b"]"
    elif isinstance(value, bytes):
        _write_string_varied(value, out, rng)
    elif binary and isinstance(value, bool):
        out.append(TRUE_MARKER if value else FALSE_MARKER)
    elif binary and isinstance(value, YsonUint64):
        out += bytes([UINT64_MARKER]) + _varint(int(value))
    elif binary and isinstance(value, int):
        out += bytes([INT64_MARKER]) + _varint((value << 1) ^ (value >> 63))
    elif binary and isinstance(value, float):
        out += bytes([DOUBLE_MARKER]) + struct.pack("<d", value)
    else:
        _write(value, out)
    out += _space(rng)


def _write_string_varied(value: bytes, out: bytearray, rng: random.Random) -> None:
    choice = rng.randrange(3)
    if choice == 0:
        out += bytes([STRING_MARKER]) + _varint(len(value) << 1)
        out += value
    elif choice == 1:
        text = _string_text(value)
        out += text if text.startswith(b'"') else b'"' + text + b'"'
    else:
        out += _string_text(value)


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if not value:
            out.append(byte)
            return bytes(out)
        out.append(byte | 0x80)


# --- reading ---------------------------------------------------------------------------

def loads(data: bytes) -> YsonValue:
    """One YSON value from `data` (text, or binary scalars); anything but whitespace after it is an error."""
    reader = _Reader(bytes(data))
    value = reader.value(0)
    reader.skip_whitespace()
    if reader.pos != len(reader.data):
        raise YsonError("trailing data after the YSON value", reader.pos)
    return value


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def fail(self, message: str) -> YsonError:
        return YsonError(message, self.pos)

    def skip_whitespace(self) -> None:
        while self.pos < len(self.data) and self.data[self.pos] in _WHITESPACE:
            self.pos += 1

    def peek(self) -> int:
        self.skip_whitespace()
        if self.pos >= len(self.data):
            raise self.fail("unexpected end of YSON")
        return self.data[self.pos]

    def expect(self, char: bytes) -> None:
        if self.peek() != char[0]:
            raise self.fail(f"expected {char.decode()!r}")
        self.pos += 1

    def take(self, size: int) -> bytes:
        if size > len(self.data) - self.pos:
            raise self.fail(f"needs {size} bytes, {len(self.data) - self.pos} remain")
        chunk = self.data[self.pos:self.pos + size]
        self.pos += size
        return chunk

    def value(self, depth: int) -> YsonValue:
        if depth > MAX_DEPTH:
            raise self.fail(f"nesting deeper than {MAX_DEPTH}")
        char = self.peek()
        if char == ord("["):
            return self.list_(depth)
        if char == ord("{"):
            return self.map_(depth)
        if char == ord("<"):
            raise self.fail("YSON attributes are not supported")
        if char == ord("#"):
            self.pos += 1
            return None
        if char == ord("%"):
            return self.special()
        if char in (FALSE_MARKER, TRUE_MARKER):
            self.pos += 1
            return char == TRUE_MARKER
        if char in (INT64_MARKER, UINT64_MARKER, DOUBLE_MARKER):
            return self.binary_number(char)
        if char == ord("-") or char == ord("+") or ord("0") <= char <= ord("9"):
            return self.number()
        return self.string()

    def list_(self, depth: int) -> list[YsonValue]:
        self.pos += 1
        items: list[YsonValue] = []
        while self.peek() != ord("]"):
            items.append(self.value(depth + 1))
            if self.peek() != ord("]"):
                self.expect(b";")
        self.pos += 1
        return items

    def map_(self, depth: int) -> dict[str, YsonValue]:
        self.pos += 1
        items: dict[str, YsonValue] = {}
        while self.peek() != ord("}"):
            start = self.pos
            key = self.key()
            if key in items:
                raise YsonError(f"duplicate map key {key!r}", start)
            self.expect(b"=")
            items[key] = self.value(depth + 1)
            if self.peek() != ord("}"):
                self.expect(b";")
        self.pos += 1
        return items

    def key(self) -> str:
        start = self.pos
        raw = self.string()
        try:
            return raw.decode()
        except UnicodeDecodeError:
            raise YsonError("map key is not UTF-8", start) from None

    def special(self) -> bool | float:
        for token, result in _SPECIALS.items():
            if self.data.startswith(token, self.pos) and not self._identifier_continues(self.pos + len(token)):
                self.pos += len(token)
                return result
        raise self.fail("unknown %-literal")

    def _identifier_continues(self, pos: int) -> bool:
        return pos < len(self.data) and _UNQUOTED.fullmatch(b"a" + self.data[pos:pos + 1]) is not None

    def number(self) -> int | float:
        match = _NUMBER.match(self.data, self.pos)
        if match is None or self._identifier_continues(match.end()):
            raise self.fail("malformed number")
        text = match.group()
        self.pos = match.end()
        is_double = any(c in text for c in b".eE")
        if text.endswith(b"u"):
            if is_double or text.startswith(b"-"):
                raise YsonError(f"malformed uint64 {text.decode()!r}", match.start())
            return self._ranged(YsonUint64(int(text[:-1])), 0, UINT64_MAX, match.start())
        if is_double:
            return float(text)
        return self._ranged(int(text), INT64_MIN, INT64_MAX, match.start())

    @staticmethod
    def _ranged(value: int, low: int, high: int, offset: int) -> int:
        if not low <= value <= high:
            raise YsonError(f"integer out of range: {int(value)}", offset)
        return value

    def binary_number(self, marker: int) -> int | float:
        self.pos += 1
        if marker == DOUBLE_MARKER:
            value: float = struct.unpack("<d", self.take(8))[0]
            return value
        raw = self.varint()
        if marker == UINT64_MARKER:
            return YsonUint64(raw)
        return (raw >> 1) ^ -(raw & 1)  # zigzag

    def varint(self) -> int:
        result = 0
        for shift in range(0, 70, 7):
            byte = self.take(1)[0]
            result |= (byte & 0x7F) << shift
            if not byte & 0x80:
                if result > UINT64_MAX:
                    break
                return result
        raise self.fail("varint longer than 64 bits")

    def string(self) -> bytes:
        char = self.peek()
        if char == STRING_MARKER:
            self.pos += 1
            raw = self.varint()
            length = (raw >> 1) ^ -(raw & 1)
            if length < 0:
                raise self.fail(f"negative string length {length}")
            return self.take(length)  # take() checks the length against what remains
        if char == ord('"'):
            return self.quoted()
        match = _UNQUOTED.match(self.data, self.pos)
        if match is None:
            raise self.fail(f"unexpected byte 0x{char:02x}")
        self.pos = match.end()
        return match.group()

    def quoted(self) -> bytes:
        self.pos += 1
        out = bytearray()
        while True:
            byte = self.take(1)[0]
            if byte == ord('"'):
                return bytes(out)
            if byte == ord("\\"):
                out.append(self.escape())
            else:
                out.append(byte)

    def escape(self) -> int:
        start = self.pos - 1
        code = self.take(1)[0]
        if code in _UNESCAPES:
            return _UNESCAPES[code]
        if code == ord("x"):
            digits = self.take(2)
            if re.fullmatch(rb"[0-9A-Fa-f]{2}", digits):
                return int(digits, 16)
        elif ord("0") <= code <= ord("7"):
            digits = bytes([code])
            while len(digits) < 3 and self.pos < len(self.data) and ord("0") <= self.data[self.pos] <= ord("7"):
                digits += self.take(1)
            if int(digits, 8) <= 0xFF:
                return int(digits, 8)
        raise YsonError("bad escape sequence", start)
