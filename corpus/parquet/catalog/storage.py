"""The storage-format checklist of seed 002 (compatibility, integrity, recovery) as cases: unknown fields of every
type in every struct, optional fields left out, enum values beyond parquet.thrift's, page CRCs right and wrong,
files cut at row-group boundaries and in the footer, statistics whose minimum is above their maximum, and the pair
that isolates readers which refuse an unknown binary field that is not UTF-8. docs/spec-notes.md#storage-checklist
says how each expectation follows from the seed."""

from __future__ import annotations

from parquet_conformance.corpus.model import Case, Citation, Level
from parquet_conformance.corpus.parquet.catalog.common import (
    GOLDEN,
    IGNORE,
    LAYOUT,
    README,
    STRUCTS,
    UNKNOWN_FIELDS,
    UUID_TYPE,
    cite,
    rule,
)
from parquet_conformance.corpus.parquet.catalog.common import RECOVERY as LOST
from parquet_conformance.generators.parquet.footer import ENUMS
from parquet_conformance.generators.parquet.mutations import Mutation
from parquet_conformance.generators.parquet.mutations.extension import Extend, Payload
from parquet_conformance.generators.parquet.mutations.fields import (
    NON_UTF8_TEXT,
    TYPED_VALUES,
    UTF8_TEXT,
    AddTypedField,
    RemoveFields,
    SetField,
    SwapMinMax,
)
from parquet_conformance.generators.parquet.mutations.tail import TruncateAtRowGroup, TruncateInFooter, TruncateTail

SEED = "shared/seeds/002"
SOURCE = "shared/seeds/002 (storage-format design checklist; no upstream copy)"
COMPAT_OLD = Citation(SOURCE, "设计要点 / 兼容性 (compatibility)",
                      "新旧版本应该能够处理彼此的数据。例如:- 旧版本能够忽略新增的字段,"
                      "对于后续被删除的字段,也会保留其编号。", SEED, level=Level.SHOULD)
COMPAT_NEW = Citation(SOURCE, "设计要点 / 兼容性 (compatibility)",
                      "新版本对于旧消息中缺失的字段能补上默认值,或者填入 null。", SEED, level=Level.SHOULD)
INTEGRITY = Citation(SOURCE, "磁盘上的数据结构 (on-disk structures)", "完整性校验", SEED, level=Level.SHOULD)
RECOVERY = Citation(SOURCE, "常见格式 / Parquet / 错误恢复 (error recovery)",
                    "如果文件的 metadata 丢失了,那么文件损坏。"
                    "如果 Column 的 metadata 丢失了,那么这个 Column Chunk 就损坏了。", SEED, level=Level.MUST)
MIN_MAX = Citation(SOURCE, "常见格式 / Parquet / Types", "Parquet 会在 Column Chunk 层面保存 min max 值。", SEED)
THRIFT = "apache/parquet-format src/main/thrift/parquet.thrift (24102ed5)"
PAGE_CRC = cite(THRIFT, "PageHeader.crc", "The CRC is computed on the serialization binary representation of the page "
                "(as written to disk), excluding the page header.", seed=None)
ENUM_DEFS = cite(THRIFT, "enum Type, ConvertedType, FieldRepetitionType, Encoding, CompressionCodec, PageType",
                 "BOOLEAN = 0; ... FIXED_LEN_BYTE_ARRAY = 7; / UTF8 = 0; ... INTERVAL = 21; / REQUIRED = 0; ... "
                 "REPEATED = 2; / PLAIN = 0; ... ALP = 10; / UNCOMPRESSED = 0; ... LZ4_RAW = 7; / DATA_PAGE = 0; ... "
                 "DATA_PAGE_V2 = 3;",
                 seed=None)
STATS_ORDER = cite(THRIFT, "Statistics.max_value, min_value",
                   "Lower and upper bound values for the column, determined by its ColumnOrder.", seed=None)
PAGE_TYPES = cite(README, "Extensibility", "Page types: Additional page types can be added and safely skipped.",
                  seed=None)
# Seed 002 asks that old versions ignore new fields ("应该", should): what requires a legacy read of an unknown field
SKIPS_NEW = COMPAT_OLD.requiring("legacy")
UNKNOWN_STRUCTS = {**STRUCTS, "page-header": ("PageHeader", 0), "data-page-header": ("DataPageHeader", 0)}
IDS = (100, 1000, 32766)


# The other structs a base holds (slug -> (base, struct, which, page)), for the types a reader is likeliest not to
# know how to skip: uuid (compact type 13, recent), set and map (no parquet.thrift field uses them). The unions
# themselves are in unions.py: an unknown field in a union is an unknown member.
MORE_STRUCTS = {
    "page-encoding-stats": ("flat", "PageEncodingStats", -1, 0), "size-statistics": ("flat", "SizeStatistics", -1, 0),
    "string-type": ("flat", "StringType", 0, 0), "date-type": ("flat", "DateType", 0, 0),
    "timestamp-type": ("flat", "TimestampType", 0, 0), "micro-seconds": ("flat", "MicroSeconds", 0, 0),
    "decimal-type": ("flat", "DecimalType", 0, 0), "type-defined-order": ("flat", "TypeDefinedOrder", -1, 0),
    "dictionary-page-header": ("checksummed", "DictionaryPageHeader", 0, 0),
    "data-page-header-v2": ("data-page-v2", "DataPageHeaderV2", 0, 0),
    "column-index": ("page-index", "ColumnIndex", 0, 0), "offset-index": ("page-index", "OffsetIndex", 0, 0),
    "page-location": ("page-index", "PageLocation", 0, 0),
    "bloom-filter-header": ("page-index", "BloomFilterHeader", 0, 0),
    "split-block-algorithm": ("page-index", "SplitBlockAlgorithm", 0, 0),
    "xx-hash": ("page-index", "XxHash", 0, 0), "uncompressed": ("page-index", "Uncompressed", 0, 0),
}
MORE_TYPES = ("uuid", "set", "map")


def cases() -> list[Case]:
    return [*_unknown_fields(), *_more_unknown_fields(), *_utf8_pair(), *_missing_optional(), *_enums(), *_crcs(),
            *_recovery(), *_statistics()]


def _unknown_fields() -> list[Case]:
    """Every Thrift type under an id no parquet.thrift defines, in every struct (id 1000), and in FileMetaData also
    under 100 and 32766. FileMetaData's binaries under 1000 are the UTF-8 pair (_utf8_pair)."""
    out = []
    targets = [(slug, struct, which, 1000) for slug, (struct, which) in UNKNOWN_STRUCTS.items()]
    targets += [("file-metadata", "FileMetaData", 0, fid) for fid in IDS if fid != 1000]
    for slug, struct, which, fid in targets:
        for type_ in TYPED_VALUES:
            if (struct, fid) == ("FileMetaData", 1000) and type_.startswith("binary"):
                continue
            where = ("the first page header of the last column chunk" if struct in ("PageHeader", "DataPageHeader")
                     else f"the {which}th {struct}")
            out.append(Case(
                id=f"storage/unknown-field/{slug}/id-{fid}/{type_}",
                title=f"an unknown field {fid} of type {type_} in {where} of 'flat'",
                kind="golden", base="flat",
                mutations=(AddTypedField(struct=struct, which=which, field_id=fid, type=type_),),
                expect={"legacy": "either" if type_ == "uuid" else "read"},
                citations=(COMPAT_OLD if type_ == "uuid" else SKIPS_NEW, UNKNOWN_FIELDS,
                           *((UUID_TYPE,) if type_ == "uuid" else ())),
                notes=_UUID_NOTE if type_ == "uuid" else "",
            ))
    return out


def _more_unknown_fields() -> list[Case]:
    """uuid, set and map under id 1000 in every other struct a base holds, outside the footer too (the page index
    and bloom filter headers: the data after them moves, every offset is fixed)."""
    out = []
    for slug, (base, struct, which, page) in MORE_STRUCTS.items():
        for type_ in MORE_TYPES:
            out.append(Case(
                id=f"storage/unknown-field/{slug}/id-1000/{type_}",
                title=f"an unknown field 1000 of type {type_} in the {which}th {struct} of '{base}'",
                kind="golden", base=base,
                mutations=(AddTypedField(struct=struct, which=which, field_id=1000, type=type_, page=page),),
                expect={"legacy": "either" if type_ == "uuid" else "read"},
                citations=(COMPAT_OLD if type_ == "uuid" else SKIPS_NEW, UNKNOWN_FIELDS,
                           *((UUID_TYPE,) if type_ == "uuid" else ())),
                notes=_UUID_NOTE if type_ == "uuid" else "",
            ))
    return out


_UUID_NOTE = ("Compact type 13 (uuid) is a new wire type, not a new field: the compact protocol's spec lists it "
              "since 2022 (apache/thrift 4959a923, THRIFT-5592), and a runtime that does not know it cannot know its "
              "length to skip it (Thrift C++ before 786764ba, 2025, throws \"don't know what type\"; Thrift Java "
              "knows it at 05b06598). A reader that knows type 13 skips the field; one that does not must refuse the "
              "file, never return other data: either (docs/spec-notes.md#unknown-uuid).")


def _utf8_pair() -> list[Case]:
    """Two pairs that differ in one byte: 0xFF in place of an ASCII letter, so the second is not UTF-8."""
    out = []
    for label, text in (("valid", UTF8_TEXT), ("invalid", NON_UTF8_TEXT)):
        type_ = "binary-utf8" if label == "valid" else "binary-non-utf8"
        out.append(Case(
            id=f"storage/utf8-pair/unknown-field/{label}",
            title=f"an unknown binary field 1000 in FileMetaData whose {len(text)} bytes are {label} UTF-8",
            kind="golden", base="flat",
            mutations=(AddTypedField(struct="FileMetaData", field_id=1000, type=type_),),
            expect={"legacy": "read"},
            citations=(SKIPS_NEW, IGNORE),
            notes="The pair isolates readers that decode an unknown binary field as a UTF-8 string and fail on bytes "
            "that are not: its two files differ in one byte.",
        ))
        out.append(Case(
            id=f"storage/utf8-pair/extension/{label}",
            title=f"field 32767 in FileMetaData whose {len(text)} bytes are {label} UTF-8 (no UUID: the bytes alone)",
            kind="golden", base="flat",
            mutations=(Extend(struct="FileMetaData", payload=Payload("hex", hex=text.hex())),),
            expect={"legacy": "read"},
            citations=(GOLDEN, IGNORE, COMPAT_OLD),
            notes="As storage/utf8-pair/unknown-field, for the extension: a legacy reader must skip it whatever its "
            "bytes.",
        ))
    return out


# slug -> (base, struct, which, fields, page): optional fields whose absence means their default, or nothing.
MISSING = {
    "file-metadata/key-value-metadata": ("flat", "FileMetaData", 0, ("key_value_metadata",), 0),
    "file-metadata/created-by": ("flat", "FileMetaData", 0, ("created_by",), 0),
    "file-metadata/column-orders": ("flat", "FileMetaData", 0, ("column_orders",), 0),
    "file-metadata/all-optional": ("flat", "FileMetaData", 0, ("key_value_metadata", "created_by", "column_orders"),
                                   0),
    "schema-element/root-repetition-type": ("flat", "SchemaElement", 0, ("repetition_type",), 0),
    "schema-element/converted-type": ("flat", "SchemaElement", "all", ("converted_type",), 0),
    "schema-element/string-logical-type": ("flat", "SchemaElement", 6, ("logicalType",), 0),
    "row-group/file-offset": ("multi-row-group", "RowGroup", "all", ("file_offset",), 0),
    "row-group/total-compressed-size": ("multi-row-group", "RowGroup", "all", ("total_compressed_size",), 0),
    "column-meta-data/statistics": ("flat", "ColumnMetaData", "all", ("statistics",), 0),
    "column-meta-data/encoding-stats": ("dictionary", "ColumnMetaData", "all", ("encoding_stats",), 0),
    "column-meta-data/size-statistics": ("flat", "ColumnMetaData", "all", ("size_statistics",), 0),
    "statistics/null-count": ("flat", "Statistics", "all", ("null_count",), 0),
    "statistics/exactness": ("flat", "Statistics", "all", ("is_max_value_exact", "is_min_value_exact"), 0),
    "statistics/min-max-values": ("flat", "Statistics", "all", ("max_value", "min_value"), 0),
    "size-statistics/histograms": ("flat", "SizeStatistics", "all",
                                   ("repetition_level_histogram", "definition_level_histogram"), 0),
    "data-page-header/statistics": ("flat", "DataPageHeader", 0, ("statistics",), 0),
    "page-header/crc-dictionary-page": ("checksummed", "PageHeader", 0, ("crc",), 0),
    "page-header/crc-data-page": ("checksummed", "PageHeader", 0, ("crc",), 1),
    "dictionary-page-header/is-sorted": ("checksummed", "DictionaryPageHeader", 0, ("is_sorted",), 0),
}


def _missing_optional() -> list[Case]:
    return [Case(
        id=f"storage/missing-optional/{slug}",
        title=f"{', '.join(fields)} left out of {'every' if which == 'all' else 'a'} {struct} of '{base}'"
        + (f" (page {page} of the last column chunk)" if struct in ("PageHeader", "DataPageHeader",
                                                                   "DictionaryPageHeader") else ""),
        kind="golden", base=base,
        mutations=(RemoveFields(struct=struct, which=which, fields=fields, page=page),),
        expect={"legacy": "read"},
        citations=(GOLDEN, COMPAT_NEW),
    ) for slug, (base, struct, which, fields, page) in MISSING.items()]


# slug -> (struct, field, which, page, base, values, expectation, why). `values`: names for the first value past
# the enum and -1. Where the value is needed to decode the data and nothing else in the file gives it, `reject`;
# where the file says it elsewhere, or it only describes, `either`: read exactly the base data or reject.
ENUM_CASES = {
    "schema-element-type": ("SchemaElement", "type", 1, 0, "flat", "Type", "either",
                            "The column's ColumnMetaData.type still says INT32."),
    "column-meta-data-type": ("ColumnMetaData", "type", 0, 0, "flat", "Type", "either",
                              "The column's SchemaElement.type still says INT32."),
    "schema-element-converted-type": ("SchemaElement", "converted_type", 6, 0, "flat", "ConvertedType", "either",
                                      "The column's LogicalType still says STRING."),
    "schema-element-repetition-type": ("SchemaElement", "repetition_type", 1, 0, "flat", "FieldRepetitionType",
                                       "reject", "Whether the column has definition levels depends on it."),
    "column-meta-data-encodings": ("ColumnMetaData", "encodings", 0, 0, "flat", "Encoding", "either",
                                   "The list describes the chunk; each page header says its own encoding."),
    "column-meta-data-codec": ("ColumnMetaData", "codec", 0, 0, "flat", "CompressionCodec", "reject",
                               "A reader cannot know how to decompress the pages (that they are in fact "
                               "uncompressed is not something it may guess)."),
    "page-encoding-stats-page-type": ("PageEncodingStats", "page_type", 0, 0, "flat", "PageType", "either",
                                      "Encoding statistics describe; the page headers say what each page is."),
    "page-encoding-stats-encoding": ("PageEncodingStats", "encoding", 0, 0, "flat", "Encoding", "either",
                                     "Encoding statistics describe; the page headers say how each page is encoded."),
    "page-header-type": ("PageHeader", "type", 0, 0, "flat", "PageType", "reject",
                         "The only data page of the last column: skipping it as an unknown page loses its values."),
    "data-page-header-encoding": ("DataPageHeader", "encoding", 0, 0, "flat", "Encoding", "reject",
                                  "The values cannot be decoded without it."),
    "data-page-header-definition-level-encoding": ("DataPageHeader", "definition_level_encoding", 0, 0, "flat",
                                                   "Encoding", "either",
                                                   "Levels are RLE in practice and many readers never look at this "
                                                   "field; reading them as RLE gives the base data."),
    "dictionary-page-header-encoding": ("DictionaryPageHeader", "encoding", 0, 0, "checksummed", "Encoding",
                                        "either", "A dictionary page is PLAIN (Encodings.md, parquet.thrift: \"in a "
                                        "Dictionary page use PLAIN\"), so a reader may decode it as such without "
                                        "looking."),
}


# No sentence says what a reader does with an enum value parquet.thrift does not define: that the metadata is then
# corrupt is this suite's inference (README's Error recovery is a must once it is: docs/spec-notes.md#enums).
UNDEFINED_ENUM = rule("enums", "An enum value that parquet.thrift's latest release does not define, in a field the "
                      "data cannot be decoded without, makes the metadata that holds it corrupt: what it describes is "
                      "lost (README, Error recovery), so a reader refuses it.").requiring("legacy")


def _enums() -> list[Case]:
    out = []
    for slug, (struct, field, which, page, base, enum, expectation, why) in ENUM_CASES.items():
        beyond = max(ENUMS[enum]) + 1
        for label, value in ((f"value-{beyond}", beyond), ("value-minus-1", -1)):
            index = 0 if field == "encodings" else None
            out.append(Case(
                id=f"storage/enum/{slug}/{label}",
                title=f"{struct}.{field} = {value}, which is no {enum} of parquet.thrift, in '{base}'",
                kind="nonconforming", base=base,
                mutations=(SetField(struct=struct, field=field, which=which, value=value, index=index, page=page),),
                expect={"legacy": expectation},
                citations=(ENUM_DEFS, *((UNDEFINED_ENUM, LOST) if expectation == "reject" else (COMPAT_OLD,)),
                           *((PAGE_TYPES,) if field == "type" and struct == "PageHeader" else ())),
                notes=f"{why} " + ("The value is none parquet.thrift defines and the data cannot be decoded without "
                                   "it, so the metadata that holds it is corrupt and what it describes is lost "
                                   "(README, Error recovery): reject the column or the file, never guess"
                                   if expectation == "reject" else
                                   "The value is none parquet.thrift defines, but the file says what the reader needs "
                                   "elsewhere: a reader may read (exactly the base data) or refuse the value") +
                ": docs/spec-notes.md#enums.",
            ))
    out.append(Case(
        id="storage/enum/schema-element-and-column-meta-data-type/value-8",
        title="SchemaElement.type and ColumnMetaData.type both 8, which is no Type of parquet.thrift, in 'flat'",
        kind="nonconforming", base="flat",
        mutations=(SetField(struct="SchemaElement", field="type", which=1, value=8),
                   SetField(struct="ColumnMetaData", field="type", which=0, value=8)),
        expect={"legacy": "reject"},
        citations=(ENUM_DEFS, UNDEFINED_ENUM, LOST),
        notes="Nothing in the file says the column's physical type: the column metadata is corrupt and the column "
        "chunk lost (README, Error recovery); reject the column or the file: docs/spec-notes.md#enums.",
    ))
    return out


def _crcs() -> list[Case]:
    out = []
    for page, what in ((0, "dictionary page"), (1, "data page")):
        out.append(Case(
            id=f"storage/crc/wrong-{what.replace(' ', '-')}",
            title=f"PageHeader.crc of the {what} of the last column chunk off by one bit (the page is intact)",
            kind="corrupt", base="checksummed",
            mutations=(SetField(struct="PageHeader", field="crc", xor=1, page=page),),
            expect={"legacy": "either"},
            citations=(INTEGRITY, PAGE_CRC),
            notes="A reader that verifies page CRCs rejects; one that does not reads the intact page. The base, "
            "base/checksummed, is the same file with every CRC right.",
        ))
    out.append(Case(
        id="storage/crc/every-page-wrong",
        title="PageHeader.crc off by one bit in both pages of the last column chunk",
        kind="corrupt", base="checksummed",
        mutations=(SetField(struct="PageHeader", field="crc", xor=1, page=0),
                   SetField(struct="PageHeader", field="crc", xor=1, page=1)),
        expect={"legacy": "either"},
        citations=(INTEGRITY, PAGE_CRC),
    ))
    return out


def _recovery() -> list[Case]:
    """multi-row-group has three row groups; a cut anywhere before the end loses the footer or its tail."""
    steps: dict[str, tuple[str, Mutation]] = {
        "after-head-magic": ("right after the head magic", TruncateAtRowGroup(row_group=0, where="start")),
        "in-row-group-0": ("in the middle of row group 0", TruncateAtRowGroup(row_group=0, where="middle")),
        "after-row-group-0": ("at the end of row group 0", TruncateAtRowGroup(row_group=0, where="end")),
        "after-row-group-1": ("at the end of row group 1", TruncateAtRowGroup(row_group=1, where="end")),
        "after-row-group-2": ("at the end of the last row group, where the footer starts",
                              TruncateAtRowGroup(row_group=2, where="end")),
        "in-footer-25pct": ("a quarter into the footer", TruncateInFooter(fraction=0.25)),
        "in-footer-75pct": ("three quarters into the footer", TruncateInFooter(fraction=0.75)),
        "before-footer-length": ("after the footer, before its length", TruncateTail(keep=0)),
        "before-tail-magic": ("after the footer length, before the tail magic", TruncateTail(keep=4)),
        "in-tail-magic": ("one byte before the end", TruncateTail(keep=7)),
    }
    return [Case(
        id=f"storage/recovery/cut-{slug}",
        title=f"'multi-row-group' (3 row groups) cut {where}",
        kind="corrupt", base="multi-row-group",
        mutations=(step,),
        expect={"legacy": "reject"},
        citations=(RECOVERY, LOST.requiring("legacy"), LAYOUT),
        notes="The file metadata is lost, so the file is lost (the seed); a reader may not return the row groups "
        "before the cut, which no metadata describes: docs/spec-notes.md#storage-checklist.",
    ) for slug, (where, step) in steps.items()]


def _statistics() -> list[Case]:
    columns = {"int32": 0, "int64": 1, "double": 2, "boolean": 4, "string": 5, "date": 7, "decimal": 9}
    return [Case(
        id=f"storage/statistics/min-above-max/{label}",
        title=f"column chunk statistics of the {label} column of 'flat' with min_value and max_value swapped",
        kind="nonconforming", base="flat",
        mutations=(SwapMinMax(which=which),),
        expect={"legacy": "either"},
        citations=(MIN_MAX, STATS_ORDER, LOST),
        notes="A full read does not need statistics, so a reader may return the base data; one that checks them may "
        "take the column metadata for corrupt and refuse (README, Error recovery); one that trusts them (to skip the "
        "chunk, or to answer from them) returns other data, which fails. The adapters read without a filter: "
        "docs/spec-notes.md#statistics-out-of-order.",
    ) for label, which in columns.items()]

