"""Corrupt cases: footer lengths, overshooting and truncated extensions, missing stop fields, bad tails,
truncated and tiny files."""

from __future__ import annotations

from parquet_conformance.corpus.model import Case
from parquet_conformance.corpus.parquet.catalog.common import APPEND, CRITICAL, FORMS, LAYOUT, PAR3, PARE, WIRE, ext
from parquet_conformance.generators.parquet.mutations.tail import (
    FlipFooterLengthBit,
    ReplaceFile,
    SetFooterLength,
    SetTailMagic,
    TruncateInFooter,
)


def cases() -> list[Case]:
    cases = []
    for bit in (0, 1, 4, 9):
        cases.append(
            Case(
                id=f"corrupt/footer-length/bit-{bit}-within-file",
                title=f"footer length with bit {bit} flipped, still inside the file",
                kind="corrupt",
                base="flat",
                mutations=(FlipFooterLengthBit(bit=bit),),
                expect={"legacy": "either"},
                citations=(LAYOUT, CRITICAL),
                notes="The metadata no longer starts where the length says. A reader without a checksum "
                "may still find valid metadata; it must never return other data.",
            )
        )
    for bit in (16, 20, 24, 30, 31):
        cases.append(
            Case(
                id=f"corrupt/footer-length/bit-{bit}-before-start",
                title=f"footer length with bit {bit} flipped, pointing before the start of the file",
                kind="corrupt",
                base="flat",
                mutations=(FlipFooterLengthBit(bit=bit),),
                expect={"legacy": "reject"},
                citations=(LAYOUT, CRITICAL),
            )
        )
    for label, step, title in (
        ("zero", {"value": 0}, "0"),
        ("max", {"value": 0xFFFFFFFF}, "0xFFFFFFFF"),
        ("at-head-magic", {"file_size_minus": 8}, "file size - 8 (metadata would start at the head magic)"),
        (
            "at-first-page",
            {"file_size_minus": 12},
            "file size - 12 (metadata would start at the first page header, itself valid Thrift)",
        ),
    ):
        cases.append(
            Case(
                id=f"corrupt/footer-length/{label}",
                title=f"footer length set to {title}",
                kind="corrupt",
                base="flat",
                mutations=(SetFooterLength(**step),),
                expect={"legacy": "reject"},
                citations=(LAYOUT,),
            )
        )
    for struct, slug in (("FileMetaData", "file-metadata"), ("Statistics", "statistics")):
        cases.append(
            Case(
                id=f"corrupt/extension/overshoots-footer/{slug}",
                title=f"extension in {struct} whose length claims 1000 bytes more than the footer holds",
                kind="corrupt",
                base="flat",
                mutations=(ext(struct, 0, "zigzag", 64, declared_length=1064),),
                expect={"legacy": "reject"},
                citations=(WIRE,),
            )
        )
        cases.append(
            Case(
                id=f"corrupt/extension/truncated/{slug}",
                title=f"extension in {struct} one byte shorter than its length (the length swallows the stop field)",
                kind="corrupt",
                base="flat",
                mutations=(ext(struct, 0, "zigzag", 64, declared_length=65),),
                expect={"legacy": "reject"},
                citations=(WIRE,),
            )
        )
    cases.append(
        Case(
            id="corrupt/extension/length-2gib",
            title="extension length of 2^31 - 1 in FileMetaData",
            kind="corrupt",
            base="flat",
            mutations=(ext("FileMetaData", 0, "zigzag", 64, declared_length=2**31 - 1),),
            expect={"legacy": "reject"},
            citations=(WIRE,),
            notes="A reader must not allocate the claimed size before checking it against the footer.",
        )
    )
    cases.append(
        Case(
            id="corrupt/extension/length-over-32-bits",
            title="extension length of 2^35 (does not fit the 1-5 byte, 32-bit size)",
            kind="corrupt",
            base="flat",
            mutations=(ext("FileMetaData", 0, "zigzag", 64, declared_length=2**35),),
            expect={"legacy": "reject"},
            citations=(WIRE,),
        )
    )
    for struct, slug in (
        ("FileMetaData", "file-metadata"),
        ("ColumnMetaData", "column-meta-data"),
        ("SchemaElement", "schema-element"),
    ):
        for form in FORMS:
            cases.append(
                Case(
                    id=f"corrupt/extension/missing-stop/{slug}/{form}-header",
                    title=f"extension in {struct} with the stop field after it removed",
                    kind="corrupt",
                    base="flat",
                    mutations=(ext(struct, 0, form, 64, drop_stop=True),),
                    expect={"legacy": "reject"},
                    citations=(WIRE, APPEND),
                )
            )
    for magic, cite_ in (("PAR3", PAR3), ("PARX", LAYOUT), ("PARE", PARE)):
        cases.append(
            Case(
                id=f"corrupt/tail/{magic}-on-thrift-footer",
                title=f"a Thrift footer with tail magic {magic}",
                kind="corrupt",
                base="flat",
                mutations=(ext("FileMetaData", 0, "zigzag", 64), SetTailMagic(magic=magic)),
                expect={"legacy": "reject"},
                citations=(cite_, LAYOUT),
                notes="A legacy reader checks the tail magic before anything else.",
            )
        )
    for fraction in (0.0, 0.5, 0.99):
        cases.append(
            Case(
                id=f"corrupt/truncated/footer-{int(fraction * 100)}pct",
                title=f"file cut inside its footer ({fraction:.0%} of the footer kept)",
                kind="corrupt",
                base="flat",
                mutations=(TruncateInFooter(fraction=fraction),),
                expect={"legacy": "reject"},
                citations=(LAYOUT,),
            )
        )
    cases.append(
        Case(
            id="corrupt/truncated/inside-extension",
            title="file cut in the middle of a 1 KiB extension",
            kind="corrupt",
            base="flat",
            mutations=(ext("FileMetaData", 0, "zigzag", 1024), TruncateInFooter(fraction=0.8)),
            expect={"legacy": "reject"},
            citations=(LAYOUT, WIRE),
        )
    )
    for label, hexdata in (
        ("empty", ""),
        ("magic-only", b"PAR1".hex()),
        ("8-bytes", (b"PAR1" * 2).hex()),
        ("12-bytes-zero-length", (b"PAR1" + bytes(4) + b"PAR1").hex()),
    ):
        cases.append(
            Case(
                id=f"corrupt/tiny/{label}",
                title=f"a {len(hexdata) // 2}-byte file",
                kind="corrupt",
                base="flat",
                mutations=(ReplaceFile(hex=hexdata),),
                expect={"legacy": "reject"},
                citations=(LAYOUT,),
            )
        )
    return cases
