"""The format's evolution (issue 28): every addition of parquet-format 2.12-2.14 and of its open proposals as a
file a reader of today must survive, built as a current writer writes it where one does (the base is that file with
the addition taken out, generators/parquet/bases.py `strip`, and the case puts it back byte for byte:
tests/test_evolution.py), else by our own footer edit (the notes say so).

What each expectation rests on (docs/spec-notes.md#evolution): a reader that does not know a logical type, or a
logical type on a physical type it does not know it on, reads the physical values (PR #606, "should"); statistics
and column orders it cannot interpret it ignores, and a full read uses neither; nan counts are optional fields; a data
page in an encoding it lacks is a clean refusal (CONTRIBUTING.md: forward incompatible features "provide a signal to
older readers"), and one it has is read exactly; the open proposals' collisions get both readings.

Where a default reader knows the addition and returns its logical values in a form of its own (VARIANT decoded by
DuckDB and hyparquet, WKB decoded by hyparquet), the case is judged on read versus reject, crash and hang
(`data_unknown`): the physical reading is checked with data where no reader knows the annotation (FILE, UUID on
INT32, TIMESTAMP on FLBA(12)), and on unions/logical-type/unknown-only."""

from __future__ import annotations

from functools import cache

from parquet_conformance.corpus.model import Alternative, Case, Citation, Level
from parquet_conformance.corpus.parquet.catalog.common import GOLDEN, PF, RANGE, base_needs, cite, needs_note
from parquet_conformance.corpus.parquet.catalog.storage import COMPAT_OLD, ENUM_DEFS, LOST, SKIPS_NEW, UNDEFINED_ENUM
from parquet_conformance.corpus.parquet.catalog.unions import FORWARD, ORDER, UNSUPPORTED
from parquet_conformance.generators.parquet import evolution, thrift, variant
from parquet_conformance.generators.parquet.bases import base_expected, written_bytes
from parquet_conformance.generators.parquet.footer import read_footer
from parquet_conformance.generators.parquet.layout import select as page_select
from parquet_conformance.generators.parquet.mutations import Mutation
from parquet_conformance.generators.parquet.mutations.encoding import EncodeAlp, EncodePfor
from parquet_conformance.generators.parquet.mutations.fields import (
    AddTypedField,
    RemoveFields,
    SetField,
    SetUnion,
    UnionMember,
)

# The main line after the 2.13.0 release (c47e2a66), which it adds FILE, ALP and INT96_TIMESTAMP_ORDER to (#585, #557,
# #584: merged, unreleased). A sentence that only defines a structure (a member list, a field) has no force.
THRIFT = f"{PF} src/main/thrift/parquet.thrift (24102ed5)"
NEW_TYPES = cite(THRIFT, "union LogicalType", "16: VariantType VARIANT     // no compatible ConvertedType / 17: "
                 "GeometryType GEOMETRY   // no compatible ConvertedType / 18: GeographyType GEOGRAPHY // no "
                 "compatible ConvertedType / 19: FileType FILE           // no compatible ConvertedType",
                 seed=None)
FILE_TYPE = cite(f"{PF} PR #585 LogicalTypes.md (c6a6967f)", "FILE", "The annotated group may contain the following "
                 "fields, identified by name case sensitively, not by field order.", seed=None)
FILE_603 = cite(f"{PF} PR #603 LogicalTypes.md (c2a8c6f8)", "FILE / Resolution", "`offset` and `size` apply only to "
                "data referenced by `uri`; there is no form that addresses a byte range in the current file directly.",
                seed=None, level="policy")
UUID_TYPE = cite(THRIFT, "struct StringType ...", "struct UUIDType {}    // allowed for FIXED[16], must be encoded as "
                 "raw UUID bytes", seed=None)
TIMESTAMP_601 = cite(f"{PF} PR #601 LogicalTypes.md (8ed9c879)", "TIMESTAMP", "For the `FIXED_LEN_BYTE_ARRAY` carrier "
                     "(with `type_length = 12`), the value is a signed 96-bit two's-complement little-endian integer "
                     "count of `unit`s since the Unix epoch.", seed=None, level="policy")
INT96_ORDER = cite(f"{PF} PR #584 src/main/thrift/parquet.thrift (4bda1008)", "union ColumnOrder", "If TYPE_ORDER is "
                   "used for an INT96 column, readers should ignore all statistics (`min`/`max` fields in `Statistics` "
                   "and `min_values`/`max_values` fields in `ColumnIndex`) for that column.",
                   seed=None, level="should")
IEEE754 = cite(f"{PF} PR #514 src/main/thrift/parquet.thrift (662cdac7)", "union ColumnOrder", "When reading "
               "statistics for columns with this order, the following rules should be followed: - Readers should "
               "consult the nan_count field to determine whether NaNs are present.", seed=None, level="should")
NAN_COUNT = cite(f"{PF} PR #514 src/main/thrift/parquet.thrift (662cdac7)", "struct Statistics", "9: optional i64 "
                 "nan_count;", seed=None)
NAN_COUNTS = cite(f"{PF} PR #514 src/main/thrift/parquet.thrift (662cdac7)", "struct ColumnIndex", "If this field is "
                  "not present, readers MUST assume that there might be NaN values in any page. ... 8: optional "
                  "list<i64> nan_counts", seed=None, level="must")
ALP_ENUM = cite(f"{PF} PR #557 src/main/thrift/parquet.thrift (2076361b)", "enum Encoding", "Adaptive Lossless "
                "floating-Point (ALP) encoding for FLOAT and DOUBLE. ... ALP = 10;", seed=None)
ALP_PREVIEW = cite(f"{PF} PR #604 Encodings.md (3ef43e00)", "Adaptive Lossless floating-Point: (ALP = 10)", "The "
                   "Parquet community recommends only using the encoding when you are sure your reader supports it.",
                   seed=None, level="should")
ALP_LAYOUT = cite(f"{PF} PR #608 AlpEncoding.md (24102ed5)", "Overview", "Only that byte layout and the "
                  "[Decoding](#decoding) procedure are normative.", seed=None)
SIGNAL = cite(f"{PF} CONTRIBUTING.md (24102ed5)", "Compatibility categories", "It is expected any feature in this "
              "category will provide a signal to older readers, so they can unambiguously determine that they cannot "
              "properly read the file (e.g. via adding a new value to an existing enum).", seed=None)
VALIDATE = cite(THRIFT, "struct ColumnMetaData", "Set of all encodings used for this column. The purpose is to "
                "validate whether we can decode those pages.", seed=None)
ENCODING_STATS = cite(THRIFT, "struct PageEncodingStats", "statistics of a given page type and encoding",
                      seed=None)
MINOR_581 = cite(f"{PF} PR #581 src/main/thrift/parquet.thrift (cf448f18)", "struct FileMetaData", "10: optional i32 "
                 "minor_version", seed=None, level="policy")
MAJOR_582 = cite(f"{PF} PR #582 src/main/thrift/parquet.thrift (88589dc6)", "struct FileMetaData", "10: optional i32 "
                 "format_major_version ... 11: optional i32 format_minor_version", seed=None, level="policy")
VECTOR = cite(f"{PF} PR #592 src/main/thrift/parquet.thrift (94d5cedf)", "enum FieldRepetitionType, union LogicalType, "
              "struct SchemaElement", "VECTOR = 3; ... 19: VectorType VECTOR       // no compatible ConvertedType ... "
              "11: optional i32 vector_length;", seed=None, level="policy")
VECTOR_LAYOUT = cite(f"{PF} PR #592 LogicalTypes.md (94d5cedf)", "Vectors", "For this layout, `num_values` is the "
                     "number of parent occurrences multiplied by `vector_length`.", seed=None, level="policy")
PATH_564 = cite(f"{PF} PR #564 src/main/thrift/parquet.thrift (5a4f7c34)", "struct ColumnMetaData", "Writers are "
                "encouraged to make the writing of this field optional, but for maximal compatibility should default "
                "to writing the field until at least September 2028. ... 3: optional list<string> path_in_schema",
                seed=None, level="policy")
REQUIRED_PATH = cite(THRIFT, "struct ColumnMetaData", "3: required list<string> path_in_schema",
                     seed=None)
TESTING = "apache/parquet-testing"


def upstream(path: str, commit: str, what: str, section: str = "test file") -> Citation:
    """An apache/parquet-testing file whose content a case transcribes (corpus/parquet/upstream.json pins it)."""
    return cite(f"{TESTING} {path} ({commit})", section, what, seed=None, level="policy")


INT32_UUID = cite(f"{TESTING} data/int32_with_uuid_logical_type.parquet (PR #122)", "the file, as apache/arrow-rs "
                  "issue #10941 names it", "an `INT32` column annotated with `UUID`", seed=None, level="policy")
FLBA12 = upstream("data/flba12_timestamp.md", "56653c43", "Three columns with physical type `FIXED_LEN_BYTE_ARRAY(12)` "
                  "and logical type `TIMESTAMP`.")
INT96_FILE = upstream("data/int96_timestamp_order.md", "570ec73d", "Correct (`INT96_TIMESTAMP_ORDER`) min/max: "
                      "**EARLY / NEXT_DAY**")
NO_PATH = upstream("data/README.md", "64810dd2", "A file encoded without the `path_in_schema` field on the "
                   "`ColumnMetaData`", "no_path_in_schema.zstd.parquet (PR #108)")
ALP_FILE = upstream("data/README.md", "09f3cdbd", "All columns contain the same 9032 values, so decoders can "
                    "bit-compare the `ALP` columns against known results stored with `PLAIN` encoding.",
                    "ALP encoding (alp_extended.zstd.parquet)")
SHREDDED = {  # quoted from cases.json: the test's name and the variant, or the error, a reader of VARIANT returns
    "case-001": upstream("shredded_variant/cases.json", "a3d96a65", "testSimpleArray ... Variant(metadata="
                         "VariantMetadata(dict={}), value=VariantArray([Variant(type=STRING, value=comedy), "
                         "Variant(type=STRING, value=drama)]))"),
    "case-004": upstream("shredded_variant/cases.json", "a3d96a65", "testShreddedVariantPrimitives ... "
                         "Variant(metadata=VariantMetadata(dict={}), value=Variant(type=BOOLEAN_TRUE, value=true))"),
    "case-042": upstream("shredded_variant/cases.json", "a3d96a65", "testValueAndTypedValueConflict ... Invalid "
                         "variant, conflicting value and typed_value"),
}
EMPTY = "00"
VARIANT_1 = "130100"  # VariantType {specification_version: 1}, as DuckDB and parquet-java write it
DATA_UNKNOWN = ("A reader that knows the type may return its values in a form of its own (hyparquet decodes WKB), and "
                "no text states a common form of decoded geometries, so the case is judged on read versus reject, "
                "crash and hang, not on its data (docs/spec-notes.md#evolution).")
DECODED = ("A reader that knows VARIANT returns the variants instead, in the normal form of decoded variants "
           "(docs/spec-notes.md#variant): both readings are right data, other data is wrong data.")
# VariantShredding.md at the main line (325b9f4c, #574; 24102ed5 holds it unchanged): what a reader of VARIANT returns
SHREDDING = f"{PF} VariantShredding.md (24102ed5)"
RECONSTRUCT = cite(SHREDDING, "Value Shredding", "When `typed_value` is present, readers **must** reconstruct shredded "
                   "values according to this specification.", seed=None, level=Level.MUST)
CONFLICT = cite(SHREDDING, "Objects", "When both `value` and `typed_value` for a field are non-null, engines should "
                "fail. If engines choose to read in such cases, then the `typed_value` column must be used.",
                seed=None, level=Level.SHOULD)
NOT_BOTH = cite(SHREDDING, "Primitive Types", "Unless the value is shredded as an object (see [Objects](#objects)), "
                "`typed_value` or `value` (but not both) must be non-null.", seed=None)
INVALID_OBJECT = cite(SHREDDING, "Objects", "Invalid cases in the table above must not be produced by writers. Readers "
                      "must return an object when `typed_value` is non-null containing the shredded fields.",
                      seed=None, level=Level.MUST)
SHREDDED_TYPES = cite(SHREDDING, "Shredded Value Types", "Shredded values must use the following Parquet types:",
                      seed=None)
MISSING = cite(SHREDDING, "Value Shredding", "If a Variant is missing in a context where a value is required, readers "
               "must return a Variant null (`00`): basic type 0 (primitive) and physical type 0 (null).", seed=None,
               level=Level.MUST)
READ_OR_FAIL = cite(SHREDDING, "Backward and forward compatibility", "Engines that do not write shredded values must "
                    "be able to read shredded values according to this spec or must fail.", seed=None)


def _case(slug: str, title: str, kind: str, base: str, steps: tuple[Mutation, ...], expect: str,
          citations: tuple[Citation, ...], notes: str, data_unknown: bool = False,
          alternatives: tuple[Alternative, ...] = ()) -> Case:
    """A case of the family; on a base that needs what a reader may lack (DuckDB writes snappy), the base's own
    sentences and note (common.base_needs)."""
    return Case(id=f"evolution/{slug}", title=title, kind=kind, base=base, mutations=steps, expect={"legacy": expect},
                citations=(*citations, *base_needs(base)), notes=" ".join(filter(None, (
                    notes, "Both readings where the spec is silent: docs/spec-notes.md#evolution.", needs_note(base)))),
                data_unknown=data_unknown, alternatives=alternatives)


def cases() -> list[Case]:
    return [*_logical_types(), *_shredded(), *_orders_and_counts(), *_alp(), *_pfor(), *_proposals()]


@cache
def _written_field(base: str, struct: str, which: int, field: int) -> str:
    """The value bytes (hex, after the field header) of a field the writer wrote and the base left out."""
    data = written_bytes(base)
    footer, _ = read_footer(data)
    ref = [r for r in footer.structs() if r.name == struct][which]
    f = ref.node.get(field)
    assert f is not None, (base, struct, which, field)
    return bytes(data[f.header_end:f.end]).hex()


def _annotate(which: int, member: int, body: str = EMPTY) -> AddTypedField:
    """SchemaElement.logicalType holding `member` (its struct's bytes `body`), spelled as a compact writer spells it
    (add_typed_field with hex: in id order, short headers), so that a writer's annotation comes back byte for byte."""
    union = thrift.field_header(thrift.STRUCT, member) + bytes.fromhex(body) + b"\x00"
    return AddTypedField("SchemaElement", "struct", which=which, field_id=10, hex=union.hex())


def geometry_steps() -> tuple[Mutation, ...]:
    """evo-geometry's GEOMETRY annotation and geospatial statistics put back as pyarrow wrote them (the features
    family reads the statistics through an operation: features/format-geospatial-statistics/*)."""
    return (_annotate(1, 17), AddTypedField("ColumnMetaData", "struct", which=0, field_id=17,
                                            hex=_written_field("evo-geometry", "ColumnMetaData", 0, 17)))


def _logical_types() -> list[Case]:
    physical = "A reader that does not know the annotation reads the physical values, the base data."
    out = [
        _case("variant/duckdb-shredded", "a VARIANT column as DuckDB 2.0.1 writes it (shredded: metadata, value, "
              "typed_value INT32), with an id", "golden", "evo-variant", (_annotate(2, 16, VARIANT_1),), "read",
              (SKIPS_NEW, NEW_TYPES, UNSUPPORTED, FORWARD),
              f"The file is DuckDB's byte for byte. {physical} polars #28627: a VARIANT annotation made polars refuse "
              f"the whole file. {DECODED} Here the variants are the values of the SQL that wrote them "
              "(generators/parquet/evolution.py VARIANT_SQL): 42, 'text', {a: 1, b: 'x'}, [1, 2, 3], NULL, 7, 2.5.",
              alternatives=(_variant_alternative("evo-variant", "the values DuckDB was given (VARIANT_SQL)"),)),
        _case("geometry/pyarrow", "a GEOMETRY column of WKB as pyarrow 26 writes a geoarrow.wkb column (the "
              "annotation and its geospatial statistics)", "golden", "evo-geometry", geometry_steps(),
              "read", (SKIPS_NEW, NEW_TYPES, UNSUPPORTED, FORWARD),
              f"The file is pyarrow's byte for byte. {physical} {DATA_UNKNOWN}", data_unknown=True),
        _case("geography/pyarrow", "a GEOGRAPHY column of WKB as pyarrow 26 writes a geoarrow.wkb column with "
              "spherical edges", "golden", "evo-geography", (_annotate(1, 18),), "read",
              (SKIPS_NEW, NEW_TYPES, UNSUPPORTED, FORWARD),
              f"The file is pyarrow's byte for byte. {physical} {DATA_UNKNOWN}", data_unknown=True),
        _case("file/group", "a group annotated FILE (LogicalType 19, PR #585, merged after 2.13.0, unreleased) with "
              "the six fields of "
              "LogicalTypes.md: external files, a range, inline bytes with and without a locator, a null", "golden",
              "evo-file", (_annotate(2, 19),), "read",
              (SKIPS_NEW, NEW_TYPES, FILE_TYPE, FILE_603, UNSUPPORTED, FORWARD),
              f"No library we have writes FILE: the annotation is our footer edit on a pyarrow file. {physical} "
              "A reader of PR #592 (open) takes LogicalType 19 for VECTOR, finds no VECTOR-repeated `list` group in it "
              "and may reject: evolution/vector/*."),
        _case("uuid-on-int32", "UUID (allowed only on FIXED_LEN_BYTE_ARRAY(16)) on a required INT32 column holding "
              "0..9, with its statistics: the content of apache/parquet-testing#122", "golden", "evo-int32-uuid",
              (_annotate(1, 14),), "read", (UNSUPPORTED.requiring("legacy"), UUID_TYPE, INT32_UUID),
              "An unrecognized logical/physical combination: the reader ignores the annotation and the statistics and "
              "reads the INT32s (PR #606, issue #607). arrow-rs #10941, apache/arrow #50909/#50910 and "
              "parquet-java before #3711 refuse it. The annotation is our footer edit on a pyarrow file."),
        *_flba12(),
    ]
    return out


def _variant_alternative(base: str, stated: str, wins: str | None = None, label: str = "variant") -> Alternative:
    """The base's rows with their VARIANT column decoded from its physical group (VariantShredding.md's
    reconstruction; tests/test_variant.py holds it equal to what the upstream texts state)."""
    data = base_expected(base)
    column = data["columns"].index("var" if "var" in data["columns"] else "v")
    rows = [[variant.reconstruct(v, wins) if i == column else v for i, v in enumerate(row)]
            for row in data["rows"]]
    return Alternative(label, f"A reader of VARIANT returns the variants: {stated}, in the normal form of decoded "
                       "variants (docs/spec-notes.md#variant).", {"columns": list(data["columns"]), "rows": rows})


def _stated(case: evolution.ShreddedCase) -> Alternative:
    """The variants cases.json states for the file, decoded from its .variant.bin files (one per row, null for a
    null variant), beside the file's ids."""
    data = base_expected(f"evo-shredded-{case.stem}")
    rows = [[row[0], None if f is None else variant.row_tokens(*variant.split(evolution.upstream_bytes(
        f"shredded_variant/{f}")))] for row, f in zip(data["rows"], case.variants, strict=True)]
    return Alternative("variant", f"A reader of VARIANT returns the variant{'s' if len(rows) > 1 else ''} cases.json "
                       "states (its .variant.bin files), in the normal form of decoded variants "
                       "(docs/spec-notes.md#variant).", {"columns": list(data["columns"]), "rows": rows})


# Error cases a reading of the text reads anyway, and the sentence that gives the data: a primitive or an array
# element in both value and typed_value (the Objects section's "then the typed_value column must be used", written of
# an object's fields), a non-object value beside shredded fields ("Readers must return an object ... containing the
# shredded fields").
TYPED_READING = {40: ("typed-value", CONFLICT), 42: ("typed-value", CONFLICT), 87: ("shredded-fields", INVALID_OBJECT),
                 128: ("shredded-fields", INVALID_OBJECT), 127: ("variant", MISSING), 137: ("variant", MISSING)}
# A field both in value and in a shredded field (the INVALID files 43 and 125): "reads ... may be inconsistent", so
# value's reading is right too.
INCONSISTENT = cite(SHREDDING, "Objects", "Readers may always assume that data is written correctly and that shredded "
                    "fields in `typed_value` are not present in `value`. As a result, reads when a field is defined in "
                    "both `value` and a `typed_value` shredded field may be inconsistent.", seed=None)


def _shredded() -> list[Case]:
    """Every case of apache/parquet-testing shredded_variant/cases.json, its file byte for byte (docs/spec-notes.md#
    variant): a reader that does not know VARIANT reads the physical group (the base's data), one that does returns
    the variant cases.json states or, for an error case, fails."""
    out = []
    for c in evolution.shredded_cases():
        base = f"evo-shredded-{c.stem}"
        quote = upstream("shredded_variant/cases.json", "a3d96a65", f"{c.test} ... {c.text[:300]}"
                         + ("..." if len(c.text) > 300 else ""), f"case {c.number}")
        title = (f"apache/parquet-testing shredded_variant/{c.parquet_file} (Iceberg's {c.test}), as it is: "
                 + ("an error case" if c.error else "a file not valid by the spec" if c.notes else
                    f"{len(c.variants)} variant{'s' if len(c.variants) > 1 else ''}"))
        physical = "A reader that does not know VARIANT reads the physical group, the base data."
        if c.error:
            label, sentence = TYPED_READING.get(c.number, ("", None))
            alternatives = (_variant_alternative(base, f"the {label} reading ({sentence.quote[:60]}...)", "typed",
                                                 label),) if sentence else ()
            rule = NOT_BOTH if c.number in (40, 42) else SHREDDED_TYPES if c.number in (127, 137) else INVALID_OBJECT
            out.append(_case(f"variant/shredded-{c.stem}", title, "golden", base, (), "either",
                             (NEW_TYPES, UNSUPPORTED, quote, rule, *(() if sentence is None else (sentence,))),
                             f"{physical} cases.json expects a reader of VARIANT to fail: \"{c.text}\". "
                             + (f"Read as VariantShredding.md's other sentence gives it ({label}), the data is "
                                f"{label}'s alternative. " if sentence else "No text states data a reader of VARIANT "
                                "could return. ") + "Either: the physical group, "
                             + ("that alternative, " if sentence else "") + "or a refusal; other data is wrong data.",
                             alternatives=alternatives))
        elif c.notes:
            both = c.number != 84  # 84: optional field groups, where the spec says required
            out.append(_case(f"variant/shredded-{c.stem}", title, "golden", base, (), "either",
                             (NEW_TYPES, UNSUPPORTED, quote, INCONSISTENT if both else SHREDDED_TYPES),
                             f"{physical} cases.json: \"{c.notes}\"; the variant it states when read is the "
                             "alternative" + (", and, since a field is both in value and shredded, reads \"may be "
                                              "inconsistent\": value's reading is one too" if both else "")
                             + ". Either: the physical group, a stated reading, or a refusal; other data is wrong.",
                             alternatives=(_stated(c), *((_variant_alternative(
                                 base, "value's reading of the field in both", "value", "value-wins"),) if both
                                 else ()))))
        else:
            out.append(_case(f"variant/shredded-{c.stem}", title, "golden", base, (), "read",
                             (SKIPS_NEW, NEW_TYPES, UNSUPPORTED, FORWARD, RECONSTRUCT, READ_OR_FAIL, quote),
                             f"The file is apache/parquet-testing's byte for byte (parquet-java, 1.16.0-SNAPSHOT). "
                             f"{physical} {DECODED}", alternatives=(_stated(c),)))
    return out


def _flba12() -> list[Case]:
    """TIMESTAMP on FIXED_LEN_BYTE_ARRAY(12), a column per case so that each is judged on its own: the physical 12
    bytes (an unrecognized combination, PR #606) or PR #601's instants (alternative); nanoseconds beyond int64 may be
    refused by the range rule (docs/spec-notes.md#features-a-reader-may-lack)."""
    out = []
    for column, unit in (("timestamp_millis", 1), ("timestamp_micros", 2), ("timestamp_nanos", 3)):
        slug = column.removeprefix("timestamp_")
        beyond = slug == "nanos"
        out.append(_case(
            f"timestamp-on-flba12/{slug}", f"TIMESTAMP({slug.upper()}, UTC) on a FIXED_LEN_BYTE_ARRAY(12) column: the "
            f"{column} column of apache/parquet-testing flba12_timestamp.parquet (PR #601, open)", "golden",
            f"evo-flba12-{slug}", (_annotate(1, 8, f"111c{unit}c000000"),), "either" if beyond else "read",
            (UNSUPPORTED.requiring("legacy") if not beyond else UNSUPPORTED, TIMESTAMP_601, FLBA12,
             *((RANGE,) if beyond else ())),
            "parquet.thrift (on the main line and in every release) allows TIMESTAMP on INT64 only, so to a reader "
            "this is an unrecognized combination: it reads the 12-byte values (PR #606). A reader of PR #601 reads "
            "the same six instants (year 1 to 9999) instead: the alternative." + (
                " In nanoseconds years 1 and 9999 do not fit int64: \"implementations may choose to only support a "
                "limited range\" (LogicalTypes.md), so a reader may refuse the column, as it may refuse "
                "base/int96-extremes: either." if beyond else "") + " The annotation is our footer edit on a pyarrow "
            "file of the column alone (flba12_timestamp.parquet postdates the stored copy of apache/parquet-testing).",
            alternatives=(Alternative("pr-601", "A reader of PR #601 (open) reads each value as a signed 96-bit "
                                      "count of the unit since the epoch: the instants of flba12_timestamp.md.",
                                      evolution.flba12_instants(column)),)))
    return out


def _int96_statistics(low: int, high: int) -> AddTypedField:
    """ColumnMetaData.statistics of the INT96 column: null_count 0, min and max the values INT96_ORDER[low], [high]."""
    bound = [evolution.int96_bytes(*evolution.INT96_ORDER[k]) for k in (high, low)]
    body = thrift.encode_struct([(3, thrift.I64, 0), (5, thrift.BINARY, bound[0]), (6, thrift.BINARY, bound[1])])
    return AddTypedField("ColumnMetaData", "struct", which=0, field_id=12, hex=body.hex())


def _orders_and_counts() -> list[Case]:
    stats = [(k, _written_field("evo-nan-count", "Statistics", k, 9)) for k in _nan_count_stats()]
    nan_counts = tuple(AddTypedField("Statistics", "i64", which=k, field_id=9, hex=h) for k, h in stats)
    full_read = "A full read uses neither column orders nor statistics, so every reading gives the base data."
    return [
        _case("column-order/int96-timestamp-order", "INT96_TIMESTAMP_ORDER (ColumnOrder 3, PR #584) on a required "
              "INT96 column with statistics in chronological order (EARLY, NEXT_DAY): the content of "
              "apache/parquet-testing int96_timestamp_order.parquet", "golden", "evo-int96-order",
              (_int96_statistics(2, 1), SetUnion("FileMetaData", "column_orders", (UnionMember(3, EMPTY),), index=0)),
              "read", (ORDER.requiring("legacy"), INT96_ORDER, INT96_FILE, COMPAT_OLD),
              f"A reader of any release does not know ColumnOrder 3 (PR #584, merged after 2.13.0, unreleased) and "
              f"ignores the statistics (should); one of the main line orders INT96 chronologically. {full_read} "
              "parquet-java 1.18.0-SNAPSHOT wrote the upstream file; our pyspark's "
              "parquet-java 1.17 does not write the order: our footer edit on a pyarrow file."),
        _case("column-order/int96-type-order-statistics", "TYPE_ORDER on the same INT96 column with statistics in "
              "byte order (NEXT_DAY, LATE_IN_DAY), which are not its chronological bounds", "golden",
              "evo-int96-order", (_int96_statistics(1, 0),), "read", (GOLDEN, INT96_ORDER, INT96_FILE, COMPAT_OLD),
              f"PR #584: with TYPE_ORDER on INT96, readers should ignore all statistics. {full_read} A reader that "
              "trusts them (to skip the chunk, to answer from them) would miss EARLY. Our footer edit."),
        _case("column-order/ieee754-total-order", "IEEE_754_TOTAL_ORDER (ColumnOrder 2) on the DOUBLE and FLOAT "
              "columns of DuckDB 2.0.1's file, whose statistics carry nan_count", "golden", "evo-nan-count",
              (*nan_counts, *(SetUnion("FileMetaData", "column_orders", (UnionMember(2, EMPTY),), index=i)
                              for i in (1, 2))), "read", (ORDER.requiring("legacy"), SKIPS_NEW, IEEE754, NAN_COUNT),
              f"polars #27893/#27896 rejected ColumnOrder 2. {full_read} DuckDB writes TYPE_ORDER: the order is our "
              "footer edit (no writer we have writes IEEE_754_TOTAL_ORDER: pyarrow 26, polars 2.1, DataFusion 55 and "
              "DuckDB 2.0.1 write TYPE_ORDER)."),
        _case("nan-count/duckdb", "Statistics.nan_count as DuckDB 2.0.1 writes it (no min or max where a chunk holds "
              "NaN)", "golden", "evo-nan-count", nan_counts, "read", (SKIPS_NEW, NAN_COUNT, FORWARD),
              "The file is DuckDB's byte for byte. nan_count (PR #514, released in 2.13.0) is an optional field: a "
              "reader of an earlier release skips it as an unknown one."),
        _case("nan-count/column-index", "ColumnIndex.nan_counts (field 8, PR #514) in the column index of the DOUBLE "
              "column of 'page-index', one zero per page", "golden", "page-index", _column_index_nan_counts(), "read",
              (SKIPS_NEW, NAN_COUNTS),
              "No writer we have writes nan_counts (pyarrow 26 writes none): our edit of pyarrow's column index, the "
              "data after it moved. A full read does not use the page index."),
    ]


@cache
def _nan_count_stats() -> tuple[int, ...]:
    """The Statistics (in walk order) DuckDB gave a nan_count."""
    footer, _ = read_footer(written_bytes("evo-nan-count"))
    return tuple(k for k, r in enumerate(r for r in footer.structs() if r.name == "Statistics")
                 if r.node.get(9) is not None)


@cache
def _column_index_nan_counts() -> tuple[AddTypedField, ...]:
    """A nan_counts of zeros (the column has no NaN) in the ColumnIndex of each chunk of `value` in 'page-index'."""
    footer, _ = read_footer(written_bytes("page-index"))
    indexes = page_select(footer, "ColumnIndex", "all")
    columns = [cc.need("meta_data").value("path_in_schema") for rg in footer.row_groups()
               for cc in rg.children("columns")]
    return tuple(AddTypedField("ColumnIndex", "list", which=k, field_id=8,
                               hex=thrift.encode_value(thrift.LIST, (thrift.I64, [0] * len(ci.value("null_pages"))))
                               .hex())
                 for k, (ci, path) in enumerate(zip(indexes, columns, strict=True)) if path == [b"value"])


def _alp() -> list[Case]:
    either = ("A reader that lacks ALP (every release: PR #557, merged after 2.13.0, unreleased; or a reader of the "
              "main line without the preview encoding) refuses the column; one that has it reads the values bit for "
              "bit: never other data, never a crash.")
    vectors = tuple(EncodeAlp(column=f"{kind}_{suffix}", log_vector_size=log)
                    for suffix, log in evolution.ALP_VECTORS.items() for kind in ("float", "double"))
    flat = (EncodeAlp(column="f64"), EncodeAlp(column="f32"))
    return [
        _case("alp/flat", "the DOUBLE and FLOAT columns of 'flat' (NaN, infinities, -0.0, subnormals, nulls) in ALP "
              "data pages (Encoding 10)", "golden", "flat", flat, "either",
              (ALP_ENUM, ALP_LAYOUT, ALP_PREVIEW, SIGNAL),
              f"{either} No library we have writes ALP: our encoder (generators/parquet/alp.py), checked by its own "
              "decode; the values that cannot round-trip are exceptions."),
        _case("alp/extended", "the content of apache/parquet-testing alp_extended.zstd.parquet: FLOAT and DOUBLE "
              "columns in ALP with vectors of 1024, 4096 and 32 values beside their PLAIN twins, five row groups",
              "golden", "evo-alp", vectors, "either", (ALP_ENUM, ALP_LAYOUT, ALP_PREVIEW, SIGNAL, ALP_FILE),
              f"{either} Uncompressed where the upstream file is zstd; the values are drawn anew from the README's "
              "distribution. Our encoder (generators/parquet/alp.py)."),
        _case("alp/listed-in-encodings", "ColumnMetaData.encodings of the DOUBLE column of 'flat' lists ALP beside "
              "PLAIN and RLE; its pages are PLAIN", "golden", "flat",
              (RemoveFields("ColumnMetaData", ("encodings",), which=2),
               AddTypedField("ColumnMetaData", "list", which=2, field_id=2,
                             hex=thrift.encode_value(thrift.LIST, (thrift.I32, [3, 0, 10])).hex())),
              "either", (VALIDATE, ALP_ENUM, COMPAT_OLD),
              "Reading 1: each page header says its encoding, and every page is PLAIN: read. Reading 2: the list's "
              "purpose is \"to validate whether we can decode those pages\", so a reader that lacks ALP may refuse "
              "the column on it."),
        _case("alp/listed-in-encoding-stats", "the encoding_stats of the DOUBLE column of 'flat' say its data page is "
              "ALP; the page header and ColumnMetaData.encodings say PLAIN", "golden", "flat",
              (SetField("PageEncodingStats", "encoding", which=2, value=10),), "either",
              (ENCODING_STATS, ALP_ENUM, ENUM_DEFS, COMPAT_OLD),
              "Encoding statistics describe; the page headers say how each page is encoded, and the encodings list "
              "holds none a reader lacks. To a reader of any release, 10 is an Encoding its parquet.thrift does not "
              "define, as 11 is in storage/enum/page-encoding-stats-encoding/value-11: the same rule, the same "
              "expectation (docs/spec-notes.md#enums): read exactly the base data or refuse. Hardwood #995/#996: its "
              "footer parse stopped at Encoding 10 in PageEncodingStats (\"Required field 'encoding' was not "
              "present\")."),
    ]


PFOR_ENUM = cite(f"{PF} PR #579 src/main/thrift/parquet.thrift (a28aa354)", "enum Encoding", "Patched Frame of "
                 "Reference encoding for INT32/INT64 columns. ... PFOR = 11;", seed=None)
PFOR_LAYOUT = cite(f"{PF} PR #579 Encodings.md (a28aa354)", "Patched Frame of Reference (PFOR = 11)", "PFOR encoding "
                   "consists of a page-level header followed by an offset array and one or more encoded vectors "
                   "(batches of values).", seed=None)


def _pfor() -> list[Case]:
    return [_case("pfor/pr-579", "the INT32 and INT64 columns of 'feat-reference' (nulls, negative values) in PFOR "
                  "data pages (Encoding 11, PR #579, open), written from the proposal's text", "nonconforming",
                  "feat-reference", (EncodePfor(column="i32"), EncodePfor(column="i64")), "reject",
                  (UNDEFINED_ENUM, LOST, PFOR_ENUM, PFOR_LAYOUT),
                  "To a reader of any release, and of the main line, 11 is an Encoding parquet.thrift does not define, "
                  "in the field the page's values cannot be decoded without: the same rule and expectation as "
                  "storage/enum/data-page-header-encoding/value-11 (docs/spec-notes.md#enums), whose page is PLAIN "
                  "under 11; here the values are PFOR, which a reader of the proposal reads (none of ours is one). "
                  "No library writes PFOR: our encoder (generators/parquet/pfor.py), checked by its own decode and "
                  "the proposal's Example 1. FSST (PR #531) is not in the stored copies of apache/parquet-format: "
                  "no case.")]


def _proposals() -> list[Case]:
    i32 = thrift.encode_value
    vector_steps: tuple[Mutation, ...] = (
        SetField("FileMetaData", "num_rows", value=evolution.VECTOR_ROWS),
        SetField("RowGroup", "num_rows", value=evolution.VECTOR_ROWS),
        SetField("SchemaElement", "repetition_type", which=2, value=3),
        AddTypedField("SchemaElement", "i32", which=2, field_id=11,
                      hex=i32(thrift.I32, evolution.VECTOR_LENGTH).hex()))
    unknown_repetition = ("FieldRepetitionType 3 is none parquet.thrift defines, and the levels of the column depend "
                          "on it: the schema is corrupt and the column lost (README, Error recovery): reject "
                          "(docs/spec-notes.md#enums).")
    return [
        _case("file-metadata-field-10/pr-581", "FileMetaData field 10 as PR #581 (open) defines it: minor_version 14",
              "golden", "flat", (AddTypedField("FileMetaData", "i32", field_id=10, hex=i32(thrift.I32, 14).hex()),),
              "read", (SKIPS_NEW, MINOR_581, MAJOR_582),
              "Field 10 is unknown to parquet.thrift: skipped. PR #582 gives field 10 another meaning, "
              "format_major_version: a reader of #582 would take this file for one that needs format 14.x and may "
              "reject it."),
        _case("file-metadata-field-10/pr-582", "FileMetaData fields 10 and 11 as PR #582 (open) defines them: "
              "format_major_version 2, format_minor_version 14", "golden", "flat",
              (AddTypedField("FileMetaData", "i32", field_id=10, hex=i32(thrift.I32, 2).hex()),
               AddTypedField("FileMetaData", "i32", field_id=11, hex=i32(thrift.I32, 14).hex())),
              "read", (SKIPS_NEW, MAJOR_582, MINOR_581),
              "Fields 10 and 11 are unknown to parquet.thrift: skipped. A reader of PR #581 reads field 10 as "
              "minor_version 2 and ignores 11: it believes the file needs no more than format version 2.2."),
        _case("vector/pr-592", "PR #592's VECTOR (open): 2 rows of a required vector of 7 floats, the middle group "
              "with FieldRepetitionType 3 and vector_length 7, the outer group annotated LogicalType 19",
              "nonconforming", "evo-vector", (*vector_steps, _annotate(1, 19)), "reject",
              (UNDEFINED_ENUM, ENUM_DEFS, LOST, VECTOR, VECTOR_LAYOUT, NEW_TYPES),
              f"{unknown_repetition} LogicalType 19 is FILE on the main line (PR #585, merged after 2.13.0, "
              "unreleased) and VECTOR in PR #592 (open): a reader of the main line that reaches the annotation finds "
              "a FILE group with none of FILE's fields. Our footer edit "
              "on a pyarrow file of the 14 element slots (no writer we have writes VECTOR)."),
        _case("vector/repetition-only", "PR #592's VECTOR layout without its annotation: FieldRepetitionType 3 and "
              "vector_length 7 on the middle group, 2 rows of 14 slots", "nonconforming", "evo-vector", vector_steps,
              "reject", (UNDEFINED_ENUM, ENUM_DEFS, LOST, VECTOR, VECTOR_LAYOUT),
              f"{unknown_repetition} Our footer edit on a pyarrow file."),
        _case("path-in-schema-omitted/par1", "ColumnMetaData.path_in_schema left out of every column chunk in a PAR1 "
              "file: the content of apache/parquet-testing#108 no_path_in_schema (PR #564, open)", "nonconforming",
              "evo-no-path", (RemoveFields("ColumnMetaData", ("path_in_schema",), which="all"),), "either",
              (REQUIRED_PATH, PATH_564, NO_PATH),
              "Reading 1 (parquet.thrift, on the main line and in 2.13.0): a required field is missing, the column "
              "metadata does not decode: "
              "reject. Reading 2 (PR #564): the paths follow from the schema: read. In the PARX framing the flag "
              "PATH_IN_SCHEMA_OMITTED says which: parx/path-in-schema-omitted/*. Uncompressed where the upstream "
              "file is zstd."),
    ]
