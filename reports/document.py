"""Building the ResultsDocument every report renders: from a run's cells and its manifest (the run job), or from
a run stored in a results dataset (`report --site`, `--history`), with the manifest of its corpus when the corpus
is still there and unchanged, and case summaries made from the cells when it is not."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from parquet_conformance.conformance.harness.model import Cell, Overhead, RunInfo, Verdict
from parquet_conformance.conformance.harness.results import (
    DOCUMENT,
    ResultsError,
    read_cells,
    read_document_parts,
    read_record,
    recorded_path,
    run_path,
)
from parquet_conformance.corpus import track
from parquet_conformance.corpus.model import Expectation, Manifest
from parquet_conformance.reports.datadiff import data_diff
from parquet_conformance.reports.model import (
    RESULTS_FORMAT,
    RESULTS_VERSION,
    CaseSummary,
    Comparison,
    DataDiff,
    ResultsDocument,
    WritersMatrix,
    scores,
)


def diffs(cells: list[Cell], manifest: Manifest | None, corpus: Path | None) -> list[DataDiff]:
    """The data diff of every cell that keeps a sample, against its base's expected data in `corpus`."""
    expected: dict[str, object | None] = {}
    verdicts = {(c.case, c.adapter): c.verdict for c in cells}
    known = {c.id for c in manifest.cases} if manifest else set()

    def load(base: str) -> object | None:
        if base not in expected:
            path = (corpus / manifest.bases[base].expected) if corpus and manifest else None
            try:
                expected[base] = json.loads(path.read_text(encoding="utf-8")) if path else None
            except (OSError, ValueError):
                expected[base] = None
        return expected[base]

    out = []
    for cell in cells:
        if cell.sample is None:
            continue
        case = manifest.case(cell.case) if manifest and cell.case in known else None
        if case is not None and cell.role in case.expect_hash:
            continue  # judged on the file itself (a role the track derives): the base's data is not what it must give
        note = None
        if cell.verdict == Verdict.REPRESENTATION:
            note = (f"the data in the form {cell.adapter}'s library documents ({', '.join(cell.representations)}: "
                    "docs/adapters.md#documented-representations), not wrong data")
        elif case and manifest:
            baseline = manifest.bases[case.base].baseline_case
            if baseline and baseline != cell.case and verdicts.get((baseline, cell.adapter)) in (
                    Verdict.WRONG_DATA, Verdict.REPRESENTATION):
                note = (f"{cell.adapter} reads the unmodified base ({baseline}) differently too: it was judged "
                        "against that reading, the diff is against the expected data")
        diff = data_diff(cell, load(case.base) if case else None, note)
        if diff is not None:
            out.append(diff)
    return out


def results_document(cells: list[Cell], manifest: Manifest, run: RunInfo, corpus: Path | None = None,
                     overhead: list[Overhead] | None = None, comparison: Comparison | None = None,
                     reproduce: dict[str, str] | None = None, writers: WritersMatrix | None = None) -> ResultsDocument:
    """`corpus`: where the expected data is (default: the run's corpus directory); `overhead`: skip overhead
    measured for this run's folder (app/overhead.py); `comparison`: new, known and fixed cells
    (reports/compare.py); `reproduce`: each adapter's options of `parquet-conformance read`; `writers`: the writer x
    reader matrix."""
    return ResultsDocument(format=RESULTS_FORMAT, results_version=RESULTS_VERSION, run=run, adapters=scores(cells),
                           cases=case_summaries(manifest, {c.case for c in cells}), cells=cells,
                           diffs=diffs(cells, manifest, corpus or Path(run.corpus)), overhead=overhead or [],
                           comparison=comparison, roles=roles(run.tracks), reproduce=reproduce or {}, writers=writers)


def case_summaries(manifest: Manifest, ran: set[str]) -> list[CaseSummary]:
    """The summaries of the manifest's cases that were run."""
    return [CaseSummary(id=c.id, track=c.track, title=c.title, group=c.group, kind=c.kind, expect=c.expect,
                        citations=c.citations, notes=c.notes, file=c.file, op=c.op,
                        expected_data=manifest.bases[c.base].expected if c.base in manifest.bases else "",
                        judged_on_file=sorted(c.expect_hash),
                        baseline=(manifest.bases[c.base].baseline_case or "") if c.base in manifest.bases else "")
            for c in manifest.cases if c.id in ran]


def roles(tracks: list[str]) -> dict[str, str]:
    """What a reader in each role of these tracks knows, in the tracks' own words (the reports' legend)."""
    out: dict[str, str] = {}
    for t in track.all_tracks():
        if t.name in tracks:
            out.update({role: str(text) for role, text in t.roles.items()})
    return out


def bare_cases(cells: list[Cell]) -> list[CaseSummary]:
    """Case summaries from the cells alone, for a run stored without its document's parts (written before they were
    kept): no titles, citations or notes."""
    by_case: dict[str, Cell] = {}
    expect: dict[str, dict[str, Expectation]] = {}
    for c in cells:
        by_case.setdefault(c.case, c)
        expect.setdefault(c.case, {})[c.role] = c.expected
    return [CaseSummary(id=case, track=c.track, title="", group=c.group, kind=c.kind, expect=expect[case],
                        citations=[], notes="(this run was stored without its cases' titles and citations)")
            for case, c in sorted(by_case.items())]


def stored_document(results: Path, run_id: str | None = None) -> ResultsDocument:
    """A run of a results dataset (default: its latest) as a document, from the dataset alone: its cells, its record
    and the parts kept beside them (never the corpus, which may have moved or changed since)."""
    run_id, cells = read_cells(results, run_id)
    record = read_record(results, run_id)
    info = record.info if record else RunInfo(run_id, "?", 0, "?", "", None, sorted({c.track for c in cells}), "")
    if info.corpus:  # recorded against the run's folder (a run recorded before that: where it is now found)
        info = replace(info, corpus=recorded_path(run_path(results, info.corpus), results.parent))
    parts = read_document_parts(results, run_id)
    if parts is not None:
        try:
            return ResultsDocument.from_parts(info, cells, parts)
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ResultsError(f"{results}: run {run_id}'s {DOCUMENT} is not a document's parts "
                               f"({type(e).__name__}: {str(e)[:200]})") from None
    return ResultsDocument(format=RESULTS_FORMAT, results_version=RESULTS_VERSION, run=info, adapters=scores(cells),
                           cases=bare_cases(cells), cells=cells)
