"""Extension profiles that carry a FlatBuffers FileMetaData, written and found from the tail.

- `spec-example` (BinaryProtocolExtensions.md, "Footer", private form; shared/seeds/001, 003):
  inside the FileMetaData 32767 field, `flatbuffer | crc32(flatbuffer) | size | crc32(size) | UUID`.
- `migration` ("For the next N years writers will write both"): the same layout with the
  ratified UUID ("some-other-UUID").
- `par3` ("After the migration period"): `flatbuffer | crc32 | size | crc32(size) | PAR3`, no
  Thrift footer at all.
- `arrow-prototype` (apache/arrow PR #48431 cpp/src/parquet/metadata3.cc at b3f493b0; apache/arrow-rs
  PR #9042 parquet/src/file/metadata/flatbuf/converter.rs at e776d8a3):
  `data | codec | crc32(data + codec) | compressed_len | raw_len | crc32(lens) | UUID`, where data is
  the flatbuffer, raw (codec 0) or LZ4_RAW-compressed (codec 7).

Each profile's flatbuffer follows one revision of the PR #544 schema (flatbuf/README.md): the
PR head for the spec's own profiles, a77d2774 for arrow-prototype, as both prototypes compile it.

All integers little-endian. Which CRC-32 the spec means is unstated; the primary reading is the
zlib one (CRC-32/ISO-HDLC), which both prototypes use; Castagnoli (CRC-32C) is the alternative
(docs/spec-notes.md#crc32). The spec leaves both UUIDs to the implementer; ours are uuid5 names.
"""

from __future__ import annotations

import struct
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import crc32c

from parquet_conformance.generators.parquet.flatbuf.schema import PR_HEAD, PROTOTYPES
from parquet_conformance.generators.parquet.thrift import Buffer

SPEC_EXAMPLE_UUID = uuid.uuid5(uuid.NAMESPACE_URL, "parquet-conformance:flatbuffers-footer:private-v0").bytes
MIGRATION_UUID = uuid.uuid5(uuid.NAMESPACE_URL, "parquet-conformance:flatbuffers-footer:ratified-v1").bytes
ARROW_PROTOTYPE_UUID = bytes.fromhex("deadbeef" * 4)  # metadata3.cc / converter.rs
# The encoding extension (seed 001 "Encoding"): in a ColumnMetaData, where the column's data in a
# new encoding lives: `u64 offset | u64 length | i32 encoding | UUID` (our layout; the spec gives none).
ENCODING_UUID = uuid.uuid5(uuid.NAMESPACE_URL, "parquet-conformance:encoding-extension:v0").bytes
ENCODING_LAYOUT = struct.Struct("<QQi")
BYTE_STREAM_SPLIT = 9  # parquet.thrift Encoding
PAR3 = b"PAR3"
CRCS = {"zlib": zlib.crc32, "castagnoli": crc32c.crc32c}
CODECS = {0: "uncompressed", 7: "lz4_raw"}  # parquet.thrift CompressionCodec values
# A flatbuffer bigger than this is refused before allocation, as Arrow's prototype does (128 MiB).
MAX_FLATBUFFER = 128 << 20


def crc32(data: bytes, kind: str = "zlib") -> int:
    return CRCS[kind](data) & 0xFFFFFFFF


def _u32(n: int) -> bytes:
    return struct.pack("<I", n)


def encoding_payload(offset: int, length: int, encoding: int = BYTE_STREAM_SPLIT) -> bytes:
    return ENCODING_LAYOUT.pack(offset, length, encoding) + ENCODING_UUID


def parse_encoding_payload(payload: bytes) -> tuple[int, int, int] | None:
    """(offset, length, encoding), or None if the payload is not ours."""
    if len(payload) != ENCODING_LAYOUT.size + 16 or payload[-16:] != ENCODING_UUID:
        return None
    return ENCODING_LAYOUT.unpack(payload[:ENCODING_LAYOUT.size])


def spec_trailer(fb: bytes, crc: str = "zlib") -> bytes:
    """`flatbuffer | crc32(flatbuffer) | size | crc32(size)`: the 12 bytes after the flatbuffer
    that let a reader check the size before it trusts it."""
    size = _u32(len(fb))
    return fb + _u32(crc32(fb, crc)) + size + _u32(crc32(size, crc))


def spec_example_payload(fb: bytes, uuid_: bytes = SPEC_EXAMPLE_UUID, crc: str = "zlib") -> bytes:
    return spec_trailer(fb, crc) + uuid_


def par3_tail(fb: bytes, crc: str = "zlib") -> bytes:
    return spec_trailer(fb, crc) + PAR3


def arrow_prototype_payload(fb: bytes, codec: int = 0) -> bytes:
    import pyarrow as pa

    data = fb if codec == 0 else pa.compress(fb, codec=CODECS[codec], asbytes=True)
    body = data + bytes([codec])
    lens = _u32(len(data)) + _u32(len(fb))
    return body + _u32(crc32(body)) + lens + _u32(crc32(lens)) + ARROW_PROTOTYPE_UUID


# The schema revision each profile's flatbuffer is written and read with.
REVISION = {"spec-example": PR_HEAD, "migration": PR_HEAD, "par3": PR_HEAD, "arrow-prototype": PROTOTYPES}


class ProfileError(ValueError):
    """A recognized trailer that cannot be trusted (bad CRC, size out of bounds, ...)."""


@dataclass
class Located:
    profile: str  # spec-example | migration | arrow-prototype | par3
    flatbuffer: bytes
    offset: int  # of the flatbuffer (or compressed data) in the file
    crc: str  # which CRC-32 matched

    @property
    def revision(self) -> str:
        return REVISION[self.profile]


UUID_PROFILES = {SPEC_EXAMPLE_UUID: "spec-example", MIGRATION_UUID: "migration",
                 ARROW_PROTOTYPE_UUID: "arrow-prototype"}
ReadAt = Callable[[int, int], bytes]  # (offset, length) -> the file's bytes there


def locate(buf: Buffer, crcs: tuple[str, ...] = ("zlib",)) -> Located | None:
    return locate_at(lambda offset, n: bytes(buf[offset:offset + n]), len(buf), crcs)


def locate_at(read: ReadAt, size: int, crcs: tuple[str, ...] = ("zlib",)) -> Located | None:
    """Finds a FlatBuffers footer by reading the file backwards from its end, never the Thrift
    before it: two small reads for the trailer, one for the flatbuffer.

    Returns None when the tail carries no known profile (an unknown UUID included); raises
    ProfileError when it does but the trailer fails a check. The size is used only after its
    own CRC matched, so flipped bits in it never make us read outside the footer.
    """
    if size < 12 + 16:
        return None
    tail = read(size - 25, 25)  # UUID | stop byte | footer length | magic
    if tail[-4:] == PAR3:
        return _spec_layout(read, size - 4, 4, "par3", crcs)
    if tail[-4:] != b"PAR1" or tail[16] != 0:
        return None
    (footer_len,) = struct.unpack("<I", tail[17:21])
    footer_start = size - 8 - footer_len
    profile = UUID_PROFILES.get(tail[:16])
    if profile is None:
        return None
    if footer_start < 4:
        raise ProfileError(f"footer length {footer_len} does not fit the file")
    if profile == "arrow-prototype":
        return _arrow_layout(read, size - 25, footer_start)
    return _spec_layout(read, size - 25, footer_start, profile, crcs)


def _spec_layout(read: ReadAt, end: int, floor: int, profile: str, crcs: tuple[str, ...]) -> Located:
    """`flatbuffer | crc(fb) | size | crc(size)` ending at `end`; nothing may start before `floor`."""
    if end - 12 < floor:
        raise ProfileError("trailer does not fit")
    trailer = read(end - 12, 12)
    crc_fb, size_raw, crc_size = struct.unpack("<I", trailer[:4])[0], trailer[4:8], trailer[8:]
    (want_size,) = struct.unpack("<I", crc_size)
    kind = next((k for k in crcs if crc32(size_raw, k) == want_size), None)
    if kind is None:
        raise ProfileError("crc32 of the size does not match: the size cannot be trusted")
    (size,) = struct.unpack("<I", size_raw)
    start = end - 12 - size
    if size > MAX_FLATBUFFER or start < floor:
        raise ProfileError(f"flatbuffer size {size} reaches outside the footer")
    fb = read(start, size)
    if crc32(fb, kind) != crc_fb:
        raise ProfileError("crc32 of the flatbuffer does not match")
    return Located(profile, fb, start, kind)


def _arrow_layout(read: ReadAt, end: int, floor: int) -> Located:
    """`data | codec | crc(data+codec) | compressed_len | raw_len | crc(lens)` ending at `end`."""
    if end - 17 < floor:
        raise ProfileError("trailer does not fit")
    trailer = read(end - 16, 16)  # crc(data+codec) | compressed_len | raw_len | crc(lens)
    lens, crc_lens = trailer[4:12], struct.unpack("<I", trailer[12:])[0]
    if crc32(lens) != crc_lens:
        raise ProfileError("crc32 of the lengths does not match")
    comp_len, raw_len = struct.unpack("<II", lens)
    codec_at = end - 17
    start = codec_at - comp_len
    if comp_len > MAX_FLATBUFFER or raw_len > MAX_FLATBUFFER or start < floor:
        raise ProfileError(f"compressed length {comp_len} reaches outside the footer")
    body = read(start, comp_len + 1)
    if crc32(body) != struct.unpack("<I", trailer[:4])[0]:
        raise ProfileError("crc32 of the flatbuffer does not match")
    codec = body[-1]
    if codec not in CODECS:
        raise ProfileError(f"unknown codec {codec}")
    data = body[:-1]
    if codec:
        import pyarrow as pa

        try:
            data = pa.decompress(data, decompressed_size=raw_len, codec=CODECS[codec], asbytes=True)
        except (OSError, ValueError) as e:
            raise ProfileError(f"flatbuffer does not decompress: {e}") from None
    if len(data) != raw_len:
        raise ProfileError(f"flatbuffer is {len(data)} bytes, the trailer says {raw_len}")
    return Located("arrow-prototype", data, start, "zlib")


# -- a vendor's extension framed as a profile frames it (`parquet-conformance extend`, docs/extending.md) -------

# The framings `extend --profile` writes: the spec's Footer example (and its migration form), and the prototypes'.
# par3 is a file tail, not an extension; the encoding profile's payload has a fixed layout (encoding_payload).
FRAMINGS = ("spec-example", "migration", "arrow-prototype")
PROFILE_UUIDS = {name: raw for raw, name in UUID_PROFILES.items()}
KNOWN_UUIDS = {**UUID_PROFILES, ENCODING_UUID: "encoding"}


def frame(payload: bytes, profile: str | None = None, uuid_: bytes | None = None, crc: str = "zlib") -> bytes:
    """The extension bytes for `payload`: raw, or followed by `uuid_`, or framed as `profile` frames its flatbuffer
    (the trailer, then `uuid_` or the profile's own UUID). For spec-example and migration, as the spec's Footer
    example: `payload | crc32(payload) | size | crc32(size) | UUID` (K + 28 bytes); for arrow-prototype:
    `payload | codec 0 | crc32(payload + codec) | size | size | crc32(sizes) | UUID`."""
    if uuid_ is not None and len(uuid_) != 16:
        raise ValueError(f"a UUID is 16 bytes, not {len(uuid_)}")
    if profile is None:
        return payload + (uuid_ or b"")
    if profile not in FRAMINGS:
        raise ValueError(f"no extension framing {profile!r}; known: {', '.join(FRAMINGS)}")
    tag = uuid_ or PROFILE_UUIDS[profile]
    if profile == "arrow-prototype":
        if crc != "zlib":
            raise ValueError("arrow-prototype framing uses the zlib CRC-32 only")
        return arrow_prototype_payload(payload)[:-16] + tag
    return spec_trailer(payload, crc) + tag


@dataclass(frozen=True)
class Framing:
    """What the end of an extension's payload says about its framing (`inspect`).

    `profile`: the profile its trailing UUID names, if any. `layout`: the trailer checked (`spec`: crc32 | size |
    crc32(size) before the UUID, as the spec's Footer example; `arrow-prototype`; `encoding`: the encoding
    extension's fixed layout). `ok`: whether it checks (None: nothing to check: no known UUID and no trailer found
    under an unknown one). `crc`: the CRC-32 that matched (zlib or castagnoli)."""

    profile: str | None = None
    layout: str | None = None
    ok: bool | None = None
    crc: str | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"profile": self.profile, "framing": self.layout, "framing_ok": self.ok, "framing_crc": self.crc,
                "framing_error": self.error}


def check_framing(payload: bytes) -> Framing:
    """The framing of one extension payload, checked from its end as a reverse parser would: the trailer must
    account for every byte before the UUID (the spec's ULEB128(K+28)). Under an unknown UUID the spec's trailer,
    then the prototypes', are tried: a vendor's own UUID with a profile's framing still checks."""
    if len(payload) < 16:
        return Framing()
    tag, body = payload[-16:], payload[:-16]
    profile = KNOWN_UUIDS.get(tag)
    if profile == "encoding":
        ok = len(body) == ENCODING_LAYOUT.size
        return Framing(profile, "encoding", ok, None,
                       None if ok else f"{len(body)} bytes before the UUID, the layout has {ENCODING_LAYOUT.size}")
    layouts = (("arrow-prototype",) if profile == "arrow-prototype" else ("spec",)) if profile else (
        "spec", "arrow-prototype")
    for layout in layouts:
        try:
            crc = _whole(body, layout)
        except ProfileError as e:
            if profile is not None:
                return Framing(profile, layout, False, None, str(e))
            continue
        return Framing(profile, layout, True, crc)
    return Framing()


def _whole(body: bytes, layout: str) -> str:
    """The CRC kind of a trailer that frames all of `body`; ProfileError if it does not."""
    read: ReadAt = lambda offset, n: body[offset:offset + n]  # noqa: E731
    found = (_arrow_layout(read, len(body), 0) if layout == "arrow-prototype"
             else _spec_layout(read, len(body), 0, "spec-example", ("zlib", "castagnoli")))
    if found.offset != 0:
        raise ProfileError(f"the trailer frames {len(body) - found.offset} of the {len(body)} bytes before the UUID")
    return found.crc
