"""`parquet-conformance read` judges a case as a run does (issue 39, item 4): a file inside a corpus, or a case id
with --corpus, gets its verdict and level, after the adapter's reading of the unmodified base and a confirmation in
a new worker; exit 0 for a pass, 1 for a failure, 2 for an unavailable adapter, 3 for a harness error. A file
outside any corpus is read and said not to be judged."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from parquet_conformance.corpus.build import generate
from tests.helpers import CLI

FAKE = Path(__file__).parent / "hostile" / "worker.py"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("read") / "corpus"
    generate(out, only="base/flat,corrupt/tiny/empty")
    return out


def read(target: str | Path, mode: str, *args: str, bad: str = "empty") -> subprocess.CompletedProcess[str]:
    worker = f"fake={sys.executable} {FAKE} {mode} --real --bad={bad}"  # `mode` on the files named so alone
    return subprocess.run([*CLI, "read", str(target), "--adapter-cmd", worker, *args], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize(("mode", "code", "said"), [
    ("none", 0, "corrupt/tiny/empty [legacy]: pass (must expectation: reject)"),
    ("segfault", 1, "corrupt/tiny/empty [legacy]: fail:crash (must expectation: reject, 2 attempts)"),
    ("bad-rows", 3, "corrupt/tiny/empty [legacy]: harness-error"),
    ("refuse", 2, "corrupt/tiny/empty [legacy]: skip"),
])
def test_a_case_file_is_judged_with_its_level_and_exits_as_check_does(corpus: Path, mode: str, code: int,
                                                                       said: str) -> None:
    proc = read(corpus / "cases" / "corrupt" / "tiny" / "empty.parquet", mode)
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert said in proc.stdout, proc.stdout


def test_wrong_data_is_a_failure_confirmed_in_a_new_worker(corpus: Path) -> None:
    proc = read(corpus / "cases" / "base" / "flat.parquet", "wrong-value", "--json", bad="flat")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert report["case"] == "base/flat" and report["outcome"] == "read"
    assert report["verdicts"] == [{"role": "legacy", "expected": "read", "verdict": "fail:wrong-data", "level": "must",
                                   "attempts": 2, "disagreement": None}]


def test_a_case_id_with_its_corpus_and_a_file_outside_any(corpus: Path, tmp_path: Path) -> None:
    proc = read("base/flat", "none", "--corpus", str(corpus))
    assert proc.returncode == 0 and "base/flat [legacy]: pass (must expectation: read)" in proc.stdout, proc.stderr
    alone = tmp_path / "flat.parquet"
    shutil.copyfile(corpus / "cases" / "base" / "flat.parquet", alone)
    proc = read(alone, "none")
    assert proc.returncode == 0 and "read, 24 rows" in proc.stdout, proc.stderr
    assert "no verdict: it is in no corpus" in proc.stdout
    proc = read("base/nope", "none", "--corpus", str(corpus))
    assert proc.returncode == 2 and "neither a case file" in proc.stderr and proc.stderr.count("\n") == 1


def test_a_case_file_that_is_not_the_manifests_is_not_judged(corpus: Path, tmp_path: Path) -> None:
    changed = tmp_path / "corpus"
    shutil.copytree(corpus, changed)
    (changed / "cases" / "corrupt" / "tiny" / "empty.parquet").write_bytes(b"PAR1")
    proc = read(changed / "cases" / "corrupt" / "tiny" / "empty.parquet", "none")
    assert proc.returncode == 2 and "sha256 mismatch: cases/corrupt/tiny/empty.parquet" in proc.stderr, proc.stderr


def test_a_case_with_alternative_readings_is_verified_with_them(tmp_path: Path) -> None:
    """`read` checks the files a case's verdict rests on, its alternatives' data included (a shredded VARIANT case
    accepts the decoded variant too): a right corpus passes, a changed alternative is named."""
    from parquet_conformance.corpus.dist import read_manifest
    from parquet_conformance.corpus.verify import verify_cases

    out = tmp_path / "corpus"
    generate(out, only="evolution/variant/shredded-case-001")
    root, manifest = read_manifest(out)
    [case] = manifest.cases
    assert case.alternatives and verify_cases(root, manifest, [case.id]) == []
    alt = root / case.alternatives[0].expected
    alt.write_text(alt.read_text().replace("comedy", "drama"))
    assert verify_cases(root, manifest, [case.id]) == [f"data mismatch: {case.alternatives[0].expected} (not the "
                                                       "data whose data_hash is in the manifest)"]
