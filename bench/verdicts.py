"""Two runs' verdicts side by side: per adapter, its verdict counts in each, and every cell whose verdict differs;
with --levels, every cell whose level (must, should, policy) differs too, and what the gate at `must` decides of it.

    python bench/verdicts.py RESULTS_A RESULTS_B [--run-a ID] [--run-b ID] [--cells N] [--levels]

RESULTS_A and RESULTS_B are results datasets (OUT/results); each run is the dataset's latest unless named. A speed
change must leave these equal (bench/matrix.py --keep DIR keeps its run's dataset for this).
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from parquet_conformance.conformance.harness.gate import decide
from parquet_conformance.conformance.harness.results import read_cells, read_runs_in_order


def verdicts(results: Path, run: str | None, levels: bool = False) -> tuple[str, dict[tuple[str, str, str], str]]:
    run = run or read_runs_in_order(results)[-1]
    _, cells = read_cells(results, run)
    return run, {(c.case, c.adapter, c.role): str(c.verdict) + (f" ({c.level}, gate: {decide(c, None).value})"
                                                                 if levels else "") for c in cells}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--run-a")
    parser.add_argument("--run-b")
    parser.add_argument("--cells", type=int, default=40, help="differing cells to list (default 40)")
    parser.add_argument("--levels", action="store_true", help="compare each cell's level and gate status too")
    args = parser.parse_args()
    run_a, a = verdicts(args.a, args.run_a, args.levels)
    run_b, b = verdicts(args.b, args.run_b, args.levels)
    print(f"A: {args.a} run {run_a} ({len(a)} cells); B: {args.b} run {run_b} ({len(b)} cells)")
    adapters = sorted({k[1] for k in a} | {k[1] for k in b})
    for adapter in adapters:
        ca = Counter(v for k, v in a.items() if k[1] == adapter)
        cb = Counter(v for k, v in b.items() if k[1] == adapter)
        mark = "" if ca == cb else "  <- differs"
        print(f"{adapter:<16} A {dict(sorted(ca.items()))}\n{'':<16} B {dict(sorted(cb.items()))}{mark}")
    differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    print(f"{len(differ)} cells differ")
    for k in differ[: args.cells]:
        print(f"  {k[0]} [{k[1]} {k[2]}]: {a.get(k)} -> {b.get(k)}")


if __name__ == "__main__":
    main()
