"""What `fuzz` writes: findings and the regression cases it keeps go below --out (a store of the shipped store's
form), nothing into the package or the source tree; `corpus add-regression --from` ships one of them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import CLI

REPO = Path(__file__).resolve().parent.parent
# A worker that reads the base and aborts on every generated example (the fuzz example's file is example.parquet).
CRASHY = f"{sys.executable} {Path(__file__).parent / 'hostile' / 'worker.py'} abort --bad=example"


def git_status() -> str:
    proc = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=REPO, capture_output=True,
                          text=True)
    return proc.stdout if proc.returncode == 0 else ""


@pytest.mark.skipif(not (REPO / ".git").exists(), reason="not a git checkout")
def test_fuzz_keeps_its_findings_below_out_and_add_regression_ships_one(tmp_path: Path) -> None:
    before = git_status()
    out = tmp_path / "fuzz"
    proc = subprocess.run([*CLI, "fuzz", "--examples", "3", "--seed", "2", "--master", "none", "--out", str(out),
                           "--adapter-cmd", f"crashy={CRASHY}", "--shrink-time", "5", "--budget", "60"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert git_status() == before  # nothing in the package's regressions, nothing in the source tree
    findings = json.loads((out / "findings.json").read_text())["findings"]
    saved = [f["regression"] for f in findings if f.get("regression")]
    assert saved, findings
    store = json.loads((out / "regressions" / "regressions.json").read_text())
    assert {e["id"] for e in store} == set(saved)
    assert all(e["found_by"]["tool"] == "parquet-conformance fuzz" for e in store)
    assert all("<Expectation" not in e["notes"] for e in store)  # no Python repr where a user reads

    shipped = tmp_path / "shipped"  # the package's own store stands in here: PARQUET_CONFORMANCE_REGRESSIONS
    proc = subprocess.run([*CLI, "corpus", "add-regression", "--from", str(out / "regressions"), "--id", saved[0]],
                          capture_output=True, text=True, env={**__import__("os").environ,
                                                               "PARQUET_CONFORMANCE_REGRESSIONS": str(shipped)})
    assert proc.returncode == 0, proc.stderr
    [entry] = json.loads((shipped / "regressions.json").read_text())
    assert entry["id"] == saved[0] and entry["found_by"] == next(e for e in store if e["id"] == saved[0])["found_by"]
    proc = subprocess.run([*CLI, "corpus", "add-regression", "--from", str(out / "regressions"), "--id", "regression/x",
                           "--expect", "legacy=read"], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "only --id" in proc.stderr
