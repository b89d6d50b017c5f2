"""The harness knows no format: a toy track and a toy report format, defined only in tests/ and
registered through real entry points (as an installed package registers them), go through generate,
run (--master none), judge, every report and the gate; and the registries refuse what they should."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from parquet_conformance.kernel import registry
from tests.helpers import CLI

REPO = Path(__file__).resolve().parent.parent
ENTRY_POINTS = """\
[parquet_conformance.tracks]
toy = tests.toy:TRACK

[parquet_conformance.adapters]
toy-reader = tests.toy.adapter:ADAPTER

[parquet_conformance.reports]
toy-tally = tests.toy_report:FORMAT
"""


def site_with(tmp_path: Path, name: str, entry_points: str) -> dict[str, str]:
    """An environment whose PYTHONPATH holds a distribution `name` with these entry points."""
    info = tmp_path / "site" / f"{name}-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0\n")
    (info / "entry_points.txt").write_text(entry_points)
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(REPO)])}


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, env=env)


def test_a_toy_track_runs_end_to_end(tmp_path: Path) -> None:
    env = site_with(tmp_path, "toy_plugin", ENTRY_POINTS)
    listed = cli(env, "adapters", "--adapter", "toy-reader", "--json")
    assert listed.returncode == 0, listed.stderr
    [row] = json.loads(listed.stdout)
    assert (row["track"], row["available"], row["roles"]) == ("toy", True, ["reader"])

    gen = cli(env, "generate", "--out", str(tmp_path / "corpus"), "--track", "toy")
    assert gen.returncode == 0, gen.stderr
    manifest = json.loads((tmp_path / "corpus" / "manifest.json").read_text())
    assert manifest["tracks"] == ["toy"] and {c["file"] for c in manifest["cases"]} == {
        "cases/toy/base/two.toy", "cases/toy/extra-line.toy", "cases/toy/garbage.toy"}

    out = tmp_path / "out"
    run = cli(env, "run", "--corpus", str(tmp_path / "corpus"), "--out", str(out), "--master", "none",
              "--adapter", "toy-reader", "--run-id", "toy")
    assert run.returncode == 0, run.stderr
    cells = {c["case"]: c for c in json.loads((out / "results.json").read_text())["cells"]}
    assert {k: (c["role"], c["outcome"], c["verdict"]) for k, c in cells.items()} == {
        "toy/base/two": ("reader", "read", "pass"),
        "toy/extra-line": ("reader", "read", "fail:wrong-data"),  # a third row: not the base data
        "toy/garbage": ("reader", "rejected", "pass"),
    }
    # Every registered report format wrote its files, the toy one included.
    assert (out / "tally.txt").read_text() == "toy-reader fail:wrong-data: 1\ntoy-reader pass: 2\n"
    assert "toy/extra-line" in (out / "report.html").read_text() and (out / "junit" / "toy-reader.xml").is_file()
    # The gate works the same on any track.
    failures = tmp_path / "toy-failures.txt"
    assert cli(env, "check", "--adapter", "toy-reader", "--results", str(out / "results"),
               "--expected-failures", str(failures), "--write-expected-failures").returncode == 0
    assert failures.read_text().splitlines()[-1] == "toy/extra-line reader fail:wrong-data"
    assert cli(env, "check", "--adapter", "toy-reader", "--results", str(out / "results"),
               "--expected-failures", str(failures)).returncode == 0


def test_a_name_claimed_twice_is_an_error(tmp_path: Path) -> None:
    env = site_with(tmp_path, "impostor", "[parquet_conformance.adapters]\npyarrow = tests.toy.adapter:ADAPTER\n")
    proc = cli(env, "adapters", "--adapter", "pyarrow")
    assert proc.returncode == 2 and "registered twice" in proc.stderr and len(proc.stderr.splitlines()) == 1


def test_unknown_names_say_what_is_known() -> None:
    with pytest.raises(registry.RegistryError, match=r"unknown adapter 'nope'; known: .*pyarrow"):
        registry.load(registry.ADAPTERS, "nope")
    with pytest.raises(registry.RegistryError, match="unknown report 'nope'; known: html, json, junit, markdown"):
        registry.load(registry.REPORTS, "nope")
