"""The implementer's gate as docs/ci-gate.md documents it, timed: `run --adapter NAME` into a new output folder
(the corpus copied from the cache, as a CI job with a warm cache gets it), then `check` against an expected-failure
list, each in a fresh process.

    python bench/gate.py [--adapter pyarrow] [--master none|local[*]] [--repeat 3]

Prints the wall and CPU seconds (bench/cpu.py's account) of each step and of both, per repetition and their median.
The list is written once beforehand (`check --write-expected-failures`), as an implementer keeps one. Beside each
repetition, the library alone (a Python adapter's): bench/limit.py reading the same files in a fresh process of its
own (Python's start and the library's import included, no harness), and the gate's wall over its wall, measured in
the same minute: this machine's speed changes by a quarter from hour to hour, the ratio much less.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cpu import accounted

CLI = [sys.executable, "-m", "parquet_conformance.app.cli"]
LIMIT = Path(__file__).with_name("limit.py")


def timed(argv: list[str], read: object) -> tuple[float, float, int]:
    assert callable(read)
    cpu0, t0 = read(), time.monotonic()
    rc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    return time.monotonic() - t0, read() - cpu0, rc


def library_alone(adapter: str, corpus: Path, listing: Path, read: object) -> tuple[float, float] | None:
    """(wall, CPU) of bench/limit.py over the corpus's files of the adapter's track, or None for an adapter that is
    no Python library of ours."""
    from parquet_conformance.conformance.adapters import PythonAdapter, get
    from parquet_conformance.corpus.dist import read_manifest

    built = get(adapter)
    if not isinstance(built, PythonAdapter) or built.release is not None:
        return None
    _, manifest = read_manifest(corpus)
    listing.write_text("".join(f"{c.op}\t{(corpus / c.file).resolve()}\n" for c in manifest.cases
                               if c.track == built.track))
    wall, cpu, rc = timed(["bash", "-c", 'exec "$@" 3>/dev/null', "bash", sys.executable, "-I", str(LIMIT), adapter,
                           str(listing), "0"], read)
    return (wall, cpu) if rc == 0 else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", default="pyarrow")
    parser.add_argument("--master", default="none")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-gate-") as tmp, accounted("pqc-gate") as (account, read):
        root = Path(tmp)
        listing = root / "expected.txt"
        first = [*CLI, "run", "--adapter", args.adapter, "--master", args.master, "--out", str(root / "setup")]
        subprocess.run(first, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run([*CLI, "check", "--adapter", args.adapter, "--results", str(root / "setup" / "results"),
                        "--expected-failures", str(listing), "--write-expected-failures"], check=True,
                       stdout=subprocess.DEVNULL)
        how = "one cgroup" if account is not None else "rusage"
        print(f"gate: {args.adapter}, --master {args.master}, CPU by {how}; wall s / CPU s")
        totals: list[float] = []
        ratios: list[float] = []
        for k in range(args.repeat):
            out = root / f"out-{k}"
            run_wall, run_cpu, rc = timed([*CLI, "run", "--adapter", args.adapter, "--master", args.master,
                                           "--out", str(out)], read)
            check_wall, check_cpu, code = timed([*CLI, "check", "--adapter", args.adapter, "--results",
                                                 str(out / "results"), "--expected-failures", str(listing)], read)
            totals.append(run_wall + check_wall)
            alone = library_alone(args.adapter, out / "corpus", root / "files.txt", read)
            versus = ""
            if alone is not None:
                ratios.append((run_wall + check_wall) / alone[0])
                versus = f"; the library alone {alone[0]:.1f} / {alone[1]:.1f}: gate / library {ratios[-1]:.1f}x wall"
            print(f"  {k + 1}: run {run_wall:.1f} / {run_cpu:.1f} (exit {rc}), check {check_wall:.1f} / "
                  f"{check_cpu:.1f} (exit {code}); both {run_wall + check_wall:.1f} s wall{versus}")
        ratio = f"; gate / library alone: median {statistics.median(ratios):.1f}x wall" if ratios else ""
        print(f"median: {statistics.median(totals):.1f} s wall (from {min(totals):.1f} to {max(totals):.1f}){ratio}")


if __name__ == "__main__":
    main()
