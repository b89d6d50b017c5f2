"""A file rewritten with one feature: the same rows written again by pyarrow with an option (an encoding, a codec,
data page v2, checksums, statistics, a page index, bloom filters), or as another writer wrote them (a committed
fixture), the schema of a nested column in a legacy form LogicalTypes.md's backward-compatibility rules read, and
definition levels in the deprecated BIT_PACKED encoding (our own encoder: no writer we have writes it)."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

from parquet_conformance.generators.parquet import thrift
from parquet_conformance.generators.parquet.edits import (
    Edit,
    FieldBytes,
    apply_edits,
    field_list,
    set_i64,
    write_fields,
)
from parquet_conformance.generators.parquet.footer import (
    ParquetFooter,
    StructRef,
    column_meta,
    field_id,
    read_footer,
    top_level_leaf,
)
from parquet_conformance.generators.parquet.layout import chunk_pages, move
from parquet_conformance.generators.parquet.mutations.base import Context, Mutation, register
from parquet_conformance.generators.steps import MutationError

# pyarrow's write_table options a case may set (on top of bases.WRITE_OPTIONS): the features the family varies.
OPTIONS = frozenset({"compression", "data_page_version", "use_dictionary", "column_encoding", "write_statistics",
                     "write_page_checksum", "write_page_index", "bloom_filter_options", "data_page_size",
                     "write_batch_size", "version", "store_schema"})


@register("write_as")
@dataclass(frozen=True)
class WriteAs(Mutation):
    """The file's rows, as pyarrow reads them, written again by pyarrow with the features family's fixed settings
    (bases.WRITE_OPTIONS and FEATURE_OPTIONS: no statistics), these `options` over them, and the row groups of the
    file (their first one's size)."""

    options: dict[str, Any] = field(hash=False)
    # pyarrow writes ColumnMetaData.size_statistics in every file and has no option to leave it out: taken out
    # again (bases.NO_SIZE_STATISTICS) unless the case is about it
    size_statistics: bool = False

    def check(self) -> None:
        if unknown := sorted(set(self.options) - OPTIONS):
            raise MutationError(f"write_as: {unknown[0]!r} is not an option of the features family")

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        import pyarrow.parquet as pq

        from parquet_conformance.generators.parquet.bases import (  # on use (start-up): bases imports pyarrow
            FEATURE_OPTIONS,
            NO_SIZE_STATISTICS,
            WRITE_OPTIONS,
            stripped,
        )

        source = pq.ParquetFile(io.BytesIO(buf))
        sink = io.BytesIO()
        pq.write_table(source.read(), sink, **{**WRITE_OPTIONS, **dict(FEATURE_OPTIONS), **self.options,
                                               "row_group_size": source.metadata.row_group(0).num_rows})
        return sink.getvalue() if self.size_statistics else stripped(sink.getvalue(), NO_SIZE_STATISTICS)


@register("use_fixture")
@dataclass(frozen=True)
class UseFixture(Mutation):
    """The file is the committed fixture `fixture` (generators/parquet/fixtures, checked against its sha256 in
    provenance.json): the base's rows as the base's writer wrote them with one feature more."""

    fixture: str

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        from parquet_conformance.generators.parquet.bases import fixture_bytes  # on use (start-up): imports pyarrow

        return fixture_bytes(self.fixture)


REPETITION = {"required": 0, "optional": 1, "repeated": 2}


@register("reshape_schema")
@dataclass(frozen=True)
class ReshapeSchema(Mutation):
    """The schema of a nested column rewritten in the footer, its pages as written: the schema elements at the
    dotted paths `drop` taken out (their children take their place; a parent's num_children counts them), those at
    `repeated` made repeated, those at `rename` renamed, every ColumnMetaData.path_in_schema rewritten to match. The
    paths name elements as the file has them before the step. Dropping a group that only nests keeps every column's
    repetition and definition levels: the pages need not change."""

    drop: tuple[str, ...] = ()
    repeated: tuple[str, ...] = ()
    rename: dict[str, str] = field(default_factory=dict, hash=False)  # path -> its new name

    def check(self) -> None:
        if not (self.drop or self.repeated or self.rename):
            raise MutationError("reshape_schema: nothing to change")

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        footer, _ = read_footer(buf)
        elements = footer.root.children("schema")
        paths = _element_paths(elements)
        where = {p: i for i, p in enumerate(paths)}
        for p in (*self.drop, *self.repeated, *self.rename):
            if p not in where:
                raise ValueError(f"reshape_schema: no schema element at {p!r}")
        dropped = {where[p] for p in self.drop}
        names = {where[p]: n for p, n in self.rename.items()}
        children = _children(elements)

        def width(i: int) -> int:  # how many children an element stands for where it is: a dropped one, its own
            return sum(width(c) for c in children.get(i, [])) if i in dropped else 1

        counts = {i: sum(width(c) for c in kids) for i, kids in children.items()}
        new = []
        for i, el in enumerate(elements):
            if i in dropped:
                continue
            fields = field_list(buf, el)
            changes = {"num_children": (thrift.I32, counts[i]) if children.get(i) else None,
                       "repetition_type": (thrift.I32, REPETITION["repeated"]) if paths[i] in self.repeated else None,
                       "name": (thrift.BINARY, names[i].encode()) if i in names else None}
            for name, change in changes.items():
                if change is None:
                    continue
                fid = field_id("SchemaElement", name)
                fields = [f for f in fields if f.id != fid]
                fields.append(FieldBytes(fid, change[0], thrift.encode_value(*change)))
            new.append(write_fields(sorted(fields, key=lambda f: f.id), respell=True) + b"\x00")
        schema = footer.root.get("schema")
        assert schema is not None  # required, and read above
        edits = [Edit(schema.header_end, schema.end, thrift.encode_value(thrift.LIST, (thrift.STRUCT, new)))]
        leaf_paths = [_leaf_path(elements, dropped, names, i) for i, el in enumerate(elements)
                      if not el.value("num_children")]
        for rg in footer.row_groups():
            for cc, path in zip(rg.children("columns"), leaf_paths, strict=True):
                f = cc.need("meta_data").get("path_in_schema")
                assert f is not None
                edits.append(Edit(f.header_end, f.end, thrift.encode_value(thrift.LIST, (thrift.BINARY, path))))
        return apply_edits(buf, edits)


def _children(elements: list[StructRef]) -> dict[int, list[int]]:
    """index -> the indexes of its children, for every group of the depth-first schema list."""
    out: dict[int, list[int]] = {}

    def walk(i: int) -> int:
        n, nxt = elements[i].value("num_children") or 0, i + 1
        out[i] = []
        for _ in range(n):
            out[i].append(nxt)
            nxt = walk(nxt)
        return nxt
    walk(0)
    return {i: kids for i, kids in out.items() if kids}


def _element_paths(elements: list[StructRef]) -> list[str]:
    """The dotted path of each schema element below the root ("" for the root)."""
    parent = {c: p for p, kids in _children(elements).items() for c in kids}
    paths = [""]
    for i in range(1, len(elements)):
        up = paths[parent[i]]
        paths.append(f"{up}.{elements[i].value('name').decode()}" if up else elements[i].value("name").decode())
    return paths


def _leaf_path(elements: list[StructRef], dropped: set[int], names: dict[int, str], leaf: int) -> list[bytes]:
    parent = {c: p for p, kids in _children(elements).items() for c in kids}
    chain, i = [], leaf
    while i != 0:
        if i not in dropped:
            chain.append((names.get(i) or elements[i].value("name").decode()).encode())
        i = parent[i]
    return chain[::-1]


@register("bit_pack_levels")
@dataclass(frozen=True)
class BitPackLevels(Mutation):
    """The definition levels of every v1 data page of the top-level column `column` (uncompressed, no page CRC)
    re-encoded from the RLE/bit-packing hybrid into the deprecated BIT_PACKED encoding (Encodings.md "Bit-packed
    (Deprecated)": values packed from the most significant bit, no length prefix), the page's
    definition_level_encoding and the chunk's `encodings` saying BIT_PACKED; the data after each page moves."""

    column: str

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        footer, _ = read_footer(buf)
        leaf = top_level_leaf(footer, self.column)
        if leaf is None or leaf.value("repetition_type") != REPETITION["optional"]:
            raise ValueError(f"bit_pack_levels: no optional top-level column {self.column!r}")
        edits: list[Edit] = []
        for md in column_meta(footer, self.column):
            if md.value("codec") != 0:
                raise ValueError(f"bit_pack_levels: {md.path} is compressed")
            for page in chunk_pages(footer, md) or []:
                edits += _bit_packed_page(buf, page.start)
            f = md.get("encodings")
            assert f is not None
            listed = sorted({BIT_PACKED if e == RLE else e for e in f.value})
            edits.append(Edit(f.header_end, f.end, thrift.encode_value(thrift.LIST, (thrift.I32, listed))))
        if not edits:
            raise ValueError(f"bit_pack_levels: column {self.column!r} has no data page")
        return move(footer, edits)


RLE, BIT_PACKED, DATA_PAGE = 3, 4, 0


def _bit_packed_page(buf: bytes, start: int) -> list[Edit]:
    header = StructRef("PageHeader", "", thrift.decode_struct(buf, start))
    dph = header.child("data_page_header")
    if header.value("type") != DATA_PAGE or dph is None:
        return []
    if header.get("crc") is not None or dph.value("definition_level_encoding") != RLE:
        raise ValueError("bit_pack_levels: a page with a CRC or levels not in RLE")
    body = header.node.end
    length = int.from_bytes(buf[body:body + 4], "little")
    levels = rle_levels(buf[body + 4:body + 4 + length], dph.value("num_values"), 1)
    packed = bit_packed(levels, 1)
    size = header.value("compressed_page_size") - 4 - length + len(packed)
    return [set_i64(header, "uncompressed_page_size", size), set_i64(header, "compressed_page_size", size),
            set_i64(dph, "definition_level_encoding", BIT_PACKED), Edit(body, body + 4 + length, packed)]


def rle_levels(data: bytes, count: int, width: int) -> list[int]:
    """Levels in the RLE/bit-packing hybrid (Encodings.md), without its length prefix."""
    out: list[int] = []
    pos, mask, size = 0, (1 << width) - 1, (width + 7) // 8
    while len(out) < count:
        header, shift = 0, 0
        while True:
            b = data[pos]
            pos += 1
            header |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        if header & 1:  # bit-packed groups of 8, least significant bit first
            groups = header >> 1
            bits = int.from_bytes(data[pos:pos + groups * width], "little")
            out += [(bits >> (k * width)) & mask for k in range(groups * 8)]
            pos += groups * width
        else:
            out += [int.from_bytes(data[pos:pos + size], "little")] * (header >> 1)
            pos += size
    return out[:count]


def bit_packed(levels: list[int], width: int) -> bytes:
    """Encodings.md's deprecated BIT_PACKED: each value's bits from the most significant to the least, the values
    one after another from the byte's most significant bit, padded to a whole byte."""
    bits = "".join(format(v, f"0{width}b") for v in levels)
    bits += "0" * (-len(bits) % 8)
    return int(bits, 2).to_bytes(len(bits) // 8, "big") if bits else b""



def max_levels(footer: ParquetFooter) -> dict[tuple[bytes, ...], tuple[int, int]]:
    """Each leaf column's path -> its maximum repetition and definition levels (the repeated and the non-required
    fields on its path)."""
    elements = footer.root.children("schema")
    out: dict[tuple[bytes, ...], tuple[int, int]] = {}

    def walk(i: int, path: tuple[bytes, ...], rep: int, dfn: int) -> int:
        n, nxt = elements[i].value("num_children") or 0, i + 1
        for _ in range(n):
            el = elements[nxt]
            kind = el.value("repetition_type")
            here = (*path, el.value("name"))
            r, d = rep + (kind == REPETITION["repeated"]), dfn + (kind != REPETITION["required"])
            if el.value("num_children"):
                nxt = walk(nxt, here, r, d)
            else:
                out[here] = (r, d)
                nxt += 1
        return nxt
    walk(0, (), 0, 0)
    return out


def rle_from_bit_packed(buf: bytes) -> bytes:
    """The file with the levels of every uncompressed v1 data page written in the deprecated BIT_PACKED encoding
    (without a page CRC) written again in the RLE/bit-packing hybrid, as one bit-packed run: the same levels, in the
    encoding every reader reads. What the reference reader gives pyarrow, which reads BIT_PACKED least significant
    bit first (apache/arrow#42368, open); the file unchanged where no page has such levels."""
    footer, _ = read_footer(buf)
    chunks = [md for rg in footer.row_groups() for cc in rg.children("columns")  # none behind an encrypted footer
              if (md := cc.child("meta_data")) is not None and md.value("codec") == 0
              and BIT_PACKED in (md.value("encodings") or [])]
    if not chunks:
        return buf
    levels_of = max_levels(footer)
    edits: list[Edit] = []
    for md in chunks:
        rep, dfn = levels_of[tuple(md.value("path_in_schema"))]
        for page in chunk_pages(footer, md) or []:
            edits += _rle_page(buf, page.start, rep, dfn)
    return move(footer, edits) if edits else buf


def _rle_page(buf: bytes, start: int, max_rep: int, max_def: int) -> list[Edit]:
    header = StructRef("PageHeader", "", thrift.decode_struct(buf, start))
    dph = header.child("data_page_header")
    if header.value("type") != DATA_PAGE or dph is None or header.get("crc") is not None:
        return []
    n, pos, grow, edits = dph.value("num_values"), header.node.end, 0, []
    for top, field_name in ((max_rep, "repetition_level_encoding"), (max_def, "definition_level_encoding")):
        if top == 0:
            continue
        width = top.bit_length()
        if dph.value(field_name) != BIT_PACKED:
            pos += 4 + int.from_bytes(buf[pos:pos + 4], "little")
            continue
        size = (n * width + 7) // 8
        bits = "".join(format(b, "08b") for b in buf[pos:pos + size])
        levels = [int(bits[k * width:(k + 1) * width], 2) for k in range(n)]
        groups = (n + 7) // 8
        run = thrift.uleb(groups << 1 | 1) + sum(v << (k * width) for k, v in enumerate(levels)).to_bytes(
            groups * width, "little")
        encoded = len(run).to_bytes(4, "little") + run
        edits += [Edit(pos, pos + size, encoded), set_i64(dph, field_name, RLE)]
        grow += len(encoded) - size
        pos += size
    if not edits:
        return []
    size = header.value("compressed_page_size") + grow
    return [*edits, set_i64(header, "uncompressed_page_size", size), set_i64(header, "compressed_page_size", size)]
