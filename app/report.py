"""`parquet-conformance report`: a run's reports written again, two runs compared, the history of a results
dataset, and the static site. Each reads the results dataset and hands a document to reports/."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

from parquet_conformance.app.console import end_progress, progress_line
from parquet_conformance.kernel import trees
from parquet_conformance.kernel.errors import UsageError


def command(args: argparse.Namespace) -> int:
    if args.diff:
        return diff(args)
    if args.history:
        return history(args)
    if args.rewrite:
        return rewrite(args)
    if args.upstream:
        return upstream(args)
    return site(args)


def upstream(args: argparse.Namespace) -> int:
    """One folder per confirmed failure of an implementation (app/upstream_folders.py)."""
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.app.upstream_folders import write_upstream
    from parquet_conformance.reports.document import stored_document

    name, out = args.upstream
    doc = stored_document(Path(args.results), args.run)
    try:
        written = write_upstream(doc, name, Path(out), Path(args.results), Path(args.corpus) if args.corpus else None)
    except OSError as e:
        raise UsageError(f"cannot write {out}: {e.strerror or e}") from None
    for finding, folder in written:
        more = f" (and {len(finding.others)} other cases)" if finding.others else ""
        print(f"{folder.name}: {finding.verdict.value} {finding.case.id}{more}")
    print(f"wrote {len(written)} findings of {name} in run {doc.run.id} to {out}: start at {Path(out) / 'README.md'}")
    return 0


def rewrite(args: argparse.Namespace) -> int:
    """The run's reports again, from its results dataset, with what OUT holds since (skip-overhead.json) and what it
    is compared with: --expected-failures or --baseline when given; else the comparison kept with the run, or the
    run before it in the dataset when none was (the run was the first). The run keeps the new comparison."""
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.app import overhead
    from parquet_conformance.app.check import expected_lists
    from parquet_conformance.conformance.harness.results import read_record, write_document_parts
    from parquet_conformance.reports import write_reports
    from parquet_conformance.reports.compare import compare
    from parquet_conformance.reports.document import stored_document

    out = Path(args.rewrite)
    results = out / "results"
    if not results.is_dir():
        raise UsageError(f"{out}: no results folder (the --out of a run)")
    baseline = Path(args.baseline) if args.baseline else None
    if baseline is not None and not baseline.is_dir():
        raise UsageError(f"--baseline {baseline}: no results dataset there (OUT/results of a run)")
    doc = stored_document(results, args.run)
    record = read_record(results, doc.run.id)
    known = set(record.corpus_cases) if record else {c.case for c in doc.cells}
    lists, names = expected_lists(args.expected_failures or [], [a.adapter for a in doc.adapters], known)
    comparison = doc.comparison
    if lists or baseline is not None or comparison is None:
        comparison = compare(doc.cells, doc.run.id, doc.run.started, results, baseline, lists, names)
    doc = replace(doc, overhead=overhead.load(out) or doc.overhead, comparison=comparison)
    if comparison is not None and record is not None:
        write_document_parts(results, doc.run.id, doc.parts())
    paths = write_reports(doc, out)
    against = f", compared with {comparison.what}" if comparison else ""
    print(f"wrote {len(paths)} reports of run {doc.run.id} to {out}{against}")
    return 0


def diff(args: argparse.Namespace) -> int:
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.conformance.harness.results import read_cells
    from parquet_conformance.reports.diff import diff_runs

    results = Path(args.results)
    run_a, cells_a = read_cells(results, args.diff[0])
    run_b, cells_b = read_cells(results, args.diff[1])
    diff = diff_runs(cells_a, cells_b)
    if args.json:
        print(json.dumps({"before": run_a, "after": run_b, "changes": [c.to_json() for c in diff.changes],
                          "only_before": [c.to_json() for c in diff.only_before],
                          "only_after": [c.to_json() for c in diff.only_after]}, indent=1))
        return 0
    for c in diff.changes:
        print(f"{c.kind:<10} {c.case} [{c.adapter} {c.role}]: {c.before} -> {c.after}")
    kinds = {k: len(diff.of_kind(k)) for k in ("regression", "fix", "change")}
    print(f"{len(diff.changes)} changed cells between {run_a} and {run_b}: "
          + ", ".join(f"{v} {k}" for k, v in kinds.items()))
    for run, only in ((run_a, diff.only_before), (run_b, diff.only_after)):
        if only:
            adapters = sorted({c.adapter for c in only})
            print(f"{len(only)} cells only in {run} (cases or adapters not in the other run; adapters: "
                  f"{', '.join(adapters[:10])}{' ...' if len(adapters) > 10 else ''})")
    return 0


def warn_skipped(reasons: tuple[str, ...]) -> None:
    """A run of the dataset that could not be read is left out of a history, with a warning: one line each."""
    for reason in reasons:
        print(f"parquet-conformance: warning: {' '.join(reason.split())[:300]}", file=sys.stderr)


def plotting() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError("charts need matplotlib: pip install 'parquet-conformance[plots]'") from None


def history(args: argparse.Namespace) -> int:
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.reports.history import load_history, write_history

    plotting()
    results = Path(args.history)
    out = Path(args.out) if args.out else results.resolve().parent
    if args.out:
        trees.separate(out, {"the results dataset": results})
    history = load_history(results)
    warn_skipped(history.skipped)
    paths = write_history(history, out)
    end_progress()
    latest = history.latest
    print(f"{len(history.runs)} runs (ordered by {history.ordered_by}): {', '.join(p.run for p in history.runs[-5:])}"
          + (" ..." if len(history.runs) > 5 else ""))
    if latest is not None:
        print(f"since {history.runs[-2].run}: {len(latest.of_kind('regression'))} newly failing, "
              f"{len(latest.of_kind('fix'))} newly fixed, {len(latest.of_kind('change'))} changed failures; "
              f"{len(latest.only_before)} cells only in {history.runs[-2].run}, {len(latest.only_after)} only in "
              f"{history.runs[-1].run}")
        for c in latest.of_kind("regression")[:20]:
            print(f"  newly failing {c.case} [{c.adapter} {c.role}]: {c.before} -> {c.after}")
        for c in latest.of_kind("fix")[:20]:
            print(f"  newly fixed   {c.case} [{c.adapter} {c.role}]: {c.before} -> {c.after}")
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def site(args: argparse.Namespace) -> int:
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.reports.document import stored_document
    from parquet_conformance.reports.history import load_history
    from parquet_conformance.reports.site import write_site
    from parquet_conformance.reports.text import published

    results, out = Path(args.results), Path(args.site)
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: exists and is not a directory")
    trees.separate(out, {"the results dataset": results}, replaces="a site")
    trees.replaceable(out, may_replace="a site")  # a folder it would refuse: refused before a page is drawn
    doc = stored_document(results, args.run)
    history = load_history(results)
    warn_skipped(history.skipped)
    if len(history.runs) > 1:
        plotting()
    progress_line(f"writing {len(doc.adapters)} implementation pages and {len(doc.cases)} case pages")
    try:  # written aside and swapped with the earlier site in one step (kernel/trees.py)
        with trees.replaced(out, may_replace="a site") as staging, published(staging, out):
            paths = [out / p.relative_to(staging) for p in
                     write_site(doc, staging, history if len(history.runs) > 1 else None,
                                run_out=results.parent)]
    except OSError as e:
        raise UsageError(f"cannot write {out}: {e.strerror or e}") from None
    end_progress()
    print(f"wrote {len(paths)} files for run {doc.run.id} to {out}: open {out / 'index.html'}")
    return 0
