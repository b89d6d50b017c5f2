"""A worker that misbehaves in every way we know of: each misbehaviour is the outcome of one cell (or a
harness error when it breaks the protocol), the next cell runs in a fresh worker, strings are sanitised
at the boundary, and no process it started survives."""

from __future__ import annotations

import pytest

from parquet_conformance.conformance.adapters import CommandAdapter
from parquet_conformance.conformance.harness.model import (
    Crash,
    HarnessError,
    Outcome,
    OutOfMemory,
    Read,
    Rejected,
    Timeout,
    Unavailable,
)
from parquet_conformance.conformance.harness.workers import Timed, Worker
from parquet_conformance.corpus.parquet import TRACK
from tests.hostile import assert_nothing_left, fake_command, token


def fake(mode: str, mark: str, timeout: float = 60.0, memory: int | None = None) -> Worker:
    adapter = CommandAdapter()
    adapter.name = adapter.implementation = f"fake-{mode}"
    adapter.timeout_s, adapter.memory_limit_bytes = timeout, memory
    return Worker(adapter, fake_command(mode, mark), TRACK.normalize)


def bad_then_good(mode: str, **kw: float | int | None) -> tuple[Timed, Timed]:
    mark = token()
    worker = fake(mode, mark, **kw)  # type: ignore[arg-type]
    try:
        return worker.read("/x/bad.parquet", "c/bad"), worker.read("/x/good.parquet", "c/good")
    finally:
        worker.close()
        assert_nothing_left(mark)


def check(outcome: Outcome, kind: type, *text: str) -> None:
    assert isinstance(outcome, kind), outcome
    message = getattr(getattr(outcome, "error", None), "message", "") or getattr(outcome, "reason", "")
    for t in text:
        assert t in message, message


@pytest.mark.parametrize(("mode", "kind", "text"), [
    ("segfault", Crash, ()),
    ("abort", Crash, ("panicked at src/footer.rs:42:9",)),
    ("garbage", HarnessError, ("not JSON",)),
    ("bad-rows", HarnessError, ("malformed data",)),
    ("big-line", HarnessError, ("longer than 16777216 bytes",)),
    ("mismatched", HarnessError, ("expected the answer to request ", "got one for id '")),
    ("child-holds-stdout", Crash, ()),
    ("surviving-child", Rejected, ("rejected, with a child",)),
    ("exit-after-read", Crash, ()),
])
def test_each_misbehaviour_is_one_cell_and_the_next_runs(mode: str, kind: type, text: tuple[str, ...]) -> None:
    bad, good = bad_then_good(mode)
    check(bad.outcome, kind, *text)
    assert isinstance(good.outcome, Read) and good.outcome.rows == 2


def test_a_signal_is_named() -> None:
    bad, _ = bad_then_good("segfault")
    assert isinstance(bad.outcome, Crash) and bad.outcome.error.cls == "killed by SIGSEGV"
    bad, _ = bad_then_good("abort")
    assert isinstance(bad.outcome, Crash) and bad.outcome.error.cls == "killed by SIGABRT"


def test_a_hang_is_a_timeout_and_costs_the_timeout_only() -> None:
    bad, good = bad_then_good("hang", timeout=1.0)
    assert bad.outcome == Timeout(1.0) and isinstance(good.outcome, Read)


def test_unbounded_allocation_is_oom() -> None:
    bad, good = bad_then_good("alloc", memory=1 << 30)
    check(bad.outcome, OutOfMemory, "MemoryError")
    assert isinstance(good.outcome, Read)


def test_a_crash_at_the_address_space_limit_says_so() -> None:
    """Issue 39 item 7: the limit changes what a crash says (rugo's "cannot reserve the slab address space", daft's
    "memory allocation of 3200 bytes failed", where without it the same files segfault or grow to 24 GB): a worker
    the kernel refuses memory under the limit is "killed by SIGABRT at the 1 GiB address-space limit"; one that asked
    for more than the limit at once, or that has no limit, is killed by SIGABRT, no more."""
    bad, good = bad_then_good("native-alloc", memory=1 << 30)
    assert isinstance(bad.outcome, OutOfMemory), bad.outcome
    assert bad.outcome.error.cls == "killed by SIGABRT at the 1 GiB address-space limit"
    assert "memory allocation of 67108864 bytes failed" in bad.outcome.error.message
    assert isinstance(good.outcome, Read)
    bad, _ = bad_then_good("huge-alloc", memory=1 << 30)
    assert isinstance(bad.outcome, OutOfMemory) and bad.outcome.error.cls == "killed by SIGABRT"
    bad, _ = bad_then_good("huge-alloc", memory=None)
    assert isinstance(bad.outcome, OutOfMemory) and bad.outcome.error.cls == "killed by SIGABRT"


def test_a_worker_whose_child_holds_stdout_is_a_crash_at_once() -> None:
    """The worker exits, its child keeps the pipe open: not a 60 s timeout, and the child is killed."""
    bad, _ = bad_then_good("child-holds-stdout")  # with the 60 s timeout: a wait for the pipe would be a Timeout
    assert isinstance(bad.outcome, Crash) and bad.outcome.error.cls == "exited with code 3"


@pytest.mark.parametrize(("mode", "cls", "message"), [
    ("surrogate", "E\ufffd", "lone \ufffd surrogate [sanitised; sha256 of the raw text "),
    ("nul", "E", "nul \ufffd and \ufffd bell [sanitised; sha256 of the raw text "),
    ("bad-utf8", "E", "invalid \ufffd\ufffd utf-8 [invalid UTF-8 replaced; sha256 of the raw line "),
])
def test_strings_are_sanitised_at_the_boundary(mode: str, cls: str, message: str) -> None:
    bad, _ = bad_then_good(mode)
    assert isinstance(bad.outcome, Rejected)
    assert bad.outcome.error.cls is not None and bad.outcome.error.cls.startswith(cls)
    assert bad.outcome.error.message.startswith(message)
    bad.outcome.error.message.encode("utf-8")  # storable: no lone surrogate left


def test_a_worker_that_dies_at_start_or_refuses_is_unavailable() -> None:
    mark = token()
    for mode, reason in (("exit-at-start", "worker did not start"), ("refuse", "libfoo is not installed")):
        worker = fake(mode, mark)
        outcome = worker.read("/x/good.parquet").outcome
        worker.close()
        check(outcome, Unavailable, reason)
    missing = Worker(CommandAdapter(), ["/nonexistent/worker"], TRACK.normalize)
    check(missing.read("/x/good.parquet").outcome, Unavailable, "/nonexistent/worker")
    missing.close()
    assert_nothing_left(mark)


def test_closing_kills_a_child_that_ignores_sigterm() -> None:
    mark = token()
    worker = fake("surviving-child", mark)
    worker.read("/x/bad.parquet")
    worker.close()
    assert_nothing_left(mark)


@pytest.mark.parametrize(("mode", "kind", "text"), [
    ("bad-decimal", HarnessError, ("malformed data in the answer: \"abc\" is not a 'dec' token",)),
    ("huge-number", HarnessError, ("not JSON",)),
    ("deep-line", HarnessError, ("nested too deep to parse",)),
    ("deep-rows", HarnessError, ("deeper than 64",)),
    ("setsid-holds-stdout", Crash, ("exited with code 3",)),
])
def test_any_answer_is_an_outcome_of_its_cell(mode: str, kind: type, text: tuple[str, ...]) -> None:
    """Numbers Python would not parse, lines nested beyond any recursion limit, a descendant in a session of its own
    holding stdout: one cell each, and the next is read by a worker in step."""
    bad, good = bad_then_good(mode)
    check(bad.outcome, kind, *text)
    assert isinstance(good.outcome, Read) and good.outcome.rows == 2


@pytest.mark.parametrize("mode", ["twice", "exit-after-answer", "setsid-child", "double-fork"])
def test_what_comes_after_an_answer_is_no_other_cells(mode: str) -> None:
    """The answer stands; a second answer in the same write, or the worker's exit after answering, never becomes
    the next cell's outcome; a descendant that left the session is killed with the worker."""
    bad, good = bad_then_good(mode)
    assert isinstance(bad.outcome, Read) and bad.outcome.rows == 2, bad.outcome
    assert isinstance(good.outcome, Read) and good.outcome.rows == 2, good.outcome
    assert good.previous_case is None or mode in ("setsid-child", "double-fork")


def test_a_line_nobody_asked_for_is_no_cells_answer() -> None:
    """A line written unasked a moment after an answer, guessing the next request's number (ids are unguessable):
    waiting when the next request is to be sent, it is taken for no answer, and that cell is decided by a fresh
    worker. (A stray line read while a request is in flight is the `mismatched` mode's.)"""
    import time

    mark = token()
    worker = fake("stray-later", mark)
    try:
        reads = [worker.read("/x/bad.parquet", "c/bad"), worker.read("/x/good.parquet", "c/good")]
        time.sleep(1.0)
        reads.append(worker.read("/x/good.parquet", "c/good"))
    finally:
        worker.close()
    assert_nothing_left(mark)
    assert all(isinstance(r.outcome, Read) and r.outcome.rows == 2 for r in reads), reads
    assert reads[2].previous_case is None  # a fresh process read it


def test_a_stderr_flood_keeps_a_bounded_tail() -> None:
    from parquet_conformance.conformance.harness.transport import STDERR_KEEP

    mark = token()
    worker = Worker(fake("stderr-flood", mark).adapter, [*fake_command("stderr-flood", mark), "--flood=64"],
                    TRACK.normalize)
    try:
        outcome = worker.read("/x/bad.parquet", "c/bad").outcome
        assert isinstance(outcome, Read)
        assert 0 < len(worker.transport.stderr_tail(1 << 30)) <= 2 * STDERR_KEEP
    finally:
        worker.close()
    assert_nothing_left(mark)


@pytest.mark.parametrize(("mode", "reason"), [
    ("huge-name", "start answer: implementation: longer than 200 characters"),
    ("bad-role", "start answer: role 'my role#1' refused: a role is [a-z][a-z0-9-]*"),
    ("dup-role", "start answer: role 'legacy' refused: it is listed twice"),
    ("numeric-version", "start answer: version: 1.5 is not a string"),
    ("banner", "worker did not start: a line that is not JSON"),
])
def test_a_bad_self_description_makes_the_adapter_unavailable(mode: str, reason: str) -> None:
    mark = token()
    worker = fake(mode, mark)
    try:
        outcome = worker.read("/x/good.parquet").outcome
    finally:
        worker.close()
    assert_nothing_left(mark)
    check(outcome, Unavailable, reason)
    assert isinstance(outcome, Unavailable) and len(outcome.reason) <= 300
