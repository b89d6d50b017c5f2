"""Citations and helpers shared by the Parquet case families."""

from __future__ import annotations

from parquet_conformance.corpus.model import Citation
from parquet_conformance.generators.parquet.mutations.extension import Extend, Payload, Which
from parquet_conformance.generators.parquet.mutations.flatbuffer import AddFlatbufferFooter

PF = "apache/parquet-format"
BPE = f"{PF} BinaryProtocolExtensions.md"
SEED_BPE = "shared/seeds/001 (BinaryProtocolExtensions.md)"


def cite(source: str, section: str, quote: str, seed: str | None = SEED_BPE) -> Citation:
    return Citation(source, section, quote, seed)


IGNORE = cite(
    BPE, "Binary Protocol Extensions", "Existing readers will ignore these extensions without any modifications"
)
OVERHEAD = cite(
    BPE,
    "Binary Protocol Extensions",
    "Existing readers will ignore the extension bytes with little processing overhead",
)
FREEFORM = cite(
    BPE, "Binary Protocol Extensions", "The content of the extension is freeform and can be encoded in any format."
)
UUID_MUST = cite(
    BPE,
    "Binary Protocol Extensions",
    "implementers which MUST put enough unique state in their extension bytes for disambiguation",
)
WIRE = cite(
    BPE,
    "Binary Protocol Extensions",
    "4 bytes | 08 FF FF 01 (long form header for 32767: binary) / 1-5 bytes | ULEB128(M) encoded size "
    "of the extension / M bytes | extension bytes / 1 byte | \\0 (thrift stop field)",
)
APPEND = cite(
    BPE,
    "Appending extensions to thrift",
    "thrift.back() = '\\x08'; AppendUleb(32767, &thrift); AppendUleb(ext.size(), &thrift); "
    "thrift += ext; thrift += '\\x00';",
)
ZIGZAG = cite(
    "apache/thrift doc/specs/thrift-compact-protocol.md",
    "Struct encoding",
    "the field id is encoded as a zigzag int (i16) following the type header byte",
    seed=None,
)
THRIFT_CPP_VARINT = cite(
    "apache/thrift lib/cpp/src/thrift/protocol/TCompactProtocol.tcc (034f2ad3)",
    "readVarint32, readVarint64, readBinary, readFieldBegin",
    "int64_t val; uint32_t rsize = readVarint64(val); i32 = (int32_t)val; ... Variable-length int over 10 bytes. ... "
    "if (type == T_STOP)",
    seed=None,
)
THRIFT_JAVA_VARINT = cite(
    "apache/thrift lib/java/src/main/java/org/apache/thrift/protocol/TCompactProtocol.java (05b06598)",
    "readVarint32",
    "result |= (b & 0x7f) << shift; if ((b & 0x80) != 0x80) break; shift += 7;",
    seed=None,
)
RESERVED = cite(
    f"{PF} README.md",
    "Binary Protocol Extensions",
    "Parquet Thrift IDL reserves field-id `32767` of every Thrift struct for extensions. "
    "The (Thrift) type of this field is always `binary`.",
    seed=None,
)
LAYOUT = cite(
    f"{PF} README.md",
    "File Format",
    '4-byte length in bytes of file metadata (little endian) / 4-byte magic number "PAR1"',
    seed=None,
)
CRITICAL = cite(
    BPE,
    "Examples / Footer",
    "guarantees that new readers will not overshoot reading bytes in case of corrupt bits in these "
    "critical 8 bytes of the file",
)
PROTOTYPES = cite(
    "apache/arrow PR #48431 cpp/src/parquet/metadata3.cc (b3f493b0); apache/arrow-rs PR #9042 "
    "parquet/src/file/metadata/flatbuf/converter.rs (e776d8a3)",
    "footer writer",
    "*p++ = 0x08; WriteLEB128(kFieldId, ...) appended after the serialized FileMetaData",
    seed=None,
)
PAR3 = cite(
    BPE,
    "Examples / Footer",
    "After the migration period, the end of the Parquet file may look like this: ... 4 bytes | PAR3",
)
PARE = cite(
    f"{PF} Encryption.md",
    "Encrypted footer mode",
    'a new magic string ("PARE") in order to ... immediately inform legacy readers (expecting "PAR1" '
    "bytes) that they can't parse this file",
    seed=None,
)


def ext(
    struct: str, which: Which = 0, header: str = "zigzag", size: int = 64, kind: str = "random", **extra: object
) -> Extend:
    return Extend(struct=struct, which=which, header=header, payload=Payload(kind, size), **extra)


HEADER_NOTE = {
    "spec": "Header written as BinaryProtocolExtensions.md writes it (08 FF FF 01); compact readers decode "
    "field id -16384, which they skip like any unknown field. See docs/spec-notes.md#field-header.",
    "zigzag": "Header written as a Thrift compiler writes field 32767 (08 FE FF 03). "
    "See docs/spec-notes.md#field-header.",
}
FORMS = ("spec", "zigzag")
STRUCTS = {  # slug -> (struct, which): the last instance, so that paths reach deep into the footer
    "file-metadata": ("FileMetaData", 0),
    "schema-element": ("SchemaElement", -1),
    "row-group": ("RowGroup", -1),
    "column-chunk": ("ColumnChunk", -1),
    "column-meta-data": ("ColumnMetaData", -1),
    "statistics": ("Statistics", -1),
    "key-value": ("KeyValue", -1),
}
SIZES = {"0B": 0, "1B": 1, "1KiB": 1 << 10, "1MiB": 1 << 20, "16MiB": 16 << 20, "64MiB": 64 << 20, "128MiB": 128 << 20}
LARGE = 64 << 20

FOOTER = cite(
    BPE,
    "Examples / Footer",
    "K bytes | Flatbuffers representation (v0) of FileMetaData / 4 bytes | little-endian crc32(flatbuffer) "
    "/ 4 bytes | little-endian size(flatbuffer) / 4 bytes | little-endian crc32(size(flatbuffer)) / "
    "16 bytes | some-UUID",
    seed="shared/seeds/001, 003",
)
REVERSE = cite(
    BPE,
    "Examples / Footer",
    "It is put at the end to allow detection of the extension when parsed in reverse.",
    seed="shared/seeds/001, 003",
)
MIGRATION = cite(
    BPE,
    "Examples / Footer",
    "For the next N years writers will write both the Thrift and the "
    "flatbuffer FileMetaData ... 16 bytes | some-other-UUID",
    seed="shared/seeds/001, 003",
)
FINAL = cite(
    BPE,
    "Examples / Footer",
    "After the migration period, the end of the Parquet file may look like this: ... 4 bytes | PAR3",
    seed="shared/seeds/001, 003",
)
CRC_META = cite(
    BPE,
    "Examples / Footer",
    "The crc32 of the flatbuffer representation enhances Parquet to have crc32 for metadata as well",
    seed="shared/seeds/001, 003",
)
PROTOTYPE_TRAILER = cite(
    "apache/arrow PR #48431 cpp/src/parquet/metadata3.cc (b3f493b0); apache/arrow-rs PR #9042 (e776d8a3)",
    "footer writer",
    "compressed flatbuffer | codec | crc32 | compressed_len | raw_len | crc32(lens) | UUID de ad be ef x4",
    seed=None,
)
SCHEMA_544 = cite(
    "apache/parquet-format PR #544 src/main/flatbuf/parquet.fbs (c938fc70)",
    "root_type FileMetaData",
    "table FileMetaData { version: int; schema: [SchemaElement]; num_rows: long; row_groups: [RowGroup]; ... }",
    seed=None,
)


def fb(profile: str, **params: object) -> AddFlatbufferFooter:
    return AddFlatbufferFooter(profile=profile, **params)


ENCODING = cite(
    BPE,
    "Examples / Encoding",
    "The extension stores offsets in the Parquet file where the new and "
    "duplicate encoded data for this column lives. The new writer carefully places all the new encodings "
    "at the start of the row group and all the old encodings at the end of the row group.",
    seed="shared/seeds/001",
)
