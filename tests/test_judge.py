"""The judge: verdicts from outcomes and expectations, the baseline rule, attempts that disagree (flaky), and a
run that goes on across crashes. Misbehaving workers themselves are in tests/hostile/test_workers.py."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from parquet_conformance.conformance.harness.judge import Judge, classify
from parquet_conformance.conformance.harness.model import (
    Crash,
    Error,
    HarnessError,
    OutcomeRow,
    OutOfMemory,
    Read,
    Rejected,
    Timeout,
    Unavailable,
    Unhandled,
    Verdict,
)
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.corpus.model import MANIFEST_VERSION, Expectation, Level, Manifest
from tests.helpers import read_cases

FAKE = Path(__file__).parent / "hostile" / "worker.py"
EMPTY = hashlib.sha256(b"").hexdigest()  # the digest of an empty case file


def manifest(cases: list[tuple[str, ...]], base_hash: str = "h") -> Manifest:
    """A manifest of cases (id, legacy expectation[, its level: must by default]) over one base `b` whose baseline
    case is `base/b`."""
    return Manifest.from_json({
        "format": "parquet-conformance-manifest", "manifest_version": MANIFEST_VERSION,
        "generator": {"name": "t", "version": "0"},
        "seed": 0, "only": None, "large": False, "tracks": ["parquet"], "expectations": {}, "roles": {},
        "bases": {"b": {"track": "parquet", "description": "", "file": "bases/b.parquet", "sha256": "0" * 64, "size": 1,
                        "expected_size": 1,
                        "expected": "expected/b.json", "data_hash": base_hash, "rows": 1, "columns": ["x"],
                        "baseline_case": "base/b"}},
        "cases": [{"id": i, "track": "parquet", "title": i, "group": i.split("/")[0], "kind": "corrupt", "base": "b",
                   "file": f"cases/{i}.parquet", "size": 0, "sha256": EMPTY, "seed": 0, "mutations": [],
                   "expect": {"legacy": e}, "decode": {}, "citations": [], "notes": "", "extensions": None,
                   "large": False, "levels": {"legacy": level[0] if level else "must"}} for i, e, *level in cases]})


def test_a_run_completes_across_crashes(tmp_path: Path) -> None:
    m = manifest([("base/b", "read"), ("corrupt/bad-1", "reject"), ("corrupt/bad-2", "reject")])
    for c in m.cases:  # the files the manifest names (empty: the fake reads none of them)
        (tmp_path / c.file).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / c.file).touch()
    specs = [AdapterSpec("fake", f"{sys.executable} {FAKE} segfault")]  # it crashes on paths with "bad" in them
    cells = Judge.of(m).cells(read_cases(m.cases, tmp_path, specs))
    assert [(c.case, c.outcome, c.verdict) for c in cells] == [
        ("base/b", "read", "fail:wrong-data"),  # the fake's rows are not the base data "h"
        ("corrupt/bad-1", "crash", "fail:crash"), ("corrupt/bad-2", "crash", "fail:crash")]


READ_H, READ_OTHER = Read("h", 1), Read("other", 1)
ERR = Error("E", "e")


@pytest.mark.parametrize(("expected", "outcome", "verdict"), [
    ("read", READ_H, "pass"),
    ("read", READ_OTHER, "fail:wrong-data"),
    ("either", READ_OTHER, "fail:wrong-data"),
    ("reject", READ_OTHER, "fail:accepted-invalid"),  # it accepted the file, whatever it returned
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


def test_the_rule_order_puts_acceptance_first_only_where_the_reject_is_a_must() -> None:
    """DataFusion's 0 rows for the 0-byte `corrupt/tiny/empty` (a must reject) accept an invalid file; where the
    reject rests on a should or a policy, a read is the other reading's and must be the case's data."""
    zero_rows = Read("no-rows", 0)
    assert classify(Expectation.REJECT, zero_rows, {"h"}) == Verdict.ACCEPTED_INVALID
    for weaker in (Level.SHOULD, Level.POLICY):
        assert classify(Expectation.REJECT, zero_rows, {"h"}, level=weaker) == Verdict.WRONG_DATA
        assert classify(Expectation.REJECT, READ_H, {"h"}, level=weaker) == Verdict.ACCEPTED_INVALID
        assert classify(Expectation.READ, Rejected(ERR), {"h"}, level=weaker) == Verdict.REJECTED_VALID
        assert classify(Expectation.READ, zero_rows, {"h"}, level=weaker) == Verdict.WRONG_DATA
    m = manifest([("base/b", "read"), ("corrupt/tiny/empty", "reject"), ("storage/enum/x", "reject", "policy")])
    rows = [attempt("base/b", "h"), attempt("corrupt/tiny/empty", "no-rows"), attempt("storage/enum/x", "no-rows")]
    cells = {c.case: (c.verdict, c.level) for c in Judge.of(m).cells(rows)}
    assert cells == {"base/b": (Verdict.PASS, Level.MUST), "corrupt/tiny/empty": (Verdict.ACCEPTED_INVALID, Level.MUST),
                     "storage/enum/x": (Verdict.WRONG_DATA, Level.POLICY)}


def test_baseline_forgives_representation_not_extensions() -> None:
    m = manifest([("base/b", "read"), ("ext/x", "read"), ("ext/y", "read")], base_hash="expected")

    def row(case: str, data_hash: str) -> OutcomeRow:
        return OutcomeRow.of(case, "a", "a", "1", ["legacy"], Read(data_hash, 1), 0.0)

    rows = [row("base/b", "mine"), row("ext/x", "mine"), row("ext/y", "changed")]
    assert [c.verdict for c in Judge.of(m).cells(rows)] == ["fail:wrong-data", "pass", "fail:wrong-data"]


def attempt(case: str, data_hash: str | None, *, round: int = 0, fresh: bool = False,
            previous: str | None = None) -> OutcomeRow:
    outcome = Read(data_hash, 1) if data_hash else Rejected(Error("E", "refused"))
    return OutcomeRow.of(case, "a", "a", "1", ["legacy"], outcome, 0.0, round=round, fresh=fresh,
                         previous_case=previous)


def test_attempts_that_agree_give_one_verdict() -> None:
    m = manifest([("base/b", "read"), ("corrupt/x", "reject")])
    rows = [attempt("base/b", "h"), attempt("corrupt/x", None, previous="base/b"),
            attempt("corrupt/x", None, fresh=True), attempt("corrupt/x", None, round=1)]
    cells = {c.case: c for c in Judge.of(m).cells(rows)}
    assert (cells["corrupt/x"].verdict, cells["corrupt/x"].attempts) == (Verdict.PASS, 3)
    assert cells["corrupt/x"].previous_case == "base/b" and cells["corrupt/x"].disagreement is None


def test_attempts_that_disagree_are_flaky_with_every_outcome() -> None:
    m = manifest([("base/b", "read"), ("corrupt/x", "reject")])
    rows = [attempt("base/b", "h"), attempt("corrupt/x", "h", previous="base/b"),
            attempt("corrupt/x", None, fresh=True)]
    cell = next(c for c in Judge.of(m).cells(rows) if c.case == "corrupt/x")
    assert cell.verdict == Verdict.FLAKY and not cell.verdict.is_failure and cell.verdict.judged  # counted apart
    assert cell.outcome == "read" and cell.previous_case == "base/b"  # the run's own attempt is the one shown
    assert cell.disagreement == ("the run: read (data h) -> fail:accepted-invalid; "
                                 "a fresh worker: rejected (E) -> pass")


def test_attempts_that_all_fail_differently_are_the_worst_failure_with_every_attempt_kept() -> None:
    """Issue 30 item 3: fastparquet's SIGSEGV then KeyError, hang then SIGSEGV were `flaky`; a flake needs a pass."""
    m = manifest([("base/b", "read"), ("ext/x", "read"), ("ext/y", "either"), ("ext/z", "read")])
    crash = OutcomeRow.of("ext/x", "a", "a", "1", ["legacy"], Crash(Error(None, "killed by SIGSEGV")), 0.0,
                          previous_case="base/b")
    key_error = OutcomeRow.of("ext/x", "a", "a", "1", ["legacy"], Unhandled(Error("builtins.KeyError", "'x'")), 0.0,
                              confirming=True)
    hang = OutcomeRow.of("ext/z", "a", "a", "1", ["legacy"], Timeout(60.0), 60.0, previous_case="base/b")
    ours = OutcomeRow.of("ext/z", "a", "a", "1", ["legacy"], HarnessError(Error("E", "ours")), 0.0, fresh=True)
    rows = [attempt("base/b", "h"), key_error, crash, attempt("ext/y", "h", previous="base/b"),
            attempt("ext/y", None, fresh=True), hang, ours]
    cells = {c.case: c for c in Judge.of(m).cells(rows)}
    x = cells["ext/x"]
    assert (x.verdict, x.outcome, x.previous_case) == (Verdict.CRASH, "crash", "base/b")  # the worst one is shown
    assert x.disagreement == ("the run: crash (killed by SIGSEGV) -> fail:crash; "
                              "the confirmation pass: unhandled-error (builtins.KeyError) -> fail:unhandled-error")
    y = cells["ext/y"]  # read and refused under `either`: both pass, and the disagreement is kept
    assert (y.verdict, y.disagreement is not None) == (Verdict.PASS, True)
    z = cells["ext/z"]  # a harness error says nothing: the hang stands
    assert z.verdict == Verdict.HANG and "harness-error" in (z.disagreement or "")
    assert not any(c.verdict == Verdict.FLAKY for c in cells.values())


def test_only_the_runs_own_attempt_is_a_baseline() -> None:
    m = manifest([("base/b", "read"), ("ext/x", "read")], base_hash="expected")
    rows = [attempt("base/b", "mine"), attempt("base/b", "other", fresh=True), attempt("ext/x", "mine")]
    verdicts = {c.case: c.verdict for c in Judge.of(m).cells(rows)}
    assert verdicts == {"base/b": Verdict.WRONG_DATA, "ext/x": Verdict.PASS}  # two readings of other data: both fail


def test_cells_to_confirm_are_every_non_pass_but_the_unavailable() -> None:
    from parquet_conformance.conformance.harness.judge import to_confirm

    m = manifest([("base/b", "read"), ("corrupt/x", "reject"), ("corrupt/y", "reject")])
    rows = [attempt("base/b", "h"), attempt("corrupt/x", "h"), attempt("corrupt/y", None),
            OutcomeRow.of("corrupt/y", "gone", "g", None, ["legacy"], Unavailable("no"), 0.0)]
    assert to_confirm(Judge.of(m).cells(rows)) == {("corrupt/x", "a")}


def test_a_failure_the_reader_shows_on_the_base_is_the_bases() -> None:
    """A reader that refuses the unmodified base (a codec it lacks) the same way is not judged on the cases built on
    it (skip); one that refuses the base differently, or reads the base and refuses the case, fails."""
    m = manifest([("base/b", "either"), ("ext/x", "read"), ("ext/y", "read")])
    codec = Rejected(Error("E", "Unsupported codec ZSTD"))
    rows = [OutcomeRow.of("base/b", "a", "a", "1", ["legacy"], codec, 0.0),
            OutcomeRow.of("ext/x", "a", "a", "1", ["legacy"], codec, 0.0),
            OutcomeRow.of("ext/y", "a", "a", "1", ["legacy"], Rejected(Error("E", "bad extension at 12")), 0.0),
            OutcomeRow.of("base/b", "b", "b", "1", ["legacy"], READ_H, 0.0),
            OutcomeRow.of("ext/x", "b", "b", "1", ["legacy"], codec, 0.0)]
    verdicts = {(c.case, c.adapter): c.verdict for c in Judge.of(m).cells(rows)}
    assert verdicts == {("base/b", "a"): Verdict.PASS, ("ext/x", "a"): Verdict.SKIP,
                        ("ext/y", "a"): Verdict.REJECTED_VALID, ("base/b", "b"): Verdict.PASS,
                        ("ext/x", "b"): Verdict.REJECTED_VALID}
