"""The one judge: a cell's expectation and verdict, for `run`, `check`, the pytest plugin, version matrices,
`bisect` and `fuzz` alike. Each builds a `Judge` from the manifest it runs (fuzz: a manifest of one generated case)
and hands it the attempts as OutcomeRows; none of them judges on its own.

Two rules make a case say something about the case, not about its base:
- "Same data" means the base's expected data, or the adapter's own reading of the unmodified base (its baseline:
  the base's `baseline_case`): a reader whose representation differs from ours (fastparquet's NaN for null floats)
  is judged on whether the case changed what it returns, and its baseline difference is reported once, on the
  baseline case itself: as `representation` where the expected data under representations its library documents
  (the adapter's `representations`, generators/representations.py) is what it returned, else as wrong data.
- A failure the reader shows on the unmodified base, the same way (outcome kind and error signature), is the base's:
  the case is `skip` (not judged), and the failure is reported once, on the baseline case. A reader without a codec a
  base needs (the spec lets it lack one) is thus judged on the cases it can read the base of, and a `read` stays a
  `read`: what an extension or a mutation changes is what is judged.
A case whose data no reference can state (`data_unknown`: fuzz finds on damaged data pages) is judged on crash,
hang and read-versus-reject only. Every entry point judges by these rules alike (fuzz needs no rule of its own).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from parquet_conformance.conformance.harness.chains import root_cause
from parquet_conformance.conformance.harness.model import (
    WRITTEN,
    Cell,
    Crash,
    HarnessError,
    Outcome,
    OutcomeKind,
    OutcomeRow,
    OutOfMemory,
    Read,
    Rejected,
    Timeout,
    Unavailable,
    Unhandled,
    Verdict,
    WriterCell,
    WriteRow,
    WriterVerdict,
)
from parquet_conformance.corpus import track
from parquet_conformance.corpus.dist import MAX_EXPECTED
from parquet_conformance.corpus.model import ANY_FORM, BaseEntry, CaseEntry, Expectation, Level, Manifest
from parquet_conformance.corpus.track import Written
from parquet_conformance.generators.canonical import data_hash
from parquet_conformance.generators.representations import Representation, variants
from parquet_conformance.kernel import documents, trees
from parquet_conformance.kernel.errors import UsageError

# -- error signatures: a message with what varies between runs stripped ---------------------------

SIGNATURE_CHARS = 160
_STRIP = [  # order matters: digests and addresses before plain numbers, paths before numbers in them
    (re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"), "UUID"),
    (re.compile(r"\b[0-9a-fA-F]{12,}\b"), "H"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "N"),
    # object ids of a runtime: py4j's (o827.read), Java's identity hashes (Foo@6d06d69c, [B@1b6d3586)
    (re.compile(r"\bo\d+\b"), "oN"),
    (re.compile(r"@[0-9a-f]{5,8}\b"), "@H"),
    (re.compile(r"(?<![\w.])(?:[A-Za-z]:)?(?:[/\\][\w.+@%=~-]+){2,}[/\\]?"), "PATH"),
    (re.compile(r"(?<!\w)[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?!\w)"), "N"),
    (re.compile(r"\s+"), " "),
]


def normalise(text: str) -> str:
    """A message with digests, addresses, object ids, paths and numbers replaced, whitespace folded, cut to
    SIGNATURE_CHARS: what error clusters and fuzz findings are keyed by."""
    for pattern, repl in _STRIP:
        text = pattern.sub(repl, text)
    text = text.strip()
    return text if len(text) <= SIGNATURE_CHARS else text[:SIGNATURE_CHARS - 1] + "…"


def error_text(error_class: str | None, error_message: str | None, outcome: str = "") -> str:
    """An error in one line: its class and the first two lines of its message, the root cause of a chained error
    first (conformance/harness/chains.py)."""
    lines = [ln.strip() for ln in (error_message or "").splitlines() if ln.strip()][:2]
    root = root_cause(error_message or "")
    if root:
        lines = [root, *lines[:1]]
    return ": ".join(p for p in [error_class, " / ".join(lines)] if p) or outcome


def signature(row: OutcomeRow) -> str:
    return normalise(error_text(row.error_class, row.error_message, str(row.outcome)))


# -- one outcome against one expectation ----------------------------------------------------------


def classify(expected: Expectation, outcome: Outcome, good_hashes: set[str], decode: str | None = None,
             data_unknown: bool = False, level: Level = Level.MUST,
             represented: Collection[str] = frozenset()) -> Verdict:
    """`decode`: the metadata an aware reader must use; checked only when the reader says which it used.
    `data_unknown`: any data read counts as the case's. `level`: the expectation's force. `represented`: the hashes
    of the right data in the forms the adapter's library documents (a read of one is `representation`, not wrong
    data). The order of the rules: what the outcome says of the implementation first (unavailable, ours, a crash, an
    unhandled error, a hang: the same under every expectation), then a read of a file it must reject
    (accepted-invalid, whatever the data: 0 rows of an empty file accept it too), other data, the wrong metadata form,
    a documented representation; a refusal fails only a `read`. A `reject` that rests on a should or a policy leaves
    the read to the weaker reading, which must return the case's data: there a read of other data is wrong data,
    which fails at every level (docs/spec-notes.md#levels)."""
    match outcome:
        case Unavailable():
            return Verdict.SKIP
        case HarnessError():
            return Verdict.HARNESS_ERROR
        case Crash() | OutOfMemory():
            return Verdict.CRASH
        case Unhandled():
            return Verdict.UNHANDLED
        case Timeout():
            return Verdict.HANG
        case Read(data_hash=h, metadata=used):
            right = h in good_hashes or data_unknown
            documented = not right and h in represented
            if expected == Expectation.REJECT and (right or documented or level == Level.MUST):
                return Verdict.ACCEPTED_INVALID
            if not right and not documented:
                return Verdict.WRONG_DATA
            if decode not in (None, ANY_FORM) and used and used != decode:
                return Verdict.WRONG_METADATA
            return Verdict.REPRESENTATION if documented else Verdict.PASS
        case Rejected():
            return Verdict.REJECTED_VALID if expected == Expectation.READ else Verdict.PASS


# -- documented representations: a base's expected data in the forms an adapter's library documents --------


def _not_at_hand(base: str) -> object | None:
    return None


@dataclass(frozen=True)
class Represented:
    """What each adapter's library documents of the form of its data (adapter -> its representations: the cells'
    adapter names, a release's too) and where each base's expected data is (base -> the data, None when it is not at
    hand): the hashes of a base's expected data under an adapter's representations, made once per (adapter, base)
    when a read first needs them (one that is not the right data)."""

    declared: Mapping[str, tuple[Representation, ...]] = field(default_factory=dict)
    expected: Callable[[str], object | None] = _not_at_hand
    _made: dict[tuple[str, str], dict[str, tuple[Representation, ...]]] = field(
        default_factory=dict, compare=False, repr=False)

    def hashes(self, adapter: str, base: str) -> Mapping[str, tuple[Representation, ...]]:
        """data_hash -> the representations that make the base's expected data into it."""
        declared = self.declared.get(adapter, ())
        if not declared:
            return {}
        if (adapter, base) not in self._made:
            data = self.expected(base)
            self._made[adapter, base] = variants(data, declared) if isinstance(data, dict) else {}
        return self._made[adapter, base]

    @classmethod
    def of(cls, manifest: Manifest, root: Path, declared: Mapping[str, tuple[Representation, ...]]) -> Represented:
        """The bases' expected data read from the corpus at `root` (verified before a run: within MAX_EXPECTED, once
        each). A file that is no longer the data the manifest names stops the judging in one line (UsageError):
        judged against anything else, a verdict would rest on our side's failure."""
        loaded: dict[str, object | None] = {}

        def expected(base: str) -> object | None:
            if base not in loaded:
                entry = manifest.bases.get(base)
                loaded[base] = None
                if entry is not None and entry.expected:
                    where = root / entry.expected
                    try:
                        data = documents.parse(trees.read_below(root, entry.expected, MAX_EXPECTED), MAX_EXPECTED)
                    except (OSError, ValueError) as e:
                        raise UsageError(f"{where}: the expected data of base {base!r} cannot be read: {e}") from None
                    if data_hash(data) != entry.data_hash:
                        raise UsageError(f"{where}: not the expected data of base {base!r} the manifest names "
                                         "(changed since the corpus was verified)")
                    loaded[base] = data
            return loaded[base]

        return cls({name: reps for name, reps in declared.items() if reps}, expected)


# -- the session ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Judge:
    """A judging session: the manifest's cases and bases, each track's default role, and the adapters' documented
    representations with the bases' expected data (none: every read that is not the right data is wrong data)."""

    manifest: Manifest
    default_roles: Mapping[str, str]  # track -> the role of an adapter that names none
    represented: Represented = field(default_factory=Represented)

    @classmethod
    def of(cls, manifest: Manifest, root: Path | None = None,
           declared: Mapping[str, tuple[Representation, ...]] | None = None) -> Judge:
        """The default roles of the registered tracks; `root`: the corpus, whose expected data the adapters'
        `declared` representations (adapter -> its representations) transform."""
        represented = Represented.of(manifest, root, declared) if root is not None and declared else Represented()
        return cls(manifest, {t.name: t.default_role for t in track.all_tracks()}, represented)

    def default_role(self, track: str) -> str:
        return self.default_roles[track]

    def expectation(self, case: CaseEntry, role: str) -> Expectation:
        """An aware reader meets files without its extension as a reader of the track's default role does."""
        return case.expect.get(role) or case.expect[self.default_role(case.track)]

    def level(self, case: CaseEntry, role: str) -> Level:
        """The force of that expectation (the manifest's `levels`), taken where the expectation is."""
        return case.levels.get(role if role in case.expect else self.default_role(case.track), Level.POLICY)

    def roles(self, case: CaseEntry, adapter_roles: list[str]) -> list[str]:
        """The roles a case speaks to among the adapter's; an aware reader meets other files in its first role."""
        roles = adapter_roles or [self.default_role(case.track)]
        return [r for r in roles if r in case.expect] or roles[:1]

    def verdict(self, case: CaseEntry, role: str, row: OutcomeRow,
                baseline: OutcomeRow | None = None) -> tuple[Expectation, Verdict]:
        """(expectation, verdict) of one attempt in one role. `baseline`: the adapter's attempt at the base's
        baseline case, whose data counts as the same data for every case but that one, and whose failure, the same
        way, is the base's (skip)."""
        base: BaseEntry = self.manifest.bases[case.base]
        expected = self.expectation(case, role)
        good = good_hashes(case, base, role, baseline)
        verdict = classify(expected, row.typed, good, case.decode.get(role), case.data_unknown,
                           self.level(case, role), self.documented(case, role, row, good))
        if (verdict.is_failure and baseline is not None and case.id != base.baseline_case
                and baseline.outcome != OutcomeKind.READ and row.outcome == baseline.outcome
                and signature(row) == signature(baseline)):
            verdict = Verdict.SKIP
        return expected, verdict

    def documented(self, case: CaseEntry, role: str, row: OutcomeRow,
                   good: Collection[str]) -> Mapping[str, tuple[Representation, ...]]:
        """The hashes of the base's data in the forms the adapter's library documents, asked only for a read of
        other data in a role judged on the base's data (not on the case file itself: corpus/track.py Deriving)."""
        if row.outcome != OutcomeKind.READ or row.data_hash in good or role in case.expect_hash or case.data_unknown:
            return {}
        return self.represented.hashes(row.adapter, case.base)

    def baselines(self, rows: Iterable[OutcomeRow]) -> dict[tuple[str, str], OutcomeRow]:
        """(adapter, base) -> the adapter's own attempt at that base's baseline case (the run's, not a confirmation)."""
        base_of = {b.baseline_case: name for name, b in self.manifest.bases.items() if b.baseline_case}
        return {(r.adapter, base_of[r.case]): r for r in rows
                if r.case in base_of and r.round == 0 and not r.fresh and not r.confirming}

    def cells(self, rows: list[OutcomeRow]) -> list[Cell]:
        """One Cell per (case, adapter, role judged), from all the attempts at it: their common verdict; where their
        outcomes differ (each kept in `disagreement`), `flaky` when some passed and some failed, the worst failure
        when all failed (settle), a pass when all passed."""
        own = self.baselines(rows)
        out = []
        for (case_id, adapter), every in attempts(rows).items():
            tries = [r for r in every if not r.cut_short] or every  # a cut-short timeout only asked for a re-run
            case = self.manifest.case(case_id)
            first = tries[0]
            baseline = own.get((adapter, case.base))
            for role in self.roles(case, first.roles):
                judged = [(r, self.verdict(case, role, r, baseline)[1]) for r in tries]
                expected = self.expectation(case, role)
                shown, verdict = judged[0]
                disagreement = None
                if not all(same_outcome(first, r) for r in tries[1:]):
                    shown, verdict = settle(judged)
                    disagreement = "; ".join(f"{describe(r)} -> {v}" for r, v in judged)
                represented = self.represented.hashes(adapter, case.base).get(shown.data_hash or "", ()) \
                    if verdict == Verdict.REPRESENTATION else ()
                out.append(Cell(case=case_id, track=case.track, group=case.group, kind=case.kind, adapter=adapter,
                                implementation=shown.implementation, version=shown.version, role=role,
                                expected=expected, verdict=verdict, duration_s=shown.duration_s,
                                outcome=shown.outcome, error_class=shown.error_class,
                                error_message=shown.error_message, rows=shown.rows, data_hash=shown.data_hash,
                                metadata=shown.metadata, attempts=len(tries), previous_case=shown.previous_case,
                                disagreement=disagreement,
                                sample=shown.sample if verdict in (Verdict.WRONG_DATA, Verdict.FLAKY,
                                                                   Verdict.REPRESENTATION) else None,
                                reused_from=shown.reused_from, fingerprint=shown.fingerprint,
                                case_sha256=shown.case_sha256, level=self.level(case, role),
                                representations=[str(r) for r in represented]))
        return out


    @staticmethod
    def writer_cell(row: WriteRow, written: Written | None, cases: list[str]) -> WriterCell:
        """A writer's verdict on one file (`written`: the track's word on it, None where no file was written): a
        failure to write is judged as a read's outcome is; a file, first on the rules of the spec it breaks (each
        finding cites its sentence), then on its data against the table the writer was given."""
        verdict = writer_verdict(row.outcome, written)
        return WriterCell(
            writer=row.writer, implementation=row.implementation, version=row.version, profile=row.profile,
            table=row.table, columns=row.columns, outcome=row.outcome, verdict=verdict, error_class=row.error_class,
            error_message=row.error_message, duration_s=row.duration_s, size=row.size, sha256=row.sha256,
            created_by=written.created_by if written else None,
            findings=list(written.findings) if written else [],
            same_data=(written.same_data if written.expected is not None else None) if written else None,
            differing=list(written.differing) if written else [], read_by=written.read_by if written else None,
            read_error=written.read_error if written else None, cases=cases,
            features=list(written.features) if written else [])


def settle(judged: list[tuple[OutcomeRow, Verdict]]) -> tuple[OutcomeRow, Verdict]:
    """The verdict of attempts whose outcomes differ, and the attempt the cell shows (docs/results.md#what-a-verdict-
    guarantees): `flaky` (the run's own attempt shown) only when some attempt passed and some failed; when every
    attempt that says anything failed, a failure, the worst of them (a crash and a hang are not a flake: both fail);
    when every one passed, a pass. Harness errors and unavailable attempts say nothing of the implementation; only
    where they are all there is does the run's own attempt decide."""
    counted = [(r, v) for r, v in judged if v.judged]
    if not counted:
        return judged[0]
    failed = [(r, v) for r, v in counted if v.is_failure]
    if failed and len(failed) < len(counted):
        return judged[0][0], Verdict.FLAKY
    return min(failed or counted, key=lambda rv: rv[1].severity)


def writer_verdict(outcome: str, written: Written | None) -> WriterVerdict:
    if outcome == WRITTEN:
        if written is None:
            return WriterVerdict.HARNESS_ERROR
        if written.findings or not written.decodes:
            return WriterVerdict.NONCONFORMING
        if written.expected is None:
            return WriterVerdict.UNVERIFIED
        return WriterVerdict.PASS if written.same_data else WriterVerdict.WRONG_DATA
    return {OutcomeKind.REJECTED: WriterVerdict.REFUSED, OutcomeKind.CRASH: WriterVerdict.CRASH,
            OutcomeKind.UNHANDLED: WriterVerdict.UNHANDLED, OutcomeKind.OOM: WriterVerdict.CRASH,
            OutcomeKind.TIMEOUT: WriterVerdict.HANG,
            OutcomeKind.UNAVAILABLE: WriterVerdict.SKIP}.get(OutcomeKind(outcome), WriterVerdict.HARNESS_ERROR)


def good_hashes(case: CaseEntry, base: BaseEntry, role: str, baseline: OutcomeRow | None) -> set[str]:
    """The data hashes that count as the right data for a read in this role: the case's own, where its track derived
    one from the case file for the role (`expect_hash`: a role the track judges on the file itself,
    with no baseline); else the base's data, the data of the case's alternatives (another reading's: a VARIANT
    decoded), and the adapter's baseline on every case but the baseline case."""
    if role in case.expect_hash:
        return {case.expect_hash[role]}
    good = {base.data_hash, *(a.data_hash for a in case.alternatives)}
    if baseline is not None and baseline.data_hash and case.id != base.baseline_case:
        good.add(baseline.data_hash)
    return good


def attempts(rows: Iterable[OutcomeRow]) -> dict[tuple[str, str], list[OutcomeRow]]:
    """(case, adapter) -> its attempts, the run's own first (round 0, then later rounds, then the confirmation
    pass, then fresh single-cell workers)."""
    out: dict[tuple[str, str], list[OutcomeRow]] = {}
    for r in sorted(rows, key=lambda r: (r.case, r.adapter, r.fresh, r.confirming, r.round)):
        out.setdefault((r.case, r.adapter), []).append(r)
    return out


def same_outcome(a: OutcomeRow, b: OutcomeRow) -> bool:
    """Attempts agree when the outcome is of one kind and, for a read, the data and the metadata used are the same
    (error messages may differ: addresses, timings)."""
    return a.outcome == b.outcome and (a.outcome != "read" or (a.data_hash, a.metadata) == (b.data_hash, b.metadata))


def describe(r: OutcomeRow) -> str:
    where = ("a fresh worker" if r.fresh else "the confirmation pass" if r.confirming else f"round {r.round}"
             if r.round else "the run")
    detail = f"data {r.data_hash[:12]}" if r.data_hash else (r.error_class or r.error_message or "")[:160]
    return f"{where}: {r.outcome}" + (f" ({detail})" if detail else "")


def fails_alike(cell: Cell, other: Cell | None) -> bool:
    """Whether `cell` fails (or refuses) the way `other` does: the same outcome kind and, for an error, the same
    signature; for a read, the same verdict. The writer x reader matrix asks it of a reader's cell on a written
    file and the reader's cell on the track's own file of the same table: the failure is then the table's."""
    if other is None or other.outcome != cell.outcome or (cell.verdict == Verdict.PASS and cell.outcome == "read"):
        return False
    if cell.outcome == "read":
        return other.verdict == cell.verdict
    return normalise(error_text(cell.error_class, cell.error_message, str(cell.outcome))) == normalise(
        error_text(other.error_class, other.error_message, str(other.outcome)))


def to_confirm(cells: Iterable[Cell]) -> set[tuple[str, str]]:
    """(case, adapter) of every cell to re-run in a fresh worker before it is reported: all but passes and cells
    whose implementation is unavailable, a `representation` among them (the run leaves out those an attempt already
    settled, OutcomeRow.settled)."""
    return {(c.case, c.adapter) for c in cells if c.verdict not in (Verdict.PASS, Verdict.SKIP)}
