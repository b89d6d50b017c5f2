"""Fuzzing throughput, measured in one run: examples/s with the fast readers and with all readers, locally
(`--master none`: one process of persistent workers) and on Spark (`local[*]`), and the Spark-over-local ratio.

    python bench/fuzz.py [--examples N] [--seed S]

Every configuration searches the same N examples (the same seed: the same chains), with findings neither
confirmed, shrunk nor saved (`budget_s` 0); only the examples/s of the search are compared. On a 2-core
machine Spark local[*] runs two batches at once, each in its own executor process with its own workers.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from parquet_conformance.app.fuzz import FuzzOptions, run_fuzz
from parquet_conformance.conformance import adapters
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.corpus import track as tracks


def rate(names: list[str], master: str, examples: int, seed: int, out: Path) -> float:
    opts = FuzzOptions(specs=[AdapterSpec(n) for n in names], track="parquet", seed=seed, examples=examples,
                       master=master, out=out, shrink=False, save=False, budget_s=0.0)
    report = run_fuzz(opts, lambda _: None)
    return report.examples_per_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    every = adapters.names(track="parquet", default_run=True)
    fast = list(tracks.fuzzer(tracks.get("parquet")).default_adapters)
    with tempfile.TemporaryDirectory(prefix="bench-fuzz-") as tmp:
        print(f"{'readers':<8} {'master':<9} examples/s")
        rates = {}
        for label, names in (("fast", fast), ("all", every)):
            for master in ("none", "local[*]"):
                print(f"  {label} readers, master {master}: searching {args.examples} examples…", file=sys.stderr,
                      flush=True)
                rates[label, master] = rate(names, master, args.examples, args.seed, Path(tmp))
                print(f"{label:<8} {master:<9} {rates[label, master]:.1f}")
        for label in ("fast", "all"):
            print(f"{label}: Spark local[*] / local = {rates[label, 'local[*]'] / rates[label, 'none']:.2f}")
    print(f"fast readers: {', '.join(fast)}; all: {', '.join(every)}")


if __name__ == "__main__":
    main()
