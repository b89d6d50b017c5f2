"""FlatBuffers FileMetaData footers: the "Examples / Footer" half of the spec, in every profile, and their
damage."""

from __future__ import annotations

from parquet_conformance.corpus.model import Case
from parquet_conformance.corpus.parquet.catalog.common import (
    APPEND,
    AWARE,
    AWARE_CHECKS,
    CRC_META,
    CRITICAL,
    DISAMBIGUATE,
    FINAL,
    FOOTER,
    FORMS,
    GOLDEN,
    HEADER_NOTE,
    MAGIC,
    MIGRATION,
    PROTOTYPE_TRAILER,
    PROTOTYPES,
    RECOVERY,
    REVERSE,
    SCHEMA_544,
    UUID_MUST,
    fb,
)
from parquet_conformance.generators.parquet.bases import EXTENSION_BASES
from parquet_conformance.generators.parquet.mutations.flatbuffer import DamageFlatbufferFooter, MetadataEdit


def cases() -> list[Case]:
    """FlatBuffers FileMetaData footers: the "Examples / Footer" half of the spec."""
    se, mig, ap, p3 = "aware:spec-example", "aware:migration", "aware:arrow-prototype", "aware:par3"
    cases = []
    for base in EXTENSION_BASES:
        for form in FORMS:
            cases.append(
                Case(
                    id=f"fb/spec-example/{base}/{form}-header",
                    title=f"FlatBuffers FileMetaData of '{base}' in the private "
                    f"form (spec layout, CRC-32 zlib), {form} header",
                    kind="golden",
                    base=base,
                    mutations=(fb("spec-example", header=form),),
                    expect={"legacy": "read", se: "read"},
                    citations=(GOLDEN, AWARE.requiring(se), FOOTER, REVERSE, SCHEMA_544),
                    notes=HEADER_NOTE[form],
                    decode={se: "flatbuffers"},
                )
            )
        cases.append(
            Case(
                id=f"fb/migration/{base}",
                title=f"Thrift and FlatBuffers FileMetaData of '{base}' with the ratified UUID",
                kind="golden",
                base=base,
                mutations=(fb("migration"),),
                expect={"legacy": "read", mig: "read"},
                citations=(GOLDEN, AWARE.requiring(mig), MIGRATION, REVERSE, SCHEMA_544),
                decode={mig: "flatbuffers"},
            )
        )
        cases.append(
            Case(
                id=f"fb/par3/{base}",
                title=f"the final form: only a FlatBuffers FileMetaData of '{base}', ending in PAR3",
                kind="golden",
                base=base,
                mutations=(fb("par3"),),
                expect={"legacy": "reject", p3: "read"},
                citations=(AWARE.requiring(p3), FINAL, MAGIC.requiring("legacy"), SCHEMA_544),
                notes="No Thrift footer: legacy readers must reject the PAR3 tail (docs/spec-notes.md#tail-magic). The "
                "head magic stays PAR1, which the spec does not say: docs/spec-notes.md#par3.",
                decode={p3: "flatbuffers"},
            )
        )
        cases.append(
            Case(
                id=f"fb/arrow-prototype/{base}",
                title=f"the Arrow C++/arrow-rs prototype trailer for '{base}', placed as they "
                "place it (after the stop byte, spec header)",
                kind="nonconforming",
                base=base,
                mutations=(fb("arrow-prototype", placement="after-stop"),),
                expect={"legacy": "either", ap: "read"},
                citations=(AWARE.requiring(ap), PROTOTYPE_TRAILER, REVERSE, PROTOTYPES),
                notes="The trailer is the prototypes' own (profile arrow-prototype); an aware reader of it finds its "
                "UUID at the end and reads the flatbuffer without parsing the Thrift. See "
                "docs/spec-notes.md#placement.",
                decode={ap: "flatbuffers"},
            )
        )
    for form in FORMS:
        cases.append(
            Case(
                id=f"fb/spec-example/crc-castagnoli/{form}-header",
                title="the private form with CRC-32C (Castagnoli) instead of the zlib CRC-32",
                kind="golden",
                base="flat",
                mutations=(fb("spec-example", header=form, crc="castagnoli"),),
                expect={"legacy": "read", se: "either"},
                citations=(GOLDEN, FOOTER, CRC_META),
                notes="The spec says crc32 without naming the polynomial. Read with zlib's CRC-32 the checks fail, and "
                "the reader may refuse or read the Thrift footer; read with CRC-32C they pass and it reads the "
                "flatbuffer: docs/spec-notes.md#crc32, docs/spec-notes.md#fallback.",
                decode={se: "either"},
            )
        )
    cases.append(
        Case(
            id="fb/arrow-prototype/lz4-raw",
            title="the prototype trailer with an LZ4_RAW-compressed flatbuffer (codec 7)",
            kind="nonconforming",
            base="flat",
            mutations=(fb("arrow-prototype", placement="after-stop", codec=7),),
            expect={"legacy": "either", ap: "read"},
            citations=(AWARE.requiring(ap), PROTOTYPE_TRAILER, REVERSE),
            decode={ap: "flatbuffers"},
        )
    )
    cases.append(
        Case(
            id="fb/arrow-prototype/in-struct",
            title="the prototype trailer placed as the spec places extensions (in place of the stop byte)",
            kind="golden",
            base="flat",
            mutations=(fb("arrow-prototype"),),
            expect={"legacy": "read", ap: "read"},
            citations=(GOLDEN, AWARE.requiring(ap), PROTOTYPE_TRAILER, REVERSE, APPEND),
            notes="Read in reverse, the tail is the prototypes' byte for byte (UUID, stop byte, footer length, PAR1).",
            decode={ap: "flatbuffers"},
        )
    )
    damages = [
        ("flatbuffer-byte", 0, "a flipped bit inside the flatbuffer (its CRC no longer matches)"),
        ("flatbuffer-crc", 3, "a flipped bit in crc32(flatbuffer)"),
        ("size-crc", 5, "a flipped bit in crc32(size)"),
    ]
    damages += [("size-bit", b, f"bit {b} of the size flipped (crc32(size) no longer matches)") for b in (0, 9, 20, 31)]
    damages += [
        ("unverifiable", 0, "a root offset past the end, with both CRCs valid: fails FlatBuffers verification"),
        ("huge-size", 0, "a size beyond the file, with a valid crc32(size)"),
    ]
    # The flatbuffer is intact, or a damaged one may still decode: nothing forbids a reader that skips a check to use
    # it and return the same data. Elsewhere the damage leaves nothing a reader could use without overshooting.
    intact = ("flatbuffer-byte", "flatbuffer-crc", "size-crc")
    for what, bit, title in damages:
        slug = f"{what}-{bit}" if what == "size-bit" else what
        cases.append(
            Case(
                id=f"fb/spec-example/damaged/{slug}",
                title=f"private form with {title}",
                kind="golden",
                base="flat",
                mutations=(fb("spec-example"), DamageFlatbufferFooter(what=what, bit=bit)),
                expect={"legacy": "read", se: "either"},
                citations=(GOLDEN, CRITICAL, CRC_META, REVERSE),
                notes="The Thrift footer is intact. The spec says the CRCs keep new readers from overshooting, not "
                "what they do next: an aware reader may refuse the file or read the Thrift footer (the migration "
                "form carries it for that), never overshoot or return other data: docs/spec-notes.md#fallback.",
                decode={se: "either" if what in intact else "thrift"},
            )
        )
        if what in ("flatbuffer-byte", "size-crc", "unverifiable", "huge-size") or (what, bit) == ("size-bit", 31):
            usable = what in intact
            cases.append(
                Case(
                    id=f"fb/par3/damaged/{slug}",
                    title=f"PAR3 file with {title}",
                    kind="corrupt",
                    base="flat",
                    mutations=(fb("par3"), DamageFlatbufferFooter(what=what, bit=bit)),
                    expect={"legacy": "reject", p3: "either" if usable else "reject"},
                    citations=(FINAL, MAGIC.requiring("legacy"),
                               *((CRITICAL, CRC_META) if usable else
                                 (CRITICAL, AWARE_CHECKS.requiring(p3), RECOVERY.requiring(p3)))),
                    notes="No Thrift footer to fall back to. "
                    + ("A CRC disagrees with what it covers (for flatbuffer-byte, one bit of the flatbuffer is "
                       "flipped; for size-crc, the size is intact): the spec does not say a reader must verify it, so "
                       "a reader may refuse or read, and then exactly the base data: docs/spec-notes.md#fallback."
                       if usable else
                       "The size cannot be used without reading outside the file, or the bytes are no FlatBuffers "
                       "FileMetaData: the file metadata is lost, reject without reading outside the file."),
                )
            )
    cases.append(
        Case(
            id="fb/spec-example/unknown-uuid",
            title="the private layout under a UUID no reader knows",
            kind="golden",
            base="flat",
            mutations=(fb("spec-example", uuid_hex="00112233445566778899aabbccddeeff"),),
            expect={"legacy": "read", se: "read"},
            citations=(GOLDEN, AWARE.requiring(se), UUID_MUST, DISAMBIGUATE, REVERSE),
            notes="An aware reader must ignore an extension whose UUID it does not know: it cannot decode it safely, "
            "and without it the file is a legacy file.",
            decode={se: "thrift"},
        )
    )
    cases.append(
        Case(
            id="fb/spec-example/disagrees/num-rows",
            title="FlatBuffers FileMetaData whose num_rows is one less than its row "
            "groups hold (the Thrift footer is right)",
            kind="golden",
            base="flat",
            mutations=(
                fb("spec-example", metadata_edits=(MetadataEdit("FileMetaData", "FileMetaData", "num_rows", -1),)),
            ),
            expect={"legacy": "read", se: "either"},
            citations=(GOLDEN, FOOTER, RECOVERY),
            notes="Internally inconsistent: an aware reader can tell, and may refuse the file or read the Thrift "
            "footer; one that trusts num_rows returns other data, which fails: docs/spec-notes.md#fallback.",
            decode={se: "either"},
        )
    )
    cases.append(
        Case(
            id="fb/spec-example/disagrees/column-offset",
            title="FlatBuffers FileMetaData whose first column's data_page_offset "
            "is 1 byte off (the Thrift footer is right)",
            kind="golden",
            base="flat",
            mutations=(
                fb(
                    "spec-example",
                    metadata_edits=(
                        MetadataEdit("row_groups[0].columns[0].meta_data", "ColumnMetaData", "data_page_offset", 1),
                    ),
                ),
            ),
            expect={"legacy": "read", se: "either"},
            citations=(GOLDEN, FOOTER,),
            notes="Consistent in itself, so an aware reader that does not parse the Thrift footer cannot tell: it may "
            "fail to decode the page or fall back, never return other data: docs/spec-notes.md#fallback.",
            decode={se: "either"},
        )
    )
    return cases
