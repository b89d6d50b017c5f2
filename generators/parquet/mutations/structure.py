"""Structure-aware edits for differential fuzzing (docs/fuzzing.md): bits, bytes, varints and fields confined to
a region that is found again in the file each step meets.

A step names its region, not an absolute offset: `target` (the whole file, a magic, the footer length, the
footer, a struct, one field's header or value, an extension payload, the FlatBuffers trailer) with the
struct, its `which`-th occurrence and the field's index taken modulo what the file holds, and an `offset`
modulo the region's length. So every step applies to whatever file came before it in a chain, and a chain
replays from its JSON form alone. A region the file no longer has (its footer does not decode any more) is
a MutationError; `fuzz` chains skip such steps (corpus/parquet/fuzz.py).

Structs are every struct of the file (layout.all_structs: the footer's, then the page headers, page index and
bloom filter headers), decoded leniently (read_footer, not parse_file): fuzzing edits files that the strict
decoder already refuses. Field edits go through the one field rewriter (edits.rewrite_fields) and every edit that
changes a length through layout.move, so an edit in a page header moves the data after it with every offset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from parquet_conformance.generators.parquet import profiles, thrift
from parquet_conformance.generators.parquet.edits import Edit, FieldBytes, apply_edits, field_list, rewrite_fields
from parquet_conformance.generators.parquet.footer import FooterError, ParquetFooter, StructRef, read_footer, read_tail
from parquet_conformance.generators.parquet.layout import all_structs, move
from parquet_conformance.generators.parquet.mutations.base import Context, Mutation, register
from parquet_conformance.generators.parquet.thrift import Field, ThriftError
from parquet_conformance.generators.steps import MutationError

Target = Literal["file", "head-magic", "footer-length", "tail-magic", "footer", "struct", "field-header",
                 "field-value", "extension", "flatbuffer"]
VarintEdit = Literal["overlong", "overshoot", "undershoot", "overflow32", "negative"]
STRUCT_TARGETS = ("struct", "field-header", "field-value")


def lenient_footer(buf: bytes) -> ParquetFooter:
    """The footer as a Thrift reader decodes it; MutationError if it does not decode."""
    try:
        return read_footer(buf)[0]
    except (FooterError, ThriftError) as e:
        raise MutationError(f"no footer structs: {e}") from None


def find_struct(buf: bytes, name: str, which: int) -> tuple[ParquetFooter, StructRef]:
    """The `which`-th struct of that name anywhere in the file (modulo how many there are), with its footer."""
    footer = lenient_footer(buf)
    refs = [r for r in all_structs(footer) if r.name == name]
    if not refs:
        raise MutationError(f"no {name} in this file")
    return footer, refs[which % len(refs)]


def find_field(ref: StructRef, index: int) -> Field:
    if not ref.node.fields:
        raise MutationError(f"{ref.path}: no fields")
    return ref.node.fields[index % len(ref.node.fields)]


def region(buf: bytes, target: Target, struct: str, which: int, field: int) -> tuple[int, int]:
    """[start, end) of the target in this file."""
    size = len(buf)
    if size < 12:
        raise MutationError(f"a {size}-byte file has no regions")
    if target == "file":
        return 0, size
    if target == "head-magic":
        return 0, 4
    if target == "footer-length":
        return size - 8, size - 4
    if target == "tail-magic":
        return size - 4, size
    if target == "footer":
        try:
            offset, length = read_tail(buf)
        except FooterError as e:
            raise MutationError(str(e)) from None
        return offset, offset + length
    if target == "extension":
        try:
            found = read_footer(buf)[0].extensions(include_pages=False)
        except (FooterError, ThriftError) as e:
            raise MutationError(f"no extensions: {e}") from None
        if not found or not found[which % len(found)].length:
            raise MutationError("no extension payload in this file")
        ext = found[which % len(found)]
        return ext.offset, ext.offset + ext.length
    if target == "flatbuffer":
        located = profiles.locate(buf)
        if located is None:
            raise MutationError("no FlatBuffers footer in this file")
        return located.offset, size - 4  # the flatbuffer and its trailer, up to the magic
    _, ref = find_struct(buf, struct, which)
    if target == "struct":
        return ref.node.start, ref.node.end
    f = find_field(ref, field)
    if target == "field-header":
        return f.header_start, f.header_end
    if f.header_end == f.end:  # a bool: its value is in its header
        raise MutationError(f"{ref.path}: field {f.id} has no value bytes")
    return f.header_end, f.end


def splice(buf: bytes, start: int, end: int, data: bytes) -> bytes:
    """Replace buf[start:end]. Before the tail, the pointers and lengths follow (layout.move: the data after a page
    header moves with every offset, the footer length grows); in the tail, or in a file whose footer no longer
    decodes, the bytes alone change."""
    if end <= len(buf) - 8:
        try:
            return move(read_footer(buf)[0], [Edit(start, end, data)])
        except (FooterError, ThriftError, ValueError, RuntimeError):  # pointers a fuzzed file no longer keeps
            try:
                return apply_edits(buf, [Edit(start, end, data)])
            except (FooterError, ValueError):
                pass  # no valid tail to fix up: the bytes alone
    return buf[:start] + data + buf[end:]


@dataclass(frozen=True)
class Located(Mutation):
    """The region fields every byte-level step shares."""

    target: Target
    struct: str = "FileMetaData"
    which: int = 0
    field: int = 0
    offset: int = 0

    def check(self) -> None:
        if min(self.which, self.field, self.offset) < 0:
            raise MutationError(f"{self.name}: which, field and offset are not negative")

    def at(self, buf: bytes) -> tuple[int, int, int]:
        """(region start, region end, the position `offset` picks in it)."""
        start, end = region(buf, self.target, self.struct, self.which, self.field)
        if end <= start:
            raise MutationError(f"{self.name}: the {self.target} region is empty")
        return start, end, start + self.offset % (end - start)


@register("flip_bits")
@dataclass(frozen=True)
class FlipBits(Located):
    """XOR one byte of the region with `mask`."""

    mask: int = 1

    def check(self) -> None:
        super().check()
        if not 1 <= self.mask <= 255:
            raise MutationError(f"flip_bits: mask {self.mask} is not in 1..255")

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        _, _, pos = self.at(buf)
        out = bytearray(buf)
        out[pos] ^= self.mask
        return bytes(out)


@register("splice_bytes")
@dataclass(frozen=True)
class SpliceBytes(Located):
    """Delete `delete` bytes at the picked position (not past the region's end) and insert `hex` there; inside
    the footer the footer length is fixed up, so that the edit reaches the footer's decoder."""

    delete: int = 0
    hex: str = ""

    def check(self) -> None:
        super().check()
        if self.delete < 0:
            raise MutationError(f"splice_bytes: delete {self.delete} is negative")
        try:
            bytes.fromhex(self.hex)
        except ValueError:
            raise MutationError("splice_bytes: hex is not hexadecimal") from None

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        _, end, pos = self.at(buf)
        return splice(buf, pos, min(end, pos + self.delete), bytes.fromhex(self.hex))


@register("edit_varint")
@dataclass(frozen=True)
class EditVarint(Mutation):
    """The varint of a field's value (an integer, or a binary's length) rewritten: `overlong` pads it with
    `amount` continuation bytes; `overshoot`/`undershoot` add/subtract `amount`; `overflow32` adds 2**32;
    `negative` writes minus `amount` (zigzag for integers, a 10-byte two's complement length for a binary)."""

    struct: str
    form: VarintEdit
    which: int = 0
    field: int = 0
    amount: int = 1

    def check(self) -> None:
        if min(self.which, self.field) < 0 or not 1 <= self.amount <= 2 ** 40:
            raise MutationError("edit_varint: which and field are not negative, amount is in 1..2**40")

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        _, ref = find_struct(buf, self.struct, self.which)
        ints = [f for f in ref.node.fields if f.type in (thrift.I16, thrift.I32, thrift.I64, thrift.BINARY)]
        if not ints:
            raise MutationError(f"{ref.path}: no integer or binary field")
        f = ints[self.field % len(ints)]
        if f.type == thrift.BINARY:
            value, start = len(f.value), f.header_end
            end = f.end - len(f.value)
        else:
            value, start, end = f.value, f.header_end, f.end
        return splice(buf, start, end, self._varint(value, f.type == thrift.BINARY))

    def _varint(self, value: int, unsigned: bool) -> bytes:
        if self.form == "overlong":
            raw = thrift.uleb(value) if unsigned else thrift.i64_value(value)
            return thrift.uleb(value if unsigned else thrift.zigzag_encode(value), len(raw) + min(self.amount, 8))
        new = {"overshoot": value + self.amount, "undershoot": value - self.amount,
               "overflow32": value + 2 ** 32, "negative": -self.amount}[self.form]
        if unsigned:
            return thrift.uleb(new & (2 ** 64 - 1))
        return thrift.uleb(thrift.zigzag_encode(new) & (2 ** 64 - 1))


class FieldEdit(Mutation):
    """A struct's fields edited as a list and written back by the one field rewriter (edits.rewrite_fields), with
    every header respelled as a compact writer spells it (short form when the id delta allows), so that ids stay
    what they were; the values' bytes are kept as they are."""

    struct: str
    which: int

    def edit(self, fields: list[FieldBytes]) -> tuple[list[FieldBytes], bool]:
        """The new field list, and whether to keep the stop byte."""
        raise NotImplementedError

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        if min(self.which, getattr(self, "field", 0)) < 0:
            raise MutationError(f"{self.name}: negative index")
        footer, ref = find_struct(buf, self.struct, self.which)
        new, stop = self.edit(field_list(buf, ref))
        try:
            return move(footer, [rewrite_fields(buf, ref, new, stop=stop, respell=True)])
        except RuntimeError as e:  # offsets that do not settle: a fuzzed file's pointers overlap
            raise MutationError(f"{self.name}: {e}") from None


def _pick(fields: list[FieldBytes], index: int) -> int:
    if not fields:
        raise MutationError("the struct has no fields")
    return index % len(fields)


@register("insert_field")
@dataclass(frozen=True)
class InsertField(FieldEdit):
    """A field of any id and type nibble with these value bytes, at `position` among the struct's fields."""

    struct: str
    id: int
    type: int
    hex: str = ""
    which: int = 0
    position: int = 0

    def check(self) -> None:
        if not -32768 <= self.id <= 32767 or not 1 <= self.type <= 15 or self.position < 0:
            raise MutationError("insert_field: id is an i16, type a nibble 1..15, position not negative")
        bytes.fromhex(self.hex)

    def edit(self, fields: list[FieldBytes]) -> tuple[list[FieldBytes], bool]:
        at = self.position % (len(fields) + 1)
        return [*fields[:at], FieldBytes(self.id, self.type, bytes.fromhex(self.hex)), *fields[at:]], True


@register("delete_field")
@dataclass(frozen=True)
class DeleteField(FieldEdit):
    """One field of the struct removed (a required one too)."""

    struct: str
    which: int = 0
    field: int = 0

    def edit(self, fields: list[FieldBytes]) -> tuple[list[FieldBytes], bool]:
        at = _pick(fields, self.field)
        return fields[:at] + fields[at + 1:], True


@register("duplicate_field")
@dataclass(frozen=True)
class DuplicateField(FieldEdit):
    """One field of the struct written twice in a row."""

    struct: str
    which: int = 0
    field: int = 0

    def edit(self, fields: list[FieldBytes]) -> tuple[list[FieldBytes], bool]:
        at = _pick(fields, self.field)
        return fields[:at + 1] + fields[at:], True


@register("move_field")
@dataclass(frozen=True)
class MoveField(FieldEdit):
    """One field of the struct moved to another place among them (ids out of ascending order)."""

    struct: str
    which: int = 0
    field: int = 0
    to: int = 0

    def edit(self, fields: list[FieldBytes]) -> tuple[list[FieldBytes], bool]:
        at = _pick(fields, self.field)
        rest = fields[:at] + fields[at + 1:]
        to = self.to % (len(rest) + 1)
        return [*rest[:to], fields[at], *rest[to:]], True


@register("set_wire_type")
@dataclass(frozen=True)
class SetWireType(FieldEdit):
    """One field's type nibble changed (1..15: 14 and 15 are no compact type), its value bytes kept."""

    struct: str
    type: int
    which: int = 0
    field: int = 0

    def check(self) -> None:
        if not 1 <= self.type <= 15:
            raise MutationError(f"set_wire_type: type {self.type} is not a nibble 1..15")

    def edit(self, fields: list[FieldBytes]) -> tuple[list[FieldBytes], bool]:
        at = _pick(fields, self.field)
        return [*fields[:at], FieldBytes(fields[at].id, self.type, fields[at].value), *fields[at + 1:]], True


@register("drop_stop")
@dataclass(frozen=True)
class DropStop(FieldEdit):
    """The struct's stop byte removed: what follows is read as its fields."""

    struct: str
    which: int = 0

    def edit(self, fields: list[FieldBytes]) -> tuple[list[FieldBytes], bool]:
        return fields, False



