"""Isolation: crashes, hangs, memory blow-ups and protocol violations of a worker become outcomes,
the worker is restarted, and the run goes on. The workers here are small fakes written for
these tests; the real libraries are exercised in test_adapters.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from parquet_conformance.conformance.adapters import CommandAdapter
from parquet_conformance.conformance.execute import AdapterSpec, run_cells
from parquet_conformance.conformance.judge import classify, judge
from parquet_conformance.conformance.model import (
    Crash,
    Error,
    HarnessError,
    OutcomeRow,
    OutOfMemory,
    Read,
    Rejected,
    Timeout,
    Unavailable,
    Verdict,
)
from parquet_conformance.conformance.workers import Timed, Worker
from parquet_conformance.corpus.model import Expectation, Manifest
from parquet_conformance.corpus.parquet import TRACK

FAKE = Path(__file__).parent / "hostile" / "worker.py"


def fake(mode: str, timeout: float = 60.0, memory: int | None = None) -> Worker:
    adapter = CommandAdapter()
    adapter.name = adapter.implementation = f"fake-{mode}"
    adapter.timeout_s, adapter.memory_limit_bytes = timeout, memory
    return Worker(adapter, [sys.executable, str(FAKE), mode], TRACK.normalize)


def read_bad_then_good(worker: Worker) -> tuple[Timed, Timed]:
    try:
        return worker.read("/x/bad.parquet"), worker.read("/x/good.parquet")
    finally:
        worker.close()


def test_segfault_is_a_crash_and_the_worker_restarts() -> None:
    bad, good = read_bad_then_good(fake("segfault"))
    assert isinstance(bad.outcome, Crash) and bad.outcome.error.cls == "killed by SIGSEGV"
    assert isinstance(good.outcome, Read) and good.outcome.rows == 2


def test_abort_keeps_the_panic_text() -> None:
    bad, good = read_bad_then_good(fake("abort"))
    assert isinstance(bad.outcome, Crash) and bad.outcome.error.cls == "killed by SIGABRT"
    assert "panicked at src/footer.rs:42:9" in bad.outcome.error.message
    assert isinstance(good.outcome, Read)


def test_hang_is_a_timeout() -> None:
    bad, good = read_bad_then_good(fake("hang", timeout=1.0))
    assert bad.outcome == Timeout(1.0)
    assert isinstance(good.outcome, Read)


def test_unbounded_allocation_is_oom() -> None:
    bad, good = read_bad_then_good(fake("alloc", memory=1 << 30))
    assert isinstance(bad.outcome, OutOfMemory)
    assert "MemoryError" in bad.outcome.error.message
    assert isinstance(good.outcome, Read)


def test_garbage_on_stdout_is_a_harness_error_and_the_worker_restarts() -> None:
    """Anything but the answer to the request in flight breaks the protocol: ours to report, never the reader's."""
    bad, good = read_bad_then_good(fake("garbage"))
    assert isinstance(bad.outcome, HarnessError) and bad.outcome.error.cls == "protocol-error"
    assert "not JSON" in bad.outcome.error.message
    assert isinstance(good.outcome, Read)


def test_malformed_rows_are_a_harness_error() -> None:
    bad, good = read_bad_then_good(fake("bad-rows"))
    assert isinstance(bad.outcome, HarnessError) and "malformed data" in bad.outcome.error.message
    assert isinstance(good.outcome, Read)


def test_refusal_and_missing_program_are_unavailable() -> None:
    bad, _ = read_bad_then_good(fake("refuse"))
    assert bad.outcome == Unavailable("libfoo is not installed")
    worker = Worker(CommandAdapter(), ["/nonexistent/worker"], TRACK.normalize)
    assert isinstance(worker.read("/x/good.parquet").outcome, Unavailable)
    worker.close()


def manifest(cases: list[tuple[str, str]], base_hash: str = "h") -> Manifest:
    """A manifest of cases (id, legacy expectation) over one base `b` whose baseline case is `base/b`."""
    return Manifest.from_json({
        "format": "parquet-conformance-manifest", "manifest_version": 2, "generator": {"name": "t", "version": "0"},
        "seed": 0, "only": None, "large": False, "tracks": ["parquet"], "expectations": {}, "roles": {},
        "bases": {"b": {"track": "parquet", "description": "", "file": "bases/b.parquet", "sha256": "0" * 64,
                        "expected": "expected/b.json", "data_hash": base_hash, "rows": 1, "columns": ["x"],
                        "baseline_case": "base/b"}},
        "cases": [{"id": i, "track": "parquet", "title": i, "group": i.split("/")[0], "kind": "corrupt", "base": "b",
                   "file": f"cases/{i}.parquet", "size": 0, "sha256": "0" * 64, "seed": 0, "mutations": [],
                   "expect": {"legacy": e}, "decode": {}, "citations": [], "notes": "", "extensions": None,
                   "large": False} for i, e in cases]})


def test_a_run_completes_across_crashes(tmp_path: Path) -> None:
    m = manifest([("base/b", "read"), ("corrupt/bad-1", "reject"), ("corrupt/bad-2", "reject")])
    paths = {"base/b": tmp_path / "good.parquet", "corrupt/bad-1": tmp_path / "bad1",
             "corrupt/bad-2": tmp_path / "bad2"}
    specs = [AdapterSpec("fake", f"{sys.executable} {FAKE} segfault")]
    cells = judge(list(run_cells(((c, paths[c.id]) for c in m.cases), specs)), m)
    assert [(c.case, c.outcome, c.verdict) for c in cells] == [
        ("base/b", "read", "fail:wrong-data"),  # the fake's rows are not the base data "h"
        ("corrupt/bad-1", "crash", "fail:crash"), ("corrupt/bad-2", "crash", "fail:crash")]


READ_H, READ_OTHER = Read("h", 1), Read("other", 1)
ERR = Error("E", "e")


@pytest.mark.parametrize(("expected", "outcome", "verdict"), [
    ("read", READ_H, "pass"),
    ("read", READ_OTHER, "fail:wrong-data"),
    ("either", READ_OTHER, "fail:wrong-data"),
    ("reject", READ_OTHER, "fail:wrong-data"),
    ("reject", READ_H, "fail:accepted-invalid"),
    ("either", READ_H, "pass"),
    ("read", Rejected(ERR), "fail:rejected-valid"),
    ("either", Rejected(ERR), "pass"),
    ("reject", Rejected(ERR), "pass"),
    ("reject", Crash(ERR), "fail:crash"),
    ("either", OutOfMemory(ERR), "fail:crash"),
    ("reject", Timeout(60.0), "fail:hang"),
    ("read", Unavailable("gone"), "skip"),
])
def test_classify(expected: str, outcome: object, verdict: str) -> None:
    assert classify(Expectation(expected), outcome, {"h"}) == Verdict(verdict)  # type: ignore[arg-type]


def test_baseline_forgives_representation_not_extensions() -> None:
    m = manifest([("base/b", "read"), ("ext/x", "read"), ("ext/y", "read")], base_hash="expected")

    def row(case: str, data_hash: str) -> OutcomeRow:
        return OutcomeRow.of(case, "a", "a", "1", ["legacy"], Read(data_hash, 1), 0.0)

    rows = [row("base/b", "mine"), row("ext/x", "mine"), row("ext/y", "changed")]
    assert [c.verdict for c in judge(rows, m)] == ["fail:wrong-data", "pass", "fail:wrong-data"]
