"""The main job: corpus x adapters, locally or on Spark, judged, stored, reported.

    open_run: every check that can refuse the run, the corpus made (if absent) and verified -> the run begins
    -> its session (conformance/harness/session.py): reuse unchanged cells, prepare the adapters, run the cells
       (staged as they finish; --repeat: more rounds in shuffled order), confirm every cell that did not pass in a
       fresh worker, judge (attempts that disagree: flaky); --writers: the writer x reader matrix in the same
       session (app/writers.py)
    -> write_results: results dataset, every registered report format

Nothing runs on a corpus that does not match its manifest and its manifest's digest (corpus/dist.py).
"""

from __future__ import annotations

import argparse
import datetime as dt
import shlex
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

from parquet_conformance.app import overhead
from parquet_conformance.app.check import expected_lists
from parquet_conformance.app.console import Heartbeat, conf, end_progress, progress_line, specs
from parquet_conformance.app.writers import WritersResult, run_writers, writer_specs
from parquet_conformance.conformance.harness.executor import Executor
from parquet_conformance.conformance.harness.gate import Entry
from parquet_conformance.conformance.harness.judge import Judge
from parquet_conformance.conformance.harness.model import Cell, OutcomeRow, Overhead, RunInfo
from parquet_conformance.conformance.harness.placement import executor_for
from parquet_conformance.conformance.harness.results import (
    RunRecord,
    Store,
    check_run_id,
    new_run_id,
    recorded_path,
    warn,
)
from parquet_conformance.conformance.harness.session import (
    RunError,
    RunSession,
    Timings,
    check_resume,
    in_background,
    prepare_adapters,
)
from parquet_conformance.conformance.harness.specs import AdapterSpec, representations
from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus.build import generate_cached
from parquet_conformance.corpus.dist import open_corpus
from parquet_conformance.corpus.model import CaseEntry, Manifest, matches
from parquet_conformance.kernel import trees
from parquet_conformance.kernel.errors import UsageError
from parquet_conformance.reports import write_reports
from parquet_conformance.reports.compare import compare
from parquet_conformance.reports.document import case_summaries, diffs, results_document
from parquet_conformance.reports.model import WritersMatrix, refused_starts, reuse_text, scores

Progress = Callable[[str], None]


@dataclass(frozen=True)
class RunOptions:
    out: Path
    specs: list[AdapterSpec]
    corpus: Path | None = None  # default OUT/corpus, generated if absent
    only: str | None = None
    seed: int = 0
    master: str = "local[*]"  # where the tasks run (conformance/harness/placement.py): Spark's master, or "none"
    conf: dict[str, str] = field(default_factory=dict)
    run_id: str | None = None
    resume: str | None = None
    repeat: int = 1  # rounds through the matrix; rounds after the first run in shuffled order
    tracks: tuple[str, ...] = ()  # generate only these tracks' cases when the corpus is absent (default: all)
    writers: str | None = None  # the writer x reader matrix (app/writers.py): globs over written case ids
    writer_names: tuple[str, ...] = ()  # --writer: these writers (default: every default writer)
    fresh: bool = False  # run every cell, reusing nothing from earlier runs (harness/confirm.py)
    hang_limit: float | None = None  # seconds a confirming process may take before a cell is a hang
    baseline: Path | None = None  # a results dataset whose latest run the reports compare with (default: OUT's)
    expected_failures: tuple[str, ...] = ()  # [ADAPTER=]FILE: compare with these lists instead of a previous run


@dataclass
class RunResult:
    run_id: str
    cells: list[Cell]
    manifest: Manifest
    timings: Timings
    corpus_digest: str


@dataclass
class Opened:
    """What a run checked and opened before it begins: nothing of it is written yet."""

    store: Store
    run_id: str  # the id asked for (or made of the time: Store.begin gives way if it is taken)
    executor: Executor
    root: Path
    manifest: Manifest
    digest: str
    cases: list[CaseEntry]
    judge: Judge
    lists: dict[str, list[Entry]]  # the expected-failure lists the reports compare with (check.expected_lists)
    list_names: list[str]
    measured: list[Overhead]
    timings: Timings
    early: Future[dict[str, float]] | None = None  # the adapters' preparations begun while the corpus was made


def selected(manifest: Manifest, only: str | None, specs: list[AdapterSpec], none_ok: bool = False) -> list[CaseEntry]:
    spec_tracks = {s.build().track for s in specs}
    cases = [c for c in manifest.cases if matches(c.id, only) and c.track in spec_tracks]
    if not cases and not none_ok:
        raise RunError(f"no case matches {only!r} for the adapters' tracks ({', '.join(sorted(spec_tracks))})")
    return cases


def run_job(opts: RunOptions, progress: Progress | None = None) -> RunResult:
    """Open (every check first), begin, run the session's phases, store and report (the module's doc)."""
    with Heartbeat(progress) as beat:
        opened = open_run(opts, progress, beat)
        # Only a run that will run begins: a refused one leaves no trace, and its corrected run may take its id.
        run_id, started = opened.store.begin(opened.run_id, resume=opts.resume is not None,
                                             now=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                                             pick=not (opts.resume or opts.run_id))
        with RunSession(opened.store, run_id, opened.executor, opts.specs, opened.cases, opened.root,
                        opened.manifest, beat, progress, opts.hang_limit, opened.timings) as run:
            if not opts.fresh and opts.repeat == 1:
                run.reuse()
            run.prepare(opened.early)
            run.cells(opts.repeat)
            run.confirm_run(opened.judge)
            cells = run.judged(opened.judge)
            warn_unjudged(run.rows(), cells, opened.manifest.cases)
            matrix = None
            if opts.writers is not None:
                matrix = run_writers(run, writer_specs(list(opts.writer_names), opts.specs), opts.writers, cells)
            write_results(run, opts, opened, cells, matrix, started)
    run.timings.marks["end"] = time.monotonic()
    return RunResult(run_id, cells, opened.manifest, run.timings, opened.digest)


def open_run(opts: RunOptions, progress: Progress | None, beat: Heartbeat) -> Opened:
    """Every check that can refuse the run, the corpus made (if absent) and verified, the cases selected: before
    anything of the run is written."""
    timings = Timings()
    store = Store(opts.out)
    named = opts.resume or opts.run_id  # else an id made of the time, which gives way if taken (Store.begin)
    run_id = check_run_id(named or new_run_id())
    executor = executor_for(opts.master, opts.conf, opts.out / "logs" / f"spark-{run_id}.log", progress)
    if named:
        store.check_begin(run_id, resume=opts.resume is not None)  # before anything is generated or written
    corpus = opts.corpus or opts.out / "corpus"
    # OUT inside the corpus (or inside any corpus, results dataset or site of ours) would break it; the corpus may
    # live in OUT (OUT/corpus is the default), where nothing the run writes goes.
    trees.separate(opts.out, {} if trees.within(corpus, opts.out) else {"the corpus": corpus})
    t0 = timings.mark("start")
    early = None
    if opts.corpus is None and not (corpus / "manifest.json").is_file():
        if not store.results.is_dir():  # a first run: every adapter will read, prepared while the corpus is made
            early = in_background(prepare_adapters, opts.specs, progress)
        make_corpus(corpus, opts, progress, beat)
    timings.generation_s = time.monotonic() - t0
    beat.now("verifying the corpus")
    root, manifest, digest = open_corpus(corpus)
    timings.mark("prepare")
    # What the reports compare with is checked before anything runs: a typo must not cost a run.
    lists, list_names = expected_lists(list(opts.expected_failures), [s.name for s in opts.specs],
                                       {c.id for c in manifest.cases})
    if opts.baseline is not None and not opts.baseline.is_dir():
        raise RunError(f"--baseline {opts.baseline}: no results dataset there (OUT/results of a run)")
    cases = selected(manifest, opts.only, opts.specs, none_ok=opts.writers is not None)
    measured = overhead.load(opts.out)  # a file that is not one is refused now, not after every cell ran
    if opts.resume:
        check_resume(store, run_id, {c.id for c in cases}, {s.name for s in opts.specs},
                     {c.id for c in manifest.cases})
    return Opened(store, run_id, executor, root, manifest, digest, cases,
                  Judge.of(manifest, root, representations(opts.specs)), lists, list_names, measured, timings, early)


def make_corpus(corpus: Path, opts: RunOptions, progress: Progress | None, beat: Heartbeat) -> None:
    """The corpus generated into `corpus` (or copied from the cache of corpora made by the same code and seed)."""
    if progress:
        progress(f"generating the corpus into {corpus}")
    made, t0 = [0, 0], time.monotonic()  # cases built, of

    def built(i: int, total: int, _case: str) -> None:
        made[:] = [i + 1, total]

    beat.now(lambda: f"generating the corpus: {made[0]}/{made[1]} cases, {time.monotonic() - t0:.0f}s")
    if generate_cached(corpus, seed=opts.seed, tracks=[tracks.get(t) for t in opts.tracks] or None,
                       progress=built) and progress:
        progress("the corpus was generated before with the same code, writers and seed: copied from the cache")


def write_results(run: RunSession, opts: RunOptions, opened: Opened, cells: list[Cell],
                  matrix: WritersResult | None, started: str) -> None:
    """The run's cells, record and document into the results dataset, then every registered report format."""
    t3 = run.timings.mark("reports")
    run.beat.now("writing the results and reports")
    manifest, root = opened.manifest, opened.root
    info = RunInfo(id=run.run_id, generator_version=manifest.generator["version"], seed=manifest.seed,
                   master=opts.master, corpus=recorded_path(root, opts.out), only=opts.only,
                   tracks=sorted({c.track for c in opened.cases}), corpus_digest=opened.digest, started=started)
    comparison = compare(cells, run.run_id, started, run.store.results, opts.baseline, opened.lists,
                         opened.list_names)
    doc = results_document(cells, manifest, info, root, opened.measured, comparison,
                           {s.name: shlex.join(s.options()) for s in opts.specs},
                           writers_part(matrix, opts.out) if matrix else None)
    run.store_cells(cells, RunRecord(info=info, cases=sorted(run.wanted), corpus_cases=[c.id for c in manifest.cases]),
                    doc.parts())
    write_reports(doc, opts.out)
    run.timings.reports_s = time.monotonic() - t3


def warn_unjudged(rows: list[OutcomeRow], cells: list[Cell], cases: list[CaseEntry]) -> None:
    """What a run's cells do not show by their count: an adapter that never started, a role no case names."""
    for adapter, why in refused_starts(cells).items():  # not only a skip count: which answer, and why
        warn(f"adapter {adapter} is unavailable, every cell of it skipped: {why}")
    for adapter, role in sorted(unjudged_roles(rows, cells, cases)):  # said, not silently dropped
        warn(f"adapter {adapter} announces role {role}, which no case of the corpus names: no cell judged it "
             "(each case names its roles; an aware reader meets the others in its first role)")


def unjudged_roles(rows: list[OutcomeRow], cells: list[Cell], cases: list[CaseEntry]) -> set[tuple[str, str]]:
    """(adapter, role) of each role an adapter announced that no cell of the run was judged in and no case of the
    corpus names (a misnamed role; one that only the cases left out by --only name is no news)."""
    judged = {(c.adapter, c.role) for c in cells}
    named = {role for c in cases for role in c.expect}
    return {(r.adapter, role) for r in rows for role in r.roles if role not in named} - judged


def writers_part(matrix: WritersResult, out: Path) -> WritersMatrix:
    """What the document keeps of the writer x reader matrix (reports/model.py WritersMatrix)."""
    manifest = matrix.manifest
    return WritersMatrix(corpus=recorded_path(matrix.root, out), profiles=matrix.profiles, writers=matrix.writers,
                         cases=case_summaries(manifest, {c.case for c in matrix.cells}),
                         files={c.id: c.file for c in manifest.cases}, cells=matrix.cells,
                         regressions=matrix.regressions, diffs=diffs(matrix.cells, manifest, matrix.root),
                         variants=matrix.variants)


def command(args: argparse.Namespace) -> int:
    if args.resume and args.run_id:
        raise UsageError("give --run-id or --resume, not both")
    if args.repeat < 1:
        raise UsageError("--repeat wants a positive number of rounds")
    if args.hang_limit is not None and not (0 < args.hang_limit < 1e6):
        raise UsageError("--hang-limit wants a positive number of seconds")
    opts = RunOptions(out=Path(args.out), specs=specs(args, default_run=True),
                      corpus=Path(args.corpus) if args.corpus else None, only=args.only, seed=args.seed,
                      master=args.master, conf=conf(args.conf), run_id=args.run_id, resume=args.resume,
                      repeat=args.repeat, tracks=tuple(args.track or ()), fresh=args.fresh, hang_limit=args.hang_limit,
                      baseline=Path(args.baseline) if args.baseline else None,
                      expected_failures=tuple(args.expected_failures or ()),
                      writers=args.writers, writer_names=tuple(args.writer or ()))
    result = run_job(opts, progress_line)
    end_progress()
    t = result.timings
    print(summary_table(result.cells))
    flaky = [c for c in result.cells if c.verdict == "flaky"]
    ran = len(result.cells) - t.reused
    print(f"{len(result.cells)} cells ({reuse_text(result.cells)}), "
          f"{ran / max(t.cells_s, 1e-9):.1f} cells/s; time: generation {t.generation_s:.1f}s, Spark start "
          f"{t.spark_start_s:.1f}s, cells {t.cells_s:.1f}s, confirming {t.confirmed} non-pass cells ({t.rerun} read "
          f"again, a new worker per adapter or share; {t.disagreed} re-run alone) {t.confirm_s:.1f}s, "
          f"reports {t.reports_s:.1f}s" + (f"; writer x reader matrix {t.writers_s:.1f}s (writing and judging "
                                            f"{t.writing_s:.1f}s, {t.writers_cells} reader cells with their "
                                            f"confirmations {t.writers_s - t.writing_s:.1f}s): writers.html"
                                            if opts.writers is not None else ""))
    if t.prepared:
        slowest = sorted(t.prepared.items(), key=lambda kv: -kv[1])
        print("one-time preparation (cached for later runs): " + ", ".join(f"{n} {s:.1f}s" for n, s in slowest))
    print(f"{len(flaky)} flaky cells (some attempts passed, some failed)" + "".join(
        f"\n  {c.case} [{c.adapter} {c.role}]: {c.disagreement}" for c in flaky[:20]))
    print(f"run {result.run_id} on corpus {result.corpus_digest[:16]}: {opts.out / 'report.html'}, results.json, "
          f"summary.md, junit/, results/run={result.run_id}/")
    return 0


def summary_table(cells: list[Cell]) -> str:
    lines = [f"{'adapter':<13} {'version':<10} {'pass':>5} {'fail':>5} {'flaky':>5} {'skip':>5} {'ours':>5}  "
             "by level (pass/judged)  failures"]
    for a in scores(cells):
        detail = ", ".join(f"{k.removeprefix('fail:')} {v}" for k, v in a.failures.items())
        lines.append(f"{a.adapter:<13} {a.version or '-'!s:<10} {a.passed:>5} {a.fail:>5} {a.flaky:>5} {a.skip:>5} "
                     f"{a.harness_errors:>5}  {a.level_text()}  {detail}")
    return "\n".join(lines)

