"""One implementation's page (report.html's implementation view and the site's implementation pages): its cells that
did not pass, each with what happened in one line, its mark against the comparison (new, known, ...), and whether
the failure is its own ("only here") or shared with other implementations of the track on the same case (a shared
failure points at the case or at a common engine, an own one at the implementation)."""

from __future__ import annotations

from dataclasses import dataclass

from parquet_conformance.conformance.harness.model import Cell, Verdict
from parquet_conformance.reports.model import CellMark, ResultsDocument
from parquet_conformance.reports.text import registered_name, severity, what_happened


@dataclass(frozen=True)
class Failure:
    cell: Cell
    what: str  # what happened, in one line
    shared: list[str] | None  # the other implementations failing this case (None: not a failure, e.g. flaky)
    mark: CellMark | None

    @property
    def sharing(self) -> str:
        if self.shared is None:
            return "–"
        return "only here" if not self.shared else f"shared with {len(self.shared)}"


def failing_families(doc: ResultsDocument) -> dict[str, set[str]]:
    """case -> the implementations (releases of one counted once) with a failing cell on it."""
    out: dict[str, set[str]] = {}
    for c in doc.cells:
        if c.verdict.is_failure:
            out.setdefault(c.case, set()).add(registered_name(doc, c.adapter, c.version))
    return out


def failures(doc: ResultsDocument, adapter: str, families: dict[str, set[str]] | None = None) -> list[Failure]:
    """The adapter's cells that neither pass nor are skipped, worst first, then as the document lists them."""
    families = failing_families(doc) if families is None else families
    out = []
    for c in doc.cells:
        if c.adapter != adapter or c.verdict in (Verdict.PASS, Verdict.SKIP):
            continue
        own = registered_name(doc, c.adapter, c.version)
        shared = sorted(families.get(c.case, set()) - {own}) if c.verdict.is_failure else None
        out.append(Failure(c, what_happened(c, doc.diff_of(c)), shared, doc.mark_of(c)))
    return sorted(out, key=lambda f: severity(f.cell.verdict))


def fixed(doc: ResultsDocument, adapter: str) -> list[CellMark]:
    """The adapter's cells that failed in what the run is compared with and pass now."""
    if doc.comparison is None:
        return []
    return [m for m in doc.comparison.marks if m.adapter == adapter and m.mark == "fixed"]
