"""History and trends over the runs of a results dataset (`report --history`, the site's implementation pages):
per implementation and version, the pass rate over runs as a chart (matplotlib, SVG, deterministic), and the
cells newly failing and newly fixed since the previous run (after Bowtie's trend and wpt.fyi).

Runs are in the order they started (`RunInfo.started`); a dataset with runs recorded before that field is
ordered by run id in natural order (the default ids are UTC times, so this is the same order for them). A run whose
record or rows are not readable is left out, with the reason in `History.skipped` (a warning, not an error).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from parquet_conformance.conformance.harness.results import (
    ResultsError,
    natural_key,
    read_record,
    read_runs,
    started_at,
)
from parquet_conformance.kernel import trees
from parquet_conformance.kernel.escape import terminal
from parquet_conformance.reports.diff import RunDiff, diff_runs
from parquet_conformance.reports.model import AdapterScore, scores
from parquet_conformance.reports.text import cell_text, chart_rc, family_name

LISTED = 50  # changed cells listed per kind in history.md


@dataclass(frozen=True)
class RunPoint:
    run: str
    started: str | None
    scores: list[AdapterScore]


@dataclass(frozen=True)
class History:
    runs: list[RunPoint]  # oldest first
    ordered_by: str  # "start time" or "run id"
    latest: RunDiff | None  # the previous run -> the latest (None with one run)
    skipped: tuple[str, ...] = ()  # why each run left out was (an unreadable record or rows)

    def series(self, adapters: set[str] | None = None) -> dict[str, list[float | None]]:
        """"implementation version" -> its pass rate (%) in each run (None: not in that run, or nothing judged)."""
        out: dict[str, list[float | None]] = {}
        for i, point in enumerate(self.runs):
            for s in point.scores:
                if adapters is not None and s.adapter not in adapters:
                    continue
                name = f"{family_name(s.adapter, s.version)} {s.version or '(no version)'}"
                line = out.setdefault(name, [None] * len(self.runs))
                line[i] = round(100 * s.pass_rate, 2) if s.pass_rate is not None else None
        return dict(sorted(out.items()))


def load_history(results: Path) -> History:
    skipped: list[str] = []
    runs = read_runs(results, skipped)
    started = {}
    for run_id in list(runs):
        try:
            record = read_record(results, run_id)
        except ResultsError as e:
            skipped.append(f"run {run_id} left out: {e}")
            del runs[run_id]
            continue
        started[run_id] = record.info.started if record else None
    if not runs:
        raise ResultsError(f"{results}: no run with readable rows and record ({skipped[0] if skipped else ''})")
    when = {r: started_at(s) for r, s in started.items()}
    by_time = all(when.values())
    order = sorted(runs, key=lambda r: (when[r], natural_key(r)) if by_time else natural_key(r))
    points = [RunPoint(run=r, started=started[r], scores=scores(runs[r])) for r in order]
    latest = diff_runs(runs[order[-2]], runs[order[-1]]) if len(order) > 1 else None
    return History(runs=points, ordered_by="start time" if by_time else "run id", latest=latest,
                   skipped=tuple(skipped))


def chart_svg(history: History, adapters: set[str] | None = None, title: str = "pass rate per implementation and "
              "version") -> str:
    """The pass rates over runs as an SVG line chart. The same history gives the same bytes: no date, a fixed
    hash salt for the element ids, text kept as text."""
    import matplotlib
    from matplotlib.figure import Figure

    series = history.series(adapters)
    labels = [terminal(p.run) for p in history.runs]  # SVG is XML: no control character in a label
    with matplotlib.rc_context(chart_rc(9)):
        fig = Figure(figsize=(9, 4.2), layout="constrained")
        ax = fig.subplots()
        xs = list(range(len(labels)))
        for name, rates in series.items():
            points = [(x, y) for x, y in zip(xs, rates, strict=True) if y is not None]
            if points:
                ax.plot([x for x, _ in points], [y for _, y in points], marker="o", linewidth=1.5,
                        label=terminal(name))
        step = max(1, len(labels) // 12)
        ax.set_xticks(xs[::step], labels[::step], rotation=25, ha="right")
        ax.set_xlim(-0.5, len(labels) - 0.5)
        ax.set_ylim(-2, 102)
        ax.set_ylabel("pass rate (%) of the cells judged")
        ax.set_xlabel(f"run (ordered by {history.ordered_by})")
        ax.set_title(terminal(title))
        ax.grid(True, alpha=0.3)
        if series:
            ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8, frameon=False)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": "parquet-conformance"})
    return buf.getvalue()


def change_lines(history: History, adapters: set[str] | None = None) -> list[str]:
    """Markdown: the cells newly failing and newly fixed in the latest run, then what else changed."""
    diff = history.latest
    if diff is None:
        return ["One run: nothing to compare yet."]
    before, after = history.runs[-2].run, history.runs[-1].run
    mine = RunDiff(*[[c for c in part if adapters is None or c.adapter in adapters]
                     for part in (diff.changes, diff.only_before, diff.only_after)])
    lines = [f"Since run {cell_text(before)}, run {cell_text(after)} has:"]
    for kind, heading in (("regression", "newly failing"), ("fix", "newly fixed")):
        changed = mine.of_kind(kind)
        lines += ["", f"**{len(changed)} {heading}**" + (":" if changed else "."), ""]
        lines += [f"- {cell_text(c.case)} [{cell_text(c.adapter)} {cell_text(c.role)}]: {c.before} → {c.after}"
                  + (f" ({cell_text(c.version_before)} → {cell_text(c.version_after)})"
                     if c.version_before != c.version_after else "") for c in changed[:LISTED]]
        if len(changed) > LISTED:
            command = cell_text(f"parquet-conformance report --diff {before} {after}")
            lines.append(f"- … {len(changed) - LISTED} more ({command})")
    lines += ["", f"{len(mine.of_kind('change'))} other verdict changes (one failure for another); "
              f"{len(mine.only_before)} cells only in {cell_text(before)}, {len(mine.only_after)} only in "
              f"{cell_text(after)} (cases or implementations added or dropped)."]
    return lines


def history_markdown(history: History, chart: str = "history.svg") -> str:
    series = history.series()
    runs = [p.run for p in history.runs]
    lines = [f"## History: {len(runs)} runs", "", f"![pass rate over runs]({chart})", "",
             f"Pass rate (%) of the cells judged, per implementation and version, runs ordered by "
             f"{history.ordered_by}.", "",
             "| implementation version | " + " | ".join(cell_text(r) for r in runs) + " |",
             "|---|" + "---:|" * len(runs)]
    lines += [f"| {cell_text(name)} | " + " | ".join("–" if v is None else f"{v:g}" for v in rates) + " |"
              for name, rates in series.items()]
    return "\n".join([*lines, "", *change_lines(history)]) + "\n"


def write_history(history: History, out: Path) -> list[Path]:
    with trees.files_replaced(out) as staging:  # the chart and its page replace the old ones together
        (staging / "history.svg").write_text(chart_svg(history), encoding="utf-8")
        (staging / "history.md").write_text(history_markdown(history, "history.svg"), encoding="utf-8")
    return [out / "history.svg", out / "history.md"]
