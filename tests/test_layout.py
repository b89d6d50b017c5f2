"""Moving data: extensions outside the footer, every offset fixed, checked by our strict decoder, by pyarrow's
metadata and data, and by DataFusion reading through the page index and bloom filters (arrow-rs prunes pages
with the OffsetIndex and row groups with the bloom filters, so a stale offset fails its query)."""

from __future__ import annotations

import io
import random
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from parquet_conformance.generators.parquet import layout
from parquet_conformance.generators.parquet.bases import PAGE_LEVEL_BASES, WRITER_BASES, base_bytes
from parquet_conformance.generators.parquet.edits import Edit, apply_edits, extension_field
from parquet_conformance.generators.parquet.footer import FooterError
from parquet_conformance.generators.parquet.mutations import Context
from parquet_conformance.generators.parquet.mutations.extension import Payload
from parquet_conformance.generators.parquet.mutations.pages import PAGE_LEVEL, ExtendPageLevel
from parquet_conformance.generators.parquet.strict import check_file, parse_file, strict_objections

QUERY = "SELECT * FROM t WHERE id = 777 OR key = 'k030616' OR (id BETWEEN 100 AND 130) ORDER BY id"


def datafusion_query(data: bytes, tmp_path: Path, sql: str = QUERY) -> pa.Table:
    datafusion = pytest.importorskip("datafusion")
    path = tmp_path / f"q{random.random()}.parquet"
    path.write_bytes(data)
    ctx = datafusion.SessionContext()
    ctx.register_parquet("t", str(path))
    return ctx.sql(sql).to_arrow_table()


def locations(data: bytes) -> list[tuple]:
    """What pyarrow's metadata says of every chunk, and the pages our walk finds there."""
    md = pq.read_metadata(io.BytesIO(data))
    footer, problems = check_file(data)  # strict but for unions: an extension in one makes two fields (spec-notes)
    assert not [p for p in strict_objections(problems) if p.rule != "union"], problems
    out = []
    for i, rg in enumerate(footer.row_groups()):
        for j, cc in enumerate(rg.children("columns")):
            col = md.row_group(i).column(j)
            pages = layout.chunk_pages(footer, cc.need("meta_data"))
            first_data = next(p.start for p in pages if p.type != layout.DICTIONARY_PAGE)
            assert col.data_page_offset == first_data
            assert not col.has_dictionary_page or col.dictionary_page_offset == pages[0].start
            assert col.total_compressed_size == pages[-1].end - pages[0].start
            out.append((len(pages), col.has_column_index, col.has_offset_index, col.bloom_filter_offset is not None))
    return out


@pytest.mark.parametrize("struct", [s for s in PAGE_LEVEL if s not in ("Statistics", "DataPageHeaderV2")])
def test_every_page_level_struct_moves_data_and_fixes_offsets(struct: str, tmp_path: Path) -> None:
    data = base_bytes("page-index")
    out = ExtendPageLevel(struct=struct, which="all", payload=Payload.random(300)).apply(
        data, Context(random.Random(0)))
    assert len(out) > len(data)
    assert locations(out) == locations(data)
    assert pq.read_table(io.BytesIO(out)).equals(pq.read_table(io.BytesIO(data)))
    want = datafusion_query(data, tmp_path)
    assert want.num_rows > 30
    assert datafusion_query(out, tmp_path).equals(want)


@pytest.mark.parametrize("base", PAGE_LEVEL_BASES)
def test_every_page_header_of_every_base_with_a_page_index(base: str, tmp_path: Path) -> None:
    data = base_bytes(base)
    out = data
    for struct in ("PageHeader", "OffsetIndex", "ColumnIndex", "BloomFilterHeader"):
        out = ExtendPageLevel(struct=struct, which="all", payload=Payload.random(70)).apply(
            out, Context(random.Random(1)))
    assert pq.read_table(io.BytesIO(out)).equals(pq.read_table(io.BytesIO(data)))
    assert datafusion_query(out, tmp_path).equals(datafusion_query(data, tmp_path))


def test_offsets_that_outgrow_their_varints_settle() -> None:
    """64 KiB in the first page header: every later offset needs a longer varint, so the OffsetIndex grows,
    which moves what follows it again."""
    data = base_bytes("page-index")
    footer = parse_file(data)
    (first,) = layout.select(footer, "PageHeader", 0)
    out = layout.move(footer, layout.before_stops([first], extension_field(bytes(64 << 10))))
    after = parse_file(out)
    grew = [(a.value("offset_index_length"), b.value("offset_index_length"))
            for a, b in zip(*(f.row_groups()[0].children("columns") for f in (footer, after)), strict=True)]
    assert any(new > old for old, new in grew), "no varint grew: the test lost its point"
    assert pq.read_table(io.BytesIO(out)).equals(pq.read_table(io.BytesIO(data)))


@pytest.mark.parametrize(("base", "struct", "message"), [
    ("dictionary", "DictionaryPageHeader", "data_page_offset: .*, the first data page is at"),
    ("page-index", "PageHeader", "column_index: ColumnIndex does not decode"),
    ("page-index", "OffsetIndex", "offset_index: OffsetIndex does not decode"),
    ("page-index", "PageLocation", "offset_index: OffsetIndex does not decode"),
    ("page-index", "BloomFilterHeader", "column_index: ColumnIndex does not decode"),
])
def test_the_strict_decoder_rejects_offsets_left_stale(base: str, struct: str, message: str) -> None:
    """Bytes inserted without fixing the pointers (only the footer length): the stale pointer is a finding (with
    others, such as pages that now overrun their chunk), and the strict decoder rejects the file."""
    data = base_bytes(base)
    refs = layout.select(parse_file(data), struct, 0)
    naive = apply_edits(data, layout.before_stops(refs, extension_field(b"x" * 40)))
    _, problems = check_file(naive)
    assert any(p.level == "finding" and re.search(message, str(p)) for p in problems), problems
    with pytest.raises(FooterError):
        parse_file(naive)


def test_shifts() -> None:
    shifts = layout.Shifts([Edit(10, 10, b"abc"), Edit(20, 22, b"wxyz"), Edit(5, 5, b"")])
    assert [shifts.shifted(p) for p in (0, 10, 11, 20, 22, 30)] == [0, 10, 14, 23, 27, 35]
    assert shifts.grown((0, 10)) == 0 and shifts.grown((0, 11)) == 3 and shifts.grown((11, 40)) == 2


def test_page_structs_are_found_in_every_chunk() -> None:
    footer = parse_file(base_bytes("page-index"))
    names = [name for name, _ in layout.page_level_paths(footer)]
    chunks = sum(len(rg.children("columns")) for rg in footer.row_groups())
    assert names.count("ColumnIndex") == names.count("OffsetIndex") == chunks
    assert names.count("BloomFilterHeader") == 2 * len(footer.row_groups())
    assert names.count("DictionaryPageHeader") == len(footer.row_groups())
    with pytest.raises(ValueError, match="no DataPageHeaderV2"):
        layout.select(footer, "DataPageHeaderV2", 0)


WRITERS_QUERY = "SELECT * FROM t WHERE id = 77 OR name = 'alpha' OR (id BETWEEN 200 AND 230) ORDER BY id"


def test_corpus_page_cases_read_through_the_page_index(corpus_dir: Path, manifest: dict, tmp_path: Path) -> None:
    """Every pages/* and writers/*/pages/* case gives DataFusion's pruned query the base's answer."""
    checked = 0
    for entry in manifest["cases"]:
        sql = QUERY if entry["base"] in PAGE_LEVEL_BASES else WRITERS_QUERY if entry["base"] in WRITER_BASES else None
        if sql and "pages/" in entry["id"] and entry["expect"]["legacy"] == "read":
            got = datafusion_query((corpus_dir / entry["file"]).read_bytes(), tmp_path, sql)
            assert got.equals(datafusion_query(base_bytes(entry["base"]), tmp_path, sql)), entry["id"]
            checked += 1
    assert checked >= 80
