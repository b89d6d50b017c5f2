"""Run-to-run changes: cells whose verdict changed between two runs, and cells present in only one."""

from __future__ import annotations

from dataclasses import dataclass

from parquet_conformance.conformance.model import Cell, Verdict


@dataclass(frozen=True)
class Change:
    case: str
    adapter: str
    role: str
    before: Verdict | None  # None: the cell is not in the first run
    after: Verdict | None  # None: the cell is not in the second run
    version_before: str | None
    version_after: str | None

    @property
    def kind(self) -> str:
        if self.before is None:
            return "added"
        if self.after is None:
            return "removed"
        if self.before == Verdict.PASS and self.after.is_failure:
            return "regression"
        if self.after == Verdict.PASS and self.before.is_failure:
            return "fix"
        return "change"


def diff_runs(a: list[Cell], b: list[Cell]) -> list[Change]:
    old = {(c.case, c.adapter, c.role): c for c in a}
    new = {(c.case, c.adapter, c.role): c for c in b}
    out = []
    for key in sorted(old.keys() | new.keys()):
        x, y = old.get(key), new.get(key)
        if x is None or y is None or x.verdict != y.verdict:
            out.append(Change(*key, before=x.verdict if x else None, after=y.verdict if y else None,
                              version_before=x.version if x else None, version_after=y.version if y else None))
    return out
