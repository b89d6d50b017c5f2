"""The gate's edge cases: a list that names what does not exist, pins what cannot be pinned, or names a cell
twice is refused whole (exit 2); a run of part of the corpus is gated only as such; flaky cells are reported apart
(they cannot be pinned, and fail the gate only with --fail-on-flaky); harness errors make the gate incomplete
(exit 3), never the implementation's failure."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from parquet_conformance.conformance.harness.gate import GateError, parse_expected
from parquet_conformance.corpus.build import generate
from tests.helpers import CLI, cli_here
from tests.hostile import WORKER, assert_nothing_left, token

KNOWN = {"base/flat", "corrupt/tiny/empty"}


@pytest.mark.parametrize(("text", "message"), [
    ("base/flatt\n", "line 1: base/flatt is not a case of the corpus"),
    ("base/flat fail:nonsense\n", "line 1: 'fail:nonsense' is not a verdict"),
    ("base/flat harness-error\n", "line 1: harness-error is not a failure"),
    ("base/flat pass\n", "line 1: pass is not a failure"),
    ("base/flat legacy flaky\n", "line 1: a flaky cell cannot be pinned"),
    ("base/flat\nbase/flat fail:crash\n", "line 2: base/flat is already listed on line 1"),
    ("base/flat legacy\nbase/flat\n", "line 2: base/flat is already listed on line 1"),
    ("base/flat\nbase/flat legacy\n", "line 2: base/flat is already listed on line 1"),
    ("base/flat legacy fail:crash extra\n", "line 1: expected 'case-id [role] [verdict]'"),
    ("../../etc/passwd\n", "is not a case id"),
])
def test_a_bad_list_is_refused_naming_the_line(text: str, message: str) -> None:
    with pytest.raises(GateError, match=re.escape(message)):
        parse_expected(text, KNOWN)


def test_a_good_list() -> None:
    entries = parse_expected("# c\nbase/flat legacy\ncorrupt/tiny/empty aware:x fail:crash  # why\n", KNOWN)
    assert [(e.case, e.role, e.verdict) for e in entries] == [
        ("base/flat", "legacy", None), ("corrupt/tiny/empty", "aware:x", "fail:crash")]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gate") / "corpus"
    generate(out, only="base/flat,corrupt/tiny/*")
    return out


def test_a_partial_run_is_gated_only_as_one(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert cli("run", "--corpus", str(corpus), "--out", str(out), "--master", "none", "--adapter", "pyarrow",
               "--only", "corrupt/tiny/*").returncode == 0
    gate = ["check", "--adapter", "pyarrow", "--results", str(out / "results"), "--expected-failures",
            str(tmp_path / "f.txt")]
    refused = cli(*gate, "--write-expected-failures")
    assert refused.returncode == 2 and "covered only 'corrupt/tiny/*'" in refused.stderr
    assert not (tmp_path / "f.txt").exists()
    assert cli_here(*gate, "--write-expected-failures", "--only", "corrupt/tiny/*").returncode == 0
    assert cli_here(*gate, "--only", "corrupt/tiny/*").returncode == 0
    (tmp_path / "f.txt").write_text("base/flatt\n")
    typo = cli_here(*gate, "--only", "corrupt/tiny/*")
    assert typo.returncode == 2 and "base/flatt is not a case" in typo.stderr


def test_flaky_cells_are_apart_and_harness_errors_leave_the_gate_incomplete(corpus: Path, tmp_path: Path) -> None:
    mark = token()
    out = tmp_path / "out"
    # stateful: rejects a file when fresh, returns other data once it has read something: the corrupt cases
    # (read after base/flat) are wrong data in the run, rejected in a fresh worker: flaky.
    for name, mode in (("stateful", "stateful"), ("broken", "bad-rows")):
        proc = cli("run", "--corpus", str(corpus), "--out", str(out), "--master", "none", "--run-id", name,
                   "--adapter-cmd", f"{name}=python3 {WORKER} {mode} {mark} --all-bad")
        assert proc.returncode == 0, proc.stderr
    failures = tmp_path / "f.txt"
    gate = ["check", "--results", str(out / "results"), "--expected-failures", str(failures)]
    assert cli(*gate, "--adapter", "stateful", "--run", "stateful", "--write-expected-failures").returncode == 0
    listed = failures.read_text()
    assert "# Flaky in this run" in listed and not re.search(r"^[^#].* flaky$", listed, re.M)  # named, not pinned
    flaky = cli_here(*gate, "--adapter", "stateful", "--run", "stateful")
    assert flaky.returncode == 0 and re.search(r"^FLAKY +corrupt/tiny/", flaky.stdout, re.M), flaky.stdout
    assert cli_here(*gate, "--adapter", "stateful", "--run", "stateful", "--fail-on-flaky").returncode == 1
    failures.write_text("")
    incomplete = cli_here(*gate, "--adapter", "broken", "--run", "broken")
    assert incomplete.returncode == 3
    assert "HARNESS ERROR" in incomplete.stdout and "gate INCOMPLETE" in incomplete.stdout
    assert_nothing_left(mark)


def test_the_gate_enforces_must_by_default_and_the_other_levels_when_asked(tmp_path: Path) -> None:
    """Issue 30: a refusal of a `should` read (an unknown LogicalType alone, LogicalTypes.md "readers should ignore")
    is reported below the default level and fails `check --level should`; a crash fails at every level; the last
    line gives the scores by level; the list written at a level holds what that level enforces."""
    corpus = tmp_path / "corpus"
    generate(corpus, only="base/flat,unions/logical-type/unknown-only,corrupt/tiny/magic-only")
    out = tmp_path / "out"
    plan = "--plan=logical-type:steps:refuse"  # reads everything else with pyarrow
    assert cli("run", "--corpus", str(corpus), "--out", str(out), "--master", "none", "--adapter-cmd",
               f"picky={sys.executable} {WORKER} none --real {plan} --memory={tmp_path}").returncode == 0
    failures = tmp_path / "f.txt"
    failures.write_text("")
    gate = ["check", "--adapter", "picky", "--results", str(out / "results"), "--expected-failures", str(failures)]
    default = cli(*gate)
    assert default.returncode == 0, default.stdout
    assert re.search(r"^BELOW LEVEL +unions/logical-type/unknown-only \[legacy\]: fail:rejected-valid of a should "
                     r"expectation", default.stdout, re.M), default.stdout
    assert re.search(r"^gate ok: picky in run \S+ at level must, 3 cells \(must \d+/\d+ · should 0/1\)",
                     default.stdout, re.M), default.stdout
    should = cli_here(*gate, "--level", "should")
    assert should.returncode == 1 and "UNEXPECTED FAILURE unions/logical-type/unknown-only" in should.stdout
    assert cli_here(*gate, "--write-expected-failures").returncode == 0
    assert "\nunions/logical-type/unknown-only" not in failures.read_text()  # named in a comment only
    assert cli_here(*gate, "--write-expected-failures", "--level", "should").returncode == 0
    assert "\nunions/logical-type/unknown-only legacy fail:rejected-valid" in failures.read_text()
    # listed: known anyway
    assert cli_here(*gate, "--level", "should").returncode == 0 and cli_here(*gate).returncode == 0
    # a crash of the same cell fails at every level
    crash = "--plan=logical-type:steps:crash"
    assert cli("run", "--corpus", str(corpus), "--out", str(out), "--master", "none", "--adapter-cmd",
               f"picky={sys.executable} {WORKER} none --real {crash} --memory={tmp_path}").returncode == 0
    failures.write_text("")
    crashed = cli_here(*gate)
    assert crashed.returncode == 1 and "UNEXPECTED FAILURE unions/logical-type/unknown-only [legacy]: fail:crash" \
        in crashed.stdout
