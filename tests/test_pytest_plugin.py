"""The pytest plugin as an implementer runs it: pytest in a directory of its own, the corpus and
a worker command on the command line, a strict expected-failures file."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from parquet_conformance.corpus.build import generate

FAKE = Path(__file__).parent / "hostile" / "worker.py"
# A base (the baseline), four files to reject, a golden file to read, a file that may be read or rejected.
CASES = "base/flat,corrupt/tiny/*,ext/file-metadata/flat/spec-header,corrupt/footer-length/bit-0-within-file"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("plugin") / "corpus"
    generate(out, only=CASES)
    return out


def run_pytest(tmp_path: Path, *args: str, autoload: bool = False) -> subprocess.CompletedProcess:
    ci = tmp_path / "ci"
    ci.mkdir(exist_ok=True)
    (ci / "pytest.ini").write_text("[pytest]\n")  # the rootdir: no conftest, no ini of this project
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    plugin = []
    if not autoload:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        plugin = ["-p", "parquet_conformance.app.pytest_plugin"]
    return subprocess.run([sys.executable, "-m", "pytest", *plugin, "-p", "no:cacheprovider", "--rootdir", str(ci),
                           *args], cwd=ci, capture_output=True, text=True, timeout=300, env=env)


def fake(mode: str = "none") -> str:
    """The fake worker reads every file as the same two rows (the bad ones: by `mode`)."""
    return f"{sys.executable} {FAKE} {mode}"


def counts(stdout: str) -> dict[str, int]:
    last = stdout.strip().splitlines()[-1]
    return {w: int(n) for n, w in re.findall(r"(\d+) (passed|failed|xfailed|xpassed|skipped|errors?)", last)}


def test_one_test_per_case_with_strict_expected_failures(corpus: Path, tmp_path: Path) -> None:
    failures = tmp_path / "known-failures.txt"
    failures.write_text("# known failures of the fake reader\n"
                        "base/flat   # returns other rows than the base\n"
                        "corrupt/footer-length/bit-0-within-file   # fixed: an unexpected pass fails the test\n"
                        "\n")
    proc = run_pytest(tmp_path, "--parquet-conformance-corpus", str(corpus), "--parquet-conformance-adapter-cmd",
                      fake(), "--parquet-conformance-expected-failures", str(failures), "-v")
    out = proc.stdout
    # The fake reads every file as the same rows: wrong data for base/flat (expected to fail), a pass for the
    # golden case (same data as its own baseline), accepted-invalid for the four tiny files, and an
    # unexpected pass for the `either` case that the list still names.
    assert counts(out) == {"passed": 1, "xfailed": 1, "failed": 5}, out
    assert proc.returncode == 1
    order = re.findall(r"^\S+/manifest\.json::(\S+) (?:PASSED|FAILED|XFAIL)", out, re.M)
    assert order[0] == "base/flat" and len(order) == 7, out
    assert "corpus/manifest.json::ext/file-metadata/flat/spec-header PASSED" in out
    fixed = out.split("parquet-conformance: corrupt/footer-length/bit-0-within-file _")[1]
    assert "bit-0-within-file: pass (unexpected-pass)" in fixed and "line 3, but it passes: remove it" in fixed, fixed
    report = out.split("parquet-conformance: corrupt/tiny/empty _")[1]
    for text in ("parquet-conformance case corrupt/tiny/empty: fail:accepted-invalid",
                 "expected:  reject (role legacy, must)", "outcome:   read, 2 rows",
                 "citation:  apache/parquet-format README.md", str(corpus / "cases" / "corrupt" / "tiny")):
        assert text in report, report
    assert "fake 0 as legacy:" in out and "1 pass" in out


def test_a_crashing_reader_fails_its_cases_and_the_run_goes_on(tmp_path: Path) -> None:
    corpus = tmp_path / "bad-corpus"  # the fake worker aborts on paths containing "bad"
    generate(corpus, only="corrupt/tiny/*")
    proc = run_pytest(tmp_path, "--parquet-conformance-corpus", str(corpus),
                      "--parquet-conformance-adapter-cmd", fake("abort"), "--parquet-conformance-only",
                      "corrupt/tiny/empty,corrupt/tiny/8-bytes")
    assert counts(proc.stdout) == {"failed": 2}, proc.stdout
    assert proc.stdout.count("fail:crash") >= 2
    assert "killed by SIGABRT" in proc.stdout and "footer length overflows" in proc.stdout


def test_a_hanging_reader_times_out(tmp_path: Path) -> None:
    corpus = tmp_path / "bad-corpus"
    generate(corpus, only="corrupt/tiny/empty")
    proc = run_pytest(tmp_path, "--parquet-conformance-corpus", str(corpus), "--parquet-conformance-adapter-cmd",
                      fake("hang"), "--parquet-conformance-timeout", "1")
    assert counts(proc.stdout) == {"failed": 1}, proc.stdout
    assert "fail:hang" in proc.stdout


def test_an_unavailable_reader_skips_every_case(corpus: Path, tmp_path: Path) -> None:
    proc = run_pytest(tmp_path, "--parquet-conformance-corpus", str(corpus), "--parquet-conformance-adapter-cmd",
                      fake("refuse"), "-rs")
    assert counts(proc.stdout) == {"skipped": 7}, proc.stdout
    assert "libfoo is not installed" in proc.stdout
    assert proc.returncode == 0


def test_a_real_worker_command_and_a_role(corpus: Path, tmp_path: Path) -> None:
    proc = run_pytest(tmp_path, "--parquet-conformance-corpus", str(corpus), "--parquet-conformance-adapter-cmd",
                      f"{sys.executable} -m parquet_conformance.conformance.harness.worker pyarrow",
                      "--parquet-conformance-role", "aware:x",
                      "--parquet-conformance-only", "corrupt/tiny/*,base/flat")
    assert counts(proc.stdout) == {"passed": 5}, proc.stdout
    assert "as aware:x: 5 pass" in proc.stdout


def test_without_the_corpus_option_the_plugin_does_nothing(tmp_path: Path) -> None:
    ci = tmp_path / "ci"
    ci.mkdir()
    (ci / "test_mine.py").write_text("def test_mine():\n    pass\n")
    proc = run_pytest(tmp_path, "-q", autoload=True)
    assert counts(proc.stdout) == {"passed": 1}, proc.stdout + proc.stderr
    assert "parquet-conformance" not in proc.stdout


def test_the_entry_point_loads_the_plugin(corpus: Path, tmp_path: Path) -> None:
    assert "--parquet-conformance-corpus" in run_pytest(tmp_path, "--help", autoload=True).stdout
    proc = run_pytest(tmp_path, "--parquet-conformance-corpus", str(corpus), "--parquet-conformance-adapter",
                      "pyarrow", "--parquet-conformance-only", "base/*", "-q", autoload=True)
    assert counts(proc.stdout) == {"passed": 1}, proc.stdout + proc.stderr


@pytest.mark.parametrize("args, message", [
    (["--parquet-conformance-corpus", "{tmp}/nowhere", "--parquet-conformance-adapter", "pyarrow"], "no such"),
    (["--parquet-conformance-corpus", "{corpus}"], "exactly one of"),
    (["--parquet-conformance-corpus", "{corpus}", "--parquet-conformance-adapter", "nope"], "unknown adapter"),
    (["--parquet-conformance-corpus", "{corpus}", "--parquet-conformance-adapter", "pyarrow",
      "--parquet-conformance-expected-failures", "{tmp}/missing.txt"], "missing.txt"),
    (["--parquet-conformance-corpus", "{corpus}", "--parquet-conformance-adapter", "pyarrow",
      "--parquet-conformance-role", "superuser"], "role"),
])
def test_bad_options_are_usage_errors(args: list[str], message: str, corpus: Path, tmp_path: Path) -> None:
    proc = run_pytest(tmp_path, *(a.format(tmp=tmp_path, corpus=corpus) for a in args))
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
