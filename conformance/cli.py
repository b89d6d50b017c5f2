"""The `parquet-conformance` command line.

Exit codes: 0 success; 1 the thing examined is bad (an invalid file); 2 bad usage or input
that cannot be used at all (missing file, unwritable directory). Errors are one line on
stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
import time
from pathlib import Path

from conformance import __version__


class UsageError(Exception):
    """Bad input from the user: reported in one line, exit code 2."""


def _progress(i: int, total: int, label: str) -> None:
    if sys.stderr.isatty():
        print(f"\r[{i + 1}/{total}] {label[:70]:<70}", end="", file=sys.stderr, flush=True)
    elif (i + 1) % 25 == 0 or i + 1 == total:
        print(f"[{i + 1}/{total}] {label}", file=sys.stderr, flush=True)


def cmd_generate(args: argparse.Namespace) -> int:
    from corpus.build import generate

    start = time.monotonic()
    try:
        manifest = generate(Path(args.out), seed=args.seed, only=args.only, large=args.large, progress=_progress)
    except (FileExistsError, ValueError) as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"cannot write {args.out}: {e.strerror or e}") from None
    if sys.stderr.isatty():
        print(file=sys.stderr)
    cases = manifest["cases"]
    kinds = {k: sum(1 for c in cases if c["kind"] == k) for k in ("golden", "nonconforming", "corrupt")}
    print(f"wrote {len(cases)} cases ({', '.join(f'{v} {k}' for k, v in kinds.items())}) and "
          f"{len(manifest['bases'])} bases to {args.out} in {time.monotonic() - start:.1f}s")
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    from conformance.inspect import format_text, inspect_file

    path = Path(args.file)
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    try:
        report = inspect_file(path)
    except OSError as e:
        raise UsageError(f"{path}: {e.strerror or e}") from None
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(format_text(report))
        if not report["valid"]:
            print(f"{path}: {report['error']}", file=sys.stderr)
    return 0 if report["valid"] else 1


def _specs(args: argparse.Namespace) -> list:
    from conformance.adapters import BUILTIN
    from conformance.cells import AdapterSpec

    names = args.adapter or ([] if args.adapter_cmd else list(BUILTIN))
    unknown = [n for n in names if n not in BUILTIN]
    if unknown:
        raise UsageError(f"unknown adapter {unknown[0]!r}; known: {', '.join(BUILTIN)}")
    try:
        external = [AdapterSpec.parse_external(t) for t in args.adapter_cmd or []]
    except ValueError as e:
        raise UsageError(str(e)) from None
    return [AdapterSpec(n) for n in names] + external


def cmd_adapters(args: argparse.Namespace) -> int:
    from conformance.cells import describe

    rows = [describe(spec) for spec in _specs(args)]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for r in rows:
        state = f"{r['version']}" if r["available"] else f"unavailable: {r['reason']}"
        print(f"{r['adapter']:<13} {r['implementation']:<32} {','.join(r['roles']):<16} {state}")
    return 0


def cmd_read(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    specs = _specs(args)
    if len(specs) != 1:
        raise UsageError("read takes exactly one --adapter or --adapter-cmd")
    worker = specs[0].worker()
    try:
        outcome = worker.read(str(path.resolve()))
        info = worker.info or {}
    finally:
        worker.close()
    report = {"adapter": specs[0].name, "implementation": info.get("implementation", worker.adapter.implementation),
              "version": info.get("version"), "outcome": outcome.outcome,
              "error": ({"class": outcome.error_class, "message": outcome.error_message}
                        if outcome.error_class or outcome.error_message else None),
              "rows": outcome.rows, "data_hash": outcome.data_hash, "duration_s": round(outcome.duration_s, 4)}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{report['adapter']} ({report['implementation']} {report['version']}): {report['outcome']}"
              + (f", {report['rows']} rows, data {report['data_hash'][:16]}" if outcome.outcome == "read" else "")
              + (f"\n  {outcome.error_class}: {outcome.error_message}" if report["error"] else ""))
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from conformance.cells import judge, run_cells
    from corpus.build import generate

    out = Path(args.out)
    corpus = Path(args.corpus) if args.corpus else out / "corpus"
    manifest_path = corpus / "manifest.json"
    if args.corpus and not manifest_path.is_file():
        raise UsageError(f"{corpus}: no manifest.json (make one with `parquet-conformance generate`)")
    if not manifest_path.is_file():
        print(f"generating the corpus into {corpus}", file=sys.stderr)
        generate(corpus, seed=args.seed)
    try:
        manifest = json.loads(manifest_path.read_text())
    except ValueError as e:
        raise UsageError(f"{manifest_path}: not JSON ({e})") from None
    specs = _specs(args)
    cases = [c for c in manifest["cases"] if not args.only or fnmatch.fnmatch(c["id"], args.only)]
    if not cases:
        raise UsageError(f"no case matches {args.only!r}")
    # Baselines first: verdicts compare each cell with its adapter's reading of the base.
    cases.sort(key=lambda c: not c["id"].startswith("base/"))
    total = len(cases) * len(specs)
    done = iter(range(total))
    start = time.monotonic()
    rows = list(run_cells(((c["id"], (corpus / c["file"]).resolve()) for c in cases), specs,
                          progress=lambda case, adapter: _progress(next(done), total, f"{adapter}: {case}")))
    if sys.stderr.isatty():
        print(file=sys.stderr)
    cells = judge(rows, manifest)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps({"cells": cells}, indent=1) + "\n")
    print(summary_table(cells))
    print(f"{len(cells)} cells in {time.monotonic() - start:.1f}s; results in {out / 'results.json'}")
    return 0


def summary_table(cells: list[dict]) -> str:
    from collections import Counter

    lines = [f"{'adapter':<13} {'version':<10} {'pass':>5} {'fail':>5} {'skip':>5}  failures"]
    for adapter in dict.fromkeys(c["adapter"] for c in cells):
        mine = [c for c in cells if c["adapter"] == adapter]
        verdicts = Counter(c["verdict"] for c in mine)
        fails = sum(v for k, v in verdicts.items() if k.startswith("fail"))
        detail = ", ".join(f"{k[5:]} {v}" for k, v in sorted(verdicts.items()) if k.startswith("fail"))
        lines.append(f"{adapter:<13} {mine[0]['version'] or '-'!s:<10} {verdicts['pass']:>5} {fails:>5} "
                     f"{verdicts['skip']:>5}  {detail}")
    return "\n".join(lines)


def _add_adapter_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--adapter", action="append", metavar="NAME",
                   help="a built-in adapter (repeatable; default: all); see `parquet-conformance adapters`")
    p.add_argument("--adapter-cmd", action="append", metavar="NAME=COMMAND",
                   help="an external adapter speaking docs/adapter-protocol.md, e.g. myreader='java -jar r.jar'")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="parquet-conformance",
        description="Conformance suite for Apache Parquet binary protocol extensions (Thrift field 32767): "
                    "generates golden and corrupted files with expectations, and inspects footers.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    gen = sub.add_parser("generate", help="write the corpus: case files, bases, expected data, manifest.json",
                         description="Write every case of the catalog into DIR (cases/, bases/, expected/, "
                                     "manifest.json). Same version + seed = byte-identical output. DIR must be "
                                     "empty, absent, or an earlier corpus (which is replaced).")
    gen.add_argument("--out", required=True, metavar="DIR", help="output directory")
    gen.add_argument("--seed", type=int, default=0, help="seed for random payloads (default 0)")
    gen.add_argument("--only", metavar="PATTERN", help="glob over case ids, e.g. 'ext/size/*' or 'corrupt/*'")
    gen.add_argument("--large", action="store_true", help="also write the 64 MiB and 128 MiB extension cases")
    gen.set_defaults(func=cmd_generate)

    ins = sub.add_parser("inspect", help="print a file's tail, footer structs and every extension found",
                         description="Decode a Parquet file's tail and Thrift footer and list every field-32767 "
                                     "extension (struct, header form, offset, length, sha256, trailing UUID), "
                                     "including those in page headers. Exit 1 if the file is not valid.")
    ins.add_argument("file", metavar="FILE")
    ins.add_argument("--json", action="store_true", help="machine-readable output")
    ins.set_defaults(func=cmd_inspect)

    ada = sub.add_parser("adapters", help="list the adapters: implementation, version, roles, availability",
                         description="Start each adapter's worker once and report what it is, or why it is "
                                     "unavailable (a missing library or runtime never fails a run).")
    _add_adapter_options(ada)
    ada.add_argument("--json", action="store_true", help="machine-readable output")
    ada.set_defaults(func=cmd_adapters)

    rd = sub.add_parser("read", help="read one file with one adapter and print the outcome",
                        description="One cell: the adapter's worker reads FILE; the outcome is read (rows, "
                                    "data_hash of the canonical rows), rejected (error class and message), crash, "
                                    "timeout, oom or unavailable.")
    rd.add_argument("file", metavar="FILE")
    _add_adapter_options(rd)
    rd.add_argument("--json", action="store_true", help="machine-readable output")
    rd.set_defaults(func=cmd_read)

    run = sub.add_parser("run", help="the main job: corpus x adapters, verdicts, results",
                         description="Generate the corpus if needed (or use --corpus), run every available "
                                     "adapter on every case in isolated workers, judge each cell against the "
                                     "case's expectation, and write OUT/results.json.")
    run.add_argument("--corpus", metavar="DIR", help="an existing corpus (default: OUT/corpus, generated if absent)")
    run.add_argument("--out", default="reports/latest", metavar="DIR", help="output directory (default reports/latest)")
    run.add_argument("--only", metavar="PATTERN", help="glob over case ids")
    run.add_argument("--seed", type=int, default=0, help="seed when generating the corpus")
    _add_adapter_options(run)
    run.set_defaults(func=cmd_run)

    from corpus.cli import register as register_corpus_commands

    register_corpus_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except UsageError as e:
        print(f"parquet-conformance: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("parquet-conformance: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
