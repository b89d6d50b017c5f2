"""Encodings: the encoding extension of seed 001 "Encoding" (new encodings first, old ones after, offsets in a
ColumnMetaData extension), and a column's PLAIN data pages re-encoded as ALP (Encoding 10, parquet.thrift 2.13)."""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np

from parquet_conformance.generators.parquet import alp, profiles, thrift
from parquet_conformance.generators.parquet.edits import Edit, apply_edits, extension_field, set_i64
from parquet_conformance.generators.parquet.footer import (
    StructRef,
    chunk_range,
    column_meta,
    read_footer,
    top_level_leaf,
)
from parquet_conformance.generators.parquet.layout import chunk_pages, move
from parquet_conformance.generators.parquet.mutations.base import Context, Mutation, register
from parquet_conformance.generators.parquet.mutations.extension import Header
from parquet_conformance.generators.parquet.strict import parse_file
from parquet_conformance.generators.steps import MutationError


def _column_path(md: StructRef) -> str:
    return ".".join(p.decode() for p in md.value("path_in_schema"))


@register("add_encoding_extension")
@dataclass(frozen=True)
class AddEncodingExtension(Mutation):
    """The named PLAIN columns also written as BYTE_STREAM_SPLIT, those chunks placed at the start of each
    row group, the old chunks after them (every recorded offset moves with them), and in each such
    ColumnMetaData an extension with the new chunk's offset and length. `bad_offset` points the extensions
    past the end of the file."""

    columns: tuple[str, ...]
    header: Header = "zigzag"
    bad_offset: bool = False

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        import pyarrow.parquet as pq

        footer = parse_file(buf)
        rgs = footer.row_groups()
        sink = io.BytesIO()
        pq.write_table(pq.read_table(io.BytesIO(buf)), sink, compression="none", use_dictionary=False,
                       data_page_version="1.0", use_byte_stream_split=list(self.columns),
                       row_group_size=rgs[0].value("num_rows"))
        new = sink.getvalue()
        new_rgs = parse_file(new).row_groups()
        data, size, pos, edits = [b"PAR1"], 4, 4, []

        def put(chunk: bytes) -> int:
            nonlocal size
            data.append(chunk)
            size += len(chunk)
            return size - len(chunk)

        for rg, new_rg in zip(rgs, new_rgs, strict=True):
            mds = [cc.need("meta_data") for cc in rg.children("columns")]
            start = min(chunk_range(md)[0] for md in mds)
            end = max(chunk_range(md)[1] for md in mds)
            put(buf[pos:start])
            placed = {}
            for cc in new_rg.children("columns"):
                md = cc.need("meta_data")
                if _column_path(md) in self.columns:
                    a, b = chunk_range(md)
                    placed[_column_path(md)] = (put(new[a:b]), b - a)
            shift = put(buf[start:end]) - start
            pos = end
            for j, cc in enumerate(rg.children("columns")):
                md = cc.need("meta_data")
                moved = [(md, "data_page_offset"), (md, "index_page_offset"), (md, "dictionary_page_offset"),
                         (cc, "file_offset"), *([(rg, "file_offset")] if j == 0 else [])]
                edits += [set_i64(ref, f, ref.value(f) + shift) for ref, f in moved if ref.value(f)]
                if (path := _column_path(md)) in placed:
                    offset, length = placed[path]
                    body = profiles.encoding_payload(len(buf) * 4 if self.bad_offset else offset, length)
                    ctx.wrote("ColumnMetaData", md.path, self.header, body)
                    edits.append(Edit(md.node.stop_offset, md.node.stop_offset, extension_field(body, self.header)))
        put(buf[pos:footer.footer_offset])
        edited = apply_edits(buf, edits)
        return b"".join(data) + edited[footer.footer_offset:]


PLAIN, DATA_PAGE, UNCOMPRESSED = 0, 0, 0
ALP_TYPES = {4: False, 5: True}  # parquet.thrift Type FLOAT, DOUBLE -> ALP's `double`


@register("encode_alp")
@dataclass(frozen=True)
class EncodeAlp(Mutation):
    """Every PLAIN v1 data page of the top-level FLOAT or DOUBLE column `column` (uncompressed, no page CRC)
    re-encoded as ALP in vectors of 2^log_vector_size values (generators/parquet/alp.py): the page's values
    replaced, its sizes and encoding rewritten, and the chunk's `encodings` and `encoding_stats` saying ALP where they
    said PLAIN; the data after each page moves (layout.move)."""

    column: str
    log_vector_size: int = alp.LOG_VECTOR_SIZE

    def check(self) -> None:
        if not 3 <= self.log_vector_size <= 15:
            raise MutationError(f"encode_alp: log_vector_size {self.log_vector_size} is not in [3, 15]")

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        footer, _ = read_footer(buf)
        leaves = [el for el in footer.root.children("schema")[1:] if not el.value("num_children")]
        leaf = next((el for el in leaves if el.value("name") == self.column.encode()), None)
        if leaf is None or len(leaves) != len(footer.root.children("schema")) - 1:
            raise ValueError(f"encode_alp: no top-level leaf column {self.column!r} in a flat schema")
        optional = leaf.value("repetition_type") == 1
        edits: list[Edit] = []
        for md in column_meta(footer, self.column):
            if md.value("type") not in ALP_TYPES or md.value("codec") != UNCOMPRESSED:
                raise ValueError(f"encode_alp: {md.path} is not an uncompressed FLOAT or DOUBLE chunk")
            double = ALP_TYPES[md.value("type")]
            edits += [e for page in chunk_pages(footer, md) or []
                      for e in _page(buf, page.start, double, optional, self.log_vector_size)]
            edits += _metadata(md)
        if not edits:
            raise ValueError(f"encode_alp: column {self.column!r} has no PLAIN data page")
        return move(footer, edits)


def _page(buf: bytes, start: int, double: bool, optional: bool, log_vector_size: int) -> list[Edit]:
    header = StructRef("PageHeader", "", thrift.decode_struct(buf, start))
    dph = header.child("data_page_header")
    if header.value("type") != DATA_PAGE or dph is None or dph.value("encoding") != PLAIN:
        return []
    if header.get("crc") is not None:
        raise ValueError("encode_alp: a page with a CRC (it would no longer match)")
    body = header.node.end
    end = body + header.value("compressed_page_size")
    levels = 4 + int.from_bytes(buf[body:body + 4], "little") if optional else 0
    values = np.frombuffer(buf[body + levels:end], "<f8" if double else "<f4")  # the bits as written
    encoded = alp.encode(values, double, log_vector_size)
    size = levels + len(encoded)
    return [set_i64(header, "uncompressed_page_size", size), set_i64(header, "compressed_page_size", size),
            set_i64(dph, "encoding", alp.ALP), Edit(body + levels, end, encoded)]


def _metadata(md: StructRef) -> list[Edit]:
    """PLAIN becomes ALP in the chunk's encodings (the list rewritten) and its data pages' encoding_stats."""
    f = md.get("encodings")
    assert f is not None  # required, and the chunk's pages were found through it
    listed = [alp.ALP if e == PLAIN else e for e in f.value]
    edits = [Edit(f.header_end, f.end, thrift.encode_value(thrift.LIST, (thrift.I32, listed)))]
    for stats in md.children("encoding_stats") if md.get("encoding_stats") else []:
        if stats.value("page_type") == DATA_PAGE and stats.value("encoding") == PLAIN:
            edits.append(set_i64(stats, "encoding", alp.ALP))
    return edits


PFOR_TYPES = {1: 4, 2: 8}  # parquet.thrift Type INT32, INT64 -> PFOR's value_byte_width


@register("encode_pfor")
@dataclass(frozen=True)
class EncodePfor(Mutation):
    """Every PLAIN v1 data page of the top-level INT32 or INT64 column `column` (uncompressed, no page CRC)
    re-encoded as PFOR (Encoding 11, PR #579: generators/parquet/pfor.py): the page's values replaced, its sizes and
    encoding rewritten, the chunk's `encodings` and `encoding_stats` saying 11 where they said PLAIN; the data after
    each page moves (layout.move)."""

    column: str

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        from parquet_conformance.generators.parquet import pfor  # on use, for start-up: only the PFOR case needs it

        footer, _ = read_footer(buf)
        leaf = top_level_leaf(footer, self.column)
        if leaf is None:
            raise ValueError(f"encode_pfor: no top-level leaf column {self.column!r}")
        optional = leaf.value("repetition_type") == 1
        edits: list[Edit] = []
        for md in column_meta(footer, self.column):
            if md.value("type") not in PFOR_TYPES or md.value("codec") != UNCOMPRESSED:
                raise ValueError(f"encode_pfor: {md.path} is not an uncompressed INT32 or INT64 chunk")
            width = PFOR_TYPES[md.value("type")]
            for page in chunk_pages(footer, md) or []:
                header = StructRef("PageHeader", "", thrift.decode_struct(buf, page.start))
                dph = header.child("data_page_header")
                if header.value("type") != DATA_PAGE or dph is None or dph.value("encoding") != PLAIN:
                    continue
                if header.get("crc") is not None:
                    raise ValueError("encode_pfor: a page with a CRC (it would no longer match)")
                body, end = header.node.end, header.node.end + header.value("compressed_page_size")
                levels = 4 + int.from_bytes(buf[body:body + 4], "little") if optional else 0
                values = np.frombuffer(buf[body + levels:end], "<i4" if width == 4 else "<i8").tolist()
                size = levels + len(encoded := pfor.encode(values, width))
                edits += [set_i64(header, "uncompressed_page_size", size),
                          set_i64(header, "compressed_page_size", size), set_i64(dph, "encoding", pfor.PFOR),
                          Edit(body + levels, end, encoded)]
            f = md.get("encodings")
            assert f is not None
            listed = [pfor.PFOR if e == PLAIN else e for e in f.value]
            edits.append(Edit(f.header_end, f.end, thrift.encode_value(thrift.LIST, (thrift.I32, listed))))
            for stats in md.children("encoding_stats") if md.get("encoding_stats") else []:
                if stats.value("page_type") == DATA_PAGE and stats.value("encoding") == PLAIN:
                    edits.append(set_i64(stats, "encoding", pfor.PFOR))
        if not edits:
            raise ValueError(f"encode_pfor: column {self.column!r} has no PLAIN data page")
        return move(footer, edits)
