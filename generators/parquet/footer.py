"""The Parquet file tail and the structs of its Thrift footer, with byte spans.

Struct and field names follow apache/parquet-format `src/main/thrift/parquet.thrift`
(commit 24102ed5c56e51b610a4897e5f79e76e43732d1d). Two levels of reading:

- `read_footer` decodes the footer as a Thrift compact reader does (generated code: unknown fields
  and fields of an unexpected wire type skipped, non-minimal varints and bytes after the
  FileMetaData accepted) and says what it passed over;
- `findings` are the spec's rules (enums in range, required fields, one field per union, row counts, column chunks
  inside the data region and apart, statistics in order, pages that decode, page CRCs); strict.py `check_file` adds
  the page level of layout.py (page offsets, the page index, bloom filters) and is the strict decoder.

A file in encrypted footer mode (PARE) has a FileCryptoMetaData as its root: its footer module must be
framed right (a reader fails otherwise), and everything behind the key (the layout, the pages) is not read.

"""

from __future__ import annotations

import hashlib
import itertools
import struct as _struct
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field
from typing import Any, Literal

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
# The Python type of a decoded list element of each base type (thrift.Reader.element): a list of another element
# type than declared (binaries where i32s are due) is one of another wire type.
_ELEMENT = {"i8": int, "i16": int, "i32": int, "i64": int, "double": float, "binary": bytes, "bool": bool}
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


# The structs parquet.thrift (24102ed5) declares `union`: on the wire a struct, of which "exactly one field" may be
# set (apache/thrift doc/specs/idl.md, Union). struct_findings counts every field, extension and unknown ones too.
UNIONS = frozenset({"LogicalType", "TimeUnit", "ColumnOrder", "ColumnCryptoMetaData", "EncryptionAlgorithm",
                    "BloomFilterAlgorithm", "BloomFilterHash", "BloomFilterCompression"})

# Enum values parquet.thrift defines (24102ed5), and the fields that hold them (GROUP_VAR_INT = 1 is commented out).
ENUMS = {"Type": frozenset(range(8)), "FieldRepetitionType": frozenset(range(3)), "ConvertedType": frozenset(range(22)),
         "Encoding": frozenset({0, *range(2, 11)}), "CompressionCodec": frozenset(range(8)),
         "PageType": frozenset(range(4)), "EdgeInterpolationAlgorithm": frozenset(range(5))}
ENUM_FIELDS = {("SchemaElement", "type"): "Type", ("SchemaElement", "repetition_type"): "FieldRepetitionType",
               ("SchemaElement", "converted_type"): "ConvertedType", ("ColumnMetaData", "type"): "Type",
               ("ColumnMetaData", "encodings"): "Encoding", ("ColumnMetaData", "codec"): "CompressionCodec",
               ("PageEncodingStats", "page_type"): "PageType", ("PageEncodingStats", "encoding"): "Encoding",
               ("PageHeader", "type"): "PageType", ("DataPageHeader", "encoding"): "Encoding",
               ("DataPageHeader", "definition_level_encoding"): "Encoding",
               ("DataPageHeader", "repetition_level_encoding"): "Encoding",
               ("DictionaryPageHeader", "encoding"): "Encoding", ("DataPageHeaderV2", "encoding"): "Encoding",
               ("GeographyType", "algorithm"): "EdgeInterpolationAlgorithm"}


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
        """The field as generated code sees it: None when absent or of another wire type than declared."""
        f = self.node.get(field_id(self.name, field))
        return f if f is not None and _type_matches(f, SCHEMA[self.name][f.id][1]) else None

    def value(self, field: str, default: object = None) -> Any:
        f = self.get(field)
        return default if f is None else f.value

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
    # Fields found after the FileMetaData's stop byte, inside the footer length: where the Arrow
    # C++ and arrow-rs prototypes put their extension.
    after_stop: Struct | None = None
    # Encryption.md: a file in encrypted footer mode (PARE) has a plaintext FileCryptoMetaData where the footer
    # starts, then the encrypted footer module; a plaintext footer with encryption_algorithm ends in a signature
    # (the SIGNATURE bytes after its FileMetaData; empty when there is none).
    root_name: str = "FileMetaData"
    signature: bytes = b""
    _structs: list[StructRef] | None = dataclass_field(default=None, repr=False, compare=False)

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
        """Every struct of the root in walk order (computed once: the decoded footer does not change)."""
        if self._structs is None:
            self._structs = list(walk(self.metadata, self.root_name, ""))
        return self._structs

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


class SchemaTreeError(ValueError):
    """A schema list that is not one depth-first tree."""


def schema_leaves(elements: Sequence[tuple[bytes, int]]) -> list[tuple[int, list[bytes]]]:
    """(index, path) of every leaf of a depth-first schema list given as (name, num_children) pairs, iteratively
    (a deep schema costs no recursion); SchemaTreeError where the list is not one tree (empty, children past its
    end, elements after the root's last child). The FlatBuffers footer and PARX's path restoration both walk it."""
    if not elements:
        raise SchemaTreeError("the schema is empty")
    out: list[tuple[int, list[bytes]]] = []
    stack: list[tuple[list[bytes], int]] = [([], elements[0][1])]  # (path, children left)
    pos = 1
    while stack:
        prefix, left = stack[-1]
        if left <= 0:
            stack.pop()
            continue
        stack[-1] = (prefix, left - 1)
        if pos >= len(elements):
            raise SchemaTreeError(f"schema element {pos} is missing: num_children reach past the list's "
                                  f"{len(elements)} elements")
        name, children = elements[pos]
        path = [*prefix, name]
        if children:
            stack.append((path, children))
        else:
            out.append((pos, path))
        pos += 1
    if pos != len(elements):
        raise SchemaTreeError(f"the schema tree ends at element {pos} of {len(elements)}")
    return out


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def walk(node: Struct, name: str, path: str) -> Iterator[StructRef]:
    """Every struct, known or not (extensions may sit in an unknown field's struct too), except those in a
    known field of another wire type than declared: generated code skips such a field."""
    yield StructRef(name, path or name, node)
    fields = SCHEMA.get(name, {})
    for f in node.fields:
        fname, ftype = fields.get(f.id, (f"field_{f.id}", "?"))
        if f.id in fields and not _type_matches(f, ftype):
            continue
        child = ftype[5:-1] if ftype.startswith("list<") else ftype
        if isinstance(f.value, Struct):
            yield from walk(f.value, child, _join(path, fname))
        elif isinstance(f.value, list):
            for i, item in enumerate(f.value):
                if isinstance(item, Struct):
                    yield from walk(item, child, _join(path, f"{fname}[{i}]"))


def typed(node: Struct, name: str) -> Struct:
    """The struct as generated code holds it: only the fields parquet.thrift declares, with their declared wire
    type, recursively (a Thrift reader skips the others). Code that reads values by field id (the FlatBuffers
    comparison) reads this view, so that a field of another wire type is never taken for the declared one."""
    fields = SCHEMA.get(name, {})
    kept = []
    for f in node.fields:
        if f.id not in fields or not _type_matches(f, fields[f.id][1]):
            continue
        ftype = fields[f.id][1]
        child = ftype[5:-1] if ftype.startswith("list<") else ftype
        value = f.value
        if isinstance(value, Struct):
            value = typed(value, child)
        elif isinstance(value, list) and value and isinstance(value[0], Struct):
            value = [typed(item, child) for item in value]
        kept.append(replace(f, value=value))
    return Struct(node.start, node.end, kept)


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
    """Checks the tail magic and the footer length; returns (footer_offset, footer_length). The head magic is
    read_footer's finding: readers read a file from its tail."""
    size = len(buf)
    if size < 12:
        raise FooterError(f"file is {size} bytes, a Parquet file has at least 12")
    tail = bytes(buf[-4:])
    if tail != MAGIC and not tail == bytes(buf[:4]) == ENCRYPTED_MAGIC:  # encrypted footer mode: PARE at both ends
        what = TAIL_MAGICS.get(tail, "an unknown magic")
        raise FooterError(f"file ends with {tail!r}, {what}, not PAR1")
    length = _struct.unpack("<I", buf[-8:-4])[0]
    if length > size - 12:
        raise FooterError(f"footer length {length} does not fit the {size}-byte file (at most {size - 12})")
    return size - 8 - length, length


@dataclass(frozen=True)
class Problem:
    """What a strict reading objects to. A `note` is something a Thrift reader passes over as generated code
    does, or a layout it knows (a plaintext footer's signature); a `finding` breaks a rule of the spec."""

    level: Literal["note", "finding"]
    rule: str  # short name: wire-type, varint, signature, after-stop, trailing-bytes, required, enum, ...
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    def to_json(self) -> dict[str, str]:
        return {"rule": self.rule, "path": self.path, "message": self.message}


def _note(rule: str, path: str, message: str) -> Problem:
    return Problem("note", rule, path, message)


def finding(rule: str, path: str, message: str) -> Problem:
    return Problem("finding", rule, path, message)


def read_footer(buf: Buffer) -> tuple[ParquetFooter, list[Problem]]:
    """The footer as a Thrift compact reader decodes it, and what that reading passed over (module
    docstring). Raises FooterError only where such a reader fails: a bad tail, or a FileMetaData that
    does not decode within the footer length."""
    offset, length = read_tail(buf)
    end = offset + length
    root = "FileCryptoMetaData" if bytes(buf[-4:]) == ENCRYPTED_MAGIC else "FileMetaData"
    reader = thrift.Reader(buf, offset, end)
    try:
        meta = reader.struct()
    except ThriftError as e:
        raise FooterError(f"{root} does not decode: {e}") from None
    if root == "FileCryptoMetaData":
        _check_module(buf, meta.end, end)
    footer = ParquetFooter(buf, offset, length, meta, root_name=root)
    problems = [_after_metadata(footer)] if meta.end < end and not footer.encrypted_footer else []
    if bytes(buf[:4]) != bytes(buf[-4:]):  # PAR1 ... PAR1, or PARE ... PARE (the tail is checked above)
        problems.append(finding("head-magic", "", f"file does not start with {bytes(buf[-4:])!r} (found "
                                                  f"{bytes(buf[:4])!r}); readers read from the tail"))
    if reader.overlong:
        problems.append(_note("varint", "", f"{len(reader.overlong)} non-minimal varint(s), the first at byte "
                                            f"{reader.overlong[0]} (Thrift reads them, a Thrift writer never "
                                            "writes them)"))
    if reader.odd_stops:
        problems.append(_note("stop", "", f"{len(reader.odd_stops)} stop byte(s) with a non-zero high nibble, the "
                                          f"first at byte {reader.odd_stops[0]} (Thrift C++ and Java end the struct "
                                          "there: they test the low nibble)"))
    for ref in footer.structs():
        problems += _skipped_fields(ref)
    return footer, problems


def _after_metadata(footer: ParquetFooter) -> Problem:
    """Bytes between the FileMetaData's stop byte and the end of the footer, which a Thrift reader never reads."""
    start, end = footer.metadata.end, footer.footer_end
    try:
        after = thrift.decode_struct(footer.buf, start, end)
    except ThriftError:
        after = None
    if after is not None and after.end == end and after.fields:
        footer.after_stop = after
        return finding("after-stop", "FileMetaData", f"fields and a second stop byte after its stop byte (bytes "
                                                     f"{start}-{end}), outside the FileMetaData")
    if end - start == SIGNATURE and footer.root.get("encryption_algorithm") is not None:
        footer.signature = bytes(footer.buf[start:end])
        return _note("signature", "FileMetaData", "followed by a 28-byte plaintext footer signature (nonce and "
                                                  "GCM tag, Encryption.md)")
    return finding("trailing-bytes", "FileMetaData", f"ends at byte {start}, the footer at byte {end}: "
                                                     f"{end - start} bytes in the footer length are not part of it")


def _skipped_fields(ref: StructRef) -> list[Problem]:
    """Known optional fields of another wire type than parquet.thrift declares: generated code skips them
    (a required one is reported missing by the findings)."""
    fields, out = SCHEMA.get(ref.name, {}), []
    for f in ref.node.fields:
        if f.id in fields and f.id not in EXTENSION_IDS and not _type_matches(f, fields[f.id][1]):
            fname, ftype = fields[f.id]
            if fname not in REQUIRED.get(ref.name, ()):
                out.append(_note("wire-type", f"{ref.path}.{fname}", f"wire type {thrift.TYPE_NAMES[f.type]} where "
                                                                     f"parquet.thrift declares {ftype}: skipped"))
    return out


def findings(footer: ParquetFooter) -> list[Problem]:
    """The spec's rules this module checks, as findings: every struct of the footer, the layout of the column chunks,
    the page headers (the page level beyond them: layout.py page_level_findings; both: strict.py check_file)."""
    problems = [p for ref in footer.structs() for p in struct_findings(ref)]
    return problems + _layout_findings(footer) + _page_findings(footer)


def _check_module(buf: Buffer, start: int, end: int) -> None:
    """The encrypted footer module after a FileCryptoMetaData: a 4-byte length, then exactly that many bytes of
    nonce (12), ciphertext and tag (16) up to the footer length (Encryption.md, "Encrypted module serialization")."""
    if end - start < 4 + SIGNATURE:
        raise FooterError(f"encrypted footer: {end - start} bytes after the FileCryptoMetaData")
    size = _struct.unpack("<I", buf[start:start + 4])[0]
    if size != end - start - 4:
        raise FooterError(f"encrypted footer module says {size} bytes, the footer holds {end - start - 4}")


def struct_findings(ref: StructRef) -> list[Problem]:
    """A struct against parquet.thrift: no field twice, required fields present with their declared wire type,
    enum values defined, i16/i32 values in range, extension fields binary and at most one per struct."""
    fields = SCHEMA.get(ref.name)
    if fields is None:
        return []
    out: list[Problem] = []
    seen: set[int] = set()
    for f in ref.node.fields:
        if f.id in EXTENSION_IDS:
            if f.type != thrift.BINARY:
                kind = thrift.TYPE_NAMES[f.type]
                out.append(finding("extension", ref.path, f"extension field {f.id} has type {kind}, the spec "
                                                          "reserves it as binary"))
            elif EXTENSION_ID in seen:
                out.append(finding("extension", ref.path, "more than one extension field"))
            seen.add(EXTENSION_ID)
            continue
        if f.id in seen:
            out.append(finding("duplicate", ref.path, f"field {f.id} appears twice"))
        seen.add(f.id)
        if f.id in fields and _type_matches(f, fields[f.id][1]):
            out += _value_findings(ref, fields[f.id], f)
    if ref.name in UNIONS and len(ref.node.fields) != 1:
        out.append(_union_finding(ref))
    for name in REQUIRED.get(ref.name, ()):
        if ref.get(name) is None:
            raw = ref.node.get(field_id(ref.name, name))
            why = "" if raw is None else f" (there with wire type {thrift.TYPE_NAMES[raw.type]}, which Thrift skips)"
            out.append(finding("required", ref.path, f"required field {name} missing{why}"))
    return out


def _union_finding(ref: StructRef) -> Problem:
    """A union with no field or with several (an extension or an unknown field beside a member counts: on the wire
    they are fields of the union). One unknown field alone is not a finding: a member parquet.thrift added later,
    which readers are to pass over (LogicalTypes.md, "Unsupported Logical Types"; ColumnOrder: "If the reader does
    not support the value of this union"): docs/spec-notes.md#unions."""
    if not ref.node.fields:
        return finding("union", ref.path, f"{ref.name} has no field set; a Thrift union holds exactly one")
    names = [SCHEMA[ref.name][f.id][0] if f.id in SCHEMA.get(ref.name, {}) else f"field {f.id}"
             for f in ref.node.fields]
    return finding("union", ref.path, f"{ref.name} has {len(names)} fields set ({', '.join(names)}); a Thrift union "
                                      "holds exactly one")


def _value_findings(ref: StructRef, decl: tuple[str, str], f: Field) -> list[Problem]:
    fname, ftype = decl
    values = f.value if isinstance(f.value, list) else [f.value]
    out = []
    if ftype in ("i16", "i32", "list<i32>"):
        bits = 16 if ftype == "i16" else 32
        if bad := [v for v in values if not -(1 << (bits - 1)) <= v < 1 << (bits - 1)]:
            out.append(finding("range", f"{ref.path}.{fname}", f"{bad[0]} does not fit an i{bits}"))
    if (enum := ENUM_FIELDS.get((ref.name, fname))) and (bad := [v for v in values if v not in ENUMS[enum]]):
        out.append(finding("enum", f"{ref.path}.{fname}", f"{bad[0]} is not a {enum} parquet.thrift defines"))
    return out


def _type_matches(f: Field, ftype: str) -> bool:
    if ftype.startswith("list<"):
        if f.type != thrift.LIST or not f.value:
            return f.type == thrift.LIST
        first = f.value[0]  # a compact list has one element type: the first element tells
        element = ftype[5:-1]
        return isinstance(first, Struct) if element not in _WIRE else type(first) is _ELEMENT[element]
    if ftype in _WIRE:
        return f.type in _WIRE[ftype]
    return f.type == thrift.STRUCT


def _layout_findings(footer: ParquetFooter) -> list[Problem]:
    """Column chunks per row group, inside the data region and apart; row counts that add up; statistics.
    None behind an encrypted footer: the layout is behind the key."""
    out: list[Problem] = []
    if footer.encrypted_footer:
        return out
    leaves = [el for el in footer.root.children("schema") if not el.value("num_children")]
    orders = footer.root.value("column_orders") or []
    sort_keys = [_sort_key(leaf) if i < len(orders) and orders[i].get(1) is not None else None
                 for i, leaf in enumerate(leaves)]
    ranges = []
    for rg in footer.row_groups():
        cols = rg.children("columns")
        if len(cols) != len(leaves):
            out.append(finding("columns", rg.path, f"{len(cols)} column chunks for {len(leaves)} leaf columns"))
        for i, cc in enumerate(cols):
            md = cc.child("meta_data")
            if md is None or md.get("data_page_offset") is None or md.get("total_compressed_size") is None:
                continue
            start, end = chunk_range(md)
            if not (4 <= start <= end <= footer.footer_offset):
                out.append(finding("chunk-outside", cc.path, f"chunk [{start}, {end}) is outside the data region "
                                                             f"[4, {footer.footer_offset})"))
            ranges.append((start, end, cc.path))
            out += _statistics_findings(md, sort_keys[i] if i < len(sort_keys) else None)
    ranges.sort()
    for (_, end, path), (start, _, other) in itertools.pairwise(ranges):
        if start < end:
            out.append(finding("chunk-overlap", other, f"chunk starts at {start}, inside {path}, which ends at {end}"))
    total = sum(rg.value("num_rows", 0) for rg in footer.row_groups())
    if total != footer.root.value("num_rows"):
        out.append(finding("num-rows", "FileMetaData", f"row groups hold {total} rows, FileMetaData.num_rows says "
                                                       f"{footer.root.value('num_rows')}"))
    return out


def top_level_leaf(footer: ParquetFooter, column: str) -> StructRef | None:
    """The SchemaElement of a top-level leaf column named `column`, if the schema has one."""
    return next((el for el in footer.root.children("schema")[1:] if el.value("name") == column.encode()
                 and not el.value("num_children")), None)


def column_meta(footer: ParquetFooter, column: str) -> list[StructRef]:
    """The ColumnMetaData of each chunk of the top-level column `column`, row group by row group."""
    return [md for rg in footer.row_groups() for cc in rg.children("columns")
            if (md := cc.need("meta_data")).value("path_in_schema") == [column.encode()]]


def chunk_range(md: StructRef) -> tuple[int, int]:
    """[start, end) of a column chunk's pages: from its dictionary page if it has one."""
    start = md.value("dictionary_page_offset") or md.value("data_page_offset")
    size = md.value("total_compressed_size")
    if type(start) is not int or type(size) is not int:  # absent, or another wire type: a damaged footer
        raise FooterError(f"{md.path or md.name}: no page offset or total_compressed_size to find its pages by")
    return start, start + size


def _statistics_findings(md: StructRef, key: Any) -> list[Problem]:
    """min_value > max_value, where the column's sort order is defined (`key`: ColumnOrder TYPE_ORDER)."""
    stats = md.child("statistics")
    if stats is None or key is None:
        return []
    lo, hi = stats.value("min_value"), stats.value("max_value")
    if lo is None or hi is None:
        return []
    try:
        ordered = not key(lo) > key(hi)  # a NaN bound orders with nothing: readers ignore it (ColumnOrder)
    except (ValueError, _struct.error):
        return [finding("statistics", stats.path, f"min_value/max_value of {len(lo)}/{len(hi)} bytes do not fit "
                                                  "the column's physical type")]
    return [] if ordered else [finding("statistics", stats.path, "min_value is greater than max_value")]


SIGNED_INTEGER = {15, 16, 17, 18}  # ConvertedType INT_8 ... INT_64; UINT_8 ... UINT_64 are 11 ... 14
UNSIGNED_INTEGER = {11, 12, 13, 14}


def _sort_key(leaf: StructRef) -> Any:
    """The column's sort order as a key on plain-encoded values (parquet.thrift ColumnOrder TYPE_ORDER), or
    None where it is undefined here (INT96, INTERVAL) or NaN makes it moot."""
    ptype, converted = leaf.value("type"), leaf.value("converted_type")
    logical = leaf.value("logicalType")
    member = logical.fields[0] if logical is not None and logical.fields else None
    unsigned = converted in UNSIGNED_INTEGER or (
        member is not None and member.id == 10 and isinstance(member.value, Struct) and member.value.value(2) is False)
    decimal = converted == 5 or (member is not None and member.id == 5)
    if ptype in (1, 2):  # INT32, INT64
        width = 4 if ptype == 1 else 8
        return lambda v: int.from_bytes(_exact(v, width), "little", signed=not unsigned)
    if ptype in (4, 5):  # FLOAT, DOUBLE: NaN never orders, so it never disagrees
        fmt = "<f" if ptype == 4 else "<d"
        return lambda v: _struct.unpack(fmt, v)[0]
    if ptype == 0:
        return lambda v: _exact(v, 1)[0]
    if ptype in (6, 7) and converted != 21:  # BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY; not INTERVAL
        if decimal:
            return lambda v: int.from_bytes(v, "big", signed=True)
        if member is not None and member.id == 15:  # FLOAT16
            return lambda v: _struct.unpack("<e", _exact(v, 2))[0]
        return bytes
    return None


def _exact(v: bytes, width: int) -> bytes:
    if len(v) != width:
        raise ValueError(f"{len(v)} bytes for a {width}-byte value")
    return v


def _page_findings(footer: ParquetFooter) -> list[Problem]:
    out: list[Problem] = []
    for path, header, problem in _walk_pages(footer):
        out += [problem] if problem is not None else []
        if header is not None:
            out += [p for ref in walk(header, "PageHeader", path) for p in struct_findings(ref)]
    return out


def _walk_pages(footer: ParquetFooter) -> Iterator[tuple[str, Struct | None, Problem | None]]:
    """(path, header, problem) of each column chunk's pages in order. A problem is a header that does not decode
    or has no usable size (which ends that chunk's walk), pages that overrun the chunk, a wrong CRC. (Where
    data_page_offset and dictionary_page_offset point, and the page index: layout.page_level_findings.)"""
    for rg in footer.row_groups():
        for cc in rg.children("columns"):
            md = cc.child("meta_data")
            if md is None or md.get("data_page_offset") is None or md.get("total_compressed_size") is None:
                continue
            if cc.get("crypto_metadata") is not None:
                continue  # an encrypted column: its page headers are ciphertext (Encryption.md)
            pos, end = chunk_range(md)
            if not 4 <= pos <= end <= footer.footer_offset:
                continue  # a chunk-outside finding already
            starts: list[int] = []
            while pos < end:
                path = f"{cc.path}.pages[{len(starts)}]"
                starts.append(pos)
                try:
                    header = thrift.decode_struct(footer.buf, pos, end)
                except ThriftError as e:
                    yield path, None, finding("page", path, f"header does not decode: {e}")
                    break
                size = StructRef("PageHeader", path, header).value("compressed_page_size")
                if size is None or size < 0:
                    yield path, header, finding("page", path, f"compressed_page_size {size}")
                    break
                yield path, header, _crc_finding(footer.buf, path, header, size)
                pos = header.end + size
            else:
                if pos > end:
                    yield cc.path, None, finding("page", cc.path, f"pages overrun the chunk end {end}")


def _crc_finding(buf: Buffer, path: str, header: Struct, size: int) -> Problem | None:
    """PageHeader.crc: "the standard CRC32 algorithm ... computed on the serialization binary representation of
    the page (as written to disk), excluding the page header" (parquet.thrift)."""
    crc = StructRef("PageHeader", path, header).value("crc")
    if crc is None:
        return None
    actual = zlib.crc32(bytes(buf[header.end:header.end + size]))
    if actual == crc & 0xFFFFFFFF:
        return None
    return finding("crc", path, f"crc {crc & 0xFFFFFFFF:#010x} is not the CRC-32 of the page ({actual:#010x})")


def _page_headers(footer: ParquetFooter) -> Iterator[StructRef]:
    """Every struct of every page header that decodes."""
    for path, header, _problem in _walk_pages(footer):
        if header is not None:
            yield from walk(header, "PageHeader", path)
