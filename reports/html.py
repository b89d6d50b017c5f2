"""report.html: the matrix of cases x implementations, self-contained (jinja2, autoescaped)."""

from __future__ import annotations

from pathlib import Path

import jinja2

from parquet_conformance.conformance.model import Cell, Verdict
from parquet_conformance.reports.model import ResultsDocument

SYMBOL = {Verdict.PASS: "✓", Verdict.WRONG_DATA: "WRONG", Verdict.CRASH: "crash", Verdict.HANG: "hang",
          Verdict.REJECTED_VALID: "rej", Verdict.ACCEPTED_INVALID: "acc", Verdict.WRONG_METADATA: "meta",
          Verdict.FLAKY: "flaky", Verdict.SKIP: "–", Verdict.HARNESS_ERROR: "ours"}


def css_class(verdict: Verdict) -> str:
    return verdict.value.replace(":", "-")


def render(doc: ResultsDocument) -> str:
    env = jinja2.Environment(loader=jinja2.PackageLoader("parquet_conformance.reports", "templates"),
                             autoescape=jinja2.select_autoescape(default=True, default_for_string=True))
    adapters = [a.adapter for a in doc.adapters]
    grid: dict[str, dict[str, list[Cell]]] = {}
    for cell in doc.cells:
        grid.setdefault(cell.case, {}).setdefault(cell.adapter, []).append(cell)
    groups = sorted({c.group for c in doc.cases})
    return env.get_template("report.html.j2").render(doc=doc, adapters=adapters, grid=grid, groups=groups,
                                                     symbol=SYMBOL, verdicts=list(Verdict), css=css_class)


class Html:
    name = "html"

    def write(self, doc: ResultsDocument, out: Path) -> list[Path]:
        path = out / "report.html"
        path.write_text(render(doc), errors="replace")  # a lone surrogate from another tool's cells: "?"
        return [path]


FORMAT = Html()
