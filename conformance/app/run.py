"""The main job: corpus x adapters, locally or on Spark, judged, stored, reported.

    verify the corpus -> run the cells (staging outcomes as they finish; --repeat: more rounds in shuffled
    order) -> confirm every cell that did not pass in a fresh worker -> judge (attempts that disagree: flaky)
    -> results dataset -> every registered report format

Nothing runs on a corpus that does not match its manifest and its manifest's digest (corpus/dist.py).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import importlib.util
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from parquet_conformance.conformance.app import overhead
from parquet_conformance.conformance.app.console import conf, end_progress, progress_line, specs
from parquet_conformance.conformance.harness.execute import AdapterSpec, Attempt, run_locally
from parquet_conformance.conformance.harness.judge import Judge, to_confirm
from parquet_conformance.conformance.harness.model import Cell, OutcomeRow, RunInfo
from parquet_conformance.conformance.harness.results import RunRecord, Store, check_run_id, new_run_id
from parquet_conformance.corpus import dist
from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus.build import generate_cached
from parquet_conformance.corpus.errors import UsageError
from parquet_conformance.corpus.model import CaseEntry, Manifest, matches
from parquet_conformance.reports import write_reports
from parquet_conformance.reports.document import results_document

Progress = Callable[[str], None]


class RunError(UsageError):
    """A run that cannot start as asked (no matching case, no Spark); the message is one line."""


@dataclass(frozen=True)
class RunOptions:
    out: Path
    specs: list[AdapterSpec]
    corpus: Path | None = None  # default OUT/corpus, generated if absent
    only: str | None = None
    seed: int = 0
    master: str = "local[*]"  # or spark://..., or "none" for no Spark
    conf: dict[str, str] = field(default_factory=dict)
    run_id: str | None = None
    resume: str | None = None
    repeat: int = 1  # rounds through the matrix; rounds after the first run in shuffled order
    tracks: tuple[str, ...] = ()  # generate only these tracks' cases when the corpus is absent (default: all)


@dataclass
class Timings:
    generation_s: float = 0.0
    spark_start_s: float = 0.0
    cells_s: float = 0.0
    confirm_s: float = 0.0  # re-running non-pass cells in fresh workers
    confirmed: int = 0  # non-pass cells, each settled by a fresh worker's attempt
    rerun: int = 0  # of which re-run for it (the others were already the first read of a new worker process)
    reports_s: float = 0.0


@dataclass
class RunResult:
    run_id: str
    cells: list[Cell]
    manifest: Manifest
    timings: Timings
    corpus_digest: str


def selected(manifest: Manifest, only: str | None, specs: list[AdapterSpec]) -> list[CaseEntry]:
    spec_tracks = {s.build().track for s in specs}
    cases = [c for c in manifest.cases if matches(c.id, only) and c.track in spec_tracks]
    if not cases:
        raise RunError(f"no case matches {only!r} for the adapters' tracks ({', '.join(sorted(spec_tracks))})")
    return cases


def run_job(opts: RunOptions, progress: Progress | None = None) -> RunResult:
    timings = Timings()
    store = Store(opts.out)
    run_id = check_run_id(opts.resume or opts.run_id or new_run_id())
    if opts.master != "none" and importlib.util.find_spec("pyspark") is None:
        raise RunError("Spark needs pyspark: pip install 'parquet-conformance[spark]', or run with --master none")
    store.check_begin(run_id, resume=opts.resume is not None)  # before anything is generated or written
    corpus = opts.corpus or opts.out / "corpus"
    t0 = time.monotonic()
    if opts.corpus is None and not (corpus / "manifest.json").is_file():
        if progress:
            progress(f"generating the corpus into {corpus}")
        if generate_cached(corpus, seed=opts.seed, tracks=[tracks.get(t) for t in opts.tracks] or None) and progress:
            progress("the corpus was generated before with the same code, writers and seed: copied from the cache")
    timings.generation_s = time.monotonic() - t0
    root, manifest, digest = dist.open_corpus(corpus)
    cases = selected(manifest, opts.only, opts.specs)
    wanted = {c.id for c in cases}
    names = {s.name for s in opts.specs}
    by_track: dict[str, list[str]] = {}
    for s in opts.specs:
        by_track.setdefault(s.build().track, []).append(s.name)
    judge = Judge.of(manifest)
    measured = overhead.load(opts.out)  # a file that is not one is refused now, not after every cell ran
    # Only a run that will run begins: a refused one leaves no trace, and its corrected run may take its id.
    started = store.begin(run_id, resume=opts.resume is not None,
                          now=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))

    def staged() -> list[OutcomeRow]:
        return [r for r in store.staged(run_id) if r.case in wanted and r.adapter in names]

    with store.lock(run_id):
        done = {r.key for r in staged()}

        def stage(rows: list[OutcomeRow]) -> None:
            store.stage(run_id, [r for r in rows if r.key not in done])

        def execute(jobs: list[tuple[CaseEntry, Attempt]], what: str) -> None:
            def tick(finished: int, total: int) -> None:
                if progress:
                    progress(f"[{finished}/{total}] {what}, {time.monotonic() - t0:.0f}s")

            if not jobs:
                return
            if opts.master == "none":
                run_locally(jobs, root, opts.specs, stage, tick, progress)
            else:
                from parquet_conformance.conformance.harness.spark import run_on_spark

                started = run_on_spark(jobs, root, opts.specs, stage, master=opts.master, conf=opts.conf,
                                       progress=tick, say=progress, log=opts.out / "logs" / f"spark-{run_id}.log")
                timings.spark_start_s = timings.spark_start_s or started

        prepare_adapters(opts.specs, progress)
        t1 = time.monotonic()
        for rnd in range(opts.repeat):
            # Big cases first, so they do not trail at the end; later rounds shuffled, so that every cell meets
            # other predecessors in its persistent worker.
            order = sorted(cases, key=lambda c: -c.size) if rnd == 0 else random.Random(rnd).sample(cases, len(cases))
            execute([(c, Attempt(round=rnd)) for c in order
                     if any((c.id, n, rnd, False) not in done for n in by_track.get(c.track, ()))],
                    "cases done" if opts.repeat == 1 else f"cases done in round {rnd + 1} of {opts.repeat}")
        timings.cells_s = time.monotonic() - t1 - timings.spark_start_s
        t2 = time.monotonic()
        rows = staged()
        nonpass = to_confirm(judge.cells(rows))
        unconfirmed = nonpass - {(r.case, r.adapter) for r in rows if r.settled}
        by_case: dict[str, list[str]] = {}
        for case_id, adapter in sorted(unconfirmed):
            by_case.setdefault(case_id, []).append(adapter)
        execute([(manifest.case(c), Attempt(tuple(a), fresh=True)) for c, a in by_case.items()],
                "cells confirmed in fresh workers")
        timings.confirm_s, timings.confirmed, timings.rerun = time.monotonic() - t2, len(nonpass), len(unconfirmed)
        cells = judge.cells(staged())
        t3 = time.monotonic()
        info = RunInfo(id=run_id, generator_version=manifest.generator["version"], seed=manifest.seed,
                       master=opts.master, corpus=str(root), only=opts.only,
                       tracks=sorted({c.track for c in cases}), corpus_digest=digest, started=started)
        doc = results_document(cells, manifest, info, root, measured)
        store.write(run_id, cells, RunRecord(info=info, cases=sorted(wanted),
                                             corpus_cases=[c.id for c in manifest.cases]), doc.parts())
        write_reports(doc, opts.out)
    timings.reports_s = time.monotonic() - t3
    return RunResult(run_id, cells, manifest, timings, digest)


def prepare_adapters(specs: list[AdapterSpec], progress: Progress | None = None) -> None:
    """What an adapter's worker needs before it can start (a compiled Java worker, an npm prefix, a release's
    environment) is made here, on the driver, where its progress is seen; the workers then find it cached. An
    adapter that cannot be prepared is left to its worker, which reports it unavailable."""
    for i, spec in enumerate(specs, 1):
        if spec.command is not None:
            continue
        if progress:
            progress(f"[{i}/{len(specs)}] preparing {spec.name}")
        with contextlib.suppress(Exception):  # its worker says why, in one line, as every unavailable adapter does
            spec.build().command()


def command(args: argparse.Namespace) -> int:
    if args.resume and args.run_id:
        raise UsageError("give --run-id or --resume, not both")
    if args.repeat < 1:
        raise UsageError("--repeat wants a positive number of rounds")
    if args.remote and not args.remote.startswith("sc://"):
        raise UsageError(f"--remote wants a Spark Connect URL sc://HOST:PORT, got {args.remote!r}")
    opts = RunOptions(out=Path(args.out), specs=specs(args, default_run=True),
                      corpus=Path(args.corpus) if args.corpus else None, only=args.only, seed=args.seed,
                      master=args.remote or args.master, conf=conf(args.conf), run_id=args.run_id, resume=args.resume,
                      repeat=args.repeat, tracks=tuple(args.track or ()))
    result = run_job(opts, progress_line)
    end_progress()
    t = result.timings
    print(summary_table(result.cells))
    flaky = [c for c in result.cells if c.verdict == "flaky"]
    print(f"{len(result.cells)} cells, {len(result.cells) / max(t.cells_s, 1e-9):.1f} cells/s; time: generation "
          f"{t.generation_s:.1f}s, Spark start {t.spark_start_s:.1f}s, cells {t.cells_s:.1f}s, confirming "
          f"{t.confirmed} non-pass cells ({t.rerun} re-run in fresh workers) {t.confirm_s:.1f}s, "
          f"reports {t.reports_s:.1f}s")
    print(f"{len(flaky)} flaky cells (attempts that disagree)" + "".join(
        f"\n  {c.case} [{c.adapter} {c.role}]: {c.disagreement}" for c in flaky[:20]))
    print(f"run {result.run_id} on corpus {result.corpus_digest[:16]}: {opts.out / 'report.html'}, results.json, "
          f"summary.md, junit/, results/run={result.run_id}/")
    return 0


def summary_table(cells: list[Cell]) -> str:
    from parquet_conformance.reports.model import scores

    lines = [f"{'adapter':<13} {'version':<10} {'pass':>5} {'fail':>5} {'skip':>5} {'ours':>5}  failures"]
    for a in scores(cells):
        detail = ", ".join(f"{k.removeprefix('fail:')} {v}" for k, v in a.failures.items())
        lines.append(f"{a.adapter:<13} {a.version or '-'!s:<10} {a.passed:>5} {a.fail:>5} {a.skip:>5} "
                     f"{a.harness_errors:>5}  {detail}")
    return "\n".join(lines)
