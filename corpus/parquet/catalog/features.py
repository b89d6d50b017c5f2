"""Every reader-side feature apache/parquet-site tracks (corpus/parquet/site.py), each in cases that isolate it
(docs/spec-notes.md#features): a type in a file of its own, written with nothing else a reader could lack (PLAIN,
uncompressed, v1 pages, no statistics or dictionary), which is its feature's case; an encoding, a codec or a page
feature varied over a reference file of the same rows (the case is the reference with the feature, so a reader that
fails the reference the same way is not judged on it: conformance/harness/judge.py); a legacy nested form or
annotation over the modern one. A feature a plain read does not use is read through an operation of the library's
own API (`op`: statistics, page-index, bloom, geo-statistics, crc: docs/adapter-protocol.md#operations), judged on
what the file holds as our decoder reads it (generators/parquet/operations.py).

`isolating()` maps each site feature id to its cases and says how each speaks for it (`how`): `reads` (a pass needs
the feature), `operation` (a pass needs the library's API for it), `tolerates` (a plain read of a file with a
feature the read does not use: only a failure speaks), `legacy` (a backward-compatibility form that rests on a
should: a pass shows support, a failure is never the feature's `none`), `unchecked` (an apache/parquet-testing file
whose data we cannot state: a pass shows a read without a refusal, not its data), `everywhere` (a reference file
of the encodings, for what every such file has: PLAIN, v1 data pages, no compression: a pass shows it read; a
failure is its types', which their own files judge, never that feature's `none`). An encoding, a codec or a page
version varied over the whole reference has a `narrow` twin varied over the reference's columns it changes alone,
FIXED_LEN_BYTE_ARRAY aside (generators/parquet/features.py NARROW), so that a reader failing an unrelated column of
the whole reference still shows what it does with the feature. Features no case isolates are in `LEFT_OUT` with the
reason."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

import pyarrow as pa

from parquet_conformance.corpus import upstream
from parquet_conformance.corpus.model import Alternative, Case, Citation, Level
from parquet_conformance.corpus.parquet.catalog.common import CODEC_SUPPORT, GOLDEN, PF, cite, rule
from parquet_conformance.corpus.parquet.catalog.evolution import geometry_steps
from parquet_conformance.generators.parquet import encryption
from parquet_conformance.generators.parquet.bases import BASES, base_expected, provenance
from parquet_conformance.generators.parquet.features import NARROW
from parquet_conformance.generators.parquet.mutations import Mutation
from parquet_conformance.generators.parquet.mutations.fields import RemoveFields, SetField
from parquet_conformance.generators.parquet.mutations.rewrite import BitPackLevels, ReshapeSchema, UseFixture, WriteAs

AT = "24102ed5"  # the main line the spec's other files are quoted at (common.FORMAT_COMMIT)
LT = f"{PF} LogicalTypes.md ({AT})"
ENCODINGS = f"{PF} Encodings.md ({AT})"
COMPRESSION = f"{PF} Compression.md ({AT})"
THRIFT = f"{PF} src/main/thrift/parquet.thrift ({AT})"
PYARROW = f"pyarrow {pa.__version__}"

# What each type, encoding and codec is (context: a definition requires nothing; GOLDEN requires the read).
TYPES = cite(THRIFT, "enum Type", "BOOLEAN = 0; / INT32 = 1; / INT64 = 2; / INT96 = 3;  // deprecated, new Parquet "
             "writers should not write data in INT96 / FLOAT = 4; / DOUBLE = 5; / BYTE_ARRAY = 6; / "
             "FIXED_LEN_BYTE_ARRAY = 7;", seed=None)
LOGICAL = {
    "string": ("STRING", "`STRING` may only be used to annotate the `BYTE_ARRAY` primitive type and indicates that "
               "the byte array should be interpreted as a UTF-8 encoded character string."),
    "enum": ("ENUM", "`ENUM` annotates the `BYTE_ARRAY` primitive type and indicates that the value was converted "
             "from an enumerated type in another data model (e.g. Thrift, Avro, Protobuf)."),
    "uuid": ("UUID", "`UUID` annotates a 16-byte `FIXED_LEN_BYTE_ARRAY` primitive type."),
    "int-types": ("Signed Integers", "`INT` annotation can be used to specify the maximum number of bits in the "
                  "stored value."),
    "decimal": ("DECIMAL", "`DECIMAL` annotation represents arbitrary-precision signed decimal numbers of the form "
                "`unscaledValue * 10^(-scale)`."),
    "float16": ("FLOAT16", "The `FLOAT16` annotation represents half-precision floating-point numbers in the 2-byte "
                "IEEE little-endian format."),
    "date": ("DATE", "`DATE` is used for a logical date type, without a time of day."),
    "time": ("TIME", "`TIME` is used for a logical time type without a date with millisecond, microsecond, or "
             "nanosecond precision."),
    "timestamp": ("TIMESTAMP", "In data annotated with the `TIMESTAMP` logical type, each value is a single `int64` "
                  "number that can be decoded into year, month, day, hour, minute, second and subsecond fields"),
    "interval": ("INTERVAL", "`INTERVAL` is used for an interval of time. It must annotate a `fixed_len_byte_array` "
                 "of length 12."),
    "json": ("JSON", "`JSON` is used for an embedded JSON document. It must annotate a `BYTE_ARRAY` primitive type."),
    "bson": ("BSON", "`BSON` is used for an embedded BSON document. It must annotate a `BYTE_ARRAY` primitive type."),
    "unknown": ("UNKNOWN (always null)", "The `UNKNOWN` type can be used to annotate a column that is always null."),
    "list": ("Lists", "`LIST` is used to annotate types that should be interpreted as lists."),
    "map": ("Maps", "`MAP` is used to annotate types that should be interpreted as a map from keys to values."),
}
LOGICAL_SECTION = {"uuid": "uuid", "int-types": "int-types", "string": "string", "enum": "enum", "date": "date",
                   "time-int32": "time", "time-int64": "time", "timestamp-int64": "timestamp",
                   "nanosecond-time-timestamp": "timestamp", "interval": "interval", "json": "json", "bson": "bson",
                   "unknown": "unknown", "float16": "float16", "list": "list", "map": "map",
                   **{f"decimal-{p}": "decimal" for p in ("int32", "int64", "byte-array", "fixed-len-byte-array")}}
ENCODING_TEXT = {
    "plain-dictionary": ("Dictionary Encoding (PLAIN_DICTIONARY = 2 and RLE_DICTIONARY = 8)", "Using the "
                         "`PLAIN_DICTIONARY` enum value is deprecated, use `RLE_DICTIONARY` in a data page and `PLAIN` "
                         "in a dictionary page for new Parquet files."),
    "rle-dictionary": ("Dictionary Encoding (PLAIN_DICTIONARY = 2 and RLE_DICTIONARY = 8)", "Data page format: the "
                       "bit width used to encode the entry ids stored as 1 byte (max bit width = 32), followed by the "
                       "values encoded using the RLE/Bit-Packing described above (with the given bit width)."),
    "rle": ("Run Length Encoding / Bit-Packing Hybrid (RLE = 3)", "This encoding uses a combination of bit-packing "
            "and run length encoding to more efficiently store repeated values."),
    "bit-packed": ("Bit-packed (Deprecated) (BIT_PACKED = 4)", "For compatibility reasons, this implementation packs "
                   "values from the most significant bit to the least significant bit, which is not the same as the "
                   "[RLE/bit-packing](#RLE) hybrid. ... Note that the BIT_PACKED encoding method is only supported for "
                   "encoding repetition and definition levels."),
    "delta-binary-packed": ("Delta Encoding (DELTA_BINARY_PACKED = 5)", "Supported Types: INT32, INT64"),
    "delta-length-byte-array": ("Delta-length byte array: (DELTA_LENGTH_BYTE_ARRAY = 6)", "For this encoding, we "
                                "will take all the byte array lengths and encode them using delta encoding "
                                "(DELTA_BINARY_PACKED)."),
    "delta-byte-array": ("Delta Strings: (DELTA_BYTE_ARRAY = 7)", "Supported Types: BYTE_ARRAY, "
                         "FIXED_LEN_BYTE_ARRAY"),
    "byte-stream-split": ("Byte Stream Split: (BYTE_STREAM_SPLIT = 9)", "This encoding creates K byte-streams of "
                          "length N where K is the size in bytes of the data type and N is the number of elements in "
                          "the data sequence."),
    "byte-stream-split-extended": ("Byte Stream Split: (BYTE_STREAM_SPLIT = 9)", "Supported Types: FLOAT, DOUBLE, "
                                   "INT32, INT64, FIXED_LEN_BYTE_ARRAY"),
}
CODECS = {"snappy": "SNAPPY", "gzip": "GZIP", "brotli": "BROTLI", "zstd": "ZSTD", "lz4-raw": "LZ4_RAW"}
CODEC_TEXT = {
    "snappy": "A codec based on the [Snappy compression format](https://github.com/google/snappy/blob/master/"
              "format_description.txt).",
    "gzip": 'A codec based on the GZIP format (not the closely-related "zlib" or "deflate" formats) defined by '
            "[RFC 1952](https://tools.ietf.org/html/rfc1952).",
    "brotli": "A codec based on the Brotli format defined by [RFC 7932](https://tools.ietf.org/html/rfc7932).",
    "zstd": "A codec based on the Zstandard format defined by [RFC 8878](https://tools.ietf.org/html/rfc8878).",
    "lz4-raw": "A codec based on the [LZ4 block format](https://github.com/lz4/lz4/blob/dev/doc/lz4_Block_format.md).",
}
PYARROW_CODEC = {"snappy": "snappy", "gzip": "gzip", "brotli": "brotli", "zstd": "zstd", "lz4-raw": "lz4"}
LZ4 = cite(COMPRESSION, "LZ4", "A **deprecated** codec loosely based on the LZ4 compression algorithm, but with an "
           "additional undocumented framing scheme.", seed=None)
PAGE_V2 = cite(THRIFT, "struct DataPageHeaderV2", "struct DataPageHeaderV2 {", seed=None)
CRC = cite(THRIFT, "struct PageHeader", "The 32-bit CRC checksum for the page, to be calculated as follows: ... - The "
           "standard CRC32 algorithm is used (with polynomial 0x04C11DB7, the same as in e.g. GZIP).", seed=None)
STATISTICS = cite(THRIFT, "struct Statistics", "Lower and upper bound values for the column, determined by its "
                  "ColumnOrder. ... Values are encoded using PLAIN encoding, except that variable-length byte arrays "
                  "do not include a length prefix.", seed=None)
SIZE_STATISTICS = cite(THRIFT, "struct ColumnMetaData", "Optional statistics to help estimate total memory when "
                       "converted to in-memory representations.", seed=None)
PAGE_INDEX = cite(f"{PF} PageIndex.md ({AT})", "Technical Approach", "The new index structures are stored separately "
                  "from RowGroup, near the footer.", seed=None)
BLOOM = cite(f"{PF} BloomFilter.md ({AT})", "Technical Approach", "using the function XXH64", seed=None)
BLOOM_LENGTH = cite(THRIFT, "struct ColumnMetaData", "Size of Bloom filter data including the serialized header, in "
                    "bytes. Added in 2.10 so readers may not read this field from old files and it can be obtained "
                    "after the BloomFilterHeader has been deserialized.", seed=None)
GEO_STATISTICS = cite(THRIFT, "struct ColumnMetaData", "Optional statistics specific for Geometry and Geography "
                      "logical types", seed=None)

# Backward compatibility (LogicalTypes.md): what a reader should do with the legacy forms, at `should`.
SHOULD = Level.SHOULD
UNANNOTATED = cite(LT, "Nested Types", "A repeated field that is neither contained by a `LIST`- or `MAP`-annotated "
                   "group nor annotated by `LIST` or `MAP` should be interpreted as a required list of required "
                   "elements where the element type is the type of the field.", seed=None, level=SHOULD)
LIST_NAMES = cite(LT, "Lists / Backward-compatibility rules", "It is required that the repeated group of elements is "
                  "named `list` and that its element field is named `element`. However, these names may not be used "
                  "in existing data and should not be enforced as errors when reading.", seed=None, level=SHOULD)
LIST_RULES = "For backward-compatibility, the type of elements in `LIST`-annotated structures should always be " \
             "determined by the following rules: ... "
LIST_RULE = {
    1: cite(LT, "Lists / Backward-compatibility rules", LIST_RULES + "1. If the repeated field is not a group, then "
            "its type is the element type and elements are required.", seed=None, level=SHOULD),
    2: cite(LT, "Lists / Backward-compatibility rules", LIST_RULES + "2. If the repeated field is a group with "
            "multiple fields, then its type is the element type and elements are required.", seed=None, level=SHOULD),
    3: cite(LT, "Lists / Backward-compatibility rules", LIST_RULES + "3. If the repeated field is a group with one "
            "field with `repeated` repetition, then its type is the element type and elements are required.",
            seed=None, level=SHOULD),
    4: cite(LT, "Lists / Backward-compatibility rules", LIST_RULES + "4. If the repeated field is a group with one "
            "field and is named either `array` or uses the `LIST`-annotated group's name with `_tuple` appended then "
            "the repeated type is the element type and elements are required.", seed=None, level=SHOULD),
}
MAP_NAMES = cite(LT, "Maps / Backward-compatibility rules", "It is required that the repeated group of key-value "
                 "pairs is named `key_value` and that its fields are named `key` and `value`. However, these names "
                 "may not be used in existing data and should not be enforced as errors when reading.", seed=None,
                 level=SHOULD)
MAP_KEY_VALUE = cite(LT, "Maps / Backward-compatibility rules", "For backward-compatibility, a group annotated with "
                     "`MAP_KEY_VALUE` that is not contained by a `MAP`-annotated group should be handled as a "
                     "`MAP`-annotated group.", seed=None, level=SHOULD)
CONVERTED = cite(LT, "Compatibility", "Parquet readers should be able to read and interpret `ConvertedType` "
                 "annotations in case `LogicalType` annotations are not present.", seed=None, level=SHOULD)
LOGICAL_UNION = cite(THRIFT, "struct SchemaElement", "10: optional LogicalType logicalType", seed=None)

# This suite's readings where no sentence decides (docs/spec-notes.md#feature-operations).
OPERATION = rule("feature-operations", "A library asked through its own API for what a file holds besides its rows "
                 "(statistics, the page index, bloom filters, geospatial statistics) answers what the file holds: "
                 "this suite's reading.")
CRC_READ = rule("feature-operations", "A reader asked to verify page checksums reads a file whose checksums match: "
                "this suite's reading.")
DECRYPT = rule("feature-operations", "A reader given the keys of a file in Parquet modular encryption reads its rows: "
               "this suite's reading.")
ENCRYPTION = cite(f"{PF} Encryption.md ({AT})", "3 Technical Approach", "File encryption is flexible - each column "
                  "and the footer can be encrypted with the same key, with a different key, or not encrypted at all.",
                  seed=None)
CRC_REJECT = rule("feature-operations", "A reader asked to verify page checksums refuses a file with a page whose "
                  "checksum does not match: this suite's reading.")

How = Literal["reads", "operation", "tolerates", "legacy", "everywhere", "unchecked"]


@dataclass(frozen=True)
class Isolating:
    """A case that isolates a parquet-site feature, and how a verdict on it speaks for the feature."""

    feature: str  # the site's id (data/implementations/features/*.yaml)
    case: str
    how: How
    writer: str  # who wrote the file and how (the writer and its version; our edit where it is ours)


def _writer(fixture: str) -> str:
    p = provenance()[fixture.removesuffix(".parquet")]
    return f"{p['created_by']} ({p['version']})"


@dataclass(frozen=True)
class _Spec:
    feature: str
    slug: str  # the writer, in the case id
    title: str
    base: str
    steps: tuple[Mutation, ...]
    expect: str
    citations: tuple[Citation, ...]
    notes: str
    how: How
    writer: str
    op: str = "read"
    kind: str = "golden"  # what our strict decoder concludes: a wrong CRC damages a page (corrupt)
    alternatives: tuple[Alternative, ...] = ()  # other data a read may return and be right (as text: ENUM, UUID)
    keys: Mapping[str, str] = field(default_factory=dict)  # sent with the operation (`decrypt`)


def cases() -> list[Case]:
    return [_case(s) for s in _specs()]


def isolating() -> tuple[Isolating, ...]:
    """Every site feature id a case of ours isolates, with the cases of other families that do (ALP, VARIANT,
    GEOMETRY, GEOGRAPHY, binary protocol extensions, IEEE 754 total order) and the upstream files."""
    own = [Isolating(s.feature, f"features/{s.feature}/{s.slug}", s.how, s.writer) for s in _specs()
           if s.feature != "reference"]
    own.append(Isolating("encoding-pfor", "evolution/pfor/pr-579", "tolerates",
                         "our encoder (PR #579, open) on pyarrow's file: a reader of a release refuses it"))
    return (*own, *OTHERS, *_upstream())


def _case(s: _Spec) -> Case:
    return Case(id=f"features/{s.feature}/{s.slug}", title=s.title, kind=s.kind, base=s.base, mutations=s.steps,
                expect={"legacy": s.expect}, citations=s.citations, notes=s.notes, op=s.op,
                alternatives=s.alternatives, keys=s.keys)


def _specs() -> list[_Spec]:
    varied = [*_encodings(), *_codecs(), *_pages()]
    return [*_value_features(), *varied, *(_narrow(s) for s in varied if s.feature in NARROW_OF), *_legacy(),
            *_encrypted()]


# The narrow reference (features.NARROW) each feature varied over the whole reference is also varied over: the
# columns it changes but FIXED_LEN_BYTE_ARRAY; a codec or a page version changes every column: INT32 and text.
NARROW_OF = {"encoding-plain-dictionary": "i32-s", "encoding-rle-dictionary": "i32-s", "encoding-rle": "flag",
             "encoding-bit-packed": "i32", "encoding-delta-binary-packed": "i32-i64",
             "encoding-delta-length-byte-array": "s-b", "encoding-delta-byte-array": "s-b",
             "encoding-byte-stream-split": "f32-f64", "encoding-byte-stream-split-extended": "i32-i64",
             "format-data-page-v2": "i32-s", **{f"compression-{slug}": "i32-s" for slug in CODECS},
             "compression-lz4-deprecated": "i32-s"}


def _narrow(s: _Spec) -> _Spec:
    """The case varied over the narrow reference: the same change, on the columns it changes alone, over its base's
    narrow twin (`<base>-<slug>`: pyarrow's reference, or a writer's committed one with its fixtures' twins)."""
    slug = NARROW_OF[s.feature]
    columns = NARROW[slug]
    steps = tuple(_only(step, columns, slug) for step in s.steps)
    base = f"{s.base}-{slug}"
    fixtures = [step.fixture for step in steps if isinstance(step, UseFixture)]
    return replace(s, slug="narrow", base=base, steps=steps,
                   title=f"{s.title}; here the {', '.join(columns)} column{'s' if len(columns) > 1 else ''} alone",
                   notes=f"{s.notes} The twin of features/{s.feature}/{s.slug} over the reference's "
                         f"{', '.join(columns)} alone ({BASES[base].case}): a reader that fails another column of the "
                         "whole reference still shows what it does with the feature.",
                   writer=_writer(fixtures[0]) if fixtures else s.writer)


def _only(step: Mutation, columns: tuple[str, ...], slug: str) -> Mutation:
    """A step for the narrow file (which has these columns alone): a WriteAs step's per-column options for these
    columns only; a committed fixture's narrow twin (`<fixture>-<slug>.parquet`, fixtures/write.py)."""
    if isinstance(step, UseFixture):
        return UseFixture(f"{step.fixture.removesuffix('.parquet')}-{slug}.parquet")
    if not isinstance(step, WriteAs) or not isinstance(step.options.get("column_encoding"), dict):
        return step
    encodings = {c: e for c, e in step.options["column_encoding"].items() if c in columns}
    return replace(step, options={**step.options, "column_encoding": encodings})


def _value_features() -> list[_Spec]:
    """Each base that is its own case (Base.case): a type's own file, the reference files."""
    out = []
    for name, base in BASES.items():
        if base.case is None:
            continue
        feature, slug = base.case.split("/")[1:]
        writer = _writer(base.fixture) if base.fixture else (f"{PYARROW}, annotated by our codec" if base.annotate
                                                              else PYARROW)
        if base.fixture:
            notes = (f"The file is its base as {writer} wrote it (a committed fixture: "
                     "generators/parquet/fixtures/provenance.json).")
        else:
            notes = ("The file is its base: nothing else a reader could lack (PLAIN, uncompressed, v1 pages, no "
                     "statistics). " + ("pyarrow does not write the type: the column is written as binaries and "
                                        "annotated by our codec. " if base.annotate else "") + f"Written by {writer}.")
        alternative = AS_TEXT.get(feature)
        how: How = "everywhere" if feature == "encoding-plain" else "reads"
        out.append(_Spec(feature, slug, f"{feature}: {base.description}", name, (), "read",
                         (GOLDEN, _context(feature), *((alternative[1],) if alternative else ())),
                         notes + (f" {alternative[2]}" if alternative else ""), how, writer,
                         alternatives=_alternatives(name, alternative[0]) if alternative else ()))
    return out


# Annotations whose values the spec gives a text form of, a lossless one a reader may return instead of the
# physical values: ENUM as UTF-8 strings (a should for data models without an enum type), a UUID as the text of its
# big-endian bytes (the section's own example). A read of that text reads the type (docs/spec-notes.md#features).
AS_TEXT = {
    "logical-enum": ("enum", cite(LT, "ENUM", "Applications using a data model lacking a native enum type should "
                                              "interpret `ENUM` annotated field as a UTF-8 encoded string.", seed=None),
                     "A reader whose data model has no enum type returns the values as UTF-8 strings (LogicalTypes.md "
                     "says it should): the alternative `text`."),
    "logical-uuid": ("uuid", cite(LT, "UUID", "The value is encoded using big-endian, so that `00112233-4455-6677-"
                                              "8899-aabbccddeeff` is encoded as the bytes `00 11 22 33 44 55 66 77 88 "
                                              "99 aa bb cc dd ee ff`", seed=None),
                     "A reader that returns each UUID as its text (the form LogicalTypes.md writes one in) loses "
                     "nothing: the alternative `text`; one whose data model has no UUID type returns the 16 bytes as "
                     "written, as a reader of ENUM returns its bytes: the alternative `bytes`."),
}


def _alternatives(base: str, column: str) -> tuple[Alternative, ...]:
    text = _as_text(base, column)
    if column != "uuid":
        return (text,)
    data = base_expected(base)
    rows = [[{"bin": v["uuid"].replace("-", "")} if isinstance(v, dict) else v for v in row] for row in data["rows"]]
    return text, Alternative("bytes", "The uuid column as its 16 bytes, as written.",
                             {"columns": list(data["columns"]), "rows": rows})


def _as_text(base: str, column: str) -> Alternative:
    """The base's rows with one column as text: ENUM's bytes decoded as UTF-8, a UUID as its lowercase text."""
    data = base_expected(base)
    i = data["columns"].index(column)

    def text(v: object) -> object:
        if isinstance(v, dict) and "bin" in v:
            return bytes.fromhex(v["bin"]).decode("utf-8")
        return v["uuid"] if isinstance(v, dict) and "uuid" in v else v

    rows = [[text(v) if j == i else v for j, v in enumerate(row)] for row in data["rows"]]
    form = "UTF-8 strings" if column == "enum" else "the lowercase hyphenated text of each UUID"
    return Alternative("text", f"The {column} column as text: {form}.", {"columns": list(data["columns"]),
                                                                          "rows": rows})


def _context(feature: str) -> Citation:
    """The sentence that defines a type or a reference file's first feature (context: it requires nothing)."""
    logical = feature.removeprefix("logical-")
    if logical in LOGICAL_SECTION:
        return cite(LT, *LOGICAL[LOGICAL_SECTION[logical]], seed=None)
    if feature == "logical-type-union":
        return LOGICAL_UNION
    if feature == "encoding-plain":
        return cite(ENCODINGS, "Plain: (PLAIN = 0)", "Supported Types: all ... This is the plain encoding that must be "
                    "supported for types.", seed=None)
    return TYPES


def _write(feature: str, title: str, options: dict[str, object], citations: tuple[Citation, ...], notes: str,
           how: How = "reads", expect: str = "read", op: str = "read", slug: str = "pyarrow",
           base: str = "feat-reference") -> _Spec:
    return _Spec(feature, slug, title, base, (WriteAs(options),), expect, citations,
                 f"{notes} The base is the same rows PLAIN, uncompressed, v1 pages; pyarrow writes both "
                 f"({PYARROW}).", how, f"{PYARROW}, write_table({', '.join(f'{k}={v!r}' for k, v in options.items())})",
                 op)


def _encodings() -> list[_Spec]:
    def enc(slug: str) -> Citation:
        section, quote = ENCODING_TEXT[slug]
        return cite(ENCODINGS, section, quote, seed=None)

    def columns(encoding: str, *cols: str) -> dict[str, object]:
        return {"use_dictionary": False, "column_encoding": dict.fromkeys(cols, encoding)}

    out = [
        _write("encoding-plain-dictionary", "the text and INT32 columns dictionary-encoded as a format 1.0 writer "
               "writes them: PLAIN_DICTIONARY in the dictionary and the data pages",
               {"version": "1.0", "use_dictionary": ["s", "i32"]}, (GOLDEN, enc("plain-dictionary")),
               "pyarrow writes PLAIN_DICTIONARY with version='1.0' (the format version that option names also "
               "keeps the other columns' annotations to those of 1.0)."),
        _write("encoding-rle-dictionary", "the text and INT32 columns dictionary-encoded: a PLAIN dictionary page "
               "and RLE_DICTIONARY data pages", {"use_dictionary": ["s", "i32"]}, (GOLDEN, enc("rle-dictionary")), ""),
        _write("encoding-rle", "the BOOLEAN column's values in the RLE/bit-packing hybrid (RLE = 3)",
               columns("RLE", "flag"), (GOLDEN, enc("rle")), "Levels are RLE in every file; the values are what "
               "this case adds."),
        _Spec("encoding-bit-packed", "ours", "the definition levels of the INT32 column in the deprecated BIT_PACKED "
              "encoding", "feat-reference", (BitPackLevels("i32"),), "read", (GOLDEN, enc("bit-packed")),
              "No writer we have writes BIT_PACKED levels (parquet-java lists it in `encodings` for columns without "
              "levels): our encoder re-encodes the v1 pages' definition levels of pyarrow's file "
              "(generators/parquet/mutations/rewrite.py bit_pack_levels), the values as written.", "reads",
              f"{PYARROW}, levels re-encoded by our codec"),
        _write("encoding-delta-binary-packed", "the INT32 and INT64 columns in DELTA_BINARY_PACKED",
               columns("DELTA_BINARY_PACKED", "i32", "i64"), (GOLDEN, enc("delta-binary-packed")), ""),
        _write("encoding-delta-length-byte-array", "the text and BYTE_ARRAY columns in DELTA_LENGTH_BYTE_ARRAY",
               columns("DELTA_LENGTH_BYTE_ARRAY", "s", "b"), (GOLDEN, enc("delta-length-byte-array")), ""),
        _write("encoding-delta-byte-array", "the text, BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY(4) columns in "
               "DELTA_BYTE_ARRAY", columns("DELTA_BYTE_ARRAY", "s", "b", "fx"), (GOLDEN, enc("delta-byte-array")), ""),
        _write("encoding-byte-stream-split", "the FLOAT and DOUBLE columns in BYTE_STREAM_SPLIT",
               columns("BYTE_STREAM_SPLIT", "f32", "f64"), (GOLDEN, enc("byte-stream-split")), ""),
        _write("encoding-byte-stream-split-extended", "the INT32, INT64 and FIXED_LEN_BYTE_ARRAY(4) columns in "
               "BYTE_STREAM_SPLIT (the types added in 2.11.0)", columns("BYTE_STREAM_SPLIT", "i32", "i64", "fx"),
               (GOLDEN, enc("byte-stream-split-extended")), ""),
    ]
    return out


def _codecs() -> list[_Spec]:
    out = [_write(f"compression-{slug}", f"every page compressed with {name}", {"compression": PYARROW_CODEC[slug]},
                  (CODEC_SUPPORT, cite(COMPRESSION, name, CODEC_TEXT[slug], seed=None)),
                  "Codec support may vary between readers: a reader may refuse the file, and if it reads, it reads "
                  "exactly the rows (docs/spec-notes.md#features-a-reader-may-lack).", expect="either")
           for slug, name in CODECS.items()]
    out.append(_Spec("compression-lz4-deprecated", "parquet-java", "every page compressed with the deprecated LZ4 "
                     "codec (Hadoop's framing) by parquet-java through Spark", "feat-reference-parquet-java",
                     (UseFixture("spark-lz4.parquet"),), "either", (CODEC_SUPPORT, LZ4),
                     "The base is the same rows uncompressed from the same writer; only the codec differs. Codec "
                     "support may vary between readers: either.", "reads",
                     _writer("spark-lz4.parquet")))
    return out


def _pages() -> list[_Spec]:
    keyed = "feat-keyed"
    stats = {"write_statistics": True}
    # pyarrow writes a column index only with statistics: the page index cases have chunk statistics too
    index = {"write_page_index": True, "write_statistics": True, "data_page_size": 256, "write_batch_size": 20}
    bloom = {"bloom_filter_options": {"id": {"ndv": 160, "fpp": 0.05}, "key": {"ndv": 160, "fpp": 0.05}}}
    v2 = _write("format-data-page-v2", "every data page as DATA_PAGE_V2", {"data_page_version": "2.0"},
                (GOLDEN, PAGE_V2), "")
    out = [v2, _write("format-page-crc32", "a CRC-32 in every page header, read as a user reads",
                      {"write_page_checksum": True}, (GOLDEN, CRC), "A plain read need not check the CRCs: only a "
                      "failure speaks for the feature here; features/format-page-crc32/verified checks them.",
                      how="tolerates", slug="plain-read")]
    out.append(_write("format-page-crc32", "a CRC-32 in every page header, read with the library's checksum "
                      "verification on (op `crc`)", {"write_page_checksum": True}, (CRC_READ.requiring("legacy"), CRC),
                      "The worker reads with verification on (pyarrow: page_checksum_verification); an adapter whose "
                      "library has none answers `unavailable`.", how="operation", op="crc", slug="verified"))
    crc_bad = _write("format-page-crc32", "a CRC-32 in every page header, one off by a bit, read with the library's "
                     "checksum verification on (op `crc`)", {"write_page_checksum": True},
                     (CRC_REJECT.requiring("legacy"), CRC), "The page itself is intact: a reader that verifies must "
                     "refuse it; one that does not verify reads it (storage/crc/* are the plain reads).",
                     how="operation", expect="reject", op="crc", slug="verified-wrong")
    out.append(_Spec(crc_bad.feature, crc_bad.slug, crc_bad.title, crc_bad.base,
                     (*crc_bad.steps, SetField(struct="PageHeader", field="crc", xor=1, page=0)), "reject",
                     crc_bad.citations, crc_bad.notes, "operation", crc_bad.writer + "; one CRC flipped by our edit",
                     "crc", "corrupt"))
    for feature, title, options, context, op in (
            ("format-stats-min-max", "Statistics (min_value, max_value) in every column chunk", stats,
             STATISTICS, "statistics"),
            ("format-page-index", "a column index and an offset index for every chunk of small pages", index,
             PAGE_INDEX, "page-index"),
            ("format-bloom-filters", "split-block bloom filters on the INT64 and text keys", bloom, BLOOM, "bloom")):
        out.append(_write(feature, f"{title}, read as a user reads", options, (GOLDEN, context), "A plain read does "
                          "not use the feature: only a failure speaks for it here.", how="tolerates", slug="plain-read",
                          base=keyed))
        out.append(_write(feature, f"{title}, asked for through the library's own API (op `{op}`)", options,
                          (OPERATION.requiring("legacy"), context), "The answer is judged on what the file holds as "
                          "our decoder reads it (generators/parquet/operations.py); an adapter whose library has no "
                          "such API answers `unavailable`.", how="operation", op=op, slug="operation", base=keyed))
    out.append(_Spec("format-geospatial-statistics", "operation", "GeospatialStatistics (bounding box, geometry "
                     "types) of a GEOMETRY column as pyarrow writes them, asked for through the library's own API (op "
                     "`geo-statistics`)", "evo-geometry", geometry_steps(), "read",
                     (OPERATION.requiring("legacy"), GEO_STATISTICS), "The file of evolution/geometry/pyarrow, whose "
                     "plain read only tolerates the statistics; the answer is judged on what the file holds as our "
                     "decoder reads it.", "operation", f"{PYARROW} (a geoarrow.wkb column)", "geo-statistics"))
    out.append(_Spec("format-bloom-filter-length", "without-length", "the bloom filters of "
                     "features/format-bloom-filters/operation with bloom_filter_length taken out (the 2.7-2.9 form), "
                     "probed (op `bloom`)", keyed,
                     (WriteAs(bloom), RemoveFields("ColumnMetaData", ("bloom_filter_length",), which="all")),
                     "read", (OPERATION.requiring("legacy"), BLOOM_LENGTH), "With the length, the case is "
                     "features/format-bloom-filters/operation: a reader that answers there and not here needs the "
                     "length; one that answers here reads the filter without it.", "operation",
                     f"{PYARROW}, write_table(bloom_filter_options=...); bloom_filter_length removed by our edit",
                     "bloom"))
    size = _write("format-size-statistics", "SizeStatistics (unencoded byte array bytes, level histograms) in every "
                  "column chunk, read as a user reads", {}, (GOLDEN, SIZE_STATISTICS), "pyarrow writes SizeStatistics "
                  "in every file; the features family takes them out but here. No library we run exposes them "
                  "through its API, so only a failure of this plain read speaks for the feature.", how="tolerates",
                  slug="plain-read", base=keyed)
    out.append(_Spec(size.feature, size.slug, size.title, size.base, (WriteAs({}, size_statistics=True),),
                     size.expect, size.citations, size.notes, size.how, f"{PYARROW}, write_table()"))
    return out


def _legacy() -> list[_Spec]:
    """LogicalTypes.md's backward-compatibility forms, each our footer edit of pyarrow's 3-level file (the pages as
    written: dropping a group that only nests keeps every level), and the annotations' two forms."""
    lists, unannotated = "feat-list-required", "feat-list-unannotated"
    note = ("Our footer edit of pyarrow's 3-level file (generators/parquet/mutations/rewrite.py reshape_schema): "
            "the pages are as pyarrow wrote them. A legacy form rests on a should: a reader that reads it supports "
            "it; one that refuses it is not thereby without LIST support (docs/spec-notes.md#features).")
    edit = f"{PYARROW}, schema rewritten by our footer edit"

    def legacy(feature: str, slug: str, title: str, base: str, steps: tuple[Mutation, ...],
               citation: Citation) -> _Spec:
        return _Spec(feature, slug, title, base, steps, "read", (citation.requiring("legacy"),), note, "legacy", edit)

    return [
        legacy("logical-list", "two-level-primitive", "`nums` as LIST over a repeated INT32 (2-level: rule 1)", lists,
               (ReshapeSchema(drop=("nums.list",), repeated=("nums.list.element",)),), LIST_RULE[1]),
        legacy("logical-list", "two-level-group", "`pairs` as LIST over a repeated group of two fields (rule 2)",
               lists, (ReshapeSchema(drop=("pairs.list.element",), rename={"pairs.list": "element"}),),
               LIST_RULE[2]),
        legacy("logical-list", "two-level-nested", "`nested` as a LIST of 2-level LISTs (rule 3)", lists,
               (ReshapeSchema(drop=("nested.list", "nested.list.element.list"),
                              repeated=("nested.list.element", "nested.list.element.list.element"),
                              rename={"nested.list.element": "array",
                                      "nested.list.element.list.element": "array"}),), LIST_RULE[3]),
        legacy("logical-list", "array-group", "`tuples` as LIST over a repeated group named `array` with one field "
               "(rule 4)", lists, (ReshapeSchema(drop=("tuples.list.element",), rename={"tuples.list": "array"}),),
               LIST_RULE[4]),
        legacy("logical-list", "tuple-group", "`tuples` as LIST over a repeated group named `tuples_tuple` with one "
               "field (rule 4)", lists, (ReshapeSchema(drop=("tuples.list.element",),
                                                       rename={"tuples.list": "tuples_tuple"}),), LIST_RULE[4]),
        legacy("logical-list", "renamed-levels", "`nums` in the 3-level form with its levels named `bag` and "
               "`array` (as Spark's legacy writer names them)", lists,
               (ReshapeSchema(rename={"nums.list": "bag", "nums.list.element": "array"}),), LIST_NAMES),
        legacy("logical-list", "unannotated-repeated", "repeated fields without LIST: a repeated INT32 and a "
               "repeated group of two fields at the top level", unannotated,
               (ReshapeSchema(drop=("nums", "nums.list", "records", "records.list"),
                              repeated=("nums.list.element", "records.list.element"),
                              rename={"nums.list.element": "nums", "records.list.element": "records"}),),
               UNANNOTATED),
        legacy("logical-map", "renamed-levels", "the MAP's levels named `map`, `str` and `num`", "feat-map",
               (ReshapeSchema(rename={"map.key_value": "map", "map.key_value.key": "str",
                                      "map.key_value.value": "num"}),), MAP_NAMES),
        legacy("logical-map", "map-key-value", "the map annotated MAP_KEY_VALUE (ConvertedType 2) instead of MAP",
               "feat-map", (SetField(struct="SchemaElement", field="converted_type", value=2, which=1),
                            RemoveFields("SchemaElement", ("logicalType",), which=1)), MAP_KEY_VALUE),
        _Spec("logical-type-union", "converted-type-only", "DATE, TIMESTAMP, DECIMAL and STRING annotated with "
              "their ConvertedType only (LogicalType taken out)", "feat-annotations",
              (RemoveFields("SchemaElement", ("logicalType",), which="all"),), "read", (CONVERTED.requiring("legacy"),),
              "A file of a writer before 2.4.0. Our footer edit of pyarrow's file.", "legacy",
              f"{PYARROW}, LogicalType removed by our footer edit"),
        _Spec("logical-type-union", "logical-type-only", "DATE, TIMESTAMP, DECIMAL and STRING annotated with "
              "their LogicalType only (ConvertedType taken out)", "feat-annotations",
              (RemoveFields("SchemaElement", ("converted_type",), which="all"),), "read", (GOLDEN, LOGICAL_UNION),
              "The LogicalType union (2.4.0) is the annotation; a reader that reads ConvertedType only returns the "
              "physical values here. Our footer edit of pyarrow's file.", "reads",
              f"{PYARROW}, ConvertedType removed by our footer edit"),
    ]


# The committed apache/parquet-testing files (corpus/parquet/upstream.json) and the features each bears on.
UPSTREAM = {
    "data/delta_binary_packed.parquet": ("encoding-delta-binary-packed",),
    "data/delta_byte_array.parquet": ("encoding-delta-byte-array",),
    "data/delta_length_byte_array.parquet": ("encoding-delta-length-byte-array",),
    "data/delta_encoding_optional_column.parquet": ("encoding-delta-binary-packed", "encoding-delta-byte-array"),
    "data/delta_encoding_required_column.parquet": ("encoding-delta-binary-packed", "encoding-delta-byte-array"),
    "data/byte_stream_split.zstd.parquet": ("encoding-byte-stream-split",),
    "data/byte_stream_split_extended.gzip.parquet": ("encoding-byte-stream-split-extended",),
    "data/rle_boolean_encoding.parquet": ("encoding-rle",),
    "data/alltypes_dictionary.parquet": ("encoding-plain-dictionary",),
    "data/fixed_length_byte_array.parquet": ("physical-fixed-len-byte-array", "format-page-index"),
    "data/hadoop_lz4_compressed.parquet": ("compression-lz4-deprecated",),
    "data/hadoop_lz4_compressed_larger.parquet": ("compression-lz4-deprecated",),
    "data/non_hadoop_lz4_compressed.parquet": ("compression-lz4-deprecated",),
    "data/lz4_raw_compressed.parquet": ("compression-lz4-raw",),
    "data/concatenated_gzip_members.parquet": ("compression-gzip",),
    "data/alltypes_plain.snappy.parquet": ("compression-snappy",),
    "data/datapage_v1-uncompressed-checksum.parquet": ("format-page-crc32",),
    "data/datapage_v1-snappy-compressed-checksum.parquet": ("format-page-crc32",),
    "data/datapage_v1-corrupt-checksum.parquet": ("format-page-crc32",),
    "data/plain-dict-uncompressed-checksum.parquet": ("format-page-crc32", "encoding-plain-dictionary"),
    "data/rle-dict-snappy-checksum.parquet": ("format-page-crc32", "encoding-rle-dictionary"),
    "data/rle-dict-uncompressed-corrupt-checksum.parquet": ("format-page-crc32",),
    "data/datapage_v2.snappy.parquet": ("format-data-page-v2",),
    "data/page_v2_empty_compressed.parquet": ("format-data-page-v2",),
    "data/datapage_v2_empty_datapage.snappy.parquet": ("format-data-page-v2",),
    "data/alltypes_tiny_pages.parquet": ("format-page-index", "format-stats-min-max"),
    "data/int32_with_null_pages.parquet": ("format-page-index", "format-stats-min-max"),
    "data/data_index_bloom_encoding_stats.parquet": ("format-bloom-filters",),
    "data/data_index_bloom_encoding_with_length.parquet": ("format-bloom-filter-length",),
    "data/binary_truncated_min_max.parquet": ("format-stats-min-max",),
    "data/nan_in_stats.parquet": ("format-stats-min-max",),
    "data/single_nan.parquet": ("physical-double",),
    "data/floating_orders_nan_count.parquet": ("format-ieee-754-total-order-and-nan-counts",),
    "data/float16_nonzeros_and_nans.parquet": ("logical-float16",),
    "data/float16_zeros_and_nans.parquet": ("logical-float16",),
    "data/int32_decimal.parquet": ("logical-decimal-int32",),
    "data/int64_decimal.parquet": ("logical-decimal-int64",),
    "data/byte_array_decimal.parquet": ("logical-decimal-byte-array",),
    "data/fixed_length_decimal.parquet": ("logical-decimal-fixed-len-byte-array",),
    "data/fixed_length_decimal_legacy.parquet": ("logical-decimal-fixed-len-byte-array",),
    "data/int96_from_spark.parquet": ("physical-int96",),
    "data/unknown-logical-type.parquet": ("logical-type-union",),
    "data/binary.parquet": ("physical-byte-array",),
    "data/old_list_structure.parquet": ("logical-list",),
    "data/repeated_no_annotation.parquet": ("logical-list",),
    "data/repeated_primitive_no_list.parquet": ("logical-list",),
    "data/null_list.parquet": ("logical-list",),
    "data/list_columns.parquet": ("logical-list",),
    "data/nested_lists.snappy.parquet": ("logical-list",),
    "data/nested_maps.snappy.parquet": ("logical-map",),
    "data/map_no_value.parquet": ("logical-map",),
    "data/incorrect_map_schema.parquet": ("logical-map",),
    "data/uniform_encryption.parquet.encrypted": ("format-modular-encryption",),
    "data/encrypt_columns_and_footer.parquet.encrypted": ("format-modular-encryption",),
    "data/encrypt_columns_plaintext_footer.parquet.encrypted": ("format-modular-encryption",),
    "data/encrypt_columns_and_footer_ctr.parquet.encrypted": ("format-modular-encryption",),
    "data/geospatial/geospatial.parquet": ("logical-geometry", "format-geospatial-statistics"),
    "data/geospatial/geography-points.parquet": ("logical-geography",),
    "data/no_path_in_schema.zstd.parquet": ("format-binary-protocol-extensions",),
}


OPERATED = {"statistics": ("format-stats-min-max",), "page-index": ("format-page-index",),
            "geo-statistics": ("format-geospatial-statistics",), "crc": ("format-page-crc32",)}  # what an op reads


def _upstream() -> list[Isolating]:
    """The committed upstream files' cases (a pin per operation), each under the features it bears on."""
    pins = [p for p in upstream.load(UPSTREAM_JSON) if (UPSTREAM_JSON.parent / "parquet-testing" / p.path).is_file()]
    out = []
    for pin in pins:
        how: How = "operation" if pin.op != "read" else "unchecked" if pin.data_unknown else "reads"
        writer = f"{pin.repo} {pin.path} ({pin.commit[:8]})"
        features = OPERATED.get(pin.op, UPSTREAM.get(pin.path, ()))
        if pin.op == "bloom":  # the filter with or without its length, as the file says
            features = tuple(f for f in UPSTREAM.get(pin.path, ()) if f.startswith("format-bloom"))
        if pin.expect.get("legacy") == "reject":  # a reader without keys must refuse: no status of the feature
            how = "tolerates"
        out += [Isolating(f, pin.case_id, how, writer) for f in features]
    return out


def _encrypted() -> list[_Spec]:
    """The narrow reference (INT32 and text) encrypted, read with the keys (op `decrypt`: docs/adapter-protocol.md#keys,
    each library given them through its KMS hook or as explicit keys): as polars writes it with an explicit printable
    key, one data page per chunk and several, over its own unencrypted files (features/reference/polars-i32-s*); as
    pyarrow encrypts it three ways with the test KMS (fixtures/write.py ENCRYPTED_NARROW), over the same file
    unencrypted (features/reference/pyarrow-i32-s-sized: with the SizeStatistics pyarrow writes and cannot leave out
    of an encrypted footer). A reader that reads the unencrypted file and fails here fails the encryption; a library
    with no decryption reads as its users can."""
    def spec(slug: str, title: str, base: str, fixture: str, notes: str, writer: str,
             keys: Mapping[str, str]) -> _Spec:
        return _Spec("format-modular-encryption", slug, title, base, (UseFixture(f"{fixture}.parquet"),), "read",
                     (DECRYPT.requiring("legacy"), ENCRYPTION), notes, "reads",
                     writer.format(version=provenance()[fixture]["version"]), "decrypt", keys=keys)

    polars = {"polars": ("one data page per chunk", "feat-reference-polars-i32-s", "polars-encrypted-i32-s"),
              "polars-pages": ("several data pages per chunk", "feat-reference-polars-i32-s-pages",
                               "polars-encrypted-i32-s-pages")}
    pyarrow = {"uniform": ("every column and the footer under the footer key (encrypted footer, PARE)",
                           "pyarrow-encrypted-uniform-i32-s"),
               "column-key": ("the s column under a column key, i32 and the footer under the footer key (encrypted "
                              "footer, PARE)", "pyarrow-encrypted-column-key-i32-s"),
               "plaintext-footer": ("the s column under a column key, i32 plaintext, the footer plaintext and signed "
                                    "(PAR1)", "pyarrow-encrypted-plaintext-footer-i32-s")}
    return [
        *(spec(slug, "modular encryption as polars writes it with an explicit key, every column and the footer under "
               f"the footer key (encrypted footer, PARE), {pages}, read with the key (op `decrypt`)", base, fixture,
               f"Over the same file unencrypted ({BASES[base].case}). The key is the file's data key "
               "(generators/parquet/fixtures/provenance.json data_keys), sent with the request "
               "(docs/adapter-protocol.md#keys): a library that decrypts only through a KMS (pyarrow's Python API) "
               "answers `unavailable`; one whose library has no decryption reads as it reads any file.",
               "polars {version} (a committed fixture)", dict(provenance()[fixture]["data_keys"]))
          for slug, (pages, base, fixture) in polars.items()),
        *(spec(slug, f"modular encryption, {what}, read with the keys (op `decrypt`)", "feat-reference-i32-s-sized",
               fixture, "The keys are the test KMS's master keys (generators/parquet/encryption.py) and the data keys "
               "the writing wrapped, sent with the request (docs/adapter-protocol.md#keys); an adapter whose library "
               "decrypts but that does not drive its decryption answers `unavailable`; one whose library has no "
               "decryption reads as it reads any file.", "pyarrow {version} with the test KMS (a committed fixture)",
               encryption.request_keys(provenance()[fixture]["data_keys"]))
          for slug, (what, fixture) in pyarrow.items())]


# Site features no case isolates, and why.
LEFT_OUT = {
    "compression-lzo": "no writer we have writes LZO (parquet-java needs the GPL hadoop-lzo codec, which Spark does "
                       "not bundle; pyarrow, DuckDB and polars have none) and apache/parquet-testing holds no LZO "
                       "file",
    "api-parquet-summary-file": "an API feature: how a library uses _metadata files is not a property of a file",
    "api-sorting-columns": "an API feature (a writer's sorting_columns, and what a reader does with them)",
    "api-rowgroup-pruning-stats": "an API feature: pruning is not observable in the rows a read returns",
    "api-rowgroup-pruning-bloom": "an API feature: pruning is not observable in the rows a read returns",
    "api-column-projection": "an API feature: the cases read whole files",
    "api-page-pruning-stats": "an API feature: pruning is not observable in the rows a read returns",
}
UPSTREAM_JSON = Path(__file__).resolve().parent.parent / "upstream.json"

# Cases of other families that isolate a site feature.
OTHERS = (
    # what every reference file has, as PLAIN (encoding-plain's own cases): a failure there is its types'
    *(Isolating(feature, f"features/encoding-plain/{slug}", "everywhere", PYARROW)
      for feature in ("compression-uncompressed", "format-data-page-v1") for slug in ("pyarrow", *NARROW)),
    Isolating("logical-variant", "evolution/variant/duckdb-shredded", "tolerates", "DuckDB 2.0.1"),
    Isolating("logical-variant-shredding", "evolution/variant/duckdb-shredded", "tolerates", "DuckDB 2.0.1"),
    Isolating("logical-geometry", "evolution/geometry/pyarrow", "tolerates", PYARROW),
    Isolating("logical-geography", "evolution/geography/pyarrow", "tolerates", PYARROW),
    Isolating("format-ieee-754-total-order-and-nan-counts", "evolution/column-order/ieee754-total-order", "tolerates",
              "DuckDB 2.0.1, the order by our footer edit"),
    Isolating("format-binary-protocol-extensions", "ext/*", "reads", PYARROW),
    Isolating("encoding-alp", "evolution/alp/*", "reads", "our encoder on pyarrow's files (evolution family)"),
    Isolating("logical-file", "evolution/file/group", "tolerates", "our annotation on pyarrow's file"),
)
