"""Reports of a run, one module per format, registered by name in the entry-point group
`parquet_conformance.reports` (pyproject.toml): html (report.html), json (results.json), junit
(junit/<adapter>.xml), markdown (summary.md), versions (versions.md), skip-overhead (skip-overhead.md/.svg). A
format is an object with a `name` and `write(doc, out) -> list[Path]` that draws the document alone (it reads no
file) and imports no other format (shared helpers: reports/text.py); adding one is one module and one registration
line. A track may claim a format as its own (corpus/track.py Reporting: parquet-site is the Parquet track's): that
format is given the track's cells alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from parquet_conformance.corpus import track as tracks
from parquet_conformance.kernel import registry, trees
from parquet_conformance.reports.model import ResultsDocument
from parquet_conformance.reports.text import published


class ReportFormat(Protocol):
    name: str

    def write(self, doc: ResultsDocument, out: Path) -> list[Path]:
        """Write this format's files for the run into `out`; return them."""
        ...


def names() -> list[str]:
    return registry.names(registry.REPORTS)


def get(name: str) -> ReportFormat:
    return registry.load(registry.REPORTS, name)  # type: ignore[return-value]


def write_reports(doc: ResultsDocument, out: Path, formats: list[str] | None = None) -> list[Path]:
    """Every format's files, written into a hidden folder of `out` and moved into place together at the end
    (kernel/trees.py `files_replaced`): an interrupt leaves the old reports or the new ones, never a mix. A format a
    track claims as its own (corpus/track.py Reporting) draws that track's cells alone."""
    owners = tracks.report_formats()
    with trees.files_replaced(out) as staging, published(staging, out):
        written = [path for name in formats or names()
                   for path in get(name).write(doc.of_track(owners[name]) if name in owners else doc, staging)]
    return [out / path.relative_to(staging) for path in written]
