"""`corpus import`: consensus expectations for files not written here, on files the tests write and on the
corpus's own files with their manifest removed (whose expectations the consensus must find again)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from parquet_conformance.app.imports import import_directory
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.corpus import dist
from parquet_conformance.corpus.imports import STRICT, Vote, case_id, consensus
from tests.helpers import CLI
from tests.test_corrupt_models import READS

READERS = [AdapterSpec("pyarrow"), AdapterSpec("reference")]


def test_consensus_words() -> None:
    agree = consensus([Vote("a", "read", "h1"), Vote("b", "read", "h1"), Vote(STRICT, "read")])
    assert (agree.expect, agree.data_hash, agree.finding) == ("read", "h1", None)
    assert consensus([Vote("a", "rejected"), Vote(STRICT, "rejected")]).expect == "reject"
    split = consensus([Vote("a", "read", "h2"), Vote("b", "read", "h1"), Vote("c", "read", "h1"), Vote(STRICT, "read")])
    assert (split.expect, split.data_hash) == ("either", "h1") and "a: read h2" in split.finding
    crash = consensus([Vote("a", "crash"), Vote("b", "rejected")])
    assert crash.expect == "either" and crash.data_hash is None and "a: crash" in crash.finding
    with pytest.raises(ValueError, match="no voter"):
        consensus([])


def test_case_ids_are_names() -> None:
    assert case_id("parquet-testing", "data/nested lists.snappy.parquet", ".parquet") == \
        "import/parquet-testing/data/nested_lists.snappy"
    assert case_id("x", ".hidden/a.parquet", ".parquet") == "import/x/hidden/a"


def test_generated_files(corpus_dir: Path, tmp_path: Path) -> None:
    src = tmp_path / "found"
    for name in ("base/flat", "corrupt/footer-length/zero", "nonconforming/type/i64"):
        dest = src / f"{name.replace('/', '-')}.parquet"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(corpus_dir / "cases" / f"{name}.parquet", dest)
    result = import_directory(src, tmp_path / "out", "tests", READERS, "parquet")
    got = {c.id: str(c.expect["legacy"]) for c in result.manifest.cases}
    assert got == {"import/tests/base-flat": "read", "import/tests/corrupt-footer-length-zero": "reject",
                   "import/tests/nonconforming-type-i64": "either"}
    (finding,) = result.findings
    assert finding["case"] == "import/tests/nonconforming-type-i64"
    assert {v["voter"]: v["outcome"] for v in finding["votes"]} == {"pyarrow": "read", "reference": "read",
                                                                    STRICT: "rejected"}
    assert dist.verify_tree(tmp_path / "out") == []
    flat = result.manifest.bases["tests__base-flat"]
    assert flat.data_hash == json.loads((corpus_dir / "manifest.json").read_text())["bases"]["flat"]["data_hash"]


ENCRYPTED = ("encrypted-footer", "plaintext-footer")


@pytest.mark.slow  # .ci/run runs it after the default tests (which stay within ~15 minutes on 2 cores)
def test_the_corpus_own_files_without_their_manifest(corpus_dir: Path, manifest: dict, tmp_path: Path) -> None:
    """Golden `read` cases come back `read` with their base's data; corrupt `reject` cases come back `reject`, but
    those crafted for readers that fold lengths as Thrift C++ does, which pyarrow reads (`either` by consensus)."""
    chosen = [c for c in manifest["cases"] if c["track"] == "parquet" and c["group"] in ("base", "corrupt", "pages")
              and c["expect"]["legacy"] in ("read", "reject") and not c["base"].startswith(("all-types", "int96"))
              and c["base"] not in ENCRYPTED  # well-formed files a reader without the key must refuse: `either`
              and "cast" not in READS.get(c["id"], ())]
    src = tmp_path / "own"
    for c in chosen:
        dest = src / c["file"]
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(corpus_dir / c["file"], dest)
    result = import_directory(src, tmp_path / "out", "own", READERS, "parquet")
    imported = {c.title.removeprefix("own cases/").removesuffix(".parquet"): c for c in result.manifest.cases}
    assert len(imported) == len(chosen) > 80
    for c in chosen:
        mine = imported[c["id"]]
        assert str(mine.expect["legacy"]) == c["expect"]["legacy"], c["id"]
        if c["expect"]["legacy"] == "read":
            assert result.manifest.bases[mine.base].data_hash == manifest["bases"][c["base"]]["data_hash"], c["id"]


def test_the_command(corpus_dir: Path, tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    shutil.copyfile(corpus_dir / "cases" / "nonconforming" / "type" / "i64.parquet", src / "a.parquet")
    proc = subprocess.run([*CLI, "corpus", "import", str(src), "--source", "t", "--out", str(tmp_path / "o"),
                           "--adapter", "pyarrow"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "FINDING import/t/a: pyarrow read; strict-decoder rejected" in proc.stdout
    assert "imported 1 files" in proc.stdout
    bad = subprocess.run([*CLI, "corpus", "import", str(tmp_path / "nope"), "--source", "t", "--out",
                          str(tmp_path / "o2")], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "not a directory" in bad.stderr
