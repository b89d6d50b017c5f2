"""Citations and helpers shared by the Parquet case families."""

from __future__ import annotations

from functools import cache

from parquet_conformance.corpus.model import Citation, Level, own_rule
from parquet_conformance.generators.parquet.bases import base_bytes, lookup
from parquet_conformance.generators.parquet.mutations.extension import Extend, Payload, Which
from parquet_conformance.generators.parquet.mutations.flatbuffer import AddFlatbufferFooter
from parquet_conformance.generators.parquet.strict import parse_file

PF = "apache/parquet-format"
BPE = f"{PF} BinaryProtocolExtensions.md (737ea12e)"  # as PARQUET-2492 (#254) added it: the quotes are its words
SEED_BPE = "shared/seeds/001 (BinaryProtocolExtensions.md)"
# The commit the spec's other files are quoted at (docs/spec-notes.md names it), and the revision of the Thrift
# compact protocol's spec that defines type 13 (uuid) and still states the varint sizes.
FORMAT_COMMIT = "24102ed5"
THRIFT_SPEC = "apache/thrift doc/specs/thrift-compact-protocol.md (4959a923)"
README = f"{PF} README.md ({FORMAT_COMMIT})"
THRIFT_IDL = f"{PF} src/main/thrift/parquet.thrift ({FORMAT_COMMIT})"
RELEASE_COMMIT = "c47e2a66"  # apache-parquet-format-2.13.0, the latest release tag (corpus/parquet/format-facts.json)


def cite(source: str, section: str, quote: str, seed: str | None = SEED_BPE, level: Level | None = None) -> Citation:
    """A sentence and its force for what it is cited for (docs/spec-notes.md#levels): `must` for a sentence of the
    format's released or main-line text that requires the behaviour (a MUST, the Error recovery rule, the definition
    of a Parquet file for a golden file of released features), `should` where it says should, `policy` for a
    proposal (a PR's head or merge ref), upstream code and our own rules; None for a sentence that only defines a
    structure, grants a permission or describes: it gives context and requires nothing."""
    return Citation(source, section, quote, seed, level=level)


rule = own_rule  # this suite's own rules (docs/spec-notes.md#rules-of-this-suite)


# The definition of a Parquet file (README at the release tag): a golden file that uses only released features of the
# file's structure (the layout, the Thrift compact footer with optional fields absent, field 32767 reserved in every
# struct since 2.11.0) is `read` at `must` by it (docs/spec-notes.md#levels). Features a reader of an older release
# meets as unknown values (new logical types, column orders, statistics fields) are not in its scope: their
# compatibility sentences say how strongly a reader must cope.
DEFINITION = cite(f"{PF} README.md ({RELEASE_COMMIT})", "File format", '4-byte magic number "PAR1" / <Column 1 Chunk '
                  '1> / ... / File Metadata / 4-byte length in bytes of file metadata (little endian) / 4-byte magic '
                  'number "PAR1" ... All thrift structures are serialized using the TCompactProtocol.', seed=None,
                  level=Level.MUST)
GOLDEN = DEFINITION.requiring("legacy")
# An aware role reads a profile of this suite's (seed 001's examples, the prototypes, the proposals' framings): that
# it reads a file of its profile, and refuses one whose checks fail, is the profile's definition, not a sentence's.
AWARE = rule("aware-roles", "An aware role is a reader of one of this suite's profiles of the extension examples and "
             "proposals: that it reads a file of its profile is this suite's reading of the example or proposal, "
             "whose layouts define a structure and require nothing.")
AWARE_CHECKS = rule("aware-roles", "An aware reader refuses a file whose profile's checks fail (a CRC, a size) and "
                    "that it cannot read otherwise: this suite's reading of the profile.")


IGNORE = cite(
    BPE, "Binary Protocol Extensions", "Existing readers will ignore these extensions without any modifications"
)
OVERHEAD = cite(
    BPE,
    "Binary Protocol Extensions",
    "Existing readers will ignore the extension bytes with little processing overhead"
)
FREEFORM = cite(
    BPE, "Binary Protocol Extensions", "The content of the extension is freeform and can be encoded in any format."
)
UUID_MUST = cite(
    BPE,
    "Binary Protocol Extensions",
    "implementers which MUST put enough unique state in their extension bytes for disambiguation",
    level=Level.MUST,
)
WIRE = cite(
    BPE,
    "Binary Protocol Extensions",
    "4 bytes | 08 FF FF 01 (long form header for 32767: binary) / 1-5 bytes | ULEB128(M) encoded size "
    "of the extension / M bytes | extension bytes / 1 byte | \\0 (thrift stop field)"
)
APPEND = cite(
    BPE,
    "Appending extensions to thrift",
    "thrift.back() = '\\x08'; / AppendUleb(32767, &thrift); / AppendUleb(ext.size(), &thrift); / "
    "thrift += ext; / thrift += '\\x00';"
)
ZIGZAG = cite(THRIFT_SPEC, "Struct encoding", "`field id` the field id, a signed 16 bit integer encoded as zigzag int.",
              seed=None)
# The Thrift compact protocol: how a reader skips what it does not know, and how long a length may be.
UNKNOWN_FIELDS = cite(
    THRIFT_SPEC,
    "Struct",
    "Thrift's type system is not extensible; you can only encode the primitive types and structs. Therefore is also "
    "possible to handle unknown fields while decoding; these are simply ignored.",
    seed=None
)
UUID_TYPE = cite(THRIFT_SPEC, "Struct encoding", "`UUID`, encoded as `13`", seed=None)
VARINT_SIZE = cite(THRIFT_SPEC, "Integer encoding", "Var ints take 1 to 5 bytes (int32) or 1 to 10 bytes (int64).",
                   seed=None)
BINARY_LENGTH = cite(THRIFT_SPEC, "Binary encoding",
                     "`byte length` is the length of the byte array, using var int encoding (must be >= 0).", seed=None,
                     level=Level.MUST)
STRUCT_STOP = cite(THRIFT_SPEC, "Struct",
                   "A *Struct* is a sequence of zero or more fields, followed by a stop field.", seed=None)
THRIFT_CPP_VARINT = cite(
    "apache/thrift lib/cpp/src/thrift/protocol/TCompactProtocol.tcc (034f2ad3)",
    "readVarint32, readVarint64, readBinary, readFieldBegin",
    "int64_t val; uint32_t rsize = readVarint64(val); i32 = (int32_t)val; ... Variable-length int over 10 bytes. ... "
    "if (type == T_STOP)",
    seed=None,
    level=Level.POLICY,
)
THRIFT_JAVA_VARINT = cite(
    "apache/thrift lib/java/src/main/java/org/apache/thrift/protocol/TCompactProtocol.java (05b06598)",
    "readVarint32",
    "result |= (b & 0x7f) << shift; if ((b & 0x80) != 0x80) break; shift += 7;",
    seed=None,
    level=Level.POLICY,
)
RESERVED = cite(
    README,
    "Binary Protocol Extensions",
    "Parquet Thrift IDL reserves field-id `32767` of every Thrift struct for extensions. "
    "The (Thrift) type of this field is always `binary`.",
    seed=None
)
LAYOUT = cite(
    README,
    "File Format",
    '4-byte length in bytes of file metadata (little endian) / 4-byte magic number "PAR1"',
    seed=None
)
CRITICAL = cite(
    BPE,
    "Examples / Footer",
    "guarantees that new readers will not overshoot reading bytes in case of corrupt bits in these "
    "critical 8 bytes of the file",
    seed="shared/seeds/001, 003"
)
PROTOTYPES = cite(
    "apache/arrow PR #48431 cpp/src/parquet/metadata3.cc (b3f493b0); apache/arrow-rs PR #9042 "
    "parquet/src/file/metadata/flatbuf/converter.rs (e776d8a3)",
    "footer writer",
    "*p++ = 0x08; WriteLEB128(kFieldId, ...) appended after the serialized FileMetaData",
    seed=None,
    level=Level.POLICY,
)
PAR3 = cite(
    BPE,
    "Examples / Footer",
    "After the migration period, the end of the Parquet file may look like this: ... 4 bytes | PAR3"
)
# What a reader does with a file whose metadata it cannot use, and with a tail magic other than PAR1.
RECOVERY = cite(
    README,
    "Error recovery",
    "If the file metadata is corrupt, the file is lost. If the column metadata is corrupt, that column chunk is lost "
    "(but column chunks for this column in other row groups are okay). If a page header is corrupt, the remaining "
    "pages in that chunk are lost.",
    seed=None,
    level=Level.MUST,
)
MAGIC = cite(
    f"{PF} Encryption.md ({FORMAT_COMMIT})",
    "5.4 Encrypted footer mode",
    "Parquet readers start file parsing by reading and checking the magic string. Therefore, the encrypted footer "
    'mode uses a new magic string ("PARE") in order to instruct readers to look for a file crypto metadata before the '
    'footer - and also to immediately inform legacy readers (expecting "PAR1" bytes) that they can’t parse this '
    "file.",
    seed=None,
    level=Level.MUST,
)
PARE = MAGIC
DISAMBIGUATE = cite(
    BPE,
    "Binary Protocol Extensions",
    "Because only one field-id is reserved the extension bytes themselves require disambiguation; otherwise readers "
    "will not be able to decode extensions safely."
)
CODEC_SUPPORT = cite(THRIFT_IDL, "enum CompressionCodec", "Codec support may vary between readers based on the format "
                     "version and libraries available at runtime.", seed=None)


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
    seed=SEED_BPE,  # seed 003 names it UUID1
)
REVERSE = cite(
    BPE,
    "Examples / Footer",
    "It is put at the end to allow detection of the extension when parsed in reverse.",
    seed="shared/seeds/001, 003"
)
MIGRATION = cite(
    BPE,
    "Examples / Footer",
    "For the next N years writers will write both the Thrift and the "
    "flatbuffer `FileMetaData`. ... 16 bytes | some-other-UUID",
    seed=SEED_BPE,  # seed 003 names it UUID2
)
FINAL = cite(
    BPE,
    "Examples / Footer",
    "After the migration period, the end of the Parquet file may look like this: ... 4 bytes | PAR3",
    seed=SEED_BPE,  # seed 003 writes "parquet file"
)
CRC_META = cite(
    BPE,
    "Examples / Footer",
    "The crc32 of the flatbuffer representation enhances Parquet to have crc32 for metadata as well",
    seed="shared/seeds/001, 003"
)
PROTOTYPE_TRAILER = cite(
    "apache/arrow PR #48431 cpp/src/parquet/metadata3.cc (b3f493b0); apache/arrow-rs PR #9042 (e776d8a3)",
    "footer writer",
    "compressed flatbuffer | codec | crc32 | compressed_len | raw_len | crc32(lens) | UUID de ad be ef x4",
    seed=None,
    level=Level.POLICY,
)
SCHEMA_544 = cite(
    "apache/parquet-format PR #544 src/main/flatbuf/parquet.fbs (c938fc70)",
    "root_type FileMetaData",
    "table FileMetaData { version: int; schema: [SchemaElement]; num_rows: long; row_groups: [RowGroup]; ... }",
    seed=None
)


def fb(profile: str, **params: object) -> AddFlatbufferFooter:
    return AddFlatbufferFooter(profile=profile, **params)


ENCODING = cite(
    BPE,
    "Examples / Encoding",
    "The extension stores offsets in the Parquet file where the new and "
    "duplicate encoded data for this column lives. The new writer carefully places all the new encodings "
    "at the start of the row group and all the old encodings at the end of the row group.",
    seed="shared/seeds/001"
)
ENCODING_READER = cite(
    BPE,
    "Examples / Encoding",
    "This is done to become extension aware and inspect the extension bytes looking for the UUID disambiguator. ... "
    "found it decodes the offsets from the rest of the bytes and reads the region of the file containing the new "
    "encoding.",
    seed="shared/seeds/001"
)


# What a base needs that the spec lets a reader lack (docs/spec-notes.md#features-a-reader-may-lack): a codec
# other than UNCOMPRESSED, instants beyond the range a reader supports. The base itself expects `either` (exactly
# the base data, or a refusal); the cases built on it keep `read`, since the judge does not hold a reader to a case
# whose base it fails the same way (conformance/harness/judge.py: such a failure is the base's, the case is skip).
RANGE = cite(f"{PF} LogicalTypes.md ({FORMAT_COMMIT})", "Timestamp / Common considerations",
             "Every possible `int64` number represents a valid timestamp, but depending on the precision, the "
             "corresponding year may be outside of the practical everyday limits and implementations may choose to "
             "only support a limited range.", seed=None)
INT96 = cite(THRIFT_IDL, "enum Type", "INT96 = 3;  // deprecated, new Parquet writers should not write data in INT96",
             seed=None, level=Level.SHOULD)
BEYOND_RANGE = {"int96-extremes": (RANGE, INT96)}


@cache
def base_needs(base: str) -> tuple[Citation, ...]:
    """The sentences that let a reader refuse `base` for what it needs (empty: a reader must read it)."""
    if lookup(base).encrypted:
        return ()
    codecs = {md.value("codec") for md in parse_file(base_bytes(base)).structs() if md.name == "ColumnMetaData"}
    return (*((CODEC_SUPPORT,) if codecs - {0} else ()), *BEYOND_RANGE.get(base, ()))


def base_read(base: str) -> str:
    """What a legacy reader must do with `base` itself: `read`, or `either` where it needs what a reader may lack
    (base_needs)."""
    return "either" if base_needs(base) else "read"


NEEDS_NOTE = ("The base needs what the spec lets a reader lack ({}): a reader that refuses the base itself, the "
              "same way, is not judged on this case (the failure is the base's, reported once on the base case); "
              "one that reads the base must read this case (docs/spec-notes.md#features-a-reader-may-lack).")


def needs_note(base: str) -> str:
    what = {CODEC_SUPPORT: "a compression codec", RANGE: "instants beyond the range it supports"}
    return NEEDS_NOTE.format(", ".join(what[c] for c in base_needs(base) if c in what)) if base_needs(base) else ""
