"""Trailer framing and reverse parsing of every profile, with opaque bytes standing in for the
flatbuffer, and the encoding extension read by the reference reader."""

from __future__ import annotations

import io
import random
import struct

import pyarrow.parquet as pq
import pytest

from parquet_conformance.generators.canonical import canonical_table, data_hash
from parquet_conformance.generators.parquet import profiles, thrift
from parquet_conformance.generators.parquet.bases import base_bytes, base_hash
from parquet_conformance.generators.parquet.edits import apply_edits, before_stop, extension_field, select
from parquet_conformance.generators.parquet.footer import walk
from parquet_conformance.generators.parquet.mutations import Context, parse
from parquet_conformance.generators.parquet.mutations.encoding import AddEncodingExtension
from parquet_conformance.generators.parquet.mutations.flatbuffer import DamageFlatbufferFooter
from parquet_conformance.generators.parquet.reference import use_new_encodings
from parquet_conformance.generators.parquet.strict import parse_file

FB = bytes(range(256)) * 3  # any bytes: framing does not look inside


def with_extension(payload: bytes, header: str = "spec") -> bytes:
    data = base_bytes("flat")
    ref = select(parse_file(data), "FileMetaData", 0)[0]
    return apply_edits(data, [before_stop(ref, extension_field(payload, header))])


def par3(fb: bytes = FB, crc: str = "zlib") -> bytes:
    data = base_bytes("flat")
    return data[:parse_file(data).footer_offset] + profiles.par3_tail(fb, crc)


def test_crc_variants_are_the_standard_ones() -> None:
    assert profiles.crc32(b"123456789", "zlib") == 0xCBF43926  # CRC-32/ISO-HDLC check value
    assert profiles.crc32(b"123456789", "castagnoli") == 0xE3069283  # CRC-32C check value


def test_spec_example_layout_is_the_seed_table() -> None:
    payload = profiles.spec_example_payload(FB)
    assert payload[:len(FB)] == FB
    crc_fb, size, crc_size = struct.unpack("<III", payload[len(FB):len(FB) + 12])
    assert (crc_fb, size, crc_size) == (profiles.crc32(FB), len(FB), profiles.crc32(struct.pack("<I", len(FB))))
    assert payload[-16:] == profiles.SPEC_EXAMPLE_UUID and len(payload) == len(FB) + 28  # "ULEB128(K+28)"


@pytest.mark.parametrize(("payload", "profile"), [
    (profiles.spec_example_payload(FB), "spec-example"),
    (profiles.spec_example_payload(FB, profiles.MIGRATION_UUID), "migration"),
    (profiles.arrow_prototype_payload(FB), "arrow-prototype"),
    (profiles.arrow_prototype_payload(FB, codec=7), "arrow-prototype"),
])
@pytest.mark.parametrize("header", ["spec", "zigzag"])
def test_locate_in_reverse(payload: bytes, profile: str, header: str) -> None:
    found = profiles.locate(with_extension(payload, header))
    assert (found.profile, found.flatbuffer) == (profile, FB)


def test_locate_par3_and_unknown_or_missing_uuid() -> None:
    assert profiles.locate(par3()).profile == "par3"
    assert profiles.locate(with_extension(FB + bytes(16))) is None
    assert profiles.locate(base_bytes("flat")) is None
    assert profiles.locate(b"") is None


def test_castagnoli_is_found_only_when_asked_for() -> None:
    data = with_extension(profiles.spec_example_payload(FB, crc="castagnoli"))
    with pytest.raises(profiles.ProfileError, match="size"):
        profiles.locate(data)
    assert profiles.locate(data, crcs=("zlib", "castagnoli")).crc == "castagnoli"


@pytest.mark.parametrize(("what", "bit", "message"), [
    ("flatbuffer-byte", 0, "crc32 of the flatbuffer"), ("flatbuffer-crc", 3, "crc32 of the flatbuffer"),
    ("size-crc", 5, "crc32 of the size"), ("size-bit", 31, "crc32 of the size"),
    ("size-bit", 0, "crc32 of the size"), ("huge-size", 0, "outside the footer"),
])
@pytest.mark.parametrize("form", ["spec-example", "par3"])
def test_damaged_trailers_are_refused_without_overshooting(what: str, bit: int, message: str, form: str) -> None:
    data = with_extension(profiles.spec_example_payload(FB)) if form == "spec-example" else par3()
    damaged = DamageFlatbufferFooter(what=what, bit=bit).apply(data, Context(random.Random(0)))
    reads = []

    def read(offset: int, n: int) -> bytes:
        assert 0 <= offset and offset + n <= len(damaged), "read outside the file"
        reads.append((offset, n))
        return damaged[offset:offset + n]

    with pytest.raises(profiles.ProfileError, match=message):
        profiles.locate_at(read, len(damaged))
    footer_start = len(damaged) - 8 - struct.unpack("<I", damaged[-8:-4])[0] if form == "spec-example" else 4
    assert all(offset >= footer_start for offset, _ in reads), "read before the footer"


@pytest.mark.parametrize(("base", "columns"), [("flat", ["f64", "f32"]), ("multi-row-group", ["value"])])
def test_encoding_extension_old_and_new_data(base: str, columns: list[str]) -> None:
    data = AddEncodingExtension(columns=tuple(columns)).apply(base_bytes(base), Context(random.Random(0)))
    assert data_hash(canonical_table(pq.read_table(io.BytesIO(data)))) == base_hash(base)  # legacy: old chunks
    rewritten, used = use_new_encodings(data)
    assert used == len(columns) * len(parse_file(data).row_groups())
    footer = parse_file(rewritten)
    for rg in footer.row_groups():
        for cc in rg.children("columns"):  # the aware reader reads the new chunks: their pages are BYTE_STREAM_SPLIT
            md = cc.child("meta_data")
            page = walk(thrift.decode_struct(rewritten, md.value("data_page_offset")), "PageHeader", "")
            encoding = next(page).child("data_page_header").value("encoding")
            bss = md.value("path_in_schema")[0].decode() in columns
            assert (encoding == profiles.BYTE_STREAM_SPLIT) == bss
    assert data_hash(canonical_table(pq.read_table(io.BytesIO(rewritten)))) == base_hash(base)


def test_encoding_extension_pointing_outside_is_ignored() -> None:
    data = AddEncodingExtension(columns=("f64",), bad_offset=True).apply(base_bytes("flat"), Context(random.Random(0)))
    assert use_new_encodings(data) == (data, 0)


@pytest.mark.parametrize(("steps", "expected"), [
    ([{"mutation": "add_flatbuffer_footer", "profile": "spec-example"}],
     {"profile": "spec-example", "crc_ok": True, "verified": True, "agrees_with_thrift": True}),
    ([{"mutation": "add_flatbuffer_footer", "profile": "migration", "metadata_edits": [
        {"path": "FileMetaData", "struct": "FileMetaData", "field": "num_rows", "delta": -1}]}],
     {"profile": "migration", "crc_ok": True, "verified": True, "agrees_with_thrift": False}),
    ([{"mutation": "add_flatbuffer_footer", "profile": "spec-example"},
      {"mutation": "damage_flatbuffer_footer", "what": "size-bit", "bit": 3}], {"profile": None, "crc_ok": False}),
    ([{"mutation": "add_flatbuffer_footer", "profile": "arrow-prototype", "placement": "after-stop", "codec": 7}],
     {"profile": "arrow-prototype", "crc_ok": True, "verified": True, "agrees_with_thrift": True}),
])
def test_inspect_reports_the_flatbuffers_footer(steps: list[dict], expected: dict) -> None:
    from parquet_conformance.generators.parquet.inspect import inspect_bytes
    from parquet_conformance.generators.parquet.mutations import apply

    data, _ = apply(base_bytes("nested"), [parse(s) for s in steps], 0)
    report = inspect_bytes(data)["flatbuffers_footer"]
    assert {k: report.get(k) for k in expected} == expected
    if report["crc_ok"]:
        assert report["flatbuffer_length"] > 0
