"""The only judging code: a cell's expectation and verdict, for `run`, `check`, the pytest plugin
and the reports alike.

"Same data" means the base's expected data, or the adapter's own reading of the unmodified base
(its baseline: the base's `baseline_case`): a reader whose representation differs from ours
(fastparquet's NaN for null floats) is judged on whether the case changed what it returns, and
its baseline difference is reported once, on the baseline case itself.
"""

from __future__ import annotations

from collections.abc import Iterable

from parquet_conformance.conformance.model import (
    Cell,
    Crash,
    HarnessError,
    Outcome,
    OutcomeRow,
    OutOfMemory,
    Read,
    Rejected,
    Timeout,
    Unavailable,
    Verdict,
)
from parquet_conformance.corpus.model import BaseEntry, CaseEntry, Decode, Expectation, Manifest


def expectation(case: CaseEntry, role: str, default_role: str = "legacy") -> Expectation:
    """An aware reader meets files without its extension as a reader of the track's default role does."""
    return case.expect.get(role) or case.expect[default_role]


def roles_judged(case: CaseEntry, adapter_roles: list[str]) -> list[str]:
    """The roles a case speaks to among the adapter's; an aware reader meets other files in its first role."""
    return [r for r in adapter_roles if r in case.expect] or adapter_roles[:1]


def classify(expected: Expectation, outcome: Outcome, good_hashes: set[str], decode: Decode | None = None) -> Verdict:
    """`decode`: the metadata an aware reader must use; checked only when the reader says which it used."""
    match outcome:
        case Unavailable():
            return Verdict.SKIP
        case HarnessError():
            return Verdict.HARNESS_ERROR
        case Crash() | OutOfMemory():
            return Verdict.CRASH
        case Timeout():
            return Verdict.HANG
        case Read(data_hash=h, metadata=used):
            if h not in good_hashes:
                return Verdict.WRONG_DATA
            if expected == Expectation.REJECT:
                return Verdict.ACCEPTED_INVALID
            if decode in (Decode.FLATBUFFERS, Decode.THRIFT) and used and used != decode:
                return Verdict.WRONG_METADATA
            return Verdict.PASS
        case Rejected():
            return Verdict.REJECTED_VALID if expected == Expectation.READ else Verdict.PASS


def judge_cell(case: CaseEntry, base: BaseEntry, role: str, outcome: Outcome, baseline: str | None,
               default_role: str = "legacy") -> tuple[Expectation, Verdict]:
    """(expectation, verdict) of one cell. `baseline`: the adapter's data hash on the base's baseline case,
    which counts as the same data for every case but that one."""
    expected = expectation(case, role, default_role)
    good = {base.data_hash}
    if baseline and case.id != base.baseline_case:
        good.add(baseline)
    return expected, classify(expected, outcome, good, case.decode.get(role))


def baselines(rows: Iterable[OutcomeRow], manifest: Manifest) -> dict[tuple[str, str], str]:
    """(adapter, base) -> the adapter's data hash on that base's baseline case."""
    base_of = {b.baseline_case: name for name, b in manifest.bases.items() if b.baseline_case}
    return {(r.adapter, base_of[r.case]): r.data_hash for r in rows
            if r.case in base_of and r.data_hash is not None}


def judge(rows: list[OutcomeRow], manifest: Manifest, default_roles: dict[str, str] | None = None) -> list[Cell]:
    """One Cell per (outcome row, role judged). `default_roles`: track -> its default role."""
    own = baselines(rows, manifest)
    out = []
    for r in rows:
        case = manifest.case(r.case)
        base = manifest.bases[case.base]
        default_role = (default_roles or {}).get(case.track, "legacy")
        outcome = r.typed
        for role in roles_judged(case, r.roles or [default_role]):
            expected, verdict = judge_cell(case, base, role, outcome, own.get((r.adapter, case.base)), default_role)
            out.append(Cell(case=r.case, track=case.track, group=case.group, kind=case.kind, adapter=r.adapter,
                            implementation=r.implementation, version=r.version, role=role, expected=expected,
                            verdict=verdict, duration_s=r.duration_s, outcome=r.outcome,
                            error_class=r.error_class, error_message=r.error_message, rows=r.rows,
                            data_hash=r.data_hash, metadata=r.metadata))
    return out
