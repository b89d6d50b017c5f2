"""Isolation: crashes, hangs, memory blow-ups and stdout garbage of a worker become outcomes,
the worker is restarted, and the run goes on. The workers here are small fakes written for
these tests; the real libraries are exercised in test_adapters.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conformance.adapters import CommandAdapter
from conformance.cells import AdapterSpec, judge, run_cells
from conformance.runner import Worker
from conformance.verdict import classify

FAKE = Path(__file__).parent / "fakes" / "fake_worker.py"


def fake(mode: str, timeout: float = 60.0, memory: int | None = None) -> Worker:
    adapter = CommandAdapter()
    adapter.name = adapter.implementation = f"fake-{mode}"
    adapter.timeout_s, adapter.memory_limit_bytes = timeout, memory
    return Worker(adapter, [sys.executable, str(FAKE), mode])


def read_bad_then_good(worker: Worker) -> tuple:
    try:
        return worker.read("/x/bad.parquet"), worker.read("/x/good.parquet")
    finally:
        worker.close()


def test_segfault_is_a_crash_and_the_worker_restarts() -> None:
    bad, good = read_bad_then_good(fake("segfault"))
    assert (bad.outcome, bad.error_class) == ("crash", "killed by SIGSEGV")
    assert good.outcome == "read" and good.rows == 2


def test_abort_keeps_the_panic_text() -> None:
    bad, good = read_bad_then_good(fake("abort"))
    assert (bad.outcome, bad.error_class) == ("crash", "killed by SIGABRT")
    assert "panicked at src/footer.rs:42:9" in bad.error_message
    assert good.outcome == "read"


def test_hang_is_a_timeout() -> None:
    bad, good = read_bad_then_good(fake("hang", timeout=1.0))
    assert bad.outcome == "timeout"
    assert good.outcome == "read"


def test_unbounded_allocation_is_oom() -> None:
    bad, good = read_bad_then_good(fake("alloc", memory=1 << 30))
    assert bad.outcome == "oom"
    assert "MemoryError" in bad.error_message
    assert good.outcome == "read"


def test_garbage_on_stdout_does_not_corrupt_the_stream() -> None:
    bad, good = read_bad_then_good(fake("garbage"))
    assert (bad.outcome, bad.error_class, bad.error_message) == ("rejected", "Bad", "no")
    assert good.outcome == "read"


def test_malformed_rows_are_a_protocol_error() -> None:
    bad, good = read_bad_then_good(fake("bad-rows"))
    assert (bad.outcome, bad.error_class) == ("crash", "protocol-error")
    assert good.outcome == "read"


def test_refusal_and_missing_program_are_unavailable() -> None:
    bad, _ = read_bad_then_good(fake("refuse"))
    assert (bad.outcome, bad.error_message) == ("unavailable", "libfoo is not installed")
    worker = Worker(CommandAdapter(), ["/nonexistent/worker"])
    assert worker.read("/x/good.parquet").outcome == "unavailable"
    worker.close()


def test_a_run_completes_across_crashes(tmp_path: Path) -> None:
    manifest = {"bases": {"b": {"data_hash": "h"}}, "cases": [
        {"id": i, "group": i.split("/")[0], "kind": "corrupt", "base": "b", "expect": {"legacy": "reject"}}
        for i in ("base/b", "corrupt/bad-1", "corrupt/bad-2")]}
    cases = [("base/b", tmp_path / "good.parquet"), ("corrupt/bad-1", tmp_path / "bad1"),
             ("corrupt/bad-2", tmp_path / "bad2")]
    specs = [AdapterSpec("fake", f"{sys.executable} {FAKE} segfault")]
    rows = judge(list(run_cells(cases, specs)), manifest)
    assert [(r["case"], r["outcome"], r["verdict"]) for r in rows] == [
        ("base/b", "read", "fail:wrong-data"),  # the fake's rows are not the base data "h"
        ("corrupt/bad-1", "crash", "fail:crash"), ("corrupt/bad-2", "crash", "fail:crash")]


@pytest.mark.parametrize(("expected", "outcome", "hash_", "verdict"), [
    ("read", "read", "h", "pass"),
    ("read", "read", "other", "fail:wrong-data"),
    ("either", "read", "other", "fail:wrong-data"),
    ("reject", "read", "other", "fail:wrong-data"),
    ("reject", "read", "h", "fail:accepted-invalid"),
    ("either", "read", "h", "pass"),
    ("read", "rejected", None, "fail:rejected-valid"),
    ("either", "rejected", None, "pass"),
    ("reject", "rejected", None, "pass"),
    ("reject", "crash", None, "fail:crash"),
    ("either", "oom", None, "fail:crash"),
    ("reject", "timeout", None, "fail:hang"),
    ("read", "unavailable", None, "skip"),
])
def test_classify(expected: str, outcome: str, hash_: str | None, verdict: str) -> None:
    assert classify(expected, outcome, hash_, {"h"}) == verdict


def test_baseline_forgives_representation_not_extensions() -> None:
    manifest = {"bases": {"b": {"data_hash": "expected"}}, "cases": [
        {"id": "base/b", "group": "base", "kind": "golden", "base": "b", "expect": {"legacy": "read"}},
        {"id": "ext/x", "group": "ext", "kind": "golden", "base": "b", "expect": {"legacy": "read"}},
        {"id": "ext/y", "group": "ext", "kind": "golden", "base": "b", "expect": {"legacy": "read"}}]}
    row = {"adapter": "a", "implementation": "a", "version": "1", "roles": ["legacy"], "outcome": "read",
           "error_class": None, "error_message": None, "rows": 1, "duration_s": 0.0}
    rows = [{**row, "case": "base/b", "data_hash": "mine"}, {**row, "case": "ext/x", "data_hash": "mine"},
            {**row, "case": "ext/y", "data_hash": "changed"}]
    assert [r["verdict"] for r in judge(rows, manifest)] == ["fail:wrong-data", "pass", "fail:wrong-data"]
