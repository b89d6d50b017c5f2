"""Nonconforming cases: valid Thrift that breaks an extension rule (wire type, duplicates, placement,
overlong lengths)."""

from __future__ import annotations

from parquet_conformance.corpus.model import Case
from parquet_conformance.corpus.parquet.catalog.common import (
    APPEND,
    FORMS,
    PROTOTYPES,
    RESERVED,
    UNKNOWN_FIELDS,
    VARINT_SIZE,
    WIRE,
    ZIGZAG,
    ext,
    rule,
)
from parquet_conformance.corpus.parquet.catalog.storage import SKIPS_NEW
from parquet_conformance.generators.parquet.mutations.extension import ExtendAfterStop, Payload
from parquet_conformance.generators.parquet.mutations.fields import AddTypedField

# A padded ULEB128 within the spec's 1-5 bytes decodes to the same value under every reading of the wire layout
LENGTH_FORM = rule("length-fields", "An extension length padded within the spec's 1-5 bytes is still ULEB128 and "
                   "decodes to the payload's length, so every reading of the layout reads the file.")
LENGTH_FORM = LENGTH_FORM.requiring("legacy")


def cases() -> list[Case]:
    cases = []
    for t in ("bool", "i32", "i64", "double", "struct", "list"):
        cases.append(
            Case(
                id=f"nonconforming/type/{t}",
                title=f"field 32767 in FileMetaData with wire type {t}, not binary",
                kind="nonconforming",
                base="flat",
                mutations=(AddTypedField(struct="FileMetaData", type=t),),
                expect={"legacy": "read"},
                citations=(SKIPS_NEW, RESERVED, ZIGZAG, UNKNOWN_FIELDS),
                notes="Valid Thrift: a reader that does not know field 32767 skips it by its wire type. An "
                "extension-aware reader must not treat it as an extension: docs/spec-notes.md#non-binary-field-32767.",
            )
        )
    cases.append(
        Case(
            id="nonconforming/type/struct-in-column-meta-data",
            title="field 32767 as a struct inside a ColumnMetaData",
            kind="nonconforming",
            base="nested",
            mutations=(AddTypedField(struct="ColumnMetaData", which=-1, type="struct"),),
            expect={"legacy": "read"},
            citations=(SKIPS_NEW, RESERVED),
        )
    )
    for slug, struct in (("file-metadata", "FileMetaData"), ("column-meta-data", "ColumnMetaData")):
        cases.append(
            Case(
                id=f"nonconforming/duplicate/{slug}",
                title=f"two 32767 fields in one {struct}",
                kind="nonconforming",
                base="flat",
                mutations=(ext(struct, 0, "zigzag", 40), ext(struct, 0, "zigzag", 90)),
                expect={"legacy": "read"},
                citations=(SKIPS_NEW, RESERVED, APPEND),
                notes="Only one field id is reserved; a second one is valid Thrift that a legacy reader skips. Which "
                "one an aware reader uses is unspecified: docs/spec-notes.md#duplicates.",
            )
        )
    cases.append(
        Case(
            id="nonconforming/duplicate/mixed-headers",
            title="a spec-header and a zigzag-header extension in one FileMetaData",
            kind="nonconforming",
            base="flat",
            mutations=(ext("FileMetaData", 0, "spec", 40), ext("FileMetaData", 0, "zigzag", 40)),
            expect={"legacy": "read"},
            citations=(SKIPS_NEW, WIRE, ZIGZAG),
            notes="Field ids -16384 and 32767: distinct for Thrift.",
        )
    )
    for form in FORMS:
        cases.append(
            Case(
                id=f"nonconforming/placement/after-stop/{form}-header",
                title="extension written after the FileMetaData's stop "
                "byte, followed by a second stop byte, as the Arrow C++ and arrow-rs prototypes write it",
                kind="nonconforming",
                base="flat",
                mutations=(ExtendAfterStop(header=form, payload=Payload.random(64)),),
                expect={"legacy": "either"},
                citations=(WIRE, APPEND, PROTOTYPES),
                notes="The spec replaces the stop byte (`N-1 bytes ... minus \\0`, `thrift.back() = '\\x08'`); the "
                "prototypes keep it and append. A Thrift reader stops at the first stop byte and never sees the field; "
                "whether bytes after the FileMetaData inside the footer length are allowed is unstated: "
                "docs/spec-notes.md#placement.",
            )
        )
    for pad, expect in ((2, "read"), (5, "read"), (6, "either"), (10, "either")):
        cases.append(
            Case(
                id=f"nonconforming/uleb/length-{pad}-bytes",
                title=f"extension length written as an overlong {pad}-byte ULEB128",
                kind="nonconforming",
                base="flat",
                mutations=(ext("FileMetaData", 0, "zigzag", 64, length_pad=pad),),
                expect={"legacy": expect},
                citations=(*((LENGTH_FORM,) if expect == "read" else ()), WIRE, VARINT_SIZE),
                notes="The length rule, form (docs/spec-notes.md#length-fields): its value is the payload's length, "
                + ("but it takes more than the spec's 1-5 bytes (and the compact protocol's 5 for an int32): a "
                   "reader may read the value or refuse the form. Thrift C++ reads up to 10 bytes, Java any number."
                   if pad > 5 else
                   "in 1-5 bytes as the spec allots them; padding is still ULEB128 and decodes to the same value, so "
                   "a legacy reader reads it (our strict decoder calls it nonconforming: a Thrift writer never pads)."),
            )
        )
    return cases
