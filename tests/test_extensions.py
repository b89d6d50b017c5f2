"""The extension writer: both header forms, the seed's AppendExtension, and that data never moves."""

from __future__ import annotations

import random

import pytest

from parquet_conformance.generators.canonical import canonical_table, data_hash
from parquet_conformance.generators.parquet import thrift
from parquet_conformance.generators.parquet.bases import READABLE_BASES, base_bytes, base_hash
from parquet_conformance.generators.parquet.edits import apply_edits, before_stop, extension_field, select
from parquet_conformance.generators.parquet.footer import SCHEMA, read_tail
from parquet_conformance.generators.parquet.mutations import Context
from parquet_conformance.generators.parquet.mutations.extension import Extend, ExtendPageHeader, Payload
from parquet_conformance.generators.parquet.reference import read_exactly
from parquet_conformance.generators.parquet.strict import check_file, parse_file, strict_objections


def append_extension(thrift_bytes: bytes, ext: bytes) -> bytes:
    """A line-by-line port of `AppendExtension` in BinaryProtocolExtensions.md, as the reference."""
    def append_uleb(x: int, out: bytearray) -> None:
        while True:
            c = x & 0x7F
            if x < 0x80:
                out.append(c)
                return
            out.append(c + 0x80)
            x >>= 7

    out = bytearray(thrift_bytes)
    assert out[-1] == 0
    out[-1] = 0x08
    append_uleb(32767, out)
    append_uleb(len(ext), out)
    out += ext
    out.append(0)
    return bytes(out)


def test_header_forms() -> None:
    assert extension_field(b"abc", "spec") == bytes.fromhex("08ffff01") + b"\x03abc"
    assert extension_field(b"abc", "zigzag") == bytes.fromhex("08feff03") + b"\x03abc"
    assert extension_field(b"", "zigzag", length_pad=5) == bytes.fromhex("08feff03") + b"\x80\x80\x80\x80\x00"


@pytest.mark.parametrize("base", READABLE_BASES)
@pytest.mark.parametrize("size", [0, 1, 200, 70_000])
def test_spec_form_equals_append_extension(base: str, size: int) -> None:
    data = base_bytes(base)
    offset, length = read_tail(data)
    ext = random.Random(size).randbytes(size)
    ours = Extend(struct="FileMetaData", header="spec", payload=Payload("hex", hex=ext.hex())).apply(
        data, Context(random.Random(0)))
    footer = append_extension(data[offset:offset + length], ext)
    assert ours == data[:offset] + footer + len(footer).to_bytes(4, "little") + b"PAR1"


# The fast tier keeps two bases (a flat one and a nested one); the integration tier has every readable base.
FAST_BASES = ("flat", "nested")


# The spec header on every base, the zigzag header on the fast ones: its bytes do not depend on the base.
@pytest.mark.parametrize(("base", "header"), [(b, "spec") if b in FAST_BASES else
                                              pytest.param(b, "spec", marks=pytest.mark.integration)
                                              for b in READABLE_BASES] + [(b, "zigzag") for b in FAST_BASES])
@pytest.mark.parametrize("struct", sorted(set(SCHEMA) & {"FileMetaData", "SchemaElement", "RowGroup", "ColumnChunk",
                                                          "ColumnMetaData", "Statistics", "KeyValue",
                                                          "PageEncodingStats", "SizeStatistics", "LogicalType"}))
def test_extension_in_every_struct_keeps_data_in_place(base: str, struct: str, header: str) -> None:
    data = base_bytes(base)
    footer = parse_file(data)
    if not any(r.name == struct for r in footer.structs()):
        pytest.skip(f"{base} has no {struct}")
    refs = select(footer, struct, "all")
    payload = b"\x00PAR1" + bytes(range(40))
    out = apply_edits(data, [before_stop(r, extension_field(payload, header)) for r in refs])
    assert out[:footer.footer_offset] == data[:footer.footer_offset], "data pages moved"
    new, problems = check_file(out)  # strict but for unions: an extension in one makes two fields (spec-notes)
    assert not [p for p in strict_objections(problems) if p.rule != "union"], problems
    assert new.footer_length == footer.footer_length + len(refs) * (4 + 1 + len(payload))
    exts = new.extensions()
    assert [(e.struct, e.path, e.header, e.payload) for e in exts] == [(r.name, r.path, header, payload) for r in refs]
    assert data_hash(canonical_table(read_exactly(out))) == base_hash(base)


@pytest.mark.parametrize("base", READABLE_BASES)
def test_page_header_extension_grows_only_the_last_chunk(base: str) -> None:
    data = base_bytes(base)
    before = parse_file(data)
    out = ExtendPageHeader(header="zigzag", payload=Payload.random(64)).apply(data, Context(random.Random(0)))
    after = parse_file(out)
    (ext,) = after.extensions()
    assert ext.struct == "PageHeader" and ext.length == 64
    assert out[:ext.offset - 5] == data[:ext.offset - 5]  # nothing before the new field moved
    old_md, new_md = (f.row_groups()[-1].children("columns")[-1].child("meta_data") for f in (before, after))
    grown = new_md.value("total_compressed_size") - old_md.value("total_compressed_size")
    assert grown == 4 + 1 + 64  # header, length, payload
    assert new_md.value("dictionary_page_offset") == old_md.value("dictionary_page_offset")
    # The extended header is the chunk's first: a dictionary page's moves the data page after it.
    moved = grown if old_md.value("dictionary_page_offset") else 0
    assert new_md.value("data_page_offset") == old_md.value("data_page_offset") + moved
    assert data_hash(canonical_table(read_exactly(out))) == base_hash(base)


def test_missing_stop_and_wrong_type_are_writable() -> None:
    data = base_bytes("flat")
    ref = select(parse_file(data), "FileMetaData", 0)[0]
    no_stop = apply_edits(data, [before_stop(ref, extension_field(b"x" * 20), drop_stop=True)])
    with pytest.raises(Exception, match="end of input"):
        parse_file(no_stop)
    wrong = apply_edits(data, [before_stop(ref, thrift.field_header(thrift.I64, 32767, long_form=True) + b"\x02")])
    with pytest.raises(Exception, match="reserves it as binary"):
        parse_file(wrong)
