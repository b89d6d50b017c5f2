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
from generators.footer import parse_file, read_tail

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
    footer = parse_file(buf)
    body = payload(payload_spec, ctx.rng)
    ctx.wrote("FileMetaData", "FileMetaData (after its stop byte)", header, body)
    end = footer.metadata.end
    return apply_edits(buf, [Edit(end, end, extension_field(body, header) + b"\x00")])


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


def apply(buf: bytes, transformations: list[dict], seed: int) -> tuple[bytes, list[dict]]:
    """Replays the steps; returns the bytes and the log of extensions written."""
    ctx = Context(random.Random(seed))
    for step in transformations:
        params = {k: v for k, v in step.items() if k != "op"}
        buf = OPS[step["op"]](buf, ctx, **params)
    return buf, ctx.extensions
