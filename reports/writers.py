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

from parquet_conformance.conformance.harness.judge import fails_alike
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
        """reads | refuses | fails | skip | ours: what a user of the reader meets."""
        v = self.cell.verdict
        if v == Verdict.HARNESS_ERROR:
            return "ours"
        if v == Verdict.SKIP:
            return "skip"
        if v in (Verdict.PASS, Verdict.REJECTED_VALID) and self.cell.outcome == "rejected":
            return "refuses"
        return "reads" if v == Verdict.PASS else "fails"


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


def headline(doc: ResultsDocument) -> list[tuple[str, str, list[Entry]]]:
    """(writer, reader, its entries) where a reader refuses or fails a writer's files as written, beyond the table."""
    for grid in grids(doc):
        if grid.variant == "as-written":
            return [(w, r, grid.cells[(w, r)].own) for w in grid.writers for r in grid.readers
                    if (w, r) in grid.cells and grid.cells[(w, r)].own]
    return []


def _writer_label(w: WriterCell) -> str:
    return f"{w.writer} {w.version}" if w.version else w.writer


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
        f"{cell_text(e.cell.case.split('/', 2)[2])} {e.cell.outcome} ({e.cell.verdict})" for e in es[:4])
        + (f" (+{len(es) - 4})" if len(es) > 4 else "") for w, r, es in lines] or ["- none"]
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
                                        writers=writer_rows(doc.writers), counts=verdict_counts(doc.writers),
                                        why=why, table=_table, label=_writer_label, shown=MESSAGE_SHOWN,
                                        variants=VARIANTS))
        md.write_text(markdown(doc))
        return [html, md]


FORMAT = WritersReport()
