"""ALP (Adaptive Lossless floating-Point), Encoding 10 of parquet.thrift since 2.13 (apache/parquet-format PR #557,
marked preview in #604; the layout is AlpEncoding.md at 24102ed5, moved there by #608): a page's values as the
spec's byte layout, and its normative decode, so that a test can show every page we write decodes to its values.

Only the layout and the decode are normative; how an encoder picks (exponent, factor) is not. Ours tries every pair
and keeps the one with the fewest exceptions, then the narrowest bit width. A FLOAT is kept as a non-exception only
if it round-trips whether the decode multiplies in binary32 or in binary64 (the spec does not say which precision a
FLOAT decode computes in: docs/spec-notes.md#alp), and an integer only where its conversion to the float type is
exact, so that every reader's decode gives the same bits.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np

ALP = 10  # parquet.thrift Encoding
LOG_VECTOR_SIZE = 10  # the recommended default: vectors of 1024 values
MAX_EXPONENT = {False: 10, True: 18}  # FLOAT, DOUBLE
# The correctly rounded values of the literals 1e0..1e18 and 1e-0..1e-18 (Python parses literals correctly rounded;
# numpy's float32 of the literal string is the binary32 one).
POW10 = [float(f"1e{i}") for i in range(19)]
NEG_POW10 = [float(f"1e-{i}") for i in range(19)]
POW10_F32 = [np.float32(f"1e{i}") for i in range(11)]
NEG_POW10_F32 = [np.float32(f"1e-{i}") for i in range(11)]


class AlpError(ValueError):
    """Bytes that are not an ALP page of the expected size."""


def _bits(value: float, double: bool) -> bytes:
    return struct.pack("<d" if double else "<f", value)


def _decoded(encoded: int, e: int, f: int, double: bool) -> bytes:
    """The normative decode of one integer: binary64 for a DOUBLE, binary32 for a FLOAT."""
    if double:
        return _bits(float(encoded) * POW10[f] * NEG_POW10[e], True)
    with np.errstate(over="ignore", invalid="ignore"):
        return struct.pack("<f", np.float32(encoded) * POW10_F32[f] * NEG_POW10_F32[e])


def _candidates(values: np.ndarray, e: int, f: int, double: bool) -> tuple[np.ndarray, np.ndarray]:
    """(encoded integers, which values round-trip) under (e, f): a value round-trips when every decode a reader may
    compute gives its exact bits (a FLOAT's in binary32 and in binary64 alike), -0.0, NaN and infinities never."""
    limit = 2.0**62 if double else 2.0**31 - 1  # inside the integer type, with room for the rounding
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = values.astype(np.float64) * POW10[e] * NEG_POW10[f]
        ok = np.isfinite(scaled) & (np.abs(scaled) < limit) & ~((values == 0) & np.signbit(values))
        encoded = np.where(ok, np.rint(np.where(ok, scaled, 0)), 0).astype(np.int64)
        wide = encoded.astype(np.float64) * POW10[f] * NEG_POW10[e]
        if double:
            ok &= wide.view(np.uint64) == values.view(np.uint64)
            ok &= np.abs(encoded) < 2**53  # the int64 -> binary64 conversion is exact
        else:
            narrow = encoded.astype(np.float32) * POW10_F32[f] * NEG_POW10_F32[e]
            ok &= (narrow.view(np.uint32) == values.view(np.uint32)) & (
                wide.astype(np.float32).view(np.uint32) == values.view(np.uint32)) & (np.abs(encoded) < 2**24)
    return encoded, ok


def _pack(deltas: Sequence[int], width: int) -> bytes:
    """LSB first, as the RLE/bit-packing hybrid packs (Encodings.md)."""
    acc = 0
    for i, d in enumerate(deltas):
        acc |= d << (i * width)
    return acc.to_bytes((len(deltas) * width + 7) // 8, "little")


def _vector(values: np.ndarray, double: bool) -> bytes:
    best: tuple[int, int, int, int] | None = None
    for e in range(MAX_EXPONENT[double] + 1):
        for f in range(e + 1):
            encoded, ok = _candidates(values, e, f, double)
            kept = encoded[ok]
            width = (int(kept.max()) - int(kept.min())).bit_length() if kept.size else 0
            if best is None or (int((~ok).sum()), width) < best[:2]:
                best = (int((~ok).sum()), width, e, f)
    assert best is not None
    exceptions, _, e, f = best
    encoded, ok = _candidates(values, e, f, double)
    placeholder = int(encoded[ok][0]) if ok.any() else 0
    ints = [int(x) if good else placeholder for x, good in zip(encoded, ok, strict=True)]
    base = min(ints)
    width = (max(ints) - base).bit_length()
    positions = [i for i, good in enumerate(ok) if not good]
    out = struct.pack("<BBH", e, f, exceptions)
    out += struct.pack("<qB" if double else "<iB", base, width)
    out += _pack([x - base for x in ints], width) if width else b""
    out += b"".join(struct.pack("<H", p) for p in positions)
    out += b"".join(values[p].tobytes() for p in positions)
    return out


def encode(values: Sequence[float] | np.ndarray, double: bool, log_vector_size: int = LOG_VECTOR_SIZE) -> bytes:
    """The ALP bytes of a page's non-null values (header, offset array, vectors of 2^log_vector_size values), each
    value's bits kept exactly (a NaN's payload too)."""
    if not 3 <= log_vector_size <= 15:
        raise ValueError(f"log_vector_size {log_vector_size} is not in [3, 15]")
    array = np.asarray(values, np.float64 if double else np.float32)
    size = 1 << log_vector_size
    vectors = [_vector(array[i:i + size], double) for i in range(0, len(array), size)]
    offsets, pos = [], 4 * len(vectors)
    for v in vectors:
        offsets.append(pos)
        pos += len(v)
    return (struct.pack("<BBBi", 0, 0, log_vector_size, len(array)) + b"".join(struct.pack("<I", o) for o in offsets)
            + b"".join(vectors))


def decode(data: bytes, double: bool) -> list[bytes]:
    """The values of an ALP page as bit patterns (binary64 decode for DOUBLE, binary32 for FLOAT), by the spec's
    normative procedure; AlpError where the bytes do not hold that layout."""
    if len(data) < 7:
        raise AlpError("shorter than the 7-byte ALP header")
    mode, integer, log_size, count = struct.unpack_from("<BBBi", data)
    if mode != 0 or integer != 0 or not 3 <= log_size <= 15 or count < 0:
        raise AlpError(f"header ({mode}, {integer}, {log_size}, {count}) is not ALP with FOR + bit-packing")
    size = 1 << log_size
    vectors = -(-count // size)
    start = 7
    if len(data) < start + 4 * vectors:
        raise AlpError("the offset array runs past the data")
    out: list[bytes] = []
    for k in range(vectors):
        n = min(size, count - k * size)
        pos = start + struct.unpack_from("<I", data, start + 4 * k)[0]
        try:
            e, f, exceptions = struct.unpack_from("<BBH", data, pos)
            base, width = struct.unpack_from("<qB" if double else "<iB", data, pos + 4)
        except struct.error:
            raise AlpError(f"vector {k} runs past the data") from None
        pos += 13 if double else 9
        packed = int.from_bytes(data[pos:pos + (n * width + 7) // 8], "little")
        pos += (n * width + 7) // 8
        mask = (1 << width) - 1
        values = [_decoded(base + ((packed >> (i * width)) & mask), e, f, double) for i in range(n)]
        item = 8 if double else 4
        positions = struct.unpack_from(f"<{exceptions}H", data, pos)
        pos += 2 * exceptions
        for j, p in enumerate(positions):
            values[p] = data[pos + item * j:pos + item * (j + 1)]
        if pos + item * exceptions > len(data):
            raise AlpError(f"vector {k}'s exceptions run past the data")
        out += values
    return out
