"""summary.md: scores and failures for a pull-request comment; per adapter its error clusters and its failing
cells (a wrong-data cell with its data diff), capped per adapter so that no adapter is hidden by another's."""

from __future__ import annotations

from pathlib import Path

from parquet_conformance.conformance.harness.model import Verdict
from parquet_conformance.reports.clusters import clusters
from parquet_conformance.reports.datadiff import headline
from parquet_conformance.reports.model import ResultsDocument
from parquet_conformance.reports.text import cell_text, detail

PER_ADAPTER = 20
CLUSTERS = 8  # clusters listed per adapter


def summary(doc: ResultsDocument, per_adapter: int = PER_ADAPTER) -> str:
    run = doc.run
    lines = [f"## parquet-conformance run `{cell_text(run.id)}`", "",
             f"{len(doc.cases)} cases x {len(doc.adapters)} adapters = {len(doc.cells)} cells "
             f"(generator {cell_text(run.generator_version)}, corpus seed {run.seed}).", "",
             "| adapter | implementation | version | pass | fail | flaky | skip | harness errors | pass rate "
             "| failures |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for a in doc.adapters:
        rate = f"{a.pass_rate:.1%}" if a.pass_rate is not None else "–"
        fails = ", ".join(f"{k.removeprefix('fail:')} {v}" for k, v in a.failures.items()) or "–"
        lines.append(f"| {cell_text(a.adapter)} | {cell_text(a.implementation)} | {cell_text(a.version or '–')} | "
                     f"{a.passed} | {a.fail} | {a.flaky} | {a.skip} | {a.harness_errors} | {rate} | {fails} |")
    ours = [c for c in doc.cells if c.verdict == Verdict.HARNESS_ERROR]
    if ours:  # shown apart: these say nothing about any implementation
        lines += ["", f"**{len(ours)} cells could not be judged (harness errors: parquet-conformance failed, not the "
                  "implementation).**", "", "| case | adapter | why |", "|---|---|---|"]
        lines += [f"| {cell_text(c.case)} | {cell_text(c.adapter)} | {cell_text((c.error_message or '')[:200])} |"
                  for c in ours[:per_adapter]]
    flaky = [c for c in doc.cells if c.verdict == Verdict.FLAKY]
    if flaky:  # apart from passes and failures: the attempts at each disagree
        lines += ["", f"**{len(flaky)} flaky cells** (their attempts disagree: counted apart, neither pass nor "
                  "failure).", "", "| case | adapter | role | outcomes seen |", "|---|---|---|---|"]
        lines += [f"| {cell_text(c.case)} | {cell_text(c.adapter)} | {cell_text(c.role)} | "
                  f"{cell_text((c.disagreement or '')[:300])} |" for c in flaky[:per_adapter]]
    groups = clusters(doc)
    for a in doc.adapters:
        failing = [c for c in doc.cells if c.adapter == a.adapter and c.verdict.is_failure]
        if not failing:
            continue
        mine = [k for k in groups if k.adapter == a.adapter and k.verdict.is_failure]
        lines += ["", f"<details><summary>{cell_text(a.adapter)}: {len(failing)} failing cells in {len(mine)} "
                  "clusters</summary>", "", "| cluster (numbers, paths, offsets stripped) | verdict | cells |",
                  "|---|---|---:|"]
        lines += [f"| {cell_text(k.signature)} | {k.verdict} | {len(k.cases)} |" for k in mine[:CLUSTERS]]
        if len(mine) > CLUSTERS:
            lines.append(f"| … {len(mine) - CLUSTERS} more clusters in report.html | | |")
        lines += ["", "| case | role | verdict | expected | why |", "|---|---|---|---|---|"]
        for c in failing[:per_adapter]:
            diff = doc.diff_of(c)
            why = headline(diff) if diff else (
                detail(c).split("\n", 1)[-1] if c.error_class or c.error_message else detail(c))
            lines.append(f"| {cell_text(c.case)} | {cell_text(c.role)} | {c.verdict} | {c.expected} | "
                         f"{cell_text(why[:200])} |")
        if len(failing) > per_adapter:
            lines.append(f"| … {len(failing) - per_adapter} more in results.json | | | | |")
        lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


class Markdown:
    name = "markdown"

    def write(self, doc: ResultsDocument, out: Path) -> list[Path]:
        path = out / "summary.md"
        path.write_text(summary(doc), errors="replace")
        return [path]


FORMAT = Markdown()
