"""The harness's records, defined once: an outcome (what happened when an implementation met a
file), a verdict (that outcome judged against the case's expectation) and the rows that carry
them through staging, the results dataset, results.json and the reports.

`Outcome` is a closed sum, as protobuf's conformance.proto makes its result a `oneof`: every
place that handles one matches on the variant, and a new variant is a type error until each
place handles it. Rows are flat (`OutcomeRow`, `Cell`) so that Spark and Parquet can carry them;
the Arrow schemas of staging and results, and the JSON Schema of results.json, are derived from
their fields (conformance/harness/derived.py).
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from enum import StrEnum
from typing import Any, ClassVar, Self

from parquet_conformance.corpus.model import NAME, Expectation, Kind, Level, WriterFinding
from parquet_conformance.kernel.documents import plain

# When a run started: ISO 8601 with its offset, as the run job writes it (2026-11-01T09:00:00+00:00).
STARTED = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2})?$"


class OutcomeKind(StrEnum):
    READ = "read"  # the implementation returned data
    REJECTED = "rejected"  # it refused the file with an error, as it would tell a user
    CRASH = "crash"  # it died: a signal, an abort, an exit, a stack overflow
    UNHANDLED = "unhandled-error"  # it lost control and its runtime caught it: an error it does not raise on purpose
    TIMEOUT = "timeout"  # no answer in time (the worker was killed)
    OOM = "oom"  # it ran out of memory
    UNAVAILABLE = "unavailable"  # its runtime is missing here
    HARNESS_ERROR = "harness-error"  # our code failed (canonicalisation, the protocol, storage): never the reader's


@dataclass(frozen=True)
class Error:
    cls: str | None
    message: str


@dataclass(frozen=True)
class Read:
    data_hash: str  # sha256 of the canonical data it returned
    rows: int
    metadata: str | None = None  # which metadata form an aware reader says it used (corpus/track.py MetadataForms)
    sample: str | None = None  # a bounded sample of the data (conformance/harness/sample.py): what a data diff shows
    kind: ClassVar[OutcomeKind] = OutcomeKind.READ


@dataclass(frozen=True)
class Rejected:
    error: Error
    kind: ClassVar[OutcomeKind] = OutcomeKind.REJECTED


@dataclass(frozen=True)
class Crash:
    error: Error
    kind: ClassVar[OutcomeKind] = OutcomeKind.CRASH


@dataclass(frozen=True)
class Unhandled:
    """An error outside the library's declared refusals (docs/adapters.md#error-taxonomy): a null dereference, a type,
    index or key error, a panic caught at a binding, an assertion."""

    error: Error
    kind: ClassVar[OutcomeKind] = OutcomeKind.UNHANDLED


@dataclass(frozen=True)
class Timeout:
    after_s: float
    kind: ClassVar[OutcomeKind] = OutcomeKind.TIMEOUT


@dataclass(frozen=True)
class OutOfMemory:
    error: Error
    kind: ClassVar[OutcomeKind] = OutcomeKind.OOM


@dataclass(frozen=True)
class Unavailable:
    reason: str
    kind: ClassVar[OutcomeKind] = OutcomeKind.UNAVAILABLE


@dataclass(frozen=True)
class HarnessError:
    error: Error
    kind: ClassVar[OutcomeKind] = OutcomeKind.HARNESS_ERROR


Outcome = Read | Rejected | Crash | Unhandled | Timeout | OutOfMemory | Unavailable | HarnessError


@dataclass(frozen=True)
class Wrote:
    """A writer's success (conformance/harness/writing.py): the file is where it was asked to be. Not an Outcome: a
    write is judged on the file (Judge.writer_cell), a failure to write is one of the Outcome's error variants."""

    writer: str | None = None  # the library and version that wrote, when not the worker's own


class Verdict(StrEnum):
    PASS = "pass"
    WRONG_DATA = "fail:wrong-data"  # the worst: a reader returned other data
    CRASH = "fail:crash"  # a crash or running out of memory
    UNHANDLED = "fail:unhandled-error"  # an unhandled error, whatever the expectation: neither a read nor a refusal
    HANG = "fail:hang"
    REJECTED_VALID = "fail:rejected-valid"
    ACCEPTED_INVALID = "fail:accepted-invalid"
    WRONG_METADATA = "fail:wrong-metadata"  # an aware reader used the metadata the case's `decode` forbids
    FLAKY = "flaky"  # some attempts at the cell (a fresh worker, --repeat rounds) passed and some failed
    # The data in a form its library documents (fastparquet's NaN for a null float: conformance/adapters/
    # representations.py), not the expected data: counted apart, neither a pass nor a failure
    REPRESENTATION = "representation"
    SKIP = "skip"  # the implementation is unavailable here
    HARNESS_ERROR = "harness-error"  # our side failed: the cell says nothing about the implementation

    @property
    def is_failure(self) -> bool:
        """A failure of the implementation under test: what an expected-failure list pins. Neither a harness error
        nor a flaky cell is one: a flaky cell's attempts disagree, so it is counted apart (docs/ci-gate.md)."""
        return self.value.startswith("fail:")

    @property
    def weighed(self) -> bool:
        """A failure the expectation's level weighs: the choice between reading and refusing (and, for an aware
        reader, which metadata form it read). A crash, a hang, an unhandled error or other data fails at every level."""
        return self in (Verdict.REJECTED_VALID, Verdict.ACCEPTED_INVALID, Verdict.WRONG_METADATA)

    @property
    def severity(self) -> int:
        """Its place in WORST_FIRST (0: the worst); a verdict not named there right after the named failures."""
        if self in WORST_FIRST:
            return WORST_FIRST.index(self)
        return WORST_FIRST.index(Verdict.WRONG_METADATA) if self.is_failure else len(WORST_FIRST)

    @property
    def judged(self) -> bool:
        """Whether the cell says anything about the implementation."""
        return self not in (Verdict.SKIP, Verdict.HARNESS_ERROR)


# Worst first: the verdict a cell whose attempts all failed takes (judge.py), which of a (case, adapter)'s roles a
# report shows, and the order of lists.
WORST_FIRST = (Verdict.WRONG_DATA, Verdict.CRASH, Verdict.UNHANDLED, Verdict.HANG, Verdict.ACCEPTED_INVALID,
               Verdict.REJECTED_VALID, Verdict.WRONG_METADATA, Verdict.FLAKY, Verdict.REPRESENTATION,
               Verdict.HARNESS_ERROR, Verdict.PASS, Verdict.SKIP)


@dataclass(frozen=True)
class OutcomeRow:
    """One attempt of one adapter on one case, before judging: what executors produce and staging keeps.
    Round 0 is the run's pass through the corpus (persistent workers), rounds 1.. are `--repeat` passes;
    `confirming` attempts are the confirmation pass (a new worker process per adapter reading its non-pass cells in
    shuffled order: a history unlike the run's), and `fresh` ones are single cells in a process that read nothing
    before (where a confirmation disagreed with the run). `reused_from`: the attempt was not made in this run but
    replayed from that earlier run, whose inputs were the same (docs/results.md)."""

    case: str
    adapter: str
    implementation: str
    version: str | None
    roles: list[str]
    outcome: OutcomeKind
    error_class: str | None
    error_message: str | None
    rows: int | None
    data_hash: str | None
    metadata: str | None
    duration_s: float
    round: int = 0
    fresh: bool = False
    previous_case: str | None = None  # what the same worker process read just before (None: a fresh process)
    # A timeout under the adapter's adaptive limit, shorter than its own: not a verdict until a fresh worker with
    # the full limit has re-run the cell (reading.Pace).
    cut_short: bool = False
    library_s: float | None = None  # of duration_s, what the worker says the library's own call took
    sample: str | None = None  # for a read: a bounded sample of the data returned (conformance/harness/sample.py)
    confirming: bool = False
    reused_from: str | None = None
    # What the adapter's answers depend on, known before its worker starts (Adapter.fingerprint: the library's
    # version, our code), and the case's sha256: a later run reuses an attempt only when both are the same.
    fingerprint: str | None = None
    case_sha256: str | None = None

    @classmethod
    def of(cls, case: str, adapter: str, implementation: str, version: str | None, roles: list[str],
           outcome: Outcome, duration_s: float, *, round: int = 0, fresh: bool = False,
           previous_case: str | None = None, cut_short: bool = False, library_s: float | None = None,
           confirming: bool = False, fingerprint: str | None = None, case_sha256: str | None = None) -> Self:
        return cls(case=case, adapter=adapter, implementation=implementation, version=version, roles=list(roles),
                   duration_s=duration_s, round=round, fresh=fresh, previous_case=previous_case,
                   cut_short=cut_short, library_s=library_s, confirming=confirming, fingerprint=fingerprint,
                   case_sha256=case_sha256, **outcome_fields(outcome))

    @property
    def settled(self) -> bool:
        """An attempt that counts as a confirmation already: a confirming or fresh attempt, or the first read of a
        new worker process under the full limit (no history could have changed it)."""
        return self.fresh or self.confirming or (self.previous_case is None and not self.cut_short)

    @property
    def key(self) -> tuple[str, str, int, bool, bool]:
        return self.case, self.adapter, self.round, self.fresh, self.confirming

    @property
    def typed(self) -> Outcome:
        return outcome_from_fields(self.outcome, self.error_class, self.error_message, self.rows, self.data_hash,
                                   self.metadata, self.sample)

    def to_row(self) -> dict[str, Any]:
        return plain(self)

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Self:
        return cls(**_present(cls, row) | {"outcome": OutcomeKind(row["outcome"])})


@dataclass(frozen=True)
class Cell:
    """A judged cell: (case, adapter, role) with its expectation and verdict. A row of the results dataset,
    an element of results.json's `cells`, a line of every report."""

    case: str
    track: str
    group: str
    kind: Kind
    adapter: str
    implementation: str
    version: str | None
    role: str
    expected: Expectation
    outcome: OutcomeKind
    verdict: Verdict
    error_class: str | None
    error_message: str | None
    rows: int | None
    data_hash: str | None
    duration_s: float
    metadata: str | None
    attempts: int  # outcomes judged for this cell: the run's, its --repeat rounds and its fresh-worker confirmation
    previous_case: str | None  # what the worker read just before the attempt shown (None: a fresh process)
    # Where the attempts disagreed, each one's outcome and verdict: a flaky cell (some passed, some failed), or one
    # whose attempts all failed (or all passed) in different ways; None where they agreed.
    disagreement: str | None
    sample: str | None = None  # for a wrong-data or flaky read: a bounded sample of the data returned
    # The run whose attempts this cell's verdict rests on when they were reused, not made in this run (its inputs
    # were the same: case bytes, adapter fingerprint); None: measured in this run.
    reused_from: str | None = None
    fingerprint: str | None = None  # the adapter's, as its attempts were made (OutcomeRow.fingerprint)
    case_sha256: str | None = None
    # The force of the expectation (corpus/model.py Level): it weighs a read-versus-refuse failure (Verdict.weighed)
    # in the gate and the scores. A cell stored before levels existed was judged as a must.
    level: Level = Level.MUST
    # For a `representation` cell: the documented representations (generators/representations.py) that make the
    # expected data into the data it returned; empty for every other verdict.
    representations: list[str] = field(default_factory=list)

    @property
    def typed(self) -> Outcome:
        return outcome_from_fields(self.outcome, self.error_class, self.error_message, self.rows, self.data_hash,
                                   self.metadata, self.sample)

    def to_row(self) -> dict[str, Any]:
        return plain(self)

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Self:
        row = _present(cls, row)
        return cls(**row | {"kind": Kind(row["kind"]), "expected": Expectation(row["expected"]),
                            "outcome": OutcomeKind(row["outcome"]), "verdict": Verdict(row["verdict"]),
                            "level": Level(row.get("level") or Level.MUST)})


@dataclass(frozen=True)
class RunInfo:
    """What a run was: kept beside its cells in the results dataset and at the top of every report."""

    id: str = field(metadata={"schema": NAME})
    generator_version: str
    seed: int
    master: str
    corpus: str
    only: str | None
    tracks: list[str] = field(metadata={"schema": {"items": NAME}})
    # sha256 of the corpus's manifest.json, as its SHA256SUMS records it
    corpus_digest: str = field(metadata={"schema": {"pattern": "^([0-9a-f]{64})?$"}})
    # UTC, ISO 8601: orders runs in a history (runs recorded before it have none)
    started: str | None = field(default=None, metadata={"schema": {"pattern": STARTED}})


def _present(cls: type, row: dict[str, Any]) -> dict[str, Any]:
    """A row's values for the record's fields; a field with a default may be absent (rows written before it)."""
    return {f.name: row[f.name] for f in fields(cls)
            if f.name in row or (f.default is MISSING and f.default_factory is MISSING)}


def outcome_fields(outcome: Outcome) -> dict[str, Any]:
    """The flat columns of an outcome (those of OutcomeRow and Cell)."""
    out: dict[str, Any] = {"outcome": outcome.kind, "error_class": None, "error_message": None, "rows": None,
                           "data_hash": None, "metadata": None, "sample": None}
    match outcome:
        case Read(data_hash=h, rows=n, metadata=m, sample=s):
            out.update(data_hash=h, rows=n, metadata=m, sample=s)
        case Rejected(error=e) | Crash(error=e) | Unhandled(error=e) | OutOfMemory(error=e) | HarnessError(error=e):
            out.update(error_class=e.cls, error_message=e.message)
        case Timeout(after_s=s):
            out.update(error_message=f"no answer within {s:g}s")
        case Unavailable(reason=r):
            out.update(error_message=r)
    return out


def outcome_from_fields(kind: OutcomeKind, error_class: str | None, error_message: str | None, rows: int | None,
                        data_hash: str | None, metadata: str | None, sample: str | None = None) -> Outcome:
    error = Error(error_class, error_message or "")
    match kind:
        case OutcomeKind.READ:
            return Read(data_hash or "", rows or 0, metadata, sample)
        case OutcomeKind.REJECTED:
            return Rejected(error)
        case OutcomeKind.CRASH:
            return Crash(error)
        case OutcomeKind.UNHANDLED:
            return Unhandled(error)
        case OutcomeKind.TIMEOUT:
            text = (error_message or "").removeprefix("no answer within ").removesuffix("s")
            return Timeout(float(text) if text.replace(".", "", 1).isdigit() else 0.0)
        case OutcomeKind.OOM:
            return OutOfMemory(error)
        case OutcomeKind.UNAVAILABLE:
            return Unavailable(error_message or "")
        case OutcomeKind.HARNESS_ERROR:
            return HarnessError(error)


WRITTEN = "written"  # a WriteRow's outcome when the file was written (otherwise an OutcomeKind of a failure)


@dataclass(frozen=True)
class WriteRow:
    """One write, before judging: a writer (an adapter that writes) given one of its track's tables and a profile.
    What executors produce beside the file's bytes (conformance/harness/writing.py)."""

    writer: str  # the adapter's name (a release: NAME-VERSION)
    implementation: str
    version: str | None  # of the library that wrote (the answer's `writer` where it names another)
    profile: str
    table: str
    columns: list[str] | None  # the table's columns it was given; None: all of them
    outcome: str  # WRITTEN, or the OutcomeKind of its failure
    error_class: str | None
    error_message: str | None
    duration_s: float
    library_s: float | None = None
    size: int | None = None  # bytes of the file written
    sha256: str | None = None

    @property
    def key(self) -> tuple[str, str, str, bool]:
        return self.writer, self.profile, self.table, self.columns is not None

    @property
    def file_id(self) -> str:
        """The written file's name in the written corpus (corpus/written.py): writer/profile/table."""
        table = self.table if self.columns is None else f"{self.table}-accepted"
        return f"{self.writer}/{self.profile}/{table}"

    def to_row(self) -> dict[str, Any]:
        return plain(self)

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Self:
        return cls(**_present(cls, row))


class WriterVerdict(StrEnum):
    """A written file judged (conformance/harness/judge.py Judge.writer_cell): against the track's rules (its strict
    decoder, each finding cited) and against the table the writer was given (read back by the track's reference)."""

    PASS = "pass"  # a file the spec allows, holding the table's data
    NONCONFORMING = "fail:nonconforming"  # the file breaks a rule of the spec (findings)
    WRONG_DATA = "fail:wrong-data"  # the file is fine, its data is not the table's
    CRASH = "fail:crash"  # the writer crashed or ran out of memory
    UNHANDLED = "fail:unhandled-error"  # the writer raised an error it does not raise on purpose (the taxonomy)
    HANG = "fail:hang"
    REFUSED = "refused"  # the writer declined the table (a type it lacks): no file, not a failure
    UNVERIFIED = "unverified"  # a file the spec allows whose data the track's reference cannot read back
    SKIP = "skip"  # the writer is unavailable here
    HARNESS_ERROR = "harness-error"

    @property
    def is_failure(self) -> bool:
        return self.value.startswith("fail:")


@dataclass(frozen=True)
class WriterCell:
    """A judged write: the writer's verdict on one (profile, table), why, and the written corpus's cases of its file
    (the file as written, and with extensions added) that every reader reads."""

    writer: str
    implementation: str
    version: str | None
    profile: str
    table: str
    columns: list[str] | None
    outcome: str
    verdict: WriterVerdict
    error_class: str | None
    error_message: str | None
    duration_s: float
    size: int | None
    sha256: str | None
    created_by: str | None  # FileMetaData.created_by
    findings: list[WriterFinding]  # rules of the spec the file breaks
    same_data: bool | None  # the data read back is the table's (None: not read back)
    differing: list[str]  # columns whose data differs from the table's
    read_by: str | None  # which of the track's readers read it back
    read_error: str | None
    cases: list[str]  # the written corpus's cases of this file (as written first)
    # the track's feature ids the file uses (Parquet: apache/parquet-site's), what its writer shows it writes
    features: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out = plain(self)
        out["findings"] = [f.to_json() for f in self.findings]
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Self:
        row = _present(cls, obj)
        return cls(**row | {"verdict": WriterVerdict(row["verdict"]),
                            "findings": [WriterFinding.from_json(f) for f in row["findings"]]})


@dataclass(frozen=True)
class Overhead:
    """Skip overhead (app/overhead.py) of one (adapter, base, extension size): the median seconds, their
    ratio to the base as it is, and the bytes the worker's processes read (None where the OS does not count)."""

    adapter: str
    implementation: str
    version: str | None
    base: str
    size: int | None  # bytes of extension; None: the base as it is
    seconds: float | None  # None: the reader did not read the file
    outcome: str
    ratio: float | None
    read_once_s: float  # reading the file's bytes once, here
    flagged: bool
    bytes_read: int | None = None

    @staticmethod
    def size_text(size: int | None) -> str:
        return "none" if size is None else f"{size >> 20} MiB" if size >= 1 << 20 else f"{size} B"

    def to_json(self) -> dict[str, Any]:
        return plain(self)

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Self:
        return cls(**{f.name: obj[f.name] for f in fields(cls) if f.name in obj})


@dataclass(frozen=True)
class Finding:
    """A distinct finding of `fuzz` (app/fuzz.py, docs/fuzzing.md): an implementation's non-pass verdict on
    a generated file, with the chain that made it and what became of it (confirmed, shrunk, saved)."""

    adapter: str
    implementation: str
    version: str | None
    role: str
    expected: Expectation
    verdict: Verdict
    outcome: OutcomeKind
    signature: str  # the message normalised (reports/clusters.py): the key with implementation and outcome kind
    message: str  # one message as it was
    base: str
    chain: dict[str, Any]  # the track's chain as JSON: replayable alone
    batch: int  # the Hypothesis run (a Spark task) that found it, its seed derived from the run's
    batch_seed: int
    example: int  # its index in that run
    confirmed: bool = False  # a fresh worker gave the same outcome kind and signature
    confirmation: str | None = None  # the fresh worker's outcome and message
    shrunk_chain: dict[str, Any] | None = None
    shrunk_steps: int | None = None  # steps in the minimal chain (None: not shrunk)
    regression: str | None = None  # the regression case it was saved as
    not_saved: str | None = None  # why not (harness errors, a file that decodes to other data than its base, ...)
    file_sha256: str | None = None  # of the minimal file
    window_offset: int | None = None  # where `window_hex` starts in the minimal file
    window_hex: str | None = None  # the minimal file's bytes around where it differs from its base

    @property
    def key(self) -> tuple[str, str, str]:
        return self.implementation, str(self.verdict), self.signature

    def to_json(self) -> dict[str, Any]:
        return plain(self)


@dataclass(frozen=True)
class FuzzReport:
    """A `fuzz` run: what was searched, how fast, and its distinct findings (findings.json)."""

    seed: int
    mode: str  # "examples" (reproducible) or "time" (as many batches as fit)
    master: str
    track: str
    adapters: list[str]
    batches: int
    examples: int
    search_s: float
    examples_per_s: float
    oracle_errors: int  # examples our own decoder could not judge (a bug of ours: its chains are in `harness`)
    findings: list[Finding]
    harness: list[Finding]  # harness errors and oracle errors, kept apart: they say nothing about a reader
    shrink_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return plain(self)
