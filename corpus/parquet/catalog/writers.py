"""Footers and page layouts of other writers (DuckDB, polars, fastparquet, parquet-java through Spark,
hyparquet-writer): the same rows, committed as fixtures (generators/parquet/fixtures), extended in every footer
struct they write and in every struct they write outside the footer. Their base cases come from golden.py."""

from __future__ import annotations

from parquet_conformance.corpus.model import Case, Level
from parquet_conformance.corpus.parquet.catalog.common import (
    FORMS,
    GOLDEN,
    HEADER_NOTE,
    IGNORE,
    RESERVED,
    STRUCTS,
    WIRE,
    ZIGZAG,
    base_needs,
    cite,
    ext,
    needs_note,
)
from parquet_conformance.corpus.parquet.catalog.pages import MOVES
from parquet_conformance.corpus.parquet.catalog.pages import STRUCTS as PAGE_STRUCTS
from parquet_conformance.generators.parquet import layout
from parquet_conformance.generators.parquet.bases import WRITER_BASES, base_bytes
from parquet_conformance.generators.parquet.mutations.extension import Payload
from parquet_conformance.generators.parquet.mutations.pages import ExtendPageLevel
from parquet_conformance.generators.parquet.strict import parse_file

FIXTURE = cite("generators/parquet/fixtures/provenance.json", "writer", "the rows of bases.writers_table, written by "
               "another implementation with its own field order, optional fields, statistics and page layout",
               seed=None, level=Level.POLICY)
PAGE_LEVEL = {**{s: slug for slug, (s, _) in PAGE_STRUCTS.items()}, "DataPageHeaderV2": "data-page-header-v2",
              "Statistics": "page-statistics"}
UNIONS = ("BloomFilterAlgorithm", "BloomFilterHash", "BloomFilterCompression")
# Footer unions (docs/spec-notes.md#unions): left out of the every-struct cases.
UNION_NAMES = {"LogicalType", "TimeUnit", "ColumnOrder", "ColumnCryptoMetaData", "EncryptionAlgorithm"}


def _present(base: str) -> tuple[set[str], set[str]]:
    """The footer structs and the page-level structs this writer wrote."""
    footer = parse_file(base_bytes(base))
    return {r.name for r in footer.structs()}, {name for name, _ in layout.page_level_paths(footer)}


def cases() -> list[Case]:
    out = []
    for base in WRITER_BASES:
        writer = base.removeprefix("writer-")
        footer_structs, page_structs = _present(base)
        read, needs, note = "read", base_needs(base), needs_note(base)
        for slug, (struct, which) in STRUCTS.items():
            if struct not in footer_structs:
                continue
            for form in FORMS:
                out.append(Case(
                    id=f"writers/{writer}/{slug}/{form}-header",
                    title=f"64-byte extension in the {which}th {struct} of {writer}'s footer, {form} header",
                    kind="golden", base=base, mutations=(ext(struct, which, form),), expect={"legacy": read},
                    citations=(GOLDEN, IGNORE, WIRE if form == "spec" else ZIGZAG, FIXTURE, *needs),
                    notes=" ".join(filter(None, (HEADER_NOTE[form], note)))))
        for struct, slug in PAGE_LEVEL.items():
            if struct not in page_structs:
                continue
            out.append(Case(
                id=f"writers/{writer}/pages/{slug}",
                title=f"40-byte extension in every {struct} {writer} wrote outside the footer",
                kind="golden", base=base,
                mutations=(ExtendPageLevel(struct=struct, which="all", payload=Payload.random(40)),),
                expect={"legacy": read}, citations=(GOLDEN, RESERVED, IGNORE, FIXTURE, *needs),
                notes=" ".join(filter(None, (HEADER_NOTE["zigzag"], MOVES, note)))))
        if page_structs & set(UNIONS):
            out.append(Case(
                id=f"writers/{writer}/pages/bloom-filter-unions",
                title=f"an extension in each bloom filter union {writer} wrote, beside its one set field",
                kind="nonconforming", base=base,
                mutations=tuple(ExtendPageLevel(struct=u, which="all", payload=Payload.random(20)) for u in UNIONS),
                expect={"legacy": "either"}, citations=(RESERVED, FIXTURE, *needs),
                notes=f"{MOVES} Thrift unions: docs/spec-notes.md#unions."))
        out.append(Case(
            id=f"writers/{writer}/multi/every-struct",
            title=f"an extension in every footer struct and every page-level struct of {writer}'s file (unions aside)",
            kind="golden", base=base,
            mutations=(*(ext(s, "all", "zigzag", 16) for s in sorted(footer_structs) if s not in UNION_NAMES),
                       *(ExtendPageLevel(struct=s, which="all", payload=Payload.random(16))
                         for s in sorted(page_structs) if s not in UNIONS)),
            expect={"legacy": read}, citations=(GOLDEN, RESERVED, IGNORE, FIXTURE, *needs),
            notes=" ".join(filter(None, (MOVES, note)))))
    return out

