"""Every type a reader may return: the typed bases (all-types, int96-extremes) with an extension in the footer
and with a FlatBuffers footer. Their base cases (`base/all-types`, `base/int96-extremes`) come from golden.py."""

from __future__ import annotations

from parquet_conformance.corpus.model import Case
from parquet_conformance.corpus.parquet.catalog.common import (
    AWARE,
    FOOTER,
    FORMS,
    GOLDEN,
    HEADER_NOTE,
    IGNORE,
    ZIGZAG,
    base_needs,
    cite,
    ext,
    fb,
    needs_note,
)

LOGICAL = cite("apache/parquet-format LogicalTypes.md (24102ed5)", "Logical Types",
               "Logical types are used to extend the types that parquet can be used to store, by specifying how the "
               "primitive types should be interpreted.", seed=None)
TYPES_NOTE = ("A reader that lacks a type (e.g. rejects BSON or INTERVAL) rejects the file; one that represents a "
              "type differently shows it once on base/all-types, and is compared with its own reading of it here: "
              "docs/spec-notes.md#types.")


def cases() -> list[Case]:
    out = [
        Case(id=f"types/all-types/file-metadata/{form}-header", title=f"64-byte extension in the FileMetaData of "
             f"'all-types', {form} header", kind="golden", base="all-types", mutations=(ext("FileMetaData", 0, form),),
             expect={"legacy": "read"}, citations=(GOLDEN, IGNORE, LOGICAL), notes=HEADER_NOTE[form] + " " + TYPES_NOTE)
        for form in FORMS
    ]
    out.append(Case(
        id="types/all-types/every-column-meta-data", title="an extension in every ColumnMetaData of 'all-types'",
        kind="golden", base="all-types", mutations=(ext("ColumnMetaData", "all", "zigzag", 24),),
        expect={"legacy": "read"}, citations=(GOLDEN, IGNORE, ZIGZAG, LOGICAL), notes=TYPES_NOTE))
    out.append(Case(
        id="types/all-types/flatbuffers/spec-example", title="the FlatBuffers FileMetaData of 'all-types' in the "
        "private form: every logical type through the FlatBuffers schema", kind="golden", base="all-types",
        mutations=(fb("spec-example"),), expect={"legacy": "read", "aware:spec-example": "read"},
        citations=(GOLDEN, AWARE.requiring("aware:spec-example"), FOOTER, LOGICAL),
        decode={"aware:spec-example": "flatbuffers"},
        notes=TYPES_NOTE))
    out.append(Case(
        id="types/int96-extremes/file-metadata/zigzag-header", title="64-byte extension in the FileMetaData of "
        "'int96-extremes' (INT96 instants beyond the nanosecond range)", kind="golden", base="int96-extremes",
        mutations=(ext("FileMetaData", 0, "zigzag"),), expect={"legacy": "read"},
        citations=(GOLDEN, IGNORE, *base_needs("int96-extremes")),
        notes="A reader that holds INT96 in 64-bit nanoseconds cannot represent these instants: it may refuse them, "
              "or widen them and read exactly the base data; returning other instants (wrapped around) fails: "
              "docs/spec-notes.md#types. " + needs_note("int96-extremes")))
    return out
