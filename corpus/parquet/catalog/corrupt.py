"""Corrupt cases: footer lengths, overshooting and truncated extensions, missing stop fields, bad tails,
truncated and tiny files.

No outcome here depends on chance (docs/spec-notes.md#corrupt-extensions): the payloads are fixed bytes,
0xFF wherever a reader that misreads a length could land (type 15, which no Thrift runtime knows), and the
footer length is sized so that a reader that parses past the footer into the file's tail meets a byte it
rejects too. Where a reader that misreads could see a plausible footer, a second case is crafted so that it
does, and would read: the case that exposes it. tests/test_corrupt_models.py parses every case as those
readers would (generators/parquet/thrift.py `int32`)."""

from __future__ import annotations

from functools import cache

from parquet_conformance.corpus.model import Case
from parquet_conformance.corpus.parquet.catalog.common import (
    APPEND,
    BINARY_LENGTH,
    CRITICAL,
    FORMS,
    LAYOUT,
    MAGIC,
    PAR3,
    RECOVERY,
    STRUCT_STOP,
    THRIFT_CPP_VARINT,
    THRIFT_JAVA_VARINT,
    VARINT_SIZE,
    WIRE,
)
from parquet_conformance.corpus.parquet.catalog.parx import PARX_LAYOUT, PARX_TAIL, UNKNOWN_FLAGS
from parquet_conformance.generators.parquet import thrift
from parquet_conformance.generators.parquet.bases import base_bytes
from parquet_conformance.generators.parquet.footer import read_tail
from parquet_conformance.generators.parquet.mutations.extension import OPAQUE_UUID, Extend, Header, Payload
from parquet_conformance.generators.parquet.mutations.tail import (
    FlipFooterLengthBit,
    ReplaceFile,
    SetFooterLength,
    SetTailMagic,
    TruncateInFooter,
)

# For a length of 2^35 (ULEB 80 80 80 80 80 01): Thrift C++ casts it to int32, 0, and reads the payload as fields
# from byte 0; Thrift Java and JavaScript shift the sixth group by 35 mod 32 and read 8, then fields from byte 8.
# Both find one unknown binary field (id 100) that ends with the payload: a plausible FileMetaData.
FOLDS_TO_FIELDS = Payload("hex", hex="08c8013c" + "ff" * 4 + "08c80134" + "ff" * 36 + OPAQUE_UUID.hex())
TAIL_INVALID, TAIL_STOP = 0xF, 0x0  # low nibbles of the footer length's first byte (see sized())
# The sentences that require a legacy reader to reject (docs/spec-notes.md#expectations): metadata it cannot decode
# is lost (README, Error recovery); an extension's M bytes lie inside the footer, which the footer length bounds
# (the length rule, docs/spec-notes.md#length-fields); a tail that is not PAR1 is not for it (Encryption.md 5.4).
LOST = RECOVERY.requiring("legacy")
WIRE_RULE = WIRE  # a layout: context; the lost metadata (LOST) requires the reject
NOT_PAR1 = MAGIC.requiring("legacy")
LENGTH_RULE = ("The length rule, value (docs/spec-notes.md#length-fields): read as ULEB128 (every byte, as the spec "
               "and the compact protocol define it), the declared length runs past the footer, so the FileMetaData "
               "does not decode within its footer length and the file metadata is lost.")


@cache
def sized(base: str, nibble: int, *, drop_stop: bool = False, size: int = 64) -> int:
    """A payload size from `size` up for one extension in `base`'s footer such that the new footer length's first
    (little-endian) byte has `nibble` as its low nibble: the byte a reader that parses past the footer into the
    file's tail meets first. 0xF is a field type no runtime knows (it fails, as every other reader); 0 is a stop
    byte (it ends the struct there)."""
    _, length = read_tail(base_bytes(base))
    for n in range(size, size + 16):
        if (length + 4 + len(thrift.uleb(n)) + n - drop_stop) & 0xF == nibble:
            return n
    raise AssertionError("unreachable: 16 consecutive sizes cover every nibble")


def fixed(struct: str, header: Header = "zigzag", payload: Payload | None = None, *, nibble: int = TAIL_INVALID,
          over: int = 0, **extra: object) -> Extend:
    """An extension of fixed bytes in the first `struct` of 'flat': `payload`, or 0xFF and our UUID sized so that the
    footer length's first byte has `nibble` (sized()). `over` declares that many bytes more than the payload has."""
    if payload is None:
        payload = _fill(sized("flat", nibble, drop_stop=bool(extra.get("drop_stop"))))
    if over:
        extra["declared_length"] = len(bytes.fromhex(payload.hex or "")) + over
    return Extend(struct=struct, which=0, header=header, payload=payload, **extra)


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
                citations=(LAYOUT, LOST, CRITICAL),
                notes="The footer length points before the file's first byte: there is no file metadata of that "
                "length to read.",
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
                citations=(LAYOUT, LOST),
                notes="What the footer length delimits is no FileMetaData (nothing, more than the file, the head "
                "magic, a page header): the file metadata is lost.",
            )
        )
    for struct, slug in (("FileMetaData", "file-metadata"), ("Statistics", "statistics")):
        cases.append(
            Case(
                id=f"corrupt/extension/overshoots-footer/{slug}",
                title=f"extension in {struct} whose length claims 1000 bytes more than the footer holds",
                kind="corrupt",
                base="flat",
                mutations=(fixed(struct, over=1000),),
                expect={"legacy": "reject"},
                citations=(WIRE_RULE, LAYOUT, BINARY_LENGTH, LOST),
                notes=LENGTH_RULE,
            )
        )
        cases.append(
            Case(
                id=f"corrupt/extension/truncated/{slug}",
                title=f"extension in {struct} one byte shorter than its length (the length swallows the stop field)",
                kind="corrupt",
                base="flat",
                mutations=(fixed(struct, over=1),),
                expect={"legacy": "reject"},
                citations=(WIRE_RULE, LAYOUT, BINARY_LENGTH, LOST),
                notes=LENGTH_RULE + " Here by one byte: the length swallows the stop field.",
            )
        )
    cases.append(
        Case(
            id="corrupt/extension/length-2gib",
            title="extension length of 2^31 - 1 in FileMetaData",
            kind="corrupt",
            base="flat",
            mutations=(fixed("FileMetaData", declared_length=2**31 - 1),),
            expect={"legacy": "reject"},
            citations=(WIRE_RULE, LAYOUT, BINARY_LENGTH, LOST),
            notes=LENGTH_RULE + " A reader must not allocate the claimed size before checking it against the footer.",
        )
    )
    cases.append(
        Case(
            id="corrupt/extension/length-over-32-bits",
            title="extension length of 2^35 (does not fit the 1-5 byte, 32-bit size); the payload is 0xFF where a "
            "reader that folds the length to 32 bits would parse it",
            kind="corrupt",
            base="flat",
            mutations=(fixed("FileMetaData", declared_length=2**35),),
            expect={"legacy": "reject"},
            citations=(WIRE_RULE, LAYOUT, LOST, VARINT_SIZE, THRIFT_CPP_VARINT, THRIFT_JAVA_VARINT),
            notes=LENGTH_RULE + " (It also takes 6 bytes.) Thrift C++ folds 2^35 to 0 and parses the payload as "
            "fields, Thrift Java and JavaScript fold it to 8; both meet field type 15 there and fail: "
            "docs/spec-notes.md#corrupt-extensions.",
        )
    )
    cases.append(
        Case(
            id="corrupt/extension/length-2pow35-folds-to-fields",
            title="extension length of 2^35 whose payload, parsed from where a 32-bit reader's folded length ends "
            "(byte 0 for Thrift C++, byte 8 for Java and JavaScript), is one unknown field: such a reader sees a "
            "plausible footer",
            kind="corrupt",
            base="flat",
            mutations=(fixed("FileMetaData", payload=FOLDS_TO_FIELDS, declared_length=2**35),),
            expect={"legacy": "reject"},
            citations=(WIRE_RULE, LAYOUT, LOST, THRIFT_CPP_VARINT, THRIFT_JAVA_VARINT),
            notes=LENGTH_RULE + " A reader that reads this file returns the base data from a length other than the "
            "one written (folded to 32 bits): docs/spec-notes.md#corrupt-extensions.",
        )
    )
    cases.append(
        Case(
            id="corrupt/extension/length-2pow32-plus-payload",
            title="extension length of 2^32 + N for an N-byte payload (5 ULEB bytes): a reader with 32-bit lengths "
            "reads N and the whole footer as written",
            kind="corrupt",
            base="flat",
            mutations=(fixed("FileMetaData", over=2**32),),
            expect={"legacy": "reject"},
            citations=(WIRE_RULE, LAYOUT, LOST, THRIFT_CPP_VARINT, THRIFT_JAVA_VARINT),
            notes=LENGTH_RULE + " Its form is within the spec's 1-5 bytes, but no footer holds 2^32 bytes (its length "
            "is 4 bytes), so a length of 2^32 or more always runs past it. Thrift C++ (cast) and Java (shift) both "
            "fold it to N and read a length that is not the one written: docs/spec-notes.md#corrupt-extensions.",
        )
    )
    cases.append(
        Case(
            id="corrupt/extension/length-11-bytes",
            title="extension length written as an 11-byte ULEB128 (its value is right)",
            kind="corrupt",
            base="flat",
            mutations=(fixed("FileMetaData", length_pad=11),),
            expect={"legacy": "either"},
            citations=(WIRE, VARINT_SIZE, THRIFT_CPP_VARINT, THRIFT_JAVA_VARINT),
            notes="The length rule, form (docs/spec-notes.md#length-fields): the value is the payload's length, in "
            "more bytes than the spec's 1-5 (and than any varint of the compact protocol). Thrift C++ refuses a varint "
            "over 10 bytes; Thrift Java reads varints of any length. Reading the length written is not wrong data, so "
            "either: docs/spec-notes.md#corrupt-extensions.",
        )
    )
    cases.append(
        Case(
            id="corrupt/extension/overshoot-into-tail",
            title="FileMetaData extension whose length runs 5 bytes past the footer, over its stop byte and the footer "
            "length, to the P of PAR1 (0x50, a stop byte for a runtime that reads only the low nibble)",
            kind="corrupt",
            base="flat",
            mutations=(fixed("FileMetaData", over=5),),
            expect={"legacy": "reject"},
            citations=(WIRE_RULE, LAYOUT, LOST),
            notes=LENGTH_RULE + " A reader that bounds the FileMetaData by the footer length rejects it; one that "
            "parses from a buffer that runs to the end of the file reads the base data: "
            "docs/spec-notes.md#corrupt-extensions.",
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
                    mutations=(fixed(struct, form, drop_stop=True),),
                    expect={"legacy": "reject"},
                    citations=(WIRE_RULE, APPEND, STRUCT_STOP, LOST),
                    notes="No stop field ends the struct within the footer, so the FileMetaData does not decode and "
                    "the file metadata is lost. The footer length's first byte has low nibble 0xF: a reader that "
                    "parses past the footer fails there too: docs/spec-notes.md#corrupt-extensions.",
                )
            )
    cases.append(
        Case(
            id="corrupt/extension/missing-stop/file-metadata/tail-stop",
            title="FileMetaData extension with the stop field after it removed, and a footer length whose first byte "
            "reads as a stop byte to a runtime that reads only the low nibble",
            kind="corrupt",
            base="flat",
            mutations=(fixed("FileMetaData", nibble=TAIL_STOP, drop_stop=True),),
            expect={"legacy": "reject"},
            citations=(WIRE_RULE, APPEND, STRUCT_STOP, LAYOUT, LOST),
            notes="A reader that parses from a buffer that runs past the footer into the tail finds its stop byte "
            "there and reads the base data: docs/spec-notes.md#corrupt-extensions.",
        )
    )
    for magic, cite_ in (("PAR3", PAR3), ("PARE", LAYOUT)):
        cases.append(
            Case(
                id=f"corrupt/tail/{magic}-on-thrift-footer",
                title=f"a Thrift footer with tail magic {magic}",
                kind="corrupt",
                base="flat",
                mutations=(fixed("FileMetaData"), SetTailMagic(magic=magic)),
                expect={"legacy": "reject"},
                citations=tuple(dict.fromkeys((NOT_PAR1, cite_, LAYOUT))),
                notes="The tail magic is how the format tells a legacy reader a file is not for it (PARE, PAR3): "
                "readers check it before anything else, so a Thrift footer before it is not read: "
                "docs/spec-notes.md#tail-magic.",
            )
        )
    cases.append(
        Case(
            id="corrupt/tail/PARX-on-thrift-footer",
            title="a PAR1 file whose last 4 bytes say PARX: the 8-byte tail of today's spec under the magic of PR "
            "#588, whose tail is 16 bytes",
            kind="corrupt",
            base="flat",
            mutations=(fixed("FileMetaData"), SetTailMagic(magic="PARX")),
            expect={"legacy": "reject", "aware:parx": "reject"},
            citations=(NOT_PAR1, LAYOUT, PARX_LAYOUT, PARX_TAIL, UNKNOWN_FLAGS),
            notes="A legacy reader rejects it: the README's layout ends in \"PAR1\" and a reader checks the tail "
            "magic before anything else. A PARX reader rejects it too: it takes the 16 bytes before the magic for "
            "metadata_len, flags and crc32, and here they are the end of the footer (0xFF and our UUID) and its "
            "length: flags with reserved bits set (parx/golden/* are the files in that form).",
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
                citations=(LAYOUT, NOT_PAR1, LOST),
                notes="The cut takes the footer length and the tail magic with it: the file metadata is lost.",
            )
        )
    cases.append(
        Case(
            id="corrupt/truncated/inside-extension",
            title="file cut in the middle of a 1 KiB extension",
            kind="corrupt",
            base="flat",
            mutations=(fixed("FileMetaData", payload=_fill(1024)), TruncateInFooter(fraction=0.8)),
            expect={"legacy": "reject"},
            citations=(LAYOUT, WIRE, NOT_PAR1, LOST),
            notes="The cut takes the footer length and the tail magic with it: the file metadata is lost.",
        )
    )
    for label, hexdata, why in (
        ("empty", "", (LOST,)),  # no magic to check: no metadata at all (not the PARE sentence, which is a magic's)
        ("magic-only", b"PAR1".hex(), (LOST,)),
        ("8-bytes", (b"PAR1" * 2).hex(), (LOST,)),
        ("12-bytes-zero-length", (b"PAR1" + bytes(4) + b"PAR1").hex(), (LOST,)),
    ):
        cases.append(
            Case(
                id=f"corrupt/tiny/{label}",
                title=f"a {len(hexdata) // 2}-byte file",
                kind="corrupt",
                base="flat",
                mutations=(ReplaceFile(hex=hexdata),),
                expect={"legacy": "reject"},
                citations=(LAYOUT, *why),
                notes="No footer length and tail magic fit, or a footer of 0 bytes: there is no file metadata.",
            )
        )
    return cases


def _fill(size: int) -> Payload:
    """0xFF, then our UUID: wherever a misread length lands in it, a Thrift runtime meets field type 15 and fails."""
    return Payload("hex", hex="ff" * max(size - 16, 0) + OPAQUE_UUID.hex()[:2 * size])
