"""The results store: one output directory holds the results dataset, the staged outcomes of runs in
progress, and a lock per run being written.

    OUT/results/run=ID/cells.parquet    judged cells, one partition per run (hive-partitioned)
    OUT/results/run=ID/_run.json        the run record; _document.json: the rest of its reports' document
    OUT/staging/run=ID/*.parquet         outcomes as tasks finish, so that --resume redoes nothing
    OUT/staging/run=ID/.lock             held (flock) by the process writing the run

Run ids are names (corpus.model.NAME_RE, at most MAX_NAME characters): they become directory names. The Arrow
schemas are the records' (conformance/harness/derived.py); a run record is held to its JSON Schema
(kernel/documents.py) before anything uses it, and a staged file that is not one of ours is named, never a
traceback.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import hashlib
import itertools
import json
import os
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from parquet_conformance.conformance.harness.derived import OUTCOME_SCHEMA, RESULT_SCHEMA
from parquet_conformance.conformance.harness.model import STARTED, Cell, OutcomeRow, RunInfo
from parquet_conformance.corpus.model import CASE_ID, MAX_NAME, NAME_RE
from parquet_conformance.kernel import documents, trees
from parquet_conformance.kernel.documents import DocumentError, plain

RUN_RECORD = "_run.json"  # "_": dataset readers (pyarrow, Spark) skip it
DOCUMENT = "_document.json"  # what a report draws besides the cells (reports/model.py ResultsDocument.parts)
DIGESTS = "_digests.json"  # each cell's digest (cell_digest), checked before a later run reuses the cell
MAX_RECORD = 64 << 20  # a run record: every case id of its corpus (the default corpus's: 30 KiB)
MAX_DOCUMENT = 256 << 20  # a run's document parts: every case's summary and citations, data diffs


@dataclass(frozen=True)
class RunRecord:
    """Kept as OUT/results/run=ID/_run.json: what the gate needs to know of a run besides its cells."""

    info: RunInfo
    cases: list[str] = field(metadata={"schema": {"items": CASE_ID}})  # the cases the run selected
    corpus_cases: list[str] = field(metadata={"schema": {"items": CASE_ID}})  # every case of the corpus it ran on

    def to_json(self) -> dict[str, Any]:
        return plain(self)

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> RunRecord:
        """A record held to its JSON Schema first: DocumentError naming the field otherwise."""
        documents.validate(obj, documents.record_schema(RunRecord))
        return cls(info=RunInfo(**{k: v for k, v in obj["info"].items() if k in RunInfo.__dataclass_fields__}),
                   cases=list(obj["cases"]), corpus_cases=list(obj["corpus_cases"]))


class ResultsError(ValueError):
    """A run that cannot be used as asked: a bad id, unknown, taken, locked, or unreadable."""


def new_run_id() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")


def check_run_id(run_id: str) -> str:
    """A run id names a folder: letters, digits, '.', '_', '+', '-' (not first), at most MAX_NAME characters."""
    if not NAME_RE.fullmatch(run_id) or run_id in (".", "..") or len(run_id) > MAX_NAME:
        shown = run_id if len(run_id) <= 40 else run_id[:40] + "..."
        raise ResultsError(f"run id {shown!r}: use at most {MAX_NAME} letters, digits, '.', '_', '+', '-' "
                           "(a letter or digit first)")
    return run_id


def started_at(text: str | None) -> dt.datetime | None:
    """A recorded start time as an aware datetime (UTC when it names no zone), or None."""
    if text is None or not re.fullmatch(STARTED, text):
        return None
    try:
        when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


class Store:
    def __init__(self, out: Path) -> None:
        self.out = out
        self.results = out / "results"
        self.staging_root = out / "staging"

    def run_dir(self, run_id: str) -> Path:
        return self.results / f"run={check_run_id(run_id)}"

    def staging(self, run_id: str) -> Path:
        return self.staging_root / f"run={check_run_id(run_id)}"

    def exists(self, run_id: str) -> bool:
        return self.run_dir(run_id).exists() or self.staging(run_id).exists()

    def check_begin(self, run_id: str, resume: bool) -> None:
        """A new run must not exist yet; a resumed one must."""
        if resume and not self.exists(run_id):
            raise ResultsError(f"there is no run {run_id!r} in {self.out} to resume")
        if not resume and self.exists(run_id):
            raise ResultsError(f"run {run_id} already exists in {self.out}; use --resume {run_id} or another --run-id")

    def begin(self, run_id: str, resume: bool, now: str, pick: bool = False) -> tuple[str, str]:
        """The run begins (check_begin's rules hold): (its id, when it started: `now` for a new run, the first start
        for a resumed one, kept in its staging folder; `now` if that is gone). A new run claims its staging folder in
        one step (mkdir), so that no two processes begin the same run; with `pick` (an id made by new_run_id) a
        taken id gives way to the first free of ID-2, ID-3, ...: two runs started in one second never collide."""
        mark = self.staging(run_id) / "started"
        if resume:
            self.check_begin(run_id, resume)
            if mark.is_file():
                try:
                    kept = documents.read_bytes(mark, 100).decode("ascii").strip()
                except (DocumentError, UnicodeDecodeError):
                    kept = ""
                if started_at(kept) is None:
                    raise ResultsError(f"{mark}: not the start time of a run")
                return run_id, kept
            mark.parent.mkdir(parents=True, exist_ok=True)
            mark.write_text(now, encoding="utf-8")
            return run_id, now
        self.staging_root.mkdir(parents=True, exist_ok=True)
        for n in itertools.count(1):
            candidate = check_run_id(run_id if n == 1 else f"{run_id}-{n}")
            try:
                if self.run_dir(candidate).exists():
                    raise FileExistsError(candidate)
                self.staging(candidate).mkdir()
            except FileExistsError:
                if pick:
                    continue
                self.check_begin(candidate, resume)  # says why in one line
                raise
            (self.staging(candidate) / "started").write_text(now, encoding="utf-8")
            return candidate, now
        raise AssertionError("unreachable")

    @contextlib.contextmanager
    def lock(self, run_id: str) -> Iterator[None]:
        """Held while a process writes the run: a second writer fails at once instead of interleaving."""
        staging = self.staging(run_id)
        staging.mkdir(parents=True, exist_ok=True)
        with (staging / ".lock").open("w") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise ResultsError(f"run {run_id} is being written by another process") from None
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def stage(self, run_id: str, rows: list[OutcomeRow]) -> None:
        """Append finished outcomes (a file per call, written under a temporary name, then renamed)."""
        if not rows:
            return
        staging = self.staging(run_id)
        staging.mkdir(parents=True, exist_ok=True)
        name = f"part-{time.time_ns()}-{os.getpid()}.parquet"
        tmp = staging / f".{name}.tmp"
        pq.write_table(pa.Table.from_pylist([r.to_row() for r in rows], schema=OUTCOME_SCHEMA), tmp)
        tmp.replace(staging / name)

    def staged(self, run_id: str) -> list[OutcomeRow]:
        staging = self.staging(run_id)
        files = sorted(staging.glob("part-*.parquet")) if staging.exists() else []
        rows = []
        for path in files:  # one at a time, so that a file that is not ours is named
            try:
                rows += [OutcomeRow.from_row(r) for r in pq.read_table(path, schema=OUTCOME_SCHEMA).to_pylist()]
            except (pa.ArrowException, OSError, KeyError, ValueError, TypeError) as e:
                raise ResultsError(f"{path}: not a staged outcome file ({_first_line(e)}); remove it, and --resume "
                                   "redoes its cells") from None
        return list({r.key: r for r in rows}.values())  # a re-run attempt replaces the old one

    def write(self, run_id: str, cells: list[Cell], record: RunRecord, document: dict[str, Any] | None = None) -> Path:
        """Writes (or, on resume, replaces) the run's partition of the results dataset, its _run.json and, given,
        the rest of its document (_document.json), so that reports are rebuilt from the dataset alone."""
        target = self.run_dir(run_id)
        target.mkdir(parents=True, exist_ok=True)
        tmp = target / ".cells.parquet.tmp"
        pq.write_table(pa.Table.from_pylist([c.to_row() for c in cells], schema=RESULT_SCHEMA), tmp)
        for old in target.glob("*.parquet"):
            old.unlink()
        tmp.replace(target / "cells.parquet")
        trees.write_atomic(target / DIGESTS, json.dumps({cell_key(c): cell_digest(c) for c in cells}, indent=0) + "\n")
        trees.write_atomic(target / RUN_RECORD, json.dumps(record.to_json(), indent=1) + "\n")
        if document is not None:
            trees.write_atomic(target / DOCUMENT, json.dumps(document, ensure_ascii=True) + "\n")
        return target


def recorded_path(path: Path, out: Path) -> str:
    """How a run records a path of its own (its corpus, its written corpus): relative to its output folder when it is
    inside it, so that the run keeps it wherever it is moved, copied or downloaded to; absolute otherwise (never
    relative to the folder the run was started from)."""
    where, folder = path.resolve(), out.resolve()
    return where.relative_to(folder).as_posix() if where.is_relative_to(folder) else str(where)


def run_path(results: Path, recorded: str) -> Path:
    """Where a path a run recorded (recorded_path) is now: an absolute one as it is; a relative one against the run's
    folder (the folder holding its results dataset), never against the current folder. Runs recorded before paths
    were kept so recorded them relative to where they were started (out/latest/corpus): where the run's folder does
    not hold such a path, its tail is looked for in the run's folder (out/latest/corpus: corpus, in a copy of the
    run), then the path from each folder above it (the run where it was made)."""
    path = Path(recorded)
    if path.is_absolute():
        return path
    folder = results.resolve().parent
    tails = [Path(*path.parts[k:]) for k in range(len(path.parts))]
    found = [folder / tail for tail in tails] + [above / path for above in folder.parents]
    return next((p for p in found if p.exists()), folder / path)


def write_document_parts(results: Path, run_id: str, document: dict[str, Any]) -> None:
    """A stored run's _document.json replaced (`report --rewrite` with a new comparison), atomically."""
    target = results / f"run={check_run_id(run_id)}"
    trees.write_atomic(target / DOCUMENT, json.dumps(document, ensure_ascii=True) + "\n")


def warn(message: str) -> None:
    """One warning line on stderr, once per process for the same message (a damaged partition met twice)."""
    if message not in _WARNED:
        _WARNED.add(message)
        print(f"parquet-conformance: warning: {' '.join(message.split())[:400]}", file=sys.stderr)


_WARNED: set[str] = set()


def partition_ids(results: Path) -> list[str]:
    """The run ids of a results dataset's partitions (its run=ID folders), sorted; ResultsError when it has none. A
    folder whose name is no run id is no run of ours: left out with a warning."""
    if not results.is_dir():
        raise ResultsError(f"{results}: no results dataset (run `parquet-conformance run` first)")
    runs = []
    for p in sorted(results.glob("run=*")):
        run_id = p.name.removeprefix("run=")
        if not p.is_dir() or p.is_symlink():
            continue
        try:
            runs.append(check_run_id(run_id))
        except ResultsError:
            warn(f"{p}: not a run's partition (its name is no run id); left out")
    if not runs:
        raise ResultsError(f"{results}: the results dataset holds no run")
    return runs


def read_partition(results: Path, run_id: str) -> list[Cell]:
    """The cells of one run's partition, read alone: a damaged partition (a file that is not Parquet, a row that is not
    a cell) is a ResultsError naming it, and no other run's reading depends on it."""
    folder = results / f"run={check_run_id(run_id)}"
    try:
        rows = _partition_table(folder).to_pylist()
    except (pa.ArrowException, OSError, trees.TreeError) as e:
        raise ResultsError(f"{folder}: a damaged partition, not readable ({_first_line(e)})") from None
    try:
        return [Cell.from_row(r) for r in rows]
    except (KeyError, ValueError, TypeError) as e:
        raise ResultsError(f"{results}: run {run_id} has a row that is not a cell ({e})") from None


def _partition_table(folder: Path) -> pa.Table:
    """Every Parquet file of a partition (as a dataset reader sees it: a name starting with "." or "_" is not data),
    each conformed to RESULT_SCHEMA (a column an older run lacks is null), opened with no link followed (a link or
    anything but a file there is damage: TreeError). Not pyarrow.dataset: importing it imports pandas, a third of a
    second of every command that reads results."""
    tables = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith((".", "_")):
            continue
        with trees.open_below(folder, path.name) as f:
            table = pq.ParquetFile(f).read()
        tables.append(pa.Table.from_arrays(
            [table.column(f.name).cast(f.type) if f.name in table.column_names else pa.nulls(len(table), f.type)
             for f in RESULT_SCHEMA], schema=RESULT_SCHEMA))
    return pa.concat_tables(tables) if tables else RESULT_SCHEMA.empty_table()


def _first_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0][:200]


def latest(results: Path, runs: list[str]) -> str:
    """The run that started last by its record (a run stored without one counts as the oldest); runs that started
    together, or none with a record, by id in natural order (pr-10 after pr-9). A record that does not read is a
    ResultsError naming it: which run is the latest cannot be known, and the gate or a report must not fall back on
    another run's data."""
    def key(run_id: str) -> tuple[dt.datetime, tuple[tuple[int, int | str], ...]]:
        record = read_record(results, run_id)
        when = started_at(record.info.started) if record else None
        return when or dt.datetime.min.replace(tzinfo=dt.UTC), natural_key(run_id)

    return max(runs, key=key)


def natural_key(run_id: str) -> tuple[tuple[int, int | str], ...]:
    """Run ids in natural order: digits as numbers (pr-9 before pr-10)."""
    return tuple((1, int(p)) if p.isdigit() else (0, p) for p in re.findall(r"\d+|\D+", run_id))


def read_cells(results: Path, run_id: str | None = None) -> tuple[str, list[Cell]]:
    """The cells of one run (default: the latest by its recorded start, see `latest`) of a results dataset. Only that
    run's partition is read: damage elsewhere does not matter; damage in it is a ResultsError."""
    runs = partition_ids(results)
    if run_id is None:
        try:
            run_id = latest(results, runs)
        except ResultsError as e:
            raise ResultsError(f"{e}; which run is the latest cannot be told: repair or remove that run, or name one "
                               "with --run") from None
    if run_id not in runs:
        raise ResultsError(f"no run {run_id!r} in {results}; runs: {', '.join(runs[-5:])}")
    return run_id, read_partition(results, run_id)


def read_runs_in_order(results: Path) -> list[str]:
    """The run ids of a results dataset, oldest first by their recorded start (a run without a record, or without a
    start, before those with one, by id); read from the folders and records alone, not the cells."""
    if not results.is_dir():
        raise ResultsError(f"{results}: no results dataset")
    runs = partition_ids(results)

    def started(run_id: str) -> str:
        try:
            record = read_record(results, run_id)
        except ResultsError as e:
            warn(f"{e}; run {run_id} counts as the oldest")
            return ""
        return record.info.started or "" if record else ""

    return sorted(runs, key=lambda r: (started(r), r))


def read_runs(results: Path, skipped: list[str] | None = None) -> dict[str, list[Cell]]:
    """Every run of a results dataset: run id -> its cells (ids in sorted order), each partition read alone. A run
    whose partition is damaged is left out: its reason appended to `skipped` when given (the caller says it), else
    warned of here."""
    out = {}
    for run_id in partition_ids(results):
        try:
            out[run_id] = read_partition(results, run_id)
        except ResultsError as e:
            if skipped is None:
                warn(f"{e}; left out")
            else:
                skipped.append(str(e))
    return out


# -- reuse: a stored cell checked against the digest of its own record -------------------------------------


def cell_digest(cell: Cell) -> str:
    """The sha256 of a cell's record (every field, canonical JSON): kept beside the run when it is stored, so that a
    stored cell that changed since (a damaged or edited partition) is known before it is reused."""
    text = json.dumps(cell.to_row(), sort_keys=True, ensure_ascii=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def cell_key(cell: Cell) -> str:
    return "\x1f".join((cell.case, cell.adapter, cell.role))


def read_digests(results: Path, run_id: str) -> dict[str, str] | None:
    """The run's DIGESTS (cell key -> digest), None when it has none (a run stored before them) or it is unreadable."""
    path = results / f"run={check_run_id(run_id)}" / DIGESTS
    if not path.exists():
        return None
    try:
        obj = documents.read_json(path, MAX_RECORD)
    except DocumentError as e:
        warn(f"{e}; its cells are not reused")
        return None
    if not isinstance(obj, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in obj.items()):
        warn(f"{path}: not a run's cell digests; its cells are not reused")
        return None
    return obj


def reusable_cells(results: Path, but: str) -> tuple[str, list[Cell]] | None:
    """What a new run (`but`) may reuse: the latest earlier run (by its recorded start) whose partition is readable
    (a damaged one is skipped with a warning), and of its cells those whose record matches the digest stored with it
    (a cell that does not is left out with a warning: it is run again). None when no earlier run is usable."""
    try:
        runs = [r for r in read_runs_in_order(results) if r != but]
    except ResultsError:
        return None
    for run_id in reversed(runs):
        try:
            cells = read_partition(results, run_id)
        except ResultsError as e:
            warn(f"{e}; left out")
            continue
        digests = read_digests(results, run_id)
        if digests is None:
            warn(f"run {run_id} has no cell digests ({DIGESTS}): its cells are not reused")
            return None
        good = [c for c in cells if digests.get(cell_key(c)) == cell_digest(c)]
        if changed := len(cells) - len(good):
            warn(f"{changed} cells of run {run_id} do not match the digests stored with them (changed since they "
                 "were stored): they are run again")
        return run_id, good
    return None


def read_record(results: Path, run_id: str) -> RunRecord | None:
    """The run's _run.json, if it has one (cells written by other tools may not); ResultsError naming the file and
    the field when it is not a run record."""
    path = results / f"run={check_run_id(run_id)}" / RUN_RECORD
    if not path.exists():
        return None
    try:
        obj = documents.read_json(path, MAX_RECORD)
        return RunRecord.from_json(obj)
    except DocumentError as e:
        message = str(e) if str(e).startswith(str(path)) else f"{path}: {e}"
        raise ResultsError(f"not a run record: {message}") from None


def read_document_parts(results: Path, run_id: str) -> dict[str, Any] | None:
    """The run's _document.json (runs written before it have none); ResultsError if it is not JSON (within
    MAX_DOCUMENT bytes and documents.MAX_DEPTH) or not an object."""
    path = results / f"run={check_run_id(run_id)}" / DOCUMENT
    if not path.exists():
        return None
    try:
        parts = documents.read_json(path, MAX_DOCUMENT)
    except DocumentError as e:
        raise ResultsError(str(e)) from None
    if not isinstance(parts, dict):
        raise ResultsError(f"{path}: not a document's parts")
    return parts
