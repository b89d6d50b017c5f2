"""Skip overhead in the reports: `bench/skip_overhead.py --out DIR` writes DIR/skip-overhead.json
(conformance/app/overhead.py measures it); the reports of DIR then show it as a table (text, Markdown, HTML) and a
chart per reader (SVG, matplotlib, the same rows give the same bytes). A run without the file has no such section.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path

from parquet_conformance.conformance.harness.model import Overhead
from parquet_conformance.corpus.errors import UsageError
from parquet_conformance.reports.markdown import cell_text
from parquet_conformance.reports.model import ResultsDocument

FILE = "skip-overhead.json"
ABOUT = ("Time to open and read each base with a FileMetaData extension of each size, relative to the base without "
         "one (median of the library's own time; `!`: the extra time exceeds 10x reading the extension's bytes "
         "once). Bytes read: the worker's read() calls over one read of the largest file. Measured by "
         "bench/skip_overhead.py.")


@dataclass(frozen=True)
class Line:
    """One (adapter, base): its rows by extension size (None: the base as it is)."""

    adapter: str
    version: str | None
    base: str
    by_size: dict[int | None, Overhead]

    @property
    def plain_ms(self) -> str:
        plain = self.by_size.get(None)
        return "-" if plain is None else plain.outcome if plain.seconds is None else f"{1000 * plain.seconds:.1f}"

    def ratio(self, size: int) -> str:
        r = self.by_size.get(size)
        return "-" if r is None or r.ratio is None else f"{r.ratio:.2f}x{'!' if r.flagged else ''}"

    def read_bytes(self, size: int) -> str:
        r = self.by_size.get(size)
        return "-" if r is None or r.bytes_read is None else f"{r.bytes_read / (1 << 20):.1f} MiB"


def load(out: Path) -> list[Overhead] | None:
    """OUT/skip-overhead.json's rows; None without one; UsageError (one line) for a file that is not one."""
    path = out / FILE
    if not path.is_file():
        return None
    try:
        return [Overhead.from_json(obj) for obj in json.loads(path.read_text())]
    except (ValueError, TypeError, KeyError) as e:  # not JSON, not a list of rows, a row without a field
        raise UsageError(f"{path}: not a skip-overhead file of bench/skip_overhead.py ({type(e).__name__}: "
                         f"{str(e)[:200]})") from None


def lines(rows: list[Overhead]) -> list[Line]:
    out: dict[tuple[str, str], Line] = {}
    for r in rows:
        line = out.setdefault((r.adapter, r.base), Line(r.adapter, r.version, r.base, {}))
        line.by_size[r.size] = r
    return list(out.values())


def sizes(rows: list[Overhead]) -> list[int]:
    return sorted({r.size for r in rows if r.size is not None})


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
    out += [f"| {cell_text(ln.adapter)} | {cell_text(ln.version or '-')} | {ln.base} | {ln.plain_ms} | "
            + " | ".join(ln.ratio(s) for s in cols) + f" | {ln.read_bytes(cols[-1]) if cols else '-'} |"
            for ln in lines(rows)]
    out += ["", f"Flagged: {', '.join(flagged)}." if flagged else "No reader flagged."]
    return "\n".join(out) + "\n"


def chart_svg(rows: list[Overhead]) -> str:
    """A panel per reader: its time ratio against the extension size, a line per base."""
    import matplotlib
    from matplotlib.figure import Figure

    adapters = sorted({r.adapter for r in rows})
    cols = sizes(rows)
    ncols = min(4, len(adapters)) or 1
    nrows = max(1, -(-len(adapters) // ncols))
    with matplotlib.rc_context({"svg.hashsalt": "parquet-conformance", "svg.fonttype": "none",
                                "font.family": "DejaVu Sans", "font.size": 8}):
        fig = Figure(figsize=(2.6 * ncols, 2.2 * nrows), layout="constrained")
        axes = fig.subplots(nrows, ncols, squeeze=False, sharey=True)
        for i, ax in enumerate(axes.flat):
            if i >= len(adapters):
                ax.set_visible(False)
                continue
            for ln in (ln for ln in lines(rows) if ln.adapter == adapters[i]):
                points = [(k, r.ratio) for k, s in enumerate(cols)
                          if (r := ln.by_size.get(s)) is not None and r.ratio is not None]
                ax.plot([k for k, _ in points], [y for _, y in points], marker="o", linewidth=1.2, label=ln.base)
                flags = [k for k, s in enumerate(cols) if (r := ln.by_size.get(s)) is not None and r.flagged]
                ax.plot(flags, [ln.by_size[cols[k]].ratio for k in flags], "rx", markersize=9)
            ax.axhline(1.0, color="grey", linewidth=0.6)
            ax.set_xticks(range(len(cols)), [Overhead.size_text(s) for s in cols])
            ax.set_title(adapters[i])
            ax.set_yscale("log")
            ax.grid(True, alpha=0.3)
            if i % ncols == 0:
                ax.set_ylabel("time / no extension")
            if i == 0:
                ax.legend(fontsize=7, frameon=False)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": "parquet-conformance"})
    return buf.getvalue()


class SkipOverheadReport:
    """skip-overhead.md and skip-overhead.svg, when the run's directory has skip-overhead.json."""

    name = "skip-overhead"

    def write(self, doc: ResultsDocument, out: Path) -> list[Path]:
        rows = load(out)
        if not rows:
            return []
        svg, md = out / "skip-overhead.svg", out / "skip-overhead.md"
        svg.write_text(chart_svg(rows))
        md.write_text(markdown(rows, svg.name))
        return [svg, md]


FORMAT = SkipOverheadReport()
