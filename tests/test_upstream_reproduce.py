"""`report --upstream` end to end: a real run on a selection known to give failures (Python, JavaScript and Java
readers), the folders written for each implementation, and each folder's script run in a fresh process, from a
copy of the folder outside the repository, with an empty environment and nothing of parquet-conformance
importable: it must reproduce the verdict the run recorded (unhandled errors included), and pass on the unmodified
base where the folder offers it. Every confirmed failure is in a folder; `report --upstream` runs from another
folder than the run did (the corpus is found from above the results dataset)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from parquet_conformance.conformance.adapters import get
from parquet_conformance.conformance.adapters.parquet.parquet_java import pyspark_jars
from parquet_conformance.conformance.harness.envs import ensure, environment
from parquet_conformance.corpus.build import generate
from parquet_conformance.reports.document import stored_document
from tests.helpers import CLI

# Readers whose loss of control on one file shows as a signal or as an error from one read to the next
# (docs/adapters.md: fastparquet's Cython Thrift reader is memory-unsafe).
MEMORY_UNSAFE = {"fastparquet"}
LOST = ("fail:crash", "fail:unhandled-error", "fail:hang")  # a reader that lost control, one way or another
ADAPTERS = ("pyarrow", "polars", "datafusion", "fastparquet", "hyparquet", "parquet-java", "clickhouse", "parquetjs")
# Each of these gave a confirmed failure to one of the adapters when this test was written (pyarrow 26.0.1, polars
# 2.1.0, DataFusion 55.0.0, fastparquet 2026.9.0, hyparquet 1.31.5, parquet-java 1.17.0, ClickHouse 4.4.0,
# parquetjs 1.8.9), unhandled errors among
# them (polars' panic on an Encoding out of range, DataFusion's on a footer length before the start, hyparquet's
# TypeError on a footer length at the head magic, parquet-java's NullPointerException on a repetition type out of
# range, fastparquet's on all-types); the bases give the controls.
ONLY = ",".join([
    "base/flat", "base/writer-duckdb", "base/all-types", "corrupt/extension/overshoot-into-tail",
    "corrupt/extension/length-2pow32-plus-payload", "corrupt/footer-length/bit-31-before-start", "corrupt/tiny/empty",
    "unions/time-unit/two-members", "unions/logical-type/unknown-only",
    "regression/fuzz/fastparquet/crash-e2dd34da839e", "storage/enum/data-page-header-encoding/value-11",
    "corrupt/footer-length/bit-16-before-start", "corrupt/footer-length/at-head-magic",
    "storage/enum/schema-element-repetition-type/value-3", "corrupt/tiny/magic-only",
])
# Python runs the script with an import hook that refuses parquet_conformance (the venv's .pth would offer it).
NOT_OURS = """import runpy, sys
class NotOurs:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "parquet_conformance":
            raise ImportError("a reproducer imports nothing of parquet-conformance")
sys.meta_path.insert(0, NotOurs())
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
SAYS = {"fail:rejected-valid": "REPRODUCED: the reader refused", "fail:accepted-invalid": "REPRODUCED: the reader "
        "returned data", "fail:wrong-data": "REPRODUCED: the reader returned", "fail:crash": "REPRODUCED: the reader "
        "lost control", "fail:hang": "REPRODUCED: no answer", "fail:unhandled-error": "REPRODUCED: the reader lost "
        "control"}


# slow (.ci/run runs it after the default tests): a run and every script of it, kept out of the default run's 15
# minutes on 2 cores
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run started in its own folder with relative paths, as README's first command does (out/latest/corpus): its
    record keeps the corpus path relative to that folder."""
    where = tmp_path_factory.mktemp("up")
    generate(where / "corpus", only=ONLY)
    args = ["run", "--master", "none", "--corpus", "corpus", "--out", "out", "--run-id", "up"]
    for a in ADAPTERS:
        args += ["--adapter", a]
    proc = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=900, cwd=where)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return where / "out"


def command(script: str, *args: str) -> list[str]:
    if script.endswith(".py"):
        return [sys.executable, "-I", "-c", NOT_OURS, script, *args]
    if script.endswith(".mjs"):
        return ["node", script, *args]
    return ["java", "-cp", f"{pyspark_jars()}{os.sep}*", script, *args]


def alone(folder: Path, script: str, *args: str) -> subprocess.CompletedProcess:
    """The script run from its folder in a fresh process with an empty environment."""
    return subprocess.run(command(script, *args), cwd=folder, capture_output=True, text=True, timeout=300,
                          env={"PATH": os.defpath})


def test_every_finding_reproduces_alone(run: Path, tmp_path: Path) -> None:
    doc = stored_document(run / "results", "up")
    reproduced: list[tuple[str, str, str, str]] = []
    elsewhere = tmp_path / "elsewhere"  # run from another folder: the corpus is found from above the results
    elsewhere.mkdir()
    for adapter in ADAPTERS:
        out = tmp_path / "upstream" / adapter
        proc = subprocess.run([*CLI, "report", "--results", str(run / "results"), "--upstream", adapter, str(out)],
                              capture_output=True, text=True, timeout=300, cwd=elsewhere)
        assert proc.returncode == 0, proc.stderr
        failing = {c.case for c in doc.cells if c.adapter == adapter and c.verdict.is_failure}
        folders = sorted(p for p in out.iterdir() if p.is_dir())
        index = (out / "README.md").read_text()
        found = [json.loads((f / "finding.json").read_text()) for f in folders]
        # every confirmed failure is in a folder: the case it shows or among its others
        assert {c for d in found for c in [d["case"], *d["others"]]} == failing, adapter
        for folder, data in zip(folders, found, strict=True):
            readme = (folder / "README.md").read_text()
            assert folder.name in index and "## Why: " in readme and "## Words used here" in readme
            case, verdict = data["case"], data["verdict"]
            scripts = [p.name for p in folder.iterdir() if p.name.startswith(("repro.", "Repro."))]
            if not scripts:
                assert "No script" in readme and "parquet-conformance read case.parquet" in readme, folder
                continue
            script = scripts[0]
            assert "parquet_conformance" not in (folder / script).read_text()
            fresh = tmp_path / "fresh" / adapter / folder.name
            shutil.copytree(folder, fresh)
            if script.endswith(".mjs"):  # `npm install LIBRARY@VERSION` in the folder, as the README says
                (fresh / "node_modules").symlink_to(ensure(environment(get(adapter))) / "node_modules")
            proc = alone(fresh, script)
            said = proc.stdout + proc.stderr[-2000:]
            if proc.returncode < 0 and (verdict == "fail:crash" or (verdict == "fail:unhandled-error"
                                                                   and adapter in MEMORY_UNSAFE)):
                pass  # killed by a signal: the crash itself, or the same loss of control of a memory-unsafe reader
            elif verdict == "fail:hang" and "Timeout (" in proc.stderr:  # Python's faulthandler ended it (exit 1)
                assert proc.returncode == 1, (folder, said)
            elif adapter in MEMORY_UNSAFE and verdict in LOST and proc.returncode == 1:
                # the same loss of control in another form (fastparquet on all-types: a hang in the run, a TypeError
                # in the script; CI of 2026-11-28): reproduced, as long as it is a loss of control
                assert any(SAYS[v] in proc.stdout for v in LOST), (folder, said)
            else:
                assert proc.returncode == 1 and SAYS[verdict] in proc.stdout, (folder, proc.returncode, said)
            if (fresh / "base.parquet").exists():  # the control: the same script passes on the unmodified base
                ok = alone(fresh, script, "base.parquet")
                assert ok.returncode == 0 and "OK: " in ok.stdout, (folder, ok.stdout, ok.stderr[-2000:])
            reproduced.append((adapter, case, verdict, script))
    print("\n".join(" ".join(r) for r in reproduced))
    assert {a for a, _, v, _ in reproduced if v == "fail:unhandled-error"} >= {"polars", "datafusion", "hyparquet",
                                                                             "parquet-java"}, reproduced
    assert {a for a, *_ in reproduced} == set(ADAPTERS), reproduced
