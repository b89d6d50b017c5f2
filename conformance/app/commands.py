"""The small commands: generate, inspect, adapters, read and envs (the run job, fuzz, bisect, the gate, reports and
corpus import have modules of their own)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from parquet_conformance.conformance.app.console import (
    end_progress,
    every,
    one_track,
    progress_line,
    selected_tracks,
    specs,
)
from parquet_conformance.kernel import escape
from parquet_conformance.kernel.errors import UsageError


def generate(args: argparse.Namespace) -> int:
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


def adapters(args: argparse.Namespace) -> int:
    from parquet_conformance.conformance.harness.execute import describe

    rows = []
    chosen = specs(args)
    for i, spec in enumerate(chosen):
        progress_line(f"[{i + 1}/{len(chosen)}] starting {spec.name}")
        rows.append(describe(spec))
    end_progress()
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for r in rows:
        state = f"{r['version']}" if r["available"] else f"unavailable: {r['reason']}"
        engine = f" [{r['engine']}]" if r.get("engine") else ""
        print(f"{r['adapter']:<13} {r['track']:<8} {r['implementation'] + engine:<40} {','.join(r['roles']):<16} "
              f"{state}")
    return 0


def read(args: argparse.Namespace) -> int:
    from parquet_conformance.conformance.harness.model import outcome_fields

    path = Path(args.file)
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    chosen = specs(args)
    if len(chosen) != 1:
        raise UsageError("read takes exactly one --adapter or --adapter-cmd")
    worker = chosen[0].worker()
    try:
        timed = worker.read(str(path.resolve()), op=args.op)
        info = worker.info
    finally:
        worker.close()
    flat = outcome_fields(timed.outcome)
    implementation = info.implementation if info else worker.adapter.implementation
    report = {"adapter": chosen[0].name, "implementation": implementation,
              "version": info.version if info else None, "outcome": str(timed.outcome.kind),
              "error": ({"class": flat["error_class"], "message": flat["error_message"]}
                        if flat["error_class"] or flat["error_message"] else None),
              "rows": flat["rows"], "data_hash": flat["data_hash"], "duration_s": round(timed.duration_s, 4)}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{report['adapter']} ({report['implementation']} {report['version']}): {report['outcome']}"
              + (f", {report['rows']} rows, data {report['data_hash'][:16]}" if report["data_hash"] else "")
              + (f"\n  {': '.join(str(p) for p in (flat['error_class'], flat['error_message']) if p)}"
                 if report["error"] else ""))
    return 0


def envs(args: argparse.Namespace) -> int:
    from parquet_conformance.conformance.harness import envs as environments
    from parquet_conformance.conformance.harness.execute import AdapterSpec

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
