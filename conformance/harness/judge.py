"""The only judging code: a cell's expectation and verdict, for `run`, `check`, the pytest plugin
and the reports alike.

"Same data" means the base's expected data, or the adapter's own reading of the unmodified base
(its baseline: the base's `baseline_case`): a reader whose representation differs from ours
(fastparquet's NaN for null floats) is judged on whether the case changed what it returns, and
its baseline difference is reported once, on the baseline case itself.
"""

from __future__ import annotations

from collections.abc import Iterable

from parquet_conformance.conformance.harness.model import (
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
    return expected, classify(expected, outcome, good_hashes(case, base, role, baseline), case.decode.get(role))


def good_hashes(case: CaseEntry, base: BaseEntry, role: str, baseline: str | None) -> set[str]:
    """The data hashes that count as the right data for a read in this role: the case's own, where its track derived
    one from the case file for the role (`expect_hash`: Parquet's metadata role, judged on the file's footer alone,
    with no baseline); else the base's data, and the adapter's baseline on every case but the baseline case."""
    if role in case.expect_hash:
        return {case.expect_hash[role]}
    good = {base.data_hash}
    if baseline and case.id != base.baseline_case:
        good.add(baseline)
    return good


def baselines(rows: Iterable[OutcomeRow], manifest: Manifest) -> dict[tuple[str, str], str]:
    """(adapter, base) -> the adapter's data hash on that base's baseline case, as the run's own attempt read it."""
    base_of = {b.baseline_case: name for name, b in manifest.bases.items() if b.baseline_case}
    return {(r.adapter, base_of[r.case]): r.data_hash for r in rows
            if r.case in base_of and r.data_hash is not None and r.round == 0 and not r.fresh}


def attempts(rows: Iterable[OutcomeRow]) -> dict[tuple[str, str], list[OutcomeRow]]:
    """(case, adapter) -> its attempts, the run's own first (round 0, then later rounds, then fresh workers)."""
    out: dict[tuple[str, str], list[OutcomeRow]] = {}
    for r in sorted(rows, key=lambda r: (r.case, r.adapter, r.fresh, r.round)):
        out.setdefault((r.case, r.adapter), []).append(r)
    return out


def same_outcome(a: OutcomeRow, b: OutcomeRow) -> bool:
    """Attempts agree when the outcome is of one kind and, for a read, the data and the metadata used are the same
    (error messages may differ: addresses, timings)."""
    return a.outcome == b.outcome and (a.outcome != "read" or (a.data_hash, a.metadata) == (b.data_hash, b.metadata))


def describe(r: OutcomeRow) -> str:
    where = "a fresh worker" if r.fresh else f"round {r.round}" if r.round else "the run"
    detail = f"data {r.data_hash[:12]}" if r.data_hash else (r.error_class or r.error_message or "")[:160]
    return f"{where}: {r.outcome}" + (f" ({detail})" if detail else "")


def judge(rows: list[OutcomeRow], manifest: Manifest, default_roles: dict[str, str] | None = None) -> list[Cell]:
    """One Cell per (case, adapter, role judged), from all the attempts at it: their common verdict, or `flaky`
    when their outcomes differ (the run's own attempt gives the outcome shown). `default_roles`: track -> its
    default role."""
    own = baselines(rows, manifest)
    out = []
    for (case_id, adapter), every in attempts(rows).items():
        tries = [r for r in every if not r.cut_short] or every  # a cut-short timeout only asked for a re-run
        case = manifest.case(case_id)
        base = manifest.bases[case.base]
        default_role = (default_roles or {}).get(case.track, "legacy")
        first = tries[0]
        for role in roles_judged(case, first.roles or [default_role]):
            judged = [(r, judge_cell(case, base, role, r.typed, own.get((adapter, case.base)), default_role))
                      for r in tries]
            expected, verdict = judged[0][1]
            disagreement = None
            if not all(same_outcome(first, r) for r in tries[1:]):
                verdict = Verdict.FLAKY
                disagreement = "; ".join(f"{describe(r)} -> {v}" for r, (_, v) in judged)
            out.append(Cell(case=case_id, track=case.track, group=case.group, kind=case.kind, adapter=adapter,
                            implementation=first.implementation, version=first.version, role=role, expected=expected,
                            verdict=verdict, duration_s=first.duration_s, outcome=first.outcome,
                            error_class=first.error_class, error_message=first.error_message, rows=first.rows,
                            data_hash=first.data_hash, metadata=first.metadata, attempts=len(tries),
                            previous_case=first.previous_case, disagreement=disagreement,
                            sample=first.sample if verdict in (Verdict.WRONG_DATA, Verdict.FLAKY) else None))
    return out


def to_confirm(cells: Iterable[Cell]) -> set[tuple[str, str]]:
    """(case, adapter) of every cell to re-run in a fresh worker before it is reported: all but passes and cells
    whose implementation is unavailable (the run leaves out those an attempt already settled,
    OutcomeRow.settled)."""
    return {(c.case, c.adapter) for c in cells if c.verdict not in (Verdict.PASS, Verdict.SKIP)}
