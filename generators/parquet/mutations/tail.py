"""The file's tail and size: the footer length, the tail magic, truncation (in the footer, at row groups, in the
tail), whole-file replacement."""

from __future__ import annotations

import struct as _struct
from dataclasses import dataclass
from typing import Literal

from parquet_conformance.generators.parquet.footer import chunk_range, read_footer, read_tail
from parquet_conformance.generators.parquet.mutations.base import Context, Mutation, register
from parquet_conformance.generators.parquet.profiles import crc32
from parquet_conformance.generators.steps import MutationError


def _with_length(buf: bytes, length: int) -> bytes:
    return buf[:-8] + _struct.pack("<I", length) + buf[-4:]


@register("flip_footer_length_bit")
@dataclass(frozen=True)
class FlipFooterLengthBit(Mutation):
    """XOR one bit of the 4-byte footer length."""

    bit: int

    def check(self) -> None:
        if not 0 <= self.bit < 32:
            raise MutationError(f"flip_footer_length_bit: bit {self.bit} is not in 0..31")

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        (length,) = _struct.unpack("<I", buf[-8:-4])
        return _with_length(buf, length ^ (1 << self.bit))


@register("set_footer_length")
@dataclass(frozen=True)
class SetFooterLength(Mutation):
    """Overwrite the footer length with `value`, or with the file size minus `file_size_minus`."""

    value: int | None = None
    file_size_minus: int | None = None

    def check(self) -> None:
        if (self.value is None) == (self.file_size_minus is None):
            raise MutationError("set_footer_length takes exactly one of value and file_size_minus")

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        length = len(buf) - self.file_size_minus if self.value is None else self.value  # type: ignore[operator]
        return _with_length(buf, length)


@register("set_tail_magic")
@dataclass(frozen=True)
class SetTailMagic(Mutation):
    """Overwrite the last 4 bytes."""

    magic: str

    def check(self) -> None:
        if len(self.magic.encode("ascii", "replace")) != 4:
            raise MutationError(f"set_tail_magic: {self.magic!r} is not 4 ASCII characters")

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        return buf[:-4] + self.magic.encode("ascii")


@register("truncate_in_footer")
@dataclass(frozen=True)
class TruncateInFooter(Mutation):
    """Cut the file inside its footer, keeping `fraction` of the footer bytes."""

    fraction: float

    def check(self) -> None:
        if not 0 <= self.fraction < 1:
            raise MutationError(f"truncate_in_footer: fraction {self.fraction} is not in [0, 1)")

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        offset, length = read_tail(buf)
        return buf[:offset + int(length * self.fraction)]


@register("truncate_at_row_group")
@dataclass(frozen=True)
class TruncateAtRowGroup(Mutation):
    """Cut the file where a row group's column chunks start, in their middle, or where they end: a file written up
    to there, without its footer."""

    row_group: int
    where: Literal["start", "middle", "end"]

    def check(self) -> None:
        if self.row_group < 0:
            raise MutationError(f"truncate_at_row_group: row group {self.row_group} is negative")

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        footer, _ = read_footer(buf)
        groups = footer.row_groups()
        if self.row_group >= len(groups):
            raise MutationError(f"truncate_at_row_group: the file has {len(groups)} row groups")
        ranges = [chunk_range(cc.need("meta_data")) for cc in groups[self.row_group].children("columns")]
        start, end = min(a for a, _ in ranges), max(b for _, b in ranges)
        return buf[:{"start": start, "middle": (start + end) // 2, "end": end}[self.where]]


@register("truncate_tail")
@dataclass(frozen=True)
class TruncateTail(Mutation):
    """Cut the file inside its 8-byte tail (footer length and magic), keeping `keep` of those bytes."""

    keep: int

    def check(self) -> None:
        if not 0 <= self.keep < 8:
            raise MutationError(f"truncate_tail: keep {self.keep} is not in 0..7")

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        return buf[:len(buf) - 8 + self.keep]


@register("replace_file")
@dataclass(frozen=True)
class ReplaceFile(Mutation):
    """Replace the whole file with these bytes."""

    hex: str

    def check(self) -> None:
        try:
            bytes.fromhex(self.hex)
        except ValueError:
            raise MutationError("replace_file: hex is not hexadecimal") from None

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        return bytes.fromhex(self.hex)


@register("copy")
@dataclass(frozen=True)
class Copy(Mutation):
    """The whole file is a stored regression file (corpus/regressions): `source` relative to the corpus
    package. It is written from the store, checked against its sha256, never replayed from a base."""

    source: str

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        raise MutationError(f"copy: {self.source} is written from the regression store, not replayed")


@register("to_parx")
@dataclass(frozen=True)
class ToParx(Mutation):
    """The file in the PARX framing of apache/parquet-format PR #588 (generators/parquet/parx.py): `head_magic` at
    the head (PARX, as the proposal lays the file out), the same data and Thrift footer, and the 16-byte tail
    `metadata_len | flags | crc32 | PARX`, its CRC of the `crc` kind (the proposal's is zlib's)."""

    flags: int = 0
    crc: Literal["zlib", "castagnoli"] = "zlib"
    head_magic: Literal["PARX", "PAR1"] = "PARX"

    def check(self) -> None:
        if not 0 <= self.flags < 1 << 32:
            raise MutationError(f"to_parx: flags {self.flags} is not a u32")

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        # imported here, not at the top: start-up time (only this path needs it)
        from parquet_conformance.generators.parquet import parx

        return parx.frame(buf, self.flags, crc=self.crc, head_magic=self.head_magic.encode())


@register("damage_parx_tail")
@dataclass(frozen=True)
class DamageParxTail(Mutation):
    """XOR `xor` into one field of a PARX tail (metadata_len, flags or crc); with `recrc`, the CRC is then made
    right again for the new length and flags, so that only the changed field is wrong."""

    field: Literal["metadata_len", "flags", "crc"]
    xor: int
    recrc: bool = False

    def check(self) -> None:
        if not 0 < self.xor < 1 << 32:
            raise MutationError(f"damage_parx_tail: xor {self.xor} is not a non-zero u32")
        if self.recrc and self.field == "crc":
            raise MutationError("damage_parx_tail: recrc would undo a damaged crc")

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        # imported here, not at the top: start-up time (only this path needs it)
        from parquet_conformance.generators.parquet import parx

        parx.read_parx_tail(buf)  # ParxError unless the file ends in a PARX tail
        at = {"metadata_len": 0, "flags": 4, "crc": 8}[self.field]
        raw = bytearray(buf[-parx.TAIL:])
        (value,) = _struct.unpack_from("<I", raw, at)
        _struct.pack_into("<I", raw, at, value ^ self.xor)
        if self.recrc:
            (length,) = _struct.unpack_from("<i", raw, 0)
            end = len(buf) - parx.TAIL
            if not 0 <= length <= end - 4:
                raise MutationError(f"damage_parx_tail: no CRC for metadata_len {length} (it leaves the file)")
            _struct.pack_into("<I", raw, 8, crc32(buf[end - length:end] + bytes(raw[:8])))
        return buf[:-parx.TAIL] + bytes(raw)
