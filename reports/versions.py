"""versions.md: for a run that holds several releases of an implementation (`run --versions FILE`,
`--adapter NAME==VERSION`), one table per implementation: case group (ext/file-metadata, fb/migration,
...) -> the first release from which every release passes the group, and each release's passes.
Written only when some implementation ran in more than one version.

A release's row is named NAME-VERSION (the registered NAME runs its installed or pinned release), so the
implementation is the registered adapter its options name again (`--adapter NAME==VERSION`), and each release's column
the version it reports (parquet-java==4.0.1's: parquet-hadoop 1.15.2).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from parquet_conformance.conformance.harness.model import Cell, Verdict
from parquet_conformance.reports.model import ResultsDocument
from parquet_conformance.reports.text import cell_text, registered_name, version_key


def group_of(case: str) -> str:
    return "/".join(case.split("/")[:2])  # a case id's family: its first two components


def first_passing(passes: dict[str, bool]) -> str:
    """The oldest release from which every release passes ("none" when the newest fails)."""
    first = "none"
    for version in sorted(passes, key=version_key, reverse=True):
        if not passes[version]:
            break
        first = version
    return first


def tables(doc: ResultsDocument) -> str:
    by_family: dict[str, list[Cell]] = defaultdict(list)
    for c in doc.cells:
        if c.version and c.verdict not in (Verdict.SKIP, Verdict.HARNESS_ERROR):
            by_family[registered_name(doc, c.adapter, c.version)].append(c)
    sections = []
    for name, cells in sorted(by_family.items()):
        versions = sorted({c.version for c in cells if c.version}, key=version_key)
        if len(versions) < 2:
            continue
        groups: dict[str, dict[str, list[Cell]]] = defaultdict(lambda: defaultdict(list))
        for c in cells:
            groups[group_of(c.case)][c.version or ""].append(c)
        lines = [f"### {cell_text(name)} ({cell_text(cells[0].implementation)})", "",
                 "| case group | first release that passes | " + " | ".join(cell_text(v) for v in versions) + " |",
                 "|---|---|" + "---:|" * len(versions)]
        for group, per_version in sorted(groups.items()):
            passes = {v: all(c.verdict == Verdict.PASS for c in mine) for v, mine in per_version.items()}
            counts = [f"{sum(c.verdict == Verdict.PASS for c in per_version[v])}/{len(per_version[v])}"
                      if v in per_version else "–" for v in versions]
            lines.append(f"| {cell_text(group)} | {cell_text(first_passing(passes))} | " + " | ".join(counts) + " |")
        sections.append("\n".join(lines))
    if not sections:
        return ""
    return "\n\n".join([f"## Releases in run `{cell_text(doc.run.id)}`",
                        "Per implementation and case group (the first two parts of the case ids): the first release "
                        "from which every release passes every cell of the group, and each release's passes "
                        "(releases that were unavailable left out).", *sections]) + "\n"


class Versions:
    name = "versions"

    def write(self, doc: ResultsDocument, out: Path) -> list[Path]:
        text, path = tables(doc), out / "versions.md"
        if not text:
            path.unlink(missing_ok=True)  # no stale table from an earlier run into the same directory
            return []
        path.write_text(text, encoding="utf-8")
        return [path]


FORMAT = Versions()
