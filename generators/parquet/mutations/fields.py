"""Fields other than a binary 32767: fields of any wire type under any id (unknown fields, and 32767 under another
type), optional fields taken out, values rewritten (enums out of range, flipped CRCs), statistics swapped, unions
given other members.

Each reads the footer as Thrift does (footer.read_footer), so that steps can follow one another on a file the
strict decoder already refuses. A page-header struct (edits.PAGE_STRUCTS) is edited in the `page`-th page of the
last column chunk; the data after it moves with every offset and length that points at it (layout.move).
"""

from __future__ import annotations

import struct as _struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from parquet_conformance.generators.parquet import layout, thrift
from parquet_conformance.generators.parquet.edits import (
    PAGE_STRUCTS,
    Edit,
    FieldBytes,
    field_list,
    remove_fields,
    rewrite_fields,
    select,
    struct_edits,
    write_fields,
)
from parquet_conformance.generators.parquet.footer import (
    EXTENSION_ID,
    SCHEMA,
    UNIONS,
    ParquetFooter,
    StructRef,
    field_id,
    read_footer,
)
from parquet_conformance.generators.parquet.layout import move
from parquet_conformance.generators.parquet.mutations.base import Context, Mutation, register
from parquet_conformance.generators.parquet.mutations.extension import Which, check_struct_name
from parquet_conformance.generators.steps import MutationError

# The same text as valid UTF-8 and with one byte made invalid (0xFF never occurs in UTF-8): equal lengths, so that a
# pair of cases differs in that byte alone.
UTF8_TEXT = "storage checklist: Grüße, 日本語, ✓".encode()
NON_UTF8_TEXT = UTF8_TEXT[:8] + b"\xff" + UTF8_TEXT[9:]
_NESTED = (  # struct { 1: list<struct{1: i32}>, 2: map<binary, list<i64>>, 3: struct { 1: bool, 2: double } }
    thrift.field_header(thrift.LIST, 1) + bytes([0x20 | thrift.STRUCT])
    + thrift.field_header(thrift.I32, 1) + thrift.i64_value(1) + b"\x00"
    + thrift.field_header(thrift.I32, 1) + thrift.i64_value(-2) + b"\x00"
    + thrift.field_header(thrift.MAP, 2, 1) + thrift.uleb(1) + bytes([thrift.BINARY << 4 | thrift.LIST])
    + thrift.uleb(1) + b"k" + bytes([0x10 | thrift.I64]) + thrift.i64_value(2**40)
    + thrift.field_header(thrift.STRUCT, 3, 2) + thrift.field_header(thrift.TRUE, 1)
    + thrift.field_header(thrift.DOUBLE, 2, 1) + _struct.pack("<d", -0.5) + b"\x00"
    + b"\x00"
)
TYPED_VALUES = {  # a well-formed Thrift value of each wire type
    "bool": (thrift.TRUE, b""),
    "bool-false": (thrift.FALSE, b""),
    "i8": (thrift.BYTE, b"\x80"),
    "i16": (thrift.I16, thrift.i64_value(-300)),
    "i32": (thrift.I32, thrift.i64_value(7)),
    "i64": (thrift.I64, thrift.i64_value(2 ** 40)),
    "double": (thrift.DOUBLE, _struct.pack("<d", 1.5)),
    "binary-utf8": (thrift.BINARY, thrift.uleb(len(UTF8_TEXT)) + UTF8_TEXT),
    "binary-non-utf8": (thrift.BINARY, thrift.uleb(len(NON_UTF8_TEXT)) + NON_UTF8_TEXT),
    "uuid": (thrift.UUID, bytes(range(16))),
    "struct": (thrift.STRUCT, thrift.binary_field(1, b"abc") + b"\x00"),
    "nested": (thrift.STRUCT, _NESTED),
    "list": (thrift.LIST, bytes([0x20 | thrift.BINARY]) + thrift.uleb(1) + b"a" + thrift.uleb(1) + b"b"),
    "set": (thrift.SET, bytes([0x30 | thrift.I32]) + b"".join(thrift.i64_value(v) for v in (1, -1, 300))),
    "map": (thrift.MAP, thrift.uleb(2) + bytes([thrift.BINARY << 4 | thrift.I32])
            + thrift.uleb(1) + b"a" + thrift.i64_value(1) + thrift.uleb(1) + b"b" + thrift.i64_value(-1)),
}
TypedValue = Literal["bool", "bool-false", "i8", "i16", "i32", "i64", "double", "binary-utf8", "binary-non-utf8",
                     "uuid", "struct", "nested", "list", "set", "map"]
WIRE = {"i16": thrift.I16, "i32": thrift.I32, "i64": thrift.I64, "binary": thrift.BINARY}


def _check_fields(struct: str, names: tuple[str, ...]) -> None:
    known = {name for name, _ in SCHEMA.get(struct, {}).values()}
    if unknown := [n for n in names if n not in known]:
        raise MutationError(f"parquet.thrift {struct} has no field {unknown[0]!r}")


@register("add_typed_field")
@dataclass(frozen=True)
class AddTypedField(Mutation):
    """A field of any wire type under any id (long-form header) before the stop byte of the selected struct(s):
    32767 with a type other than binary, or a field no parquet.thrift version defines. With `hex` (the value's
    encoded bytes, of `type`'s wire type): a field a later or proposed parquet.thrift defines, with its value (a
    nan_count, FileMetaData field 10 of PR #581 or #582, SchemaElement.vector_length of PR #592), placed in id order
    and the struct's headers written as a compact writer writes them, so that a field a writer wrote and the base
    left out comes back byte for byte. A struct only the page level holds (the page index, bloom filter headers) is
    chosen in file order (layout.select)."""

    struct: str
    type: TypedValue
    which: Which = 0
    field_id: int = EXTENSION_ID
    page: int = 0
    hex: str | None = None

    def check(self) -> None:
        check_struct_name(self.struct)
        if not -(1 << 15) <= self.field_id < 1 << 15:
            raise MutationError(f"add_typed_field: field id {self.field_id} is not an i16")
        if self.hex is not None:
            try:
                bytes.fromhex(self.hex)
            except ValueError:
                raise MutationError("add_typed_field: hex is not hexadecimal") from None

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        ftype, value = TYPED_VALUES[self.type]
        if self.hex is not None:
            value = bytes.fromhex(self.hex)
        footer, _ = read_footer(buf)
        added = FieldBytes(self.field_id, ftype, value)

        def add(ref: StructRef) -> list[Edit]:
            fields = field_list(buf, ref)
            if self.hex is None:
                return [rewrite_fields(buf, ref, [*fields, added])]
            at = next((i for i, f in enumerate(fields) if f.id > self.field_id), len(fields))
            return [rewrite_fields(buf, ref, [*fields[:at], added, *fields[at:]], respell=True)]

        if _outside_footer(footer, self.struct):  # the page index, bloom filter headers: in file order

            return move(footer, [e for ref in layout.select(footer, self.struct, self.which) for e in add(ref)])
        return move(footer, struct_edits(footer, self.struct, self.which, add,
                                         self.page))


def _outside_footer(footer: ParquetFooter, struct: str) -> bool:
    """A struct that only the page level holds (ColumnIndex, BloomFilterHeader, ...), not a page header's: those are
    chosen by `page` (edits.struct_edits)."""
    return struct not in PAGE_STRUCTS and struct not in {r.name for r in footer.structs()}


@register("remove_fields")
@dataclass(frozen=True)
class RemoveFields(Mutation):
    """Take fields (by parquet.thrift name) out of the selected struct(s); with `which` "all", out of every one that
    has them."""

    struct: str
    fields: tuple[str, ...]
    which: Which = 0
    page: int = 0

    def check(self) -> None:
        check_struct_name(self.struct)
        _check_fields(self.struct, self.fields)

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        footer, _ = read_footer(buf)

        def remove(ref: StructRef) -> list[Edit]:
            """With `which` "all", the structs that have the fields (a root SchemaElement has no converted_type)."""
            if self.which == "all" and any(ref.node.get(field_id(ref.name, n)) is None for n in self.fields):
                return []
            return [remove_fields(buf, ref, self.fields)]

        edits = struct_edits(footer, self.struct, self.which, remove, self.page)
        if not edits:
            raise ValueError(f"no {self.struct} has {', '.join(self.fields)}")
        return move(footer, edits)


@register("set_field")
@dataclass(frozen=True)
class SetField(Mutation):
    """Rewrite an integer or binary field of the selected struct(s) in place, keeping its wire type: to `value`
    (an integer, or hex for a binary), or XOR `xor` into an integer; `index` rewrites one element of a list<i32>."""

    struct: str
    field: str
    which: Which = 0
    value: int | str | None = None
    xor: int | None = None
    index: int | None = None
    page: int = 0

    def check(self) -> None:
        check_struct_name(self.struct)
        _check_fields(self.struct, (self.field,))
        if (self.value is None) == (self.xor is None):
            raise MutationError("set_field takes exactly one of value and xor")
        if isinstance(self.value, str):
            try:
                bytes.fromhex(self.value)
            except ValueError:
                raise MutationError("set_field: a string value is hex for a binary field") from None

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        footer, _ = read_footer(buf)
        return move(footer, struct_edits(footer, self.struct, self.which, self._rewrite, self.page))

    def _rewrite(self, ref: StructRef) -> list[Edit]:
        f = ref.get(self.field)
        if f is None:
            raise ValueError(f"{ref.path}: no {self.field} to rewrite")
        decl = next(t for name, t in SCHEMA[ref.name].values() if name == self.field)
        if self.index is not None:
            items = list(f.value)
            items[self.index] = self._new(items[self.index])
            return [Edit(f.header_end, f.end, thrift.encode_value(thrift.LIST, (thrift.I32, items)))]
        if decl not in WIRE:
            raise ValueError(f"{ref.path}.{self.field}: set_field rewrites integers and binaries, not {decl}")
        return [Edit(f.header_end, f.end, thrift.encode_value(WIRE[decl], self._new(f.value)))]

    def _new(self, old: int | bytes) -> int | bytes:
        if self.xor is not None:
            return int(old) ^ self.xor
        return bytes.fromhex(self.value) if isinstance(self.value, str) else self.value  # type: ignore[return-value]


@register("swap_min_max")
@dataclass(frozen=True)
class SwapMinMax(Mutation):
    """Swap min_value and max_value (and the deprecated min and max, where present) of the selected Statistics:
    statistics whose minimum is above their maximum."""

    which: Which = 0

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        footer, _ = read_footer(buf)
        return move(footer, struct_edits(footer, "Statistics", self.which, _swapped))


def _swapped(ref: StructRef) -> list[Edit]:
    edits = []
    for lo_name, hi_name in (("min_value", "max_value"), ("min", "max")):
        lo, hi = ref.get(lo_name), ref.get(hi_name)
        if lo is None or hi is None:
            continue
        edits += [Edit(lo.header_end, lo.end, thrift.encode_value(thrift.BINARY, hi.value)),
                  Edit(hi.header_end, hi.end, thrift.encode_value(thrift.BINARY, lo.value))]
    if not edits:
        raise ValueError(f"{ref.path}: no min_value and max_value to swap")
    return edits


@dataclass(frozen=True)
class UnionMember:
    """One field of a union as set_union writes it: its id, and its value as hex (a struct's bytes, stop byte
    included), or None to keep the value the union holds under that id."""

    id: int
    hex: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "hex": self.hex}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> UnionMember:
        return cls(**obj)


@register("set_union")
@dataclass(frozen=True)
class SetUnion(Mutation):
    """Give the union in `field` of the selected `struct` exactly `members`, in that order (an unknown id, two
    members, none): footer.UNIONS, docs/spec-notes.md#unions. A union the struct lacks is added before its stop
    byte; `index` picks one union of a list (FileMetaData.column_orders). The bloom filter header's unions, outside
    the footer, are found in file order (layout.select); the data after them moves (layout.move)."""

    struct: str
    field: str
    members: tuple[UnionMember, ...]
    which: Which = 0
    index: int | None = None

    def check(self) -> None:
        check_struct_name(self.struct)
        _check_fields(self.struct, (self.field,))
        union = next(t for name, t in SCHEMA[self.struct].values() if name == self.field)
        if union.removeprefix("list<").removesuffix(">") not in UNIONS:
            raise MutationError(f"set_union: {self.struct}.{self.field} is a {union}, not a union")
        if union.startswith("list<") != (self.index is not None):
            raise MutationError(f"set_union: {self.struct}.{self.field} needs `index` exactly when it is a list")
        for m in self.members:
            if not -(1 << 15) <= m.id < 1 << 15:
                raise MutationError(f"set_union: member id {m.id} is not an i16")
            if m.hex is not None:
                try:
                    bytes.fromhex(m.hex)
                except ValueError:
                    raise MutationError(f"set_union: member {m.id}: hex is not hexadecimal") from None

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        footer, _ = read_footer(buf)
        outside = _outside_footer(footer, self.struct)
        refs = layout.select(footer, self.struct, self.which) if outside else select(footer, self.struct, self.which)
        return move(footer, [e for ref in refs for e in self._rewrite(buf, ref)])

    def _rewrite(self, buf: bytes, ref: StructRef) -> list[Edit]:
        """Through the one field rewriter: the union's members written as a compact writer writes them; a union
        the struct lacks added as a new struct field."""
        fid = field_id(ref.name, self.field)
        f = ref.get(self.field)
        if f is None and self.index is None:
            body = write_fields(self._members(buf, None), respell=True) + b"\x00"
            return [rewrite_fields(buf, ref, [*field_list(buf, ref), FieldBytes(fid, thrift.STRUCT, body)])]
        if f is None:
            raise ValueError(f"{ref.path}: no {self.field}")
        node = f.value if self.index is None else f.value[self.index]
        decl = next(t for name, t in SCHEMA[ref.name].values() if name == self.field)
        union = StructRef(decl.removeprefix("list<").removesuffix(">"), f"{ref.path}.{self.field}", node)
        return [rewrite_fields(buf, union, self._members(buf, node), respell=True)]

    def _members(self, buf: bytes, union: thrift.Struct | None) -> list[FieldBytes]:
        out = []
        for m in self.members:
            if m.hex is not None:
                value = bytes.fromhex(m.hex)
            else:
                kept = union.get(m.id) if union is not None else None
                if kept is None or kept.type != thrift.STRUCT:
                    raise ValueError(f"set_union: the union holds no member {m.id} to keep")
                value = bytes(buf[kept.header_end:kept.end])
            out.append(FieldBytes(m.id, thrift.STRUCT, value))
        return out
