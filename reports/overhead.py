"""skip-overhead.md and skip-overhead.svg: the skip overhead a document carries (measured by
app/overhead.py, put into a run's document from DIR/skip-overhead.json by the run job and
`report --rewrite`), as a table and a chart per reader (SVG, matplotlib: the same rows give the same bytes). A
document without it has no such files."""

from __future__ import annotations

from pathlib import Path

from parquet_conformance.conformance.harness.model import Overhead
from parquet_conformance.reports.model import ResultsDocument
from parquet_conformance.reports.text import ABOUT, cell_text, lines, overhead_chart_svg, sizes


def text_table(rows: list[Overhead]) -> str:
    """For a terminal: per adapter and base, milliseconds with no extension, then the ratio at each size
    (`!`: flagged)."""
    cols = sizes(rows)
    out = [f"{'adapter':<16}{'base':<10}{'none ms':>9}" + "".join(f"{Overhead.size_text(s):>10}" for s in cols)]
    out += [f"{ln.adapter:<16}{ln.base:<10}{ln.plain_ms:>9}" + "".join(f"{ln.ratio(s):>10}" for s in cols)
            for ln in lines(rows)]
    return "\n".join(out)


def markdown(rows: list[Overhead], chart: str | None = None) -> str:
    cols = sizes(rows)
    flagged = sorted({f"{r.adapter} ({r.base}, {Overhead.size_text(r.size)})" for r in rows if r.flagged})
    out = ["## Skip overhead", "", ABOUT, ""]
    if chart:
        out += [f"![skip overhead per reader]({chart})", ""]
    out += ["| adapter | version | base | none (ms) | " + " | ".join(Overhead.size_text(s) for s in cols)
            + f" | bytes read ({Overhead.size_text(cols[-1]) if cols else '-'}) |",
            "|---|---|---|---:|" + "---:|" * (len(cols) + 1)]
    out += [f"| {cell_text(ln.adapter)} | {cell_text(ln.version or '-')} | {cell_text(ln.base)} | {ln.plain_ms} | "
            + " | ".join(ln.ratio(s) for s in cols) + f" | {ln.bytes_read(cols[-1]) if cols else '-'} |"
            for ln in lines(rows)]
    out += ["", f"Flagged: {cell_text(', '.join(flagged))}." if flagged else "No reader flagged."]
    return "\n".join(out) + "\n"


class SkipOverheadReport:
    """skip-overhead.md and skip-overhead.svg, when the run's directory has skip-overhead.json."""

    name = "skip-overhead"

    def write(self, doc: ResultsDocument, out: Path) -> list[Path]:
        rows = doc.overhead
        if not rows:
            return []
        svg, md = out / "skip-overhead.svg", out / "skip-overhead.md"
        svg.write_text(overhead_chart_svg(rows), encoding="utf-8")
        md.write_text(markdown(rows, svg.name), encoding="utf-8")
        return [svg, md]


FORMAT = SkipOverheadReport()
