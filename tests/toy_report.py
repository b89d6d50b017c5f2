"""A toy report format, defined only in the tests: a format is one file and one registration line."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from parquet_conformance.reports.model import ResultsDocument


class Tally:
    name = "toy-tally"

    def write(self, doc: ResultsDocument, out: Path) -> list[Path]:
        path = out / "tally.txt"
        counts = Counter(f"{c.adapter} {c.verdict}" for c in doc.cells)
        path.write_text("".join(f"{k}: {v}\n" for k, v in sorted(counts.items())))
        return [path]


FORMAT = Tally()
