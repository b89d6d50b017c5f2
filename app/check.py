"""`parquet-conformance check`: one adapter's verdicts in a run against its expected-failure list (the rule per
cell is the gate's, conformance/harness/gate.py, which the pytest plugin applies too), and what must hold before
the gate can say anything: the adapter ran and was available, the corpus is the one the run used, and the
selection is the run's."""

from __future__ import annotations

import argparse
from pathlib import Path

from parquet_conformance.conformance.harness import gate
from parquet_conformance.conformance.harness.model import Cell, OutcomeKind
from parquet_conformance.conformance.harness.results import RunRecord, read_cells, read_record, run_path
from parquet_conformance.corpus import dist
from parquet_conformance.corpus.model import Level
from parquet_conformance.kernel.errors import UsageError
from parquet_conformance.reports.model import scores


def preconditions(args: argparse.Namespace, results: Path, run_id: str, cells: list[Cell],
                  record: RunRecord | None) -> list[Cell]:
    """The adapter's cells of the run, once the gate can judge them; UsageError (exit 2) otherwise."""
    mine = [c for c in cells if c.adapter == args.adapter]
    if not mine:
        adapters = sorted({c.adapter for c in cells})
        raise UsageError(f"adapter {args.adapter!r} is not in run {run_id} (it has: {', '.join(adapters)})")
    if all(c.verdict == "skip" for c in mine):
        why = next((c.error_message for c in mine if c.outcome == OutcomeKind.UNAVAILABLE and c.error_message), None)
        raise UsageError(f"adapter {args.adapter!r} was unavailable in run {run_id}" + (f": {why}" if why else ""))
    corpus = run_path(results, record.info.corpus) if record is not None and record.info.corpus else None
    if record is not None and corpus is not None and corpus.is_dir():  # the corpus is still there: the one run?
        # Its manifest's digest names it (the run checked every file against that manifest as it began).
        digest = dist.manifest_digest(dist.find_root(corpus))
        if digest != record.info.corpus_digest:
            raise UsageError(f"{corpus} changed since run {run_id} (manifest digest {digest[:16]}, the run "
                             f"used {record.info.corpus_digest[:16]})")
    if record is not None and record.info.only != args.only:
        what = f"only {record.info.only!r}" if record.info.only else "the whole corpus"
        raise UsageError(f"run {run_id} covered {what}; the gate checks {args.only or 'the whole corpus'!r} "
                         f"(pass --only {record.info.only!r} to gate that selection)" if record.info.only else
                         f"run {run_id} covered the whole corpus; drop --only")
    return mine


def expected_lists(given: list[str], adapters: list[str], known: set[str]) -> tuple[dict[str, list[gate.Entry]],
                                                                                  list[str]]:
    """`run`'s and `report --rewrite`'s `--expected-failures [ADAPTER=]FILE` (repeatable): adapter -> its entries (a
    list without ADAPTER= is every other adapter's), and the lists' file names as the reports show them."""
    lists: dict[str, list[gate.Entry]] = {}
    shared: list[gate.Entry] | None = None
    names = []
    for text in given:
        name, sep, rest = text.partition("=")
        named = bool(sep) and name in adapters
        path = Path(rest if named else text)
        if not path.is_file():
            raise UsageError(f"--expected-failures {text}: no such file")
        entries = gate.load_expected(path, known)
        names.append(f"{path.name} ({name})" if named else path.name)
        if named:
            lists[name] = entries
        elif shared is not None:
            raise UsageError("--expected-failures: one list without ADAPTER= at most (name the adapter: NAME=FILE)")
        else:
            shared = entries
    if shared is not None:
        lists.update({a: shared for a in adapters if a not in lists})
    return lists, names


def command(args: argparse.Namespace) -> int:
    path = Path(args.expected_failures)
    results = Path(args.results)
    run_id, cells = read_cells(results, args.run)
    record = read_record(results, run_id)
    mine = preconditions(args, results, run_id, cells, record)
    level = Level(args.level)
    if args.write_expected_failures:
        if not path.parent.is_dir():
            raise UsageError(f"{path.parent}: no such directory")
        path.write_text(gate.expected_failures_text(args.adapter, run_id, mine, level), encoding="utf-8")
        print(f"wrote {sum(c.verdict.is_failure and gate.enforced(c, level) for c in mine)} expected failures "
              f"(level {level}) to {path}")
        return 0
    if path.is_dir():
        raise UsageError(f"{path}: is a directory, not an expected-failure list")
    if not path.exists():
        raise UsageError(f"{path}: no such file (create it with --write-expected-failures)")
    known = set(record.corpus_cases) if record else {c.case for c in cells}
    result = gate.check(mine, gate.load_expected(path, known), level)
    for c in result.unexpected_failures:
        print(f"UNEXPECTED FAILURE {c.case} [{c.role}]: {c.verdict}")
    for c in result.unexpected_passes:
        print(f"UNEXPECTED PASS    {c.case} [{c.role}] (remove it from {path})")
    for c, want in result.changed_failures:
        print(f"CHANGED FAILURE    {c.case} [{c.role}]: expected {want}, got {c.verdict}")
    for e in result.not_run:
        print(f"note: {e.case} (line {e.line}) is listed but was not run")
    for c in result.unjudged:
        print(f"HARNESS ERROR      {c.case} [{c.role}]: {c.error_message} "
              f"(parquet-conformance failed, not {args.adapter})")
    for c in result.flaky:
        print(f"FLAKY              {c.case} [{c.role}]: {c.attempts} attempts disagree: {c.disagreement}")
    for c in result.below_level:
        print(f"BELOW LEVEL        {c.case} [{c.role}]: {c.verdict} of a {c.level} expectation (not enforced at "
              f"level {level})")
    for c in result.representations:
        print(f"REPRESENTATION     {c.case} [{c.role}]: the data in the form {args.adapter}'s library documents "
              f"({', '.join(c.representations)}): neither a pass nor a failure")
    failed = not result.ok or (args.fail_on_flaky and bool(result.flaky))
    status = "FAILED" if failed else "INCOMPLETE" if result.unjudged else "ok"
    [score] = scores(mine)
    print(f"gate {status}: {args.adapter} in run {run_id} at level {level}, {len(mine)} cells "
          f"({score.level_text()}), {sum(c.verdict.is_failure for c in mine)} failing"
          f"{f' ({len(result.below_level)} below the level)' if result.below_level else ''}, "
          f"{len(result.flaky)} flaky"
          f"{' (failing the gate: --fail-on-flaky)' if args.fail_on_flaky and result.flaky else ''}, "
          f"{len(result.representations)} in a documented representation, {len(result.unjudged)} not judged")
    return 1 if failed else 3 if result.unjudged else 0
