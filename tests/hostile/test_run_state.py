"""The suite's own state as a class (issue 39, item 10), tried from outside with faults: a run record that does not
read, a resume with other adapters, a case file that vanishes or changes during a run, names that become one file,
two runs in one second. Each fault is an error naming what is wrong, or is told apart; never a silent fall-back, a
dropped verdict, a file overwritten or a reader judged on what was not the case."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from parquet_conformance.conformance.harness.judge import Judge
from parquet_conformance.conformance.harness.model import Cell, OutcomeKind, RunInfo, Verdict
from parquet_conformance.conformance.harness.reading import WorkerSet
from parquet_conformance.conformance.harness.results import RUN_RECORD, RunRecord, Store, read_cells
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.corpus.build import generate
from parquet_conformance.corpus.dist import read_manifest
from parquet_conformance.corpus.model import Expectation, Kind
from parquet_conformance.reports import write_reports
from parquet_conformance.reports.model import RESULTS_FORMAT, RESULTS_VERSION, ResultsDocument, scores
from tests.helpers import CLI

FAKE = Path(__file__).parent / "worker.py"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("state") / "corpus"
    generate(out, only="base/flat,corrupt/tiny/empty")
    return out


def fake(name: str, mode: str = "none", *options: str) -> list[str]:
    return ["--adapter-cmd", f"{name}={sys.executable} {FAKE} {mode} --real {' '.join(options)}".rstrip()]


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, cwd=cwd)


def run(corpus: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return cli("run", "--master", "none", "--corpus", str(corpus), "--out", str(out), *args)


def cell(case: str, adapter: str = "a") -> Cell:
    return Cell(case=case, track="parquet", group="base", kind=Kind.GOLDEN, adapter=adapter, implementation=adapter,
                version="1", role="legacy", expected=Expectation.READ, outcome=OutcomeKind.READ, verdict=Verdict.PASS,
                error_class=None, error_message=None, rows=1, data_hash="ab" * 32, duration_s=0.1, metadata=None,
                attempts=1, previous_case=None, disagreement=None)


# -- a record the gate or a report cannot read: an error naming it, never another run's data --------------------


def test_a_latest_record_that_does_not_read_is_an_error_naming_it_not_a_fall_back(tmp_path: Path) -> None:
    store = Store(tmp_path / "out")
    for i, run_id in enumerate(("r1", "r2"), 1):
        info = RunInfo(run_id, "0", 0, "none", "corpus", None, ["parquet"], "0" * 64, f"2026-01-0{i}T00:00:00+00:00")
        store.write(run_id, [cell("base/flat")], RunRecord(info, ["base/flat"], ["base/flat"]))
    record = store.results / "run=r2" / RUN_RECORD
    doc = json.loads(record.read_text())
    del doc["info"]["seed"]  # the latest run's record lacks a key
    record.write_text(json.dumps(doc))
    (tmp_path / "list.txt").write_text("")
    for args in (["check", "--adapter", "a", "--expected-failures", str(tmp_path / "list.txt"), "--results",
                  str(store.results)], ["report", "--rewrite", str(store.out)]):
        proc = cli(*args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert str(record) in proc.stderr and "seed" in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
        assert proc.stdout == ""  # nothing was judged or drawn from the run before it
    assert cli("report", "--rewrite", str(store.out), "--run", "r1").returncode == 0  # named, the other run serves


# -- --resume adds to a run, never drops a stored verdict ------------------------------------------------------


def test_resume_with_other_adapters_is_refused_and_with_more_adds(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run(corpus, out, "--run-id", "r", *fake("a")).returncode == 0
    before = read_cells(out / "results", "r")[1]
    proc = run(corpus, out, "--resume", "r", *fake("b"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "holds cells of a" in proc.stderr and "--resume it with every adapter" in proc.stderr
    assert read_cells(out / "results", "r")[1] == before  # nothing dropped, nothing rewritten
    proc = run(corpus, out, "--resume", "r", "--only", "base/flat", *fake("a"))
    assert proc.returncode == 2 and "outside this selection" in proc.stderr, proc.stderr
    proc = run(corpus, out, "--resume", "r", *fake("a"), *fake("b"))
    assert proc.returncode == 0, proc.stderr
    after = read_cells(out / "results", "r")[1]
    assert {c.adapter for c in after} == {"a", "b"}
    assert [c for c in after if c.adapter == "a"] == before  # a's cells kept as they were


# -- a case file that vanishes or changes during a run: ours, never the reader's outcome ------------------------


def test_a_case_file_gone_or_changed_during_a_run_is_a_harness_error(corpus: Path, tmp_path: Path) -> None:
    root, manifest = read_manifest(corpus)
    case = manifest.case("corrupt/tiny/empty")  # to be rejected: a reader's refusal of a missing file would pass it
    spec = AdapterSpec("a", f"{sys.executable} {FAKE} none --real")
    workers = WorkerSet([spec])
    try:
        gone = tmp_path / "gone.parquet"
        row = workers.run_one("a", case, gone)  # as if removed between the corpus's verification and the read
        assert row.outcome == OutcomeKind.HARNESS_ERROR and "vanished during the run" in (row.error_message or "")
        changed = tmp_path / "changed.parquet"
        changed.write_bytes(b"PAR1")  # another file in its place
        row = workers.run_one("a", case, changed)
        assert row.outcome == OutcomeKind.HARNESS_ERROR and "changed during the run" in (row.error_message or "")
        [judged] = Judge.of(manifest).cells([row])
        assert judged.verdict == Verdict.HARNESS_ERROR
        row = workers.run_one("a", case, root / case.file)  # the case itself: the reader's own refusal
        assert row.outcome == OutcomeKind.REJECTED
    finally:
        workers.close()


# -- every name that becomes a file name maps to it one-to-one ----------------------------------------------


def test_names_that_would_share_a_file_get_files_of_their_own(tmp_path: Path) -> None:
    long = "x" * 90
    names = ["pyarrow", "arrow", "Polars", "polars", f"{long}-one", f"{long}-two"]
    cells = [replace(cell(f"base/{c}", a), version="26.0.1") for a in names for c in ("flat", "codec-snappy")]
    info = RunInfo("r", "0", 0, "none", "corpus", None, ["parquet"], "0" * 64, "2026-01-01T00:00:00+00:00")
    doc = ResultsDocument(RESULTS_FORMAT, RESULTS_VERSION, info, scores(cells), [], cells)
    write_reports(doc, tmp_path, formats=["junit", "parquet-site"])
    assert len(list((tmp_path / "junit").iterdir())) == len(names)
    sites = sorted((tmp_path / "parquet-site").glob("*.yaml"))  # beside diff.md and diff.json
    assert len(sites) == len(names)  # pyarrow's engine is arrow: an adapter named arrow overwrites nothing
    assert "run r: pyarrow 26.0.1" in (tmp_path / "parquet-site" / "arrow-26.0.1.yaml").read_text()  # the engine's own
    assert "run r: arrow 26.0.1" in "".join(p.read_text() for p in sites)
    from parquet_conformance.reports.text import file_names

    files = file_names(names)  # every place a name becomes a file name: distinct even where case folds
    assert len({f.casefold() for f in files.values()}) == len(names)
    assert files["pyarrow"] == "pyarrow" and files["polars"] == "polars"  # a plain, lower-case name keeps its own


# -- default run ids never collide ------------------------------------------------------------------------------


def test_two_runs_in_one_second_take_two_ids(tmp_path: Path) -> None:
    store = Store(tmp_path / "out")
    now = "2026-01-01T00:00:00+00:00"
    first, _ = store.begin("20260101T000000Z", resume=False, now=now, pick=True)
    second, _ = store.begin("20260101T000000Z", resume=False, now=now, pick=True)
    assert (first, second) == ("20260101T000000Z", "20260101T000000Z-2")
    with pytest.raises(Exception, match="already exists"):  # a name the user gave is not changed
        store.begin("20260101T000000Z", resume=False, now=now)


def test_a_run_and_its_re_run_in_the_same_second_both_run(corpus: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from parquet_conformance.app import run as run_module
    from parquet_conformance.app.run import RunOptions, run_job

    monkeypatch.setattr(run_module, "new_run_id", lambda: "20260101T000000Z")  # the same second, however fast
    opts = RunOptions(out=tmp_path / "out", specs=[AdapterSpec("a", f"{sys.executable} {FAKE} none --real")],
                      corpus=corpus, master="none")
    ids = [run_job(opts).run_id, run_job(opts).run_id]
    assert ids == ["20260101T000000Z", "20260101T000000Z-2"]
    assert read_cells(tmp_path / "out" / "results")[0] == ids[1]  # the re-run is the latest


def test_two_releases_whose_environments_are_named_alike_never_share_one(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from parquet_conformance.conformance.adapters import AdapterUnavailable
    from parquet_conformance.conformance.harness.envs import MARKER, Env, ensure

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    npm, pypi = Env("npm", "@dsnp/parquetjs", "1.8.9", ()), Env("pypi", "dsnp-parquetjs", "1.8.9", ())
    assert npm.name == pypi.name  # the scope's '@' and '/' are not in a folder's name
    npm.path.mkdir(parents=True)
    (npm.path / MARKER).write_text(json.dumps({"index": "npm", "package": "@dsnp/parquetjs", "version": "1.8.9",
                                               "requirements": []}))
    with pytest.raises(AdapterUnavailable, match=r"holds @dsnp/parquetjs 1\.8\.9 from npm, not dsnp-parquetjs"):
        ensure(pypi, progress=lambda _: None)
    assert ensure(npm, progress=lambda _: None) == npm.path  # the one it holds is still there


def test_the_corpus_cache_keeps_the_corpora_last_used_and_copies_under_its_lock(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pruning keeps the CORPORA_KEPT corpora last used (a hit refreshes its entry; main kept the last made, so a
    corpus in use by a long-lived checkout was dropped while another's runs made new ones), and a copy happens under
    the cache's lock, where no pruning runs."""
    import os

    from parquet_conformance.corpus import build

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    key = {"now": ""}
    monkeypatch.setattr(build, "corpus_key", lambda seed, tracks: key["now"])

    def tiny(out: Path, **_: object) -> None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "manifest.json").write_text(json.dumps({"key": key["now"]}))

    monkeypatch.setattr(build, "generate", tiny)
    locked: list[bool] = []
    copy = build.copy_tree

    def copy_checking_the_lock(src: Path, out: Path) -> None:
        import fcntl

        with (src.parent / ".lock").open("w") as fh:  # another process's attempt: it must wait
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                locked.append(False)
                fcntl.flock(fh, fcntl.LOCK_UN)
            except BlockingIOError:
                locked.append(True)
        copy(src, out)

    monkeypatch.setattr(build, "copy_tree", copy_checking_the_lock)
    made = 0

    def use(name: str) -> bool:
        nonlocal made
        key["now"] = name
        made += 1
        hit = build.generate_cached(tmp_path / f"out{made}", tracks=[])
        assert json.loads((tmp_path / f"out{made}" / "manifest.json").read_text()) == {"key": name}
        return hit

    root = tmp_path / "cache" / "parquet-conformance" / "corpora"
    for i, name in enumerate(("a", "b", "c")):
        assert not use(name)
        os.utime(root / name, (1000 + i, 1000 + i))  # made in this order, a second apart
    assert use("a")  # a hit: "a" is now the last used
    assert not use("d")  # a fourth: the least recently used goes
    assert sorted(p.name for p in root.iterdir() if not p.name.startswith(".")) == ["a", "c", "d"]
    assert locked and all(locked)
