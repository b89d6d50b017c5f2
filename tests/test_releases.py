"""Released versions: NAME==VERSION / NAME@VERSION specs, environments (create, reuse, list, prune),
version matrices, bisect and the versions report, with real releases from PyPI. The tests that build
environments are slow (they run after the default suite in CI)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from parquet_conformance.conformance.adapters.parquet import parquet_java
from parquet_conformance.conformance.harness.envs import environment, version_key
from parquet_conformance.conformance.harness.releases import in_range, matrix_specs
from parquet_conformance.conformance.harness.specs import AdapterSpec, SpecError
from parquet_conformance.generators.parquet.bases import base_bytes
from parquet_conformance.kernel.errors import UsageError
from tests.helpers import CLI, md_text

REPO = Path(__file__).resolve().parent.parent


def test_release_specs_are_named_name_dash_version() -> None:
    assert AdapterSpec.parse("pyarrow") == AdapterSpec("pyarrow")
    spec = AdapterSpec.parse("pyarrow==15.0.2")
    assert (spec.name, spec.of, spec.release) == ("pyarrow-15.0.2", "pyarrow", "15.0.2")
    assert AdapterSpec.parse("parquetjs@1.8.9").name == "parquetjs-1.8.9"
    adapter = spec.build()
    assert adapter.release == "15.0.2" and adapter.requirements("15.0.2") == ["pyarrow==15.0.2"]


@pytest.mark.parametrize("text", ["pyarrow==", "pyarrow==1.0;python_version<'3'", "pyarrow==1.0 --index-url x",
                                  "pyarrow@../../etc", "pyarrow==$(id)"])
def test_a_version_is_only_a_version(text: str) -> None:
    with pytest.raises(SpecError):
        AdapterSpec.parse(text)


def test_release_order() -> None:
    assert sorted(["1.10.0", "1.9.1", "0.20.31", "1.41.1", "1.40.1"], key=version_key) == [
        "0.20.31", "1.9.1", "1.10.0", "1.40.1", "1.41.1"]
    assert version_key("2024.2.0") < version_key("2024.11.0")
    assert in_range(["1.39.0", "1.40.1", "1.41.1", "2.0.0"], "1.40", "1.41.9") == ["1.40.1", "1.41.1"]


def test_matrix_file(tmp_path: Path) -> None:
    path = tmp_path / "m.toml"
    path.write_text('pyarrow = ["15.0.2", "19.0.1"]\nparquetjs = []\n')
    assert [s.name for s in matrix_specs(path)] == ["pyarrow", "pyarrow-15.0.2", "pyarrow-19.0.1", "parquetjs"]
    for bad in ('pyarrow = "15"\n', 'nosuch = ["1.0"]\n', "pyarrow = [\n", 'pyarrow = { since = "1" }\n'):
        path.write_text(bad)
        with pytest.raises((UsageError, SpecError)):
            matrix_specs(path)


def test_parquet_java_releases_are_pysparks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """parquet-java==V reads with the parquet-hadoop jar pyspark V bundles, from the environment spark==V runs in;
    its worker is compiled against those jars and reports their version (nothing installed: `ensure` and javac are
    stubbed)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    spec = AdapterSpec.parse("parquet-java==4.0.1")
    adapter = spec.build()
    env = environment(adapter)
    assert env == environment(AdapterSpec.parse("spark==4.0.1").build())  # one environment per pyspark release
    assert (env.package, env.version, env.name) == ("pyspark", "4.0.1", "pyspark-4.0.1")
    assert spec.options() == ["--adapter", "parquet-java==4.0.1"] and spec.name == "parquet-java-4.0.1"
    assert (adapter.library_version() or "").startswith("pyspark 4.0.1")  # known before the environment is made
    jars = env.path / "venv" / "lib" / "python3.12" / "site-packages" / "pyspark" / "jars"
    jars.mkdir(parents=True)
    (jars / "parquet-hadoop-1.15.2.jar").touch()
    made, compiling = [], []
    monkeypatch.setattr(parquet_java, "ensure", lambda e: made.append(e) or e.path)
    monkeypatch.setattr(parquet_java, "compiled", lambda sources, classpath, version, progress: compiling.append(
        (classpath, version)) or tmp_path / "classes")
    monkeypatch.setattr(parquet_java, "require_program", lambda name: f"/usr/bin/{name}")
    argv = adapter.command()
    assert made == [env] and compiling == [(f"{jars}{os.sep}*", "1.15.2")]
    assert argv[argv.index("-cp") + 1] == f"{tmp_path / 'classes'}{os.pathsep}{jars}{os.sep}*"
    assert argv[-2:] == ["ParquetJavaWorker", "1.15.2"]  # the row's version: parquet-hadoop's
    matrix = tmp_path / "m.toml"
    matrix.write_text('parquet-java = ["4.0.1", "4.1.1"]\n')
    assert [s.name for s in matrix_specs(matrix)] == ["parquet-java", "parquet-java-4.0.1", "parquet-java-4.1.1"]


def cli(*args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if home is not None:  # environments in a private cache; uv keeps its own (shared) package cache
        env["UV_CACHE_DIR"] = os.environ.get("UV_CACHE_DIR", str(Path.home() / ".cache" / "uv"))
        env["HOME"] = str(home)
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=env, timeout=1200)


def test_unknown_adapter_release_is_one_line_and_exit_2() -> None:
    proc = cli("adapters", "--adapter", "nosuch==1.0")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "nosuch" in proc.stderr


def test_a_release_that_cannot_be_installed_is_unavailable(tmp_path: Path) -> None:
    proc = cli("adapters", "--json", "--adapter", "pyarrow==0.0.0-nonexistent", "--adapter", "reference==1.0",
               home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = {r["adapter"]: r for r in json.loads(proc.stdout)}
    for name in ("pyarrow-0.0.0-nonexistent", "reference-1.0"):
        assert not rows[name]["available"] and "\n" not in rows[name]["reason"], rows[name]
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / ".cache" / "parquet-conformance" / "envs" / "pyarrow-0.0.0-nonexistent").exists()


@pytest.mark.slow
def test_environment_create_reuse_list_prune(tmp_path: Path) -> None:
    flat = tmp_path / "flat.parquet"
    flat.write_bytes(base_bytes("flat"))
    first = cli("read", str(flat), "--adapter", "pyarrow==15.0.2", "--json", home=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "creating environment pyarrow-15.0.2" in first.stderr
    report = json.loads(first.stdout)
    assert (report["adapter"], report["version"], report["outcome"]) == ("pyarrow-15.0.2", "15.0.2", "read")
    again = cli("read", str(flat), "--adapter", "pyarrow==15.0.2", "--json", home=tmp_path)
    assert "creating environment" not in again.stderr and json.loads(again.stdout)["version"] == "15.0.2"
    listed = cli("envs", "list", home=tmp_path)
    assert listed.returncode == 0 and "pyarrow-15.0.2" in listed.stdout and "MiB" in listed.stdout
    pruned = cli("envs", "prune", "pyarrow==15.0.2", home=tmp_path)
    assert pruned.returncode == 0 and "removed 1 environments" in pruned.stdout
    assert "pyarrow-15.0.2" not in cli("envs", "list", home=tmp_path).stdout


@pytest.mark.slow
def test_bisect_finds_the_polars_boundary() -> None:
    """polars <= 1.40.1 rejects an unknown binary field 32767 whose bytes are not UTF-8; 1.41.1 reads it."""
    proc = cli("bisect", "--adapter", "polars", "--case", "ext/file-metadata/flat/spec-header",
               "--from", "1.40.0", "--to", "1.42.0")
    assert proc.returncode == 0, proc.stderr
    assert "first release whose verdicts differ from 1.40.0's: 1.41.1 (after 1.40.1)" in proc.stdout, proc.stdout
    assert "1.40.1: fail:rejected-valid (rejected: polars.exceptions.ComputeError" in proc.stdout
    assert "1.41.1: pass (read, 24 rows)" in proc.stdout


@pytest.mark.slow
def test_versions_run_writes_the_versions_report(tmp_path: Path) -> None:
    proc = cli("run", "--out", str(tmp_path), "--master", "none", "--only", "base/flat,ext/file-metadata/flat/*",
               "--versions", str(REPO / "examples" / "matrix" / "ci.toml"))
    assert proc.returncode == 0, proc.stderr
    cells = json.loads((tmp_path / "results.json").read_text())["cells"]
    assert {c["adapter"] for c in cells} == {"pyarrow", "pyarrow-15.0.2", "polars", "polars-1.40.1"}
    table = md_text((tmp_path / "versions.md").read_text())
    assert "| ext/file-metadata | 15.0.2 |" in table  # every pyarrow passes
    assert "| ext/file-metadata | none |" not in table
    polars = table[table.index("### polars"):]
    assert "| ext/file-metadata |" in polars and "| 0/2 |" in polars  # 1.40.1 rejects both forms
