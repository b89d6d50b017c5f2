"""writers.html and writers.md: the writer x reader matrix a document carries (`run --writers`,
conformance/app/writers.py). A document without it has no such files.

- The headline: which writer's files which readers cannot read (refused, wrong data, crash, hang), apart from what
  a reader fails on the track's own file of the same table the same way (the table's, not the writer's).
- The grid, one per variant (the file as written; with extensions in every footer struct; in every struct outside
  the footer): a row per writer, a column per reader, each cell the reader's outcomes over that writer's files; its
  detail lists each file with its verdict, error and a link to the file.
- Each writer's verdicts: every (profile, table), and each rule a file breaks with the sentence it breaks.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from parquet_conformance.conformance.harness.judge import error_text, fails_alike, normalise
from parquet_conformance.conformance.harness.model import Cell, Verdict, WriterCell, WriterVerdict
from parquet_conformance.reports.model import ResultsDocument, WritersMatrix
from parquet_conformance.reports.text import cell_text, environment

VARIANTS = {"as-written": "the files as written", "footer": "with an extension in every footer struct",
            "pages": "with an extension in every struct outside the footer"}
MESSAGE_SHOWN = 600


@dataclass
class Entry:
    """One reader cell on one written file, with what the grid needs to say about it."""

    cell: Cell
    writer: WriterCell
    file: str  # path of the file, relative to the report
    inherited: bool  # the reader fails the track's own file of the table the same way

    @property
    def kind(self) -> str:
        """reads | refuses (where the spec lets it) | fails (refusing a file it must read counts) | skip | ours."""
        v = self.cell.verdict
        if v == Verdict.HARNESS_ERROR:
            return "ours"
        if v == Verdict.SKIP:
            return "skip"
        if v == Verdict.PASS:
            return "refuses" if self.cell.outcome == "rejected" else "reads"
        return "fails"


@dataclass
class GridCell:
    entries: list[Entry] = field(default_factory=list)

    @property
    def counts(self) -> Counter[str]:
        return Counter(e.kind for e in self.entries)

    @property
    def own(self) -> list[Entry]:
        """The entries that are the writer's file's (not inherited from the table)."""
        return [e for e in self.entries if e.kind in ("refuses", "fails") and not e.inherited]

    @property
    def css(self) -> str:
        kinds = {e.kind for e in self.own}
        return "fail" if "fails" in kinds else "refuses" if kinds else "pass" if self.counts["reads"] else "skip"

    @property
    def text(self) -> str:
        c = self.counts
        judged = c["reads"] + c["refuses"] + c["fails"]
        if not judged:
            return "–"
        return f"{c['reads']}/{judged}" + (f" ({len(self.own)}!)" if self.own else "")


@dataclass
class Grid:
    variant: str
    title: str
    writers: list[str]
    readers: list[str]
    cells: dict[tuple[str, str], GridCell]


def entries(doc: ResultsDocument) -> list[Entry]:
    matrix = doc.writers
    assert matrix is not None
    by_case = {case: w for w in matrix.writers for case in w.cases}
    main = {(c.case, c.adapter): c for c in doc.cells}
    out = []
    for cell in matrix.cells:
        writer = by_case.get(cell.case)
        if writer is None:
            continue
        inherited = fails_alike(cell, main.get((f"base/{writer.table}", cell.adapter)))
        out.append(Entry(cell, writer, f"{matrix.corpus}/{matrix.files.get(cell.case, '')}", inherited))
    return out


def grids(doc: ResultsDocument) -> list[Grid]:
    found = entries(doc)
    writers = list(dict.fromkeys(_writer_label(e.writer) for e in found))
    readers = list(dict.fromkeys(e.cell.adapter for e in found))
    out = []
    for variant, title in VARIANTS.items():
        cells: dict[tuple[str, str], GridCell] = {}
        for e in found:
            if e.cell.case.rsplit("/", 1)[-1] == variant:
                cells.setdefault((_writer_label(e.writer), e.cell.adapter), GridCell()).entries.append(e)
        if cells:
            out.append(Grid(variant, title, writers, readers, cells))
    return out


def _as_written(doc: ResultsDocument) -> Grid | None:
    return next((g for g in grids(doc) if g.variant == "as-written"), None)


def headline(doc: ResultsDocument) -> list[tuple[str, str, list[Entry]]]:
    """(writer, reader, its failing entries) where a reader fails a writer's files as written (wrong data, a crash, a
    hang, or refusing a file it must read), beyond what it does with the track's own file of the table."""
    grid = _as_written(doc)
    if grid is None:
        return []
    out = []
    for w in grid.writers:
        for r in grid.readers:
            failing = [e for e in grid.cells[(w, r)].own if e.kind == "fails"] if (w, r) in grid.cells else []
            if failing:
                out.append((w, r, failing))
    return out


def refusals(doc: ResultsDocument) -> list[tuple[str, str, list[str], list[Entry]]]:
    """(reader, its error signature, the writers, the entries): the files as written a reader refuses where the
    spec lets it (`either`: a codec it may lack, a writer's rule broken), grouped by why, most files first."""
    grid = _as_written(doc)
    groups: dict[tuple[str, str], list[Entry]] = {}
    for cell in (grid.cells.values() if grid else []):
        for e in cell.own:
            if e.kind == "refuses":
                why = normalise(error_text(e.cell.error_class, e.cell.error_message, e.cell.outcome))
                groups.setdefault((e.cell.adapter, why), []).append(e)
    return sorted(((r, why, list(dict.fromkeys(_writer_label(e.writer) for e in es)), es)
                   for (r, why), es in groups.items()), key=lambda g: (-len(g[3]), g[0]))


def _writer_label(w: WriterCell) -> str:
    if not w.version:
        return w.writer
    return f"{w.writer} {w.version}" if w.version[:1].isdigit() else f"{w.writer} ({w.version})"


def writer_rows(matrix: WritersMatrix) -> list[WriterCell]:
    return sorted(matrix.writers, key=lambda w: (w.writer, w.profile, w.table, w.columns is not None))


def verdict_counts(matrix: WritersMatrix) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    for w in matrix.writers:
        out.setdefault(_writer_label(w), Counter())[str(w.verdict)] += 1
    return out


def markdown(doc: ResultsDocument) -> str:
    matrix = doc.writers
    assert matrix is not None
    out = ["## Writer x reader matrix", "",
           f"{len(matrix.writers)} files asked of {len(verdict_counts(matrix))} writers; {len(matrix.cells)} reader "
           f"cells. A grid cell: files read right / files judged; `(n!)`: files the reader refuses or fails beyond "
           "what it does with the track's own file of the same table.", "", "### Which readers cannot read which "
           "writer's files (as written)", ""]
    lines = headline(doc)
    out += [f"- **{cell_text(w)}** → {cell_text(r)}: " + "; ".join(
        f"{cell_text(_file(e))} {e.cell.verdict}" + (f" ({cell_text(_short(e))})" if e.cell.error_message else "")
        for e in es[:3]) + (f" (+{len(es) - 3})" if len(es) > 3 else "") for w, r, es in lines] or ["- none"]
    out += ["", "### Refusals the spec allows (as written)", "",
            "A codec the reader may lack, or a file that breaks a rule of the spec (`either`):", ""]
    out += [f"- **{cell_text(r)}** refuses {len(es)} file(s) of {cell_text(', '.join(ws))}: `{cell_text(why)}`"
            for r, why, ws, es in refusals(doc)] or ["- none"]
    for grid in grids(doc):
        out += ["", f"### {grid.variant}: {grid.title}", "", "| writer | " + " | ".join(map(cell_text, grid.readers))
                + " |", "|---|" + "---|" * len(grid.readers)]
        out += [f"| {cell_text(w)} | " + " | ".join(grid.cells[(w, r)].text if (w, r) in grid.cells else "–"
                                                    for r in grid.readers) + " |" for w in grid.writers]
    out += ["", "### Writers' verdicts", "", "| writer | profile | table | verdict | why |", "|---|---|---|---|---|"]
    for w in writer_rows(matrix):
        out.append(f"| {cell_text(_writer_label(w))} | {w.profile} | {cell_text(_table(w))} | {w.verdict} | "
                   f"{cell_text(why(w))} |")
    if matrix.regressions:
        out += ["", f"{len(matrix.regressions)} written files a reader fails are kept in `regressions/`: "
                "`parquet-conformance corpus add-regression --from OUT/regressions --id ID` makes one a case."]
    return "\n".join(out) + "\n"


def _file(e: Entry) -> str:
    """profile/table of the entry's file."""
    return e.cell.case.split("/", 2)[2].rsplit("/", 1)[0]


def _short(e: Entry) -> str:
    return " ".join((e.cell.error_message or "").split())[:120]


def _table(w: WriterCell) -> str:
    return w.table if w.columns is None else f"{w.table} ({len(w.columns)} columns it takes)"


def why(w: WriterCell) -> str:
    """A writer's verdict in one line: its findings' rules, the columns that differ, or its error."""
    if w.verdict == WriterVerdict.NONCONFORMING:
        rules = Counter(f.rule for f in w.findings)
        return "breaks " + ", ".join(f"{r} ({n})" for r, n in rules.items()) + (
            f"; data differs in {', '.join(w.differing)}" if w.differing else "")
    if w.verdict == WriterVerdict.WRONG_DATA:
        return f"data differs in {', '.join(w.differing)}"
    if w.verdict == WriterVerdict.UNVERIFIED:
        return w.read_error or ""
    if w.error_message:
        return f"{w.error_class or ''}: {w.error_message}"[:300]
    return ""


class WritersReport:
    """writers.html and writers.md, when the document has a writer x reader matrix."""

    name = "writers"

    def write(self, doc: ResultsDocument, out: Path) -> list[Path]:
        if doc.writers is None:
            return []
        html, md = out / "writers.html", out / "writers.md"
        template = environment().get_template("writers.html.j2")
        html.write_text(template.render(doc=doc, matrix=doc.writers, grids=grids(doc), headline=headline(doc),
                                        refusals=refusals(doc), file=_file, short=_short,
                                        writers=writer_rows(doc.writers), counts=verdict_counts(doc.writers),
                                        why=why, table=_table, label=_writer_label, shown=MESSAGE_SHOWN,
                                        variants=VARIANTS, verdicts=[str(v) for v in WriterVerdict]))
        md.write_text(markdown(doc))
        return [html, md]


FORMAT = WritersReport()
