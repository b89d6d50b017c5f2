"""Roles validated at the protocol boundary (issue 39, item 8a): a start answer naming a role outside the documented
alphabet, or one role twice, makes its adapter unavailable, and the run says which role was refused and why in one
warning; summary.md and `check` say it too, the role's text through each sink's escaper."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from parquet_conformance.corpus.build import generate
from tests.helpers import CLI, md_text, rendered

FAKE = Path(__file__).parent / "worker.py"
ROLES = {"spaced": ("my role#1", "role 'my role#1' refused: a role is [a-z][a-z0-9-]*"),
         "twice": ("legacy,legacy", "role 'legacy' refused: it is listed twice"),
         "markup": ("<img src=x onerror=alert(1)>", "role '<img src=x onerror=alert(1)>' refused: a role is")}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    root = tmp_path_factory.mktemp("roles")
    generate(root / "corpus", only="base/flat")
    args = [*CLI, "run", "--master", "none", "--corpus", str(root / "corpus"), "--out", str(root / "out")]
    for name, (roles, _) in ROLES.items():
        args += ["--adapter-cmd", f"{name}={sys.executable} {FAKE} none {shlex.quote('--roles=' + roles)}"]
    return root / "out", subprocess.run(args, capture_output=True, text=True, timeout=300)


def test_the_run_says_which_role_was_refused_and_why_in_one_warning(run: tuple[Path, subprocess.CompletedProcess[str]],
                                                                     ) -> None:
    _, proc = run
    assert proc.returncode == 0, proc.stderr
    for name, (_, why) in ROLES.items():
        said = [line for line in proc.stderr.splitlines() if f"adapter {name} is unavailable" in line]
        assert len(said) == 1 and said[0].startswith("parquet-conformance: warning: ") and why in said[0], proc.stderr


def test_summary_and_check_say_it_too(run: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path) -> None:
    out, _ = run
    summary = (out / "summary.md").read_text(encoding="utf-8")
    page = rendered(summary)
    assert "img" not in page.tags  # the role's text is text, never markup
    shown = md_text(summary)
    (tmp_path / "none.txt").write_text("")
    for name, (_, why) in ROLES.items():
        assert f"**{name} is unavailable**: worker did not start: start answer: {why}" in shown, shown
        proc = subprocess.run([*CLI, "check", "--adapter", name, "--expected-failures", str(tmp_path / "none.txt"),
                               "--results", str(out / "results")], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and why in proc.stderr, proc.stderr
