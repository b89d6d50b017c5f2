"""The written corpus: files other implementations wrote from a track's tables (app/writers.py), as a
corpus every reader reads. Each written file is a base of its own (its data: what the track says a reader must
return, corpus/track.py Written.expected) and the baseline of its cases: the file as written (`as-written`) and its
variants with the spec's extensions added, so that a reader that fails a writer's file is judged on the variants by
what the extensions change (conformance/harness/judge.py). Each case cites its writer, version and profile.

    OUT/written/<run id>/manifest.json, SHA256SUMS, bases/written/<writer>/<profile>/<table>.parquet,
    cases/written/<writer>/<profile>/<table>/<variant>.parquet, expected/...
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from parquet_conformance.corpus.build import derived, expected_json, write_manifest
from parquet_conformance.corpus.model import (
    BaseEntry,
    CaseEntry,
    Citation,
    Level,
    Manifest,
)
from parquet_conformance.corpus.track import Track, Written
from parquet_conformance.generators.canonical import data_hash
from parquet_conformance.kernel import trees

GROUP = "written"


@dataclass(frozen=True)
class WrittenFile:
    """A file one writer wrote: who wrote it, from which table, with which profile, and the track's word on it."""

    file_id: str  # writer/profile/table (conformance/harness/model.py WriteRow.file_id)
    writer: str
    version: str | None
    profile: str
    table: str
    columns: list[str] | None  # the table's columns it was given (None: all)
    data: bytes
    written: Written


def case_id(file_id: str, variant: str) -> str:
    return f"{GROUP}/{file_id}/{variant}"


def provenance(f: WrittenFile) -> Citation:
    """Who wrote the file: what a regression case kept from it cites too."""
    columns = "" if f.columns is None else f" (the {len(f.columns)} columns it writes)"
    return Citation(f"{f.writer} {f.version or '(version unknown)'}", f"profile {f.profile}",
                    f"table {f.table}{columns} written through its public API; created_by: "
                    f"{f.written.created_by or '(none)'}", level=Level.POLICY)  # provenance, not a spec


def build(out: Path, track: Track, files: Sequence[WrittenFile]) -> Manifest:
    """Writes the written corpus into `out` (replaced whole in one step at the end: kernel/trees.py `replaced`) and
    returns its manifest."""
    trees.check_names([p for f in files for p in (f"bases/{GROUP}/{f.file_id}{track.suffix}",
                                                  *(f"cases/{case_id(f.file_id, v.name)}{track.suffix}"
                                                    for v in f.written.variants))])
    with trees.replaced(out, may_replace="a corpus") as staging:
        return _build(staging, track, files)


def _build(out: Path, track: Track, files: Sequence[WrittenFile]) -> Manifest:
    bases: dict[str, BaseEntry] = {}
    cases: list[CaseEntry] = []
    for f in files:
        name = f"{GROUP}/{f.file_id}"
        expected = f.written.expected if f.written.expected is not None else {"columns": [], "rows": []}
        base = BaseEntry(track=track.name, description=f"{f.table}, written by {f.writer} {f.version or ''} with "
                         f"profile {f.profile}", file=f"bases/{name}{track.suffix}", size=len(f.data),
                         sha256=hashlib.sha256(f.data).hexdigest(), expected=f"expected/{name}.json",
                         expected_size=len(expected_json(expected)), data_hash=data_hash(expected),
                         rows=len(expected.get("rows", [])) if isinstance(expected, dict) else 0,
                         columns=list(expected.get("columns", [])) if isinstance(expected, dict) else [],
                         baseline_case=case_id(f.file_id, "as-written"))
        trees.write_below(out, base.file, f.data)
        trees.write_below(out, base.expected, expected_json(expected))
        bases[name] = base
        for v in f.written.variants:
            cid = case_id(f.file_id, v.name)
            entry = CaseEntry(
                id=cid, track=track.name, title=f"{f.table} by {f.writer} ({f.profile}): {v.title}", group=GROUP,
                kind=v.kind, base=name, file=f"cases/{cid}{track.suffix}", size=len(v.data),
                sha256=hashlib.sha256(v.data).hexdigest(), seed=0, mutations=[m.to_json() for m in v.mutations],
                expect=dict(v.expect), decode={}, citations=[provenance(f), *v.citations], notes=v.notes,
                extensions=None, large=False, data_unknown=f.written.expected is None)
            trees.write_below(out, entry.file, v.data)
            cases.append(derived(track, entry, v.data, base=f.data))
    writers = {f.writer: f.version or "unknown" for f in files}
    return write_manifest(out, [track], writers, bases, cases)

