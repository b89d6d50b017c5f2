"""The encoding extension of seed 001 "Encoding": new encodings first, old ones after, offsets in a
ColumnMetaData extension."""

from __future__ import annotations

import io
from dataclasses import dataclass

from parquet_conformance.generators.parquet import profiles
from parquet_conformance.generators.parquet.edits import Edit, apply_edits, extension_field, set_i64
from parquet_conformance.generators.parquet.footer import StructRef, chunk_range, parse_file
from parquet_conformance.generators.parquet.mutations import Context, Mutation, register
from parquet_conformance.generators.parquet.mutations.extension import Header


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
