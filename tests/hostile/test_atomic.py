"""Atomic outputs (issue 29, class 7 and item 3): generate, corpus pack, corpus import, the reports (report
--rewrite, as a run writes them) and the site are interrupted at random points (SIGINT: Ctrl-C; SIGKILL: no chance to
clean up), and the output is then the old one or the new one, file for file, never a mix. Hidden temporaries a
SIGKILL leaves (`.name.partial-PID-...`, `.name.XXXX.tmp`) are not the output; the next writer sweeps the folders.
Integration tier (tests/conftest.py): some forty processes. The seed of the random points is printed on failure."""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from parquet_conformance.corpus.build import generate
from tests.helpers import CLI

SEED = int(os.environ.get("ATOMIC_SEED", random.randrange(1 << 30)))
TRIALS = 3  # per command and signal
STARTUP = 0.5  # seconds: Python's own start (before any of ours runs, Ctrl-C is Python's traceback, not ours)


def snapshot(folder: Path) -> dict[str, str]:
    """Every file below `folder` (hidden temporaries apart) -> its sha256."""
    if not folder.exists():
        return {}
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*"))
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)}


def interrupted(argv: list[str], after: float, sig: signal.Signals) -> None:
    proc = subprocess.Popen([*CLI, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(after)
    if proc.poll() is None:
        proc.send_signal(sig)
    _, err = proc.communicate(timeout=300)
    assert b"Traceback" not in err, err[-2000:]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("atomic") / "corpus"
    generate(out, only="base/flat,corrupt/tiny/*,ext/size/*")
    return out


@pytest.fixture(scope="module")
def run_out(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run's output folder (results and reports) of the small corpus."""
    out = tmp_path_factory.mktemp("atomic-run") / "out"
    subprocess.run([*CLI, "run", "--corpus", str(corpus), "--out", str(out), "--master", "none", "--adapter",
                    "pyarrow"], check=True, capture_output=True, timeout=600)
    return out


def case(corpus: Path, run_out: Path, tmp: Path, what: str) -> tuple[Path, Callable[[], None], list[str]]:
    """(the output, how to make its old contents, the command that makes the new ones)."""
    if what == "generate":
        out = tmp / "gen"
        return out, lambda: generate(out, only="base/flat"), ["generate", "--out", str(out), "--only",
                                                               "base/flat,corrupt/tiny/*,ext/size/*"]
    if what == "pack":
        out = tmp / "dist"

        def old() -> None:
            out.mkdir()
            (out / "SHA256SUMS").write_text("0" * 64 + "  other.tar.gz\n")
        return out, old, ["corpus", "pack", "--corpus", str(corpus), "--out", str(out)]
    if what == "import":
        src, out = tmp / "src", tmp / "imported"
        shutil.copytree(corpus / "cases", src)
        return out, lambda: generate(out, only="base/flat"), ["corpus", "import", str(src), "--source", "s", "--out",
                                                               str(out), "--adapter", "reference"]
    if what == "report":
        out = tmp / "run"

        def old() -> None:
            shutil.copytree(run_out, out)
            for name in ("report.html", "summary.md"):
                (out / name).write_text("old\n")
        return out, old, ["report", "--rewrite", str(out)]
    out = tmp / "site"

    def old_site() -> None:
        subprocess.run([*CLI, "report", "--site", str(out), "--results", str(run_out / "results")], check=True,
                       capture_output=True, timeout=300)
        (out / "index.html").write_text("old\n")
    return out, old_site, ["report", "--site", str(out), "--results", str(run_out / "results")]


# The three costliest (a corpus generated, packed, imported) run among the slow suites (.ci/run: after the default
# tests, which stay within ~15 minutes on 2 cores).
@pytest.mark.parametrize("what", [pytest.param(w, marks=pytest.mark.slow) for w in ("generate", "pack", "import")]
                         + ["report", "site"])
def test_an_interrupt_leaves_the_old_output_or_the_new_one(what: str, corpus: Path, run_out: Path,
                                                            tmp_path: Path) -> None:
    rng = random.Random(f"{SEED}:{what}")
    out, make_old, argv = case(corpus, run_out, tmp_path, what)
    make_old()
    old = snapshot(out)
    saved = tmp_path / "saved"
    shutil.copytree(out, saved, symlinks=True)
    t0 = time.monotonic()
    subprocess.run([*CLI, *argv], check=True, capture_output=True, timeout=600)
    took = time.monotonic() - t0
    new = snapshot(out)
    assert new != old
    seen = []
    for sig in (signal.SIGINT, signal.SIGKILL):
        for _ in range(TRIALS):
            shutil.rmtree(out)
            shutil.copytree(saved, out, symlinks=True)
            after = rng.uniform(STARTUP, max(took, STARTUP))
            interrupted(argv, after, sig)
            got = snapshot(out)
            state = "old" if got == old else "new" if got == new else "mixed"
            seen.append((sig.name, round(after, 2), state))
            assert state != "mixed", (f"ATOMIC_SEED={SEED}", seen, sorted(set(got.items()) ^ set(new.items()))[:6])
