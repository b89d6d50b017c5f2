"""`parquet-conformance fuzz`: differential fuzzing (docs/fuzzing.md).

A **batch** is one Hypothesis run of `BATCH` examples drawn from the track's chain strategy with a seed derived
from the run seed and the batch index (`batch_seed`): `hypothesis.find` with `random=Random(seed)`,
`database=None`, health checks off, generation only, a condition that never holds; so a batch's examples
depend on its seed alone. Each example is built, judged by the track's oracle (corpus/track.py Oracle), and read
by every selected adapter in the workers its executor slot keeps (kept_workers); a **finding** is any
verdict but pass (the Judge, with the fuzz policy), keyed by (implementation, verdict, normalised message).
Batches are tasks of the executor `--master` chooses (conformance/harness/executor.py: a slot per core here, a
small Spark job each on Spark); `--examples N` runs ceil(N / BATCH)
batches and is reproducible, `--time S` submits batches until S seconds have passed and is not (how many
batches finish depends on the machine).

Then, on the driver: each distinct finding is confirmed in a fresh worker, **shrunk** against that one adapter
(the same batch replayed by `find` with the same seed and max_examples up to the finding, the condition now
"this adapter gives the same key", phases generate and shrink: Hypothesis shrinks the chain), confirmed again,
and saved as a regression case (corpus/regression_store.add, what `corpus add-regression` does).
"""

from __future__ import annotations

import argparse
import atexit
import functools
import hashlib
import json
import math
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pyarrow as pa

from parquet_conformance.app.console import conf, end_progress, one_track, progress_line, specs
from parquet_conformance.conformance.harness.executor import Executor
from parquet_conformance.conformance.harness.judge import Judge, error_text, normalise
from parquet_conformance.conformance.harness.model import Cell, Finding, FuzzReport, OutcomeKind, OutcomeRow, Verdict
from parquet_conformance.conformance.harness.placement import executor_for
from parquet_conformance.conformance.harness.reading import Attempt, WorkerSet
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.corpus import regression_store
from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus.model import (
    MANIFEST_FORMAT,
    MANIFEST_VERSION,
    BaseEntry,
    CaseEntry,
    Citation,
    Expectation,
    Kind,
    Level,
    Manifest,
)
from parquet_conformance.corpus.track import Oracle
from parquet_conformance.generators.canonical import data_hash
from parquet_conformance.kernel.errors import UsageError
from parquet_conformance.reports.text import shorten

BATCH = 25  # examples per Hypothesis run: a Spark task of a few seconds
SHRINK_TIMEOUT_S = 10.0  # a hang is shrunk with this limit per attempt (its confirmation had the full one)
TASK_SCHEMA = pa.schema([("batch", pa.int64()), ("seed", pa.int64()), ("examples", pa.int64())])
RESULT_SCHEMA = pa.schema([("result", pa.string())])
Say = Callable[[str], None]
# Crashes and hangs are confirmed, shrunk and saved first: the budget goes to them if it runs out.
SEVERITY = (Verdict.CRASH, Verdict.UNHANDLED, Verdict.HANG, Verdict.WRONG_DATA)
RUN = Attempt()  # the run's own attempt: persistent workers


def batch_seed(run_seed: int, batch: int) -> int:
    """A batch's seed: a function of the run seed and the batch index only (63 bits: a Spark long)."""
    return int.from_bytes(hashlib.sha256(f"fuzz:{run_seed}:{batch}".encode()).digest()[:8], "big") >> 1


def _settings(examples: int, shrink: bool) -> Any:
    from hypothesis import HealthCheck, Phase, Verbosity, settings

    phases = [Phase.generate, Phase.shrink] if shrink else [Phase.generate]
    return settings(max_examples=examples, database=None, deadline=None, phases=phases, derandomize=False,
                    suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet, print_blob=False)


def drive(track: str, seed: int, examples: int, condition: Callable[[Any], bool], shrink: bool = False) -> Any:
    """One Hypothesis run over the track's chains: the first chain (shrunk, with `shrink`) for which `condition`
    holds, or None."""
    from hypothesis import find
    from hypothesis.errors import FlakyFailure, NoSuchExample

    try:
        return find(tracks.fuzzer(tracks.get(track)).chains(), condition, settings=_settings(examples, shrink),
                    random=random.Random(seed))
    except (NoSuchExample, FlakyFailure):  # flaky: the reader's answer changed when Hypothesis asked again
        return None


# -- one example ------------------------------------------------------------------------


def message(verdict: Verdict, row: OutcomeRow) -> str:
    """What a finding says, as reports/clusters.py words a cell."""
    if verdict == Verdict.WRONG_DATA:
        return f"returned other data ({row.rows} rows)"
    if verdict == Verdict.ACCEPTED_INVALID:
        return "read a file it must reject"
    return error_text(row.error_class, row.error_message, str(row.outcome))


EXAMPLE = "fuzz/example"


def example_manifest(track: str, base: str, data: bytes, oracle: Oracle) -> Manifest:
    """The generated file as a manifest of one case, with its base and the base's baseline case: what the Judge
    judges. A file whose data the oracle cannot state is `data_unknown`."""
    t = tracks.get(track)
    baseline_id = f"fuzz/base/{base}"

    def entry(case_id: str, size: int, expect: dict[str, Expectation], unknown: bool = False,
              citations: Sequence[Citation] = ()) -> CaseEntry:
        return CaseEntry(id=case_id, track=track, title="", group="fuzz", kind=Kind.REGRESSION, base=base,
                         file=f"{case_id.rsplit('/', 1)[-1]}{t.suffix}", size=size, sha256="", seed=0, mutations=[],
                         expect=expect, decode={}, citations=list(citations), notes="", extensions=None, large=False,
                         data_unknown=unknown)

    base_entry = BaseEntry(track=track, description="", file="", size=0, sha256="", expected="", expected_size=0,
                           data_hash=data_hash(t.base_expected(base)), rows=0, columns=[], baseline_case=baseline_id)
    return Manifest(format=MANIFEST_FORMAT, manifest_version=MANIFEST_VERSION, generator={}, seed=0, only=None,
                    large=False, tracks=[track], expectations={}, roles={}, bases={base: base_entry},
                    # the example's levels are those its saved regression will carry: the oracle's citations
                    cases=[entry(EXAMPLE, len(data), oracle.expect, oracle.other_data,
                                 tracks.fuzzer(t).citations(oracle.expect)),
                           entry(baseline_id, 0, {t.default_role: Expectation.READ})])


def judge_example(manifest: Manifest, baseline: OutcomeRow, row: OutcomeRow) -> list[Cell]:
    """The example's cells, by the Judge (a failure the reader shows on the base itself is the base's: skip)."""
    track = manifest.tracks[0]
    judge = Judge(manifest, {track: tracks.get(track).default_role})
    return [c for c in judge.cells([baseline, row]) if c.case == EXAMPLE]


@dataclass
class Probe:
    """An executor's means to try a file: the track, its fuzzer, the workers, and each adapter's own reading of
    each unmodified base (its baseline: a reader whose representation differs is judged on change)."""

    track: str
    workers: WorkerSet
    tmp: Path
    baselines: dict[tuple[str, str], OutcomeRow]

    @staticmethod
    def of(track: str, workers: WorkerSet, tmp: Path) -> Probe:
        return Probe(track, workers, tmp, {})

    def write(self, manifest: Manifest, case_id: str, data: bytes) -> tuple[CaseEntry, Path]:
        case = manifest.case(case_id)
        path = self.tmp / case.file
        path.write_bytes(data)
        return case, path

    def baseline(self, name: str, manifest: Manifest, base: str) -> OutcomeRow:
        """The adapter's outcome on the unmodified base (read once per worker set)."""
        if (name, base) not in self.baselines:
            case, path = self.write(manifest, f"fuzz/base/{base}", tracks.get(self.track).base_file(base))
            self.baselines[name, base] = self.workers.run_one(name, case, path)
        return self.baselines[name, base]

    def verdicts(self, chain: Any, adapters: list[str] | None = None,
                 attempt: Attempt = RUN) -> Iterator[tuple[str, Expectation, Verdict, OutcomeRow, str]]:
        """(role, expectation, verdict, row, message) per adapter and role judged on the chain's file, by the Judge
        (a failure the reader shows on the base itself is skipped). ValueError: building the example or the oracle
        failed (our code, not a reader)."""
        fuzzer = tracks.fuzzer(tracks.get(self.track))
        base = fuzzer.base_of(chain)
        try:
            data = fuzzer.build(chain)
        except Exception as e:  # a step's code failed on what earlier steps made: a bug of ours, kept apart
            raise ValueError(f"building the example failed: {type(e).__name__}: {e}") from None
        try:
            oracle = fuzzer.oracle(data, base)
        except Exception as e:  # our strict decoder or reference reader failed: a bug of ours, kept apart
            raise ValueError(f"oracle failed: {type(e).__name__}: {e}") from None
        manifest = example_manifest(self.track, base, data, oracle)
        case, path = self.write(manifest, EXAMPLE, data)
        names = adapters or [n for n, w in self.workers.workers.items() if w.adapter.track == self.track]
        for name in names:
            own = self.baseline(name, manifest, base)
            row = self.workers.run_one(name, case, path, attempt)
            if row.outcome in (OutcomeKind.CRASH, OutcomeKind.UNHANDLED, OutcomeKind.OOM) and not attempt.fresh:
                self.workers.workers[name].transport.kill()  # one that survived a panic may be poisoned: start anew
            for cell in judge_example(manifest, own, row):
                yield cell.role, cell.expected, cell.verdict, row, message(cell.verdict, row)


# -- a batch (inside a Spark task, or locally) -------------------------------------------


def search_batch(probe: Probe, batch: int, seed: int, examples: int) -> dict[str, Any]:
    """One Hypothesis run: every example read by every adapter; the first example of each distinct finding."""
    fuzzer = tracks.fuzzer(tracks.get(probe.track))
    found: dict[tuple[str, str, str], dict[str, Any]] = {}
    harness: list[dict[str, Any]] = []
    count = [0]
    t0 = time.monotonic()

    def condition(chain: Any) -> bool:
        index = count[0]
        count[0] += 1
        common = {"chain": fuzzer.to_json(chain), "base": fuzzer.base_of(chain), "batch": batch,
                  "batch_seed": seed, "example": index}
        try:
            judged = list(probe.verdicts(chain))
        except ValueError as e:
            harness.append({**common, "adapter": "oracle", "implementation": "oracle", "version": None,
                            "role": "", "expected": "either", "verdict": "harness-error", "outcome": "harness-error",
                            "signature": normalise(str(e)), "message": str(e)[:400]})
            return False
        for role, expected, verdict, row, text in judged:
            if verdict in (Verdict.PASS, Verdict.SKIP):
                continue
            entry = {**common, "adapter": row.adapter, "implementation": row.implementation, "version": row.version,
                     "role": role, "expected": str(expected), "verdict": str(verdict), "outcome": str(row.outcome),
                     "signature": normalise(text), "message": text[:400]}
            if verdict == Verdict.HARNESS_ERROR:
                harness.append(entry)
            else:
                found.setdefault((row.implementation, str(verdict), normalise(text)), entry)
        return False

    drive(probe.track, seed, examples, condition)
    return {"batch": batch, "examples": count[0], "seconds": time.monotonic() - t0, "findings": list(found.values()),
            "harness": harness}


# -- the workers a slot keeps (fuzz's state, unknown to the executor) ----------------------

_KEPT = threading.local()
_KEPT_SETS: list[WorkerSet] = []
_KEPT_LOCK = threading.Lock()


def kept_workers(specs: tuple[AdapterSpec, ...]) -> WorkerSet:
    """A worker set that outlives the task, one per thread that runs tasks (a Spark executor's Python worker, a slot
    of the local executor): the next task of the same adapters finds its workers running. Closed by
    `close_kept` (after the batches: `search`; the kept workers are fuzz's state, unknown to the executor) or when
    the process exits."""
    sets: dict[tuple[AdapterSpec, ...], WorkerSet] | None = getattr(_KEPT, "sets", None)
    if sets is None:
        sets = _KEPT.sets = {}
    if specs not in sets:
        sets[specs] = WorkerSet(specs)
        with _KEPT_LOCK:
            if not _KEPT_SETS:
                atexit.register(close_kept)
            _KEPT_SETS.append(sets[specs])
    return sets[specs]


def close_kept() -> None:
    with _KEPT_LOCK:
        kept, _KEPT_SETS[:] = list(_KEPT_SETS), []
    for workers in kept:
        workers.close()
    _KEPT.__dict__.clear()


_PROBES: dict[tuple[str, int], Probe] = {}


def _probe(track: str, specs: tuple[AdapterSpec, ...]) -> Probe:
    """A slot's probe: its workers are the slot's kept ones (kept_workers), its baselines read once by them."""
    workers = kept_workers(specs)
    if (track, id(workers)) not in _PROBES:
        _PROBES[track, id(workers)] = Probe.of(track, workers, Path(tempfile.mkdtemp(prefix="pqc-fuzz-")))
    return _PROBES[track, id(workers)]


def _batches_in_task(batches: Iterator[pa.RecordBatch], track: str,
                     specs: tuple[AdapterSpec, ...]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body: the batches of this task, each a JSON result."""
    probe = _probe(track, specs)
    for rb in batches:
        for task in rb.to_pylist():
            result = search_batch(probe, task["batch"], task["seed"], task["examples"])
            yield pa.RecordBatch.from_pylist([{"result": json.dumps(result)}], schema=RESULT_SCHEMA)


# -- the driver -----------------------------------------------------------------------


@dataclass(frozen=True)
class FuzzOptions:
    specs: list[AdapterSpec]
    track: str  # whose fuzzer runs (the command line: --track, or the first registered track)
    seed: int = 0
    examples: int | None = None  # reproducible mode
    time_s: float | None = None  # time-boxed mode
    master: str = "local[*]"
    conf: dict[str, str] | None = None
    out: Path = Path("out/fuzz")
    shrink: bool = True
    save: bool = True
    shrink_time_s: float = 60.0
    budget_s: float = 300.0  # for confirming, shrinking and saving all findings after the search


class Progress:
    """examples/s and findings so far, on one line."""

    def __init__(self, say: Say) -> None:
        self.say, self.t0, self.examples, self.batches = say, time.monotonic(), 0, 0
        self.keys: set[tuple[str, str, str]] = set()

    def add(self, result: dict[str, Any]) -> None:
        self.examples += result["examples"]
        self.batches += 1
        self.keys |= {(f["implementation"], f["verdict"], f["signature"]) for f in result["findings"]}
        rate = self.examples / max(time.monotonic() - self.t0, 1e-9)
        self.say(f"{self.batches} batches, {self.examples} examples, {rate:.1f} examples/s, "
                 f"{len(self.keys)} distinct findings")


def _tasks(opts: FuzzOptions) -> Iterator[tuple[int, int, int]]:
    """(batch, seed, examples): all of them in --examples mode; unbounded in --time mode (the caller stops)."""
    if opts.examples is not None:
        for b in range(math.ceil(opts.examples / BATCH)):
            yield b, batch_seed(opts.seed, b), min(BATCH, opts.examples - b * BATCH)
        return
    b = 0
    while True:
        yield b, batch_seed(opts.seed, b), BATCH
        b += 1


def search(executor: Executor, opts: FuzzOptions, progress: Progress) -> list[dict[str, Any]]:
    """The batches as tasks of the executor (conformance/harness/executor.py), each run by the workers its slot keeps
    (kept_workers: started by a slot's first batch, kept for its next); in --time mode, new batches are
    taken until the time is up."""
    progress.t0 = time.monotonic()  # examples/s of the search, not of Spark's start
    deadline = time.monotonic() + opts.time_s if opts.time_s is not None else None
    results: list[dict[str, Any]] = []

    def done(_: tuple[int, int, int], table: pa.Table) -> None:
        results.append(json.loads(table.to_pylist()[0]["result"]))
        progress.add(results[-1])

    try:
        executor.run(_tasks(opts),
                     lambda task: pa.table({"batch": [task[0]], "seed": [task[1]], "examples": [task[2]]},
                                           schema=TASK_SCHEMA),
                     functools.partial(_batches_in_task, track=opts.track, specs=tuple(opts.specs)), RESULT_SCHEMA,
                     done, more=lambda: deadline is None or time.monotonic() < deadline)
    finally:
        close_kept()  # the workers the batches kept in this process's slots (a Spark worker's end with its process)
    return results


def distinct(results: list[dict[str, Any]]) -> tuple[list[Finding], list[Finding]]:
    """The first example of each distinct finding, in (batch, example) order; and the harness errors, one per
    signature."""
    findings: dict[tuple[str, str, str], Finding] = {}
    harness: dict[tuple[str, str, str], Finding] = {}
    for result in sorted(results, key=lambda r: r["batch"]):
        for group, into in (("findings", findings), ("harness", harness)):
            for entry in sorted(result[group], key=lambda e: e["example"]):
                f = Finding(**{**entry, "expected": Expectation(entry["expected"]),
                               "verdict": Verdict(entry["verdict"]), "outcome": entry["outcome"]})
                into.setdefault(f.key, f)
    return list(findings.values()), list(harness.values())


def _spec(specs: list[AdapterSpec], name: str, timeout_s: float | None = None) -> AdapterSpec:
    spec = next(s for s in specs if s.name == name)
    return replace(spec, timeout_s=timeout_s) if timeout_s is not None else spec


def _same(finding: Finding, verdict: Verdict, text: str) -> bool:
    return verdict == finding.verdict and normalise(text) == finding.signature


def confirm(finding: Finding, chain: Any, specs: list[AdapterSpec], track: str) -> tuple[bool, str]:
    """A fresh worker (full limit) on the chain's file: (the same finding?, what it gave)."""
    with tempfile.TemporaryDirectory(prefix="pqc-fuzz-") as tmp:
        workers = WorkerSet([_spec(specs, finding.adapter)])
        try:
            probe = Probe.of(track, workers, Path(tmp))
            for _, _, verdict, _, text in probe.verdicts(chain, [finding.adapter], Attempt(fresh=True)):
                return _same(finding, verdict, text), f"{verdict}: {text}"[:400]
        finally:
            workers.close()
    return False, "no answer"


def shrink(finding: Finding, specs: list[AdapterSpec], track: str, budget_s: float) -> Any:
    """The minimal chain for which this adapter alone still gives the finding (Hypothesis shrinking the same
    batch), within `budget_s`; None if the batch replayed with this adapter alone does not show it."""
    limit = SHRINK_TIMEOUT_S if finding.verdict == Verdict.HANG else None
    deadline = time.monotonic() + budget_s
    with tempfile.TemporaryDirectory(prefix="pqc-shrink-") as tmp:
        workers = WorkerSet([_spec(specs, finding.adapter, limit)])
        try:
            probe = Probe.of(track, workers, Path(tmp))

            def reproduces(chain: Any) -> bool:
                if time.monotonic() > deadline:
                    return False
                try:
                    return any(_same(finding, v, text) for _, _, v, _, text in probe.verdicts(chain, [finding.adapter]))
                except ValueError:
                    return False

            return drive(track, finding.batch_seed, finding.example + 1, reproduces, shrink=True)
        finally:
            workers.close()


def window(base: bytes, data: bytes, context: int = 32) -> tuple[int, str]:
    """(offset, hex) of the file's bytes around where it differs from its base (common prefix and suffix off)."""
    start = next((i for i, (a, b) in enumerate(zip(base, data, strict=False)) if a != b), min(len(base), len(data)))
    end = len(data)
    tail = 0  # bytes the file and its base share at their ends
    while end - tail > start and len(base) - tail > start and base[-tail - 1] == data[-tail - 1]:
        tail += 1
    end -= tail
    lo, hi = max(0, start - context), min(len(data), max(end, start + 1) + context)
    return lo, data[lo:hi].hex()


def store(opts: FuzzOptions) -> Path:
    """Where a fuzz run keeps its regression cases: OUT/regressions, a store of the shipped store's form, never the
    package's own folder. `corpus add-regression --from OUT/regressions --id ID` ships one."""
    return opts.out / "regressions"


# The oracle of a kept case, decided in a process of its own: the search's process has read thousands of damaged
# files with pyarrow, and its word on one file differed there (a read of the base's data taken for none).
_ORACLE = """
import json, sys
from parquet_conformance.corpus import track as tracks
t = tracks.get(sys.argv[1])
o = tracks.fuzzer(t).oracle(sys.stdin.buffer.read(), sys.argv[2])
print(json.dumps({"expect": {r: str(e) for r, e in o.expect.items()}, "other_data": o.other_data}))
"""


def fresh_oracle(track: str, data: bytes, base: str) -> Oracle:
    """The track's oracle on `data`, decided in a fresh Python process (see _ORACLE); ValueError if it fails."""
    proc = subprocess.run([sys.executable, "-c", _ORACLE, track, base], input=data, capture_output=True,
                          timeout=300)
    if proc.returncode != 0:
        raise ValueError(f"the oracle failed in a fresh process: {proc.stderr.decode(errors='replace')[-300:]}")
    try:
        answer = json.loads(proc.stdout)
        return Oracle({str(r): Expectation(e) for r, e in answer["expect"].items()}, bool(answer["other_data"]))
    except (ValueError, KeyError, TypeError, AttributeError) as e:  # not the oracle's answer
        raise ValueError(f"the fresh process's oracle answered no oracle ({type(e).__name__}: {e})") from None


def save(finding: Finding, chain: Any, opts: FuzzOptions) -> Finding:
    """The minimal file as a regression case in the run's store (store()), with its chain and origin. A file whose
    data no reference can state (other data than its base's) is kept `data_unknown`: judged on crash, hang and
    read versus reject only."""
    track = tracks.get(opts.track)
    fuzzer = tracks.fuzzer(track)
    data = fuzzer.build(chain)
    oracle = fresh_oracle(opts.track, data, finding.base)
    sha = hashlib.sha256(data).hexdigest()
    lo, hexed = window(track.base_file(finding.base), data)
    done = replace(finding, file_sha256=sha, window_offset=lo, window_hex=hexed)
    case_id = f"regression/fuzz/{finding.adapter}/{finding.verdict.removeprefix('fail:')}-{sha[:12]}"
    if any(e["id"] == case_id for e in [*regression_store.load(), *regression_store.load(store(opts))]):
        return replace(done, regression=case_id)
    chain_json = fuzzer.to_json(chain)
    origin = {"tool": "parquet-conformance fuzz", "seed": opts.seed, "batch": finding.batch,
              "batch_seed": finding.batch_seed, "example": finding.example, "chain": chain_json,
              "adapter": finding.adapter, "implementation": finding.implementation, "version": finding.version,
              "verdict": str(finding.verdict), "signature": finding.signature}
    cites = [Citation("parquet-conformance fuzz (docs/fuzzing.md)",
                      f"run seed {opts.seed}, batch {finding.batch}, example {finding.example}",
                      f"{finding.implementation} {finding.version}: {finding.verdict} "
                      f"({shorten(finding.message, 160)})",
                      level=Level.POLICY),  # where the file comes from: provenance, not a spec
             *fuzzer.citations(oracle.expect)]
    notes = (f"Found by `parquet-conformance fuzz --seed {opts.seed}`; {finding.implementation} {finding.version} "
             f"gave {finding.verdict} where the oracle expects "
             f"{', '.join(f'{r} {e}' for r, e in oracle.expect.items())}. Minimal chain: "
             f"{json.dumps(chain_json)}")
    with tempfile.TemporaryDirectory(prefix="pqc-save-") as tmp:
        path = Path(tmp) / f"minimal{track.suffix}"
        path.write_bytes(data)
        regression_store.add(path, case_id, {r: str(e) for r, e in oracle.expect.items()}, cites,
                             title=regression_title(finding),
                             notes=notes, base=finding.base, track=opts.track, root=store(opts), found_by=origin,
                             data_unknown=oracle.other_data)
    return replace(done, regression=case_id)


def regression_title(finding: Finding) -> str:
    """A saved finding's case title: its implementation, verdict and signature, the signature cut at a word."""
    return f"fuzz: {finding.implementation} {finding.verdict} ({shorten(finding.signature, 60)})"


def steps_of(chain_json: dict[str, Any]) -> int:
    return len(chain_json.get("steps", []))


def run_fuzz(opts: FuzzOptions, say: Say) -> FuzzReport:
    if (opts.examples is None) == (opts.time_s is None):
        raise UsageError("fuzz takes one of --examples N and --time S")
    fuzzer = tracks.fuzzer(tracks.get(opts.track))
    progress = Progress(say)
    t0 = time.monotonic()
    with executor_for(opts.master, opts.conf, opts.out / "logs" / "spark-driver.log", say) as executor:
        results = search(executor, opts, progress)
    search_s = time.monotonic() - max(t0, progress.t0)
    examples = sum(r["examples"] for r in results)
    found, harness = distinct(results)
    found.sort(key=lambda f: SEVERITY.index(f.verdict) if f.verdict in SEVERITY else len(SEVERITY))  # stable
    done: list[Finding] = []
    t1 = time.monotonic()
    deadline = t1 + opts.budget_s
    for i, finding in enumerate(found):
        if time.monotonic() > deadline:  # most severe first: what is left is the least severe
            done.append(replace(finding, not_saved=f"the --budget of {opts.budget_s:g} s ran out before it"))
            continue
        chain = fuzzer.from_json(finding.chain)
        say(f"[{i + 1}/{len(found)}] confirming {finding.adapter}: {finding.verdict} {finding.signature[:50]}")
        ok, seen = confirm(finding, chain, opts.specs, opts.track)
        finding = replace(finding, confirmed=ok, confirmation=seen)
        if ok and opts.shrink:
            say(f"[{i + 1}/{len(found)}] shrinking {finding.adapter}: {finding.verdict} "
                f"({steps_of(finding.chain)} steps)")
            small = shrink(finding, opts.specs, opts.track,
                           max(0.0, min(opts.shrink_time_s, deadline - time.monotonic())))
            if small is not None and confirm(finding, small, opts.specs, opts.track)[0]:
                chain = small
                small_json = fuzzer.to_json(small)
                finding = replace(finding, shrunk_chain=small_json, shrunk_steps=steps_of(small_json))
        if ok and opts.save:
            try:
                finding = save(finding, chain, opts)
            except ValueError as e:  # the oracle failed in a fresh process: ours; the finding stays, unsaved
                finding = replace(finding, not_saved=str(e)[:300])
        else:
            finding = replace(finding, not_saved="--no-save" if ok else "a fresh worker did not confirm it")
        done.append(finding)
    oracle_errors = sum(1 for r in results for h in r["harness"] if h["adapter"] == "oracle")
    return FuzzReport(seed=opts.seed, mode="examples" if opts.examples is not None else "time", master=opts.master,
                      track=opts.track, adapters=[s.name for s in opts.specs], batches=len(results),
                      examples=examples, search_s=round(search_s, 2),
                      examples_per_s=round(examples / max(search_s, 1e-9), 2), oracle_errors=oracle_errors,
                      findings=done, harness=harness, shrink_s=round(time.monotonic() - t1, 2))


def command(args: argparse.Namespace) -> int:
    # imported here, not at the top: start-up time (only this path needs it)
    import importlib.util

    from parquet_conformance.reports.findings import summary, write_findings

    if importlib.util.find_spec("hypothesis") is None:
        raise UsageError("fuzz needs hypothesis: pip install 'parquet-conformance[fuzz]'")
    if (args.examples is not None and args.examples < 1) or (args.time is not None and args.time <= 0) \
            or args.budget < 0 or args.shrink_time < 0:
        raise UsageError("--examples and --time want a positive number, --budget and --shrink-time a non-negative one")
    track = one_track(args)
    if not isinstance(track, tracks.Fuzzable):
        raise UsageError(f"track {track.name!r} has no fuzzer")
    chosen = specs(args, default=list(track.fuzzer().default_adapters))
    opts = FuzzOptions(specs=chosen, seed=args.seed, examples=args.examples, time_s=args.time, master=args.master,
                       conf=conf(args.conf), track=track.name, out=Path(args.out), shrink=not args.no_shrink,
                       save=not args.no_save, shrink_time_s=args.shrink_time, budget_s=args.budget)
    report = run_fuzz(opts, progress_line)
    end_progress()
    paths = write_findings(report, opts.out)
    print(summary(report))
    print("findings: " + ", ".join(str(p) for p in paths))
    return 0
