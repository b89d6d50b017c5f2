"""The operations of the features family (docs/adapter-protocol.md#operations): a case's `op` asks a library, through
its own API, for what a file holds besides its rows, and its answer is a table judged on what the file holds as our
decoder reads it (corpus/parquet `derive`: the case's expect_hash). Each answer, row by row:

    statistics      row_group, column, min, max: each column chunk's Statistics min_value and max_value, the
                    values as PLAIN decodes them for the physical type, a float zero unsigned (`bound`); null
                    where absent (the answer is the
                    min/max feature's alone: a null count the library drops says nothing of min and max)
    page-index      row_group, column, page, offset, compressed_page_size, first_row_index, null_page, null_count,
                    min, max, boundary_order: each page of each chunk with an offset index, the column index's
                    fields null where the chunk has none (and min and max null for a null page)
    bloom           row_group, column, value, excluded: for each chunk with a bloom filter, each distinct value of
                    its column (probe values) and each of those made absent (absent_probe), and whether the filter
                    excludes it
    geo-statistics  row_group, column, xmin, xmax, ymin, ymax, zmin, zmax, mmin, mmax, types: each chunk's
                    GeospatialStatistics (its geospatial_types sorted)

Values are canonical tokens (generators/canonical.py): integers, floats, BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY as
bytes, BOOLEAN as booleans, a column as its dotted path. `crc` reads the rows (with page checksums verified): its
answer is the file's data, judged as a read is.

The bloom filter check is BloomFilter.md's split block bloom filter over XXH64 (seed 0) of the value's PLAIN bytes
(a BYTE_ARRAY without its length), written here from the spec so that no library we test decides it."""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from parquet_conformance.generators.canonical import Canonical, canonical_rows
from parquet_conformance.generators.parquet import thrift
from parquet_conformance.generators.parquet.footer import ParquetFooter, StructRef, read_footer

STATISTICS = ("row_group", "column", "min", "max")
PAGE_INDEX = ("row_group", "column", "page", "offset", "compressed_page_size", "first_row_index", "null_page",
              "null_count", "min", "max", "boundary_order")
BLOOM = ("row_group", "column", "value", "excluded")
GEO_STATISTICS = ("row_group", "column", "xmin", "xmax", "ymin", "ymax", "zmin", "zmax", "mmin", "mmax", "types")
BOUNDARY_ORDER = {0: "UNORDERED", 1: "ASCENDING", 2: "DESCENDING"}
BOOLEAN, INT32, INT64, INT96, FLOAT, DOUBLE, BYTE_ARRAY, FIXED = range(8)
PHYSICAL = {"BOOLEAN": BOOLEAN, "INT32": INT32, "INT64": INT64, "INT96": INT96, "FLOAT": FLOAT, "DOUBLE": DOUBLE,
            "BYTE_ARRAY": BYTE_ARRAY, "FIXED_LEN_BYTE_ARRAY": FIXED}
ABSENT_OFFSET = 1 << 40  # an INT64 probe made absent: its value plus this (the features family's keys are small)


def physical_value(raw: bytes, physical: int) -> object:
    """A statistics value (PLAIN, without a length prefix) as a Python value of its physical type."""
    if physical == BOOLEAN:
        return raw != b"\x00"
    if physical == INT32:
        return struct.unpack("<i", raw)[0]
    if physical == INT64:
        return struct.unpack("<q", raw)[0]
    if physical == FLOAT:
        return struct.unpack("<f", raw)[0]
    if physical == DOUBLE:
        return struct.unpack("<d", raw)[0]
    return bytes(raw)


def bound(raw: bytes, physical: int) -> object:
    """A min or max (Statistics, ColumnIndex) as the answer holds it: its physical value, a float zero unsigned.
    parquet.thrift (ColumnOrder, the compatibility rules for reading floating point statistics): "If the min is a
    +0, the row group may contain -0 values as well. If the max is -0, the row group may contain +0 values as
    well." A zero bound's sign says nothing, and a reader may widen it (parquet-java gives a +0 min as -0)."""
    return unsigned_zero(physical_value(raw, physical))


def unsigned_zero(value: object) -> object:
    """A float zero as +0.0 (a bound's sign says nothing: `bound`); any other value as it is."""
    return 0.0 if isinstance(value, float) and value == 0.0 else value


def absent_probe(value: object) -> object:
    """The probe made from a column's value that the column does not hold: an integer plus 2^40, a text with "~"
    appended (the features family's keys hold neither). Adapters probe these beside the values themselves."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TypeError(f"no absent probe for a {type(value).__name__}")
    return value + ABSENT_OFFSET if isinstance(value, int) else value + "~"


def _chunks(footer: ParquetFooter) -> list[tuple[int, str, StructRef, StructRef]]:
    """(row group, column path, ColumnChunk, ColumnMetaData) of every chunk."""
    return [(i, ".".join(p.decode() for p in cc.need("meta_data").value("path_in_schema")), cc, cc.need("meta_data"))
            for i, rg in enumerate(footer.row_groups()) for cc in rg.children("columns")]


def statistics(data: bytes) -> Canonical:
    footer, _ = read_footer(data)
    rows = []
    for rg, column, _, md in _chunks(footer):
        stats, physical = md.child("statistics"), md.value("type")
        bounds = [None if stats is None or stats.value(name) is None else bound(stats.value(name), physical)
                  for name in ("min_value", "max_value")]
        rows.append([rg, column, *bounds])
    return canonical_rows(STATISTICS, rows)


def _index(data: bytes, name: str, offset: int | None, length: int | None) -> StructRef | None:
    if offset is None or length is None:
        return None
    return StructRef(name, "", thrift.decode_struct(data, offset, offset + length))


def page_index(data: bytes) -> Canonical:
    footer, _ = read_footer(data)
    rows: list[list[object]] = []
    for rg, column, cc, md in _chunks(footer):
        ci = _index(data, "ColumnIndex", cc.value("column_index_offset"), cc.value("column_index_length"))
        oi = _index(data, "OffsetIndex", cc.value("offset_index_offset"), cc.value("offset_index_length"))
        if oi is None:
            continue
        physical, locations = md.value("type"), oi.children("page_locations")
        nulls = None if ci is None else ci.value("null_counts")
        for page, loc in enumerate(locations):
            null_page = None if ci is None else ci.value("null_pages")[page]
            bounds = ([None, None] if ci is None or null_page else
                      [bound(ci.value(f)[page], physical) for f in ("min_values", "max_values")])
            order = None if ci is None else BOUNDARY_ORDER.get(ci.value("boundary_order"),
                                                               str(ci.value("boundary_order")))
            rows.append([rg, column, page, loc.value("offset"), loc.value("compressed_page_size"),
                         loc.value("first_row_index"), null_page, None if nulls is None else nulls[page], *bounds,
                         order])
    return canonical_rows(PAGE_INDEX, rows)


def bloom(data: bytes) -> Canonical:
    """Each chunk with a bloom filter, probed with its column's distinct values (as our reference reader reads
    them) and their absent probes."""
    from parquet_conformance.generators.parquet.reference import read_table  # on use (start-up): imports pyarrow

    footer, _ = read_footer(data)
    table: Any = read_table(data)[0]
    rows: list[list[object]] = []
    for rg, column, _, md in _chunks(footer):
        offset = md.value("bloom_filter_offset")
        if offset is None:
            continue
        header = thrift.decode_struct(data, offset)
        size = StructRef("BloomFilterHeader", "", header).value("numBytes")
        bitset = data[header.end:header.end + size]
        for value in probes(table.column(column).to_pylist()):
            encoded = value.encode() if isinstance(value, str) else struct.pack("<q", value)
            rows.append([rg, column, value, not sbbf_contains(bitset, xxh64(encoded))])
    return canonical_rows(BLOOM, rows)


def probes(values: list[object]) -> list[object]:
    """The values a bloom filter is probed with: the column's distinct non-null values sorted, then their absent
    probes in the same order."""
    present = sorted({v for v in values if v is not None}, key=lambda v: (str(type(v)), v))
    return [*present, *(absent_probe(v) for v in present)]


def geo_statistics(data: bytes) -> Canonical:
    footer, _ = read_footer(data)
    rows = []
    for rg, column, _, md in _chunks(footer):
        geo = md.child("geospatial_statistics")
        if geo is None:
            continue
        box = geo.child("bbox")
        bounds = [None if box is None else box.value(k) for k in ("xmin", "xmax", "ymin", "ymax", "zmin", "zmax",
                                                                    "mmin", "mmax")]
        rows.append([rg, column, *bounds, sorted(geo.value("geospatial_types") or [])])
    return canonical_rows(GEO_STATISTICS, rows)


# The operations whose answer is not the file's rows, and what each must answer for a file.
ANSWERS: dict[str, Callable[[bytes], Canonical]] = {"statistics": statistics, "page-index": page_index,
                                                    "bloom": bloom, "geo-statistics": geo_statistics}
OPS = (*ANSWERS, "crc")  # every operation a Parquet case may ask for besides `read`


# -- XXH64 and the split block bloom filter (BloomFilter.md) ----------------------------------------------------

_P1, _P2, _P3, _P4, _P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x85EBCA77C2B2AE63,
                           0x27D4EB2F165667C5)
_M = (1 << 64) - 1
SALT = (0x47B6137B, 0x44974D91, 0x8824AD5B, 0xA2B7289D, 0x705495C7, 0x2DF1424B, 0x9EFC4947, 0x5C6BFB31)


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M


def _round(acc: int, lane: int) -> int:
    return (_rotl((acc + lane * _P2) & _M, 31) * _P1) & _M


def xxh64(data: bytes, seed: int = 0) -> int:
    """XXH64 (xxhash_spec.md 0.1.1)."""
    n, pos = len(data), 0
    if n >= 32:
        v = [(seed + _P1 + _P2) & _M, (seed + _P2) & _M, seed, (seed - _P1) & _M]
        while pos + 32 <= n:
            v = [_round(v[i], struct.unpack_from("<Q", data, pos + 8 * i)[0]) for i in range(4)]
            pos += 32
        acc = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & _M
        for lane in v:
            acc = ((acc ^ _round(0, lane)) * _P1 + _P4) & _M
    else:
        acc = (seed + _P5) & _M
    acc = (acc + n) & _M
    while pos + 8 <= n:
        acc = (_rotl(acc ^ _round(0, struct.unpack_from("<Q", data, pos)[0]), 27) * _P1 + _P4) & _M
        pos += 8
    if pos + 4 <= n:
        acc = (_rotl(acc ^ (struct.unpack_from("<I", data, pos)[0] * _P1 & _M), 23) * _P2 + _P3) & _M
        pos += 4
    while pos < n:
        acc = (_rotl(acc ^ (data[pos] * _P5 & _M), 11) * _P1) & _M
        pos += 1
    acc ^= acc >> 33
    acc = (acc * _P2) & _M
    acc ^= acc >> 29
    acc = (acc * _P3) & _M
    return acc ^ (acc >> 32)


def sbbf_contains(bitset: bytes, hashed: int) -> bool:
    """Whether the filter may hold a value of this hash: the block the hash's upper half selects has, in each of
    its eight words, the bit the lower half and that word's salt select."""
    blocks = len(bitset) // 32
    block = ((hashed >> 32) * blocks) >> 32
    key = hashed & 0xFFFFFFFF
    words = struct.unpack_from("<8I", bitset, block * 32)
    return all(words[i] >> (((key * SALT[i]) & 0xFFFFFFFF) >> 27) & 1 for i in range(8))
