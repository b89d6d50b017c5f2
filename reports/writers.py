"""writers.html and writers.md: the writer x reader matrix a document carries (`run --writers`,
app/writers.py). A document without it has no such files.

- Whose failure each is: a reader failing a written file is the **writer's** fault when our strict decoder finds the
  file breaks a rule of the spec, or when most other readers fail it too; the **reader's** when the other readers
  read it right; the **table's** when the reader fails the track's own file of the same table the same way (a type
  it lacks, say); unclear when the other readers split or there are none. Refusals the spec allows (`either`: a codec
  a reader may lack, a file that breaks a rule) are counted apart: they are nobody's fault.
- The headline: the writers' faults (files other readers cannot read) and the readers' faults (files others read).
- The grid, one per variant (the file as written, and with the track's extensions added: the matrix's `variants`):
  a row per writer, a column per reader, each cell the reader's outcomes over that writer's files with its failures
  by fault; its detail lists each file with its verdict, whose fault, the error or the first differing values, and
  a link to the file.
- Each writer's verdicts: every (profile, table), and each rule a file breaks with the sentence it breaks.
- A warning when the run has no base cells of a written table for a reader: its failures cannot be told from the
  table's (run the `base/*` cases with the writers).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from parquet_conformance.conformance.harness.judge import error_text, fails_alike, normalise
from parquet_conformance.conformance.harness.model import Cell, Verdict, WriterCell, WriterVerdict
from parquet_conformance.reports.datadiff import describe
from parquet_conformance.reports.datadiff import headline as headline_of
from parquet_conformance.reports.model import DataDiff, ResultsDocument, WritersMatrix
from parquet_conformance.reports.text import cell_text, environment

MESSAGE_SHOWN = 600


FAULTS = {"writer": "the writer's: our strict decoder finds the file breaks a rule, or most other readers fail it too",
          "reader": "the reader's: the other readers read this file right",
          "table": "the table's: the reader fails the track's own file of this table the same way",
          "unclear": "unclear: the other readers split, or none read this file"}


@dataclass
class Entry:
    """One reader cell on one written file, with what the grid needs to say about it."""

    cell: Cell
    writer: WriterCell
    file: str  # path of the file, relative to the report
    inherited: bool  # the reader fails the track's own file of the table the same way
    fault: str = ""  # whose failure it is (FAULTS); "" for a cell that does not fail
    diff: DataDiff | None = None  # a wrong-data cell's first differing values

    @property
    def kind(self) -> str:
        """reads | refuses (where the spec lets it) | fails (refusing a file it must read counts) | skip | ours. A read
        in the form the reader's library documents (`representation`) read the file."""
        v = self.cell.verdict
        if v == Verdict.HARNESS_ERROR:
            return "ours"
        if v in (Verdict.SKIP, Verdict.FLAKY):
            return "skip"
        if v == Verdict.REPRESENTATION:
            return "reads"
        if v == Verdict.PASS:
            return "refuses" if self.cell.outcome == "rejected" else "reads"
        return "fails"


def fault(entry: Entry, peers: list[Entry]) -> str:
    """Whose failure a failing entry is (FAULTS): the table's, else the writer's when the strict decoder finds the file
    breaks a rule or most of the other readers that judged it fail it, the reader's when most of them read it right.
    A peer that fails the table itself the same way says nothing about the file."""
    if entry.inherited:
        return "table"
    if entry.writer.verdict == WriterVerdict.NONCONFORMING:
        return "writer"
    judged = [p.cell for p in peers if p.cell.adapter != entry.cell.adapter and p.cell.verdict.judged
              and p.cell.verdict != Verdict.FLAKY and not (p.kind == "fails" and p.inherited)]
    failing = sum(c.verdict.is_failure for c in judged)
    if judged and 2 * failing > len(judged):
        return "writer"
    if judged and 2 * failing < len(judged):
        return "reader"
    return "unclear"


@dataclass
class GridCell:
    entries: list[Entry] = field(default_factory=list)

    @property
    def counts(self) -> Counter[str]:
        return Counter(e.kind for e in self.entries)

    @property
    def faults(self) -> Counter[str]:
        """Failures by whose they are, the table's among them."""
        return Counter(e.fault for e in self.entries if e.kind == "fails")

    @property
    def own(self) -> list[Entry]:
        """The failing entries that are not the table's (the writer's, the reader's or unclear)."""
        return [e for e in self.entries if e.kind == "fails" and e.fault != "table"]

    @property
    def css(self) -> str:
        f = self.faults
        if f["writer"]:
            return "fail-writer"
        if f["reader"] or f["unclear"]:
            return "fail-reader"
        return "refuses" if self.counts["refuses"] else "pass" if self.counts["reads"] else "skip"

    @property
    def text(self) -> str:
        c, f = self.counts, self.faults
        judged = c["reads"] + c["refuses"] + c["fails"]
        if not judged:
            return "–"
        marks = [f"{letter}{f[k]}" for letter, k in (("W", "writer"), ("R", "reader"), ("?", "unclear")) if f[k]]
        return " ".join([f"{c['reads']}/{judged}", *marks] + ([f"r{c['refuses']}"] if c["refuses"] else []))


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
    out: list[Entry] = []
    peers: dict[str, list[Entry]] = {}
    for cell in matrix.cells:
        writer = by_case.get(cell.case)
        if writer is None:
            continue
        inherited = fails_alike(cell, main.get((f"base/{writer.table}", cell.adapter)))
        entry = Entry(cell, writer, f"{matrix.corpus}/{matrix.files.get(cell.case, '')}", inherited,
                      diff=matrix.diff_of(cell))
        peers.setdefault(cell.case, []).append(entry)
        out.append(entry)
    for entry in out:
        if entry.kind == "fails":
            entry.fault = fault(entry, peers[entry.cell.case])
    return out


def missing_bases(doc: ResultsDocument) -> list[str]:
    """The `base/<table>` cases of the written tables that the run did not read with every reader of the matrix:
    without them a reader's failure on a written file cannot be told from its failure on the table itself."""
    matrix = doc.writers
    assert matrix is not None
    readers = {c.adapter for c in matrix.cells}
    ran = {(c.case, c.adapter) for c in doc.cells}
    return sorted({f"base/{w.table}" for w in matrix.writers if w.cases
                   for r in readers if (f"base/{w.table}", r) not in ran})


def variants(matrix: WritersMatrix) -> dict[str, str]:
    """The matrix's variants with what each is, in the track's order (else by name, as the cells name them)."""
    named = dict.fromkeys(sorted({c.case.rsplit("/", 1)[-1] for c in matrix.cells}))
    return matrix.variants or {v: v for v in named}


def grids(doc: ResultsDocument) -> list[Grid]:
    found = entries(doc)
    writers = list(dict.fromkeys(_writer_label(e.writer) for e in found))
    readers = list(dict.fromkeys(e.cell.adapter for e in found))
    out = []
    for variant, title in variants(doc.writers).items() if doc.writers else ():
        cells: dict[tuple[str, str], GridCell] = {}
        for e in found:
            if e.cell.case.rsplit("/", 1)[-1] == variant:
                cells.setdefault((_writer_label(e.writer), e.cell.adapter), GridCell()).entries.append(e)
        if cells:
            out.append(Grid(variant, title, writers, readers, cells))
    return out


def _as_written(doc: ResultsDocument) -> Grid | None:
    return next((g for g in grids(doc) if g.variant == "as-written"), None)


def headline(doc: ResultsDocument, whose: str = "") -> list[tuple[str, str, list[Entry]]]:
    """(writer, reader, its failing entries) where a reader fails a writer's files as written (wrong data, a crash, a
    hang, or refusing a file it must read), beyond what it does with the track's own file of the table; `whose`:
    only those of that fault (FAULTS)."""
    grid = _as_written(doc)
    if grid is None:
        return []
    out = []
    for w in grid.writers:
        for r in grid.readers:
            failing = [e for e in grid.cells[(w, r)].own if not whose or e.fault == whose] if (
                w, r) in grid.cells else []
            if failing:
                out.append((w, r, failing))
    return out


def refusals(doc: ResultsDocument) -> list[tuple[str, str, list[str], list[Entry]]]:
    """(reader, its error signature, the writers, the entries): the files as written a reader refuses where the
    spec lets it (`either`: a codec it may lack, a writer's rule broken), grouped by why, most files first."""
    grid = _as_written(doc)
    groups: dict[tuple[str, str], list[Entry]] = {}
    for cell in (grid.cells.values() if grid else []):
        for e in cell.entries:
            if e.kind == "refuses" and not e.inherited:
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
           "cells. A grid cell: files read right / files judged, then the failures by whose they are (`W`: the "
           "writer's, `R`: the reader's, `?`: unclear) and the refusals the spec allows (`r`); a failure the reader "
           "shows on the track's own file of the same table is the table's, not counted.", ""]
    missing = missing_bases(doc)
    if missing:
        out += [f"**Warning**: the run has no cells of {cell_text(', '.join(missing[:6]))}"
                + (f" (+{len(missing) - 6})" if len(missing) > 6 else "") + " for some readers: their failures on "
                "written files cannot be told from the table's. Run the `base/*` cases with the writers.", ""]
    for whose, title in (("writer", "The writers' faults: files other readers cannot read either (as written)"),
                         ("reader", "The readers' faults: files the other readers read right (as written)"),
                         ("unclear", "Unclear: the other readers split, or none read the file (as written)")):
        lines = headline(doc, whose)
        if whose == "unclear" and not lines:
            continue
        out += [f"### {title}", ""]
        out += [f"- **{cell_text(w)}** → {cell_text(r)}: " + "; ".join(
            f"{cell_text(_file(e))} {e.cell.verdict}" + (f" ({cell_text(_short(e))})" if _short(e) else "")
            for e in es[:3]) + (f" (+{len(es) - 3})" if len(es) > 3 else "") for w, r, es in lines] or ["- none"]
        out.append("")
    out += ["### Refusals the spec allows (as written)", "",
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
    """Why an entry failed, in a line: its error, or the first values that differ."""
    if e.cell.error_message:
        return " ".join(e.cell.error_message.split())[:120]
    return headline_of(e.diff) if e.diff is not None else ""


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
        html.write_text(template.render(doc=doc, matrix=doc.writers, grids=grids(doc), headline=partial(headline, doc),
                                        faults=FAULTS, missing=missing_bases(doc), describe=describe,
                                        refusals=refusals(doc), file=_file, short=_short,
                                        writers=writer_rows(doc.writers), counts=verdict_counts(doc.writers),
                                        why=why, table=_table, label=_writer_label, shown=MESSAGE_SHOWN,
                                        variants=variants(doc.writers), verdicts=[str(v) for v in WriterVerdict]),
                        encoding="utf-8")
        md.write_text(markdown(doc), encoding="utf-8")
        return [html, md]


FORMAT = WritersReport()
