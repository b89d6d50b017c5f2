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
import shlex
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from parquet_conformance.conformance.app import overhead
from parquet_conformance.conformance.app.check import expected_lists
from parquet_conformance.conformance.app.console import Heartbeat, conf, end_progress, progress_line, specs
from parquet_conformance.conformance.harness.confirm import (
    confirmation_costs,
    confirmation_tasks,
    disagreements,
    fresh_jobs,
    hang_limits,
    reusable,
)
from parquet_conformance.conformance.harness.envs import worker_command
from parquet_conformance.conformance.harness.execute import (
    AdapterSpec,
    Attempt,
    Counts,
    Job,
    representations,
    run_cells,
)
from parquet_conformance.conformance.harness.executor import executor_for
from parquet_conformance.conformance.harness.judge import Judge, to_confirm
from parquet_conformance.conformance.harness.model import Cell, OutcomeRow, RunInfo
from parquet_conformance.conformance.harness.results import (
    ResultsError,
    RunRecord,
    Store,
    check_run_id,
    new_run_id,
    read_partition,
    read_record,
    recorded_path,
    reusable_cells,
    warn,
)
from parquet_conformance.corpus import dist
from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus.build import generate_cached
from parquet_conformance.corpus.model import CaseEntry, Manifest, matches
from parquet_conformance.kernel import trees
from parquet_conformance.kernel.errors import UsageError
from parquet_conformance.reports import write_reports
from parquet_conformance.reports.compare import compare
from parquet_conformance.reports.document import results_document
from parquet_conformance.reports.model import WritersMatrix, refused_starts, reuse_text

if TYPE_CHECKING:
    from parquet_conformance.conformance.app.writers import WritersResult

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
    writers: str | None = None  # the writer x reader matrix (conformance/app/writers.py): globs over written case ids
    writer_names: tuple[str, ...] = ()  # --writer: these writers (default: every default writer)
    fresh: bool = False  # run every cell, reusing nothing from earlier runs (harness/confirm.py)
    hang_limit: float | None = None  # seconds a confirming process may take before a cell is a hang
    baseline: Path | None = None  # a results dataset whose latest run the reports compare with (default: OUT's)
    expected_failures: tuple[str, ...] = ()  # [ADAPTER=]FILE: compare with these lists instead of a previous run


@dataclass
class Timings:
    generation_s: float = 0.0
    spark_start_s: float = 0.0
    cells_s: float = 0.0
    confirm_s: float = 0.0  # the confirmation pass and the single-cell re-runs where it disagreed
    confirmed: int = 0  # non-pass cells, each confirmed (now or in the run their attempts were reused from)
    rerun: int = 0  # of which read again in the confirmation pass (the others: settled, or reused)
    disagreed: int = 0  # of those, re-run alone because the confirmation disagreed
    reused: int = 0  # cells whose attempts were reused from an earlier run (their inputs unchanged)
    reports_s: float = 0.0
    writers_s: float = 0.0  # the writer x reader matrix: writing, judging, reading
    writing_s: float = 0.0  # of which writing and judging the files
    writers_cells: int = 0
    prepared: dict[str, float] = field(default_factory=dict)  # the one-time preparations, and their seconds
    marks: dict[str, float] = field(default_factory=dict)  # phase -> when it began (time.monotonic): bench/matrix.py


@dataclass
class RunResult:
    run_id: str
    cells: list[Cell]
    manifest: Manifest
    timings: Timings
    corpus_digest: str


def selected(manifest: Manifest, only: str | None, specs: list[AdapterSpec], none_ok: bool = False) -> list[CaseEntry]:
    spec_tracks = {s.build().track for s in specs}
    cases = [c for c in manifest.cases if matches(c.id, only) and c.track in spec_tracks]
    if not cases and not none_ok:
        raise RunError(f"no case matches {only!r} for the adapters' tracks ({', '.join(sorted(spec_tracks))})")
    return cases


def run_job(opts: RunOptions, progress: Progress | None = None) -> RunResult:
    with Heartbeat(progress) as beat:
        return _run_job(opts, progress, beat)


def _run_job(opts: RunOptions, progress: Progress | None, beat: Heartbeat) -> RunResult:
    timings = Timings()
    store = Store(opts.out)
    named = opts.resume or opts.run_id  # else an id made of the time, which gives way if taken (Store.begin)
    run_id = check_run_id(named or new_run_id())
    if opts.master != "none" and importlib.util.find_spec("pyspark") is None:
        raise RunError("Spark needs pyspark: pip install 'parquet-conformance[spark]', or run with --master none")
    if named:
        store.check_begin(run_id, resume=opts.resume is not None)  # before anything is generated or written
    corpus = opts.corpus or opts.out / "corpus"
    # OUT inside the corpus (or inside any corpus, results dataset or site of ours) would break it; the corpus may
    # live in OUT (OUT/corpus is the default), where nothing the run writes goes.
    trees.separate(opts.out, {} if trees.within(corpus, opts.out) else {"the corpus": corpus})
    t0 = time.monotonic()
    timings.marks["start"] = t0
    early: Future[dict[str, float]] | None = None
    if opts.corpus is None and not (corpus / "manifest.json").is_file():
        if not store.results.is_dir():  # a first run: every adapter will read, prepared while the corpus is made
            early = in_background(prepare_adapters, opts.specs, progress)
        if progress:
            progress(f"generating the corpus into {corpus}")
        made = [0, 0]  # cases built, of

        def built(i: int, total: int, _case: str) -> None:
            made[:] = [i + 1, total]

        beat.now(lambda: f"generating the corpus: {made[0]}/{made[1]} cases, {time.monotonic() - t0:.0f}s")
        if generate_cached(corpus, seed=opts.seed, tracks=[tracks.get(t) for t in opts.tracks] or None,
                           progress=built) and progress:
            progress("the corpus was generated before with the same code, writers and seed: copied from the cache")
    timings.generation_s = time.monotonic() - t0
    beat.now("verifying the corpus")
    root, manifest, digest = dist.open_corpus(corpus)
    timings.marks["prepare"] = time.monotonic()
    # What the reports compare with is checked before anything runs: a typo must not cost a run.
    lists, list_names = expected_lists(list(opts.expected_failures), [s.name for s in opts.specs],
                                       {c.id for c in manifest.cases})
    if opts.baseline is not None and not opts.baseline.is_dir():
        raise RunError(f"--baseline {opts.baseline}: no results dataset there (OUT/results of a run)")
    cases = selected(manifest, opts.only, opts.specs, none_ok=opts.writers is not None)
    wanted = {c.id for c in cases}
    names = {s.name for s in opts.specs}
    by_track: dict[str, list[str]] = {}
    for s in opts.specs:
        by_track.setdefault(s.build().track, []).append(s.name)
    judge = Judge.of(manifest, root, representations(opts.specs))
    measured = overhead.load(opts.out)  # a file that is not one is refused now, not after every cell ran
    if opts.resume:
        check_resume(store, run_id, wanted, names, {c.id for c in manifest.cases})
    # Only a run that will run begins: a refused one leaves no trace, and its corrected run may take its id.
    run_id, started = store.begin(run_id, resume=opts.resume is not None,
                                  now=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), pick=not named)
    executor = executor_for(opts.master, opts.conf, opts.out / "logs" / f"spark-{run_id}.log", progress)
    staging = Staging(store, run_id)

    def staged() -> list[OutcomeRow]:
        return [r for r in staging.rows() if r.case in wanted and r.adapter in names]

    with store.lock(run_id), staging:
        done = {r.key for r in staged()}

        def stage(rows: list[OutcomeRow]) -> None:
            staging.add([r for r in rows if r.key not in done])

        def execute(jobs: list[Job], what: str, run_specs: list[AdapterSpec],
                    tasks: list[list[Job]] | None = None, root: Path = root, manifest: Manifest = manifest) -> None:
            counts = Counts(what)
            beat.now(counts.line)
            run_cells(executor, jobs, root, run_specs, stage, counts, tasks, manifest)
            timings.spark_start_s = getattr(executor, "started_s", 0.0)

        specs = [s.with_fingerprint() for s in opts.specs]

        def confirm(judge: Judge, manifest: Manifest, root: Path, rows_of: Callable[[], list[OutcomeRow]],
                    ) -> tuple[set[tuple[str, str]], set[tuple[str, str]], set[tuple[str, str]]]:
            """Every non-pass cell not yet settled read again (a new worker per adapter or share, under the hang
            limit), and those whose confirmation disagreed alone: (non-pass, read again, disagreed) cells."""
            beat.now("judging the cells to confirm")
            rows = rows_of()
            nonpass = to_confirm(judge.cells(rows))
            unconfirmed = nonpass - {(r.case, r.adapter) for r in rows if r.settled}
            if unconfirmed:
                limits = hang_limits(rows, specs, opts.hang_limit)
                confirming = [replace(s, timeout_s=limits[s.name]) for s in specs]
                tasks = confirmation_tasks(unconfirmed, manifest, manifest.seed, confirmation_costs(rows, limits),
                                           executor.slots)
                execute([j for t in tasks for j in t], "cells confirmed (a new worker per adapter)", confirming,
                        tasks, root=root, manifest=manifest)
            disagreed = disagreements(rows_of()) if unconfirmed else set()
            if disagreed:
                execute(fresh_jobs(disagreed, manifest), "cells re-run alone (their confirmation disagreed)",
                        [replace(s, timeout_s=limits[s.name]) for s in specs], root=root, manifest=manifest)
            return nonpass, unconfirmed, disagreed

        if not opts.fresh and opts.repeat == 1:
            beat.now("finding the cells unchanged since an earlier run")
            replayed = reused_attempts(store, run_id, cases, specs)
            stage(replayed)
            done |= {r.key for r in replayed}
            if replayed and progress:
                progress(f"{len({(r.case, r.adapter) for r in replayed})} cells unchanged since an earlier run: "
                         "their attempts reused (--fresh runs them again)")
        beat.now("preparing the adapters")
        timings.prepared = early.result() if early is not None else prepare_adapters(
            [s for s in specs if any((c.id, s.name, 0, False, False) not in done
                                     for c in cases if c.track == s.build().track)], progress)
        t1 = timings.marks["cells"] = time.monotonic()
        for rnd in range(opts.repeat):
            # Big cases first, so they do not trail at the end; later rounds shuffled, so that every cell meets
            # other predecessors in its worker.
            order = sorted(cases, key=lambda c: -c.size) if rnd == 0 else random.Random(rnd).sample(cases, len(cases))
            jobs = []
            for c in order:
                todo = tuple(n for n in by_track.get(c.track, ()) if (c.id, n, rnd, False, False) not in done)
                if todo:
                    jobs.append((c, Attempt(todo if len(todo) < len(by_track[c.track]) else None, round=rnd)))
            execute(jobs, "cells done" if opts.repeat == 1 else f"cells done in round {rnd + 1} of {opts.repeat}",
                    specs)
        timings.cells_s = time.monotonic() - t1 - timings.spark_start_s
        t2 = timings.marks["confirmation"] = time.monotonic()
        nonpass, unconfirmed, disagreed = confirm(judge, manifest, root, staged)
        timings.confirm_s, timings.confirmed, timings.rerun = time.monotonic() - t2, len(nonpass), len(unconfirmed)
        timings.disagreed = len(disagreed)
        beat.now("judging")
        staging.flush()
        rows = staged()
        cells = judge.cells(rows)
        for adapter, why in refused_starts(cells).items():  # not only a skip count: which answer, and why
            warn(f"adapter {adapter} is unavailable, every cell of it skipped: {why}")
        for adapter, role in sorted(unjudged_roles(rows, cells, manifest.cases)):  # said, not silently dropped
            warn(f"adapter {adapter} announces role {role}, which no case of the corpus names: no cell judged it "
                 "(each case names its roles; an aware reader meets the others in its first role)")
        timings.reused = sum(1 for c in cells if c.reused_from)
        matrix = None
        if opts.writers is not None:
            from parquet_conformance.conformance.app.writers import run_writers, writer_specs

            timings.marks["writers"] = time.monotonic()
            matrix = run_writers(opts.out, run_id, writer_specs(list(opts.writer_names), opts.specs), specs,
                                 opts.writers, executor, lambda jobs, what, at, m: execute(jobs, what, specs, root=at,
                                                                                        manifest=m),
                                 confirm, lambda: [r for r in staging.rows() if r.adapter in names], cells, progress)
            timings.writers_s, timings.writers_cells = matrix.writing_s + matrix.reading_s, len(matrix.cells)
            timings.writing_s = matrix.writing_s
        t3 = timings.marks["reports"] = time.monotonic()
        beat.now("writing the results and reports")
        info = RunInfo(id=run_id, generator_version=manifest.generator["version"], seed=manifest.seed,
                       master=opts.master, corpus=recorded_path(root, opts.out), only=opts.only,
                       tracks=sorted({c.track for c in cases}), corpus_digest=digest, started=started)
        comparison = compare(cells, run_id, started, store.results, opts.baseline, lists, list_names)
        doc = results_document(cells, manifest, info, root, measured, comparison,
                               {s.name: shlex.join(s.options()) for s in opts.specs},
                               writers_part(matrix, opts.out) if matrix else None)
        store.write(run_id, cells, RunRecord(info=info, cases=sorted(wanted),
                                             corpus_cases=[c.id for c in manifest.cases]), doc.parts())
        write_reports(doc, opts.out)
    executor.close()
    timings.reports_s = time.monotonic() - t3
    timings.marks["end"] = time.monotonic()
    return RunResult(run_id, cells, manifest, timings, digest)


class Staging:
    """The run's staged outcomes, kept here as they come and written to the store's staging folder at most every
    FLUSH_S seconds (and on leaving: an interrupted run resumes without redoing what was written): one file per
    second, not per task, and never read back while the run lasts."""

    FLUSH_S = 2.0

    def __init__(self, store: Store, run_id: str) -> None:
        self.store, self.run_id = store, run_id
        self._rows: dict[tuple[str, str, int, bool, bool], OutcomeRow] = {r.key: r for r in store.staged(run_id)}
        self._unwritten: list[OutcomeRow] = []
        self._flushed = time.monotonic()

    def rows(self) -> list[OutcomeRow]:
        return list(self._rows.values())

    def add(self, rows: list[OutcomeRow]) -> None:
        for r in rows:
            self._rows[r.key] = r  # a re-run attempt replaces the old one, as in the store
        self._unwritten += rows
        if time.monotonic() - self._flushed >= self.FLUSH_S:
            self.flush()

    def flush(self) -> None:
        rows, self._unwritten, self._flushed = self._unwritten, [], time.monotonic()
        self.store.stage(self.run_id, rows)

    def __enter__(self) -> Staging:
        return self

    def __exit__(self, *_: object) -> None:
        self.flush()


def check_resume(store: Store, run_id: str, wanted: set[str], names: set[str], corpus_cases: set[str]) -> None:
    """A resumed run adds to what it holds (its staged attempts, its stored cells) and never drops any of it: every
    adapter it ran and every case of the corpus it ran on must be in the resumed selection; RunError otherwise."""
    held = {(r.case, r.adapter) for r in store.staged(run_id)}
    if store.run_dir(run_id).is_dir():
        held |= {(c.case, c.adapter) for c in read_partition(store.results, run_id)}
    if adapters := sorted({a for _, a in held} - names):
        raise RunError(f"run {run_id} holds cells of {', '.join(adapters)}: --resume it with every adapter it ran "
                       "(and any to add), or their verdicts would be dropped")
    if cases := sorted({c for c, _ in held if c in corpus_cases} - wanted):
        raise RunError(f"run {run_id} holds cells of {len(cases)} cases outside this selection (e.g. {cases[0]}): "
                       "--resume it with the --only it ran with, or a wider one")


def unjudged_roles(rows: list[OutcomeRow], cells: list[Cell], cases: list[CaseEntry]) -> set[tuple[str, str]]:
    """(adapter, role) of each role an adapter announced that no cell of the run was judged in and no case of the
    corpus names (a misnamed role; one that only the cases left out by --only name is no news)."""
    judged = {(c.adapter, c.role) for c in cells}
    named = {role for c in cases for role in c.expect}
    return {(r.adapter, role) for r in rows for role in r.roles if role not in named} - judged


def writers_part(matrix: WritersResult, out: Path) -> WritersMatrix:
    """What the document keeps of the writer x reader matrix (reports/model.py WritersMatrix)."""
    from parquet_conformance.reports.document import case_summaries, diffs

    manifest = matrix.manifest
    return WritersMatrix(corpus=recorded_path(matrix.root, out), profiles=matrix.profiles, writers=matrix.writers,
                         cases=case_summaries(manifest, {c.case for c in matrix.cells}),
                         files={c.id: c.file for c in manifest.cases}, cells=matrix.cells,
                         regressions=matrix.regressions, diffs=diffs(matrix.cells, manifest, matrix.root))


def reused_attempts(store: Store, run_id: str, cases: list[CaseEntry], specs: list[AdapterSpec]) -> list[OutcomeRow]:
    """The attempts of the latest earlier run in this results dataset (by its recorded start) whose inputs are
    unchanged (harness/confirm.py reusable); none when there is no earlier run."""
    found = reusable_cells(store.results, run_id)  # damaged partitions skipped, cells checked against their digests
    if found is None:
        return []
    earlier, cells = found
    try:
        record = read_record(store.results, earlier)
    except ResultsError:
        record = None
    started = record.info.started if record and record.info.started else "start unknown"

    def attempts_then() -> list[OutcomeRow]:
        try:
            return store.staged(earlier)
        except ResultsError:  # its staging is damaged: what needed it runs again
            return []

    return reusable(cells, f"{earlier} (started {started})", cases, specs, attempts_then)


PREPARED_SHOWN_S = 1.0  # a preparation that took longer is the one-time kind (a compile, an install): it is timed


T = TypeVar("T")


def in_background(fn: Callable[..., T], *args: object) -> Future[T]:
    """`fn(*args)` in a daemon thread (a run refused meanwhile does not wait for it to end)."""
    future: Future[T] = Future()

    def work() -> None:
        try:
            future.set_result(fn(*args))
        except BaseException as e:
            future.set_exception(e)

    threading.Thread(target=work, name="background", daemon=True).start()
    return future


PREPARING_AT_ONCE = 4  # preparations wait mostly on the network (npm, PyPI) or on javac: a few at once


def prepare_adapters(specs: list[AdapterSpec], progress: Progress | None = None) -> dict[str, float]:
    """What an adapter's worker needs before it can start (a compiled Java worker, an npm prefix, a release's
    environment) is made here, on the driver, where its progress is seen, a few at once; the workers then find it
    cached. An adapter that cannot be prepared is left to its worker, which reports it unavailable. Returns the
    seconds of each preparation that took longer than PREPARED_SHOWN_S (the one-time steps: later runs find them
    cached)."""
    todo = [s for s in specs if s.command is None]
    took: dict[str, float] = {}

    def one(spec: AdapterSpec) -> None:
        t0 = time.monotonic()
        with contextlib.suppress(Exception):  # its worker says why, in one line, as every unavailable adapter does
            worker_command(spec.build())
        if (seconds := time.monotonic() - t0) > PREPARED_SHOWN_S:
            took[spec.name] = seconds
            if progress:
                progress(f"prepared {spec.name} in {seconds:.1f}s (once: cached for later runs)")

    if todo and progress:
        progress(f"preparing {len(todo)} adapters")
    with ThreadPoolExecutor(max_workers=PREPARING_AT_ONCE, thread_name_prefix="prepare") as pool:
        list(pool.map(one, todo))
    return took


def command(args: argparse.Namespace) -> int:
    if args.resume and args.run_id:
        raise UsageError("give --run-id or --resume, not both")
    if args.repeat < 1:
        raise UsageError("--repeat wants a positive number of rounds")
    if args.hang_limit is not None and not (0 < args.hang_limit < 1e6):
        raise UsageError("--hang-limit wants a positive number of seconds")
    if args.remote and not args.remote.startswith("sc://"):
        raise UsageError(f"--remote wants a Spark Connect URL sc://HOST:PORT, got {args.remote!r}")
    opts = RunOptions(out=Path(args.out), specs=specs(args, default_run=True),
                      corpus=Path(args.corpus) if args.corpus else None, only=args.only, seed=args.seed,
                      master=args.remote or args.master, conf=conf(args.conf), run_id=args.run_id, resume=args.resume,
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
    from parquet_conformance.reports.model import scores

    lines = [f"{'adapter':<13} {'version':<10} {'pass':>5} {'fail':>5} {'flaky':>5} {'skip':>5} {'ours':>5}  "
             "by level (pass/judged)  failures"]
    for a in scores(cells):
        detail = ", ".join(f"{k.removeprefix('fail:')} {v}" for k, v in a.failures.items())
        lines.append(f"{a.adapter:<13} {a.version or '-'!s:<10} {a.passed:>5} {a.fail:>5} {a.flaky:>5} {a.skip:>5} "
                     f"{a.harness_errors:>5}  {a.level_text()}  {detail}")
    return "\n".join(lines)

