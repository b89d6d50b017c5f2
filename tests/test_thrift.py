"""The compact codec against hand-built bytes, hypothesis round trips and pyarrow's view of real footers."""

from __future__ import annotations

import io
import struct

import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parquet_conformance.generators.parquet import thrift
from parquet_conformance.generators.parquet.bases import READABLE_BASES, base_bytes
from parquet_conformance.generators.parquet.strict import parse_file
from parquet_conformance.generators.parquet.thrift import ThriftError


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_uleb_round_trip(n: int) -> None:
    assert thrift.Reader(thrift.uleb(n)).varint() == n


@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_zigzag_round_trip(n: int) -> None:
    assert thrift.Reader(thrift.i64_value(n)).zigzag() == n


def test_zigzag_of_32767_and_the_spec_header_bytes() -> None:
    assert thrift.zigzag_encode(32767) == 65534
    assert thrift.uleb(65534) == b"\xfe\xff\x03"
    assert thrift.uleb(32767) == b"\xff\xff\x01"
    assert thrift.Reader(b"\x08\xff\xff\x01").field_header(0) == (thrift.BINARY, -16384)
    assert thrift.Reader(b"\x08\xfe\xff\x03").field_header(0) == (thrift.BINARY, 32767)


def test_overlong_varints_are_read_leniently_and_refused_strictly() -> None:
    padded = thrift.uleb(5, pad_to=3)
    assert padded == b"\x85\x80\x00"
    assert thrift.Reader(padded).varint() == 5
    with pytest.raises(ThriftError, match="overlong"):
        thrift.Reader(padded, strict_varints=True).varint()
    with pytest.raises(ThriftError, match="longer than 5"):
        thrift.Reader(thrift.uleb(5, pad_to=6)).varint(5)


# Every wire type as an unknown field, so the decoder has to skip each one correctly.
UNKNOWN_VALUES = [
    (thrift.TRUE, b""),
    (thrift.FALSE, b""),
    (thrift.BYTE, b"\x80"),
    (thrift.I16, thrift.uleb(thrift.zigzag_encode(-300))),
    (thrift.I32, thrift.uleb(thrift.zigzag_encode(2**31 - 1))),
    (thrift.I64, thrift.uleb(thrift.zigzag_encode(-(2**63)))),
    (thrift.DOUBLE, struct.pack("<d", -0.0)),
    (thrift.BINARY, thrift.uleb(3) + b"\x00\xff\x08"),
    (thrift.UUID, bytes(range(16))),
    (thrift.LIST, bytes([0x30 | thrift.I32]) + b"\x02\x04\x06"),
    (thrift.LIST, bytes([0x21]) + b"\x01\x02"),  # two bools: true, false
    (thrift.LIST, bytes([0xF0 | thrift.STRUCT]) + thrift.uleb(16) + b"\x00" * 16),  # long-form count
    (thrift.SET, bytes([0x10 | thrift.BINARY]) + b"\x01z"),
    (thrift.MAP, b"\x02" + bytes([(thrift.BINARY << 4) | thrift.I64]) + b"\x01a\x02\x01b\x04"),
    (thrift.MAP, b"\x00"),
    (thrift.STRUCT, thrift.binary_field(1, b"x") + bytes([0x1C]) + b"\x00" + b"\x00"),  # nested struct
]


@pytest.mark.parametrize(("ftype", "value"), UNKNOWN_VALUES, ids=lambda v: str(v) if isinstance(v, int) else None)
def test_unknown_fields_of_every_type_are_skipped(ftype: int, value: bytes) -> None:
    buf = (thrift.field_header(ftype, 900, long_form=True) + value
           + thrift.field_header(thrift.BINARY, 901, 900, long_form=True) + thrift.uleb(2) + b"ok" + b"\x00")
    s = thrift.decode_struct(buf)
    assert [f.id for f in s.fields] == [900, 901]
    assert s.fields[0].end == s.fields[1].header_start
    assert s.value(901) == b"ok"
    assert s.end == len(buf)


@pytest.mark.parametrize("bad", [
    b"\x15\x02",  # no stop field: input ends
    b"\x0d\x00",  # unknown type 13 is uuid; 14 and 15 are not types
    b"\x0e\x00",
    b"\x18\x05ab\x00",  # binary longer than the buffer
    b"\x19\xf8\xff\xff\xff\x0f",  # list claiming 2^32-1 elements in 6 bytes
    b"\x1c" * 100,  # nesting deeper than MAX_DEPTH
])
def test_malformed_bytes_raise(bad: bytes) -> None:
    with pytest.raises(ThriftError):
        thrift.decode_struct(bad)


def test_a_stop_byte_with_a_delta_ends_the_struct_as_thrift_runtimes_do() -> None:
    with pytest.raises(ThriftError):  # the strict decoder refuses it
        thrift.decode_struct(b"\x10", strict_varints=True)
    reader = thrift.Reader(b"\x15\x02\x10")
    assert [f.id for f in reader.struct().fields] == [1] and reader.odd_stops == [2]


def test_field_ids_past_i16_wrap_like_readers_do() -> None:
    # A long-form id varint wider than 16 bits is truncated to i16, as Thrift C++ readI16 does.
    buf = bytes([thrift.BINARY]) + thrift.uleb(thrift.zigzag_encode(32767) | 1 << 20) + b"\x00\x00"
    assert thrift.decode_struct(buf).fields[0].id == 32767


@pytest.mark.parametrize("base", READABLE_BASES)
def test_decoded_footer_agrees_with_pyarrow(base: str) -> None:
    data = base_bytes(base)
    footer = parse_file(data)
    md = pq.read_metadata(io.BytesIO(data))
    meta = footer.metadata
    assert meta.value(1) == {"1.0": 1, "2.6": 2}.get(md.format_version, 2)
    assert meta.value(3) == md.num_rows
    assert len(meta.value(4)) == md.num_row_groups
    assert footer.leaf_count() == md.num_columns
    assert meta.value(6).decode() == md.created_by
    for i, rg in enumerate(meta.value(4)):
        prg = md.row_group(i)
        assert rg.value(3) == prg.num_rows
        assert rg.value(2) == prg.total_byte_size
        for j, cc in enumerate(rg.value(1)):
            pcol = prg.column(j)
            cmd = cc.value(3)
            assert ".".join(p.decode() for p in cmd.value(3)) == pcol.path_in_schema
            assert cmd.value(5) == pcol.num_values
            assert cmd.value(9) == pcol.data_page_offset
            assert (cmd.value(11) or None) == (pcol.dictionary_page_offset if pcol.has_dictionary_page else None)
            assert cmd.value(7) == pcol.total_compressed_size
            assert cmd.value(6) == pcol.total_uncompressed_size
            stats = cmd.value(12)
            if pcol.is_stats_set:
                assert stats.value(3) == pcol.statistics.null_count
                plain = str(pcol.statistics.logical_type) == "None"
                if pcol.statistics.has_min_max and plain and pcol.physical_type in ("INT32", "INT64"):
                    fmt = "<i" if pcol.physical_type == "INT32" else "<q"
                    low = stats.value(6) if stats.value(6) is not None else stats.value(2)  # fastparquet: only `min`
                    assert struct.unpack(fmt, low)[0] == pcol.statistics.min
                    high = stats.value(5) if stats.value(5) is not None else stats.value(1)
                    assert struct.unpack(fmt, high)[0] == pcol.statistics.max


def test_schema_elements_match_pyarrow_schema() -> None:
    data = base_bytes("nested")
    names = [el.value(4).decode() for el in parse_file(data).metadata.value(2)]
    pschema = pq.read_metadata(io.BytesIO(data)).schema
    leaf_paths = {pschema.column(i).path for i in range(len(pschema))}
    assert names[0] == "schema"
    assert all(p.split(".")[-1] in names for p in leaf_paths)
