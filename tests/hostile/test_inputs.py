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
from tests.hostile import WORKER, assert_nothing_left, cli, cli_for, cli_here, one_line, token


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("inputs") / "corpus"
    generate(out, only="base/flat,corrupt/tiny/*")
    return out


@pytest.fixture(scope="module")
def runs(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An OUT folder holding runs a and b of base/* with pyarrow, made once: the tests that need earlier runs
    copy it."""
    out = tmp_path_factory.mktemp("runs") / "out"
    for run_id in ("a", "b"):
        proc = run(corpus, out, "--run-id", run_id, "--only", "base/*")
        assert proc.returncode == 0, proc.stderr
    return out


def copy(corpus: Path, tmp_path: Path, name: str = "corpus") -> Path:
    target = tmp_path / name
    shutil.copytree(corpus, target)
    return target


def edit_manifest(root: Path, change: object, reseal: bool = True) -> None:
    """Rewrite the manifest (a function of its JSON, or a whole new value) and, unless told not to, its digest."""
    manifest = json.loads((root / "manifest.json").read_text())
    new = change(manifest) if callable(change) else change
    (root / "manifest.json").write_text(json.dumps(new if new is not None else manifest))
    if reseal:
        dist.write_manifest_digest(root)


def run(root: Path, out: Path, *extra: str, here: bool = False) -> subprocess.CompletedProcess[str]:
    """`run` with pyarrow, in a new process (or, `here`, in this one: cli_here)."""
    return (cli_here if here else cli)("run", "--corpus", str(root), "--out", str(out), "--master", "none",
                                       "--adapter", "pyarrow", *extra)


def escape(m: dict) -> None:
    m["cases"][0]["file"] = "../../../../../../etc/passwd"


def absolute(m: dict) -> None:
    m["cases"][0]["file"] = "/etc/passwd"


def no_file(m: dict) -> None:
    del m["cases"][0]["file"]


MALICIOUS = [
    (escape, "unsafe path in the manifest for case"),
    (absolute, "unsafe path in the manifest for case"),
    ([], "not a parquet-conformance manifest"),
    (no_file, "cases[0]: 'file' is required"),
]


@pytest.mark.parametrize(("change", "message"), MALICIOUS)
def test_a_malicious_manifest_runs_nothing(change: object, message: str, corpus: Path, tmp_path: Path) -> None:
    root = copy(corpus, tmp_path)
    edit_manifest(root, change)
    err = one_line(run(root, tmp_path / "out", here=(change, message) != MALICIOUS[0]))
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
    assert "missing: SHA256SUMS" in one_line(run(root, tmp_path / "out", here=True))


def test_a_link_in_the_corpus_is_refused(corpus: Path, tmp_path: Path) -> None:
    root = copy(corpus, tmp_path)
    target = root / "cases" / "corrupt" / "tiny" / "empty.parquet"
    target.unlink()
    target.symlink_to("/etc/passwd")
    assert "not a regular file: cases/corrupt/tiny/empty.parquet" in one_line(run(root, tmp_path / "out"))


def test_the_pytest_plugin_refuses_a_tampered_corpus(corpus: Path, tmp_path: Path) -> None:
    root = copy(corpus, tmp_path)
    (root / "cases" / "corrupt" / "tiny" / "8-bytes.parquet").write_bytes(b"PAR1PAR2")
    proc = subprocess.run(["python", "-m", "pytest", "-p", "parquet_conformance.app.pytest_plugin",
                           "--parquet-conformance-corpus", str(root), "--parquet-conformance-adapter", "pyarrow"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
                               "PATH": f"{Path(os.sys.executable).parent}:{os.environ['PATH']}"})
    assert proc.returncode == 4 and "sha256 mismatch: cases/corrupt/tiny/8-bytes.parquet" in proc.stderr


BAD_RUN_OPTIONS = [
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
]


@pytest.mark.parametrize("args", BAD_RUN_OPTIONS)
def test_bad_run_options_are_one_line(args: list[str], corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    one_line(cli_for(args, BAD_RUN_OPTIONS)("run", "--corpus", str(corpus), "--out", str(out), "--master", "none",
                                            *args))
    assert not (tmp_path / "escaped-junit.xml").exists() and not (tmp_path.parent / "x").exists()
    assert not (out / "results").exists()


def test_one_run_id_once_and_one_writer_at_a_time(corpus: Path, runs: Path, tmp_path: Path) -> None:
    out = copy(runs, tmp_path, "out")
    assert "already exists" in one_line(run(corpus, out, "--run-id", "a", "--only", "base/*"))
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


def test_former_tracebacks_are_one_line(corpus: Path, runs: Path, tmp_path: Path) -> None:
    out = copy(runs, tmp_path, "out")
    results = str(out / "results")
    failures = tmp_path / "failures.txt"
    check = ["check", "--adapter", "pyarrow", "--results", results, "--expected-failures"]
    one_line(cli(*check, str(tmp_path)))  # a directory
    one_line(cli_here(*check, str(tmp_path / "no" / "dir" / "f.txt"), "--write-expected-failures"))
    one_line(cli_here("check", "--adapter", "pyarrow", "--results", str(out), "--expected-failures", str(failures)))
    bad = tmp_path / "bad-results"
    (bad / "run=x").mkdir(parents=True)
    (bad / "run=x" / "cells.parquet").write_bytes(b"PAR1 not a parquet file PAR1")
    one_line(cli_here("check", "--adapter", "pyarrow", "--results", str(bad), "--expected-failures", str(failures)))
    one_line(cli_here("inspect", str(tmp_path)))
    (tmp_path / "sums").mkdir()
    shutil.copytree(corpus, tmp_path / "sums" / "c")
    (tmp_path / "sums" / "c" / "SHA256SUMS").write_bytes(b"\xff\xfe not utf-8\n")
    assert "does not match its digest" in cli_here("corpus", "verify", str(tmp_path / "sums" / "c")).stderr


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


def no_version(m: dict) -> None:
    del m["generator"]["version"]


def text_size(m: dict) -> None:
    m["cases"][0]["size"] = "abc"


def no_legacy(m: dict) -> None:
    m["cases"][0]["expect"] = {"aware:x": "read"}
    m["cases"][0]["levels"] = {"aware:x": "must"}  # levels follow the expectations (else that is refused first)


RESEALED = [
    (no_version, "manifest.json: generator: 'version' is required"),
    (text_size, "manifest.json: cases[0].size: 'abc' is not an integer"),
    (no_legacy, "manifest.json: cases[0].expect: case base/flat has no expectation for 'legacy'"),
]


@pytest.mark.parametrize(("change", "message"), RESEALED)
def test_a_resealed_manifest_is_checked_field_by_field(change: object, message: str, corpus: Path,
                                                       tmp_path: Path) -> None:
    """A manifest whose digest was made to match is still held to its schema: one line naming the field, exit 2,
    before any cell runs, for run, verify and check alike."""
    root = copy(corpus, tmp_path)
    edit_manifest(root, change)
    how = cli_for((change, message), RESEALED)
    assert message in one_line(how("run", "--corpus", str(root), "--out", str(tmp_path / "out"), "--master", "none",
                                   "--adapter", "pyarrow"))
    assert not (tmp_path / "out").exists()
    assert message in one_line(how("corpus", "verify", str(root)))


def test_a_manifest_nested_beyond_any_parser_is_one_line(corpus: Path, tmp_path: Path) -> None:
    root = copy(corpus, tmp_path)
    (root / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    dist.write_manifest_digest(root)
    assert "nested too deep to parse" in one_line(run(root, tmp_path / "out"))
    assert "nested too deep to parse" in one_line(cli_here("corpus", "verify", str(root)))


def test_a_baseline_case_the_corpus_lacks_is_one_line(corpus: Path, tmp_path: Path) -> None:
    """A base's baseline case excuses a reader's representation of its data: one the manifest lacks (or one of
    another base) would steer a verdict, so the manifest is refused (generate --only names none it leaves out)."""
    root = copy(corpus, tmp_path)
    edit_manifest(root, lambda m: m["bases"]["flat"].update(baseline_case="no/such/case"))
    assert "is no case of the manifest" in one_line(run(root, tmp_path / "out"))


def test_a_linked_data_folder_is_refused(corpus: Path, tmp_path: Path) -> None:
    """cases/ as a link to a folder outside the corpus: verify names it, run refuses it."""
    root = copy(corpus, tmp_path)
    shutil.move(root / "cases", tmp_path / "elsewhere")
    (root / "cases").symlink_to(tmp_path / "elsewhere")
    verify = cli("corpus", "verify", str(root))
    assert verify.returncode == 1 and "symbolic link: cases" in verify.stderr
    assert "symbolic link" in one_line(run(root, tmp_path / "out", here=True))


def test_bad_run_records_and_lists_are_one_line(runs: Path, tmp_path: Path) -> None:
    out = copy(runs, tmp_path, "out")
    record = out / "results" / "run=b" / "_run.json"
    record.write_text("[" * 100_000 + "]" * 100_000)
    gate = ["check", "--adapter", "pyarrow", "--results", str(out / "results"), "--only", "base/*",
            "--expected-failures"]
    assert "not a run record" in one_line(cli(*gate, str(tmp_path / "f.txt"), "--run", "b"))
    history = cli_here("report", "--history", str(out / "results"), "--out", str(tmp_path / "h"))
    assert history.returncode == 0 and "warning: run b left out" in history.stderr, history.stderr
    fifo = tmp_path / "fifo.txt"
    os.mkfifo(fifo)  # a read would wait for a writer forever
    assert "not a regular file" in one_line(cli_here(*gate, str(fifo), "--run", "a"))
    (tmp_path / "big.txt").write_bytes(b"#" * (17 << 20))
    assert "larger than" in one_line(cli_here(*gate, str(tmp_path / "big.txt"), "--run", "a"))


def test_a_tampered_staging_file_is_named(corpus: Path, runs: Path, tmp_path: Path) -> None:
    out = copy(runs, tmp_path, "out")
    (out / "staging" / "run=a").mkdir(parents=True, exist_ok=True)
    (out / "staging" / "run=a" / "part-1-1.parquet").write_bytes(b"PAR1 not ours PAR1")
    err = one_line(run(corpus, out, "--resume", "a", "--only", "base/*"))
    assert "part-1-1.parquet: not a staged outcome file" in err


BAD_MATRICES = [
    (b"\xff\xfe = 1\n", "not UTF-8 text"),
    (b'pyarrow = ["1.0; rm -rf /"]\n', "version '1.0; rm -rf /'"),
    (b"pyarrow = [\n", "not TOML"),
    (b"nosuch = [\"1.0\"]\n", "nosuch"),
]


@pytest.mark.parametrize(("text", "message"), BAD_MATRICES)
def test_a_bad_version_matrix_is_one_line(text: bytes, message: str, corpus: Path, tmp_path: Path) -> None:
    (tmp_path / "m.toml").write_bytes(text)
    assert message in one_line(run(corpus, tmp_path / "out", "--versions", str(tmp_path / "m.toml"),
                                   here=(text, message) != BAD_MATRICES[0]))
    assert not (tmp_path / "out").exists()


def test_a_bad_skip_overhead_file_refuses_the_run_before_any_cell(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "skip-overhead.json").write_text('[{"adapter": 1}]')
    assert "skip-overhead.json: [0]: 'implementation' is required" in one_line(run(corpus, out))
    assert sorted(p.name for p in out.iterdir()) == ["skip-overhead.json"]


BAD_OPTION_VALUES = [
    ["run", "--out", "/etc/passwd"],
    ["run", "--run-id", "r" * 300],
    ["fuzz", "--time", "nan"],
    ["fuzz", "--examples", "-5"],
    ["fuzz", "--time", "inf"],
    ["corpus", "fetch", "x", "--sha256", "0" * 64, "--into", "/tmp/never", "--timeout", "nan"],
    ["corpus", "fetch", "x", "--sha256", "0" * 64, "--into", "/tmp/never", "--max-bytes", "-1"],
    ["generate", "--out", "/etc/passwd"],
]


@pytest.mark.parametrize("args", BAD_OPTION_VALUES)
def test_bad_option_values_are_one_line(args: list[str], corpus: Path, tmp_path: Path) -> None:
    extra = ["--corpus", str(corpus), "--master", "none", "--adapter", "pyarrow"] if args[0] == "run" else []
    extra += ["--out", str(tmp_path / "out")] if args[0] in ("run", "fuzz") and "--out" not in args else []
    one_line(cli_for(args, BAD_OPTION_VALUES)(*args, *extra))
    assert not (tmp_path / "out").exists() and not Path("/tmp/never").exists()


def test_an_out_folder_that_is_not_utf8_is_one_line(corpus: Path, tmp_path: Path) -> None:
    target = os.fsencode(tmp_path) + b"/\xff\xfe-out"
    proc = subprocess.run([*CLI, "run", "--corpus", str(corpus), "--master", "none", "--adapter", "pyarrow", "--out",
                           target.decode("utf-8", "surrogateescape")], capture_output=True, text=True, timeout=300)
    assert "is not valid UTF-8" in one_line(proc)
    assert not os.path.exists(target)


def test_a_file_size_limit_is_one_line_and_the_run_resumes(corpus: Path, tmp_path: Path) -> None:
    """`ulimit -f` reached while the run writes: one line, exit 2; what was staged is kept, and --resume finishes."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (24 << 10, 24 << 10))  # staged parts fit, report.html does not

    out = tmp_path / "out"
    proc = subprocess.run([*CLI, "run", "--corpus", str(corpus), "--out", str(out), "--master", "none", "--adapter",
                           "pyarrow", "--run-id", "r"], capture_output=True, text=True, timeout=600, preexec_fn=limit)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr  # progress lines, then the error
    assert proc.stderr.strip().splitlines()[-1] == "parquet-conformance: error: cannot write: File too large"
    assert list((out / "staging" / "run=r").glob("part-*.parquet")), "the finished cells were staged"
    resumed = run(corpus, out, "--resume", "r")
    assert resumed.returncode == 0, resumed.stderr
    assert (out / "results" / "run=r" / "cells.parquet").is_file() and (out / "report.html").is_file()
