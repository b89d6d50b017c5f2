"""Error clusters: per implementation, its failing cells grouped by what went wrong, with the message normalised
(numbers, offsets, addresses, digests and paths stripped), so that 41 cells failing with "Corrupted data at
<offset>" read as one finding: `fastparquet: Corrupted data at N x 41`.

Signatures are the judge's (harness/judge.py normalise): fuzz findings are keyed the same way. A cell's message
is its error class and the first lines of its error (a crash keeps its stderr tail after the
first line); a wrong-data cell's is the columns that differ (its data diff), a flaky cell's its attempts.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from parquet_conformance.conformance.harness.judge import error_text, normalise
from parquet_conformance.conformance.harness.model import Cell, Verdict
from parquet_conformance.reports.model import ResultsDocument


@dataclass(frozen=True)
class Cluster:
    id: str  # "k-<adapter>-<n>": stable for one document, used in deep links
    adapter: str
    verdict: Verdict
    signature: str
    example: str  # one message of the cluster as it was
    cases: list[str]


def message(cell: Cell, doc: ResultsDocument) -> str:
    if cell.verdict == Verdict.FLAKY and cell.disagreement:
        return f"attempts disagree: {cell.disagreement}"
    if cell.verdict == Verdict.WRONG_DATA:
        diff = doc.diff_of(cell)
        if diff and diff.differing_columns:
            return f"returned other data in {', '.join(diff.differing_columns)}"
        return "returned other data" + (f" ({cell.rows} rows)" if cell.rows is not None else "")
    if cell.verdict == Verdict.ACCEPTED_INVALID:
        return f"read a file it must reject ({cell.rows} rows)"
    if cell.verdict == Verdict.WRONG_METADATA:
        return f"used the {cell.metadata} metadata"
    return error_text(cell.error_class, cell.error_message, str(cell.outcome))


def clusters(doc: ResultsDocument) -> list[Cluster]:
    """Every adapter's failing, flaky and unjudged (harness-error) cells in clusters, biggest first per adapter."""
    groups: dict[tuple[str, Verdict, str], list[tuple[Cell, str]]] = defaultdict(list)
    for cell in doc.cells:
        if cell.verdict.is_failure or cell.verdict in (Verdict.FLAKY, Verdict.HARNESS_ERROR):
            text = message(cell, doc)
            groups[(cell.adapter, cell.verdict, normalise(text))].append((cell, text))
    order = {a.adapter: i for i, a in enumerate(doc.adapters)}
    ranked = sorted(groups.items(), key=lambda kv: (order.get(kv[0][0], len(order)), -len(kv[1]), kv[0][1], kv[0][2]))
    out: list[Cluster] = []
    counter: dict[str, int] = defaultdict(int)
    for (adapter, verdict, signature), members in ranked:
        counter[adapter] += 1
        out.append(Cluster(id=f"k-{adapter}-{counter[adapter]}", adapter=adapter, verdict=verdict, signature=signature,
                           example=members[0][1], cases=sorted({c.case for c, _ in members})))
    return out
