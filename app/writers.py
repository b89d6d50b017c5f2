"""The writer x reader matrix (`run --writers`): writers write their track's tables, each file is judged as a
writer's work, and every reader reads every file, as written and with the spec's extensions added.

    writers (adapters with write profiles) x (profile, table)  --Spark tasks, one per writer-->  files
    files --the track's strict decoder and reference (judge_written)--> writer cells (Judge.writer_cell)
    files --corpus/written.py--> OUT/written/<run>/ (a corpus: each file a base, its variants its cases)
    written corpus x readers --the run's cells machinery, confirmed in fresh workers--> reader cells (Judge)
    reader failures on written files --> OUT/regressions (ship one: corpus add-regression --from OUT/regressions)

A file is judged against the table the writer was given (its verdict: conformance/harness/judge.py); readers are
judged against what the file holds (corpus/track.py Written.expected), so that a writer's mistake is the writer's,
once, and never every reader's.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from parquet_conformance.conformance import adapters
from parquet_conformance.conformance.adapters.writing import writes
from parquet_conformance.conformance.harness.executor import Executor
from parquet_conformance.conformance.harness.judge import Judge, fails_alike
from parquet_conformance.conformance.harness.model import WRITTEN, Cell, Verdict, WriterCell, WriteRow
from parquet_conformance.conformance.harness.reading import Attempt
from parquet_conformance.conformance.harness.session import RunSession
from parquet_conformance.conformance.harness.specs import AdapterSpec, representations
from parquet_conformance.conformance.harness.writing import jobs_of, write_all
from parquet_conformance.corpus import dist
from parquet_conformance.corpus import regression_store as regressions
from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus import written as written_corpus
from parquet_conformance.corpus.model import Manifest, matches
from parquet_conformance.corpus.track import Track, Writable
from parquet_conformance.kernel.errors import UsageError

Progress = Callable[[str], None]
WRITERS_FILE = "writers.json"  # the writer cells, beside the written corpus's manifest (a resumed run reads them)


@dataclass
class WritersResult:
    root: Path  # the written corpus
    manifest: Manifest
    writers: list[WriterCell]
    cells: list[Cell]  # every reader on every written file
    profiles: dict[str, str]
    variants: dict[str, str]  # variant -> what readers are given (Writable.written_variants)
    regressions: list[str] = field(default_factory=list)  # kept in OUT/regressions
    writing_s: float = 0.0
    reading_s: float = 0.0


def writer_specs(names: list[str] | None, readers: list[AdapterSpec]) -> list[AdapterSpec]:
    """`--writer NAME` (repeatable, NAME==VERSION for a release), or every default writer of the readers' tracks."""
    reader_tracks = {s.build().track for s in readers}
    chosen = [AdapterSpec.parse(n) for n in names] if names else [
        AdapterSpec(n) for t in sorted(reader_tracks) for n in adapters.writers(t, default=True)]
    for spec in chosen:
        if not writes(spec.build()):
            raise UsageError(f"--writer {spec.name}: {spec.of or spec.name} does not write "
                             f"(writers: {', '.join(adapters.writers())})")
    return chosen


def writable_track(specs: list[AdapterSpec]) -> Track:
    names = {s.build().track for s in specs}
    found = [tracks.get(n) for n in sorted(names) if isinstance(tracks.get(n), Writable)]
    if len(found) != 1:
        raise UsageError(f"--writers needs the writers of one track whose files others write; got {sorted(names)}")
    return found[0]


def run_writers(run: RunSession, writers: list[AdapterSpec], only: str | None, main_cells: list[Cell]) -> WritersResult:
    """Writes (unless a resumed run wrote before), judges the writers, runs the readers on the written corpus: the
    run's session reads and confirms those cells as it does its own."""
    run.timings.mark("writers")
    track = writable_track(writers)
    assert isinstance(track, Writable)
    root = run.store.out / "written" / run.run_id
    t0 = time.monotonic()
    manifest, writer_cells = written_before(root) or _write_all(root, track, writers, run.executor, run.progress)
    writing_s = time.monotonic() - t0
    cases = [c for c in manifest.cases if matches(c.id, only)]
    readers = [s for s in run.specs if s.build().track == track.name]
    ids, names = {c.id for c in cases}, {s.name for s in readers}
    t1 = time.monotonic()
    done = {r.key for r in run.rows(ids, names)}
    order = sorted(cases, key=lambda c: -c.size)
    run.execute([(c, Attempt()) for c in order if any((c.id, n, 0, False, False) not in done for n in names)],
                "written files read", root=root, manifest=manifest)
    judge = Judge.of(manifest, root, representations(readers))
    run.confirm(judge, lambda: run.rows(ids, names), root, manifest)  # as the run confirms its own cells
    result = WritersResult(root=root, manifest=manifest, writers=writer_cells, cells=judge.cells(run.rows(ids, names)),
                           profiles=dict(track.write_profiles()), variants=dict(track.written_variants()),
                           writing_s=writing_s,
                           reading_s=time.monotonic() - t1)
    result.regressions = keep_regressions(run.store.out / "regressions", result, main_cells)
    warn_uncompared(writer_cells, main_cells)
    run.timings.writers_s, run.timings.writing_s = result.writing_s + result.reading_s, result.writing_s
    run.timings.writers_cells = len(result.cells)
    return result


def written_before(root: Path) -> tuple[Manifest, list[WriterCell]] | None:
    """The written corpus and writer cells a resumed run made before, if it made them."""
    if not ((root / "manifest.json").is_file() and (root / WRITERS_FILE).is_file()):
        return None
    cells = [WriterCell.from_json(c) for c in json.loads((root / WRITERS_FILE).read_text(encoding="utf-8"))]
    return dist.read_manifest(root)[1], cells


def warn_uncompared(writer_cells: list[WriterCell], main_cells: list[Cell]) -> None:
    """A written table whose own base the run did not read: nothing to tell a reader's failure on the file from its
    failure on the table."""
    missing = sorted({f"base/{w.table}" for w in writer_cells if w.cases} - {c.case for c in main_cells})
    if missing:
        print(f"parquet-conformance: warning: the run read none of {', '.join(missing[:6])}"
              f"{' ...' if len(missing) > 6 else ''}: a reader's failure on a written file cannot be told from its "
              "failure on the table itself, and every one is kept in regressions/ (run the base/* cases with "
              "--writers)", file=sys.stderr)


def _write_all(root: Path, track: Track, writers: list[AdapterSpec], executor: Executor,
               progress: Progress | None) -> tuple[Manifest, list[WriterCell]]:
    assert isinstance(track, Writable)
    wanted = list(track.write_jobs())
    tasks = jobs_of(writers, wanted)
    inputs = {t: track.write_input(t) for _, t in wanted}
    got: list[tuple[WriteRow, bytes | None]] = []

    def done(rows: list[tuple[WriteRow, bytes | None]]) -> None:
        got.extend(rows)
        if progress and rows:
            progress(f"[{len({r.writer for r, _ in got})}/{len(tasks)}] writers done ({rows[0][0].writer})")

    if progress:
        progress(f"{len(tasks)} writers write {sum(len(t) for t in tasks)} files")
    write_all(executor, tasks, inputs, done)
    # A write the library never got (a table its adapter cannot hand over) names the worker's version; the writer's is
    # the one its files name (hyparquet's worker reads with hyparquet and writes with hyparquet-writer).
    wrote = {r.writer: r.version for r, _ in got if r.outcome == WRITTEN and r.version}
    got = [(replace(r, version=wrote.get(r.writer, r.version)), d) for r, d in got]
    files, cells = [], []
    for row, data in sorted(got, key=lambda rd: (rd[0].writer, rd[0].profile, rd[0].table, rd[0].columns or [])):
        verdict_of = None
        if row.outcome == WRITTEN and data is not None:
            verdict_of = track.judge_written(row.table, data, row.columns)
            files.append(written_corpus.WrittenFile(row.file_id, row.writer, row.version, row.profile, row.table,
                                                    row.columns, data, verdict_of))
        variants = [v.name for v in verdict_of.variants] if verdict_of else []
        cells.append(Judge.writer_cell(row, verdict_of, [written_corpus.case_id(row.file_id, v) for v in variants]))
    if root.exists():
        shutil.rmtree(root)
    manifest = written_corpus.build(root, track, files)
    (root / WRITERS_FILE).write_text(json.dumps([c.to_json() for c in cells], indent=1, ensure_ascii=True) + "\n",
                                     encoding="utf-8")
    return manifest, cells


def keep_regressions(store: Path, result: WritersResult, main_cells: list[Cell]) -> list[str]:
    """Every written file a reader fails (beyond what it fails on the track's own base of that table, the same way,
    and beyond a harness error) as a case of the store OUT/regressions, citing its writer: shipped into the corpus
    with `corpus add-regression --from OUT/regressions --id ID`. Returns the ids kept (new and already there)."""
    by_file = {w.cases[0].rpartition("/")[0]: w for w in result.writers if w.cases}
    failing: dict[str, list[Cell]] = {}
    for cell in result.cells:
        writer = by_file.get(result.manifest.case(cell.case).base)
        if writer is None or not cell.verdict.is_failure or cell.verdict == Verdict.FLAKY:
            continue
        if inherited(cell, writer.table, main_cells):
            continue
        failing.setdefault(cell.case, []).append(cell)
    kept = []
    existing = {e["id"] for e in regressions.load(store)}
    for case_id, cells in sorted(failing.items()):
        case = result.manifest.case(case_id)
        writer = by_file[case.base]
        rid = f"{regressions.PREFIX}{case_id}"
        kept.append(rid)
        if rid in existing:
            continue
        readers = ", ".join(f"{c.adapter} {c.version or ''} ({c.verdict})" for c in cells)
        regressions.add(
            result.root / case.file, rid, {r: str(e) for r, e in case.expect.items() if r != "metadata"},
            case.citations, title=f"{case.title} — fails {readers}",
            notes=f"Found by `run --writers`: {readers}. {case.notes}".strip(), base=writer.table, track=case.track,
            root=store, data_unknown=case.data_unknown or writer.same_data is not True,
            found_by={"tool": "run --writers", "writer": writer.writer, "version": writer.version,
                      "profile": writer.profile, "table": writer.table, "columns": writer.columns,
                      "created_by": writer.created_by, "variant": case_id.rsplit("/", 1)[-1],
                      "readers": [{"adapter": c.adapter, "version": c.version, "verdict": str(c.verdict),
                                   "message": (c.error_message or "")[:300]} for c in cells]})
    return kept


def inherited(cell: Cell, table: str, main_cells: list[Cell]) -> bool:
    """The reader fails the track's own file of the table (the run's `base/<table>` case) the same way: the failure
    is the table's, not the writer's file's."""
    return fails_alike(cell, next((c for c in main_cells if c.case == f"base/{table}" and c.adapter == cell.adapter),
                                  None))
