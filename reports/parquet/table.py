"""apache/parquet-site's implementation-status table from a run's evidence: per adapter and site feature id, a status
of the site's legend (`full`, `read`, `write`, `none`) resting only on the cases that isolate the feature
(corpus/parquet/catalog/features.py `isolating`, the one map; docs/manifest.md#features draws it) and on the writer
grid (`run --writers`). docs/results.md#parquet-site says why each rule is what it is.

Reading, per isolating case of the feature (the adapter's cells in the data role):
- `reads` and `operation`: a read of the right data (or of the form its library documents) supports the feature; a
  failure counts against it only where it isolates the feature: the same file without the feature (the case's base
  unmodified) is read right by that reader, or the case is a features-family file that is its own base (written with
  nothing else a reader could lack). A codec case expects `either`: a clean refusal passes the cell, yet it is no
  read, so an isolated refusal counts against the codec;
- `tolerates`: only an isolated failure speaks (against); a read shows nothing;
- `legacy` (a backward-compatibility form resting on a should): a read supports the feature, a failure never counts
  against it (the note names the forms that fail);
- `everywhere` (a reference file of the encodings, for what every such file has: PLAIN, v1 pages, no compression): a
  read supports the feature; a failure is its types' (their own files judge them), never the feature's `none`;
- `unchecked` (a parquet-testing file whose data we cannot state): nothing.
A skipped, harness-error or flaky cell decides nothing; a feature with a flaky deciding cell is not judged.

Writing: the adapter as a writer wrote a file that holds the feature (WriterCell.features), the writer's cell passes
(the strict decoder accepts the file, its data read back is the table's), and a reader whose reading of the feature
is supported reads that file right. Writing is never judged absent: a feature no file shows is "not shown".

Status: reads and writes: `full`; reads: `read`; writes, and reading fails: `write`; reading fails: `none`; reading
undecided: not judged (left out, listed with the reason)."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from parquet_conformance.conformance.harness.model import Cell, OutcomeKind, Verdict, WriterCell, WriterVerdict
from parquet_conformance.corpus.model import Expectation
from parquet_conformance.corpus.parquet.catalog.features import LEFT_OUT, Isolating, isolating
from parquet_conformance.corpus.parquet.site import site_data
from parquet_conformance.reports.model import ResultsDocument
from parquet_conformance.reports.text import registered_name

ROLE = "legacy"  # the data role: what the site's tables speak of
READS = (Verdict.PASS, Verdict.REPRESENTATION)  # the data, or the form its library documents
NOTE_CASES = 3  # cases named per kind in a note

# The adapter that calls each site engine's own reader speaks for it; others that parse with the same engine are
# listed under it as "through" (docs/adapters.md#forks-that-add-nothing-independent).
SPEAKS = {"pyarrow": "arrow", "parquet-java": "parquet-java", "datafusion": "arrow-rs", "duckdb": "duckdb",
          "polars": "polars", "hyparquet": "hyparquet"}
THROUGH = {"spark": "parquet-java", "parquet-wasm": "arrow-rs", "daft": "arrow-rs", "clickhouse-v1": "clickhouse",
           "clickhouse-v3": "clickhouse"}
NO_TABLE = {"reference"}  # our own reader: no engine of the site's, and no table of its own


@cache
def site_ids() -> tuple[str, ...]:
    """The site's reader-side feature ids: every id of its feature files but the API features, and the ids only its
    newer support files name (encoding-alp, logical-file), in the site's order."""
    data = site_data()
    ids = [f.id for f in data.features if f.category != "api-features"]
    newer = sorted({i for table in data.unlisted().values() for i in table if not i.startswith("api-")})
    return (*ids, *newer)


@cache
def feature_cases() -> dict[str, tuple[Isolating, ...]]:
    """feature id -> the cases that isolate it (the one map)."""
    out: dict[str, list[Isolating]] = {}
    for entry in isolating():
        out.setdefault(entry.feature, []).append(entry)
    return {k: tuple(v) for k, v in out.items()}


def engine_of(registered: str) -> tuple[str, bool]:
    """(the site's engine id, or the adapter's own name; whether the adapter speaks for it)."""
    if registered in SPEAKS:
        return SPEAKS[registered], True
    if registered in THROUGH:
        return THROUGH[registered], False
    return registered, True


@dataclass(frozen=True)
class Status:
    """One feature of one adapter's table: `status` None where reading is not judged (`note` says why)."""

    feature: str
    status: str | None
    note: str
    reads: bool | None
    writes: str | None  # the written case that shows it (None: not shown)
    cells: tuple[Cell, ...] = ()  # the cells the reading rests on (those that decided it)


@dataclass
class _Reading:
    support: list[Cell] = field(default_factory=list)
    against: list[tuple[Cell, str]] = field(default_factory=list)  # with what the cell shows, in words
    legacy_failed: list[Cell] = field(default_factory=list)
    unisolated: list[Cell] = field(default_factory=list)
    unjudged: list[Cell] = field(default_factory=list)
    flaky: list[Cell] = field(default_factory=list)
    type_bound: list[Cell] = field(default_factory=list)  # reference files failed: their types', not the feature's


def _matches(case: str, glob: str) -> bool:
    return case == glob or ("*" in glob and fnmatch.fnmatchcase(case, glob))


def _isolated(cell: Cell, reads_right: set[str], baselines: Mapping[str, str]) -> bool:
    """Whether a failure of this cell is its feature's: the same file without the feature was read right by the
    same reader, or the case is a features-family file that is its own base (nothing else a reader could lack)."""
    baseline = baselines.get(cell.case, "")
    if baseline == cell.case:
        return cell.case.startswith("features/")
    return bool(baseline) and baseline in reads_right


def _reading(entries: Sequence[Isolating], cells: Sequence[Cell], baselines: Mapping[str, str]) -> _Reading:
    reads_right = {c.case for c in cells if c.verdict in READS and c.outcome == OutcomeKind.READ}
    out = _Reading()
    for entry in entries:
        for cell in (c for c in cells if _matches(c.case, entry.case)):
            if entry.how == "unchecked":
                continue
            if not cell.verdict.judged:
                out.unjudged.append(cell)
                continue
            if cell.verdict == Verdict.FLAKY:
                out.flaky.append(cell)
                continue
            passed = cell.verdict in READS
            read = passed and cell.outcome == OutcomeKind.READ
            refused = passed and cell.outcome != OutcomeKind.READ  # a pass without a read: an `either` or a `reject`
            if entry.how == "legacy":
                (out.support if read else out.legacy_failed).append(cell)
            elif entry.how == "everywhere":
                (out.support if read else out.type_bound).append(cell)
            elif entry.how == "tolerates":
                if cell.verdict.is_failure and _isolated(cell, reads_right, baselines):
                    out.against.append((cell, cell.verdict.value.removeprefix("fail:")))
            elif read or (refused and cell.expected == Expectation.REJECT):
                out.support.append(cell)  # a read, or a refusal asked for (verified checksums that do not match)
            elif refused or cell.verdict.is_failure:
                if not _isolated(cell, reads_right, baselines):
                    out.unisolated.append(cell)
                elif refused:
                    out.against.append((cell, "refuses it cleanly (its case expects either)"))
                else:
                    out.against.append((cell, cell.verdict.value.removeprefix("fail:")))
    return out


def _cases(cells: Iterable[Cell]) -> str:
    names = list(dict.fromkeys(c.case for c in cells))
    more = f" and {len(names) - NOTE_CASES} more" if len(names) > NOTE_CASES else ""
    return ", ".join(names[:NOTE_CASES]) + more


@dataclass(frozen=True)
class Written:
    """A written file that shows a writer writes a feature: the writer's cell and a reader that reads it right."""

    case: str
    reader: str


def writing(feature: str, writer_cells: Sequence[WriterCell], reading_right: Mapping[str, set[str]],
            supported_by: set[str]) -> Written | None:
    """The first file the writer wrote holding the feature, accepted by the strict decoder with its data, that a
    reader supporting the feature (`supported_by`) reads right (`reading_right`: adapter -> written cases it reads
    right)."""
    for w in writer_cells:
        if w.verdict != WriterVerdict.PASS or feature not in w.features or not w.cases:
            continue
        for reader in sorted(supported_by):
            if w.cases[0] in reading_right.get(reader, set()):
                return Written(w.cases[0], reader)
    return None


def status_of(feature: str, cells: Sequence[Cell], baselines: Mapping[str, str],
              written: Written | None = None) -> Status:
    """The site's status of one feature from one adapter's cells (its data role) and what its writer wrote."""
    entries = feature_cases().get(feature, ())
    if not entries:
        reason = LEFT_OUT.get(feature, "no case of ours isolates it")
        return Status(feature, None, f"not judged: {reason}", None, None)
    r = _reading(entries, cells, baselines)
    writes = f"writes it ({written.case}, read back right by {written.reader})" if written else None
    if r.flaky:
        return Status(feature, None, f"not judged: flaky on {_cases(r.flaky)}", None, None, tuple(r.flaky))
    parts: list[str] = []
    if r.against:
        reads: bool | None = False
        shown: dict[str, list[Cell]] = {}
        for cell, what in r.against:
            shown.setdefault(what, []).append(cell)
        parts += [f"{what.replace('-', ' ') if ' ' not in what else what}: {_cases(cs)}" for what, cs in shown.items()]
        parts.append("and reads the same file without the feature" if len(r.against) == 1 else
                     "and reads the same files without the feature")
        if r.support:  # what it does read of the feature, said beside what it fails
            parts.append(f"reads {_cases(r.support)}")
        deciding: tuple[Cell, ...] = tuple(c for c, _ in r.against)
    elif r.support:
        reads = True
        forms = sorted({f for c in r.support for f in c.representations})
        documented = f", in the form its library documents ({', '.join(forms)})" if forms else ""
        parts.append(f"reads {_cases(r.support)}{documented}")
        deciding = tuple(r.support)
    else:
        reads, deciding = None, ()
    if r.legacy_failed:
        parts.append("legacy forms it fails (a should: no `none`): "
                     + ", ".join(f"{c.case.rsplit('/', 1)[-1]} ({c.verdict.value.removeprefix('fail:')})"
                                 for c in r.legacy_failed[:NOTE_CASES]))
    if reads is None:
        why = ("its failures are not isolated: the same file without the feature is not read right either "
               f"({_cases(r.unisolated)})" if r.unisolated else
               "the reference files it fails are judged under their types, not this feature (physical-*: "
               f"{_cases(r.type_bound)})" if r.type_bound else
               f"no deciding cell ({_cases(r.unjudged)} skipped or not judged)" if r.unjudged else
               "a read of its cases does not use the feature (only a failure would speak)" if cells else
               "none of its cases was run")
        return Status(feature, None, f"not judged: {why}", None, None)
    status = ("full" if writes else "read") if reads else ("write" if writes else "none")
    parts.append(writes or "writing: not shown by the writer grid")
    return Status(feature, status, "parquet-conformance: " + "; ".join(parts), reads, written.case if written else None,
                  deciding)


@dataclass(frozen=True)
class Table:
    """One adapter's table: its site engine, version, and every site feature id's status."""

    adapter: str
    registered: str
    engine: str
    speaks: bool  # the adapter that calls the engine's own reader (False: it reads through the engine)
    implementation: str
    version: str
    statuses: tuple[Status, ...]

    @property
    def judged(self) -> list[Status]:
        return [s for s in self.statuses if s.status is not None]

    def get(self, feature: str) -> Status:
        return next(s for s in self.statuses if s.feature == feature)


ENGINE_VERSION = re.compile(r"\[(?:arrow-rs(?: parquet)?|parquet-java) (\d+(?:\.\d+)+)\b")


def engine_version(registered: str, implementation: str, version: str) -> str:
    """The version of the engine a row speaks for: the library's own, or where the adapter reaches the engine
    through another package (DataFusion's arrow-rs), the engine's as the worker reads it from the build
    ("arrow-rs (via DataFusion) [arrow-rs parquet 59.3.0]"); "" where that is not known."""
    if registered in ("datafusion", "parquet-wasm", "daft", "spark"):
        m = ENGINE_VERSION.search(implementation)
        return m.group(1) if m else ""
    return version


def tables(doc: ResultsDocument) -> list[Table]:
    """Every data-reading adapter's table of a run (the Parquet track's; our reference and metadata-only readers
    have none)."""
    baselines = {c.id: c.baseline for c in doc.cases if c.baseline}
    by_adapter: dict[str, list[Cell]] = {}
    for c in doc.cells:
        if c.track == "parquet":
            by_adapter.setdefault(c.adapter, []).append(c)
    data_cells = {a: [c for c in cs if c.role == ROLE] for a, cs in by_adapter.items()}
    # reading first (the writer evidence needs every reader's), then writing
    reading = {a: {f: status_of(f, cs, baselines) for f in site_ids()} for a, cs in data_cells.items() if cs}
    written_right: dict[str, set[str]] = {}
    writers: dict[str, list[WriterCell]] = {}
    if doc.writers is not None:
        for c in doc.writers.cells:
            if c.verdict == Verdict.PASS and c.role == ROLE:
                written_right.setdefault(c.adapter, set()).add(c.case)
        for w in doc.writers.writers:
            writers.setdefault(w.writer, []).append(w)
    out = []
    for score in doc.adapters:
        if score.track != "parquet" or score.adapter not in reading:
            continue
        registered = registered_name(doc, score.adapter, score.version)
        if registered in NO_TABLE:
            continue
        engine, speaks = engine_of(registered)
        statuses = []
        for feature in site_ids():
            found = None
            if score.adapter in writers:
                supported = {a for a, fs in reading.items() if fs[feature].reads}
                found = writing(feature, writers[score.adapter], written_right, supported)
            statuses.append(status_of(feature, data_cells[score.adapter], baselines, found) if found
                            else reading[score.adapter][feature])
        out.append(Table(score.adapter, registered, engine, speaks, score.implementation,
                         engine_version(registered, score.implementation, score.version or ""), tuple(statuses)))
    return out
