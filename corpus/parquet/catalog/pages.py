"""Page-level cases: extensions in every struct a reader parses outside the footer (page headers of every chunk
and the structs inside them, ColumnIndex, OffsetIndex, PageLocation, BloomFilterHeader and the structs of its
unions), in files with a page index and bloom filters, v1 and v2 data pages and every compression codec. The
data after each extension moves and every offset is fixed (generators/parquet/layout.py)."""

from __future__ import annotations

from dataclasses import replace

from parquet_conformance.corpus.model import Case
from parquet_conformance.corpus.parquet.catalog.common import (
    FORMS,
    GOLDEN,
    HEADER_NOTE,
    IGNORE,
    PF,
    RESERVED,
    base_needs,
    cite,
    needs_note,
)
from parquet_conformance.generators.parquet.bases import CODECS, EXTENSION_BASES
from parquet_conformance.generators.parquet.mutations.extension import Payload
from parquet_conformance.generators.parquet.mutations.pages import ExtendPageLevel

# The main line (24102ed5): the structures' layouts are context, the definition of the file (GOLDEN) requires the read
THRIFT = f"{PF} src/main/thrift/parquet.thrift (24102ed5)"
PAGE_INDEX = cite(f"{PF} PageIndex.md (24102ed5)", "Technical Approach",
                  "The new index structures are stored separately from RowGroup, near the footer. ... The index "
                  "structures' location and length are stored in ColumnChunk.", seed=None)
LOCATION = cite(THRIFT, "struct PageLocation", "Size of the page, including header. Equal to the sum of the page's "
                "PageHeader.compressed_page_size and the size of the serialized PageHeader.", seed=None)
BLOOM = cite(THRIFT, "struct BloomFilterHeader", "Bloom filter header is stored at beginning of Bloom filter data "
             "of each column and followed by its bitset.", seed=None)
TOTALS = cite(THRIFT, "struct ColumnMetaData", "total byte size of all compressed, and potentially encrypted, pages "
              "in this column chunk (including the headers)", seed=None)

# slug -> (struct, citation of where it lives); the unions are separate (docs/spec-notes.md#unions).
STRUCTS = {
    "page-header": ("PageHeader", TOTALS),
    "data-page-header": ("DataPageHeader", TOTALS),
    "dictionary-page-header": ("DictionaryPageHeader", TOTALS),
    "column-index": ("ColumnIndex", PAGE_INDEX),
    "offset-index": ("OffsetIndex", PAGE_INDEX),
    "page-location": ("PageLocation", LOCATION),
    "bloom-filter-header": ("BloomFilterHeader", BLOOM),
    "split-block-algorithm": ("SplitBlockAlgorithm", BLOOM),
    "xx-hash": ("XxHash", BLOOM),
    "uncompressed": ("Uncompressed", BLOOM),
}
UNIONS = {"bloom-filter-algorithm": "BloomFilterAlgorithm", "bloom-filter-hash": "BloomFilterHash",
          "bloom-filter-compression": "BloomFilterCompression"}
V2_STRUCTS = ("page-header", "data-page-header-v2", "dictionary-page-header", "column-index", "offset-index",
              "page-location", "bloom-filter-header")
CODEC_STRUCTS = ("page-header", "data-page-header", "dictionary-page-header", "column-index", "offset-index",
                 "bloom-filter-header")
MOVES = ("Every byte after each extension moves; every offset past it (data and dictionary page offsets, column "
         "and offset index offsets, PageLocation offsets, bloom filter offsets, row group file_offset) and every "
         "length that spans it is rewritten: docs/spec-notes.md#page-level.")


def _page(base: str, slug: str, struct: str, citation: object, form: str = "zigzag", which: object = "all",
          size: int = 40, expect: str = "read", suffix: str = "") -> Case:
    where = "every" if which == "all" else f"the {which}th"
    return Case(
        id=f"pages/{slug}/{base}/{form}-header{suffix}",
        title=f"{size}-byte extension in {where} {struct} of '{base}', {form} header",
        kind="golden", base=base,
        mutations=(ExtendPageLevel(struct=struct, which=which, header=form, payload=Payload.random(size)),),
        expect={"legacy": expect},
        citations=tuple(dict.fromkeys((*((GOLDEN,) if expect == "read" else ()), RESERVED, citation, IGNORE,
                                       *base_needs(base)))),
        notes=" ".join(filter(None, (HEADER_NOTE[form], MOVES, needs_note(base)))),
    )


def cases() -> list[Case]:
    out = []
    for slug, (struct, citation) in STRUCTS.items():
        for form in FORMS:
            out.append(_page("page-index", slug, struct, citation, form))
    for slug, union in UNIONS.items():
        for form in FORMS:
            case = _page("page-index", slug, union, BLOOM, form, expect="either")
            out.append(replace(case, kind="nonconforming", notes=case.notes + " A Thrift union: an extension beside "
                               "its one set field makes two (docs/spec-notes.md#unions)."))
    out += [
        _page("page-index", "page-header", "PageHeader", TOTALS, which=0, suffix="-first", size=300),
        _page("page-index", "page-header", "PageHeader", TOTALS, which=-1, suffix="-last", size=300),
        _page("page-index", "page-location", "PageLocation", LOCATION, which=0, suffix="-first"),
        _page("page-index", "page-header", "PageHeader", TOTALS, which=0, suffix="-64KiB", size=64 << 10),
    ]
    for form in FORMS:
        out.append(Case(
            id=f"pages/multi/every-page-level-struct/{form}-header",
            title="an extension in every struct outside the footer of 'page-index' at once (unions aside)",
            kind="golden", base="page-index",
            mutations=tuple(ExtendPageLevel(struct=s, which="all", header=form, payload=Payload.random(24))
                            for s, _ in STRUCTS.values()),
            expect={"legacy": "read"}, citations=(GOLDEN, RESERVED, PAGE_INDEX, BLOOM),
            notes=f"{HEADER_NOTE[form]} {MOVES}"))
    for slug in V2_STRUCTS:
        struct, citation = STRUCTS.get(slug, ("DataPageHeaderV2", TOTALS))
        for form in FORMS:
            out.append(_page("data-page-v2", slug, struct, citation, form))
    for codec in CODECS:
        for slug in CODEC_STRUCTS:
            struct, citation = STRUCTS[slug]
            out.append(_page(f"codec-{codec}", slug, struct, citation))
    # Every page header of every chunk in the bases without a page index (nothing in the footer points between
    # pages there, but data and dictionary page offsets of later chunks still move).
    for base in EXTENSION_BASES:
        for form in FORMS if base != "wide" else ("zigzag",):
            out.append(_page(base, "page-header", "PageHeader", TOTALS, form, size=24))
    out.append(_page("multi-row-group", "data-page-header", "DataPageHeader", TOTALS))
    out.append(_page("dictionary", "dictionary-page-header", "DictionaryPageHeader", TOTALS))
    out.append(_page("all-types", "page-header", "PageHeader", TOTALS, size=24))
    return out
