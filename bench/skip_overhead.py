"""Skip overhead per reader: open+read time of a base with a 0 B, 1 MiB, 16 MiB and 64 MiB FileMetaData extension,
relative to the base without one, measured in one run (app/overhead.py says how).

    python bench/skip_overhead.py [--adapter NAME ...] [--base flat] [--repeat 5] [--out DIR]

Prints the ratios (a `!` marks a reader whose extra time exceeds 10x reading the extension's bytes once) and,
with --out, writes DIR/skip-overhead.json, which the reports of a run in DIR show as a table and a chart per reader
(`parquet-conformance report --rewrite DIR` writes them again: report.html's "Skip overhead" section,
skip-overhead.md and .svg).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from parquet_conformance.app.overhead import FILE, measure
from parquet_conformance.conformance import adapters
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.corpus import track
from parquet_conformance.reports.overhead import text_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", action="append", help="default: every Parquet adapter a plain `run` runs")
    parser.add_argument("--base", action="append", help="default: flat and wide")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, help="write DIR/skip-overhead.json for the reports")
    args = parser.parse_args()
    names = args.adapter or [n for n in adapters.names("parquet", default_run=True)]
    rows = measure([AdapterSpec.parse(n) for n in names], track.get("parquet"), args.base or ["flat", "wide"],
                   args.repeat, progress=lambda line: print(f"  {line}", file=sys.stderr, flush=True))
    print(text_table(rows))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / FILE).write_text(json.dumps([r.to_json() for r in rows], indent=1))


if __name__ == "__main__":
    main()
