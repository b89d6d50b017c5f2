"""Files other writers write: the tables each writer is given, the named profiles it writes them with, and what the
strict decoder and the reference reader make of a written file (corpus/parquet/writing.py judges it, citing the
spec; app/writers.py runs the writers).

A writer gets a base table (bases.base_table) as an Arrow IPC file and writes it through its own public API, with
its defaults (`default`) or a profile; a profile names a feature of the format, never a library's option (each
adapter maps it to its own options, or does not write it).
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pyarrow as pa

from parquet_conformance.generators.canonical import canonical_table
from parquet_conformance.generators.parquet import layout
from parquet_conformance.generators.parquet.bases import base_expected, base_table
from parquet_conformance.generators.parquet.footer import FooterError, ParquetFooter, Problem, finding, read_footer
from parquet_conformance.generators.parquet.reference import ReferenceError, read_table
from parquet_conformance.generators.parquet.strict import check_file
from parquet_conformance.generators.parquet.uses import uses
from parquet_conformance.generators.parquet.write_sizes import PAGE_BYTES, PAGE_ROWS, ROW_GROUP_ROWS

# The bases every writer writes with its defaults; a profile is written on the paged table alone (several pages and
# row groups, types every writer has), so that the cost grows with profiles, not profiles x tables.
DEFAULT_TABLES = ("flat", "nested", "multi-row-group", "dictionary", "wide", "all-types", "page-index")
PROFILE_TABLES = ("page-index",)


@dataclass(frozen=True)
class WriteProfile:
    name: str
    description: str
    tables: tuple[str, ...] = PROFILE_TABLES


PROFILES = {p.name: p for p in [
    WriteProfile("default", "the writer's defaults, as a user calls it with no option", DEFAULT_TABLES),
    WriteProfile("zstd", "pages compressed with ZSTD (CompressionCodec ZSTD = 6)"),
    WriteProfile("v2", "data pages of type DATA_PAGE_V2 (PageType 3)"),
    WriteProfile("no-dictionary", "no dictionary encoding: no dictionary page, values PLAIN (or the writer's other "
                                  "non-dictionary encodings)"),
    WriteProfile("no-statistics", "no min/max statistics in ColumnMetaData (and none in page headers)"),
    WriteProfile("page-index", f"a ColumnIndex and an OffsetIndex for every column chunk, of pages of about "
                               f"{PAGE_BYTES} bytes (or {PAGE_ROWS} rows): several per chunk"),
    WriteProfile("row-groups", f"several row groups: at most {ROW_GROUP_ROWS} rows each"),
]}


def jobs() -> Iterator[tuple[str, str]]:
    """(profile, table) of every file a writer is asked for, in a stable order."""
    for profile in PROFILES.values():
        for table in profile.tables:
            yield profile.name, table


@cache
def table_ipc(table: str) -> bytes:
    """The base table as an Arrow IPC file: what every writer is given."""
    data = base_table(table)
    sink = io.BytesIO()
    with pa.ipc.new_file(sink, data.schema) as writer:
        writer.write_table(data)
    return sink.getvalue()


@dataclass
class WrittenCheck:
    """What our side makes of a written file: the strict decoder's objections (`problems`; `decodes` False when no
    Thrift reader decodes the footer), the reading of its data (by the reference reader, or by pyarrow alone where the
    reference refuses the file) and how it differs from the table the writer was given."""

    decodes: bool
    problems: list[Problem]
    struct_of: dict[str, str]  # path of each struct the file holds -> its name in parquet.thrift
    reading: dict[str, Any] | None  # canonical data read back
    read_by: str | None  # "reference" | "pyarrow"
    read_error: str | None
    differing: list[str] = field(default_factory=list)  # columns whose values differ from the table's
    created_by: str | None = None
    codecs: frozenset[int] = frozenset()  # CompressionCodec values of its column chunks
    footer_structs: frozenset[str] = frozenset()
    page_structs: frozenset[str] = frozenset()
    features: tuple[str, ...] = ()  # the apache/parquet-site feature ids the file uses (generators/parquet/uses.py)


def expected(table: str, columns: Sequence[str] | None = None) -> dict[str, Any]:
    """The table's data (of those columns) in canonical form."""
    data = base_expected(table)
    if columns is None:
        return data
    keep = [data["columns"].index(c) for c in columns]
    return {"columns": list(columns), "rows": [[row[i] for i in keep] for row in data["rows"]]}


def check(table: str, data: bytes, columns: Sequence[str] | None = None) -> WrittenCheck:
    """The strict decoder on the whole file (footer, page headers, page index), then the data read back."""
    try:
        footer, found = check_file(data)
    except (FooterError, RecursionError) as e:
        return WrittenCheck(False, [Problem("finding", "footer", "", f"the footer does not decode: {e}")], {},
                            None, None, None)
    problems = [p for p in found if p.rule != "signature"] + v2_row_findings(footer)
    structs = layout.all_structs(footer)
    meta = [r for r in footer.structs() if r.name == "ColumnMetaData"]
    created = footer.root.value("created_by")
    result = WrittenCheck(
        True, problems, {r.path: r.name for r in structs}, None, None, None,
        created_by=created.decode("utf-8", "replace") if isinstance(created, bytes) else None,
        codecs=frozenset(md.value("codec") for md in meta if md.value("codec") is not None),
        footer_structs=frozenset(r.name for r in footer.structs()),
        page_structs=frozenset(name for name, _ in layout.page_level_paths(footer)), features=uses(footer))
    try:
        arrow = read_table(data)[0]
        result.problems += _not_utf8(arrow)
        result.reading, result.read_by = canonical_table(arrow), "reference"
    except (ReferenceError, FooterError) as e:
        result.read_error = f"the reference reader refuses it: {e}"
    except Exception as e:  # pyarrow's own refusal, under the strict decoder
        result.read_error = f"the reference reader (pyarrow) fails: {type(e).__name__}: {e}"
    if result.reading is None and problems:  # what pyarrow alone makes of a file the strict decoder objects to
        try:
            import pyarrow.parquet as pq

            arrow = pq.read_table(pa.BufferReader(data))
            result.problems += _not_utf8(arrow)
            result.reading, result.read_by = canonical_table(arrow), "pyarrow"
        except Exception as e:
            result.read_error = f"{result.read_error}; pyarrow alone fails too: {type(e).__name__}: {e}"
    if result.reading is not None:
        result.differing = differing_columns(expected(table, columns), result.reading)
    return result


def v2_row_findings(footer: ParquetFooter) -> list[Problem]:
    """A rule between page headers and the footer that the strict decoder leaves to readers: the DATA_PAGE_V2 pages of
    a chunk hold the row group's rows, no more (parquet.thrift DataPageHeaderV2.num_rows: "Number of rows in this
    data page. ... rows must **not** be split across page boundaries"), so their num_rows add up to
    RowGroup.num_rows. A writer that counts values there (a repeated column's) breaks it."""
    out = []
    for rg in footer.row_groups():
        for cc in rg.children("columns"):
            md = cc.child("meta_data") if cc.get("crypto_metadata") is None else None
            pages = layout.chunk_pages(footer, md) if md is not None else None
            v2 = [p for p in pages or [] if p.rows is not None]
            if v2 and len(v2) == len([p for p in pages or [] if p.type != layout.DICTIONARY_PAGE]):
                rows = sum(p.rows or 0 for p in v2)
                if rows != rg.value("num_rows"):
                    out.append(finding("v2-rows", cc.path, f"its DATA_PAGE_V2 pages hold {rows} rows, the row group "
                                                           f"{rg.value('num_rows')}"))
    return out


def _bad_texts(table: pa.Table) -> list[str]:
    """Columns of text (a STRING or JSON annotation read as Arrow strings) holding bytes that are not UTF-8."""
    bad = []
    for name, column in zip(table.column_names, table.columns, strict=True):
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            try:
                column.validate(full=True)
            except pa.ArrowInvalid:
                bad.append(name)
    return bad


def _not_utf8(table: pa.Table) -> list[Problem]:
    """A data-level rule of the written file (LogicalTypes.md, STRING: "the byte array should be interpreted as a
    UTF-8 encoded character string"), on its top-level text columns."""
    return [finding("utf8", name, "values that are not UTF-8 under a STRING annotation") for name in _bad_texts(table)]


def differing_columns(want: dict[str, Any], reading: dict[str, Any]) -> list[str]:
    """Columns of `want` (canonical data) whose values the reading does not hold, missing ones included; an extra
    column counts as differing too, and so do missing or extra rows."""
    names, wanted = list(reading["columns"]), list(want["columns"])
    if len(reading["rows"]) != len(want["rows"]):
        return ["(rows)"]
    out = []
    for i, name in enumerate(wanted):
        j = names.index(name) if name in names else None
        if j is None or [row[i] for row in want["rows"]] != [row[j] for row in reading["rows"]]:
            out.append(name)
    return out + [n for n in names if n not in wanted]


def readable_footer(data: bytes) -> bool:
    """Whether a Thrift reader decodes the footer at all (the page-level variants need that much)."""
    try:
        read_footer(data)
    except (FooterError, RecursionError):
        return False
    return True
