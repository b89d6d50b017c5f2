"""The encoding extension (seed 001 "Examples / Encoding")."""

from __future__ import annotations

from parquet_conformance.corpus.model import Case
from parquet_conformance.corpus.parquet.catalog.common import (
    AWARE,
    ENCODING,
    ENCODING_READER,
    FORMS,
    GOLDEN,
    HEADER_NOTE,
    IGNORE,
)
from parquet_conformance.generators.parquet.mutations.encoding import AddEncodingExtension


def cases() -> list[Case]:
    enc = "aware:encoding"
    cases = []
    for base, columns in (("flat", ("f64", "f32")), ("multi-row-group", ("value",))):
        for form in FORMS:
            cases.append(
                Case(
                    id=f"enc/byte-stream-split/{base}/{form}-header",
                    title=f"columns {', '.join(columns)} of '{base}' also as "
                    "BYTE_STREAM_SPLIT at the start of each row group, PLAIN after, offsets in a ColumnMetaData "
                    "extension",
                    kind="golden",
                    base=base,
                    mutations=(AddEncodingExtension(columns=columns, header=form),),
                    expect={"legacy": "read", enc: "read"},
                    citations=(GOLDEN, AWARE.requiring(enc), ENCODING, ENCODING_READER, IGNORE),
                    notes="Legacy readers read the PLAIN chunks the footer points at; an aware reader reads the new "
                    "ones. The extension layout (u64 offset | u64 length | i32 encoding | UUID) is ours: the spec "
                    "gives none. " + HEADER_NOTE[form],
                )
            )
    cases.append(
        Case(
            id="enc/byte-stream-split/bad-offset",
            title="encoding extensions that point past the end of the file",
            kind="golden",
            base="flat",
            mutations=(AddEncodingExtension(columns=("f64",), bad_offset=True),),
            expect={"legacy": "read", enc: "either"},
            citations=(GOLDEN, ENCODING, ENCODING_READER, IGNORE),
            notes="The offsets point outside the file: an aware reader must not read there. The spec does not say "
            "what it does instead: refuse the file, or read the old encoding the footer points at (exactly the base "
            "data): docs/spec-notes.md#fallback.",
        )
    )
    return cases
