"""report.html: the matrix of cases x implementations, self-contained (jinja2, autoescaped; one inline script).

What the page gives (templates/report.html.j2): the scores first; the matrix with one sub-column per version of
an implementation and the engine underneath each; the pruned matrix (rows with identical verdicts merged per case
group, with subtotals per implementation); the error clusters (reports/clusters.py), each a link that filters the
matrix; a detail panel per cell with its data diff; the skip overhead when the document has it (reports/text.py
draws it for this page and skip-overhead.md alike). Every filter and selection lives in the URL fragment, and every
row, cell, column and cluster has an id, so that a link opens the same view.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from parquet_conformance.conformance.harness.chains import root_cause
from parquet_conformance.conformance.harness.model import Cell, Overhead, Verdict
from parquet_conformance.reports.clusters import Cluster, clusters
from parquet_conformance.reports.datadiff import describe
from parquet_conformance.reports.focus import failing_families, failures, fixed
from parquet_conformance.reports.model import AdapterScore, CaseSummary, ResultsDocument, reuse_text
from parquet_conformance.reports.text import (
    ABOUT,
    LEVEL_MEANING,
    MARK_ORDER,
    MARKS_LEGEND,
    MEANING,
    Line,
    Links,
    corpus_href,
    environment,
    family_name,
    lines,
    mark_text,
    overhead_chart_svg,
    severity,
    sizes,
    track_counts,
    version_key,
    what_happened,
)

ENGINE_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"]
MESSAGE_SHOWN = 2000  # characters of an error message in the detail panel (results.json has all)


def engine_of(implementation: str) -> str:
    """The library that parses the file: the `[engine]` a row names (execute.implementation), else the
    implementation itself."""
    found = re.search(r"\[([^\]]+)\]\s*$", implementation)
    return found.group(1) if found else implementation


def engine_key(engine: str) -> str:
    """An engine's name without version or remarks: `arrow-rs 51` and `arrow-rs (via DataFusion)` are arrow-rs."""
    words = []
    for word in re.sub(r"\([^)]*\)", " ", engine).split():
        if word[0].isdigit():
            break
        words.append(word)
    return " ".join(words).lower() or engine.lower()


@dataclass(frozen=True)
class Column:
    """One adapter's column: a release of an implementation (a sub-column of its family)."""

    score: AdapterScore
    family: str
    engine: str
    engine_key: str

    @property
    def adapter(self) -> str:
        return self.score.adapter


@dataclass(frozen=True)
class Family:
    name: str
    track: str
    columns: list[Column]


def columns(doc: ResultsDocument) -> list[Family]:
    """Adapters grouped by implementation (a run with several releases of one has a sub-column each, in release
    order), by track."""
    families: dict[tuple[str, str], list[Column]] = {}
    for s in doc.adapters:
        engine = engine_of(s.implementation)
        col = Column(score=s, family=family_name(s.adapter, s.version), engine=engine, engine_key=engine_key(engine))
        families.setdefault((s.track, col.family), []).append(col)
    return [Family(name=name, track=track, columns=sorted(cols, key=lambda c: version_key(c.score.version or "")))
            for (track, name), cols in sorted(families.items())]


def shared_engines(families: list[Family]) -> dict[str, tuple[str, list[str]]]:
    """engine key -> (colour, families) for every engine under more than one implementation."""
    users: dict[str, set[str]] = {}
    for f in families:
        for c in f.columns:
            users.setdefault(c.engine_key, set()).add(f.name)
    shared = sorted(k for k, names in users.items() if len(names) > 1)
    return {k: (ENGINE_COLOURS[i % len(ENGINE_COLOURS)], sorted(users[k])) for i, k in enumerate(shared)}


def worst(cells: list[Cell]) -> Verdict:
    return min((c.verdict for c in cells), key=severity)


def cell_href(view: str) -> Callable[[Cell], str]:
    """A link to a cell as this page's script reads it: the view, its implementation, the cell."""
    return lambda c: "#" + urlencode({"view": view, "impl": c.adapter, "cell": f"cell:{c.case}:{c.adapter}"})


def sharing_text(shared: list[str]) -> str:
    return "only here: no other implementation fails this case" if not shared else (
        f"shared with {len(shared)}: {', '.join(shared)} fail this case too")


def detail_text(cells: list[Cell], doc: ResultsDocument, families: dict[str, set[str]]) -> str:
    """What the detail panel shows for one (case, adapter): each role judged with what happened, the root cause of
    its error first, the error, the attempts, the data diff; its mark and whether other implementations share it."""
    first = cells[0]
    lines = [f"{first.implementation} {first.version or '(no version)'}"]  # the panel's title names adapter and case
    for c in cells:
        passed = c.verdict == Verdict.PASS  # a pass needs fewer words (most cells pass: the page stays small)
        lines.append(f"role {c.role}: {c.verdict}" + ("" if passed else f" ({MEANING.get(c.verdict, c.verdict)})"))
        lines.append(f"  {what_happened(c)}")
        mark = doc.mark_of(c)
        if mark is not None and doc.comparison is not None:
            lines.append(f"  {mark_text(mark, doc.comparison)}")
        if c.verdict.is_failure:
            own = family_name(c.adapter, c.version)
            lines.append(f"  {sharing_text(sorted(families.get(c.case, set()) - {own}))}")
        if (c.error_class or c.error_message) and not (passed and "\n" not in (c.error_message or "").strip()):
            message = c.error_message or ""
            root = root_cause(message)
            if root:
                lines.append(f"  root cause: {root}")
            if len(message) > MESSAGE_SHOWN:
                message = message[:MESSAGE_SHOWN] + f"… ({len(message)} characters in results.json)"
            lines.append(f"  error: {c.error_class or '-'}: {message}")
        if c.disagreement:
            lines.append(f"  attempts disagree: {c.disagreement}")
        if not passed or c.attempts > 1:
            lines.append(f"  {c.attempts} {'attempt' if c.attempts == 1 else 'attempts'}: the run's read"
                         + (" and a fresh worker's or --repeat rounds'" if c.attempts > 1 else ""))
        if c.previous_case and not passed:
            lines.append(f"  before this file the same worker process read {c.previous_case}")
        diff = doc.diff_of(c)
        if diff is not None:
            lines.append("  " + describe(diff).replace("\n", "\n  "))
    return "\n".join(lines)


@dataclass(frozen=True)
class OverheadView:
    """The skip-overhead section's content (reports/overhead.py)."""

    lines: list[Line]
    sizes: list[int]
    svg: str
    about: str = ABOUT
    size_text: Callable[[int | None], str] = Overhead.size_text


def overhead_view(rows: list[Overhead] | None) -> OverheadView | None:
    if not rows:
        return None
    svg = overhead_chart_svg(rows)
    return OverheadView(lines(rows), sizes(rows), svg[svg.index("<svg"):])


def render(doc: ResultsDocument, links: Links | None = None, corpus: str = "corpus") -> str:
    """`corpus`: where the run's corpus is, relative to the page (its case files and expected data are linked)."""
    links = links or Links()
    families = columns(doc)
    order = [c for f in families for c in f.columns]
    grid: dict[str, dict[str, list[Cell]]] = {}
    for cell in doc.cells:
        grid.setdefault(cell.case, {}).setdefault(cell.adapter, []).append(cell)
    tracks = sorted({c.track for c in doc.cases} | {s.track for s in doc.adapters})
    by_adapter: dict[str, list[Cluster]] = {}
    for k in clusters(doc):
        by_adapter.setdefault(k.adapter, []).append(k)
    failing = failing_families(doc)
    rows = [(case, {a: (worst(cs), cs, detail_text(cs, doc, failing)) for a, cs in grid.get(case.id, {}).items()})
            for case in sorted_cases(doc.cases)]
    marks = {(m.case, m.adapter): m.mark for m in sorted(doc.comparison.marks, key=lambda m: MARK_ORDER[m.mark],
                                                          reverse=True)} if doc.comparison else {}
    roles = sorted({c.role for c in doc.cells} | {r for c in doc.cases for r in c.expect})
    return environment().get_template("report.html.j2").render(
        doc=doc, families=families, order=order, rows=rows, groups=sorted({c.group for c in doc.cases}),
        tracks=tracks, default_track=tracks[0] if len(tracks) > 1 else "", engines=shared_engines(families),
        clusters=by_adapter, links=links, overhead=overhead_view(doc.overhead), counts=track_counts(doc),
        pages={s.adapter: failures(doc, s.adapter, failing) for s in doc.adapters},
        fixed={s.adapter: fixed(doc, s.adapter) for s in doc.adapters}, marks=marks, mark_text=mark_text,
        mark_count=Counter(m.mark for m in doc.comparison.marks) if doc.comparison else Counter(),
        roles=[(r, doc.roles.get(r, "")) for r in roles], corpus=corpus, marks_legend=MARKS_LEGEND,
        sharing_text=sharing_text, now={(c.case, c.adapter, c.role): c for c in doc.cells},
        what=lambda c: what_happened(c, doc.diff_of(c)), cell_href=cell_href,
        reproduce={a.adapter: doc.reproduce.get(a.adapter, f"--adapter {a.adapter}") for a in doc.adapters},
        reuse=reuse_text(doc.cells), level_meaning=LEVEL_MEANING)


def sorted_cases(cases: list[CaseSummary]) -> list[CaseSummary]:
    """By track, then as the manifest lists them (its families' order) within a track."""
    tracks = sorted({c.track for c in cases})
    return sorted(cases, key=lambda c: tracks.index(c.track))


class Html:
    name = "html"

    def write(self, doc: ResultsDocument, out: Path) -> list[Path]:
        path = out / "report.html"
        # errors="replace": a lone surrogate from another tool's cells becomes "?"
        path.write_text(render(doc, corpus=corpus_href(doc, out)), errors="replace")
        return [path]


FORMAT = Html()
