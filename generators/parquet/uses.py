"""The apache/parquet-site feature ids a Parquet file uses, read from its footer and its page headers: what a writer
shows it writes when it writes the file (corpus/parquet/writing.py records them on a written file; the parquet-site
report's `full` and `write` rest on them: reports/parquet/table.py). A feature counts only where the file holds it:
a type in its schema, an encoding in a page header (the values', and BIT_PACKED levels), a codec in a chunk, a page
kind, a CRC, statistics, an index, a filter. Levels in RLE are in every file and count for nothing."""

from __future__ import annotations

from parquet_conformance.generators.parquet import thrift
from parquet_conformance.generators.parquet.footer import FooterError, ParquetFooter, StructRef, chunk_range

PHYSICAL = {0: "boolean", 1: "int32", 2: "int64", 3: "int96", 4: "float", 5: "double", 6: "byte-array",
            7: "fixed-len-byte-array"}
CODECS = {0: "uncompressed", 1: "snappy", 2: "gzip", 3: "lzo", 4: "brotli", 5: "lz4-deprecated", 6: "zstd",
          7: "lz4-raw"}
ENCODINGS = {0: "plain", 2: "plain-dictionary", 3: "rle", 4: "bit-packed", 5: "delta-binary-packed",
             6: "delta-length-byte-array", 7: "delta-byte-array", 8: "rle-dictionary", 9: "byte-stream-split",
             10: "alp"}
# LogicalType members and ConvertedType values with one site id each (DECIMAL, TIME and TIMESTAMP depend on more)
LOGICAL = {"STRING": "string", "MAP": "map", "LIST": "list", "ENUM": "enum", "DATE": "date", "INTEGER": "int-types",
           "UNKNOWN": "unknown", "JSON": "json", "BSON": "bson", "UUID": "uuid", "FLOAT16": "float16",
           "VARIANT": "variant", "GEOMETRY": "geometry", "GEOGRAPHY": "geography", "FILE": "file"}
CONVERTED = {0: "string", 1: "map", 2: "map", 3: "list", 4: "enum", 6: "date", 19: "json", 20: "bson",
             21: "interval", **dict.fromkeys(range(11, 19), "int-types")}
DATA_PAGE, DICTIONARY_PAGE, DATA_PAGE_V2 = 0, 2, 3


def _schema(element: StructRef) -> set[str]:
    physical = element.value("type")
    out = {f"physical-{PHYSICAL[physical]}"} if physical in PHYSICAL else set()
    logical = element.child("logicalType")
    converted = element.value("converted_type")
    if logical is not None:
        out.add("logical-type-union")
        for member, name in LOGICAL.items():
            if logical.get(member) is not None:
                out.add(f"logical-{name}")
        kinds = [logical.child(k) for k in ("TIME", "TIMESTAMP")]
        unit = next((k.child("unit") for k in kinds if k is not None), None)
        if unit is not None and unit.get("NANOS") is not None:
            out.add("logical-nanosecond-time-timestamp")
        elif logical.get("TIME") is not None and physical in (1, 2):
            out.add(f"logical-time-{PHYSICAL[physical]}")
        elif logical.get("TIMESTAMP") is not None and physical == 2:
            out.add("logical-timestamp-int64")
    if converted in CONVERTED:
        out.add(f"logical-{CONVERTED[converted]}")
    if converted in (7, 8) and physical in (1, 2):
        out.add(f"logical-time-{PHYSICAL[physical]}")
    if converted in (9, 10) and physical == 2:
        out.add("logical-timestamp-int64")
    if (converted == 5 or (logical is not None and logical.get("DECIMAL") is not None)) and physical in (1, 2, 6, 7):
        out.add(f"logical-decimal-{PHYSICAL[physical]}")
    return out


def _pages(footer: ParquetFooter, md: StructRef) -> list[StructRef]:
    """The page headers of a chunk (none where one does not decode: the strict decoder reports that)."""
    try:
        pos, end = chunk_range(md)
    except FooterError:
        return []
    out: list[StructRef] = []
    while 4 <= pos < end <= footer.footer_offset:
        try:
            header = StructRef("PageHeader", "", thrift.decode_struct(footer.buf, pos, end))
        except thrift.ThriftError:
            return out
        size = header.value("compressed_page_size")
        if type(size) is not int or size < 0:
            return out
        out.append(header)
        pos = header.node.end + size
    return out


def _chunk(footer: ParquetFooter, md: StructRef) -> set[str]:
    out = set()
    if md.value("codec") in CODECS:
        out.add(f"compression-{CODECS[md.value('codec')]}")
    stats = md.child("statistics")
    if stats is not None and stats.get("min_value") is not None and stats.get("max_value") is not None:
        out.add("format-stats-min-max")
    if stats is not None and stats.get("nan_count") is not None:
        out.add("format-ieee-754-total-order-and-nan-counts")
    if md.get("bloom_filter_offset") is not None:
        out.add("format-bloom-filters")
    if md.get("bloom_filter_length") is not None:
        out.add("format-bloom-filter-length")
    if md.get("size_statistics") is not None:
        out.add("format-size-statistics")
    if md.get("geospatial_statistics") is not None:
        out.add("format-geospatial-statistics")
    physical = md.value("type")
    for page in _pages(footer, md):
        kind = page.value("type")
        if page.get("crc") is not None:
            out.add("format-page-crc32")
        header = page.child({DATA_PAGE: "data_page_header", DICTIONARY_PAGE: "dictionary_page_header",
                             DATA_PAGE_V2: "data_page_header_v2"}.get(kind, "data_page_header"))
        if header is None:
            continue
        out.add({DATA_PAGE: "format-data-page-v1", DATA_PAGE_V2: "format-data-page-v2"}.get(kind, ""))
        encoding = header.value("encoding")
        if encoding == 9 and physical not in (4, 5):
            out.add("encoding-byte-stream-split-extended")
        elif encoding in ENCODINGS and not (encoding == 3 and kind == DICTIONARY_PAGE):
            out.add(f"encoding-{ENCODINGS[encoding]}")
        if kind == DATA_PAGE and 4 in (header.value("definition_level_encoding"),
                                       header.value("repetition_level_encoding")):
            out.add("encoding-bit-packed")
    return out - {""}


def uses(footer: ParquetFooter) -> tuple[str, ...]:
    """The site's feature ids the file uses, sorted (nothing of an encrypted footer: its structs are behind a key)."""
    if footer.encrypted_footer:
        return ()
    found: set[str] = set()
    for element in footer.root.children("schema")[1:]:
        found |= _schema(element)
    for rg in footer.row_groups():
        for cc in rg.children("columns"):
            if cc.get("offset_index_offset") is not None or cc.get("column_index_offset") is not None:
                found.add("format-page-index")
            md = cc.child("meta_data")
            if md is not None and cc.get("crypto_metadata") is None:
                found |= _chunk(footer, md)
    orders = footer.root.children("column_orders") if footer.root.get("column_orders") is not None else []
    if any(o.get("IEEE_754_TOTAL_ORDER") is not None for o in orders):
        found.add("format-ieee-754-total-order-and-nan-counts")
    return tuple(sorted(found))
