"""Transformations: named, JSON-parameterised steps from a base file to a case file.

A case's manifest entry lists its transformations as `{"op": name, **params}`; `apply`
replays them, so the manifest alone says how to rebuild every file.
"""

from __future__ import annotations

import hashlib
import random
import struct as _struct
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from generators import thrift
from generators.extensions import (
    Edit,
    apply_edits,
    before_stop,
    extension_field,
    page_header_extension,
    select,
    typed_field,
)
from generators.footer import decode_footer, parse_file, read_tail

# The UUID that marks this project's opaque test extension (uuid5 of a URL we own by name).
OPAQUE_UUID = uuid.uuid5(uuid.NAMESPACE_URL, "parquet-conformance:opaque-extension").bytes
# Byte sequences that are invalid UTF-8: lone continuation, overlong NUL, surrogate, 5-byte lead.
NON_UTF8 = b"\xff\xfe\x80\xc0\x80\xed\xa0\x80\xf8\x88\x80\x80\x80\xc3"



@dataclass
class Context:
    """Per-case state: the seeded RNG, and a log of the extensions the steps wrote."""
    rng: random.Random
    extensions: list[dict] = field(default_factory=list)

    def wrote(self, struct: str, path: str, header: str, payload: bytes) -> None:
        self.extensions.append({"struct": struct, "path": path, "header": header, "length": len(payload),
                                "sha256": hashlib.sha256(payload).hexdigest()})


Transformation = Callable[..., bytes]
OPS: dict[str, Transformation] = {}


def op(fn: Transformation) -> Transformation:
    OPS[fn.__name__] = fn
    return fn


def payload(spec: dict, rng: random.Random) -> bytes:
    """`{"kind": "random"|"non-utf8", "size": n, "uuid": true|false}` or `{"kind": "hex", "hex": ...}`.
    With a UUID, the last 16 of the `size` bytes are OPAQUE_UUID."""
    if spec["kind"] == "hex":
        return bytes.fromhex(spec["hex"])
    size = spec["size"]
    tail = OPAQUE_UUID if spec.get("uuid", True) and size >= 16 else b""
    body = size - len(tail)
    if spec["kind"] == "random":
        return rng.randbytes(body) + tail
    if spec["kind"] == "non-utf8":
        return (NON_UTF8 * (body // len(NON_UTF8) + 1))[:body] + tail
    raise ValueError(f"unknown payload kind {spec['kind']!r}")


@op
def extend(buf: bytes, ctx: Context, *, struct: str, which: int | str = 0, header: str = "zigzag",
           payload_spec: dict, declared_length: int | None = None, length_pad: int = 0,
           drop_stop: bool = False) -> bytes:
    """Append field 32767 (binary) before the stop field of the selected struct(s)."""
    footer = parse_file(buf)
    body = payload(payload_spec, ctx.rng)
    data = extension_field(body, header, declared_length=declared_length, length_pad=length_pad)
    refs = select(footer, struct, which)
    for ref in refs:
        ctx.wrote(ref.name, ref.path, header, body)
    return apply_edits(buf, [before_stop(ref, data, drop_stop=drop_stop) for ref in refs])


@op
def extend_after_stop(buf: bytes, ctx: Context, *, header: str = "spec", payload_spec: dict) -> bytes:
    """Field 32767 and a second stop byte *after* the FileMetaData's stop byte, inside the footer
    length: what the Arrow C++ (PR #48431) and arrow-rs (PR #9042) prototypes write."""
    return _extend_file_metadata(buf, ctx, payload(payload_spec, ctx.rng), header, "after-stop")


def _extend_file_metadata(buf: bytes, ctx: Context, body: bytes, header: str, placement: str) -> bytes:
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


@op
def extend_page_header(buf: bytes, ctx: Context, *, header: str = "zigzag", payload_spec: dict) -> bytes:
    """Field 32767 in the first page header of the last column chunk (see page_header_extension)."""
    body = payload(payload_spec, ctx.rng)
    edits, path = page_header_extension(parse_file(buf), extension_field(body, header))
    ctx.wrote("PageHeader", path, header, body)
    return apply_edits(buf, edits)


_TYPED_VALUES = {  # field 32767 under other wire types, each a well-formed Thrift value
    "bool": (thrift.TRUE, b""),
    "i32": (thrift.I32, thrift.uleb(thrift.zigzag_encode(7))),
    "i64": (thrift.I64, thrift.uleb(thrift.zigzag_encode(2 ** 40))),
    "double": (thrift.DOUBLE, _struct.pack("<d", 1.5)),
    "struct": (thrift.STRUCT, thrift.binary_field(1, b"abc") + b"\x00"),
    "list": (thrift.LIST, bytes([0x20 | thrift.BINARY]) + thrift.uleb(1) + b"a" + thrift.uleb(1) + b"b"),
}


@op
def add_typed_field(buf: bytes, ctx: Context, *, struct: str, which: int | str = 0, type: str) -> bytes:
    """Field 32767 with a wire type other than binary."""
    ftype, value = _TYPED_VALUES[type]
    footer = parse_file(buf)
    return apply_edits(buf, [before_stop(ref, typed_field(ftype, value)) for ref in select(footer, struct, which)])


@op
def flip_footer_length_bit(buf: bytes, ctx: Context, *, bit: int) -> bytes:
    (length,) = _struct.unpack("<I", buf[-8:-4])
    return buf[:-8] + _struct.pack("<I", length ^ (1 << bit)) + buf[-4:]


@op
def set_footer_length(buf: bytes, ctx: Context, *, value: int | None = None,
                      file_size_minus: int | None = None) -> bytes:
    length = len(buf) - file_size_minus if value is None else value
    return buf[:-8] + _struct.pack("<I", length) + buf[-4:]


@op
def set_tail_magic(buf: bytes, ctx: Context, *, magic: str) -> bytes:
    return buf[:-4] + magic.encode("ascii")


@op
def truncate_in_footer(buf: bytes, ctx: Context, *, fraction: float) -> bytes:
    """Cut the file inside its footer, keeping `fraction` of the footer bytes."""
    offset, length = read_tail(buf)
    return buf[:offset + int(length * fraction)]


@op
def replace_file(buf: bytes, ctx: Context, *, hex: str) -> bytes:
    return bytes.fromhex(hex)


def _edited_metadata(buf: bytes, edits: list[dict]) -> object:
    """The file's FileMetaData after `edits` ({"path": "num_rows" | "row_groups[0].columns[1].meta_data",
    "field": id, "delta": n}) to i64 fields: for flatbuffers that disagree with the Thrift footer."""
    from generators.extensions import set_i64

    footer = parse_file(buf)
    changes = []
    for e in edits:
        ref = next(r for r in footer.structs() if r.path == e.get("path", "FileMetaData"))
        changes.append(set_i64(ref.node, e["field"], ref.node.value(e["field"]) + e["delta"]))
    # decoded without the consistency checks: disagreeing with itself may be the point
    return decode_footer(apply_edits(buf, changes)).metadata if changes else footer.metadata


@op
def add_flatbuffer_footer(buf: bytes, ctx: Context, *, profile: str, header: str = "spec", crc: str = "zlib",
                          placement: str = "in-struct", codec: int = 0, uuid_hex: str | None = None,
                          metadata_edits: tuple = ()) -> bytes:
    """The FlatBuffers FileMetaData of this file (generators.flatbuf), framed as `profile`
    (generators.profiles), inside field 32767 of the FileMetaData, after its stop byte (as the
    prototypes write it), or, for `par3`, in place of the whole Thrift footer."""
    from generators import profiles
    from generators.flatbuf.convert import thrift_to_flatbuffer

    fb = thrift_to_flatbuffer(_edited_metadata(buf, list(metadata_edits)))
    footer = parse_file(buf)
    if profile == "par3":
        return buf[:footer.footer_offset] + profiles.par3_tail(fb, crc)
    if profile == "arrow-prototype":
        body = profiles.arrow_prototype_payload(fb, codec)
    else:
        default = profiles.MIGRATION_UUID if profile == "migration" else profiles.SPEC_EXAMPLE_UUID
        body = profiles.spec_example_payload(fb, bytes.fromhex(uuid_hex) if uuid_hex else default, crc)
    return _extend_file_metadata(buf, ctx, body, header, placement)


@op
def damage_flatbuffer_footer(buf: bytes, ctx: Context, *, what: str, bit: int = 0) -> bytes:
    """Damage a `flatbuffer | crc(fb) | size | crc(size)` trailer at the end of the file (before
    UUID + stop byte + length + PAR1, or before PAR3), without touching anything else."""
    from generators import profiles

    out = bytearray(buf)
    end = len(buf) - (4 if bytes(buf[-4:]) == profiles.PAR3 else 25)  # end of crc(size)
    crc_size, size_at, crc_fb = end - 4, end - 8, end - 12
    (size,) = _struct.unpack("<I", buf[size_at:size_at + 4])
    fb_start = crc_fb - size
    if what == "flatbuffer-byte":
        out[fb_start + size // 2] ^= 1 << bit
    elif what == "flatbuffer-crc":
        out[crc_fb + bit // 8] ^= 1 << (bit % 8)
    elif what == "size-crc":
        out[crc_size + bit // 8] ^= 1 << (bit % 8)
    elif what == "size-bit":
        out[size_at:size_at + 4] = _struct.pack("<I", size ^ (1 << bit))
    elif what in ("unverifiable", "huge-size"):
        if what == "unverifiable":  # a root offset far past the end, with both CRCs made valid
            out[fb_start:fb_start + 4] = _struct.pack("<I", 0x7FFFFFF0)
        else:  # a size beyond the file, with a valid crc of the size
            out[size_at:size_at + 4] = _struct.pack("<I", len(buf) * 2)
        fb = bytes(out[fb_start:crc_fb])
        out[crc_fb:crc_fb + 4] = _struct.pack("<I", profiles.crc32(fb))
        out[crc_size:crc_size + 4] = _struct.pack("<I", profiles.crc32(bytes(out[size_at:size_at + 4])))
    else:
        raise ValueError(f"unknown damage {what!r}")
    if ctx.extensions and bytes(buf[-4:]) != profiles.PAR3:  # the payload changed: so does its log entry
        entry = ctx.extensions[-1]
        payload_end = len(out) - 9
        entry["sha256"] = hashlib.sha256(bytes(out[payload_end - entry["length"]:payload_end])).hexdigest()
    return bytes(out)


@op
def add_encoding_extension(buf: bytes, ctx: Context, *, columns: list[str], header: str = "zigzag",
                           bad_offset: bool = False) -> bytes:
    """Seed 001 "Encoding": the named PLAIN columns also written as BYTE_STREAM_SPLIT, those chunks
    placed at the start of each row group, the old chunks after them (every recorded offset moves
    with them), and in each such ColumnMetaData an extension with the new chunk's offset and length.
    `bad_offset` points the extensions past the end of the file."""
    import io

    import pyarrow.parquet as pq

    from generators import profiles
    from generators.extensions import set_i64
    from generators.footer import chunk_range

    footer = parse_file(buf)
    rgs = footer.metadata.value(4)
    sink = io.BytesIO()
    pq.write_table(pq.read_table(io.BytesIO(buf)), sink, compression="none", use_dictionary=False,
                   data_page_version="1.0", use_byte_stream_split=columns, row_group_size=rgs[0].value(3))
    new = sink.getvalue()
    new_rgs = parse_file(new).metadata.value(4)
    data, size, pos, edits = [b"PAR1"], 4, 4, []

    def put(chunk: bytes) -> int:
        nonlocal size
        data.append(chunk)
        size += len(chunk)
        return size - len(chunk)

    for i, (rg, new_rg) in enumerate(zip(rgs, new_rgs, strict=True)):
        start = min(chunk_range(cc.value(3))[0] for cc in rg.value(1))
        end = max(chunk_range(cc.value(3))[1] for cc in rg.value(1))
        put(buf[pos:start])
        placed = {}
        for cc in new_rg.value(1):
            path = ".".join(p.decode() for p in cc.value(3).value(3))
            if path in columns:
                a, b = chunk_range(cc.value(3))
                placed[path] = (put(new[a:b]), b - a)
        shift = put(buf[start:end]) - start
        pos = end
        for j, cc in enumerate(rg.value(1)):
            md = cc.value(3)
            for node, fid in ((md, 9), (md, 10), (md, 11), (cc, 2), *(((rg, 5),) if j == 0 else ())):
                if node.value(fid):
                    edits.append(set_i64(node, fid, node.value(fid) + shift))
            path = ".".join(p.decode() for p in md.value(3))
            if path in placed:
                offset, length = placed[path]
                body = profiles.encoding_payload(len(buf) * 4 if bad_offset else offset, length)
                ctx.wrote("ColumnMetaData", f"row_groups[{i}].columns[{j}].meta_data", header, body)
                edits.append(Edit(md.stop_offset, md.stop_offset, extension_field(body, header)))
    put(buf[pos:footer.footer_offset])
    edited = apply_edits(buf, edits)
    return b"".join(data) + edited[footer.footer_offset:]


def apply(buf: bytes, transformations: list[dict], seed: int) -> tuple[bytes, list[dict]]:
    """Replays the steps; returns the bytes and the log of extensions written."""
    ctx = Context(random.Random(seed))
    for step in transformations:
        params = {k: v for k, v in step.items() if k != "op"}
        buf = OPS[step["op"]](buf, ctx, **params)
    return buf, ctx.extensions
