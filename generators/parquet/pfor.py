"""PFOR (Patched Frame of Reference, Encoding 11): apache/parquet-format PR #579 (open; Encodings.md at a28aa354),
written from the proposal's text. A page: a 7-byte header (packing_mode 0, log_vector_size, value_byte_width,
num_elements), an offset array of one little-endian u32 per vector (from the array's start), then each vector: its
frame of reference (the minimum), bit width and exception count, the deltas bit-packed least significant bit first
(as the RLE/bit-packing hybrid packs them) with 0 where an exception stands, the exceptions' u16 positions and
their original values. The bit width is the proposal's cost model: the one that minimizes the packed bits plus
(16 + 8 * value_byte_width) bits per exception, the smallest such width on a tie."""

from __future__ import annotations

import struct

PFOR = 11  # parquet.thrift Encoding at PR #579
LOG_VECTOR_SIZE = 10


def _bits(delta: int) -> int:
    return delta.bit_length()


def _pack(deltas: list[int], width: int) -> bytes:
    bits = 0
    for i, d in enumerate(deltas):
        bits |= d << (i * width)
    return bits.to_bytes((len(deltas) * width + 7) // 8, "little")


def _vector(values: list[int], value_width: int) -> bytes:
    low = min(values)
    deltas = [v - low for v in values]
    max_bits = 8 * value_width
    counts = [0] * (max_bits + 1)
    for d in deltas:
        counts[_bits(d)] += 1

    def cost(b: int) -> int:
        return len(values) * b + sum(counts[b + 1:]) * (16 + value_width * 8)

    width = min(range(max_bits + 1), key=lambda b: (cost(b), b))
    mask = (1 << width) - 1
    exceptions = [i for i, d in enumerate(deltas) if d > mask]
    packed = _pack([0 if d > mask else d for d in deltas], width)
    fmt = "<i" if value_width == 4 else "<q"
    head = struct.pack(fmt, low) + struct.pack("<BH", width, len(exceptions))
    return (head + packed + b"".join(struct.pack("<H", i) for i in exceptions)
            + b"".join(struct.pack(fmt, values[i]) for i in exceptions))


def encode(values: list[int], value_width: int, log_vector_size: int = LOG_VECTOR_SIZE) -> bytes:
    """A page's non-null values (INT32: value_width 4, INT64: 8) in PFOR."""
    size = 1 << log_vector_size
    vectors = [_vector(values[i:i + size], value_width) for i in range(0, len(values), size)]
    offsets, at = [], 4 * len(vectors)
    for v in vectors:
        offsets.append(at)
        at += len(v)
    header = struct.pack("<BBBI", 0, log_vector_size, value_width, len(values))
    return header + b"".join(struct.pack("<I", o) for o in offsets) + b"".join(vectors)


def decode(data: bytes) -> list[int]:
    """The proposal's decoding, for our tests: unpack, add the frame of reference, patch the exceptions."""
    mode, log_size, value_width, count = struct.unpack_from("<BBBI", data, 0)
    if mode != 0:
        raise ValueError(f"packing_mode {mode}")
    size, fmt = 1 << log_size, ("<i" if value_width == 4 else "<q")
    vectors = (count + size - 1) // size
    offsets = struct.unpack_from(f"<{vectors}I", data, 7)
    out: list[int] = []
    for k, offset in enumerate(offsets):
        n = min(size, count - k * size)
        at = 7 + offset
        (low,) = struct.unpack_from(fmt, data, at)
        width, exceptions = struct.unpack_from("<BH", data, at + value_width)
        at += value_width + 3
        packed = int.from_bytes(data[at:at + (n * width + 7) // 8], "little")
        at += (n * width + 7) // 8
        values = [low + ((packed >> (i * width)) & ((1 << width) - 1)) for i in range(n)]
        positions = struct.unpack_from(f"<{exceptions}H", data, at)
        at += 2 * exceptions
        for j, pos in enumerate(positions):
            values[pos] = struct.unpack_from(fmt, data, at + j * value_width)[0]
        out += values
    return out
