"""Golden cases: the bases, and extensions in every struct, both header forms, every size and payload."""

from __future__ import annotations

from parquet_conformance.corpus.model import Case
from parquet_conformance.corpus.parquet.catalog.common import (
    FORMS,
    FREEFORM,
    GOLDEN,
    HEADER_NOTE,
    IGNORE,
    LARGE,
    LAYOUT,
    MAGIC,
    OVERHEAD,
    RESERVED,
    SIZES,
    STRUCTS,
    UUID_MUST,
    WIRE,
    ZIGZAG,
    base_needs,
    base_read,
    ext,
    needs_note,
    rule,
)
from parquet_conformance.corpus.parquet.catalog.encryption import PLAINTEXT
from parquet_conformance.generators.parquet.bases import BASES, EXTENSION_BASES
from parquet_conformance.generators.parquet.mutations.extension import Extend, ExtendPageHeader, Payload

SIZE_POLICY = 16 << 20  # Hyper's documented footer limit: the smallest a reader we know documents (spec-notes)
# the spec bounds no size; from 16 MiB readers document limits (Hyper's footer): that they must read it anyway is
# this suite's reading, not the definition's
SIZE_RULE = rule("size-limits", "The spec bounds no size, and readers document footer limits from 16 MiB (Hyper): "
                 "that a reader reads a larger extension is this suite's reading.").requiring("legacy")

# A reader without the keys: the PARE magic says it cannot parse the file; the plaintext footer's encrypted column
# gives it an exception (Encryption.md 5.4, 5.5).
ENCRYPTED = {"encrypted-footer": (MAGIC.requiring("legacy"),), "plaintext-footer": (PLAINTEXT.requiring("legacy"),)}


def cases() -> list[Case]:
    cases = [
        Case(
            id=f"base/{name}",
            title=f"the unmodified base '{name}': {b.description}",
            kind="golden",
            base=name,
            mutations=(),
            expect={"legacy": "reject" if b.encrypted else base_read(name)},
            citations=(LAYOUT, *ENCRYPTED.get(name, ((GOLDEN,) if base_read(name) == "read" else ())),
                       *base_needs(name)),
            notes="No extension. An adapter's reading of this file is its baseline: docs/spec-notes.md#baseline."
            + (" Encrypted: a reader without the keys must reject it (docs/spec-notes.md#encryption)."
               if b.encrypted else "") + (" " + needs_note(name) if base_needs(name) else ""),
        )
        for name, b in BASES.items() if b.case is None  # a feature's own file is its feature's case
    ]
    for base in EXTENSION_BASES:
        for slug, (struct, which) in STRUCTS.items():
            for form in FORMS:
                cases.append(
                    Case(
                        id=f"ext/{slug}/{base}/{form}-header",
                        title=f"64-byte extension in the {which}th {struct} of '{base}', {form} header",
                        kind="golden",
                        base=base,
                        mutations=(ext(struct, which, form),),
                        expect={"legacy": "read"},
                        citations=(GOLDEN, IGNORE, WIRE if form == "spec" else ZIGZAG),
                        notes=HEADER_NOTE[form],
                    )
                )
        for form in FORMS:
            cases.append(
                Case(
                    id=f"ext/page-header/{base}/{form}-header",
                    title=f"64-byte extension in a PageHeader of '{base}', {form} header",
                    kind="golden",
                    base=base,
                    mutations=(ExtendPageHeader(header=form, payload=Payload.random(64)),),
                    expect={"legacy": "read"},
                    citations=(GOLDEN, IGNORE, RESERVED),
                    notes=HEADER_NOTE[form]
                    + " Placed in the first page header of the last column chunk so that no offset "
                    "recorded in the footer moves; the chunk's byte totals grow. See docs/spec-notes.md#page-header.",
                )
            )
    for label, size in SIZES.items():
        for form in FORMS:
            big = size >= LARGE
            cases.append(
                Case(
                    id=f"ext/size/{label}/{form}-header",
                    title=f"{label} extension in FileMetaData, {form} header",
                    kind="golden",
                    base="flat",
                    mutations=(ext("FileMetaData", 0, form, size),),
                    expect={"legacy": "either" if size > 100_000_000 else "read"},
                    citations=(*((SIZE_RULE,) if SIZE_POLICY <= size <= 100_000_000 else
                                 (GOLDEN,) if size < SIZE_POLICY else ()), IGNORE, OVERHEAD),
                    notes=HEADER_NOTE[form]
                    + (
                        " Over the 100 MB default Thrift string limits of Arrow C++ and "
                        "parquet-java; the spec sets no limit, so rejecting is allowed: "
                        "docs/spec-notes.md#size-limits."
                        if size > 100_000_000
                        else " The spec sets no limit, but readers document footer limits from 16 MiB (Hyper): that "
                        "they must read it is this suite's reading (policy): docs/spec-notes.md#size-limits."
                        if size >= SIZE_POLICY
                        else ""
                    ),
                    large=big,
                )
            )
    for form in FORMS:
        cases.append(
            Case(
                id=f"ext/payload/non-utf8/{form}-header",
                title="1 KiB of invalid UTF-8 with a trailing UUID",
                kind="golden",
                base="flat",
                mutations=(ext("FileMetaData", 0, form, 1024, "non-utf8"),),
                expect={"legacy": "read"},
                citations=(GOLDEN, FREEFORM, IGNORE),
                notes="Readers that decode Thrift binary as text must not choke on it.",
            )
        )
        cases.append(
            Case(
                id=f"ext/payload/non-utf8-schema-element/{form}-header",
                title="invalid UTF-8 extension in a SchemaElement (whose neighbour `name` is a string)",
                kind="golden",
                base="nested",
                mutations=(ext("SchemaElement", 1, form, 100, "non-utf8"),),
                expect={"legacy": "read"},
                citations=(GOLDEN, FREEFORM, IGNORE),
            )
        )
        cases.append(
            Case(
                id=f"ext/multi/four-structs/{form}-header",
                title="extensions in FileMetaData, a RowGroup, a ColumnMetaData and a SchemaElement at once",
                kind="golden",
                base="multi-row-group",
                mutations=(
                    ext("FileMetaData", 0, form),
                    ext("RowGroup", 1, form, 200),
                    ext("ColumnMetaData", 4, form, 17),
                    ext("SchemaElement", 2, form, 1000),
                ),
                expect={"legacy": "read"},
                citations=(GOLDEN, IGNORE),
            )
        )
        cases.append(
            Case(
                id=f"ext/multi/every-struct/{form}-header",
                title="an extension in every struct of the footer",
                kind="golden",
                base="nested",
                mutations=tuple(
                    ext(s, "all", form, 20)
                    for s in (
                        "FileMetaData",
                        "SchemaElement",
                        "RowGroup",
                        "ColumnChunk",
                        "ColumnMetaData",
                        "Statistics",
                        "PageEncodingStats",
                        "SizeStatistics",
                        "KeyValue",
                        "StringType",
                        "ListType",
                        "TypeDefinedOrder",
                    )
                ),
                expect={"legacy": "read"},
                citations=(GOLDEN, RESERVED, IGNORE),
                notes="Every struct, including the empty ones inside unions (StringType, ListType, TypeDefinedOrder); "
                "the unions themselves are in ext/union/*.",
            )
        )
        for union, slug in (("LogicalType", "logical-type"), ("ColumnOrder", "column-order")):
            cases.append(
                Case(
                    id=f"ext/union/{slug}/{form}-header",
                    title=f"an extension in every {union} union, beside its one set field",
                    kind="nonconforming",
                    base="nested",
                    mutations=(ext(union, "all", form, 20),),
                    expect={"legacy": "either"},
                    citations=(RESERVED,),
                    notes=f"{union} is a Thrift union: exactly one field may be set. Whether 'every Thrift struct' "
                    "includes unions is unstated, and Thrift runtimes read a second union field differently: "
                    "docs/spec-notes.md#unions.",
                )
            )
        cases.append(
            Case(
                id=f"ext/multi/every-column-meta-data-wide/{form}-header",
                title="an extension in each of 1000 ColumnMetaData",
                kind="golden",
                base="wide",
                mutations=(ext("ColumnMetaData", "all", form, 48),),
                expect={"legacy": "read"},
                citations=(GOLDEN, IGNORE, OVERHEAD),
            )
        )
    cases.append(
        Case(
            id="ext/multi/mixed-headers",
            title="spec header in FileMetaData, zigzag header in a ColumnMetaData",
            kind="golden",
            base="flat",
            mutations=(ext("FileMetaData", 0, "spec"), ext("ColumnMetaData", 2, "zigzag")),
            expect={"legacy": "read"},
            citations=(GOLDEN, WIRE, ZIGZAG),
            notes=HEADER_NOTE["spec"],
        )
    )
    cases.append(
        Case(
            id="ext/payload/looks-like-tail",
            title="payload that ends like a Parquet tail (stop byte, a length, PAR1) before its UUID",
            kind="golden",
            base="flat",
            mutations=(
                Extend(
                    struct="FileMetaData",
                    payload=Payload(
                        "hex",
                        hex="00"
                        + "08000000"
                        + b"PAR1".hex()
                        + "ff" * 8
                        + "00"
                        + "10000000"
                        + b"PAR1".hex()
                        + "0123456789abcdef0123456789abcdef",
                    ),
                ),
            ),
            expect={"legacy": "read"},
            citations=(GOLDEN, FREEFORM),
            notes="A reader that scans backwards for PAR1 must not stop inside payloads.",
        )
    )
    cases.append(
        Case(
            id="ext/payload/no-uuid",
            title="64 random bytes with no disambiguating UUID",
            kind="golden",
            base="flat",
            mutations=(Extend(struct="FileMetaData", payload=Payload.random(64, uuid=False)),),
            expect={"legacy": "read"},
            citations=(GOLDEN, UUID_MUST, IGNORE),
            notes="A writer broke the MUST; readers that do not know the extension are unaffected. No reader can tell "
            "a missing UUID from an unknown one, so the file counts as golden.",
        )
    )
    return cases
