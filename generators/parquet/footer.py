"""The Parquet file tail and the structs of its Thrift footer, with byte spans.

Struct and field names follow apache/parquet-format `src/main/thrift/parquet.thrift`
(commit 24102ed5c56e51b610a4897e5f79e76e43732d1d). `parse_file` is deliberately strict:
it is the judge that every corrupt case of the corpus really is corrupt.
"""

from __future__ import annotations

import hashlib
import struct as _struct
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from parquet_conformance.generators.parquet import thrift
from parquet_conformance.generators.parquet.thrift import Buffer, Field, Struct, ThriftError

EXTENSION_ID = 32767
# BinaryProtocolExtensions.md writes the header as `08 FF FF 01` (ULEB128 of 32767); a compact
# reader zigzag-decodes that varint to field id -16384. See docs/spec-notes.md.
SPEC_FORM_ID = -16384
EXTENSION_IDS = (EXTENSION_ID, SPEC_FORM_ID)
HEADER_FORMS = {b"\x08\xff\xff\x01": "spec", b"\x08\xfe\xff\x03": "zigzag"}
MAGIC = b"PAR1"
ENCRYPTED_MAGIC = b"PARE"
SIGNATURE = 28  # a plaintext footer's signature: nonce (12) and GCM tag (16), Encryption.md
TAIL_MAGICS = {b"PAR3": "the PAR3 final form", b"PARE": "an encrypted footer (PARE)"}

# name: field id -> "field_name:type"; a type that is not a Thrift base type names a struct.
_SCHEMA_TEXT = {
    "FileMetaData": "1 version:i32, 2 schema:list<SchemaElement>, 3 num_rows:i64, 4 row_groups:list<RowGroup>,"
    " 5 key_value_metadata:list<KeyValue>, 6 created_by:binary, 7 column_orders:list<ColumnOrder>,"
    " 8 encryption_algorithm:EncryptionAlgorithm, 9 footer_signing_key_metadata:binary",
    "SchemaElement": "1 type:i32, 2 type_length:i32, 3 repetition_type:i32, 4 name:binary, 5 num_children:i32,"
    " 6 converted_type:i32, 7 scale:i32, 8 precision:i32, 9 field_id:i32, 10 logicalType:LogicalType",
    "RowGroup": "1 columns:list<ColumnChunk>, 2 total_byte_size:i64, 3 num_rows:i64,"
    " 4 sorting_columns:list<SortingColumn>, 5 file_offset:i64, 6 total_compressed_size:i64, 7 ordinal:i16",
    "ColumnChunk": "1 file_path:binary, 2 file_offset:i64, 3 meta_data:ColumnMetaData, 4 offset_index_offset:i64,"
    " 5 offset_index_length:i32, 6 column_index_offset:i64, 7 column_index_length:i32,"
    " 8 crypto_metadata:ColumnCryptoMetaData, 9 encrypted_column_metadata:binary",
    "ColumnMetaData": "1 type:i32, 2 encodings:list<i32>, 3 path_in_schema:list<binary>, 4 codec:i32,"
    " 5 num_values:i64, 6 total_uncompressed_size:i64, 7 total_compressed_size:i64,"
    " 8 key_value_metadata:list<KeyValue>, 9 data_page_offset:i64, 10 index_page_offset:i64,"
    " 11 dictionary_page_offset:i64, 12 statistics:Statistics, 13 encoding_stats:list<PageEncodingStats>,"
    " 14 bloom_filter_offset:i64, 15 bloom_filter_length:i32, 16 size_statistics:SizeStatistics,"
    " 17 geospatial_statistics:GeospatialStatistics",
    "Statistics": "1 max:binary, 2 min:binary, 3 null_count:i64, 4 distinct_count:i64, 5 max_value:binary,"
    " 6 min_value:binary, 7 is_max_value_exact:bool, 8 is_min_value_exact:bool, 9 nan_count:i64",
    "KeyValue": "1 key:binary, 2 value:binary",
    "SortingColumn": "1 column_idx:i32, 2 descending:bool, 3 nulls_first:bool",
    "PageEncodingStats": "1 page_type:i32, 2 encoding:i32, 3 count:i32",
    "SizeStatistics": "1 unencoded_byte_array_data_bytes:i64, 2 repetition_level_histogram:list<i64>,"
    " 3 definition_level_histogram:list<i64>",
    "GeospatialStatistics": "1 bbox:BoundingBox, 2 geospatial_types:list<i32>",
    "BoundingBox": "1 xmin:double, 2 xmax:double, 3 ymin:double, 4 ymax:double, 5 zmin:double, 6 zmax:double,"
    " 7 mmin:double, 8 mmax:double",
    "LogicalType": "1 STRING:StringType, 2 MAP:MapType, 3 LIST:ListType, 4 ENUM:EnumType, 5 DECIMAL:DecimalType,"
    " 6 DATE:DateType, 7 TIME:TimeType, 8 TIMESTAMP:TimestampType, 10 INTEGER:IntType, 11 UNKNOWN:NullType,"
    " 12 JSON:JsonType, 13 BSON:BsonType, 14 UUID:UUIDType, 15 FLOAT16:Float16Type, 16 VARIANT:VariantType,"
    " 17 GEOMETRY:GeometryType, 18 GEOGRAPHY:GeographyType, 19 FILE:FileType",
    "DecimalType": "1 scale:i32, 2 precision:i32",
    "TimeType": "1 isAdjustedToUTC:bool, 2 unit:TimeUnit",
    "TimestampType": "1 isAdjustedToUTC:bool, 2 unit:TimeUnit",
    "TimeUnit": "1 MILLIS:MilliSeconds, 2 MICROS:MicroSeconds, 3 NANOS:NanoSeconds",
    "IntType": "1 bitWidth:i8, 2 isSigned:bool",
    "VariantType": "1 specification_version:i8",
    "GeometryType": "1 crs:binary",
    "GeographyType": "1 crs:binary, 2 algorithm:i32",
    "ColumnOrder": "1 TYPE_ORDER:TypeDefinedOrder, 2 IEEE_754_TOTAL_ORDER:IEEE754TotalOrder,"
    " 3 INT96_TIMESTAMP_ORDER:Int96TimestampOrder",
    "ColumnCryptoMetaData": "1 ENCRYPTION_WITH_FOOTER_KEY:EncryptionWithFooterKey,"
    " 2 ENCRYPTION_WITH_COLUMN_KEY:EncryptionWithColumnKey",
    "EncryptionWithColumnKey": "1 path_in_schema:list<binary>, 2 key_metadata:binary",
    "EncryptionAlgorithm": "1 AES_GCM_V1:AesGcmV1, 2 AES_GCM_CTR_V1:AesGcmCtrV1",
    "AesGcmV1": "1 aad_prefix:binary, 2 aad_file_unique:binary, 3 supply_aad_prefix:bool",
    "AesGcmCtrV1": "1 aad_prefix:binary, 2 aad_file_unique:binary, 3 supply_aad_prefix:bool",
    "PageHeader": "1 type:i32, 2 uncompressed_page_size:i32, 3 compressed_page_size:i32, 4 crc:i32,"
    " 5 data_page_header:DataPageHeader, 6 index_page_header:IndexPageHeader,"
    " 7 dictionary_page_header:DictionaryPageHeader, 8 data_page_header_v2:DataPageHeaderV2",
    "DataPageHeader": "1 num_values:i32, 2 encoding:i32, 3 definition_level_encoding:i32,"
    " 4 repetition_level_encoding:i32, 5 statistics:Statistics",
    "DictionaryPageHeader": "1 num_values:i32, 2 encoding:i32, 3 is_sorted:bool",
    "DataPageHeaderV2": "1 num_values:i32, 2 num_nulls:i32, 3 num_rows:i32, 4 encoding:i32,"
    " 5 definition_levels_byte_length:i32, 6 repetition_levels_byte_length:i32, 7 is_compressed:bool,"
    " 8 statistics:Statistics",
    # The page index and bloom filters: structs outside the footer that footer fields point at
    # (parquet.thrift at 010f49b89eab98b498986709be5fedaaf2ea916f; generators/parquet/layout.py walks them).
    "ColumnIndex": "1 null_pages:list<bool>, 2 min_values:list<binary>, 3 max_values:list<binary>,"
    " 4 boundary_order:i32, 5 null_counts:list<i64>, 6 repetition_level_histograms:list<i64>,"
    " 7 definition_level_histograms:list<i64>, 8 nan_counts:list<i64>",
    "OffsetIndex": "1 page_locations:list<PageLocation>, 2 unencoded_byte_array_data_bytes:list<i64>",
    "PageLocation": "1 offset:i64, 2 compressed_page_size:i32, 3 first_row_index:i64",
    "BloomFilterHeader": "1 numBytes:i32, 2 algorithm:BloomFilterAlgorithm, 3 hash:BloomFilterHash,"
    " 4 compression:BloomFilterCompression",
    "BloomFilterAlgorithm": "1 BLOCK:SplitBlockAlgorithm",
    "BloomFilterHash": "1 XXHASH:XxHash",
    "BloomFilterCompression": "1 UNCOMPRESSED:Uncompressed",
    "FileCryptoMetaData": "1 encryption_algorithm:EncryptionAlgorithm, 2 key_metadata:binary",
}
_WIRE = {"i8": {thrift.BYTE}, "i16": {thrift.I16}, "i32": {thrift.I32}, "i64": {thrift.I64},
         "double": {thrift.DOUBLE}, "binary": {thrift.BINARY}, "bool": {thrift.TRUE, thrift.FALSE}}
REQUIRED = {"FileMetaData": ("version", "schema", "num_rows", "row_groups"),
            "RowGroup": ("columns", "total_byte_size", "num_rows"), "ColumnChunk": ("file_offset",),
            "SchemaElement": ("name",), "KeyValue": ("key",), "PageHeader": ("type", "uncompressed_page_size",
                                                                          "compressed_page_size"),
            "ColumnMetaData": ("type", "encodings", "path_in_schema", "codec", "num_values",
                               "total_uncompressed_size", "total_compressed_size", "data_page_offset"),
            "DataPageHeader": ("num_values", "encoding", "definition_level_encoding", "repetition_level_encoding"),
            "DictionaryPageHeader": ("num_values", "encoding"),
            "DataPageHeaderV2": ("num_values", "num_nulls", "num_rows", "encoding", "definition_levels_byte_length",
                                 "repetition_levels_byte_length"),
            "ColumnIndex": ("null_pages", "min_values", "max_values", "boundary_order"),
            "OffsetIndex": ("page_locations",), "PageLocation": ("offset", "compressed_page_size", "first_row_index"),
            "BloomFilterHeader": ("numBytes", "algorithm", "hash", "compression"),
            "FileCryptoMetaData": ("encryption_algorithm",)}


def _parse_schema() -> dict[str, dict[int, tuple[str, str]]]:
    out: dict[str, dict[int, tuple[str, str]]] = {}
    for name, text in _SCHEMA_TEXT.items():
        fields = {}
        for item in text.split(","):
            fid, decl = item.split()
            fname, ftype = decl.split(":")
            fields[int(fid)] = (fname, ftype)
        out[name] = fields
    return out


SCHEMA = _parse_schema()
FIELD_IDS = {name: {fname: fid for fid, (fname, _) in fields.items()} for name, fields in SCHEMA.items()}
# Every struct name a footer can hold: those with fields, and the empty ones inside unions (StringType, ...).
STRUCT_NAMES = frozenset(SCHEMA) | {t.removeprefix("list<").removesuffix(">") for fields in SCHEMA.values()
                                    for _, t in fields.values()} - set(_WIRE)


def field_id(struct: str, name: str) -> int:
    """The Thrift field id of `struct.name` in parquet.thrift; a typo is a KeyError naming both."""
    try:
        return FIELD_IDS[struct][name]
    except KeyError:
        raise KeyError(f"parquet.thrift {struct} has no field {name!r}") from None


class FooterError(ValueError):
    """The file is not a well-formed Parquet file with a Thrift footer."""


@dataclass
class StructRef:
    name: str  # Thrift struct name, e.g. "ColumnMetaData"
    path: str  # e.g. "row_groups[0].columns[1].meta_data"
    node: Struct

    def get(self, field: str) -> Field | None:
        return self.node.get(field_id(self.name, field))

    def value(self, field: str, default: object = None) -> Any:
        return self.node.value(field_id(self.name, field), default)

    def need(self, field: str) -> StructRef:
        """A struct-valued field that must be there; FooterError names it if it is not."""
        ref = self.child(field)
        if ref is None:
            raise FooterError(f"{self.path or self.name}: no {field}")
        return ref

    def child(self, field: str) -> StructRef | None:
        """A struct-valued field as a StructRef (its type from the schema), or None if absent."""
        node = self.value(field)
        if node is None:
            return None
        return StructRef(SCHEMA[self.name][field_id(self.name, field)][1], _join(self.path, field), node)

    def children(self, field: str) -> list[StructRef]:
        """The structs of a list<Struct> field, as StructRefs."""
        ftype = SCHEMA[self.name][field_id(self.name, field)][1]
        return [StructRef(ftype[5:-1], _join(self.path, f"{field}[{i}]"), node)
                for i, node in enumerate(self.value(field, []))]


@dataclass
class Extension:
    struct: str
    path: str
    header: str  # "spec" | "zigzag" | "other:<hex>"
    field_id: int
    type: str
    offset: int  # absolute offset of the payload (binary) or value in the file
    length: int
    payload: bytes
    placement: str = "in-struct"  # or "after-stop": after the FileMetaData's stop byte, see spec-notes

    def describe(self) -> dict:
        payload_ok = self.type == "binary"
        return {
            "struct": self.struct,
            "path": self.path,
            "header": self.header,
            "field_id": self.field_id,
            "type": self.type,
            "offset": self.offset,
            "length": self.length,
            "sha256": hashlib.sha256(self.payload).hexdigest() if payload_ok else None,
            "uuid": self.payload[-16:].hex() if payload_ok and len(self.payload) >= 16 else None,
            "placement": self.placement,
        }


@dataclass
class ParquetFooter:
    buf: Buffer
    footer_offset: int
    footer_length: int
    metadata: Struct
    # Fields found after the FileMetaData's stop byte, inside the footer length (only when
    # decoding leniently): where the Arrow C++ and arrow-rs prototypes put their extension.
    after_stop: Struct | None = None
    # Encryption.md: a file in encrypted footer mode (PARE) has a plaintext FileCryptoMetaData where the footer
    # starts, then the encrypted footer module; a plaintext footer with encryption_algorithm ends in a signature.
    root_name: str = "FileMetaData"
    signature: bytes = b""

    @property
    def encrypted_footer(self) -> bool:
        return self.root_name == "FileCryptoMetaData"

    @property
    def footer_end(self) -> int:
        return self.footer_offset + self.footer_length

    @property
    def root(self) -> StructRef:
        """The FileMetaData (or FileCryptoMetaData), with paths relative to it (`row_groups[0].columns[1]`)."""
        return StructRef(self.root_name, "", self.metadata)

    def row_groups(self) -> list[StructRef]:
        """Those a reader can see without keys: none behind an encrypted footer."""
        return [] if self.encrypted_footer else self.root.children("row_groups")

    def structs(self) -> list[StructRef]:
        return list(walk(self.metadata, self.root_name, ""))

    def page_headers(self) -> list[StructRef]:
        return list(_page_headers(self))

    def extensions(self, *, include_pages: bool = True) -> list[Extension]:
        refs = self.structs() + (self.page_headers() if include_pages else [])
        found = [ext for ref in refs for ext in struct_extensions(self.buf, ref)]
        if self.after_stop is not None:
            ref = StructRef("FileMetaData", "FileMetaData (after its stop byte)", self.after_stop)
            found += [replace(e, placement="after-stop") for e in struct_extensions(self.buf, ref)]
        return found

    def leaf_count(self) -> int:
        if self.encrypted_footer:
            return 0
        return sum(1 for el in self.root.children("schema") if not el.value("num_children"))


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def walk(node: Struct, name: str, path: str) -> Iterator[StructRef]:
    yield StructRef(name, path or name, node)
    fields = SCHEMA.get(name, {})
    for f in node.fields:
        fname, ftype = fields.get(f.id, (f"field_{f.id}", "?"))
        child = ftype[5:-1] if ftype.startswith("list<") else ftype
        if isinstance(f.value, Struct):
            yield from walk(f.value, child, _join(path, fname))
        elif isinstance(f.value, list):
            for i, item in enumerate(f.value):
                if isinstance(item, Struct):
                    yield from walk(item, child, _join(path, f"{fname}[{i}]"))


def struct_extensions(buf: Buffer, ref: StructRef) -> list[Extension]:
    out = []
    for f in ref.node.fields:
        if f.id not in EXTENSION_IDS:
            continue
        raw = bytes(buf[f.header_start:f.header_end])
        header = HEADER_FORMS.get(raw, f"other:{raw.hex()}")
        if f.type == thrift.BINARY:
            payload = f.value
            offset = f.end - len(payload)
        else:
            payload, offset = bytes(buf[f.header_end:f.end]), f.header_end
        out.append(Extension(ref.name, ref.path, header, f.id, thrift.TYPE_NAMES[f.type], offset,
                             len(payload), payload))
    return out


def read_tail(buf: Buffer) -> tuple[int, int]:
    """Checks magics and the footer length; returns (footer_offset, footer_length)."""
    size = len(buf)
    if size < 12:
        raise FooterError(f"file is {size} bytes, a Parquet file has at least 12")
    if bytes(buf[:4]) == bytes(buf[-4:]) == ENCRYPTED_MAGIC:
        pass  # encrypted footer mode: both magics are PARE (Encryption.md)
    elif buf[:4] != MAGIC:
        raise FooterError(f"file does not start with PAR1 (found {bytes(buf[:4])!r})")
    tail = bytes(buf[-4:])
    if tail not in (MAGIC, bytes(buf[:4])):
        what = TAIL_MAGICS.get(tail, "an unknown magic")
        raise FooterError(f"file ends with {tail!r}, {what}, not PAR1")
    length = _struct.unpack("<I", buf[-8:-4])[0]
    if length > size - 12:
        raise FooterError(f"footer length {length} does not fit the {size}-byte file (at most {size - 12})")
    return size - 8 - length, length


def decode_footer(buf: Buffer, *, strict_varints: bool = False, allow_after_stop: bool = False) -> ParquetFooter:
    """Decodes the tail and the FileMetaData struct, checking that it spans the footer, or with
    `allow_after_stop`, that the bytes after its stop byte are fields and a stop byte."""
    offset, length = read_tail(buf)
    end = offset + length
    root = "FileCryptoMetaData" if bytes(buf[-4:]) == ENCRYPTED_MAGIC else "FileMetaData"
    try:
        meta = thrift.decode_struct(buf, offset, end, strict_varints=strict_varints)
    except ThriftError as e:
        raise FooterError(f"{root} does not decode: {e}") from None
    if root == "FileCryptoMetaData":
        _check_module(buf, meta.end, end)
        return ParquetFooter(buf, offset, length, meta, root_name=root)
    if meta.end == end:
        return ParquetFooter(buf, offset, length, meta)
    if meta.end == end - SIGNATURE and meta.get(field_id("FileMetaData", "encryption_algorithm")):
        return ParquetFooter(buf, offset, length, meta, signature=bytes(buf[meta.end:end]))
    problem = f"FileMetaData ends at byte {meta.end}, the footer at byte {end}"
    if allow_after_stop:
        try:
            after = thrift.decode_struct(buf, meta.end, end)
        except ThriftError:
            after = None
        if after is not None and after.end == end and after.fields:
            return ParquetFooter(buf, offset, length, meta, after)
    raise FooterError(problem)


def _check_module(buf: Buffer, start: int, end: int) -> None:
    """The encrypted footer module after a FileCryptoMetaData: a 4-byte length, then exactly that many bytes of
    nonce (12), ciphertext and tag (16) up to the footer length (Encryption.md, "Encrypted module serialization")."""
    if end - start < 4 + SIGNATURE:
        raise FooterError(f"encrypted footer: {end - start} bytes after the FileCryptoMetaData")
    size = _struct.unpack("<I", buf[start:start + 4])[0]
    if size != end - start - 4:
        raise FooterError(f"encrypted footer module says {size} bytes, the footer holds {end - start - 4}")


def parse_file(buf: Buffer) -> ParquetFooter:
    """Decodes and validates the tail, the footer and every struct in it; raises FooterError."""
    footer = decode_footer(buf, strict_varints=True)
    for ref in footer.structs():
        check_struct(buf, ref)
    _check_layout(footer)
    from parquet_conformance.generators.parquet.layout import check_page_level  # imports this module

    footer.page_headers()  # every page header decodes and is checked before the page-level rules read them
    check_page_level(footer)
    return footer


def check_struct(buf: Buffer, ref: StructRef) -> None:
    """Field types as parquet.thrift declares them, required fields, extension rules."""
    fields = SCHEMA.get(ref.name)
    if fields is None:
        return
    seen: set[int] = set()
    for f in ref.node.fields:
        if f.id in EXTENSION_IDS:
            if f.type != thrift.BINARY:
                raise FooterError(f"{ref.path}: extension field {f.id} has type {thrift.TYPE_NAMES[f.type]}, "
                                  "the spec reserves it as binary")
            if EXTENSION_ID in seen:
                raise FooterError(f"{ref.path}: more than one extension field")
            seen.add(EXTENSION_ID)
            continue
        if f.id in seen:
            raise FooterError(f"{ref.path}: field {f.id} appears twice")
        seen.add(f.id)
        if f.id not in fields:
            continue
        fname, ftype = fields[f.id]
        if not _type_matches(f, ftype):
            raise FooterError(f"{ref.path}.{fname}: wire type {thrift.TYPE_NAMES[f.type]}, expected {ftype}")
    missing = [name for name in REQUIRED.get(ref.name, ()) if field_id(ref.name, name) not in seen]
    if missing:
        raise FooterError(f"{ref.path}: required field(s) {', '.join(missing)} missing")


def _type_matches(f: Field, ftype: str) -> bool:
    if ftype.startswith("list<"):
        inner = ftype[5:-1]
        return f.type == thrift.LIST and all(
            isinstance(v, Struct) if inner not in _WIRE else not isinstance(v, (Struct, list)) for v in f.value)
    if ftype in _WIRE:
        return f.type in _WIRE[ftype]
    return f.type == thrift.STRUCT


def _check_layout(footer: ParquetFooter) -> None:
    if footer.encrypted_footer:  # the layout is behind the key
        return
    leaves = footer.leaf_count()
    total = 0
    for rg in footer.row_groups():
        cols = rg.children("columns")
        if len(cols) != leaves:
            raise FooterError(f"{rg.path} has {len(cols)} column chunks for {leaves} leaf columns")
        total += rg.value("num_rows")
        for cc in cols:
            md = cc.child("meta_data")
            if md is None:
                continue
            start, end = chunk_range(md)
            if not (4 <= start <= end <= footer.footer_offset):
                raise FooterError(f"{cc.path}: chunk [{start}, {end}) "
                                  f"is outside the data region [4, {footer.footer_offset})")
    if total != footer.root.value("num_rows"):
        raise FooterError(f"row groups hold {total} rows, FileMetaData.num_rows says {footer.root.value('num_rows')}")


def chunk_range(md: StructRef) -> tuple[int, int]:
    """[start, end) of a column chunk's pages: from its dictionary page if it has one."""
    start = md.value("dictionary_page_offset") or md.value("data_page_offset")
    return start, start + md.value("total_compressed_size")


def _page_headers(footer: ParquetFooter) -> Iterator[StructRef]:
    for rg in footer.row_groups():
        for cc in rg.children("columns"):
            md = cc.child("meta_data")
            if md is None or cc.get("crypto_metadata") is not None:  # encrypted pages: nothing to decode
                continue
            pos, end = chunk_range(md)
            k = 0
            while pos < end:
                try:
                    header = thrift.decode_struct(footer.buf, pos, end)
                except ThriftError as e:
                    raise FooterError(f"{cc.path} page {k}: header does not decode: {e}") from None
                refs = list(walk(header, "PageHeader", f"{cc.path}.pages[{k}]"))
                for ref in refs:
                    check_struct(footer.buf, ref)
                    yield ref
                size = refs[0].value("compressed_page_size")
                if size < 0:
                    raise FooterError(f"{cc.path} page {k}: negative page size {size}")
                pos = header.end + size
                k += 1
            if pos != end:
                raise FooterError(f"{cc.path}: pages overrun the chunk end {end}")
