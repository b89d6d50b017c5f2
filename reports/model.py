"""What every report format renders: a run's judged cells with their cases and per-adapter scores
(results.json is this document as JSON; its JSON Schema is derived from these records)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cached_property
from typing import Any, Literal

from parquet_conformance.conformance.harness.model import Cell, OutcomeKind, Overhead, RunInfo, Verdict, WriterCell
from parquet_conformance.conformance.harness.protocol import refused_start
from parquet_conformance.corpus.model import LEVELS, Citation, Expectation, Kind
from parquet_conformance.kernel.documents import plain

RESULTS_FORMAT = "parquet-conformance-results"
# 8: the verdict `representation` (a library's documented form of the data), `representations` in cells,
#    `representation` in scores, `baseline` in cases;
# 7: `level` in cells, `levels` in scores; a failure's mark `new` only against a pass (flaky, skipped, not judged:
#    `unseen`); 6: `writers` (the writer x reader matrix);
# 5: `flaky` in scores (apart from `fail`), `comparison`, `roles`,
#    `reproduce`, the cases' files, `reused_from`, `fingerprint`, `case_sha256` in cells;
# 4: `overhead`; 3: `diffs`, `sample` in cells, `started` in run; 2: `track` in cells, cases...
RESULTS_VERSION = 8


@dataclass(frozen=True)
class LevelScore:
    """An adapter's judged cells of one level of expectation (must, should, policy): protobuf's conformance runner
    scores REQUIRED and RECOMMENDED tests apart."""

    passed: int = field(metadata={"json": "pass"})
    fail: int  # every failure of the level's cells: a crash counts where its cell's expectation is


@dataclass(frozen=True)
class AdapterScore:
    adapter: str
    implementation: str
    version: str | None
    track: str
    passed: int = field(metadata={"json": "pass"})
    fail: int
    flaky: int  # cells whose attempts disagree: counted apart, neither a pass nor a failure
    skip: int
    harness_errors: int  # cells our side could not judge: counted in no score
    total: int
    pass_rate: float | None  # pass / (pass + fail): flaky, skipped and harness-error cells are left out
    failures: dict[str, int]  # failing verdict -> count
    # level -> its cells' pass and fail, every level the adapter has cells of (docs/results.md#levels)
    levels: dict[str, LevelScore] = field(default_factory=dict)
    # cells whose data is the form its library documents (Verdict.REPRESENTATION): counted apart, neither a pass
    # nor a failure, outside the pass rate
    representation: int = 0

    def level_text(self) -> str:
        """"must 771/779 · should 12/14 · policy 40/46": passes of the judged cells of each level."""
        return " · ".join(f"{name} {s.passed}/{s.passed + s.fail}" for name, s in self.levels.items()) or "none judged"


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
    file: str = ""  # the case file, relative to the corpus root ("": a run stored before it was kept)
    expected_data: str = ""  # its base's expected data (canonical JSON), relative to the corpus root
    op: str = "read"  # what a reader is asked to do with the file (a track may define more)
    judged_on_file: list[str] = field(default_factory=list)  # roles judged on the file itself (no data diff)
    # the case that is its base unmodified (its base's baseline case; itself for that case; "": none, or a run stored
    # before it was kept): a reader's cell there is the same file without what the case changed
    baseline: str = ""

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> CaseSummary:
        return cls(id=str(obj["id"]), track=str(obj["track"]), title=str(obj["title"]), group=str(obj["group"]),
                   kind=Kind(obj["kind"]), expect={str(r): Expectation(w) for r, w in obj["expect"].items()},
                   citations=[Citation.from_json(c) for c in obj["citations"]], notes=str(obj["notes"]),
                   file=str(obj.get("file", "")), expected_data=str(obj.get("expected_data", "")),
                   op=str(obj.get("op", "read")), judged_on_file=[str(r) for r in obj.get("judged_on_file", [])],
                   baseline=str(obj.get("baseline", "")))


class Mark(StrEnum):
    """A cell against what the run is compared with (reports/compare.py): a previous run, or an expected-failure
    list read by the gate's rule (conformance/harness/gate.py decide)."""

    NEW = "new"  # fails, and passed before (or is not listed)
    KNOWN = "known"  # fails as before (or as listed)
    CHANGED = "changed"  # fails otherwise than before (or than the verdict pinned)
    FIXED = "fixed"  # passes, and failed before (or is listed)
    # fails, and the previous run has nothing to compare it with: no such cell (a case or an implementation added), or
    # one that was flaky, skipped or not judged there (`before` says which)
    UNSEEN = "unseen"


@dataclass(frozen=True)
class CellMark:
    case: str
    adapter: str
    role: str
    mark: Mark
    before: str | None  # the cell's verdict in the run compared with, or the verdict a list pins (None: none)

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> CellMark:
        before = obj.get("before")
        return cls(str(obj["case"]), str(obj["adapter"]), str(obj["role"]), Mark(obj["mark"]),
                   None if before is None else str(before))


@dataclass(frozen=True)
class Comparison:
    """What a run's failures are compared with, and each failing (or fixed) cell's mark."""

    kind: Literal["run", "expected-failures"]
    against: str  # the previous run's id, or the expected-failure list's file name(s)
    marks: list[CellMark]  # every failing cell's, and every fixed cell's; flaky cells have none (counted apart)

    @property
    def what(self) -> str:
        """In words, for a heading: "run r2", "the expected-failure list x.txt"."""
        return f"run {self.against}" if self.kind == "run" else f"the expected-failure list {self.against}"

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Comparison:
        kind = obj["kind"]
        if kind not in ("run", "expected-failures"):
            raise ValueError(f"comparison kind {kind!r}")
        return cls(kind, str(obj["against"]), [CellMark.from_json(m) for m in obj["marks"]])


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
    """The writer x reader matrix of a run (`run --writers`, app/writers.py): each writer's verdict on
    every file it was asked for, and every reader's cell on every written file, as written and with the spec's
    extensions added (a cell's case: written/WRITER/PROFILE/TABLE/VARIANT)."""

    corpus: str  # the written corpus (relative to the run's output folder, where the reports are)
    profiles: dict[str, str]  # profile -> what it asks of a writer
    writers: list[WriterCell]
    cases: list[CaseSummary]  # the written corpus's cases that were read
    files: dict[str, str]  # case id -> its file, relative to `corpus`
    cells: list[Cell]  # judged by the one judge against what each file holds
    regressions: list[str] = field(default_factory=list)  # kept in OUT/regressions (corpus add-regression --from)
    diffs: list[DataDiff] = field(default_factory=list)  # its wrong-data cells' data against what each file holds
    # variant -> what readers are given (the track's words, corpus/track.py Writable.written_variants), in order;
    # a document without them names each variant by its name
    variants: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> WritersMatrix:
        return cls(corpus=str(obj["corpus"]), profiles=dict(obj["profiles"]),
                   writers=[WriterCell.from_json(w) for w in obj["writers"]],
                   cases=[CaseSummary.from_json(c) for c in obj["cases"]], files=dict(obj["files"]),
                   cells=[Cell.from_row(c) for c in obj["cells"]], regressions=list(obj.get("regressions", [])),
                   diffs=[DataDiff.from_json(d) for d in obj.get("diffs", [])],
                   variants=dict(obj.get("variants", {})))

    def diff_of(self, cell: Cell) -> DataDiff | None:
        return next((d for d in self.diffs if (d.case, d.adapter, d.role) == (cell.case, cell.adapter, cell.role)),
                    None)


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
    comparison: Comparison | None = None  # new, known, fixed: against a previous run or an expected-failure list
    roles: dict[str, str] = field(default_factory=dict)  # role -> what a reader in it knows (the tracks' words)
    reproduce: dict[str, str] = field(default_factory=dict)  # adapter -> its options of `parquet-conformance read`
    writers: WritersMatrix | None = None  # the writer x reader matrix, when the run had one (`run --writers`)

    def diff_of(self, cell: Cell) -> DataDiff | None:
        return self._diffs.get((cell.case, cell.adapter, cell.role))

    def of_track(self, track: str) -> ResultsDocument:
        """The document of one track's adapters and cells (a track's own report format draws it)."""
        return replace(self, adapters=[a for a in self.adapters if a.track == track],
                       cells=[c for c in self.cells if c.track == track])

    def mark_of(self, cell: Cell) -> CellMark | None:
        return self._marks.get((cell.case, cell.adapter, cell.role))

    def case_of(self, case_id: str) -> CaseSummary | None:
        return self._cases.get(case_id)

    @cached_property
    def _diffs(self) -> dict[tuple[str, str, str], DataDiff]:
        return {(d.case, d.adapter, d.role): d for d in self.diffs}

    @cached_property
    def _marks(self) -> dict[tuple[str, str, str], CellMark]:
        return {(m.case, m.adapter, m.role): m for m in self.comparison.marks} if self.comparison else {}

    @cached_property
    def _cases(self) -> dict[str, CaseSummary]:
        return {c.id: c for c in self.cases}

    def to_json(self) -> dict[str, Any]:
        out = plain(self)
        out["adapters"] = [{("pass" if k == "passed" else k): v for k, v in a.items()} for a in out["adapters"]]
        for a in out["adapters"]:
            a["levels"] = {name: {"pass": n["passed"], "fail": n["fail"]} for name, n in a["levels"].items()}
        for case in [*out["cases"], *(out["writers"] or {}).get("cases", [])]:
            case["citations"] = [{k: v for k, v in c.items() if v is not None} for c in case["citations"]]
        if self.writers is not None:
            out["writers"]["writers"] = [w.to_json() for w in self.writers.writers]
        return out

    def parts(self) -> dict[str, Any]:
        """What a run keeps beside its cells (results/run=ID/_document.json), so that the document is rebuilt later
        from the results dataset alone: the cases' summaries, the data diffs, the skip overhead."""
        out = replace(self, adapters=[], cells=[]).to_json()  # not the cells: they are the dataset's rows
        return {k: out[k] for k in ("cases", "diffs", "overhead", "comparison", "roles", "reproduce", "writers")}

    @classmethod
    def from_parts(cls, run: RunInfo, cells: list[Cell], parts: dict[str, Any]) -> ResultsDocument:
        """A stored run's document: its record, its cells and the parts kept beside them. ValueError, KeyError or
        TypeError for parts that are not a document's."""
        return cls(format=RESULTS_FORMAT, results_version=RESULTS_VERSION, run=run, adapters=scores(cells),
                   cases=[CaseSummary.from_json(c) for c in parts["cases"]], cells=cells,
                   diffs=[DataDiff.from_json(d) for d in parts["diffs"]],
                   overhead=[Overhead.from_json(o) for o in parts["overhead"]],
                   comparison=Comparison.from_json(parts["comparison"]) if parts.get("comparison") else None,
                   roles={str(k): str(v) for k, v in parts.get("roles", {}).items()},
                   reproduce={str(k): str(v) for k, v in parts.get("reproduce", {}).items()},
                   writers=WritersMatrix.from_json(parts["writers"]) if parts.get("writers") else None)


def scores(cells: Iterable[Cell]) -> list[AdapterScore]:
    by_adapter: dict[str, list[Cell]] = {}
    for c in cells:
        by_adapter.setdefault(c.adapter, []).append(c)
    out = []
    for adapter, mine in by_adapter.items():
        verdicts = Counter(c.verdict for c in mine)
        fail = sum(n for v, n in verdicts.items() if v.is_failure)
        judged = verdicts[Verdict.PASS] + fail
        by_level = Counter((c.level, c.verdict == Verdict.PASS) for c in mine
                           if c.verdict == Verdict.PASS or c.verdict.is_failure)
        out.append(AdapterScore(
            adapter=adapter, implementation=mine[0].implementation, version=mine[0].version, track=mine[0].track,
            passed=verdicts[Verdict.PASS], fail=fail, flaky=verdicts[Verdict.FLAKY], skip=verdicts[Verdict.SKIP],
            harness_errors=verdicts[Verdict.HARNESS_ERROR], total=len(mine),
            pass_rate=round(verdicts[Verdict.PASS] / judged, 4) if judged else None,
            failures={str(k): v for k, v in sorted(verdicts.items()) if k.is_failure},
            levels={str(lv): LevelScore(by_level[lv, True], by_level[lv, False]) for lv in LEVELS
                    if by_level[lv, True] + by_level[lv, False]},
            representation=verdicts[Verdict.REPRESENTATION]))
    return out


def refused_starts(cells: Iterable[Cell]) -> dict[str, str]:
    """adapter -> why, for each adapter that was unavailable because its start answer was refused (a role outside the
    protocol's alphabet, one listed twice: harness/protocol.py refused_start): the run, summary.md and `check` say it,
    where a skip count alone would not."""
    out: dict[str, str] = {}
    for c in cells:
        if c.outcome == OutcomeKind.UNAVAILABLE and c.error_message and refused_start(c.error_message):
            out.setdefault(c.adapter, c.error_message)
    return out


def reuse(cells: Iterable[Cell]) -> tuple[int, dict[str, int]]:
    """(verdicts decided in this run, run -> verdicts reused from it): a cell whose inputs had not changed since an
    earlier run of the same results dataset rests on that run's attempts (harness/confirm.py reusable)."""
    cells = list(cells)
    reused = Counter(c.reused_from for c in cells if c.reused_from)
    return len(cells) - sum(reused.values()), dict(sorted(reused.items()))


def reuse_text(cells: Iterable[Cell]) -> str:
    """The same in words: "750 verdicts decided in this run, 14,589 reused from run R (...)"."""
    now, reused = reuse(cells)
    text = f"{now:,} {'verdict' if now == 1 else 'verdicts'} decided in this run"
    if reused:
        text += "".join(f", {n:,} reused from run {origin}" for origin, n in reused.items()) + \
            " (case bytes and implementation unchanged; --fresh decides every one again)"
    return text
