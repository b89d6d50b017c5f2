"""What a user who is not root meets (issue 39, items 8b and 10): every check of an output folder is made with the
rights of the user who runs the command (an --out below a folder it cannot search is one line, exit 2, before any
work), and a cache folder it cannot write costs nothing of a run (its compiled templates, its corpus copies: the run
falls back and writes every report). Root passes every permission check, so the commands run unprivileged: as
nobody where this Python can run so, else as root without the capabilities that override permissions."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from parquet_conformance.corpus.build import generate
from tests.helpers import CLI

FAKE = Path(__file__).parent / "worker.py"


def unprivileged() -> list[str]:
    """A prefix that runs a command without root's power over permissions ([] for a user who is not root)."""
    if os.geteuid() != 0:
        return []
    candidates = []
    if setpriv := shutil.which("setpriv"):
        candidates += [[setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"],
                       [setpriv, "--bounding-set=-dac_override,-dac_read_search"]]
    if runuser := shutil.which("runuser"):
        candidates.append([runuser, "-u", "nobody", "--"])
    for prefix in candidates:
        probe = subprocess.run([*prefix, sys.executable, "-c", "import parquet_conformance"], capture_output=True)
        if probe.returncode == 0:
            return prefix
    pytest.skip("no way here to run this Python as an unprivileged user (setpriv, runuser)")


@pytest.fixture(scope="module")
def shared() -> Iterator[Path]:
    """A folder every user may use (pytest's own are root's alone), with a small corpus in it."""
    root = Path(tempfile.mkdtemp(prefix="pqc-unprivileged-"))
    root.chmod(0o777)
    generate(root / "corpus", only="base/flat")
    for d in ("home", "cache"):
        (root / d).mkdir(mode=0o777)
        (root / d).chmod(0o777)
    yield root
    for dirpath, dirnames, _ in os.walk(root):
        for d in dirnames:
            os.chmod(os.path.join(dirpath, d), 0o755)
    shutil.rmtree(root)


def as_user(shared: Path, *args: str, cache: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(shared / "home"), "XDG_CACHE_HOME": str(cache or shared / "cache")}
    return subprocess.run([*unprivileged(), *CLI, *args], capture_output=True, text=True, timeout=300, env=env,
                          cwd=shared)


def test_an_out_below_a_folder_the_user_cannot_search_is_one_line_before_any_work(shared: Path) -> None:
    shut = shared / "shut"
    shut.mkdir()
    shut.chmod(0)
    worker = f"fake={sys.executable} {FAKE} none --real"
    for out, said in ((shut / "sub" / "out", f"{shut} cannot be searched by this user"),
                      (shut, f"{shut} is not writable")):
        proc = as_user(shared, "run", "--master", "none", "--corpus", str(shared / "corpus"), "--out", str(out),
                       "--adapter-cmd", worker)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and said in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stdout == ""


def test_a_cache_folder_the_user_cannot_write_costs_no_report(shared: Path) -> None:
    cache = shared / "readonly-cache"
    for part in ("templates", "corpora"):
        (cache / "parquet-conformance" / part).mkdir(parents=True)
    for dirpath, dirnames, _ in os.walk(cache):
        for d in [dirpath, *(os.path.join(dirpath, n) for n in dirnames)]:
            os.chmod(d, stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    out = shared / "out"
    proc = as_user(shared, "run", "--master", "none", "--corpus", str(shared / "corpus"), "--out", str(out),
                   "--adapter-cmd", f"fake={sys.executable} {FAKE} none --real", cache=cache)
    assert proc.returncode == 0, proc.stderr
    assert all((out / name).is_file() for name in ("results.json", "report.html", "summary.md"))
