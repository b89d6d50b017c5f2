"""`bisect`: many releases of one implementation (harness/releases.py), on the executor `--master` names.

`bisect` runs one case, or every case a glob selects, over the ordered releases: the oldest, the newest,
then a binary search for the first release whose verdicts differ from the oldest's. The verdicts are
the Judge's, as in `run`, each release with its own baseline (its reading of the unmodified base). Every
release tried is printed, so a history that is not monotonic shows.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from parquet_conformance.app.console import conf, end_progress, progress_line
from parquet_conformance.conformance.harness import envs
from parquet_conformance.conformance.harness.cells import run_cells
from parquet_conformance.conformance.harness.executor import Executor
from parquet_conformance.conformance.harness.judge import Judge
from parquet_conformance.conformance.harness.model import Outcome, OutcomeKind, OutcomeRow, Read
from parquet_conformance.conformance.harness.placement import executor_for
from parquet_conformance.conformance.harness.reading import Attempt
from parquet_conformance.conformance.harness.releases import released
from parquet_conformance.conformance.harness.specs import AdapterSpec, representations
from parquet_conformance.corpus import dist
from parquet_conformance.corpus.build import generate
from parquet_conformance.corpus.model import CaseEntry, Manifest, matches
from parquet_conformance.kernel.errors import UsageError

Progress = Callable[[str], None]


# -- bisect ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Trial:
    version: str
    verdicts: tuple[tuple[str, str], ...]  # (case, verdict) per case and role judged, in case order
    outcomes: dict[str, Outcome]  # case -> outcome

    def summary(self) -> str:
        counts: dict[str, int] = {}
        for _, verdict in self.verdicts:
            counts[verdict] = counts.get(verdict, 0) + 1
        return ", ".join(f"{v} {n}" for v, n in sorted(counts.items()))


@dataclass(frozen=True)
class Bisection:
    adapter: str
    cases: list[str]
    releases: list[str]
    trials: dict[str, Trial]  # version -> what it did, for every release tried
    boundary: str | None  # the first release whose verdicts differ from the oldest's
    before: str | None  # the release before it


def outcome_text(outcome: Outcome) -> str:
    if isinstance(outcome, Read):
        return f"read, {outcome.rows} rows"
    error = getattr(outcome, "error", None)
    detail = f"{error.cls}: {error.message}" if error is not None else str(getattr(outcome, "reason", ""))
    return f"{outcome.kind}: {' '.join(detail.split())[:160]}" if detail else str(outcome.kind)


def corpus_for(pattern: str, corpus: Path | None, workdir: Path) -> tuple[Path, Manifest, list[CaseEntry]]:
    """The cases the pattern selects, in a given corpus or generated (with the bases) into workdir."""
    if corpus is None:
        corpus = workdir / "corpus"
        try:
            generate(corpus, only=f"{pattern},base/*")
        except ValueError as e:
            raise UsageError(str(e)) from None
    try:
        root, manifest = dist.read_manifest(corpus)
    except dist.DistError as e:
        raise UsageError(str(e)) from None
    cases = [c for c in manifest.cases if matches(c.id, pattern)]
    if not cases:
        raise UsageError(f"no case matches {pattern!r}")
    return root, manifest, cases


def bisect(name: str, pattern: str, start: str | None = None, stop: str | None = None, corpus: Path | None = None,
           progress: Progress | None = None, master: str = "none", spark_conf: dict[str, str] | None = None,
           ) -> Bisection:
    versions = released(name, start, stop)
    with (executor_for(master, spark_conf, say=progress) as executor,
          tempfile.TemporaryDirectory(prefix="pqc-bisect-") as tmp):
        root, manifest, cases = corpus_for(pattern, corpus, Path(tmp))
        trials: dict[str, Trial] = {}

        def trial(version: str) -> Trial | None:
            if version not in trials:
                if progress:
                    progress(f"trying {name} {version}")
                found = try_release(name, version, root, manifest, cases, executor)
                if found is None:
                    return None
                trials[version] = found
            return trials[version]

        candidates = list(versions)
        first = last = None
        while candidates and (first := trial(candidates[0])) is None:
            candidates.pop(0)
        while len(candidates) > 1 and (last := trial(candidates[-1])) is None:
            candidates.pop()
        if first is None or last is None or first.verdicts == last.verdicts:
            return Bisection(name, [c.id for c in cases], versions, trials, None, None)
        lo, hi = 0, len(candidates) - 1  # verdicts(lo) == first's, verdicts(hi) != first's
        while hi - lo > 1:
            mid = (lo + hi) // 2
            got = trial(candidates[mid])
            if got is None:  # not installable: leave it out
                candidates.pop(mid)
                hi -= 1
            elif got.verdicts == first.verdicts:
                lo = mid
            else:
                hi = mid
        return Bisection(name, [c.id for c in cases], versions, trials, candidates[hi], candidates[lo])


def try_release(name: str, version: str, root: Path, manifest: Manifest, cases: list[CaseEntry],
                executor: Executor) -> Trial | None:
    """One release on the cases, on the executor; None when it is unavailable."""
    spec = AdapterSpec.parse(f"{name}=={version}")
    rows = read_trial(executor, spec, root, manifest, cases)
    return None if rows is None else judge_trial(version, rows, manifest, cases, Judge.of(manifest, root,
                                                                                          representations([spec])))


def read_trial(executor: Executor, spec: AdapterSpec, root: Path, manifest: Manifest,
               cases: list[CaseEntry]) -> list[OutcomeRow] | None:
    """The release's attempts at the cases and their bases' baseline cases (as `run` reads cells:
    cells.run_cells); None when it is unavailable."""
    known = {c.id for c in manifest.cases}
    baselines = [b for c in cases if (b := manifest.bases[c.base].baseline_case) and b in known]
    jobs = [(manifest.case(case_id), Attempt()) for case_id in dict.fromkeys([*baselines, *(c.id for c in cases)])]
    rows: list[OutcomeRow] = []
    run_cells(executor, jobs, root, [spec], rows.extend, manifest=manifest)
    if any(r.outcome == OutcomeKind.UNAVAILABLE for r in rows):
        return None
    return rows


def judge_trial(version: str, rows: list[OutcomeRow], manifest: Manifest, cases: list[CaseEntry],
                judge: Judge | None = None) -> Trial:
    """The cases' verdicts from the release's attempts, by the run's Judge (its baselines its own; `judge`: one with
    the release's documented representations and the corpus's expected data)."""
    order = {c.id: i for i, c in enumerate(cases)}
    cells = sorted((c for c in (judge or Judge.of(manifest)).cells(rows) if c.case in order),
                   key=lambda c: order[c.case])
    return Trial(version, tuple((c.case, str(c.verdict)) for c in cells),
                 {r.case: r.typed for r in rows if r.case in order})


def bisection_text(b: Bisection) -> str:
    span = f"{b.releases[0]} .. {b.releases[-1]}"
    what = b.cases[0] if len(b.cases) == 1 else f"{len(b.cases)} cases"
    lines = [f"bisect {b.adapter} on {what}: {len(b.releases)} releases {span}, {len(b.trials)} tried"]
    for version in sorted(b.trials, key=envs.version_key):
        mark = "  <- first different" if version == b.boundary else ""
        lines.append(f"  {version:<12} {b.trials[version].summary()}{mark}")
    if b.boundary is None or b.before is None:
        oldest = min(b.trials, key=envs.version_key, default=None)
        lines.append(f"no boundary: every release tried gives the verdicts of {oldest}" if oldest else
                     "no release could be installed")
        return "\n".join(lines)
    old, new = b.trials[b.before], b.trials[b.boundary]
    lines.append(f"first release whose verdicts differ from {min(b.trials, key=envs.version_key)}'s: {b.boundary} "
                 f"(after {b.before})")
    before = dict(old.verdicts)
    for case, verdict in new.verdicts:
        if before.get(case) != verdict:
            lines.append(f"  {case}\n    {b.before}: {before.get(case)} ({outcome_text(old.outcomes[case])})"
                         f"\n    {b.boundary}: {verdict} ({outcome_text(new.outcomes[case])})")
    return "\n".join(lines)


def command(args: argparse.Namespace) -> int:
    result = bisect(args.adapter, args.case, args.from_version, args.to_version,
                    Path(args.corpus) if args.corpus else None, progress_line, args.master, conf(args.conf))
    end_progress()
    print(bisection_text(result))
    return 0
