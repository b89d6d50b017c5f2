"""The small commands: generate, inspect, adapters, read and envs (the run job, fuzz, bisect, the gate, reports and
corpus import have modules of their own)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from parquet_conformance.app.console import (
    end_progress,
    every,
    one_track,
    progress_line,
    selected_tracks,
    specs,
)
from parquet_conformance.conformance.harness import envs as environments
from parquet_conformance.conformance.harness.cells import run_cells
from parquet_conformance.conformance.harness.model import OutcomeKind, OutcomeRow, Verdict, outcome_fields
from parquet_conformance.conformance.harness.reading import Attempt
from parquet_conformance.conformance.harness.specs import AdapterSpec, describe
from parquet_conformance.corpus import dist
from parquet_conformance.corpus import track as tracks
from parquet_conformance.kernel import escape
from parquet_conformance.kernel.errors import UsageError

if TYPE_CHECKING:
    from parquet_conformance.conformance.harness.model import Cell
    from parquet_conformance.conformance.harness.specs import AdapterSpec
    from parquet_conformance.corpus.model import CaseEntry, Manifest


def generate(args: argparse.Namespace) -> int:
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.corpus.build import generate as write_corpus
    from parquet_conformance.corpus.build import pinned_entries

    start = time.monotonic()
    upstream = Path(args.upstream) if args.upstream else None
    try:
        manifest = write_corpus(Path(args.out), seed=args.seed, only=args.only, large=args.large,
                                tracks=selected_tracks(args), progress=every(25), upstream=upstream)
        missing = pinned_entries(selected_tracks(args), upstream, args.only)[1] if upstream else []
    except (FileExistsError, ValueError) as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"cannot write {args.out}: {e.strerror or e}") from None
    end_progress()
    if upstream:
        pinned = sum(1 for c in manifest.cases if c.group == "upstream")
        print(f"{pinned} pinned upstream files from {escape.terminal(str(upstream))} (each matched its sha256); "
              f"{len(missing)} pinned files "
              f"not in it" + (f", e.g. {escape.terminal(missing[0].path)}" if missing else ""))
    kinds: dict[str, int] = {}
    for c in manifest.cases:
        kinds[c.kind] = kinds.get(c.kind, 0) + 1
    print(f"wrote {len(manifest.cases)} cases ({', '.join(f'{v} {k}' for k, v in kinds.items())}) and "
          f"{len(manifest.bases)} bases to {args.out} in {time.monotonic() - start:.1f}s")
    return 0


def inspect(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if path.is_dir():
        raise UsageError(f"{path}: is a directory; inspect takes a file")
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    fmt = one_track(args)
    try:
        report = fmt.inspect(path)
    except OSError as e:
        raise UsageError(f"{path}: {e.strerror or e}") from None
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(fmt.describe_inspection(report))
        if not report["valid"]:
            print(f"{path}: {report['error']}", file=sys.stderr)
        elif args.strict and report.get("findings"):
            print(f"{path}: {len(report['findings'])} finding(s), the first: {report['findings'][0]['message']}",
                  file=sys.stderr)
    return 0 if report["valid"] and not (args.strict and report.get("findings")) else 1


def writing(adapter: object) -> dict[str, Any] | None:
    """What `run --writers` can ask of an adapter (conformance/adapters/writing.py): the profiles it writes with,
    and whether it writes without being named (`--writer NAME`); None: it does not write."""
    from parquet_conformance.conformance.adapters.writing import writes  # start-up: only `adapters` needs it

    if not writes(adapter):
        return None
    return {"profiles": list(getattr(adapter, "profiles", ())), "default": bool(getattr(adapter, "default_writer",
                                                                                         True))}


def adapters(args: argparse.Namespace) -> int:
    rows = []
    chosen = specs(args)
    for i, spec in enumerate(chosen):
        progress_line(f"[{i + 1}/{len(chosen)}] starting {spec.name}")
        rows.append({**describe(spec), "writes": writing(spec.build())})
    end_progress()
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for r in rows:
        state = f"{r['version']}" if r["available"] else f"unavailable: {r['reason']}"
        engine = f" [{r['engine']}]" if r.get("engine") else ""
        w = r["writes"]
        writes = "no writer" if w is None else (f"writes {len(w['profiles'])} profiles"
                                                + ("" if w["default"] else ", by name"))
        print(f"{r['adapter']:<13} {r['track']:<8} {r['implementation'] + engine:<40} {','.join(r['roles']):<16} "
              f"{writes:<20} {state}")
    for name in sorted({r["track"] for r in rows if r["writes"]}):
        track = tracks.get(name)
        if not isinstance(track, tracks.Writable):
            continue
        print(f"\nWriters of {name} (run --writers [--writer NAME ...]; without --writer, every one not marked "
              "\"by name\"), and the profiles each writes with:")
        for r in (r for r in rows if r["track"] == name and r["writes"]):
            print(f"  {r['adapter']}: {', '.join(r['writes']['profiles'])}"
                  + ("" if r["writes"]["default"] else " (only with --writer " + r["adapter"] + ")"))
        print("Profiles:")
        for profile, what in track.write_profiles().items():
            print(f"  {profile}: {what}")
    return 0


def read(args: argparse.Namespace) -> int:
    """One file read by one adapter. A case of a corpus (a file inside one, or a case id with --corpus) is judged as a
    run judges it (judged_read): the verdict and its level, exit 0 for a pass, 1 for a failure or a flaky cell, 2 when
    the adapter is unavailable, 3 for a harness error. Any other file: the outcome alone, exit 0."""
    chosen = specs(args)
    if len(chosen) != 1:
        raise UsageError("read takes exactly one --adapter or --adapter-cmd")
    spec = chosen[0]
    found, why = corpus_case(args.file, Path(args.corpus) if args.corpus else None)
    keys = dict(args.keys or [])
    if found is None:
        return plain_read(spec, Path(args.file), args.op, args.json, why, keys)
    if keys:
        raise UsageError(f"{args.file} is a case of a corpus: it sends its own keys, not --key")
    root, manifest, case = found
    track = spec.build().track
    if case.track != track:
        raise UsageError(f"{case.id} is a case of the {case.track} track; {spec.name} reads {track}")
    if args.op not in ("read", case.op):
        raise UsageError(f"{case.id} asks for --op {case.op}, not {args.op}")
    cells = judged_read(spec, root, manifest, case)
    report = {"case": case.id, "adapter": spec.name, "implementation": cells[0].implementation,
              "version": cells[0].version, **outcome_report(cells[0]),
              "verdicts": [{"role": c.role, "expected": str(c.expected), "verdict": str(c.verdict),
                            "level": str(c.level), "attempts": c.attempts, "disagreement": c.disagreement}
                           for c in cells]}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(outcome_line(report))
        for c in cells:
            confirmed = f", {c.attempts} attempts" if c.attempts > 1 else ""
            print(f"{case.id} [{c.role}]: {c.verdict} ({c.level} expectation: {c.expected}{confirmed})"
                  + (f"; attempts disagree: {c.disagreement}" if c.disagreement else ""))
    verdicts = {c.verdict for c in cells}
    if any(v.is_failure or v == Verdict.FLAKY for v in verdicts):
        return 1
    if Verdict.HARNESS_ERROR in verdicts:
        return 3
    return 2 if any(c.outcome == OutcomeKind.UNAVAILABLE for c in cells) else 0


def corpus_case(file: str, corpus: Path | None) -> tuple[tuple[Path, Manifest, CaseEntry] | None, str]:
    """(corpus root, manifest, case) when FILE is a case of a corpus: a file of `corpus` or a case id there; without
    `corpus`, a file inside the corpus above it. Else None and why it cannot be judged. Every file the judgment rests
    on (the case's, its base's baseline case's, the manifest against its digest) is checked first: DistError."""
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.corpus.verify import verify_cases

    path = Path(file)
    if corpus is None:
        if path.is_dir():
            raise UsageError(f"{path}: is a directory; read takes a file")
        if not path.is_file():
            raise UsageError(f"{path}: no such file (a case id needs --corpus DIR)")
        above = next((d for d in path.resolve().parents if (d / dist.MANIFEST).is_file()), None)
        if above is None:
            return None, "it is in no corpus (a case file of a corpus, or a case id with --corpus DIR, is judged)"
        try:
            root, manifest = dist.read_manifest(above)
        except dist.DistError as e:
            return None, f"{above / dist.MANIFEST} is no corpus's manifest ({e})"
    else:
        root, manifest = dist.read_manifest(corpus)
    target = path.resolve() if path.is_file() else None
    case = next((c for c in manifest.cases if (root / c.file).resolve() == target), None) if target else \
        next((c for c in manifest.cases if c.id == file), None)
    if case is None:
        if corpus is not None:
            raise UsageError(f"{file}: neither a case file of {root} nor a case id there")
        return None, f"it is not a case file of the corpus {root}"
    base = manifest.bases.get(case.base)
    needed = [case.id, *([base.baseline_case] if base and base.baseline_case else [])]
    if problems := verify_cases(root, manifest, needed):
        raise dist.DistError(f"{root}: {problems[0]}; nothing was read")
    return (root, manifest, case), ""


def judged_read(spec: AdapterSpec, root: Path, manifest: Manifest, case: CaseEntry) -> list[Cell]:
    """One case judged as a run judges it (docs/results.md#what-a-verdict-guarantees): the adapter reads the case's
    base unmodified (its baseline case: the same data, a failure that is the base's) and the case, in one worker; a
    cell that did not pass is read again by a new worker (the confirmation, under the run's hang limit), and alone by
    yet another where they disagree; the Judge's cells of the case, one per role."""
    # imported here, not at the top: start-up time (only this path needs it)
    from dataclasses import replace

    from parquet_conformance.conformance.harness.confirm import (
        confirmation_tasks,
        disagreements,
        fresh_jobs,
        hang_limits,
    )
    from parquet_conformance.conformance.harness.executor import LocalExecutor
    from parquet_conformance.conformance.harness.judge import Judge, to_confirm

    executor = LocalExecutor(1)  # one worker at a time: the baseline and the case in one, as a run's task reads
    spec = spec.with_fingerprint()
    known = {c.id for c in manifest.cases}
    base = manifest.bases.get(case.base)
    first = [b for b in ([base.baseline_case] if base and base.baseline_case else []) if b in known and b != case.id]
    rows: list[OutcomeRow] = []
    progress_line(f"{spec.name} reading {case.id}")
    run_cells(executor, [(manifest.case(i), Attempt()) for i in [*first, case.id]], root, [spec], rows.extend,
              manifest=manifest)
    judge = Judge.of(manifest)
    cell = {(case.id, spec.name)}
    if to_confirm(c for c in judge.cells(rows) if c.case == case.id):
        progress_line(f"confirming in a new worker of {spec.name}")
        confirming = replace(spec, timeout_s=hang_limits(rows, [spec])[spec.name])
        tasks = confirmation_tasks(cell, manifest, manifest.seed)
        run_cells(executor, [j for t in tasks for j in t], root, [confirming], rows.extend, tasks=tasks,
                  manifest=manifest)
        if disagreements(rows) & cell:
            progress_line(f"reading it alone in a fresh worker of {spec.name} (the confirmation disagreed)")
            run_cells(executor, fresh_jobs(cell, manifest), root, [confirming], rows.extend, manifest=manifest)
    end_progress()
    return [c for c in judge.cells(rows) if c.case == case.id]


def outcome_report(c: Cell | dict[str, Any]) -> dict[str, Any]:
    """An outcome's fields as `read --json` shows them."""
    flat: dict[str, Any] = c if isinstance(c, dict) else {
        "outcome": c.outcome, "error_class": c.error_class, "error_message": c.error_message, "rows": c.rows,
        "data_hash": c.data_hash, "duration_s": c.duration_s}
    return {"outcome": str(flat["outcome"]),
            "error": ({"class": flat["error_class"], "message": flat["error_message"]}
                      if flat["error_class"] or flat["error_message"] else None),
            "rows": flat["rows"], "data_hash": flat["data_hash"], "duration_s": round(flat["duration_s"], 4)}


def outcome_line(report: dict[str, Any]) -> str:
    error = report["error"]
    return (f"{report['adapter']} ({report['implementation']} {report['version']}): {report['outcome']}"
            + (f", {report['rows']} rows, data {report['data_hash'][:16]}" if report["data_hash"] else "")
            + (f"\n  {': '.join(str(p) for p in (error['class'], error['message']) if p)}" if error else ""))


def plain_read(spec: AdapterSpec, path: Path, op: str, as_json: bool, why: str,
               keys: Mapping[str, str] | None = None) -> int:
    """FILE read once by the adapter's worker (with `keys` for an operation that takes them): the outcome, and why no
    verdict can be given."""
    worker = spec.worker()
    try:
        timed = worker.read(str(path.resolve()), op=op, keys=keys)
        info = worker.info
    finally:
        worker.close()
    report = {"adapter": spec.name, "implementation": info.implementation if info else worker.adapter.implementation,
              "version": info.version if info else None,
              **outcome_report({**outcome_fields(timed.outcome), "duration_s": timed.duration_s}),
              "verdict": None, "not_judged": why}
    if as_json:
        print(json.dumps(report, indent=1))
    else:
        print(outcome_line(report))
        print(f"no verdict: {why}")
    return 0


def envs(args: argparse.Namespace) -> int:
    if args.action == "prune":
        names = None if not args.all else [e.name for e in environments.listing()]
        if args.release:
            names = [environments.environment(AdapterSpec.parse(r).build()).name for r in args.release]
        removed = environments.prune(names)
        print(f"removed {len(removed)} environments, {environments.human(sum(e.size for e in removed))}: "
              + (", ".join(e.name for e in removed) or "none"))
        return 0
    rows = environments.listing()
    for e in rows:
        state = f"made in {e.seconds}s" if e.ready else "incomplete"
        print(f"{e.name:<32} {e.package:<18} {e.version:<12} {environments.human(e.size):>10}  {state}")
    print(f"{len(rows)} environments, {environments.human(sum(e.size for e in rows))} in {environments.root()}")
    return 0
