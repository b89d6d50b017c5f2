"""Persistent adapter workers versus one worker process per cell, measured in one run.

    python bench/persistent_vs_per_cell.py [--cases N] [--adapter NAME ...]

Prints, per adapter, the wall time of N cells both ways and their ratio (per-cell / persistent).
Both ways read the same files in the same order, interleaved per adapter, so machine noise hits
both alike; only the ratio is meant to be compared across machines.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from parquet_conformance.conformance.harness.model import Unavailable
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.corpus.build import generate


def timed(adapter: str, files: list[Path], persistent: bool) -> float:
    t0 = time.perf_counter()
    spec = AdapterSpec(adapter)
    worker = spec.worker() if persistent else None
    for path in files:
        w = worker or spec.worker()
        outcome = w.read(str(path)).outcome
        assert not isinstance(outcome, Unavailable), outcome.reason
        if not persistent:
            w.close()
    if worker:
        worker.close()
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--adapter", action="append", help="default: pyarrow and parquet-java")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        manifest = generate(Path(tmp), only="ext/*/flat/*,corrupt/*")
        files = [Path(tmp) / c.file for c in manifest.cases][: args.cases]
        print(f"{len(files)} cells per measurement")
        print(f"{'adapter':<14} {'persistent':>11} {'per-cell':>10} {'ratio':>7}")
        for adapter in args.adapter or ["pyarrow", "parquet-java"]:
            timed(adapter, files[:1], True)  # warm caches (compiled Java worker, imports) for both
            persistent = timed(adapter, files, True)
            per_cell = timed(adapter, files, False)
            print(f"{adapter:<14} {persistent:>10.2f}s {per_cell:>9.2f}s {per_cell / persistent:>6.1f}x")


if __name__ == "__main__":
    main()
