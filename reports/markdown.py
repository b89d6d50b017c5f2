"""summary.md: a run for a pull-request comment or a CI job summary. It opens with what a CI user asks first, the
failures that are new against the previous run or the expected-failure list (and what got fixed), then the scores,
the flaky cells (apart from passes and failures), the cells not judged, and per adapter its error clusters and its
failing cells (capped per adapter, so that no adapter hides another; the rest is in report.html's implementation
view), and a legend."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from parquet_conformance.conformance.harness.model import Verdict
from parquet_conformance.reports.clusters import clusters
from parquet_conformance.reports.model import Mark, ResultsDocument, refused_starts, reuse_text
from parquet_conformance.reports.text import (
    EXPECTATIONS,
    LEVEL_MEANING,
    MARKS_LEGEND,
    MEANING,
    SYMBOL,
    cell_level_text,
    cell_text,
    html_text,
    mark_text,
    percent,
    severity,
    shorten,
    track_counts,
    what_happened,
)

PER_ADAPTER = 20
CLUSTERS = 8  # clusters listed per adapter
NEW_SHOWN = 30  # new and changed failures listed at the top
WHY = 200  # characters of a reason in a table
LEVEL_QUOTE = 80  # characters of the sentence a level rests on (the source and section follow)


def impl_link(adapter: str) -> str:
    return f"report.html#view=impl&impl={adapter}"  # adapter names are checked names: nothing to escape in a URL


def summary(doc: ResultsDocument, per_adapter: int = PER_ADAPTER) -> str:
    run = doc.run
    lines = [f"## parquet-conformance run {cell_text(run.id)}", "", f"{cell_text(reuse_text(doc.cells))}.", ""]
    k = doc.comparison
    if k is None:
        lines += ["Nothing to compare with (no earlier run in the results dataset, no `--baseline` or "
                  "`--expected-failures`): no failure is marked new or known.", ""]
    else:
        count = Counter(m.mark for m in k.marks)
        lines += [f"**Compared with {cell_text(k.what)}: {count[Mark.NEW]} new "
                  f"{'failure' if count[Mark.NEW] == 1 else 'failures'}**, {count[Mark.CHANGED]} changed, "
                  f"{count[Mark.FIXED]} fixed, {count[Mark.KNOWN]} known"
                  + (f", {count[Mark.UNSEEN]} failing in cells it does not have" if count[Mark.UNSEEN] else "")
                  + ".", ""]
        cells = {(c.case, c.adapter, c.role): c for c in doc.cells}
        loud = sorted((m for m in k.marks if m.mark in (Mark.NEW, Mark.CHANGED)),
                      key=lambda m: (m.mark != Mark.NEW, severity(cells[(m.case, m.adapter, m.role)].verdict)))
        if loud:
            lines += [f"### New and changed failures ({len(loud)})", "",
                      f"| adapter | case | role | level | verdict | vs {cell_text(k.what)} | what happened |",
                      "|---|---|---|---|---|---|---|"]
            for m in loud[:NEW_SHOWN]:
                c = cells[(m.case, m.adapter, m.role)]
                what = shorten(what_happened(c, doc.diff_of(c)), WHY)
                lines.append(f"| {cell_text(c.adapter)} | {cell_text(c.case)} | {cell_text(c.role)} | "
                             f"{cell_text(cell_level_text(doc, c, LEVEL_QUOTE))} | "
                             f"{c.verdict} | {cell_text(mark_text(m, k))} | {cell_text(what)} |")
            if len(loud) > NEW_SHOWN:
                lines.append(f"| … {len(loud) - NEW_SHOWN} more: report.html#view=changes | | | | | | |")
            lines.append("")
        fixed = [m for m in k.marks if m.mark == Mark.FIXED]
        if fixed:
            shown = ", ".join(f"{cell_text(m.adapter)} {cell_text(m.case)} [{cell_text(m.role)}]" for m in fixed[:20])
            lines += [f"**Fixed ({len(fixed)})**: {shown}" + (f", … {len(fixed) - 20} more" if len(fixed) > 20 else "")
                      + ".", ""]
    lines += ["### Scores", "", "; ".join(cell_text(t.text) for t in track_counts(doc))
              + f" (generator {cell_text(run.generator_version)}, corpus seed {run.seed}, corpus "
              f"{cell_text(run.corpus_digest[:16])}). Pass rate: pass / (pass + fail); flaky, representation (the "
              "data in a form the library documents), skipped and not judged cells are counted apart. By level: "
              "passes of the judged cells whose expectation rests on a `must`, a `should` or this suite's `policy`; "
              "the gate fails on `must` by default (`check --level`), and on a crash, a hang, an unhandled error or "
              "other data at every level.", "",
              "| adapter | implementation | version | pass rate | by level | pass | fail | flaky | repr. |"
              + (" new | fixed |" if k else "") + " skip | not judged | failures |",
              "|---|---|---|---:|---|---:|---:|---:|---:|" + ("---:|---:|" if k else "") + "---:|---:|---|"]
    for a in doc.adapters:
        fails = ", ".join(f"{name.removeprefix('fail:')} {n}" for name, n in  # the worst first
                          sorted(a.failures.items(), key=lambda kv: severity(Verdict(kv[0])))) or "–"
        marks = ""
        if k:
            mine = Counter(m.mark for m in k.marks if m.adapter == a.adapter)
            marks = f" {mine[Mark.NEW]} | {mine[Mark.FIXED]} |"
        lines.append(f"| {cell_text(a.adapter)} | {cell_text(a.implementation)} | {cell_text(a.version or '–')} | "
                     f"{percent(a.pass_rate)} | {a.level_text()} | {a.passed} | {a.fail} | {a.flaky} | "
                     f"{a.representation} |{marks} "
                     f"{a.skip} | {a.harness_errors} | {fails} |")
    lines += [f"\n**{cell_text(a)} is unavailable**: {cell_text(why)}" for a, why in refused_starts(doc.cells).items()]
    flaky = [c for c in doc.cells if c.verdict == Verdict.FLAKY]
    if flaky:  # apart from passes and failures: the attempts at each disagree
        lines += ["", f"**{len(flaky)} flaky {'cell' if len(flaky) == 1 else 'cells'}** (some attempts passed, some "
                  "failed: counted apart, neither pass nor failure).", "", "| case | adapter | role | outcomes seen |",
                  "|---|---|---|---|"]
        lines += [f"| {cell_text(c.case)} | {cell_text(c.adapter)} | {cell_text(c.role)} | "
                  f"{cell_text(shorten(c.disagreement or '', 300))} |" for c in flaky[:per_adapter]]
        if len(flaky) > per_adapter:
            lines.append(f"| … {len(flaky) - per_adapter} more: report.html, verdict filter flaky | | | |")
    ours = [c for c in doc.cells if c.verdict == Verdict.HARNESS_ERROR]
    if ours:  # shown apart: these say nothing about any implementation
        lines += ["", f"**{len(ours)} {'cell' if len(ours) == 1 else 'cells'} could not be judged** (harness errors: "
                  "parquet-conformance failed, not the implementation).", "", "| case | adapter | why |",
                  "|---|---|---|"]
        lines += [f"| {cell_text(c.case)} | {cell_text(c.adapter)} | {cell_text(shorten(c.error_message or '', WHY))} |"
                  for c in ours[:per_adapter]]
    if doc.writers is not None:
        lines += ["", f"**Writer x reader matrix**: {len(doc.writers.writers)} files asked of "
                  f"{len({w.writer for w in doc.writers.writers})} writers, {len(doc.writers.cells)} reader cells, "
                  "each failure said to be the writer's or the reader's: writers.html, writers.md."]
    groups = clusters(doc)
    for a in doc.adapters:
        failing = sorted((c for c in doc.cells if c.adapter == a.adapter and c.verdict.is_failure),
                         key=lambda c: severity(c.verdict))
        if not failing:
            continue
        own = [g for g in groups if g.adapter == a.adapter and g.verdict.is_failure]
        # <summary> opens an HTML block, whose text is HTML, not Markdown: the name goes through HTML's escaper.
        lines += ["", f"<details><summary>{html_text(a.adapter)}: {len(failing)} failing "
                  f"{'cell' if len(failing) == 1 else 'cells'} in {len(own)} "
                  f"{'cluster' if len(own) == 1 else 'clusters'}</summary>", "",
                  "| cluster (numbers, paths, offsets, object ids stripped) | verdict | cells |", "|---|---|---:|"]
        lines += [f"| {cell_text(g.signature)} | {g.verdict} | {len(g.cases)} |" for g in own[:CLUSTERS]]
        if len(own) > CLUSTERS:
            lines.append(f"| … {len(own) - CLUSTERS} more clusters: report.html#view=clusters | | |")
        lines += ["", "| case | role | level | verdict |" + (" vs " + cell_text(k.what) + " |" if k else "")
                  + " what happened |", "|---|---|---|---|" + ("---|" if k else "") + "---|"]
        for c in failing[:per_adapter]:
            said = doc.mark_of(c)
            mark = (f" {said.mark if said else ''} |" if k else "")
            lines.append(f"| {cell_text(c.case)} | {cell_text(c.role)} | "
                         f"{cell_text(cell_level_text(doc, c, LEVEL_QUOTE))} | {c.verdict} |{mark} "
                         f"{cell_text(shorten(what_happened(c, doc.diff_of(c)), WHY))} |")
        if len(failing) > per_adapter:
            more = cell_text(impl_link(a.adapter))  # a link's text, not a link: the name in it is outside text
            lines.append(f"| … {len(failing) - per_adapter} more: {more} | | | |" + (" |" if k else "") + " |")
        lines += ["", "</details>"]
    lines += ["", "<details><summary>Legend</summary>", "", "| verdict | symbol in report.html | meaning |",
              "|---|---|---|"]
    lines += [f"| {v} | {cell_text(SYMBOL.get(v, v))} | {cell_text(MEANING.get(v, v))} |"
              for v in Verdict]
    lines += ["", "| expectation | meaning |", "|---|---|"]
    lines += [f"| {e} | {cell_text(text)} |" for e, text in EXPECTATIONS.items()]
    lines += ["", "| level | an expectation that rests on |", "|---|---|"]
    lines += [f"| {lv} | {cell_text(text)} |" for lv, text in LEVEL_MEANING.items()]
    roles = sorted({c.role for c in doc.cells} | {r for c in doc.cases for r in c.expect})
    lines += ["", "| role | a reader that |", "|---|---|"]
    lines += [f"| {cell_text(r)} | {cell_text(doc.roles.get(r, 'a role of this run'))} |" for r in roles]
    if k:
        lines += ["", f"| against {cell_text(k.what)} | meaning |", "|---|---|"]
        lines += [f"| {m} | {cell_text(text)} |" for m, text in MARKS_LEGEND.items()]
    lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


class Markdown:
    name = "markdown"

    def write(self, doc: ResultsDocument, out: Path) -> list[Path]:
        path = out / "summary.md"
        path.write_text(summary(doc), errors="replace", encoding="utf-8")
        return [path]


FORMAT = Markdown()
