"""What every report format renders: a run's judged cells with their cases and per-adapter scores
(results.json is this document as JSON; its JSON Schema is derived from these records)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any

from parquet_conformance.conformance.harness.model import Cell, Overhead, RunInfo, Verdict, WriterCell
from parquet_conformance.corpus.model import Citation, Expectation, Kind

RESULTS_FORMAT = "parquet-conformance-results"
RESULTS_VERSION = 5  # 5: `writers`; 4: `overhead`; 3: `diffs`, `sample`, `started`; 2: `track` in cells, cases...


@dataclass(frozen=True)
class AdapterScore:
    adapter: str
    implementation: str
    version: str | None
    track: str
    passed: int = field(metadata={"json": "pass"})
    fail: int
    skip: int
    harness_errors: int  # cells our side could not judge: counted in no score
    total: int
    pass_rate: float | None  # pass / (cells judged: neither skipped nor harness errors)
    failures: dict[str, int]  # failing verdict -> count


@dataclass(frozen=True)
class CaseSummary:
    id: str
    track: str
    title: str
    group: str
    kind: Kind
    expect: dict[str, Expectation]
    citations: list[Citation]
    notes: str

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> CaseSummary:
        return cls(id=str(obj["id"]), track=str(obj["track"]), title=str(obj["title"]), group=str(obj["group"]),
                   kind=Kind(obj["kind"]), expect={str(r): Expectation(w) for r, w in obj["expect"].items()},
                   citations=[Citation.from_json(c) for c in obj["citations"]], notes=str(obj["notes"]))


@dataclass(frozen=True)
class RowDiff:
    row: int  # its index in the data (0-based)
    columns: list[str]  # the columns that differ in it
    expected: list[str]  # each column's expected value, as JSON text (shortened); empty: not at hand
    returned: list[str]  # each column's returned value; "(no row)" where the row is missing on one side

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> RowDiff:
        return cls(int(obj["row"]), [str(c) for c in obj["columns"]], [str(v) for v in obj["expected"]],
                   [str(v) for v in obj["returned"]])


@dataclass(frozen=True)
class DataDiff:
    """How a wrong-data (or flaky) cell's returned data differs from the expected data (reports/datadiff.py)."""

    case: str
    adapter: str
    role: str
    expected_rows: int | None  # None: the expected data was not at hand
    returned_rows: int
    expected_columns: list[str]
    returned_columns: list[str]
    differing_columns: list[str]  # columns whose values differ in some row (digests over every row)
    rows: list[RowDiff]  # the first differing rows among those sampled
    note: str  # what the sample cannot show, or how the cell was judged

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> DataDiff:
        return cls(**{**obj, "rows": [RowDiff.from_json(r) for r in obj["rows"]]})


@dataclass(frozen=True)
class WritersMatrix:
    """The writer x reader matrix of a run (`run --writers`, conformance/app/writers.py): each writer's verdict on
    every file it was asked for, and every reader's cell on every written file, as written and with the spec's
    extensions added (a cell's case: written/WRITER/PROFILE/TABLE/VARIANT)."""

    corpus: str  # the written corpus (relative to the run's output folder, where the reports are)
    profiles: dict[str, str]  # profile -> what it asks of a writer
    writers: list[WriterCell]
    cases: list[CaseSummary]  # the written corpus's cases that were read
    files: dict[str, str]  # case id -> its file, relative to `corpus`
    cells: list[Cell]  # judged by the one judge against what each file holds
    regressions: list[str] = field(default_factory=list)  # kept in OUT/regressions (corpus add-regression --from)

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> WritersMatrix:
        return cls(corpus=str(obj["corpus"]), profiles=dict(obj["profiles"]),
                   writers=[WriterCell.from_json(w) for w in obj["writers"]],
                   cases=[CaseSummary.from_json(c) for c in obj["cases"]], files=dict(obj["files"]),
                   cells=[Cell.from_row(c) for c in obj["cells"]], regressions=list(obj.get("regressions", [])))


@dataclass(frozen=True)
class ResultsDocument:
    format: str
    results_version: int
    run: RunInfo
    adapters: list[AdapterScore]
    cases: list[CaseSummary]
    cells: list[Cell]
    diffs: list[DataDiff] = field(default_factory=list)
    overhead: list[Overhead] = field(default_factory=list)  # skip overhead (bench/skip_overhead.py), when measured
    writers: WritersMatrix | None = None  # the writer x reader matrix, when the run had one (`run --writers`)

    def diff_of(self, cell: Cell) -> DataDiff | None:
        return self._diffs.get((cell.case, cell.adapter, cell.role))

    @cached_property
    def _diffs(self) -> dict[tuple[str, str, str], DataDiff]:
        return {(d.case, d.adapter, d.role): d for d in self.diffs}

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["adapters"] = [{("pass" if k == "passed" else k): v for k, v in a.items()} for a in out["adapters"]]
        for case in [*out["cases"], *(out["writers"] or {}).get("cases", [])]:
            case["citations"] = [{k: v for k, v in c.items() if v is not None} for c in case["citations"]]
        if self.writers is not None:
            out["writers"]["writers"] = [w.to_json() for w in self.writers.writers]
        return out

    def parts(self) -> dict[str, Any]:
        """What a run keeps beside its cells (results/run=ID/_document.json), so that the document is rebuilt later
        from the results dataset alone: the cases' summaries, the data diffs, the skip overhead."""
        out = self.to_json()
        return {k: out[k] for k in ("cases", "diffs", "overhead", "writers")}

    @classmethod
    def from_parts(cls, run: RunInfo, cells: list[Cell], parts: dict[str, Any]) -> ResultsDocument:
        """A stored run's document: its record, its cells and the parts kept beside them. ValueError, KeyError or
        TypeError for parts that are not a document's."""
        return cls(format=RESULTS_FORMAT, results_version=RESULTS_VERSION, run=run, adapters=scores(cells),
                   cases=[CaseSummary.from_json(c) for c in parts["cases"]], cells=cells,
                   diffs=[DataDiff.from_json(d) for d in parts["diffs"]],
                   overhead=[Overhead.from_json(o) for o in parts["overhead"]],
                   writers=WritersMatrix.from_json(parts["writers"]) if parts.get("writers") else None)


def scores(cells: Iterable[Cell]) -> list[AdapterScore]:
    by_adapter: dict[str, list[Cell]] = {}
    for c in cells:
        by_adapter.setdefault(c.adapter, []).append(c)
    out = []
    for adapter, mine in by_adapter.items():
        verdicts = Counter(c.verdict for c in mine)
        judged = sum(n for v, n in verdicts.items() if v.judged)
        out.append(AdapterScore(
            adapter=adapter, implementation=mine[0].implementation, version=mine[0].version, track=mine[0].track,
            passed=verdicts[Verdict.PASS], fail=judged - verdicts[Verdict.PASS], skip=verdicts[Verdict.SKIP],
            harness_errors=verdicts[Verdict.HARNESS_ERROR], total=len(mine),
            pass_rate=round(verdicts[Verdict.PASS] / judged, 4) if judged else None,
            failures={str(k): v for k, v in sorted(verdicts.items()) if k.is_failure}))
    return out
