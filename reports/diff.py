"""Run-to-run changes: cells whose verdict changed between two runs, kept apart from cells present in only one
of them (a case or an adapter added or dropped says nothing about a reader getting better or worse)."""

from __future__ import annotations

from dataclasses import dataclass

from parquet_conformance.conformance.harness.model import Cell, Verdict


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
            return "regression"  # newly failing
        if self.after == Verdict.PASS and self.before.is_failure:
            return "fix"
        return "change"

    def to_json(self) -> dict[str, object]:
        return {"case": self.case, "adapter": self.adapter, "role": self.role, "before": self.before,
                "after": self.after, "kind": self.kind, "version_before": self.version_before,
                "version_after": self.version_after}


@dataclass(frozen=True)
class RunDiff:
    changes: list[Change]  # cells of both runs whose verdict changed
    only_before: list[Change]  # cells only the first run has
    only_after: list[Change]  # cells only the second run has

    def of_kind(self, kind: str) -> list[Change]:
        return [c for c in self.changes if c.kind == kind]


def diff_runs(a: list[Cell], b: list[Cell]) -> RunDiff:
    old = {(c.case, c.adapter, c.role): c for c in a}
    new = {(c.case, c.adapter, c.role): c for c in b}
    out = []
    for key in sorted(old.keys() | new.keys()):
        x, y = old.get(key), new.get(key)
        if x is None or y is None or x.verdict != y.verdict:
            out.append(Change(*key, before=x.verdict if x else None, after=y.verdict if y else None,
                              version_before=x.version if x else None, version_after=y.version if y else None))
    return RunDiff(changes=[c for c in out if c.before is not None and c.after is not None],
                   only_before=[c for c in out if c.after is None], only_after=[c for c in out if c.before is None])
