"""Cells: (case, adapter) pairs, run through persistent workers and judged.

`run_cells` is what one executor does with its share of the corpus (the whole corpus when
run locally, a partition inside a Spark task); `judge` adds expectations and verdicts once
all outcomes, including each adapter's baseline on `base/*`, are known.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from conformance import adapters
from conformance.adapters import Adapter, CommandAdapter
from conformance.runner import Worker
from conformance.verdict import judge_cell


@dataclass(frozen=True)
class AdapterSpec:
    """A built-in adapter by name, or an external one by command line."""
    name: str
    command: str | None = None

    @staticmethod
    def parse_external(text: str) -> AdapterSpec:
        name, sep, command = text.partition("=")
        if not sep or not name or not command.strip():
            raise ValueError(f"--adapter-cmd wants NAME='command ...', got {text!r}")
        return AdapterSpec(name.strip(), command)

    def adapter(self) -> Adapter:
        if self.command is None:
            return adapters.get(self.name)
        ext = CommandAdapter()
        ext.name, ext.implementation = self.name, self.name
        return ext

    def worker(self) -> Worker:
        return Worker(self.adapter(), shlex.split(self.command) if self.command else None)


def describe(spec: AdapterSpec) -> dict:
    """Start the adapter's worker once: its description, or why it is unavailable."""
    worker = spec.worker()
    try:
        info = worker.start()
        return {**spec.adapter().describe(), **info, "available": True, "reason": None}
    except adapters.Unavailable as e:
        return {**spec.adapter().describe(), "version": None, "available": False, "reason": str(e)}
    finally:
        worker.close()


class WorkerSet:
    """One persistent worker per adapter; `run` gives one outcome row per adapter for a case."""

    def __init__(self, specs: list[AdapterSpec]) -> None:
        self.workers = {spec.name: spec.worker() for spec in specs}

    def run(self, case_id: str, path: Path, progress: Callable[[str, str], None] | None = None) -> list[dict]:
        rows = []
        for name, worker in self.workers.items():
            if progress:
                progress(case_id, name)
            outcome = worker.read(str(path), case_id)
            info = worker.info or {}
            rows.append({"case": case_id, "adapter": name,
                         "implementation": info.get("implementation", worker.adapter.implementation),
                         "version": info.get("version"), "roles": info.get("roles", list(worker.adapter.roles)),
                         **outcome.to_dict()})
        return rows

    def close(self) -> None:
        for worker in self.workers.values():
            worker.close()


def run_cells(cases: Iterable[tuple[str, Path]], specs: list[AdapterSpec],
              progress: Callable[[str, str], None] | None = None) -> Iterator[dict]:
    """Yields one outcome row per (case, adapter); workers live as long as the iteration."""
    workers = WorkerSet(specs)
    try:
        for case_id, path in cases:
            yield from workers.run(case_id, path, progress)
    finally:
        workers.close()


def judge(rows: list[dict], manifest: dict) -> list[dict]:
    """Adds role, expectation and verdict to each outcome row (one row per role the adapter has)."""
    cases = {c["id"]: c for c in manifest["cases"]}
    baseline = {(r["adapter"], r["case"]): r["data_hash"] for r in rows if r["case"].startswith("base/")}
    out = []
    for r in rows:
        case = cases[r["case"]]
        base_hash = baseline.get((r["adapter"], f"base/{case['base']}"))
        roles = r["roles"] or ["legacy"]
        # The roles this case speaks to; an aware reader meets other files as a legacy reader.
        for role in [x for x in roles if x in case["expect"]] or roles[:1]:
            expected, verdict = judge_cell(case, manifest, role, r["outcome"], r["data_hash"], r.get("metadata"),
                                           base_hash)
            out.append({**{k: v for k, v in r.items() if k != "roles"}, "role": role, "expected": expected,
                        "group": case["group"], "kind": case["kind"], "verdict": verdict})
    return out
