"""The PARX framing of the Thrift footer: apache/parquet-format PR #588 "[Draft RFC] PARX footer",
`ParxMagicNumber.md` at d2f51623b169202d78653c1288b07d99366133dc (open; the arrow-rs prototype is apache/arrow-rs
PR #10177, `parquet/src/file/metadata/footer_tail.rs` at d5ed8a70fe365cb323d50d0705c35585d6012a62).

    'PARX' | data | Thrift FileMetaData (metadata_len bytes) | metadata_len i32 | flags u32 | crc32 u32 | 'PARX'

All little-endian. `flags` bit 0 is ENCRYPTED_FOOTER ("equivalent to the PARE format"), bit 1
PATH_IN_SCHEMA_OMITTED ("Column path_in_schema fields are omitted from ColumnChunk metadata"); "All other bits
are reserved and must be zero", and "A reader must reject any file whose flags field contains bits that are
not recognized or not supported". `crc32` is "CRC-32 (ISO 3309 / ITU-T V.42 polynomial, the same used for page
level CRC values)" (zlib's, not Castagnoli's) over the metadata bytes followed by the tail's first 8 bytes; the
CRC and the magic are not covered. A reader checks the flags first, then the CRC, then decrypts.

`unframe` is the aware reading our reference reader does: flags (those in `supported`), the length within the
file, the CRC, then the same file as PAR1 (head and tail magic, 8-byte tail), with path_in_schema written back
from the schema where bit 1 says it was left out. It supports bit 1, not bit 0: it holds no keys, so it must
reject an encrypted footer. A negative metadata_len (the spec's i32) and one of 2^31 or more (the prototype's
u32) are both refused: no file here reaches 2 GiB, where the two readings would part (docs/spec-notes.md#parx).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from parquet_conformance.generators.parquet import thrift
from parquet_conformance.generators.parquet.edits import apply_edits, before_stop
from parquet_conformance.generators.parquet.footer import MAGIC as PAR1
from parquet_conformance.generators.parquet.footer import (
    FooterError,
    SchemaTreeError,
    StructRef,
    field_id,
    read_footer,
    read_tail,
    schema_leaves,
)
from parquet_conformance.generators.parquet.profiles import crc32
from parquet_conformance.generators.parquet.thrift import Buffer

MAGIC = b"PARX"
TAIL = 16
ENCRYPTED_FOOTER, PATH_IN_SCHEMA_OMITTED = 1 << 0, 1 << 1
FLAG_NAMES = {ENCRYPTED_FOOTER: "ENCRYPTED_FOOTER", PATH_IN_SCHEMA_OMITTED: "PATH_IN_SCHEMA_OMITTED"}
SUPPORTED = PATH_IN_SCHEMA_OMITTED  # what our reader implements (no decryption)
PATH_ID = field_id("ColumnMetaData", "path_in_schema")
_HEAD = struct.Struct("<iI")  # metadata_len, flags: the 8 bytes the CRC covers after the metadata


class ParxError(ValueError):
    """A PARX tail an aware reader must reject: unknown or unsupported flags, a length outside the file, a CRC
    that does not match, or a footer that cannot be unframed."""


@dataclass(frozen=True)
class Tail:
    metadata_len: int  # as the spec's i32: negative when the top bit is set
    flags: int
    crc: int

    @property
    def head(self) -> bytes:
        return _HEAD.pack(self.metadata_len, self.flags)

    def flag_names(self) -> list[str]:
        return [FLAG_NAMES.get(1 << bit, f"bit {bit}") for bit in range(32) if self.flags >> bit & 1]


def tail(metadata: bytes, flags: int = 0, *, crc: str = "zlib") -> bytes:
    """The 16 bytes after `metadata`: its length, the flags, the CRC (zlib's unless `crc` names another) of the
    metadata and those 8 bytes, and the magic."""
    head = _HEAD.pack(len(metadata), flags)
    return head + struct.pack("<I", crc32(metadata + head, crc)) + MAGIC


def frame(par1: bytes, flags: int = 0, *, crc: str = "zlib", head_magic: bytes = MAGIC) -> bytes:
    """A PAR1 file in the PARX framing: the same data and Thrift footer, `head_magic` first, the 16-byte tail last."""
    offset, length = read_tail(par1)
    metadata = par1[offset:offset + length]
    return head_magic + par1[4:offset] + metadata + tail(metadata, flags, crc=crc)


def read_parx_tail(buf: Buffer) -> Tail:
    """The tail's fields, unchecked; ParxError if the file is too small or does not end in PARX."""
    if len(buf) < 4 + TAIL:
        raise ParxError(f"file is {len(buf)} bytes, a PARX file has at least {4 + TAIL}")
    raw = bytes(buf[-TAIL:])
    if raw[12:] != MAGIC:
        raise ParxError(f"file ends with {raw[12:]!r}, not PARX")
    length, flags = _HEAD.unpack(raw[:8])
    return Tail(length, flags, struct.unpack("<I", raw[8:12])[0])


def locate(buf: Buffer, supported: int = SUPPORTED) -> tuple[int, Tail]:
    """(offset of the metadata, tail) after the checks in the spec's order: flags, then (the length within the
    file, which the CRC needs) the CRC."""
    t = read_parx_tail(buf)
    if unknown := t.flags & ~(ENCRYPTED_FOOTER | PATH_IN_SCHEMA_OMITTED):
        raise ParxError(f"flags {t.flags:#010x}: bits {Tail(0, unknown, 0).flag_names()} are reserved (must be zero)")
    if unsupported := t.flags & ~supported:
        raise ParxError(f"flags {t.flags:#010x}: {Tail(0, unsupported, 0).flag_names()} not supported by this reader")
    end = len(buf) - TAIL
    if t.metadata_len < 0:
        raise ParxError(f"metadata_len {t.metadata_len} is negative (an i32; {t.metadata_len & 0xFFFFFFFF} as a u32 "
                        "is past the end of the file either way)")
    if t.metadata_len > end - 4:
        raise ParxError(f"metadata_len {t.metadata_len} does not fit the {len(buf)}-byte file (at most {end - 4})")
    offset = end - t.metadata_len
    actual = crc32(bytes(buf[offset:end]) + t.head)
    if actual != t.crc:
        raise ParxError(f"crc32 {t.crc:#010x} is not the CRC-32 of the footer and the tail's first 8 bytes "
                        f"({actual:#010x})")
    return offset, t


def unframe(buf: Buffer, supported: int = SUPPORTED, *, restore_paths: bool = True) -> tuple[bytes, Tail]:
    """The file as PAR1 after the aware checks (locate), with path_in_schema written back where flag bit 1 says it
    was left out (and `restore_paths`). ParxError if a check fails or the paths cannot be derived."""
    offset, t = locate(buf, supported)
    data = bytes(buf)
    par1 = PAR1 + data[4:offset] + data[offset:len(data) - TAIL] + struct.pack("<I", t.metadata_len) + PAR1
    if t.flags & PATH_IN_SCHEMA_OMITTED and restore_paths:
        par1 = with_paths(par1)
    return par1, t


def with_paths(par1: bytes) -> bytes:
    """path_in_schema written into every ColumnMetaData that lacks it, from the schema (leaf j of the depth-first
    schema list is column chunk j of every row group)."""
    try:
        footer, _ = read_footer(par1)
    except FooterError as e:
        raise ParxError(f"the footer does not decode: {e}") from None
    paths = leaf_paths(footer.root.children("schema"))
    edits = []
    for rg in footer.row_groups():
        for j, cc in enumerate(rg.children("columns")):
            md = cc.child("meta_data")
            if md is None or md.get("path_in_schema") is not None:
                continue
            if j >= len(paths):
                raise ParxError(f"{cc.path}: no leaf column {j} in the schema")
            # before the stop byte, beside any field PATH_ID of another wire type (which Thrift skips, as we do)
            edits.append(before_stop(md, thrift.encode_fields([(PATH_ID, thrift.LIST, (thrift.BINARY, paths[j]))])))
    return apply_edits(par1, edits) if edits else par1


def leaf_paths(schema: list[StructRef]) -> list[list[bytes]]:
    """The path of every leaf of the schema list (footer.schema_leaves); ParxError where it is not one tree."""
    try:
        pairs = [(el.value("name") or b"", el.value("num_children") or 0) for el in schema]
        return [path for _, path in schema_leaves(pairs)]
    except SchemaTreeError as e:
        raise ParxError(str(e)) from None
