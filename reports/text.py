"""The one helper module the report formats share (no format imports another): text made safe for XML, Markdown
and terminals, a cell's detail in one paragraph, release order and implementation families, the HTML templates'
environment, and the skip-overhead table and chart that report.html and skip-overhead.md both draw."""

from __future__ import annotations

import hashlib
import html
import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jinja2

from parquet_conformance.conformance.harness.model import Cell, Overhead, Verdict
from parquet_conformance.corpus.model import NAME_RE
from parquet_conformance.reports.datadiff import describe
from parquet_conformance.reports.model import DataDiff

MAX_FILE_NAME = 100  # characters of a name a report makes a file of; longer or odd names are hashed


def chart_rc(font_size: int) -> Any:
    """matplotlib settings of every chart: the same data gives the same bytes (a fixed hash salt, text kept as
    text), and names are drawn as given: math text would read `$...$` in a version string as a formula."""
    return {"svg.hashsalt": "parquet-conformance", "svg.fonttype": "none", "font.family": "DejaVu Sans",
            "font.size": font_size, "text.parse_math": False, "text.usetex": False}

# XML 1.0 cannot carry these at all, escaped or not.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def detail(cell: Cell, diff: DataDiff | None = None) -> str:
    """Why a cell is what it is, in one paragraph: the expectation, the outcome, the error or the data (with its
    diff against the expected data, for wrong data)."""
    text = f"expected {cell.expected} ({cell.role}), got {cell.outcome}"
    if cell.disagreement:
        text += f"; attempts disagree: {cell.disagreement}"
    if cell.rows is not None:
        text += f": {cell.rows} rows, data {cell.data_hash}"
    if cell.error_class or cell.error_message:
        text += f"\n{cell.error_class or '-'}: {cell.error_message or ''}"
    if diff is not None:
        text += "\n" + describe(diff)
    return text


def file_name(name: str) -> str:
    """A name (an adapter, a segment of a case id) fit to be one file name: itself when it is a checked name of at
    most MAX_FILE_NAME characters; else a readable prefix and a digest of the whole, so that no name from a results
    dataset, however long or odd, can make a path too long or lead out of its folder."""
    if NAME_RE.fullmatch(name) and len(name) <= MAX_FILE_NAME:
        return name
    prefix = re.sub(r"[^A-Za-z0-9._+-]+", "-", name)[:40].strip(".-") or "name"
    return f"{prefix}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"


def cell_text(text: object) -> str:
    """Safe inside a Markdown table cell: one line, `|` and backticks escaped, HTML escaped, no control characters."""
    return " ".join(html.escape(xml_text(str(text))).replace("|", "\\|").replace("`", "\\`").split())


def version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """Release order (1.9 < 1.10), as conformance/harness/envs.py orders releases."""
    return tuple((1, int(p)) if p.isdigit() else (0, p) for p in re.findall(r"\d+|[A-Za-z]+", version))


def family_name(adapter: str, version: str | None) -> str:
    """The implementation a row belongs to: `polars-1.40.1` (a release, version 1.40.1) is polars."""
    return adapter.removesuffix(f"-{version}") if version else adapter


SYMBOL = {Verdict.PASS: "✓", Verdict.WRONG_DATA: "WRONG", Verdict.CRASH: "crash", Verdict.HANG: "hang",
          Verdict.REJECTED_VALID: "rej", Verdict.ACCEPTED_INVALID: "acc", Verdict.WRONG_METADATA: "meta",
          Verdict.FLAKY: "flaky", Verdict.SKIP: "–", Verdict.HARNESS_ERROR: "ours"}
def css_class(verdict: Verdict) -> str:
    return verdict.value.replace(":", "-")


Link = Callable[[str], str]


@dataclass(frozen=True)
class Links:
    """Where the site's pages are, from the page being rendered (report.html has none)."""

    case: Link | None = None
    impl: Link | None = None


def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("parquet_conformance.reports", "templates"),
                             autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
                             undefined=jinja2.StrictUndefined)
    env.globals.update(symbol=SYMBOL, css=css_class, verdicts=list(Verdict))
    return env



# -- skip overhead -------------------------------------------------------------------------------

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

    def bytes_read(self, size: int) -> str:
        r = self.by_size.get(size)
        return "-" if r is None or r.bytes_read is None else f"{r.bytes_read / (1 << 20):.1f} MiB"


def lines(rows: list[Overhead]) -> list[Line]:
    out: dict[tuple[str, str], Line] = {}
    for r in rows:
        line = out.setdefault((r.adapter, r.base), Line(r.adapter, r.version, r.base, {}))
        line.by_size[r.size] = r
    return list(out.values())


def sizes(rows: list[Overhead]) -> list[int]:
    return sorted({r.size for r in rows if r.size is not None})


def overhead_chart_svg(rows: list[Overhead]) -> str:
    """A panel per reader: its time ratio against the extension size, a line per base."""
    import matplotlib
    from matplotlib.figure import Figure

    adapters = sorted({r.adapter for r in rows})
    cols = sizes(rows)
    ncols = min(4, len(adapters)) or 1
    nrows = max(1, -(-len(adapters) // ncols))
    with matplotlib.rc_context(chart_rc(8)):
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


