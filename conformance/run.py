"""The main job: corpus x adapters, locally or on Spark, judged, stored, reported.

    verify the corpus -> run the cells (staging outcomes as they finish) -> judge -> results dataset
    -> every registered report format

Nothing runs on a corpus that does not match its manifest and its manifest's digest (corpus/dist.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from parquet_conformance.conformance import judge
from parquet_conformance.conformance.execute import AdapterSpec, WorkerSet
from parquet_conformance.conformance.model import Cell, OutcomeRow, RunInfo
from parquet_conformance.conformance.results import RunRecord, Store, check_run_id, new_run_id
from parquet_conformance.corpus import dist
from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus.build import generate
from parquet_conformance.corpus.model import CaseEntry, Manifest, matches
from parquet_conformance.reports import write_reports
from parquet_conformance.reports.model import results_document

Progress = Callable[[str], None]


class RunError(ValueError):
    """A run that cannot start as asked (no matching case, a bad corpus); the message is one line."""


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
    tracks: tuple[str, ...] = ()  # generate only these tracks' cases when the corpus is absent (default: all)


@dataclass
class Timings:
    generation_s: float = 0.0
    spark_start_s: float = 0.0
    cells_s: float = 0.0
    reports_s: float = 0.0


@dataclass
class RunResult:
    run_id: str
    cells: list[Cell]
    manifest: Manifest
    timings: Timings
    corpus_digest: str


def load_corpus(corpus: Path) -> tuple[Path, Manifest, str]:
    """The corpus root, its manifest and the manifest's digest, after every file was checked."""
    try:
        root, manifest = dist.read_manifest(corpus)
        problems = dist.verify_tree(root, manifest)
    except dist.DistError as e:
        raise RunError(str(e)) from None
    if problems:
        more = f" (and {len(problems) - 1} more: `parquet-conformance corpus verify {root}`)" if problems[1:] else ""
        raise RunError(f"{root}: {problems[0]}{more}; nothing was run")
    return root, manifest, dist.manifest_digest(root)


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
    store.begin(run_id, resume=opts.resume is not None)
    corpus = opts.corpus or opts.out / "corpus"
    t0 = time.monotonic()
    if opts.corpus is None and not (corpus / "manifest.json").is_file():
        if progress:
            progress(f"generating the corpus into {corpus}")
        generate(corpus, seed=opts.seed, tracks=[tracks.get(t) for t in opts.tracks] or None)
    timings.generation_s = time.monotonic() - t0
    root, manifest, digest = load_corpus(corpus)
    cases = selected(manifest, opts.only, opts.specs)
    names = {s.name for s in opts.specs}
    with store.lock(run_id):
        done = {(r.case, r.adapter) for r in store.staged(run_id)}
        by_track: dict[str, set[str]] = {}
        for s in opts.specs:
            by_track.setdefault(s.build().track, set()).add(s.name)
        todo = [c for c in cases if any((c.id, n) not in done for n in by_track.get(c.track, ()))]
        t1 = time.monotonic()

        def stage(rows: list[OutcomeRow]) -> None:
            store.stage(run_id, [r for r in rows if (r.case, r.adapter) not in done])

        def tick(finished: int, total: int) -> None:
            if progress:
                progress(f"[{finished}/{total}] cases done, {time.monotonic() - t0:.0f}s")

        if opts.master == "none":
            run_locally(todo, root, opts.specs, stage, tick)
        else:
            from parquet_conformance.conformance.spark import run_on_spark

            timings.spark_start_s = run_on_spark(todo, root, opts.specs, stage, master=opts.master, conf=opts.conf,
                                                 progress=tick)
        timings.cells_s = time.monotonic() - t1 - timings.spark_start_s
        wanted = {c.id for c in cases}
        outcomes = sorted((r for r in store.staged(run_id) if r.case in wanted and r.adapter in names),
                          key=lambda r: (r.case, r.adapter))
        default_roles = {t.name: t.default_role for t in tracks.all_tracks()}
        cells = judge.judge(outcomes, manifest, default_roles)
        t2 = time.monotonic()
        info = RunInfo(id=run_id, generator_version=manifest.generator["version"], seed=manifest.seed,
                       master=opts.master, corpus=str(root), only=opts.only,
                       tracks=sorted({c.track for c in cases}), corpus_digest=digest)
        store.write(run_id, cells, RunRecord(info=info, cases=sorted(wanted),
                                             corpus_cases=[c.id for c in manifest.cases]))
        write_reports(results_document(cells, manifest, info), opts.out)
    timings.reports_s = time.monotonic() - t2
    return RunResult(run_id, cells, manifest, timings, digest)


def run_locally(cases: list[CaseEntry], root: Path, specs: list[AdapterSpec], stage: Callable[[list[OutcomeRow]], None],
                progress: Callable[[int, int], None] | None = None) -> None:
    """The same cells without Spark (`--master none`): one worker per adapter, staged per case."""
    workers = WorkerSet(specs)
    try:
        for i, case in enumerate(cases, 1):
            stage(workers.run(case, (root / case.file).resolve()))
            if progress:
                progress(i, len(cases))
    finally:
        workers.close()
