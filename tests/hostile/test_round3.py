"""What round 3 left and the commands' own trees, end to end (integration tier: runs and Spark): a manifest whose
base names a baseline case it does not have runs nothing (run and the plugin); a role no case names is said, not
dropped; a run's --out inside its corpus, a site inside its results, a corpus import into its own folder are one
line; a JVM that does not start (a setting Spark refuses) is one line with its cause."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from parquet_conformance.corpus import dist
from parquet_conformance.corpus.build import generate
from tests import hostile
from tests.hostile import WORKER, assert_nothing_left, cli_here, one_line, token


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return hostile.cli(*args, cwd=cwd, timeout=900)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("round3") / "corpus"
    generate(out, only="base/flat,corrupt/tiny/*")
    return out


def test_a_baseline_case_the_manifest_lacks_runs_nothing(corpus: Path, tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    shutil.copytree(corpus, root)
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["bases"]["flat"]["baseline_case"] = "base/nowhere"
    (root / "manifest.json").write_text(json.dumps(manifest))
    dist.write_manifest_digest(root)
    err = one_line(cli("run", "--corpus", str(root), "--out", str(tmp_path / "out"), "--master", "none",
                       "--adapter", "pyarrow"))
    assert "baseline_case 'base/nowhere' is no case of the manifest" in err
    assert not (tmp_path / "out" / "results").exists()
    (tmp_path / "test_x.py").write_text("def test_x(): pass\n")
    plugin = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                             "--parquet-conformance-corpus", str(root), "--parquet-conformance-adapter", "pyarrow"],
                            capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert plugin.returncode == 4 and "is no case of the manifest" in plugin.stderr, plugin.stderr[-2000:]


def test_a_role_no_case_names_is_said(corpus: Path, tmp_path: Path) -> None:
    mark = token()
    worker = shlex.join([sys.executable, str(WORKER), "none", mark, "--real", "--roles=aware:x,aware:y"])
    proc = cli("run", "--corpus", str(corpus), "--out", str(tmp_path / "out"), "--master", "none", "--adapter-cmd",
               f"odd={worker}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "adapter odd announces role aware:y, which no case of the corpus names" in proc.stderr
    assert_nothing_left(mark)


def test_outputs_inside_their_inputs_are_one_line(corpus: Path, tmp_path: Path) -> None:
    one_line(cli("run", "--corpus", str(corpus), "--out", str(corpus / "cases" / "out"), "--master", "none",
                 "--adapter", "pyarrow"))
    assert not (corpus / "cases" / "out").exists()
    run = tmp_path / "run"
    assert cli("run", "--corpus", str(corpus), "--out", str(run), "--master", "none", "--adapter",
               "pyarrow").returncode == 0
    # the same refusal by the other commands, in this process (cli_here): run's above was a new one
    one_line(cli_here("report", "--site", str(run / "results" / "site"), "--results", str(run / "results")))
    one_line(cli_here("generate", "--out", str(corpus / "inner"), "--only", "base/flat"))
    one_line(cli_here("corpus", "import", str(corpus), "--source", "s", "--out", str(corpus / "imported"),
                      "--adapter", "reference"))
    one_line(cli_here("corpus", "pack", "--corpus", str(corpus), "--out", str(corpus)))
    assert sorted(p.name for p in corpus.iterdir()) == ["SHA256SUMS", "bases", "cases", "expected", "manifest.json"]


def test_a_jvm_that_does_not_start_is_one_line(corpus: Path, tmp_path: Path) -> None:
    pytest.importorskip("pyspark")
    proc = cli("run", "--corpus", str(corpus), "--out", str(tmp_path / "out"), "--master", "local[1]", "--conf",
               "spark.serializer=no.such.Serializer", "--adapter", "pyarrow", "--fresh")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    error = [line for line in proc.stderr.splitlines() if "error" in line]  # after the progress lines: one error
    assert len(error) == 1 and "Spark did not start" in error[0], proc.stderr[-3000:]
    assert "ClassNotFoundException: no.such.Serializer" in error[0]
