"""Forward-compatible unions: every union of parquet.thrift with only a member it does not define, with two members
set, with an unknown member beside a known one, and (LogicalType) with none (issue 23, item 2).

On the wire a union is a struct of which "exactly one field" may be set (the Thrift IDL); the compact protocol says
"at most 1". A member parquet.thrift adds later reaches today's readers as one unknown field: the file is valid,
and the spec says what to do for LogicalType (ignore it, read the physical type) and ColumnOrder (ignore the
statistics). Two fields, or none, break the union rule: the strict decoder reports them (footer.UNIONS), and the
spec does not say what a reader does then, so `either`. Each case is built on a column whose data reads the same
whichever way a reader resolves the union where that can be arranged (an INT32 column without a ConvertedType, given
a LogicalType: its physical values are the data); where it cannot, the notes say which reading returns other data.
docs/spec-notes.md#unions has both readings of each."""

from __future__ import annotations

from parquet_conformance.corpus.model import Case, Level
from parquet_conformance.corpus.parquet.catalog.common import PF, cite
from parquet_conformance.corpus.parquet.catalog.encryption import PLAINTEXT
from parquet_conformance.corpus.parquet.catalog.storage import COMPAT_OLD, SKIPS_NEW
from parquet_conformance.generators.parquet.mutations.fields import SetUnion, UnionMember

THRIFT = f"{PF} src/main/thrift/parquet.thrift (24102ed5)"
IDL = cite("apache/thrift doc/specs/idl.md (17aa4749)", "Union", "Unions are similar to structs, except that they "
           "provide a means to transport exactly one field of a possible set of fields, just like union {} in C++.",
           seed=None)
COMPACT = cite("apache/thrift doc/specs/thrift-compact-protocol.md (c6c39e7b)", "Struct", "A *Union* is encoded "
               "exactly the same as a struct with the additional restriction that at most 1 field may be encoded.",
               seed=None)
FORWARD = cite(f"{PF} CONTRIBUTING.md (24102ed5)", "Compatibility categories", "forward compatible means all data can "
               "be read back in an older version of the format. New logical types are considered forward compatible "
               "despite the loss of semantic meaning.", seed=None)  # a classification: context
# PR #606 (open: its head is no commit of the main line, docs/spec-notes.md#evolution): a proposal, so at most policy
UNSUPPORTED = cite(f"{PF} PR #606 LogicalTypes.md (55010d6e)", "Unsupported Logical Types",
                   "When reading a file written by a newer writer that contains an unrecognized logical type or an "
                   "unrecognized logical/physical type combination on a column, readers should ignore both the "
                   "logical type annotation and statistics for that column. Only the physical type information should "
                   "be used to process the column's data.", seed=None, level=Level.POLICY)
LOGICAL = cite(THRIFT, "union LogicalType", "1: StringType STRING ... 10: IntType INTEGER // use ConvertedType INT_* "
               "or UINT_* ... 12: JsonType JSON // use ConvertedType JSON ... 19: FileType FILE", seed=None)
TIME_UNIT = cite(THRIFT, "union TimeUnit", "1: MilliSeconds MILLIS 2: MicroSeconds MICROS 3: NanoSeconds NANOS",
                 seed=None)
ORDER = cite(THRIFT, "union ColumnOrder", "If the reader does not support the value of this union, min and max stats "
             "for this column should be ignored.", seed=None, level=Level.SHOULD)
BLOOM = cite(THRIFT, "union BloomFilterAlgorithm, BloomFilterHash, BloomFilterCompression", "1: SplitBlockAlgorithm "
             "BLOCK; ... 1: XxHash XXHASH; ... 1: Uncompressed UNCOMPRESSED;", seed=None)
CRYPTO = cite(THRIFT, "union ColumnCryptoMetaData, EncryptionAlgorithm", "1: EncryptionWithFooterKey "
              "ENCRYPTION_WITH_FOOTER_KEY 2: EncryptionWithColumnKey ENCRYPTION_WITH_COLUMN_KEY ... 1: AesGcmV1 "
              "AES_GCM_V1 2: AesGcmCtrV1 AES_GCM_CTR_V1", seed=None)

EMPTY = "00"  # an empty struct: every member struct of these unions but the parameterised ones has no field
KEEP = None  # the member as the writer wrote it
# The first id each union has not used (LogicalType skips 9, "reserved for INTERVAL", and ends at 19).
UNKNOWN = {"LogicalType": 20, "TimeUnit": 4, "ColumnOrder": 4, "BloomFilterAlgorithm": 2, "BloomFilterHash": 2,
           "BloomFilterCompression": 2, "ColumnCryptoMetaData": 3, "EncryptionAlgorithm": 3}
# TimestampType {isAdjustedToUTC: false, unit: TimeUnit {4: {}}}: a TIMESTAMP whose unit no reader knows.
TIMESTAMP_UNKNOWN_UNIT = "121c4c000000"
SPEC_NOTE = "Both readings: docs/spec-notes.md#unions."


def _member(union: str, hex_: str | None = EMPTY) -> UnionMember:
    return UnionMember(UNKNOWN[union], hex_)


def cases() -> list[Case]:
    return [*_logical_type(), *_time_unit(), *_column_order(), *_bloom_filter(), *_encryption()]


def _case(slug: str, title: str, kind: str, base: str, step: SetUnion, expect: dict[str, str],
          citations: tuple, notes: str) -> Case:
    return Case(id=f"unions/{slug}", title=title, kind=kind, base=base, mutations=(step,), expect=expect,
                citations=citations, notes=f"{notes} {SPEC_NOTE}")


I32 = 1  # SchemaElement 1 of 'flat': i32, INT32 without an annotation (a LogicalType is added to it)
TEXT = 6  # SchemaElement 6 of 'flat': text, BYTE_ARRAY with STRING and ConvertedType UTF8
I64 = 2  # SchemaElement 2 of 'flat': i64, INT64 without an annotation
INT32_SIGNED = "13201100"  # IntType {bitWidth: 32, isSigned: true}: what INT32 is without an annotation


def _logical_type() -> list[Case]:
    lt, unknown = "logicalType", UNKNOWN["LogicalType"]
    same = ("The column is the INT32 column i32, which has no ConvertedType: its physical values are the base data, "
            "so a reader that drops the annotation reads the base data too.")
    return [
        _case("logical-type/unknown-only", f"a LogicalType holding only member {unknown}, which parquet.thrift does "
              "not define (a logical type added later), on the INT32 column i32 of 'flat'", "golden", "flat",
              SetUnion("SchemaElement", lt, (_member("LogicalType"),), which=I32), {"legacy": "read"},
              (SKIPS_NEW, FORWARD, UNSUPPORTED, LOGICAL),
              f"One field in the union, which today's readers do not know: a newer writer's logical type, an unknown "
              f"field that seed 002 asks old versions to ignore (should); PR #606 (open) says the same of unknown "
              f"logical types. {same}"),
        _case("logical-type/unknown-beside-known", f"a LogicalType holding INTEGER(32, signed) and member {unknown} "
              "(two fields) on the INT32 column i32 of 'flat'", "nonconforming", "flat",
              SetUnion("SchemaElement", lt, (UnionMember(10, INT32_SIGNED), _member("LogicalType")), which=I32),
              {"legacy": "either"}, (IDL, COMPACT, LOGICAL),
              f"Two fields in a union: the Thrift rule is broken; a reader may take INTEGER, drop the annotation or "
              f"reject, and INTEGER(32, signed) on INT32 is the physical type again. {same}"),
        _case("logical-type/two-members", "the LogicalType of the text column of 'flat' holds STRING and JSON",
              "nonconforming", "flat",
              SetUnion("SchemaElement", lt, (UnionMember(1, KEEP), UnionMember(12, EMPTY)), which=TEXT),
              {"legacy": "either"}, (IDL, COMPACT, LOGICAL),
              "Two known members. Either gives text (JSON is UTF-8 text, Arrow's json extension over strings), and "
              "so does the column's ConvertedType UTF8; a reader that drops both annotations returns bytes: other "
              "data."),
        _case("logical-type/no-member", "a LogicalType union with no field on the INT32 column i32 of 'flat'",
              "nonconforming", "flat", SetUnion("SchemaElement", lt, (), which=I32), {"legacy": "either"},
              (IDL, COMPACT, LOGICAL),
              f"The IDL wants exactly one field, the compact protocol allows at most one: an empty union is valid "
              f"on the wire, not in the IDL. A reader that takes it for no annotation reads the base data. {same}"),
    ]


def _time_unit() -> list[Case]:
    unknown = UNKNOWN["TimeUnit"]
    micros_note = ("The column is TIMESTAMP(MICROS) with ConvertedType TIMESTAMP_MICROS; a reader that reads the "
                   "physical INT64 instead returns integers, not the base's timestamps.")
    return [
        _case("time-unit/unknown-only", f"a TIMESTAMP annotation whose TimeUnit holds only member {unknown} "
              "(a unit parquet.thrift does not define), added to the unannotated INT64 column i64 of 'flat'",
              "golden", "flat",
              SetUnion("SchemaElement", "logicalType", (UnionMember(8, TIMESTAMP_UNKNOWN_UNIT),), which=I64),
              {"legacy": "either"}, (TIME_UNIT, UNSUPPORTED, FORWARD),
              "Valid Thrift, a unit of a newer writer. Whether a known logical type with an unknown parameter is an "
              "\"unrecognized logical type\" is unstated: a reader that ignores the annotation reads the INT64 "
              "values, the base data; one that rejects the column is allowed too; one that guesses a unit returns "
              "timestamps: other data."),
        _case("time-unit/unknown-beside-known", f"the TimeUnit of the ts column of 'flat' holds MICROS and member "
              f"{unknown}", "nonconforming", "flat",
              SetUnion("TimestampType", "unit", (UnionMember(2, KEEP), _member("TimeUnit"))),
              {"legacy": "either"}, (IDL, COMPACT, TIME_UNIT), f"Two fields in a union. {micros_note}"),
        _case("time-unit/two-members", "the TimeUnit of the ts column of 'flat' holds MILLIS and MICROS",
              "nonconforming", "flat", SetUnion("TimestampType", "unit", (UnionMember(1, EMPTY), UnionMember(2, KEEP))),
              {"legacy": "either"}, (IDL, COMPACT, TIME_UNIT),
              f"Two known members that disagree: MILLIS gives values a thousand times off the ConvertedType's "
              f"TIMESTAMP_MICROS, so only MICROS or an error is right. {micros_note}"),
    ]


def _column_order() -> list[Case]:
    unknown, f64 = UNKNOWN["ColumnOrder"], 2  # column_orders[2]: the DOUBLE column f64 of 'flat'
    data = "A full read does not use column orders (only statistics do), so the data is the base's whatever the order."
    return [
        _case("column-order/unknown-only", f"the ColumnOrder of the f64 column of 'flat' holds only member {unknown}",
              "golden", "flat", SetUnion("FileMetaData", "column_orders", (_member("ColumnOrder"),), index=f64),
              {"legacy": "read"}, (ORDER.requiring("legacy"), COMPAT_OLD),
              f"The spec: the min and max statistics *should* be ignored. {data}"),
        _case("column-order/unknown-beside-known", f"the ColumnOrder of the f64 column of 'flat' holds TYPE_ORDER and "
              f"member {unknown}", "nonconforming", "flat",
              SetUnion("FileMetaData", "column_orders", (UnionMember(1, KEEP), _member("ColumnOrder")), index=f64),
              {"legacy": "either"}, (IDL, COMPACT, ORDER), f"Two fields in a union. {data}"),
        _case("column-order/two-members", "the ColumnOrder of the f64 column of 'flat' holds TYPE_ORDER and "
              "IEEE_754_TOTAL_ORDER", "nonconforming", "flat",
              SetUnion("FileMetaData", "column_orders", (UnionMember(1, KEEP), UnionMember(2, EMPTY)), index=f64),
              {"legacy": "either"}, (IDL, COMPACT, ORDER), f"Two fields in a union. {data}"),
    ]


def _bloom_filter() -> list[Case]:
    out = []
    data = ("The bloom filters of 'page-index' are indexes a full read never needs, so the data is the base's; "
            "every BloomFilterHeader of the file is changed. The data after each moves and every offset is fixed.")
    for field, union, slug in (("algorithm", "BloomFilterAlgorithm", "bloom-filter-algorithm"),
                               ("hash", "BloomFilterHash", "bloom-filter-hash"),
                               ("compression", "BloomFilterCompression", "bloom-filter-compression")):
        unknown = UNKNOWN[union]
        out += [
            _case(f"{slug}/unknown-only", f"every {union} of 'page-index' holds only member {unknown}", "golden",
                  "page-index", SetUnion("BloomFilterHeader", field, (_member(union),), which="all"),
                  {"legacy": "read"}, (SKIPS_NEW, BLOOM),
                  f"A bloom filter of a kind today's readers do not know, an unknown union member: seed 002 asks old "
                  f"versions to ignore new fields (should), and they can only not use it. {data}"),
            _case(f"{slug}/unknown-beside-known", f"every {union} of 'page-index' holds its one member and member "
                  f"{unknown}", "nonconforming", "page-index",
                  SetUnion("BloomFilterHeader", field, (UnionMember(1, KEEP), _member(union)), which="all"),
                  {"legacy": "either"}, (IDL, COMPACT, BLOOM),
                  f"Two fields in a union ({union} has one member, so two known ones cannot be set). {data}"),
        ]
    return out


def _encryption() -> list[Case]:
    """In the signed plaintext footer of 'plaintext-footer': a legacy reader has no keys and rejects the file for its
    encrypted column whatever the unions hold, and the changed footer no longer matches its signature."""
    legacy = ("A legacy reader rejects the file for its encrypted column, whatever the union holds (a projection "
              "without it is readable); a reader with the keys meets a footer whose signature no longer matches.")
    no_keys = PLAINTEXT.requiring("legacy")  # what requires the legacy reject: the column, not the union
    out = []
    for union, struct, field, which, known, other, what in (
            ("ColumnCryptoMetaData", "ColumnChunk", "crypto_metadata", 1, 2, 1,
             "the crypto_metadata of the encrypted column chunk (ENCRYPTION_WITH_COLUMN_KEY)"),
            ("EncryptionAlgorithm", "FileMetaData", "encryption_algorithm", 0, 1, 2,
             "the FileMetaData's encryption_algorithm (AES_GCM_V1)")):
        unknown, slug = UNKNOWN[union], "column-crypto-meta-data" if union == "ColumnCryptoMetaData" else \
            "encryption-algorithm"
        pair = (UnionMember(known, KEEP), UnionMember(other, EMPTY))
        out += [
            _case(f"{slug}/unknown-only", f"{what} of 'plaintext-footer' holds only member {unknown}", "golden",
                  "plaintext-footer", SetUnion(struct, field, (_member(union),), which=which), {"legacy": "reject"},
                  (CRYPTO, COMPAT_OLD, no_keys), f"An encryption of a newer writer. {legacy}"),
            _case(f"{slug}/unknown-beside-known", f"{what} of 'plaintext-footer' also holds member {unknown}",
                  "nonconforming", "plaintext-footer",
                  SetUnion(struct, field, (UnionMember(known, KEEP), _member(union)), which=which),
                  {"legacy": "reject"}, (IDL, COMPACT, CRYPTO, no_keys), f"Two fields in a union. {legacy}"),
            _case(f"{slug}/two-members", f"{what} of 'plaintext-footer' holds both of its members",
                  "nonconforming", "plaintext-footer",
                  SetUnion(struct, field, tuple(sorted(pair, key=lambda m: m.id)), which=which),
                  {"legacy": "reject"}, (IDL, COMPACT, CRYPTO, no_keys), f"Two fields in a union. {legacy}"),
        ]
    return out
