"""Bad input from a user or an attacker, at the command line: one line on stderr, exit 2, no traceback,
nothing run, and nothing written outside the output directory."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from parquet_conformance.corpus import dist
from parquet_conformance.corpus.build import generate
from tests.helpers import CLI
from tests.hostile import WORKER, assert_nothing_left, token


def cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=600, cwd=cwd,
                          env={**os.environ, **(env or {})})


def one_line(proc: subprocess.CompletedProcess[str], code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    return proc.stderr


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("inputs") / "corpus"
    generate(out, only="base/flat,corrupt/tiny/*")
    return out


def copy(corpus: Path, tmp_path: Path) -> Path:
    target = tmp_path / "corpus"
    shutil.copytree(corpus, target)
    return target


def edit_manifest(root: Path, change: object, reseal: bool = True) -> None:
    """Rewrite the manifest (a function of its JSON, or a whole new value) and, unless told not to, its digest."""
    manifest = json.loads((root / "manifest.json").read_text())
    new = change(manifest) if callable(change) else change
    (root / "manifest.json").write_text(json.dumps(new if new is not None else manifest))
    if reseal:
        dist.write_manifest_digest(root)


def run(root: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return cli("run", "--corpus", str(root), "--out", str(out), "--master", "none", "--adapter", "pyarrow", *extra)


def escape(m: dict) -> None:
    m["cases"][0]["file"] = "../../../../../../etc/passwd"


def absolute(m: dict) -> None:
    m["cases"][0]["file"] = "/etc/passwd"


def no_file(m: dict) -> None:
    del m["cases"][0]["file"]


@pytest.mark.parametrize(("change", "message"), [
    (escape, "unsafe path in the manifest for case"),
    (absolute, "unsafe path in the manifest for case"),
    ([], "not a parquet-conformance manifest"),
    (no_file, "missing 1 required positional argument: 'file'"),
])
def test_a_malicious_manifest_runs_nothing(change: object, message: str, corpus: Path, tmp_path: Path) -> None:
    root = copy(corpus, tmp_path)
    edit_manifest(root, change)
    err = one_line(run(root, tmp_path / "out"))
    assert message in err
    assert not (tmp_path / "out" / "results").exists()


def test_a_flipped_byte_is_named_and_runs_nothing(corpus: Path, tmp_path: Path) -> None:
    root = copy(corpus, tmp_path)
    target = root / "cases" / "corrupt" / "tiny" / "8-bytes.parquet"
    target.write_bytes(b"PAR1PAR2")
    err = one_line(run(root, tmp_path / "out"))
    assert "sha256 mismatch: cases/corrupt/tiny/8-bytes.parquet" in err and "nothing was run" in err


def test_a_changed_manifest_fails_its_digest(corpus: Path, tmp_path: Path) -> None:
    root = copy(corpus, tmp_path)
    edit_manifest(root, lambda m: m | {"seed": 7}, reseal=False)
    assert "manifest.json does not match its digest in SHA256SUMS" in one_line(run(root, tmp_path / "out"))
    (root / "SHA256SUMS").unlink()
    assert "missing: SHA256SUMS" in one_line(run(root, tmp_path / "out"))


def test_a_link_in_the_corpus_is_refused(corpus: Path, tmp_path: Path) -> None:
    root = copy(corpus, tmp_path)
    target = root / "cases" / "corrupt" / "tiny" / "empty.parquet"
    target.unlink()
    target.symlink_to("/etc/passwd")
    assert "not a regular file: cases/corrupt/tiny/empty.parquet" in one_line(run(root, tmp_path / "out"))


def test_the_pytest_plugin_refuses_a_tampered_corpus(corpus: Path, tmp_path: Path) -> None:
    root = copy(corpus, tmp_path)
    (root / "cases" / "corrupt" / "tiny" / "8-bytes.parquet").write_bytes(b"PAR1PAR2")
    proc = subprocess.run(["python", "-m", "pytest", "-p", "parquet_conformance.conformance.app.pytest_plugin",
                           "--parquet-conformance-corpus", str(root), "--parquet-conformance-adapter", "pyarrow"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
                               "PATH": f"{Path(os.sys.executable).parent}:{os.environ['PATH']}"})
    assert proc.returncode == 4 and "sha256 mismatch: cases/corrupt/tiny/8-bytes.parquet" in proc.stderr


@pytest.mark.parametrize("args", [
    ["--adapter-cmd", "../../escaped-junit=/bin/true"],
    ["--adapter-cmd", "a/b=/bin/true"],
    ["--adapter-cmd", "x='unterminated"],
    ["--adapter-cmd", "x="],
    ["--run-id", "../../../x"],
    ["--run-id", "a/b"],
    ["--resume", "nosuchrun"],
    ["--adapter", "nosuch"],
    ["--adapter", "pyarrow", "--adapter", "pyarrow"],
    ["--repeat", "0"],
    ["--only", "no/such/*"],
])
def test_bad_run_options_are_one_line(args: list[str], corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    one_line(cli("run", "--corpus", str(corpus), "--out", str(out), "--master", "none", *args))
    assert not (tmp_path / "escaped-junit.xml").exists() and not (tmp_path.parent / "x").exists()
    assert not (out / "results").exists()


def test_one_run_id_once_and_one_writer_at_a_time(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run(corpus, out, "--run-id", "r1", "--only", "base/*").returncode == 0
    assert "already exists" in one_line(run(corpus, out, "--run-id", "r1", "--only", "base/*"))
    mark = token()
    slow = subprocess.Popen([*CLI, "run", "--corpus", str(corpus), "--out", str(out), "--master", "none",
                             "--run-id", "r2", "--adapter-cmd", f"h=python3 {WORKER} hang {mark} --all-bad"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        while not (out / "staging" / "run=r2" / ".lock").exists():
            assert slow.poll() is None
        assert "being written by another process" in one_line(
            cli("run", "--corpus", str(corpus), "--out", str(out), "--master", "none", "--resume", "r2",
                "--adapter-cmd", f"h=python3 {WORKER} hang {mark} --all-bad"))
    finally:
        slow.kill()
        slow.wait()
    assert_nothing_left(mark)


def test_former_tracebacks_are_one_line(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run(corpus, out, "--run-id", "r", "--only", "base/*").returncode == 0
    results = str(out / "results")
    failures = tmp_path / "failures.txt"
    check = ["check", "--adapter", "pyarrow", "--results", results, "--expected-failures"]
    one_line(cli(*check, str(tmp_path)))  # a directory
    one_line(cli(*check, str(tmp_path / "no" / "dir" / "f.txt"), "--write-expected-failures"))
    one_line(cli("check", "--adapter", "pyarrow", "--results", str(out), "--expected-failures", str(failures)))
    bad = tmp_path / "bad-results"
    (bad / "run=x").mkdir(parents=True)
    (bad / "run=x" / "cells.parquet").write_bytes(b"PAR1 not a parquet file PAR1")
    one_line(cli("check", "--adapter", "pyarrow", "--results", str(bad), "--expected-failures", str(failures)))
    one_line(cli("inspect", str(tmp_path)))
    (tmp_path / "sums").mkdir()
    shutil.copytree(corpus, tmp_path / "sums" / "c")
    (tmp_path / "sums" / "c" / "SHA256SUMS").write_bytes(b"\xff\xfe not utf-8\n")
    assert "does not match its digest" in cli("corpus", "verify", str(tmp_path / "sums" / "c")).stderr


def test_an_unavailable_reason_is_one_line(tmp_path: Path) -> None:
    """Without java on PATH, parquet-java and spark are unavailable with a one-line reason each."""
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("python3", "node", "npm"):
        if found := shutil.which(tool):
            (bare / tool).symlink_to(found)
    proc = cli("adapters", "--adapter", "parquet-java", "--adapter", "spark", "--json",
               env={"PATH": str(bare), "JAVA_HOME": "/nonexistent"})
    assert proc.returncode == 0, proc.stderr
    for row in json.loads(proc.stdout):
        assert not row["available"] and "\n" not in row["reason"] and len(row["reason"]) <= 300, row
