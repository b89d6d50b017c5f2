"""The metadata summary: what a metadata-only reader (role `metadata`) answers instead of the data, in the
canonical form of generators/canonical.py, so that it is hashed and compared as data is.

One row of three columns, every value as the file's metadata says it (null where a field is absent):

    num_rows     FileMetaData.num_rows
    schema       the SchemaElements in order: name, type, repetition, num_children
    row_groups   per RowGroup: num_rows, and per ColumnChunk: path (path_in_schema joined by "."), type, codec,
                 num_values (its ColumnMetaData), and the types of the page headers found by walking the chunk's
                 total_compressed_size from its first page (null for an encrypted column, whose headers are
                 ciphertext)

Enums are their parquet.thrift names (a value outside the enum as its number, in text). `summary` builds it from
plain values; `footer_summary` from our own decoder's reading (footer.py), so that an adapter's conversion of
another library's structs and the expected summary go through the same code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from parquet_conformance.generators.canonical import canonical_rows
from parquet_conformance.generators.parquet.footer import ParquetFooter, StructRef, _walk_pages

TYPES = ("BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY")
REPETITIONS = ("REQUIRED", "OPTIONAL", "REPEATED")
CODECS = ("UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW")
PAGE_TYPES = ("DATA_PAGE", "INDEX_PAGE", "DICTIONARY_PAGE", "DATA_PAGE_V2")
COLUMNS = ("num_rows", "schema", "row_groups")


def enum(names: Sequence[str], value: int | None) -> str | None:
    if value is None:
        return None
    return names[value] if 0 <= value < len(names) else str(value)


def text(value: str | bytes | None) -> str | None:
    return value.decode("utf-8", "replace") if isinstance(value, (bytes, bytearray)) else value


def element(name: str | bytes | None, type_: int | None, repetition: int | None,
            num_children: int | None) -> dict[str, Any]:
    return {"name": text(name), "type": enum(TYPES, type_), "repetition": enum(REPETITIONS, repetition),
            "num_children": num_children}


def chunk(path: Sequence[str | bytes] | None, type_: int | None, codec: int | None, num_values: int | None,
          pages: Sequence[int | None] | None) -> dict[str, Any]:
    return {"path": None if path is None else ".".join(text(p) or "" for p in path), "type": enum(TYPES, type_),
            "codec": enum(CODECS, codec), "num_values": num_values,
            "pages": None if pages is None else [enum(PAGE_TYPES, p) for p in pages]}


def summary(num_rows: int | None, schema: Sequence[dict[str, Any]],
            row_groups: Sequence[tuple[int | None, Sequence[dict[str, Any]]]]) -> dict[str, Any]:
    """The canonical summary from `element`s and (num_rows, `chunk`s) per row group."""
    groups = [{"num_rows": n, "columns": list(chunks)} for n, chunks in row_groups]
    return canonical_rows(list(COLUMNS), [[num_rows, list(schema), groups]])


def footer_summary(footer: ParquetFooter) -> dict[str, Any]:
    """The summary of a footer as our decoder reads it (read_footer's level: fields of another wire type than
    declared are absent, as generated code skips them). ValueError for an encrypted footer: no FileMetaData."""
    if footer.encrypted_footer:
        raise ValueError("an encrypted footer: no FileMetaData to summarise without its key")
    root = footer.root
    pages: dict[str, list[int | None]] = {}
    for path, header, _problem in _walk_pages(footer):
        if header is not None:
            chunk_path = path.rsplit(".pages[", 1)[0]
            pages.setdefault(chunk_path, []).append(StructRef("PageHeader", path, header).value("type"))
    schema = [element(e.value("name"), e.value("type"), e.value("repetition_type"), e.value("num_children"))
              for e in root.children("schema")]
    groups = []
    for rg in root.children("row_groups"):
        chunks = []
        for cc in rg.children("columns"):
            md = cc.child("meta_data")
            in_schema, type_, codec, num_values = (None if md is None else md.value(f)
                                                   for f in ("path_in_schema", "type", "codec", "num_values"))
            walked = None if cc.get("crypto_metadata") is not None else pages.get(cc.path, [])
            chunks.append(chunk(in_schema, type_, codec, num_values, walked))
        groups.append((rg.value("num_rows"), chunks))
    return summary(root.value("num_rows"), schema, groups)
