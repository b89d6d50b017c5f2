"""One judge: the same attempts give the same verdicts through every entry point that judges (the run job, the
pytest plugin, version matrices and bisect, fuzz), and the gate's two faces (`check` and the plugin's expected
failures) give the same answer on the same list."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from parquet_conformance.app.fuzz import EXAMPLE, example_manifest, judge_example
from parquet_conformance.app.pytest_plugin import item_outcome
from parquet_conformance.app.versions import judge_trial, read_trial
from parquet_conformance.conformance.harness.executor import LocalExecutor
from parquet_conformance.conformance.harness.gate import Status
from parquet_conformance.conformance.harness.results import read_cells
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.corpus.build import generate
from parquet_conformance.corpus.dist import read_manifest
from parquet_conformance.corpus.track import Oracle
from tests.helpers import CLI

WORKER = Path(__file__).with_name("scripted_worker.py")
CASES = "base/flat,ext/file-metadata/flat/spec-header,ext/file-metadata/flat/zigzag-header,corrupt/tiny/*"
SCRIPT = {  # an attempt of each kind: pass, wrong data, a crash, a refusal of a valid file, a clean rejection
    "base/flat": "real",
    "ext/file-metadata/flat/spec-header": "wrong",
    "corrupt/tiny/magic-only": "crash",
    "ext/file-metadata/flat/zigzag-header": "refuse",
    "*": "real",
}
WANT = {"base/flat": "pass", "ext/file-metadata/flat/spec-header": "fail:wrong-data",
        "corrupt/tiny/magic-only": "fail:crash", "ext/file-metadata/flat/zigzag-header": "fail:rejected-valid"}


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    where = tmp_path_factory.mktemp("one-judge")
    generate(where / "corpus", only=CASES)
    script = where / "script.json"
    script.write_text(json.dumps(SCRIPT))
    return where, f"{sys.executable} {WORKER} {script}"


def run_verdicts(where: Path, command: str, out_name: str = "run") -> dict[str, str]:
    out = where / out_name
    if not (out / "results").is_dir():
        proc = subprocess.run([*CLI, "run", "--master", "none", "--corpus", str(where / "corpus"), "--out", str(out),
                               "--adapter-cmd", f"scripted={command}"], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[-2000:]
    return {c.case: str(c.verdict) for c in read_cells(out / "results")[1]}


def plugin(where: Path, command: str, expected: Path) -> tuple[int, dict[str, str]]:
    junit = where / f"junit-{expected.stem}.xml"
    ci = where / "ci"
    ci.mkdir(exist_ok=True)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml", str(junit),
                           "--parquet-conformance-corpus", str(where / "corpus"),
                           "--parquet-conformance-adapter-cmd", command,
                           "--parquet-conformance-expected-failures", str(expected)],
                          cwd=ci, capture_output=True, text=True)
    verdicts = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        verdicts[case.get("name", "")] = props.get("verdict", "")
    return proc.returncode, verdicts


def check(where: Path, expected: Path, *more: str, out_name: str = "run") -> int:
    return checked(where, expected, *more, out_name=out_name).returncode


def checked(where: Path, expected: Path, *more: str, out_name: str = "run") -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "check", "--adapter", "scripted", "--results", str(where / out_name / "results"),
                           "--expected-failures", str(expected), *more], capture_output=True, text=True)


def test_the_same_attempts_give_the_same_verdicts_everywhere(setup: tuple[Path, str]) -> None:
    where, command = setup
    by_run = run_verdicts(where, command)
    assert {c: by_run[c] for c in WANT} == WANT
    listed = where / "all-listed.txt"
    listed.write_text("".join(f"{c} {v}\n" for c, v in by_run.items() if v.startswith("fail:")))
    code, by_plugin = plugin(where, command, listed)
    assert by_plugin == by_run and code == 0

    root, manifest = read_manifest(where / "corpus")
    rows = read_trial(LocalExecutor(1), AdapterSpec.parse_external(f"scripted={command}"), root, manifest,
                      manifest.cases)
    assert rows is not None
    assert dict(judge_trial("1", rows, manifest, manifest.cases).verdicts) == by_run

    by_fuzz = {}
    attempt = {r.case: r for r in rows}
    for case in manifest.cases:  # each case as a generated file whose oracle expects what the manifest does
        data = (root / case.file).read_bytes()
        example = example_manifest("parquet", case.base, data, Oracle(dict(case.expect)))
        baseline = replace(attempt["base/flat"], case="fuzz/base/flat")
        [cell] = judge_example(example, baseline, replace(attempt[case.id], case=EXAMPLE))
        by_fuzz[case.id] = str(cell.verdict)
    assert by_fuzz == by_run


def test_check_and_the_plugin_agree_on_a_pinned_verdict(setup: tuple[Path, str]) -> None:
    """The review's probe: a line pinned to fail:crash on a reader that returns wrong data is a changed failure in
    both gates (it was xfailed by the plugin, exit 0, while `check` failed)."""
    where, command = setup
    run_verdicts(where, command)
    pinned = where / "pinned.txt"
    pinned.write_text("ext/file-metadata/flat/spec-header fail:crash\n"
                      "corrupt/tiny/magic-only fail:crash\next/file-metadata/flat/zigzag-header\n")
    code, verdicts = plugin(where, command, pinned)
    assert (check(where, pinned), code) == (1, 1)
    assert verdicts["ext/file-metadata/flat/spec-header"] == "fail:wrong-data"
    right = where / "right.txt"
    right.write_text(re.sub("spec-header fail:crash", "spec-header fail:wrong-data", pinned.read_text()))
    assert (check(where, right), plugin(where, command, right)[0]) == (0, 0)


@pytest.mark.parametrize("status", list(Status))
def test_check_and_the_plugin_agree_on_every_status(status: Status) -> None:
    """The plugin fails a case exactly where `check` exits 1 (a wrong cell) or 3 (a cell not judged); a flaky cell
    fails neither (check prints it, the plugin skips it with its outcomes)."""
    check_fails = not status.ok or status == Status.UNJUDGED
    assert (item_outcome({status}) == "fail") == check_fails
    assert (item_outcome({status}) == "flaky") == (status == Status.FLAKY)
    assert item_outcome({status, Status.FLAKY}) == ("fail" if check_fails else "flaky")


def test_a_flaky_cell_is_reported_apart_and_fails_the_gate_only_when_asked(setup: tuple[Path, str]) -> None:
    where, _ = setup
    script = where / "flaky-script.json"
    script.write_text(json.dumps({"ext/file-metadata/flat/zigzag-header": "flaky", "*": "real"}))
    verdicts = run_verdicts(where, f"{sys.executable} {WORKER} {script}", "flaky-run")
    assert verdicts["ext/file-metadata/flat/zigzag-header"] == "flaky"
    listed = where / "flaky-listed.txt"  # listed or not, a flaky cell is neither known nor an unexpected pass
    for text in ("", "ext/file-metadata/flat/zigzag-header\n"):
        listed.write_text(text)
        proc = checked(where, listed, out_name="flaky-run")
        assert proc.returncode == 0, proc.stdout
        assert re.search(r"^FLAKY +ext/file-metadata/flat/zigzag-header \[legacy\]: 3 attempts disagree: the run: "
                         r"rejected .* confirmation pass: read .* fresh worker: read", proc.stdout, re.M)
        assert "1 flaky" in proc.stdout and "UNEXPECTED" not in proc.stdout
        assert check(where, listed, "--fail-on-flaky", out_name="flaky-run") == 1
    listed.write_text("ext/file-metadata/flat/zigzag-header flaky\n")  # it cannot be pinned
    proc = checked(where, listed, out_name="flaky-run")
    assert proc.returncode == 2 and "cannot be pinned" in proc.stderr
    written = where / "flaky-written.txt"
    assert check(where, written, "--write-expected-failures", out_name="flaky-run") == 0
    assert "#   ext/file-metadata/flat/zigzag-header legacy" in written.read_text()
    assert not re.search(r"^ext/file-metadata/flat/zigzag-header", written.read_text(), re.M)
