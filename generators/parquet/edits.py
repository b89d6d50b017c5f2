"""Writing field 32767 into any struct of a Parquet file without moving its data.

Compact-protocol structs carry no byte length, so bytes inserted before a struct's stop
field shift nothing but what follows inside the footer: only the footer length changes.
Edits inside page headers (struct_edits) do move data: layout.move applies them.
"""

from __future__ import annotations

import struct as _struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from parquet_conformance.generators.parquet import thrift
from parquet_conformance.generators.parquet.footer import (
    HEADER_FORMS,
    ParquetFooter,
    StructRef,
    field_id,
    read_tail,
)

HEADERS = {form: raw for raw, form in HEADER_FORMS.items()}


def extension_field(payload: bytes, header: str = "zigzag", *, declared_length: int | None = None,
                    length_pad: int = 0) -> bytes:
    """`header` is `spec` (08 FF FF 01, as BinaryProtocolExtensions.md writes it) or `zigzag`
    (08 FE FF 03, as a Thrift compiler writes field 32767). `declared_length` and `length_pad`
    write a wrong or overlong ULEB128 length on purpose."""
    length = len(payload) if declared_length is None else declared_length
    return HEADERS[header] + thrift.uleb(length, length_pad) + payload


@dataclass(frozen=True)
class Edit:
    """Replace buf[start:end] with data (start == end inserts)."""
    start: int
    end: int
    data: bytes


def apply_edits(buf: bytes, edits: Iterable[Edit]) -> bytes:
    """Applies non-overlapping edits and rewrites the footer length for those inside the footer."""
    footer_offset, length = read_tail(buf)
    out, pos, grow = [], 0, 0
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        if e.start < pos or e.end > len(buf) - 8:
            raise ValueError(f"edit [{e.start}, {e.end}) overlaps another or the file tail")
        out += [buf[pos:e.start], e.data]
        pos = e.end
        if e.start >= footer_offset:
            grow += len(e.data) - (e.end - e.start)
    out.append(buf[pos:len(buf) - 8])
    return b"".join(out) + _struct.pack("<I", length + grow) + buf[-4:]


def before_stop(ref: StructRef, data: bytes, *, drop_stop: bool = False) -> Edit:
    """Insert `data` before the struct's stop byte (or in place of it)."""
    stop = ref.node.stop_offset
    return Edit(stop, stop + 1 if drop_stop else stop, data)


def select(footer: ParquetFooter, struct: str, which: int | str) -> list[StructRef]:
    """Structs of one kind in walk order: the `which`-th one (negative counts from the end) or `all`."""
    refs = [r for r in footer.structs() if r.name == struct]
    if not refs:
        raise ValueError(f"no {struct} in this file")
    return refs if which == "all" else [refs[int(which)]]


def set_i64(ref: StructRef, field: str, value: int) -> Edit:
    """Rewrite an integer field's value in place (its varint may change length)."""
    f = ref.get(field)
    if f is None:
        raise ValueError(f"{ref.path}: no {field} to rewrite")
    return Edit(f.header_end, f.end, thrift.i64_value(value))


def set_fields(ref: StructRef, values: dict[str, tuple[int, Any]]) -> list[Edit]:
    """Edits that give `ref`'s fields these (wire type, value)s: a field present is rewritten in place (same wire
    type), the others are appended before the stop byte. For annotations pyarrow cannot write."""
    edits, missing = [], []
    for name, (ftype, value) in values.items():
        fid = field_id(ref.name, name)
        if (f := ref.node.get(fid)) is not None:
            if f.type != ftype or ftype in (thrift.TRUE, thrift.FALSE):  # a bool's value is in its header
                raise ValueError(f"{ref.path}.{name}: cannot rewrite a {thrift.TYPE_NAMES[f.type]} in place")
            edits.append(Edit(f.header_end, f.end, thrift.encode_value(ftype, value)))
        else:
            missing.append((fid, ftype, value))
    if missing:
        edits.append(before_stop(ref, thrift.encode_fields(sorted(missing))))
    return edits


def add_i64(ref: StructRef, field: str, delta: int) -> list[Edit]:
    """`set_i64` by a delta, if the field is present."""
    return [set_i64(ref, field, ref.value(field) + delta)] if ref.get(field) is not None else []


# Structs that live in page headers, not in the footer: edited in one page of the last column chunk.
PAGE_STRUCTS = frozenset({"PageHeader", "DataPageHeader", "DictionaryPageHeader", "DataPageHeaderV2"})


def struct_edits(footer: ParquetFooter, struct: str, which: int | str, change: Callable[[StructRef], list[Edit]],
                 page: int = 0) -> list[Edit]:
    """`change` applied to the selected footer structs (select()), or, for a page-header struct, to the first one in
    the `page`-th page header of the last column chunk. Edits inside a page header move the data after it:
    apply them with layout.move, which fixes every offset and length (it applies footer edits as they are)."""
    if struct not in PAGE_STRUCTS:
        return [e for ref in select(footer, struct, which) for e in change(ref)]
    cc = footer.row_groups()[-1].children("columns")[-1]
    header = f"{cc.path}.pages[{page}]"
    refs = [r for r in footer.page_headers() if r.name == struct and (r.path == header or
                                                                      r.path.startswith(f"{header}."))]
    if not refs:
        raise ValueError(f"{header} has no {struct}")
    return change(refs[0])


# -- the one Thrift field rewriter: a struct's fields as a list, edited, written back ---------------------------


@dataclass(frozen=True)
class FieldBytes:
    """A field of a struct as bytes: its id, type nibble and value bytes, and, for a field read from the file, its
    header as it was and the id of the field before it (a short header's delta counts from that one)."""

    id: int
    type: int
    value: bytes
    header: bytes | None = None  # None: a new field
    after: int | None = None


def field_list(buf: bytes, ref: StructRef) -> list[FieldBytes]:
    out, last = [], 0
    for f in ref.node.fields:
        out.append(FieldBytes(f.id, f.type, bytes(buf[f.header_end:f.end]), bytes(buf[f.header_start:f.header_end]),
                              last))
        last = f.id
    return out


def write_fields(fields: list[FieldBytes], *, respell: bool = False) -> bytes:
    """Fields as bytes (no stop byte): a field keeps its header as it was while that header still names its id (a
    long form, or a short delta after the same field); else, and for a new field, its header is written anew: in
    long form (the id absolute), or with `respell` in short form where the delta allows (as a compact writer
    does)."""
    out, last = bytearray(), 0
    for f in fields:
        keep = f.header is not None and (f.after == last or (f.header[0] >> 4) == 0)
        if respell:
            out += thrift.field_header(f.type, f.id, last)
        elif keep:
            assert f.header is not None
            out += f.header
        else:
            out += thrift.field_header(f.type, f.id, long_form=True)
        out += f.value
        last = f.id
    return bytes(out)


def rewrite_fields(buf: bytes, ref: StructRef, fields: list[FieldBytes], *, stop: bool = True,
                   respell: bool = False) -> Edit:
    """The struct's field list replaced by `fields` (written by write_fields), as one Edit over the bytes that
    change: what every step that adds, removes, duplicates, moves or retypes fields writes with (the catalog's by
    name, the fuzzer's by position, a union's members). The struct's stop byte stays as it was, or goes with
    `stop=False`."""
    new = write_fields(fields, respell=respell) + (bytes(buf[ref.node.stop_offset:ref.node.end]) if stop else b"")
    old = bytes(buf[ref.node.start:ref.node.end])
    head = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return Edit(ref.node.start + head, ref.node.end - tail, new[head:len(new) - tail])


def remove_fields(buf: bytes, ref: StructRef, names: Iterable[str]) -> Edit:
    """The edit that takes these fields (by parquet.thrift name) out of the struct. The field after a removed one
    gets a long-form header (its id absolute), since a short-form delta counted from the removed field would name
    another id."""
    ids = {field_id(ref.name, name) for name in names}
    if missing := ids - {f.id for f in ref.node.fields}:
        raise ValueError(f"{ref.path}: no field {sorted(missing)[0]} to remove")
    return rewrite_fields(buf, ref, [f for f in field_list(buf, ref) if f.id not in ids])
