"""The full matrix against its limit, measured in one run.

    python bench/matrix.py [--adapter NAME ...] [--master local[*]|none] [--only GLOBS] [--scale 1,2,4]
                           [--sample N] [--keep DIR]

Runs the default matrix (every default adapter, the whole corpus, warm caches: a small warm-up run goes
first) as `parquet-conformance run --fresh` does (no history to reuse), then the same run again unchanged, and
prints:
- the wall time per phase (generation, Spark start, cells, confirmation, reports) and cells/s;
- per adapter: its first attempts, its confirmation attempts (the confirmation pass: one new worker per adapter)
  and its fresh single-cell re-runs, each as a count and the cell-seconds they took, the library's own seconds
  (each worker measures its library call: `library_s` in the protocol) and the timeouts;
- the confirmation's share of the cells phase, and the ratio to the limit: the wall time over (the libraries' own
  seconds / the cores);
- the unchanged re-run's wall time (every cell reused: docs/results.md#what-a-verdict-guarantees);
- with `--sample N`: the ratio to one process per cell, estimated from N cells per adapter run both ways (a new
  worker per cell versus one persistent worker), as bench/persistent_vs_per_cell.py measures it;
- with `--scale 1,2,4`: the wall time at 1x, 2x and 4x the corpus (cases replicated under new ids) and its
  slope per cell, which should stay flat (a linear run).
Every figure is a ratio or comes from the same run: only ratios are meant to be compared across machines.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from parquet_conformance.conformance import adapters
from parquet_conformance.conformance.app.console import end_progress, progress_line
from parquet_conformance.conformance.app.run import RunOptions, RunResult, run_job
from parquet_conformance.conformance.harness.execute import AdapterSpec
from parquet_conformance.conformance.harness.model import OutcomeRow, Unavailable
from parquet_conformance.conformance.harness.results import Store
from parquet_conformance.corpus.build import generate_cached
from parquet_conformance.corpus.dist import write_manifest_digest


def run(corpus: Path, out: Path, specs: list[AdapterSpec], master: str, only: str | None,
        fresh: bool = True) -> tuple[RunResult, float]:
    t0 = time.perf_counter()
    result = run_job(RunOptions(out=out, specs=specs, corpus=corpus, only=only, master=master, fresh=fresh),
                     progress_line)
    end_progress()
    return result, time.perf_counter() - t0


def cpu_busy_s() -> float | None:
    """Seconds every core of the machine has been busy since boot (/proc/stat: all but idle and iowait), or None
    where there is no /proc."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    except (OSError, ValueError, IndexError):
        return None
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def replicated(corpus: Path, out: Path, times: int) -> Path:
    """The corpus with every case `times` times: copies under ids `<id>/copy-<k>` naming the same file."""
    shutil.copytree(corpus, out)
    manifest = json.loads((out / "manifest.json").read_text())
    cases = manifest["cases"]
    manifest["cases"] = cases + [{**c, "id": f"{c['id']}/copy-{k}"} for k in range(1, times) for c in cases]
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
    write_manifest_digest(out)
    return out


def per_cell_cost(spec: AdapterSpec, files: list[Path]) -> tuple[float, float]:
    """Seconds per cell with one worker process per cell, and with one persistent worker."""
    t0 = time.perf_counter()
    for path in files:
        worker = spec.worker()
        worker.read(str(path))
        worker.close()
    fresh = (time.perf_counter() - t0) / len(files)
    worker = spec.worker()
    worker.start()
    t0 = time.perf_counter()
    for path in files:
        worker.read(str(path))
    persistent = (time.perf_counter() - t0) / len(files)
    worker.close()
    return fresh, persistent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", action="append", help="default: every adapter a plain `run` runs")
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--only", help="case globs (default: the whole corpus)")
    parser.add_argument("--scale", default="1", help="corpus multiples to time, e.g. 1,2,4")
    parser.add_argument("--keep", metavar="DIR", help="copy the measured run's results dataset here (to compare its "
                                                       "verdicts with another run's)")
    parser.add_argument("--sample", type=int, default=0,
                        help="cells per adapter for the per-cell-process estimate (default 0: none)")
    args = parser.parse_args()
    specs = [AdapterSpec.parse(n) for n in args.adapter or adapters.names(default_run=True)]
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="bench-matrix-") as tmp:
        root = Path(tmp)
        corpus = root / "corpus"
        generate_cached(corpus)
        print(f"warming up ({len(specs)} adapters on the bases)", flush=True)
        run(corpus, root / "warm", specs, args.master, "base/*")

        busy0 = cpu_busy_s()
        result, wall = run(corpus, root / "out", specs, args.master, args.only)
        busy1 = cpu_busy_s()
        rows = [r for r in Store(root / "out").staged(result.run_id) if r.outcome != "unavailable"]
        t = result.timings
        print(f"\nmatrix: {len(result.cells)} cells in {wall:.1f} s wall ({len(result.cells) / wall:.1f} cells/s) on "
              f"{cores} cores; phases: generation {t.generation_s:.1f} s, Spark start {t.spark_start_s:.1f} s, "
              f"cells {t.cells_s:.1f} s, confirmation {t.confirm_s:.1f} s ({t.confirmed} non-pass cells, {t.rerun} "
              f"read again, {t.disagreed} re-run alone), reports {t.reports_s:.1f} s")

        by: dict[str, list[OutcomeRow]] = defaultdict(list)
        for r in rows:
            by[r.adapter].append(r)

        def part(rs: list[OutcomeRow]) -> str:
            return f"{len(rs):>8}{sum(r.duration_s for r in rs):>9.1f}"

        print(f"\n{'adapter':<16}{'first n':>8}{'first s':>9}{'conf n':>8}{'conf s':>9}{'fresh n':>8}{'fresh s':>9}"
              f"{'library s':>11}{'timeouts':>9}")
        library_total = 0.0
        for name, rs in sorted(by.items(), key=lambda kv: -sum(r.duration_s for r in kv[1])):
            lib_s = sum(r.library_s for r in rs if r.library_s is not None)
            library_total += lib_s
            first = [r for r in rs if not r.confirming and not r.fresh]
            print(f"{name:<16}{part(first)}{part([r for r in rs if r.confirming])}{part([r for r in rs if r.fresh])}"
                  f"{lib_s:>11.1f}{sum(1 for r in rs if r.outcome == 'timeout'):>9}")
        limit = library_total / cores
        share = t.confirm_s / t.cells_s if t.cells_s else 0.0
        print(f"\nconfirmation: {t.confirm_s:.1f} s, {share:.0%} of the cells phase")
        print(f"limit (the libraries' own seconds / {cores} cores): {limit:.1f} s; "
              f"the run is {wall / limit:.2f}x the limit" if limit else "no library times reported")
        print("  (a library's seconds are the wall time of its call: with every adapter's workers reading at once on "
              f"{cores} cores they include waiting for a core, so this limit is high where the machine is full)")
        if busy0 is not None and busy1 is not None:
            busy = busy1 - busy0
            print(f"the machine was busy {busy:.1f} core-seconds of {wall * cores:.1f} ({busy / (wall * cores):.0%}); "
                  f"the run at full use of the cores would take {busy / cores:.1f} s: {wall / (busy / cores):.2f}x")

        again, rewall = run(corpus, root / "out", specs, args.master, args.only, fresh=False)
        print(f"unchanged re-run: {rewall:.1f} s wall ({again.timings.reused} of {len(again.cells)} cells reused), "
              f"{rewall / wall:.2f}x the first run")
        if args.keep:
            shutil.copytree(root / "out" / "results", args.keep)

        estimate = 0.0
        for spec in specs if args.sample else []:
            files = sorted((corpus / "cases").rglob(f"*{'.parquet' if spec.build().track == 'parquet' else ''}"))
            files = [f for f in files if f.is_file()][: args.sample]
            if not files or isinstance(spec.worker().read(str(files[0])).outcome, Unavailable):
                continue
            fresh, _persistent = per_cell_cost(spec, files)
            estimate += fresh * len(by.get(spec.name, []))
        if estimate:
            print(f"one process per cell (estimated from {args.sample} cells per adapter): {estimate / cores:.1f} s, "
                  f"{estimate / cores / wall:.1f}x this run's wall time")

        scales = [int(x) for x in args.scale.split(",") if x.strip()]
        if scales != [1]:
            print("\nscale: corpus multiple, cells, wall s, ms per cell")
            points = []
            for k in scales:
                bigger = replicated(corpus, root / f"corpus-x{k}", k) if k > 1 else corpus
                res, secs = run(bigger, root / f"out-x{k}", specs, args.master, args.only)
                points.append((len(res.cells), secs))
                print(f"  {k}x {len(res.cells):>8} {secs:>8.1f} {1000 * secs / len(res.cells):>8.2f}")
            (n0, s0), (n1, s1) = points[0], points[-1]
            print(f"slope: {1000 * (s1 - s0) / (n1 - n0):.2f} ms per added cell")


if __name__ == "__main__":
    main()
