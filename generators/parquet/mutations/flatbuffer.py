"""FlatBuffers FileMetaData footers (generators/parquet/flatbuf) framed as a profile
(generators/parquet/profiles), and damage to their trailers."""

from __future__ import annotations

import hashlib
import struct as _struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Self

from parquet_conformance.generators.parquet import profiles
from parquet_conformance.generators.parquet.edits import apply_edits, set_i64
from parquet_conformance.generators.parquet.footer import FIELD_IDS, read_footer
from parquet_conformance.generators.parquet.mutations.base import Context, Mutation, register
from parquet_conformance.generators.parquet.mutations.extension import Header, extend_file_metadata
from parquet_conformance.generators.parquet.strict import parse_file
from parquet_conformance.generators.parquet.thrift import Struct
from parquet_conformance.generators.steps import MutationError


@dataclass(frozen=True)
class MetadataEdit:
    """Add `delta` to the integer `field` of the struct at `path` (as footer.structs() names it), in the
    metadata the flatbuffer is made from: for flatbuffers that disagree with the Thrift footer."""

    path: str
    struct: str
    field: str
    delta: int

    def __post_init__(self) -> None:
        if self.field not in FIELD_IDS.get(self.struct, {}):
            raise MutationError(f"metadata edit: parquet.thrift {self.struct} has no field {self.field!r}")

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "struct": self.struct, "field": self.field, "delta": self.delta}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self:
        return cls(**obj)


def _edited_metadata(buf: bytes, edits: tuple[MetadataEdit, ...]) -> Struct:
    footer = parse_file(buf)
    if not edits:
        return footer.metadata
    refs = {r.path: r for r in footer.structs()}
    changes = [set_i64(refs[e.path], e.field, refs[e.path].value(e.field) + e.delta) for e in edits]
    # decoded without the consistency checks: disagreeing with itself may be the point
    return read_footer(apply_edits(buf, changes))[0].metadata


@register("add_flatbuffer_footer")
@dataclass(frozen=True)
class AddFlatbufferFooter(Mutation):
    """The FlatBuffers FileMetaData of this file, in the profile's schema revision (profiles.REVISION), framed as
    `profile`, inside field 32767 of the FileMetaData (`in-struct`), after its stop byte (`after-stop`, as the
    prototypes write it), or, for `par3`, in place of the whole Thrift footer. `metadata_edits` make it disagree
    with the Thrift footer."""

    profile: Literal["spec-example", "migration", "arrow-prototype", "par3"]
    header: Header = "spec"
    crc: Literal["zlib", "castagnoli"] = "zlib"
    placement: Literal["in-struct", "after-stop"] = "in-struct"
    codec: int = 0
    uuid_hex: str | None = None
    metadata_edits: tuple[MetadataEdit, ...] = ()

    def check(self) -> None:
        if self.codec not in profiles.CODECS:
            raise MutationError(f"add_flatbuffer_footer: codec {self.codec} is not one of {sorted(profiles.CODECS)}")
        if self.uuid_hex is not None and len(bytes.fromhex(self.uuid_hex)) != 16:
            raise MutationError("add_flatbuffer_footer: uuid_hex is not 16 bytes")

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        # imported here, not at the top: start-up time (only this path needs it)
        from parquet_conformance.generators.parquet.flatbuf.convert import thrift_to_flatbuffer

        fb = thrift_to_flatbuffer(_edited_metadata(buf, self.metadata_edits), profiles.REVISION[self.profile])
        if self.profile == "par3":
            return buf[:parse_file(buf).footer_offset] + profiles.par3_tail(fb, self.crc)
        if self.profile == "arrow-prototype":
            body = profiles.arrow_prototype_payload(fb, self.codec)
        else:
            default = profiles.MIGRATION_UUID if self.profile == "migration" else profiles.SPEC_EXAMPLE_UUID
            uuid_ = bytes.fromhex(self.uuid_hex) if self.uuid_hex else default
            body = profiles.spec_example_payload(fb, uuid_, self.crc)
        return extend_file_metadata(buf, ctx, body, self.header, self.placement)


@register("damage_flatbuffer_footer")
@dataclass(frozen=True)
class DamageFlatbufferFooter(Mutation):
    """Damage a `flatbuffer | crc(fb) | size | crc(size)` trailer at the end of the file (before UUID + stop
    byte + length + PAR1, or before PAR3), touching nothing else: flip a bit of the flatbuffer, its CRC, the
    size or the size's CRC; or make it unverifiable or oversized with both CRCs valid."""

    what: Literal["flatbuffer-byte", "flatbuffer-crc", "size-crc", "size-bit", "unverifiable", "huge-size"]
    bit: int = 0

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        out = bytearray(buf)
        end = len(buf) - (4 if bytes(buf[-4:]) == profiles.PAR3 else 25)  # end of crc(size)
        crc_size, size_at, crc_fb = end - 4, end - 8, end - 12
        (size,) = _struct.unpack("<I", buf[size_at:size_at + 4])
        fb_start, what, bit = crc_fb - size, self.what, self.bit
        if what == "flatbuffer-byte":
            out[fb_start + size // 2] ^= 1 << bit
        elif what == "flatbuffer-crc":
            out[crc_fb + bit // 8] ^= 1 << (bit % 8)
        elif what == "size-crc":
            out[crc_size + bit // 8] ^= 1 << (bit % 8)
        elif what == "size-bit":
            out[size_at:size_at + 4] = _struct.pack("<I", size ^ (1 << bit))
        else:
            if what == "unverifiable":  # a root offset far past the end, with both CRCs made valid
                out[fb_start:fb_start + 4] = _struct.pack("<I", 0x7FFFFFF0)
            else:  # a size beyond the file, with a valid crc of the size
                out[size_at:size_at + 4] = _struct.pack("<I", len(buf) * 2)
            fb = bytes(out[fb_start:crc_fb])
            out[crc_fb:crc_fb + 4] = _struct.pack("<I", profiles.crc32(fb))
            out[crc_size:crc_size + 4] = _struct.pack("<I", profiles.crc32(bytes(out[size_at:size_at + 4])))
        if ctx.extensions and bytes(buf[-4:]) != profiles.PAR3:  # the payload changed: so does its log entry
            entry = ctx.extensions[-1]
            payload_end = len(out) - 9
            entry["sha256"] = hashlib.sha256(bytes(out[payload_end - entry["length"]:payload_end])).hexdigest()
        return bytes(out)
