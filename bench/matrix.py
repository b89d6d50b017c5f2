"""The full matrix against its limit, in CPU-seconds (which a busy machine cannot hide) and wall time.

    python bench/matrix.py [--adapter NAME ...] [--master local[*]|none] [--only GLOBS] [--keep DIR]
                           [--no-limit] [--scale 1,2,4] [--sample N]

Runs the default matrix (every default adapter, the whole corpus, warm caches: a small warm-up run goes first) as
`parquet-conformance run --fresh` does, then the same run again unchanged, and, in CPU accounts of their own
(bench/cpu.py: one cgroup, a child per adapter; rusage where no cgroup can be made), the limit: each adapter's
library reading the same files in one process of its own, no harness (bench/limit.py; a worker in another language,
which has no library call apart from its answer, reads them through the protocol with nothing done to its answers).
It prints:
- the run's CPU-seconds per phase (generation and verification, start: reuse and preparations, cells with their
  workers' starts, confirmation, reports) beside each phase's wall seconds;
- per adapter: its cells, the CPU of its workers in the run, its limit, and their ratio; the harness's own CPU
  (this process, Spark's JVM and Python workers: the run's CPU outside the adapters' workers);
- the ratios the issue's targets are about: run CPU / limit CPU, and wall / (run CPU / cores);
- the unchanged re-run's wall and CPU;
- the old wall figures: per adapter its first attempts, confirmations and fresh re-runs (count, cell-seconds), the
  libraries' own seconds as workers report them, timeouts; with `--sample N` the estimate of one process per cell;
  with `--scale` the wall time at multiples of the corpus.
`--keep DIR` copies the measured run's results dataset (bench/verdicts.py compares two).
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from cpu import Account, Sampler, accounted

from parquet_conformance.app.console import end_progress, progress_line
from parquet_conformance.app.run import RunOptions, RunResult, run_job
from parquet_conformance.conformance import adapters
from parquet_conformance.conformance.adapters import PythonAdapter
from parquet_conformance.conformance.harness import accounting
from parquet_conformance.conformance.harness.envs import harness_path, worker_command
from parquet_conformance.conformance.harness.executor import cores
from parquet_conformance.conformance.harness.model import OutcomeRow, Unavailable
from parquet_conformance.conformance.harness.results import Store
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.corpus.build import generate_cached
from parquet_conformance.corpus.dist import read_manifest, write_manifest_digest
from parquet_conformance.corpus.model import CaseEntry, matches

LIMIT = Path(__file__).with_name("limit.py")
CUT_S = 30.0  # a file the library alone has not finished in this long is cut (a hang): the loop goes on after it
PHASES = [("generation", "start", "prepare"), ("start", "prepare", "cells"), ("cells", "cells", "confirmation"),
          ("confirmation", "confirmation", "reports"), ("reports", "reports", "end")]


def run(corpus: Path, out: Path, specs: list[AdapterSpec], master: str, only: str | None,
        fresh: bool = True) -> tuple[RunResult, float]:
    t0 = time.monotonic()
    result = run_job(RunOptions(out=out, specs=specs, corpus=corpus, only=only, master=master, fresh=fresh),
                     progress_line)
    end_progress()
    return result, time.monotonic() - t0


def machine_busy_s() -> float | None:
    """Core-seconds every core of the machine has been busy since boot (/proc/stat: all but idle and iowait), or
    None without /proc: the run's CPU beside it says how much of the machine others took meanwhile."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    except (OSError, ValueError, IndexError):
        return None
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def usage_of(account: Account | None) -> dict[str, float]:
    """Each child account's CPU-seconds (the adapters' groups), by name."""
    return {name: child.usage() for name, child in account.children().items()} if account is not None else {}


def cases_of(corpus: Path, track: str, only: str | None) -> list[CaseEntry]:
    _, manifest = read_manifest(corpus)
    return [c for c in manifest.cases if c.track == track and matches(c.id, only)]


def limit_python(spec: AdapterSpec, corpus: Path, cases: list[CaseEntry], account: Account, tmp: Path) -> str:
    """The adapter's library over the files in bench/limit.py, in the account; a file that kills the process is
    skipped, one that it has not finished in CUT_S seconds is cut (what it burnt until then counts), and the loop
    goes on after it in a new process (whose start counts too)."""
    adapter = spec.build()
    listing = tmp / f"limit-{spec.name}.txt"
    listing.write_text("".join(f"{c.op}\t{(corpus / c.file).resolve()}\n" for c in cases))
    python, shim = sys.executable, []
    if adapter.release is not None and adapter.package and adapter.index == "pypi":
        command = worker_command(adapter)  # its environment, made if needed: [python, -I, -c, BOOT, shim, name]
        python, shim = command[0], ["--shim", str(harness_path())]
    release = [adapter.release] if adapter.release is not None and type(adapter).release != adapter.release else []
    first, crashed, cut = 0, 0, 0
    while first < len(cases):
        read_fd, write_fd = os.pipe()
        argv = [python, "-I", str(LIMIT), *shim, adapter.name, *release, str(listing), str(first)]
        # bash, not sh: the pipe's descriptor may be above 9, which dash cannot redirect ("Bad fd number")
        script = f'echo $$ > {account.path}/cgroup.procs && exec "$@" 3>&{write_fd}'
        log = (tmp / f"limit-{spec.name}.log").open("ab")
        proc = subprocess.Popen(["bash", "-c", script, "bash", *argv], pass_fds=(write_fd,),
                                stdout=log, stderr=log, start_new_session=True)
        log.close()
        os.close(write_fd)
        at, buf, deadline = first - 1, b"", time.monotonic() + adapter.start_timeout_s
        while True:
            ready = select.select([read_fd], [], [], max(0.0, deadline - time.monotonic()))[0]
            chunk = os.read(read_fd, 4096) if ready else None
            if chunk:
                buf += chunk
                *lines, buf = buf.split(b"\n")
                if lines:
                    at, deadline = int(lines[-1]), time.monotonic() + CUT_S
                continue
            if chunk is None:  # no word within the limit: the file is cut
                os.killpg(proc.pid, 9)
                cut += 1
            proc.wait()
            break
        os.close(read_fd)
        if proc.returncode == 0 and at >= len(cases) - 1:
            break
        if at < first:  # it never got to a file: not available here
            tail = (tmp / f"limit-{spec.name}.log").read_text(errors="replace").strip().splitlines()[-1:]
            return f"unavailable: {tail[0][:80] if tail else '?'}"
        crashed += proc.returncode != -9
        first = max(first, at + 1)
    return ", ".join(f"{n} files {what}" for n, what in ((cut, f"cut at {CUT_S:.0f} s"), (crashed, "crashed")) if n)


def limit_worker(spec: AdapterSpec, corpus: Path, cases: list[CaseEntry]) -> str:
    """A worker of another language: its answers read and dropped (its group is the accounting's)."""
    worker = spec.worker()
    try:
        for c in cases:
            worker.read(str((corpus / c.file).resolve()), c.id, c.op, timeout_s=CUT_S)
    finally:
        worker.close()
    return "through the protocol"


def limits(specs: list[AdapterSpec], corpus: Path, only: str | None, account: Account,
           tmp: Path) -> dict[str, tuple[float, str]]:
    """adapter -> (the CPU-seconds of its library over its track's files in a process of its own, a note); as many
    at once as there are cores (each in its own account: they do not count each other)."""
    os.environ[accounting.ENV] = str(account.child("limit").path)

    def one(spec: AdapterSpec) -> tuple[str, tuple[float, str]]:
        cases = cases_of(corpus, spec.build().track, only)
        group = account.child("limit").child(accounting.group(spec.name))
        before = group.usage()
        print(f"  limit: {spec.name} over {len(cases)} files", file=sys.stderr, flush=True)
        if isinstance(spec.build(), PythonAdapter) and spec.command is None:
            note = limit_python(spec, corpus, cases, group, tmp)
        else:
            note = limit_worker(spec, corpus, cases)
        return spec.name, (group.usage() - before, note)

    with ThreadPoolExecutor(max_workers=cores()) as pool:
        return dict(pool.map(one, specs))


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


def old_figures(rows: list[OutcomeRow], wall: float, n_cores: int) -> None:
    by: dict[str, list[OutcomeRow]] = defaultdict(list)
    for r in rows:
        by[r.adapter].append(r)

    def part(rs: list[OutcomeRow]) -> str:
        return f"{len(rs):>8}{sum(r.duration_s for r in rs):>9.1f}"

    print(f"\n{'adapter (wall)':<16}{'first n':>8}{'first s':>9}{'conf n':>8}{'conf s':>9}{'fresh n':>8}{'fresh s':>9}"
          f"{'library s':>11}{'timeouts':>9}")
    library_total = 0.0
    for name, rs in sorted(by.items(), key=lambda kv: -sum(r.duration_s for r in kv[1])):
        lib_s = sum(r.library_s for r in rs if r.library_s is not None)
        library_total += lib_s
        first = [r for r in rs if not r.confirming and not r.fresh]
        print(f"{name:<16}{part(first)}{part([r for r in rs if r.confirming])}{part([r for r in rs if r.fresh])}"
              f"{lib_s:>11.1f}{sum(1 for r in rs if r.outcome == 'timeout'):>9}")
    if library_total:
        print(f"the libraries' own seconds as workers report them (wall of their calls): {library_total:.1f} s; the "
              f"run's wall is {wall / (library_total / n_cores):.2f}x their sum over {n_cores} cores")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", action="append", help="default: every adapter a plain `run` runs")
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--only", help="case globs (default: the whole corpus)")
    parser.add_argument("--scale", default="1", help="corpus multiples to time, e.g. 1,2,4")
    parser.add_argument("--keep", metavar="DIR", help="copy the measured run's results dataset here (to compare its "
                                                       "verdicts with another run's: bench/verdicts.py)")
    parser.add_argument("--no-limit", action="store_true", help="skip the limit (the libraries alone)")
    parser.add_argument("--sample", type=int, default=0,
                        help="cells per adapter for the per-cell-process estimate (default 0: none)")
    args = parser.parse_args()
    specs = [AdapterSpec.parse(n) for n in args.adapter or adapters.names(default_run=True)]
    n_cores = cores()
    with tempfile.TemporaryDirectory(prefix="bench-matrix-") as tmp, accounted("pqc-matrix") as (account, read):
        root = Path(tmp)
        corpus = root / "corpus"
        generate_cached(corpus)
        if account is not None:
            os.environ[accounting.ENV] = str(account.child("run").path)
        print(f"warming up ({len(specs)} adapters on the bases)", flush=True)
        run(corpus, root / "warm", specs, args.master, "base/*")

        groups0 = usage_of(account.child("run") if account else None)
        sampler = Sampler(read)
        cpu0, busy0 = read(), machine_busy_s()
        result, wall = run(corpus, root / "out", specs, args.master, args.only)
        cpu, busy1 = read() - cpu0, machine_busy_s()
        sampler.stop()
        groups = {k: v - groups0.get(k, 0.0) for k, v in usage_of(account.child("run") if account else None).items()}
        t, marks = result.timings, result.timings.marks
        how = "one cgroup" if account is not None else "rusage of the processes that ended (no cgroup here)"
        print(f"\nmatrix: {len(result.cells)} cells in {wall:.1f} s wall on {n_cores} cores; CPU {cpu:.1f} s ({how}); "
              f"{t.confirmed} non-pass cells ({t.rerun} read again, {t.disagreed} re-run alone); Spark start "
              f"{t.spark_start_s:.1f} s wall")
        print(f"\n{'phase':<14}{'wall s':>9}{'CPU s':>9}")
        for name, start, end in PHASES:
            if start in marks and end in marks:
                print(f"{name:<14}{marks[end] - marks[start]:>9.1f}{sampler.between(marks[start], marks[end]):>9.1f}")

        again_cpu0 = read()
        again, rewall = run(corpus, root / "out", specs, args.master, args.only, fresh=False)
        again_cpu = read() - again_cpu0
        if args.keep:
            shutil.copytree(root / "out" / "results", args.keep)

        limit: dict[str, tuple[float, str]] = {}
        if not args.no_limit and account is not None:
            print("measuring the limit (each library alone, in a process of its own)", file=sys.stderr, flush=True)
            limit = limits(specs, corpus, args.only, account, root)
        rows = [r for r in Store(root / "out").staged(result.run_id) if r.outcome != "unavailable"]
        cells = defaultdict(int)
        for c in result.cells:
            cells[c.adapter] += 1
        print(f"\n{'adapter':<16}{'cells':>7}{'run CPU s':>11}{'limit CPU s':>13}{'ratio':>7}  note")
        in_workers = 0.0
        for spec in sorted(specs, key=lambda s: -groups.get(accounting.group(s.name), 0.0)):
            used = groups.get(accounting.group(spec.name), 0.0)
            in_workers += used
            lim, note = limit.get(spec.name, (0.0, ""))
            ratio = f"{used / lim:>7.2f}" if lim else f"{'-':>7}"
            print(f"{spec.name:<16}{cells[spec.name]:>7}{used:>11.1f}{lim:>13.1f}{ratio}  {note}")
        harness = cpu - in_workers
        print(f"{'harness':<16}{'':>7}{harness:>11.1f}{'':>13}{'':>7}  this process, Spark's JVM and Python workers")
        total_limit = sum(v for v, _ in limit.values())
        if total_limit:
            print(f"\nrun CPU / limit CPU: {cpu:.1f} / {total_limit:.1f} = {cpu / total_limit:.2f} (target <= 2)")
        if cpu:
            print(f"wall / (run CPU / {n_cores} cores): {wall:.1f} / {cpu / n_cores:.1f} = "
                  f"{wall / (cpu / n_cores):.2f} (target <= 1.2)")
        if cpu and busy0 is not None and busy1 is not None:
            others = max(0.0, busy1 - busy0 - cpu)
            print(f"  meanwhile the machine was busy {busy1 - busy0:.1f} of {wall * n_cores:.1f} core-seconds, "
                  f"{others:.1f} of them others' (not this run's): the cores left to the run did "
                  f"{cpu / max(1e-9, wall * n_cores - others):.0%} of the work they could")
        print(f"unchanged re-run: {rewall:.1f} s wall, {again_cpu:.1f} CPU-s ({again.timings.reused} of "
              f"{len(again.cells)} cells reused)")

        old_figures(rows, wall, n_cores)
        estimate = 0.0
        for spec in specs if args.sample else []:
            files = sorted((corpus / "cases").rglob(f"*{'.parquet' if spec.build().track == 'parquet' else ''}"))
            files = [f for f in files if f.is_file()][: args.sample]
            if not files or isinstance(spec.worker().read(str(files[0])).outcome, Unavailable):
                continue
            fresh, _persistent = per_cell_cost(spec, files)
            estimate += fresh * sum(1 for r in rows if r.adapter == spec.name)
        if estimate:
            print(f"one process per cell (estimated from {args.sample} cells per adapter): {estimate / n_cores:.1f} s, "
                  f"{estimate / n_cores / wall:.1f}x this run's wall time")

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
        os.environ.pop(accounting.ENV, None)


if __name__ == "__main__":
    main()
