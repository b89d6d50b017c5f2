"""Field 32767 in the structs of the footer and in page headers."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Self

from parquet_conformance.generators.parquet.edits import (
    Edit,
    apply_edits,
    before_stop,
    extension_field,
    select,
)
from parquet_conformance.generators.parquet.footer import STRUCT_NAMES
from parquet_conformance.generators.parquet.layout import before_stops, move
from parquet_conformance.generators.parquet.mutations.base import Context, Mutation, register
from parquet_conformance.generators.parquet.strict import parse_file
from parquet_conformance.generators.steps import MutationError

# The UUID that marks this project's opaque test extension (uuid5 of a URL we own by name).
OPAQUE_UUID = uuid.uuid5(uuid.NAMESPACE_URL, "parquet-conformance:opaque-extension").bytes
# Byte sequences that are invalid UTF-8: lone continuation, overlong NUL, surrogate, 5-byte lead.
NON_UTF8 = b"\xff\xfe\x80\xc0\x80\xed\xa0\x80\xf8\x88\x80\x80\x80\xc3"
Header = Literal["spec", "zigzag"]
Which = int | Literal["all"]


@dataclass(frozen=True)
class Payload:
    """`random` (seeded bytes) or `non-utf8` (repeated invalid UTF-8) of `size` bytes, the last 16 of them
    OPAQUE_UUID when `uuid`; or `hex`, exactly those bytes."""

    kind: Literal["random", "non-utf8", "hex"]
    size: int = 0
    uuid: bool = True
    hex: str | None = None

    def __post_init__(self) -> None:
        if (self.kind == "hex") != (self.hex is not None):
            raise MutationError("payload: `hex` goes with kind 'hex' and only with it")
        if self.hex is not None:
            bytes.fromhex(self.hex)
        if self.size < 0:
            raise MutationError(f"payload: negative size {self.size}")

    @classmethod
    def random(cls, size: int, uuid: bool = True) -> Self:
        return cls("random", size, uuid)

    def make(self, ctx: Context) -> bytes:
        if self.hex is not None:
            return bytes.fromhex(self.hex)
        tail = OPAQUE_UUID if self.uuid and self.size >= 16 else b""
        body = self.size - len(tail)
        if self.kind == "random":
            return ctx.rng.randbytes(body) + tail
        return (NON_UTF8 * (body // len(NON_UTF8) + 1))[:body] + tail

    def to_json(self) -> dict[str, Any]:
        if self.hex is not None:
            return {"kind": "hex", "hex": self.hex}
        return {"kind": self.kind, "size": self.size, "uuid": self.uuid}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self:
        try:
            return cls(**obj)
        except TypeError as e:
            raise MutationError(f"payload: {e}") from None


def check_struct_name(struct: str) -> None:
    if struct not in STRUCT_NAMES:
        raise MutationError(f"no struct {struct!r} in parquet.thrift")


@register("extend")
@dataclass(frozen=True)
class Extend(Mutation):
    """Field 32767 (binary) before the stop field of the selected struct(s): the `which`-th of that name in
    walk order (negative from the end) or `all`. `declared_length` and `length_pad` write a wrong or overlong
    ULEB128 length on purpose; `drop_stop` removes the stop field after it."""

    struct: str
    payload: Payload
    which: Which = 0
    header: Header = "zigzag"
    declared_length: int | None = None
    length_pad: int = 0
    drop_stop: bool = False

    def check(self) -> None:
        check_struct_name(self.struct)

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        footer = parse_file(buf)
        body = self.payload.make(ctx)
        data = extension_field(body, self.header, declared_length=self.declared_length, length_pad=self.length_pad)
        refs = select(footer, self.struct, self.which)
        for ref in refs:
            ctx.wrote(ref.name, ref.path, self.header, body)
        return apply_edits(buf, [before_stop(ref, data, drop_stop=self.drop_stop) for ref in refs])


def extend_file_metadata(buf: bytes, ctx: Context, body: bytes, header: str, placement: str) -> bytes:
    """The FileMetaData's extension, in place of its stop byte as the spec writes it (`in-struct`), or
    after it with a second stop byte as the prototypes write it (`after-stop`)."""
    footer = parse_file(buf)
    field_bytes = extension_field(body, header)
    if placement == "after-stop":
        ctx.wrote("FileMetaData", "FileMetaData (after its stop byte)", header, body)
        end = footer.metadata.end
        return apply_edits(buf, [Edit(end, end, field_bytes + b"\x00")])
    ref = select(footer, "FileMetaData", 0)[0]
    ctx.wrote(ref.name, ref.path, header, body)
    return apply_edits(buf, [before_stop(ref, field_bytes)])


@register("extend_after_stop")
@dataclass(frozen=True)
class ExtendAfterStop(Mutation):
    """Field 32767 and a second stop byte *after* the FileMetaData's stop byte, inside the footer length:
    what the Arrow C++ (PR #48431) and arrow-rs (PR #9042) prototypes write."""

    payload: Payload
    header: Header = "spec"

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        return extend_file_metadata(buf, ctx, self.payload.make(ctx), self.header, "after-stop")


@register("extend_page_header")
@dataclass(frozen=True)
class ExtendPageHeader(Mutation):
    """Field 32767 in the first page header of the last column chunk: its own offset does not move, the pages
    after it do (with every offset that points at them, layout.move); the chunk's and row group's totals grow."""

    payload: Payload
    header: Header = "zigzag"

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        body = self.payload.make(ctx)
        footer = parse_file(buf)
        cc = footer.row_groups()[-1].children("columns")[-1]
        (header,) = [r for r in footer.page_headers() if r.path == f"{cc.path}.pages[0]"]
        ctx.wrote("PageHeader", header.path, self.header, body)
        return move(footer, before_stops([header], extension_field(body, self.header)))

