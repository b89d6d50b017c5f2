"""report.html: the matrix of cases x implementations, self-contained (jinja2, autoescaped; one inline script).

What the page gives (templates/report.html.j2): the scores first; the matrix with one sub-column per version of
an implementation and the engine underneath each; the pruned matrix (rows with identical verdicts merged per case
group, with subtotals per implementation); the error clusters (reports/clusters.py), each a link that filters the
matrix; a detail panel per cell with its data diff; the skip overhead when the document has it (reports/text.py
draws it for this page and skip-overhead.md alike). Every filter and selection lives in the URL fragment, and every
row, cell, column and cluster has an id, so that a link opens the same view.

Weight (the default run: 15,339 cells): the matrix's cells carry only their class and symbol; what is shown on
demand (a cell's detail, a case's description and citations, an implementation's failures) is one JSON document
(`page_data`) with each distinct text once, which the script turns into elements when they are opened. So the page
stays one offline file of a few MB that a browser makes usable in well under a second: the matrix is hidden while
the page is parsed, and the script shows it with only the rows around its frame's view laid out (the others `far`,
two spacer rows as tall as they are; a scroll lays out what it brings into view): about 0.25 s in headless Chromium
for the default run's 16,042 cells, against 0.6 s when the whole matrix was laid out at once (and 1.2 s when the
browser laid the growing table out at each pause of the parser).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from parquet_conformance.conformance.harness.chains import cut, root_cause
from parquet_conformance.conformance.harness.gate import enforced
from parquet_conformance.conformance.harness.model import Cell, Overhead, Verdict
from parquet_conformance.corpus.model import LEVELS, Citation, Level, expectation_levels, level_sentence
from parquet_conformance.reports.clusters import Cluster, clusters
from parquet_conformance.reports.datadiff import describe
from parquet_conformance.reports.focus import Failure, failing_families, failures, fixed
from parquet_conformance.reports.model import AdapterScore, CaseSummary, ResultsDocument, reuse_text
from parquet_conformance.reports.text import (
    ABOUT,
    DOCS_REF,
    LEVEL_MEANING,
    MARK_ORDER,
    MARKS_LEGEND,
    MEANING,
    SYMBOL,
    Line,
    Links,
    citation_url,
    corpus_href,
    css_class,
    docs_base,
    environment,
    expectation_words,
    lines,
    mark_text,
    overhead_chart_svg,
    registered_name,
    severity,
    shorten,
    sizes,
    track_counts,
    version_key,
    what_happened,
)

# Badges carry white text: each at least 4.5:1 against it (tests/test_contrast.py).
ENGINE_COLOURS = ["#1f4e79", "#a11d1d", "#1e6b1e", "#5b2a86", "#8a4b00", "#006b75", "#5c3a21", "#8c2a6b"]
MESSAGE_SHOWN = 800  # characters of an error message in the detail panel (results.json has all); a chained error
# keeps its root cause's block (Caused by and its first frames) within them


def engine_of(implementation: str) -> str:
    """The library that parses the file: the `[engine]` a row names (specs.implementation), else the
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
        col = Column(score=s, family=registered_name(doc, s.adapter, s.version), engine=engine,
                     engine_key=engine_key(engine))
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


def gate_text(cell: Cell) -> str:
    """A failure's level and what the gate makes of it (the sentence the level rests on is the case's, shown above
    the detail: page_data's `cases`)."""
    said = f"level {cell.level} ({cell.level.phrase}): "
    if not cell.verdict.weighed:
        return said + "the gate fails on this at every level (a crash, a hang, an unhandled error or other data)"
    return said + ("the gate fails on it by default" if enforced(cell) else
                   f"the gate does not fail on it by default (check --level {cell.level} does)")


def detail_text(cells: list[Cell], doc: ResultsDocument, families: dict[str, set[str]]) -> str:
    """What the detail panel shows for one (case, adapter): each role judged with what happened, the root cause of
    its error first, the error, the attempts, the data diff; its mark and whether other implementations share it."""
    first = cells[0]
    lines = [f"{first.implementation} {first.version or '(no version)'}"]  # the panel's title names adapter and case
    for c in cells:
        passed = c.verdict == Verdict.PASS  # a pass needs fewer words (most cells pass: the page stays small)
        told = passed or c.verdict == Verdict.SKIP  # a pass and a skip: what happened, in one line, is all
        lines.append(f"role {c.role}: {c.verdict}" + ("" if passed else f" ({MEANING.get(c.verdict, c.verdict)})"))
        lines.append(f"  {shorten(what_happened(c), 240) if told else what_happened(c)}")
        mark = doc.mark_of(c)
        if mark is not None and doc.comparison is not None:
            lines.append(f"  {mark_text(mark, doc.comparison)}")
        if c.verdict.is_failure:
            lines.append(f"  {gate_text(c)}")
            own = registered_name(doc, c.adapter, c.version)
            lines.append(f"  {sharing_text(sorted(families.get(c.case, set()) - {own}))}")
        message = c.error_message or ""
        said = message.strip()
        # the whole error where the line above has only its first line; a crash's signal and a hang's limit are there
        if not told and said and said != c.error_class and c.outcome != "timeout" and ("\n" in said or len(said) > 160):
            root = root_cause(message)
            if root:
                lines.append(f"  root cause: {root}")
            if len(message) > MESSAGE_SHOWN:
                message = cut(message, MESSAGE_SHOWN) + f"\n({len(message)} characters in results.json)"
            lines.append(f"  error: {c.error_class or '-'}: {message}")
        if c.disagreement:
            lines.append(f"  attempts disagree: {c.disagreement}")
        if not told or c.attempts > 1:
            lines.append(f"  {c.attempts} {'attempt' if c.attempts == 1 else 'attempts'}: the run's read"
                         + (" and a fresh worker's or --repeat rounds'" if c.attempts > 1 else ""))
        if c.previous_case and not told:
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


class Strings:
    """Each distinct text once: page_data refers to a text by its index."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        return self.index.setdefault(text, len(self.index))

    @property
    def texts(self) -> list[str]:
        return list(self.index)


def notes_parts(text: str) -> list[list[str]]:
    """A case's notes as [text] and [docs reference, its URL or ""] parts (reports/text.py linked, as data)."""
    out, last = [], 0
    base = docs_base()
    for m in DOCS_REF.finditer(text):
        out += [[text[last:m.start()]], [m.group(0), f"{base}{m.group(0)}" if base else ""]]
        last = m.end()
    return [*out, [text[last:]]]


def page_data(doc: ResultsDocument, order: list[Column], rows: list[tuple[CaseSummary, dict[str, Any]]],
              links: Links, corpus: str, pages: dict[str, list[Failure]]) -> dict[str, Any]:
    """What report.html's script shows on demand, each distinct text once (`texts`): per row, each column's verdict
    (a character of VERDICT_CODES, "." where it did not run) and detail (an index into texts, -1: none); each case's
    description and citations; each implementation's failures."""
    strings, cites = Strings(), Strings()
    labels = {c.adapter: f"{c.score.implementation} {c.score.version or '(no version)'}" for c in order}
    codes, details, cases = [], [], []
    for case, row in rows:
        codes.append("".join(VERDICT_CODES[list(Verdict).index(row[c.adapter][0])] if c.adapter in row else "."
                             for c in order))
        details.append([strings(row[c.adapter][2]) if c.adapter in row else -1 for c in order])
        cited = [cites(cite_key(c)) for c in case.citations]
        levels = case_levels(case, row)
        expects = [[role, str(e), int(role in case.judged_on_file), str(levels[role]),
                    cites(cite_key(said)) if (said := level_sentence(case.citations, role, levels[role])) else -1]
                   for role, e in case.expect.items()]
        cases.append([case.title, str(case.kind), case.op, expects, cited, notes_parts(case.notes), case.file,
                      case.expected_data, links.case(case.id) if links.case else ""])
    impl: dict[str, list[list[Any]]] = {}
    index = {case.id: i for i, (case, _) in enumerate(rows)}
    for c in order:
        impl[c.adapter] = [[index[f.cell.case], f.cell.role, list(Verdict).index(f.cell.verdict),
                            f.mark.mark if f.mark else "", strings(mark_text(f.mark, doc.comparison))
                            if f.mark and doc.comparison else -1, strings(f.what), f.sharing,
                            strings(sharing_text(f.shared)) if f.shared else -1]
                           for f in pages.get(c.adapter, []) if f.cell.case in index]
    return {"reproduce": {a.adapter: doc.reproduce.get(a.adapter, f"--adapter {a.adapter}") for a in doc.adapters},
            "corpus": corpus, "adapters": [c.adapter for c in order], "tracks": [c.score.track for c in order],
            "labels": labels, "verdicts": [[v.value, css_class(v), SYMBOL.get(v, v.value), MEANING.get(v, v.value)]
                                           for v in Verdict],
            "roles": doc.roles, "words": {op: {e: expectation_words(e, op) for e in ("read", "reject", "either")}
                                          for op in sorted({c.op for c, _ in rows} | {"read"})},
            "levelWords": {str(lv): lv.phrase for lv in LEVELS},
            "codes": codes, "details": details, "texts": strings.texts, "cases": cases,
            "cites": [json.loads(c) for c in cites.texts], "impl": impl,
            "compared": doc.comparison.what if doc.comparison else ""}


def cite_key(c: Citation) -> str:
    """A citation as page_data's `cites` holds it: source, section, quote, seed, URL (each distinct one once)."""
    return json.dumps([c.source, c.section, c.quote, c.seed or "", citation_url(c.source, c.section) or ""])


def case_levels(case: CaseSummary, row: dict[str, Any]) -> dict[str, Level]:
    """Each role's level in the case, as its cells were judged (a run's cells carry it; a role no cell of this row
    judged: the levels the case's sentences give)."""
    judged = {c.role: c.level for _, cells, _ in row.values() for c in cells}
    derived = expectation_levels(case.expect, case.citations)
    return {role: judged.get(role, derived[role]) for role in case.expect}


VERDICT_CODES = "0123456789abcdefghijklmnopqrstuvwxyz"  # a verdict's place in Verdict, one character
# Rows of the matrix laid out when the page opens (the others are `far` until its script places the frame's view:
# report.js place); what a frame of 900 px shows and more.
FIRST_ROWS = 100


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
    # a detail's first line (implementation and version) is the column's label: the script puts it back
    rows = [(case, {a: (worst(cs), cs, detail_text(cs, doc, failing).split("\n", 1)[1])
                    for a, cs in grid.get(case.id, {}).items()})
            for case in sorted_cases(doc.cases)]
    marks = {(m.case, m.adapter): m.mark for m in sorted(doc.comparison.marks, key=lambda m: MARK_ORDER[m.mark],
                                                          reverse=True)} if doc.comparison else {}
    roles = sorted({c.role for c in doc.cells} | {r for c in doc.cases for r in c.expect})
    pages = {s.adapter: failures(doc, s.adapter, failing) for s in doc.adapters}
    data = page_data(doc, order, rows, links, corpus, pages)
    return environment().get_template("report.html.j2").render(
        doc=doc, families=families, order=order, rows=rows, groups=sorted({c.group for c in doc.cases}),
        tracks=tracks, default_track=tracks[0] if len(tracks) > 1 else "", engines=shared_engines(families),
        clusters=by_adapter, links=links, overhead=overhead_view(doc.overhead), counts=track_counts(doc),
        pages=pages,
        fixed={s.adapter: fixed(doc, s.adapter) for s in doc.adapters}, marks=marks, mark_text=mark_text,
        mark_count=Counter(m.mark for m in doc.comparison.marks) if doc.comparison else Counter(),
        roles=[(r, doc.roles.get(r, "")) for r in roles], corpus=corpus, marks_legend=MARKS_LEGEND,
        now={(c.case, c.adapter, c.role): c for c in doc.cells}, what=lambda c: what_happened(c, doc.diff_of(c)),
        data={**data, "defaultTrack": tracks[0] if len(tracks) > 1 else ""}, worst_first=worst_first,
        reuse=reuse_text(doc.cells), level_meaning=LEVEL_MEANING, first_rows=FIRST_ROWS,
        level_names=[str(lv) for lv in LEVELS])


def worst_first(counts: dict[str, int]) -> list[tuple[Verdict, int]]:
    """Failure kinds, the worst first (wrong data, then crashes, ...), not as a dict happens to hold them."""
    return sorted(((Verdict(k), n) for k, n in counts.items()), key=lambda kv: severity(kv[0]))


def sorted_cases(cases: list[CaseSummary]) -> list[CaseSummary]:
    """By track, then as the manifest lists them (its families' order) within a track."""
    tracks = sorted({c.track for c in cases})
    return sorted(cases, key=lambda c: tracks.index(c.track))


class Html:
    name = "html"

    def write(self, doc: ResultsDocument, out: Path) -> list[Path]:
        path = out / "report.html"
        # errors="replace": a lone surrogate from another tool's cells becomes "?"
        path.write_text(render(doc, corpus=corpus_href(doc, out)), errors="replace", encoding="utf-8")
        return [path]


FORMAT = Html()
