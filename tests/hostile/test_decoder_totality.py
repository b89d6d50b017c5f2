"""The decoders are total (issue 20, item 8): for any bytes, read as bytes or through a memory map, each returns a
result or raises its own error, never another exception. Hypothesis draws arbitrary bytes, and valid files
(pyarrow's and other writers' bases, FlatBuffers footers in every profile, encrypted footers) with byte edits,
truncations and insertions; damaged flatbuffers are framed with correct CRCs so that they reach verification,
conversion and the reference reader's consistency checks.

Example counts are bounded (EXAMPLES, ~3-4 s for the module); raise them through the Hypothesis profile to
search longer, e.g. `HYPOTHESIS_TOTALITY_EXAMPLES=5000`.
"""

from __future__ import annotations

import json
import mmap
import os
import random
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parquet_conformance.corpus.parquet.fuzz import Chain, replay
from parquet_conformance.corpus.parquet.strategies import chains
from parquet_conformance.generators.parquet import bases, profiles, thrift
from parquet_conformance.generators.parquet import parx as parx_framing
from parquet_conformance.generators.parquet.flatbuf.convert import (
    FlatbufferError,
    flatbuffer_comparable,
    thrift_to_flatbuffer,
)
from parquet_conformance.generators.parquet.flatbuf.schema import PR_HEAD, PROTOTYPES
from parquet_conformance.generators.parquet.footer import FIELD_IDS, FooterError, read_footer, read_tail
from parquet_conformance.generators.parquet.inspect import inspect_bytes, inspect_file
from parquet_conformance.generators.parquet.mutations import Context
from parquet_conformance.generators.parquet.mutations.fields import RemoveFields
from parquet_conformance.generators.parquet.mutations.flatbuffer import AddFlatbufferFooter
from parquet_conformance.generators.parquet.mutations.tail import ToParx
from parquet_conformance.generators.parquet.reference import ReferenceError, choose_footer
from parquet_conformance.generators.parquet.strict import check_file, parse_file
from parquet_conformance.generators.skiff import codec, yson
from parquet_conformance.generators.skiff import reference as skiff_reference
from parquet_conformance.generators.skiff.randomized import random_format

EXAMPLES = int(os.environ.get("HYPOTHESIS_TOTALITY_EXAMPLES", "60"))
bounded = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- inputs ---------------------------------------------------------------------------------------------------

@cache
def seeds() -> tuple[bytes, ...]:
    """Valid files: every base (pyarrow's, the fixture writers', PARE and signed plaintext footers), `flat` with a
    FlatBuffers footer in each profile (arrow-prototype compressed too), and in the PARX framing (with and without
    path_in_schema)."""
    flat, ctx = bases.base_bytes("flat"), Context(random.Random(0))
    framed = [AddFlatbufferFooter(profile=p, codec=c).apply(flat, ctx)  # type: ignore[arg-type]
              for p, c in (("spec-example", 0), ("migration", 0), ("par3", 0), ("arrow-prototype", 7))]
    omitted = RemoveFields(struct="ColumnMetaData", fields=("path_in_schema",), which="all").apply(flat, ctx)
    parx = [ToParx().apply(flat, ctx), ToParx(flags=2).apply(omitted, ctx)]
    return (*(bases.base_bytes(name) for name in bases.BASES), *framed, *parx)


@st.composite
def edited(draw: st.DrawFn) -> bytes:
    """A valid file with one to four edits: bytes flipped or set (anywhere, or in the last 64 bytes, where the
    tail and most footers are), bytes inserted or deleted, the file cut at either end, the footer length set."""
    buf = bytearray(draw(st.sampled_from(seeds())))
    for _ in range(draw(st.integers(1, 4))):
        n = len(buf)
        op = draw(st.sampled_from(["flip", "set-near-tail", "insert", "delete", "cut-end", "cut-start", "length"]))
        at = draw(st.integers(0, max(n - 1, 0)))
        if op == "flip" and n:
            buf[at] ^= 1 << draw(st.integers(0, 7))
        elif op == "set-near-tail" and n:
            buf[n - 1 - at % min(n, 64)] = draw(st.integers(0, 255))
        elif op == "insert":
            buf[at:at] = draw(st.binary(min_size=1, max_size=16))
        elif op == "delete":
            del buf[at:at + draw(st.integers(1, 16))]
        elif op == "cut-end":
            del buf[at:]
        elif op == "cut-start":
            del buf[:at]
        elif op == "length" and n >= 8:
            buf[n - 8:n - 4] = draw(st.integers(0, 2**32 - 1)).to_bytes(4, "little")
    return bytes(buf)


files = st.one_of(st.binary(max_size=256), st.binary(max_size=16).map(lambda b: b + b"PAR1"), edited())


@contextmanager
def mapped(data: bytes) -> Iterator[mmap.mmap | bytes]:
    """The bytes as a read-only memory map (an empty file cannot be mapped: the bytes then)."""
    if not data:
        yield data
        return
    with tempfile.TemporaryFile() as fh:
        fh.write(data)
        fh.flush()
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            yield buf


def returns_or_raises(fn: Callable[[], Any], *errors: type[Exception]) -> Any:
    """fn's result, or None when it raised one of `errors`; anything else fails the test."""
    try:
        return fn()
    except errors:
        return None


# --- Thrift ---------------------------------------------------------------------------------------------------

@bounded
@given(st.binary(max_size=64), st.integers(-8, 80), st.one_of(st.none(), st.integers(-8, 80)),
       st.sampled_from([{}, {"strict_varints": True}, {"int32": "cast"}, {"int32": "shift"}]))
def test_thrift_decodes_or_raises_thrift_error(data: bytes, pos: int, end: int | None, mode: dict) -> None:
    """Any bounds a caller takes from a file (negative, past the end, end before start), in every reading mode."""
    for buf in (data, memoryview(data), bytearray(data)):
        node = returns_or_raises(lambda b=buf: thrift.decode_struct(b, pos, end, **mode), thrift.ThriftError)
        if node is not None:
            assert 0 <= pos <= node.start < node.end <= len(data)
    with mapped(data) as buf:
        returns_or_raises(lambda: thrift.decode_struct(buf, pos, end, **mode), thrift.ThriftError)


# --- the footer, inspect --------------------------------------------------------------------------------------

def _footer_levels(buf: bytes | mmap.mmap) -> None:
    for level in (read_footer, check_file, parse_file):
        returns_or_raises(lambda f=level: f(buf), FooterError)


@bounded
@given(files)
def test_footer_reader_raises_only_footer_error(data: bytes) -> None:
    _footer_levels(data)


@settings(max_examples=max(EXAMPLES // 3, 10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files)
def test_footer_reader_over_a_memory_map(data: bytes) -> None:
    with mapped(data) as buf:
        _footer_levels(buf)


@bounded
@given(files)
def test_inspect_gives_a_verdict(data: bytes) -> None:
    report = inspect_bytes(data)
    json.dumps(report)
    assert isinstance(report["valid"], bool) and (report["valid"] or report["error"])
    assert report["valid"] == (returns_or_raises(lambda: read_footer(data), FooterError) is not None) or \
        report.get("flatbuffers_footer", {}).get("profile") == "par3" or "parx" in report  # no PAR1 tail there


@settings(max_examples=max(EXAMPLES // 3, 10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files)
def test_inspect_file_maps_what_inspect_bytes_reads(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.parquet"
        path.write_bytes(data)
        assert inspect_file(path) == {"file": str(path), **inspect_bytes(data)}


@bounded
@given(files)
def test_the_reference_reader_chooses_or_refuses(data: bytes) -> None:
    """Its footer choice (FlatBuffers profiles, PARX): a Choice or ReferenceError (reading the data is pyarrow's)."""
    returns_or_raises(lambda: choose_footer(data), ReferenceError)


@settings(max_examples=max(EXAMPLES // 2, 10), deadline=None, suppress_health_check=list(HealthCheck))
@given(chains())
def test_the_fuzzers_chains_get_a_verdict(chain: tuple[str, tuple]) -> None:
    """The structure-aware steps of `fuzz` (wire types set, fields moved, stops dropped, varints edited)."""
    data, _ = replay(Chain(chain[0], chain[1]))
    _footer_levels(data)
    assert isinstance(inspect_bytes(data)["valid"], bool)
    returns_or_raises(lambda: choose_footer(data), ReferenceError)


# --- FlatBuffers --------------------------------------------------------------------------------------------

@bounded
@given(st.binary(max_size=512), st.sampled_from([PR_HEAD, PROTOTYPES]))
def test_flatbuffer_decode_raises_only_flatbuffer_error(data: bytes, revision: str) -> None:
    returns_or_raises(lambda: flatbuffer_comparable(data, revision), FlatbufferError)


@cache
def flatbuffers() -> tuple[tuple[bytes, int, bytes], ...]:
    """(file, footer offset, its flatbuffer) for a few bases."""
    out = []
    for name in ("flat", "nested", "dictionary", "all-types", "page-index"):
        data = bases.base_bytes(name)
        footer = parse_file(data)
        out.append((data, footer.footer_offset, thrift_to_flatbuffer(footer.metadata)))
    return tuple(out)


@bounded
@given(st.data(), st.sampled_from(["par3", "spec-example"]))
def test_damaged_flatbuffers_behind_good_crcs(data: st.DataObject, profile: str) -> None:
    """A flatbuffer with bytes changed, framed with correct CRCs: the locator trusts it, so verification, the
    comparable form, the consistency checks and the rebuilt Thrift footer all see it."""
    base, offset, fb = data.draw(st.sampled_from(flatbuffers()))
    damaged = bytearray(fb)
    for at in data.draw(st.lists(st.integers(0, len(fb) - 1), min_size=1, max_size=4)):
        damaged[at] = data.draw(st.sampled_from([0, 1, 0x7F, 0x80, 0xFF, damaged[at] ^ 1]))
    if profile == "par3":
        file = base[:offset] + profiles.par3_tail(bytes(damaged))
    else:
        meta = base[offset:len(base) - 8]
        ext = thrift.binary_field(32767, profiles.spec_example_payload(bytes(damaged)))
        footer = meta[:-1] + b"\x08" + ext[1:] + b"\x00"  # the stop byte becomes the field's long-form header
        file = base[:offset] + footer + len(footer).to_bytes(4, "little") + b"PAR1"
    returns_or_raises(lambda: choose_footer(file), ReferenceError)
    assert isinstance(inspect_bytes(file)["valid"], bool)


@bounded
@given(st.data())
def test_a_damaged_footer_behind_a_good_parx_tail(data: st.DataObject) -> None:
    """Footer bytes changed and the PARX tail made right for them (flag bit 1: the paths are rebuilt from whatever
    schema the footer now holds), so that the aware reading reaches the footer itself."""
    par1 = bases.base_bytes("flat")
    offset, length = read_tail(par1)
    meta = bytearray(par1[offset:offset + length])
    for _ in range(data.draw(st.integers(1, 4))):
        meta[data.draw(st.integers(0, len(meta) - 1))] = data.draw(st.integers(0, 255))
    flags = data.draw(st.sampled_from([0, parx_framing.PATH_IN_SCHEMA_OMITTED]))
    file = b"PARX" + par1[4:offset] + bytes(meta) + parx_framing.tail(bytes(meta), flags)
    returns_or_raises(lambda: choose_footer(file), ReferenceError)
    report = inspect_bytes(file)
    assert isinstance(report["valid"], bool) and (report["valid"] or report["error"])


# --- Skiff ----------------------------------------------------------------------------------------------------

@bounded
@given(st.integers(0, 2**32), st.binary(max_size=96), st.booleans())
def test_skiff_row_streams_decode_or_raise_decode_error(seed: int, data: bytes, lenient: bool) -> None:
    """Random valid table formats (generators/skiff/randomized.py) over arbitrary bytes."""
    tables = skiff_reference.tables({"format": random_format(random.Random(seed))})
    returns_or_raises(lambda: codec.decode_rows(tables, data, lenient=lenient), codec.SkiffDecodeError)
    for spans in (codec.row_spans, codec.yson_spans):
        returns_or_raises(lambda f=spans: f(tables, data), codec.SkiffDecodeError)


@bounded
@given(st.one_of(st.binary(max_size=96), st.text(alphabet="{}[]<>;=#\"\\%-+. 0123456789abuxe\x01\x02\x03\x06",
                                                  max_size=48).map(str.encode)))
def test_yson_loads_or_raises_yson_error(data: bytes) -> None:
    returns_or_raises(lambda: yson.loads(data), yson.YsonError)
    with mapped(data) as buf:
        returns_or_raises(lambda: yson.loads(buf), yson.YsonError)  # type: ignore[arg-type]


@cache
def skiff_documents() -> tuple[bytes, ...]:
    from parquet_conformance.corpus.skiff import TRACK

    return tuple(TRACK.build(case, 0)[0] for case in TRACK.cases()[::7])


@bounded
@given(st.data())
def test_skiff_inspect_gives_a_verdict(data: st.DataObject) -> None:
    """Arbitrary bytes, case documents with bytes changed, and decode documents whose stream is edited."""
    ours = data.draw(st.booleans())
    doc = data.draw(st.sampled_from(skiff_documents()) if ours else st.binary(max_size=64))
    if ours and data.draw(st.booleans()):
        parsed = json.loads(doc)
        if "stream" in parsed:
            stream = bytearray(bytes.fromhex(parsed["stream"]))
            stream[data.draw(st.integers(0, len(stream))):0] = data.draw(st.binary(max_size=8))
            parsed["stream"] = bytes(stream[:data.draw(st.integers(0, len(stream)))]).hex()
            doc = json.dumps(parsed).encode()
        else:
            at = data.draw(st.integers(0, len(doc) - 1))
            doc = doc[:at] + bytes([data.draw(st.integers(0, 255))]) + doc[at + 1:]
    report = skiff_reference.inspect_document(doc)
    assert isinstance(report["valid"], bool) and (report["valid"] or report["error"])


@pytest.mark.parametrize("data", [b"", b"PAR1", b"PAR1PAR1", b"\x00" * 12, b"PAR1\x00\x00\x00\x00PAR1",
                                  b"PAR1" + b"\xff" * 8 + b"PAR1", b"PARE" + bytes(40) + b"PARE"])
def test_tiny_files(data: bytes) -> None:
    assert isinstance(inspect_bytes(data)["valid"], bool)
    _footer_levels(data)


# --- what the properties found, pinned -------------------------------------------------------------------------

def _with_wire_type(data: bytes, struct: str, field: str, header_byte: Callable[[int], int]) -> bytes:
    """`data` with the header byte of `struct.field` (its first occurrence) rewritten by `header_byte`."""
    footer, _ = read_footer(data)
    ref = next(r for r in footer.structs() if r.name == struct)
    f = ref.node.get(FIELD_IDS[struct][field])
    assert f is not None
    at = f.header_start if field != "encodings" else f.header_end  # a list's element type is in its own header
    return data[:at] + bytes([header_byte(data[at])]) + data[at + 1:]


def test_a_field_of_another_wire_type_beside_a_flatbuffers_footer() -> None:
    """thrift_comparable read FileMetaData.schema as a list of structs whatever its wire type (TypeError)."""
    framed = seeds()[len(bases.BASES)]  # flat with a spec-example footer
    for struct, field in (("FileMetaData", "schema"), ("FileMetaData", "row_groups"), ("RowGroup", "columns")):
        data = _with_wire_type(framed, struct, field, lambda b: (b & 0xF0) | thrift.I64)
        report = inspect_bytes(data)
        assert report["flatbuffers_footer"]["agrees_with_thrift"] is False, (struct, field)


def test_a_list_of_another_element_type() -> None:
    """ColumnMetaData.encodings as a list of binaries: skipped as a field of another wire type, not compared with
    ints (TypeError in the enum and range checks)."""
    data = _with_wire_type(bases.base_bytes("flat"), "ColumnMetaData", "encodings",
                           lambda b: (b & 0xF0) | thrift.BINARY)
    _, problems = check_file(data)
    assert any(p.rule == "required" and "encodings" in p.message for p in problems)


def test_an_empty_flatbuffer_behind_par3() -> None:
    """A flatbuffer that verifies but holds nothing: the reference reader refused it with a TypeError."""
    empty = b"\x08\x00\x00\x00\x04\x00\x04\x00\x04\x00\x00\x00"  # root -> a table with an empty vtable
    data = bases.base_bytes("flat")
    data = data[:parse_file(data).footer_offset] + profiles.par3_tail(empty)
    with pytest.raises(ReferenceError, match="schema is empty"):
        choose_footer(data)
