"""The PARX framing (apache/parquet-format PR #588 at d2f51623, generators/parquet/parx.py): the tail byte for byte,
what the CRC covers, the order of the checks, path_in_schema written back, and how inspect and the reference reader
see such files."""

from __future__ import annotations

import random
import struct

import pytest

from parquet_conformance.generators.canonical import canonical_table, data_hash
from parquet_conformance.generators.parquet import parx
from parquet_conformance.generators.parquet.bases import base_bytes, base_hash
from parquet_conformance.generators.parquet.footer import FooterError, read_footer
from parquet_conformance.generators.parquet.inspect import inspect_bytes
from parquet_conformance.generators.parquet.mutations import Context
from parquet_conformance.generators.parquet.mutations.extension import OPAQUE_UUID, Extend, Payload
from parquet_conformance.generators.parquet.mutations.fields import RemoveFields
from parquet_conformance.generators.parquet.mutations.tail import DamageParxTail, SetTailMagic, ToParx
from parquet_conformance.generators.parquet.reference import ReferenceError, choose_footer, read_table
from parquet_conformance.generators.parquet.strict import parse_file

CTX = Context(random.Random(0))
OMIT = RemoveFields(struct="ColumnMetaData", fields=("path_in_schema",), which="all")


def test_the_tail_byte_for_byte() -> None:
    """metadata 15 02 00 (FileMetaData {version: 1}) with flag bit 1: length 3, flags 2, the zlib CRC-32 of the three
    metadata bytes and those eight, then the magic; all little-endian ("PARX Footer Tail", "Integrity Check")."""
    assert parx.tail(bytes.fromhex("150200"), parx.PATH_IN_SCHEMA_OMITTED).hex(" ") == \
        "03 00 00 00 02 00 00 00 30 c6 55 94 50 41 52 58"


@pytest.mark.parametrize("base", ["flat", "nested", "page-index", "writer-parquet-java"])
def test_frame_and_unframe_round_trip(base: str) -> None:
    data = base_bytes(base)
    framed = parx.frame(data)
    assert framed[:4] == framed[-4:] == b"PARX" and len(framed) == len(data) + 8
    assert parx.unframe(framed)[0] == data


def test_the_crc_covers_the_footer_and_the_first_eight_tail_bytes_only() -> None:
    framed = parx.frame(base_bytes("flat"))
    offset, _ = parx.locate(framed)
    for at in (offset, len(framed) - 20, len(framed) - 16, len(framed) - 13):  # footer, its last byte, length
        bad = framed[:at] + bytes([framed[at] ^ 0x10]) + framed[at + 1:]
        with pytest.raises(parx.ParxError, match=r"crc32|does not fit"):
            parx.locate(bad)
    flags = len(framed) - 12  # a flag bit: refused before the CRC is looked at
    with pytest.raises(parx.ParxError, match="reserved"):
        parx.locate(framed[:flags] + b"\x10" + framed[flags + 1:])
    crc = len(framed) - 8
    with pytest.raises(parx.ParxError, match="crc32"):
        parx.locate(framed[:crc] + bytes([framed[crc] ^ 1]) + framed[crc + 1:])


def test_flags_are_checked_before_the_crc() -> None:
    """A reserved bit with a wrong CRC is refused for the bit ("after validating the feature flags")."""
    framed = DamageParxTail(field="flags", xor=1 << 31).apply(parx.frame(base_bytes("flat")), CTX)
    with pytest.raises(parx.ParxError, match=r"bit 31.*reserved"):
        parx.locate(framed)
    fixed = DamageParxTail(field="flags", xor=1 << 31, recrc=True).apply(framed, CTX)
    parx.locate(fixed)  # the bit cleared again and the CRC recomputed: the tail is whole


def test_an_encrypted_footer_is_refused_unless_supported() -> None:
    framed = ToParx(flags=parx.ENCRYPTED_FOOTER).apply(base_bytes("flat"), CTX)
    with pytest.raises(parx.ParxError, match=r"ENCRYPTED_FOOTER.*not supported"):
        parx.locate(framed)
    parx.locate(framed, supported=parx.ENCRYPTED_FOOTER | parx.PATH_IN_SCHEMA_OMITTED)


@pytest.mark.parametrize(("xor", "message"), [(1 << 31, "negative"), (1 << 20, "does not fit"), (1, "crc32")])
def test_a_damaged_length_is_refused(xor: int, message: str) -> None:
    framed = ToParx().apply(base_bytes("flat"), CTX)
    with pytest.raises(parx.ParxError, match=message):
        parx.locate(DamageParxTail(field="metadata_len", xor=xor).apply(framed, CTX))


def test_path_in_schema_is_written_back_from_the_schema() -> None:
    data = base_bytes("nested")
    framed = ToParx(flags=parx.PATH_IN_SCHEMA_OMITTED).apply(OMIT.apply(data, CTX), CTX)
    with pytest.raises(FooterError):
        parse_file(parx.unframe(framed, restore_paths=False)[0])  # a required field is missing
    par1, tail = parx.unframe(framed)
    assert tail.flag_names() == ["PATH_IN_SCHEMA_OMITTED"]
    want = [md.value("path_in_schema") for md in parse_file(data).structs() if md.name == "ColumnMetaData"]
    assert [md.value("path_in_schema") for md in parse_file(par1).structs() if md.name == "ColumnMetaData"] == want
    table, choice = read_table(framed)
    assert choice.profile == "parx" and data_hash(canonical_table(table)) == base_hash("nested")


def test_inspect_reads_a_parx_file_as_an_aware_reader() -> None:
    data = Extend(struct="FileMetaData", payload=Payload("hex", hex=OPAQUE_UUID.hex())).apply(base_bytes("flat"), CTX)
    report = inspect_bytes(ToParx().apply(data, CTX))
    assert report["valid"] and report["strict"] and report["parx"]["error"] is None
    assert report["magic"] == {"head": "PARX", "tail": "PARX"} and len(report["extensions"]) == 1
    head = inspect_bytes(ToParx(head_magic="PAR1").apply(data, CTX))
    assert head["valid"] and [f["rule"] for f in head["findings"]] == ["head-magic"]
    omitted = inspect_bytes(ToParx(flags=2).apply(OMIT.apply(data, CTX), CTX))
    assert omitted["strict"] and omitted["parx"]["flags"] == ["PATH_IN_SCHEMA_OMITTED"]
    unflagged = inspect_bytes(ToParx().apply(OMIT.apply(data, CTX), CTX))
    assert not unflagged["strict"] and {f["rule"] for f in unflagged["findings"]} == {"required"}
    bad = inspect_bytes(ToParx(crc="castagnoli").apply(data, CTX))
    assert not bad["valid"] and "crc32" in bad["error"]


def test_a_par1_tail_under_the_parx_magic_is_refused_by_both_readings() -> None:
    """corrupt/tail/PARX-on-thrift-footer: the 16 bytes before the magic are the footer's end and its length."""
    data = SetTailMagic(magic="PARX").apply(base_bytes("flat"), CTX)
    with pytest.raises(FooterError, match="PARX"):
        read_footer(data)
    with pytest.raises(ReferenceError, match="PARX"):
        choose_footer(data)


def test_the_length_is_an_i32_in_the_tail() -> None:
    framed = parx.frame(base_bytes("flat"))
    (length,) = struct.unpack("<i", framed[-16:-12])
    assert parx.read_parx_tail(framed).metadata_len == length == read_footer(base_bytes("flat"))[0].footer_length
