"""Our parquet-site table against the hand-kept one (corpus/parquet/parquet-site/, apache/parquet-site's
data/implementations/support/<engine>.yaml): per site engine and feature id, where the site's claim and our evidence
disagree. The site's claim speaks for the engine's default version (engines.yaml `versions.default`), so a
disagreement is only one our evidence for that version shows; a different status of a later release is a change
since that version, of an earlier one a difference before it, and a table whose version we cannot place (an engine
reached through another package whose build did not say) says nothing about the site's version.

The claim is compared side by side (docs/results.md#parquet-site): reading (`full`, `read` against `write`, `none`)
wherever our reading is judged; writing only where we show it (a `read` or `none` of the site's against a file its
writer wrote with the feature): a writer grid that shows nothing is no evidence that the engine does not write."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from parquet_conformance.conformance.harness.model import Cell
from parquet_conformance.corpus.parquet.site import Status, pinned, site_data, support_lines, support_path
from parquet_conformance.reports.model import ResultsDocument
from parquet_conformance.reports.parquet.table import Table, site_ids
from parquet_conformance.reports.text import repro_command, version_key

Kind = Literal["disagreement", "change", "earlier", "unplaced", "agreement", "no-claim", "not-judged"]
READS = ("full", "read")
WRITES = ("full", "write")


@dataclass(frozen=True)
class Evidence:
    """A cell an entry rests on, and how to see it again."""

    case: str
    adapter: str
    verdict: str
    outcome: str
    error: str | None
    read: str | None  # the `parquet-conformance read` line (from the run's folder)

    @classmethod
    def of(cls, doc: ResultsDocument, cell: Cell) -> Evidence:
        error = f"{cell.error_class or ''}: {cell.error_message or ''}"[:300] if cell.error_message else None
        return cls(cell.case, cell.adapter, cell.verdict.value, cell.outcome.value, error, repro_command(doc, cell))


@dataclass(frozen=True)
class Entry:
    engine: str
    feature: str
    kind: Kind
    site: str  # the site's status for our table's version (claim_at; "unknown": it gives none)
    site_version: str  # the version it speaks for (its default)
    ours: str | None  # our status (None: not judged)
    version: str  # the version our table is of ("": not placed)
    adapter: str
    sides: list[str]  # the sides that differ: reading, writing
    note: str  # our note (the evidence in words, or why not judged)
    site_note: str | None
    evidence: list[Evidence] = field(default_factory=list)
    upstream: str | None = None  # the command that makes the upstream-ready folders of its failures
    site_file: str = ""  # apache/parquet-site's file to edit
    site_line: int | None = None  # the line of the feature's key there (None: add it under `support:`)


def claim_at(claim: Status, version: str) -> str:
    """The site's status for one release: its `since_version_read`/`since_version_write` later than the release takes
    that side away (the site says the engine gained it then), so `full` since 56.0.0 claims `none` for 52.2.0."""
    if not version:  # a table we cannot place: the status as written
        return claim.status

    def since(first: str | None) -> bool:
        return first is None or version_key(version) >= version_key(first)

    reads = claim.status in READS and since(claim.since_read)
    writes = claim.status in WRITES and since(claim.since_write)
    return {(True, True): "full", (True, False): "read", (False, True): "write", (False, False): "none"}[reads, writes]


def _place(version: str, default: str) -> Kind | None:
    """How a table's version stands to the site's default: None where they are the same release."""
    if not version:
        return "unplaced"
    if version_key(version) == version_key(default):
        return None
    return "change" if version_key(version) > version_key(default) else "earlier"


def sides(site: str, reads: bool | None, writes: str | None) -> list[str]:
    """The sides on which the site's status and our evidence differ (reading judged, writing shown)."""
    out = []
    if reads is not None and (site in READS) != reads:
        out.append("reading")
    if writes is not None and site not in WRITES:
        out.append("writing")
    return out


def compare(doc: ResultsDocument, tables: list[Table], results: str = "RESULTS") -> list[Entry]:
    """Every site engine's speaking tables of the run against the site's support table, one entry per feature id."""
    data = site_data()
    engines = {e.id: e for e in data.engines}
    out = []
    for table in tables:
        if not table.speaks or table.engine not in engines:
            continue
        default = engines[table.engine].default_version
        placed = _place(table.version, default)
        claims = data.support.get(table.engine)
        lines = support_lines(table.engine)
        for feature in site_ids():
            ours = table.get(feature)
            claim = claims.support.get(feature) if claims else None
            site = claim_at(claim, table.version) if claim else "unknown"
            entry = Entry(table.engine, feature, "agreement", site, default, ours.status, table.version, table.adapter,
                          [], ours.note, claim.note if claim else None,
                          [Evidence.of(doc, c) for c in ours.cells], None, support_path(table.engine),
                          lines.get(feature))
            if ours.status is None:
                out.append(_with(entry, kind="not-judged"))
                continue
            if site == "unknown":
                out.append(_with(entry, kind="no-claim"))
                continue
            differ = sides(site, ours.reads, ours.writes)
            kind: Kind = "agreement" if not differ else placed or "disagreement"
            failing = any(c.verdict.is_failure for c in ours.cells)
            upstream = (f"parquet-conformance report --upstream {table.adapter} upstream-{table.engine} --results "
                        f"{results} --run {doc.run.id}") if differ and failing else None
            out.append(_with(entry, kind=kind, sides=differ, upstream=upstream))
    return out


def _with(entry: Entry, **changes: object) -> Entry:
    return replace(entry, **changes)  # type: ignore[arg-type]


def provenance(engine: str) -> str:
    """The stored support file's origin: repository, path, commit."""
    pin = pinned(support_path(engine))
    return f"{pin['repo']} {pin['path']} at {pin['commit'][:12]}"
