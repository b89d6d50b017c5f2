"""What makes a verdict confirmed (docs/results.md#what-a-verdict-guarantees), at the least cost:

- The confirmation pass: every cell that did not pass, and whose attempt was not already the first read of a new
  worker process, is read again by a new worker process of its adapter that reads only those cells, in an order
  shuffled by the run's seed: one process start per adapter (a JVM once, not once per cell), and a history unlike the
  run's (other cells before it, or none); an adapter whose cells would cost more than an even share of the pass's
  slots is cut into a few such workers, so that its hangs do not hold the pass while other slots idle.
- Single-cell re-runs where the confirmation disagrees with the run's attempt: a worker process that reads nothing
  else reads the cell too; judge.py weighs every attempt (`flaky` where some passed and some failed, the worst
  failure where all failed).
- The hang limit: a cell is a hang only when a confirming process gives no answer within the adapter's hang limit,
  derived from its own distribution in this run (HANG_FACTOR x its slowest answered cell, at least HANG_FLOOR_S, at
  most its full timeout), or `--hang-limit S`.
- Reuse: a cell whose inputs are unchanged since an earlier run of the same results dataset (the case's sha256, the
  adapter's fingerprint: its library's version, the Python it runs in, our code), and whose reader was available
  then, is not run again: its attempts are replayed from that run (marked `reused_from`; a flaky cell's and a
  harness error's every attempt, from that run's staged attempts) and judged with today's expectations. `--fresh`
  runs everything.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace

from parquet_conformance.conformance.harness.cells import SPLIT_MIN_S, Job
from parquet_conformance.conformance.harness.judge import attempts, same_outcome
from parquet_conformance.conformance.harness.model import Cell, OutcomeKind, OutcomeRow, Verdict
from parquet_conformance.conformance.harness.reading import Attempt
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.corpus.model import CaseEntry, Manifest

HANG_FACTOR = 10.0  # times the adapter's slowest answered cell in the run
HANG_FLOOR_S = 10.0


def hang_limits(rows: Iterable[OutcomeRow], specs: list[AdapterSpec],
                override: float | None = None) -> dict[str, float]:
    """adapter -> the limit under which a confirming process must answer (see the module's doc)."""
    slowest: dict[str, float] = {}
    for r in rows:
        if r.outcome != OutcomeKind.TIMEOUT and r.reused_from is None:
            slowest[r.adapter] = max(slowest.get(r.adapter, 0.0), r.duration_s)
    out = {}
    for spec in specs:
        full = spec.timeout_s or spec.build().timeout_s
        derived = max(HANG_FLOOR_S, HANG_FACTOR * slowest.get(spec.name, full))
        out[spec.name] = min(full, override if override is not None else derived)
    return out


def confirmation_tasks(cells: set[tuple[str, str]], manifest: Manifest, seed: int,
                       cost: Mapping[tuple[str, str], float] | None = None, slots: int = 1) -> list[list[Job]]:
    """Per adapter, its cells in an order shuffled by the seed, each an Attempt of the confirmation pass, in one task
    (one new worker). With `cost` (seconds a cell is expected to take: its run's attempt, a hang its limit) and
    `slots` (tasks that run at once), an adapter whose cells cost more than an even share of the pass is cut into
    tasks of about that share, each a new worker with a history of its own, so that no one adapter's hangs hold the
    pass while the other slots are idle; the costliest tasks first."""
    by_adapter: dict[str, list[str]] = {}
    for case_id, adapter in sorted(cells):
        by_adapter.setdefault(adapter, []).append(case_id)
    costs = cost or {}
    # A task is cut only where each part is still worth a worker's start (a fraction of a second of reads is not).
    share = max(SPLIT_MIN_S, sum(costs.get(c, 0.0) for c in cells) / slots) if slots > 1 else float("inf")
    tasks: list[tuple[float, list[Job]]] = []
    for adapter, case_ids in sorted(by_adapter.items()):
        random.Random(f"{seed}:{adapter}").shuffle(case_ids)
        task: list[Job] = []
        spent = 0.0
        for c in case_ids:
            took = costs.get((c, adapter), 0.0)
            if task and spent + took > share:
                tasks.append((spent, task))
                task, spent = [], 0.0
            task.append((manifest.case(c), Attempt((adapter,), confirm=True)))
            spent += took
        tasks.append((spent, task))
    return [t for _, t in sorted(tasks, key=lambda st: -st[0])] if slots > 1 else [t for _, t in tasks]


def confirmation_costs(rows: Iterable[OutcomeRow], limits: Mapping[str, float]) -> dict[tuple[str, str], float]:
    """(case, adapter) -> the seconds its confirmation is expected to take: its run's first attempt, or, where that
    timed out, the adapter's hang limit."""
    out: dict[tuple[str, str], float] = {}
    for r in rows:
        if not r.confirming and not r.fresh and r.round == 0:
            out[r.case, r.adapter] = limits.get(r.adapter, 0.0) if r.outcome == OutcomeKind.TIMEOUT else r.duration_s
    return out


def disagreements(rows: list[OutcomeRow]) -> set[tuple[str, str]]:
    """(case, adapter) whose confirming attempt disagrees with the run's own (the first, not cut short)."""
    out = set()
    for key, every in attempts(rows).items():
        confirming = [r for r in every if r.confirming]
        first = next((r for r in every if not r.confirming and not r.fresh and not r.cut_short), None)
        if confirming and first is not None and not all(same_outcome(first, c) for c in confirming):
            out.add(key)
    return out


def fresh_jobs(cells: set[tuple[str, str]], manifest: Manifest) -> list[Job]:
    by_case: dict[str, list[str]] = {}
    for case_id, adapter in sorted(cells):
        by_case.setdefault(case_id, []).append(adapter)
    return [(manifest.case(c), Attempt(tuple(a), fresh=True)) for c, a in by_case.items()]


def reusable(earlier: list[Cell], origin: str, cases: list[CaseEntry], specs: list[AdapterSpec],
             attempts_then: Callable[[], list[OutcomeRow]] | None = None) -> list[OutcomeRow]:
    """The attempts of an earlier run (`origin`: its id and start) to replay in this one: per (case, adapter) whose
    case bytes and adapter fingerprint are the same as now and whose reader was available, the run's first attempt
    and, for a cell that failed, its confirmation (a skip was not confirmed: should today's judge find it a failure,
    the confirmation pass reads it again). A cell whose attempts disagreed (flaky, or the worst of several failures)
    or a harness error rests on attempts a cell does not keep: those are replayed from `attempts_then` (the earlier
    run's staged attempts), every one of them, so that it is judged on the same evidence; without them, it runs
    again."""
    sha = {c.id: c.sha256 for c in cases}
    fingerprint = {s.name: s.fingerprint for s in specs if s.fingerprint}
    grouped: dict[tuple[str, str], list[Cell]] = {}
    for cell in earlier:
        grouped.setdefault((cell.case, cell.adapter), []).append(cell)
    rows: list[OutcomeRow] = []
    replay: set[tuple[str, str]] = set()
    for (case_id, adapter), cells in grouped.items():
        first = cells[0]
        if (sha.get(case_id) is None or first.case_sha256 != sha[case_id] or fingerprint.get(adapter) is None
                or first.fingerprint != fingerprint[adapter] or first.outcome == OutcomeKind.UNAVAILABLE):
            continue
        # attempts that disagreed are not one outcome: every one of them is replayed (or the cell runs again)
        if any(c.verdict in (Verdict.FLAKY, Verdict.HARNESS_ERROR) or c.disagreement for c in cells):
            replay.add((case_id, adapter))
            continue
        row = OutcomeRow.of(case_id, adapter, first.implementation, first.version, [c.role for c in cells],
                            first.typed, first.duration_s, previous_case=first.previous_case,
                            fingerprint=first.fingerprint, case_sha256=first.case_sha256)
        row = replace(row, reused_from=first.reused_from or origin)
        rows.append(row)
        if any(c.verdict not in (Verdict.PASS, Verdict.SKIP) for c in cells):  # confirmed then: replay the agreement
            rows.append(replace(row, confirming=True, previous_case=None))
    if replay and attempts_then is not None:
        rows += [replace(r, reused_from=r.reused_from or origin) for r in attempts_then()
                 if (r.case, r.adapter) in replay and r.case_sha256 == sha[r.case]
                 and r.fingerprint == fingerprint[r.adapter]]
    return rows
