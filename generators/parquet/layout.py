"""The page level of a Parquet file: the Thrift structs outside the footer, the footer fields that point at
them, and moving data.

Outside the footer sit the page headers of every column chunk, the page index (a ColumnIndex and an
OffsetIndex per chunk) and the bloom filters (a BloomFilterHeader and its bitset). Growing any of them moves
every byte after it, so `move` inserts bytes anywhere in the file and rewrites every offset past the insertion
point and every length whose region holds it (parquet.thrift at 010f49b89eab98b498986709be5fedaaf2ea916f):

    offsets  RowGroup.file_offset, ColumnChunk.file_offset, column_index_offset, offset_index_offset,
             ColumnMetaData.data_page_offset, index_page_offset, dictionary_page_offset, bloom_filter_offset,
             PageLocation.offset (inside the OffsetIndex, itself in the data region)
    lengths  ColumnMetaData.total_compressed_size, total_uncompressed_size ("including the headers"),
             RowGroup.total_byte_size, total_compressed_size, column_index_length, offset_index_length,
             bloom_filter_length, PageLocation.compressed_page_size ("including header"), the footer length

A rewritten varint may itself grow (an OffsetIndex holding it grows, and what follows moves), so the edits
are recomputed until they stop changing.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from parquet_conformance.generators.parquet import thrift
from parquet_conformance.generators.parquet.edits import Edit, apply_edits
from parquet_conformance.generators.parquet.footer import (
    ParquetFooter,
    Problem,
    StructRef,
    chunk_range,
    finding,
    struct_findings,
    walk,
)
from parquet_conformance.generators.parquet.thrift import Field, ThriftError

DICTIONARY_PAGE = 2  # parquet.thrift PageType
MAX_ROUNDS = 16  # varints grow at most a few times; more rounds means a bug


def _index_locations(footer: ParquetFooter) -> Iterator[tuple[str, str, int, int | None]]:
    """(struct, path, start, length) of every ColumnIndex, OffsetIndex and BloomFilterHeader the footer points at,
    by chunk (encrypted chunks aside: their modules are ciphertext)."""
    for rg in footer.row_groups():
        for cc in rg.children("columns"):
            if cc.get("crypto_metadata") is not None:
                continue
            for name, slug in (("ColumnIndex", "column_index"), ("OffsetIndex", "offset_index")):
                offset = cc.value(f"{slug}_offset")
                if offset is not None:
                    yield name, f"{cc.path}.{slug}", offset, cc.value(f"{slug}_length")
            md = cc.child("meta_data")
            if md is not None and md.value("bloom_filter_offset") is not None:
                yield ("BloomFilterHeader", f"{cc.path}.bloom_filter", md.value("bloom_filter_offset"),
                       md.value("bloom_filter_length"))


def _decode(footer: ParquetFooter, name: str, path: str, start: int, length: int | None) -> list[StructRef] | Problem:
    """The struct at `start` (exactly `length` bytes when given) and the structs inside it, or why not."""
    end = footer.footer_offset if length is None else start + length
    rule = "bloom-filter" if name == "BloomFilterHeader" else "page-index"
    if not (4 <= start < end <= footer.footer_offset):
        return finding(rule, path, f"[{start}, {end}) is outside the data region [4, {footer.footer_offset})")
    try:
        node = thrift.decode_struct(footer.buf, start, end, strict_varints=True)
    except ThriftError as e:
        return finding(rule, path, f"{name} does not decode: {e}")
    if length is not None and name != "BloomFilterHeader" and node.end != end:
        return finding(rule, path, f"{name} ends at byte {node.end}, its length says {end}")
    return list(walk(node, name, path))


def index_structs(footer: ParquetFooter) -> list[StructRef]:
    """Every ColumnIndex, OffsetIndex (with its PageLocations) and BloomFilterHeader that decodes, by chunk."""
    return [r for loc in _index_locations(footer) if isinstance(refs := _decode(footer, *loc), list) for r in refs]


def all_structs(footer: ParquetFooter) -> list[StructRef]:
    """Every struct of the file: the footer's in walk order, then those outside it (page_structs)."""
    return footer.structs() + page_structs(footer)


def page_structs(footer: ParquetFooter) -> list[StructRef]:
    """Every struct outside the footer: the page headers of every chunk (and the structs inside them), then
    the page index and bloom filter headers."""
    return footer.page_headers() + index_structs(footer)


@dataclass(frozen=True)
class Page:
    start: int  # the page header's first byte
    end: int  # one past the page's data
    type: int
    rows: int | None  # DataPageHeaderV2.num_rows; None for v1 pages (rows are not in the header)


def chunk_pages(footer: ParquetFooter, md: StructRef) -> list[Page] | None:
    """The pages of a chunk as its headers describe them, or None where the chunk lies outside the data region
    or a header does not decode or has no usable size (each a finding of strict.check_file, as pages that
    overrun the chunk are)."""
    pos, end = chunk_range(md)
    if not 4 <= pos <= end <= footer.footer_offset:
        return None  # a chunk-outside finding already; its offsets are not to be followed
    pages = []
    while pos < end:
        try:
            header = StructRef("PageHeader", "", thrift.decode_struct(footer.buf, pos, end))
        except ThriftError:
            return None
        size = header.value("compressed_page_size")
        if size is None or size < 0:
            return None
        stop = header.node.end + size
        v2 = header.child("data_page_header_v2")
        pages.append(Page(pos, stop, header.value("type"), v2.value("num_rows") if v2 else None))
        pos = stop
    return pages


def page_level_findings(footer: ParquetFooter) -> list[Problem]:
    """The spec's page-level rules (strict.check_file reports them): data_page_offset is the first data page and a
    dictionary page offset a dictionary page; each index struct decodes to exactly its length and follows
    parquet.thrift; an OffsetIndex lists the chunk's data pages as they are (offset, size with header, rows
    rising from 0); a ColumnIndex has one entry per listed page; a bloom filter's header and bitset fill its
    length. Chunks whose page headers do not decode are left to the page findings."""
    out: list[Problem] = []
    by_path: dict[str, StructRef] = {}
    for loc in _index_locations(footer):
        decoded = _decode(footer, *loc)
        if isinstance(decoded, Problem):
            out.append(decoded)
            continue
        by_path[decoded[0].path] = decoded[0]
        out += [p for ref in decoded for p in struct_findings(ref)]
    for rg in footer.row_groups():
        for cc in rg.children("columns"):
            md = cc.child("meta_data") if cc.get("crypto_metadata") is None else None  # encrypted pages aside
            usable = md is not None and md.get("data_page_offset") is not None and md.get(
                "total_compressed_size") is not None
            pages = chunk_pages(footer, md) if md is not None and usable else None
            if md is not None and pages is not None:
                out += _page_offset_findings(cc, md, pages)
            oi = by_path.get(f"{cc.path}.offset_index")
            if oi is not None and pages is not None:
                out += _offset_index_findings(oi, pages)
            ci = by_path.get(f"{cc.path}.column_index")
            if ci is not None:
                n = len(oi.value("page_locations", [])) if oi is not None else None
                counts = {len(ci.value(f, [])) for f in ("null_pages", "min_values", "max_values")}
                if len(counts) != 1 or (n is not None and counts != {n}):
                    out.append(finding("page-index", f"{cc.path}.column_index",
                                        f"list lengths {sorted(counts)} for {n} pages"))
            bf = by_path.get(f"{cc.path}.bloom_filter")
            if bf is not None and md is not None and md.value("bloom_filter_length") is not None:
                size = bf.node.end - bf.node.start + bf.value("numBytes", 0)
                if size != md.value("bloom_filter_length"):
                    out.append(finding("bloom-filter", f"{cc.path}.bloom_filter",
                                        f"header and bitset take {size} bytes, bloom_filter_length says "
                                        f"{md.value('bloom_filter_length')}"))
    return out


def _page_offset_findings(cc: StructRef, md: StructRef, pages: list[Page]) -> list[Problem]:
    """data_page_offset is the first data page; a dictionary_page_offset is a dictionary page."""
    out = []
    data = next((p.start for p in pages if p.type != DICTIONARY_PAGE), None)
    if data is not None and md.value("data_page_offset") != data:
        out.append(finding("page-offset", f"{md.path}.data_page_offset",
                            f"{md.value('data_page_offset')}, the first data page is at {data}"))
    if md.value("dictionary_page_offset") and pages and pages[0].type != DICTIONARY_PAGE:
        out.append(finding("page-offset", f"{md.path}.dictionary_page_offset",
                            f"{md.value('dictionary_page_offset')} is not a dictionary page"))
    return out


def _offset_index_findings(oi: StructRef, chunk: list[Page]) -> list[Problem]:
    pages = [p for p in chunk if p.type != DICTIONARY_PAGE]
    locations = oi.children("page_locations")
    if len(locations) != len(pages):
        return [finding("page-index", oi.path, f"{len(locations)} page locations for {len(pages)} data pages")]
    last = -1
    for k, (loc, page) in enumerate(zip(locations, pages, strict=True)):
        offset, size, first = (loc.value(f) for f in ("offset", "compressed_page_size", "first_row_index"))
        if (offset, size) != (page.start, page.end - page.start):
            return [finding("page-index", loc.path, f"page at {offset} of {size} bytes, the page is at "
                                                     f"{page.start} of {page.end - page.start}")]
        if first is None or first <= last or (k == 0 and first != 0):
            return [finding("page-index", loc.path, f"first_row_index {first} after {last}")]
        last = first
    return []


# -- moving data ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pointer:
    """An integer field that holds an offset (`region` None: its value is a position) or a length (the bytes
    of `region` it counts; it grows by what is inserted there)."""

    field: Field
    region: tuple[int, int] | None = None

    @property
    def value(self) -> int:
        return int(self.field.value)


def _offsets(ref: StructRef, *names: str) -> list[Pointer]:
    return [Pointer(f) for n in names if (f := ref.get(n)) is not None]


def _length(ref: StructRef, name: str, start: int | None) -> list[Pointer]:
    f = ref.get(name)
    return [] if f is None or start is None else [Pointer(f, (start, start + f.value))]


def pointers(footer: ParquetFooter) -> list[Pointer]:
    """Every offset and length in the file that data movement can change (the footer length aside)."""
    out: list[Pointer] = []
    for rg in footer.row_groups():
        spans = []
        for cc in rg.children("columns"):
            out += _offsets(cc, "file_offset", "column_index_offset", "offset_index_offset")
            out += _length(cc, "column_index_length", cc.value("column_index_offset"))
            out += _length(cc, "offset_index_length", cc.value("offset_index_offset"))
            md = cc.child("meta_data")
            if md is None:
                continue
            start, end = chunk_range(md)
            spans.append((start, end))
            out += _offsets(md, "data_page_offset", "index_page_offset", "dictionary_page_offset",
                            "bloom_filter_offset")
            out += [Pointer(f, (start, end)) for n in ("total_compressed_size", "total_uncompressed_size")
                    if (f := md.get(n)) is not None]
            out += _length(md, "bloom_filter_length", md.value("bloom_filter_offset"))
        out += _offsets(rg, "file_offset")
        if spans:
            region = (min(s for s, _ in spans), max(e for _, e in spans))
            out += [Pointer(f, region) for n in ("total_byte_size", "total_compressed_size")
                    if (f := rg.get(n)) is not None]
    for ref in index_structs(footer):
        if ref.name == "PageLocation":
            out += _offsets(ref, "offset") + _length(ref, "compressed_page_size", ref.value("offset"))
    return out


class Shifts:
    """Where positions go under a set of edits (inserted before stop bytes or replacing varints, so none starts
    exactly where a struct does): an edit moves every position after its start."""

    def __init__(self, edits: Sequence[Edit]) -> None:
        ordered = sorted(edits, key=lambda e: e.start)
        self.starts = [e.start for e in ordered]
        self.before = list(itertools.accumulate((len(e.data) - (e.end - e.start) for e in ordered), initial=0))

    def _sum_below(self, position: int) -> int:
        return self.before[bisect.bisect_left(self.starts, position)]

    def shifted(self, position: int) -> int:
        return position + self._sum_below(position)

    def grown(self, region: tuple[int, int]) -> int:
        """What the edits inside [start, end) add to it."""
        return self._sum_below(region[1]) - self._sum_below(region[0])


def _new_value(p: Pointer, shifts: Shifts) -> int:
    return shifts.shifted(p.value) if p.region is None else p.value + shifts.grown(p.region)


def move(footer: ParquetFooter, inserts: Sequence[Edit]) -> bytes:
    """The file with `inserts` applied anywhere (data region or footer) and every pointer fixed."""
    ptrs = pointers(footer)
    rewrites: list[Edit] = []
    for _ in range(MAX_ROUNDS):
        edits = [*inserts, *rewrites]
        shifts = Shifts(edits)
        again = [Edit(p.field.header_end, p.field.end, thrift.i64_value(v)) for p in ptrs
                 if (v := _new_value(p, shifts)) != p.value]
        if again == rewrites:
            return apply_edits(bytes(footer.buf), edits)
        rewrites = again
    raise RuntimeError(f"offsets did not settle in {MAX_ROUNDS} rounds")


def before_stops(refs: Sequence[StructRef], data: bytes) -> list[Edit]:
    return [Edit(r.node.stop_offset, r.node.stop_offset, data) for r in refs]


def select(footer: ParquetFooter, struct: str, which: int | str) -> list[StructRef]:
    """Page-level structs of one kind in file order: the `which`-th (negative from the end) or `all`."""
    refs = [r for r in page_structs(footer) if r.name == struct]
    if not refs:
        raise ValueError(f"no {struct} outside the footer of this file")
    return refs if which == "all" else [refs[int(which)]]


def page_level_paths(footer: ParquetFooter) -> Iterator[tuple[str, str]]:
    """(struct, path) of every page-level struct, for tests and reports."""
    for ref in page_structs(footer):
        yield ref.name, ref.path
