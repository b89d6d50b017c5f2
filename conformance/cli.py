"""The `parquet-conformance` command line.

Exit codes: 0 success; 1 the thing examined is bad (an invalid file); 2 bad usage or input
that cannot be used at all (missing file, unwritable directory). Errors are one line on
stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from conformance import __version__
from conformance.errors import UsageError


def _progress(i: int, total: int, label: str, every: int = 25) -> None:
    """One updating line on a terminal; otherwise a line every `every` steps and at the end."""
    if sys.stderr.isatty():
        print(f"\r[{i + 1}/{total}] {label[:70]:<70}", end="", file=sys.stderr, flush=True)
    elif (i + 1) % every == 0 or i + 1 == total:
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
    kinds = {k: sum(1 for c in cases if c["kind"] == k) for k in dict.fromkeys(c["kind"] for c in cases)}
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


def _load_manifest(corpus: Path) -> dict:
    path = corpus / "manifest.json"
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise UsageError(f"{corpus}: no manifest.json (make one with `parquet-conformance generate`)") from None
    except ValueError as e:
        raise UsageError(f"{path}: not JSON ({e})") from None


def _conf(pairs: list[str] | None) -> dict[str, str]:
    out = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--conf wants KEY=VALUE, got {pair!r}")
        out[key] = value
    return out


def cmd_run(args: argparse.Namespace) -> int:
    from conformance import pipeline
    from corpus.build import generate
    from corpus.catalog import matches
    from reports.render import write_reports

    out = Path(args.out)
    corpus = Path(args.corpus) if args.corpus else out / "corpus"
    specs, conf = _specs(args), _conf(args.conf)
    t0 = time.monotonic()
    if not args.corpus and not (corpus / "manifest.json").is_file():
        print(f"generating the corpus into {corpus}", file=sys.stderr)
        generate(corpus, seed=args.seed)
    generation_s = time.monotonic() - t0
    manifest = _load_manifest(corpus)
    def only(case_id: str) -> bool:
        return matches(case_id, args.only)

    if not any(only(c["id"]) for c in manifest["cases"]):
        raise UsageError(f"no case matches {args.only!r}")
    run_id = args.resume or args.run_id or pipeline.new_run_id()
    if args.resume and args.master == "none":
        raise UsageError("--resume needs Spark (the staged outcomes); drop --master none")
    if not args.resume and ((out / "results" / f"run={run_id}").exists() or
                            (out / "staging" / f"run={run_id}").exists()):
        raise UsageError(f"run {run_id} already exists in {out}; use --resume {run_id} or another --run-id")

    def progress(done: int, total: int) -> None:  # called once per chunk of cases
        _progress(done - 1, total, f"cases done, {time.monotonic() - t0:.0f}s", every=1)

    if args.master == "none":
        cells, timings = pipeline.run_local(manifest, corpus, specs, only, progress)
    else:
        cells, timings = pipeline.run_on_spark(manifest, corpus, specs, out, run_id, master=args.master, conf=conf,
                                               resume=bool(args.resume), only=only, progress=progress)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    t1 = time.monotonic()
    pipeline.write_results(cells, out / "results", run_id)
    run = {"id": run_id, "generator_version": manifest["generator"]["version"], "seed": manifest["seed"],
           "master": args.master, "corpus": str(corpus), "only": args.only}
    write_reports(cells, manifest, run, out)
    reports_s = time.monotonic() - t1
    print(summary_table(cells))
    print(f"{len(cells)} cells, {len(cells) / max(timings.cells_s, 1e-9):.1f} cells/s; time: generation "
          f"{generation_s:.1f}s, Spark start {timings.spark_start_s:.1f}s, cells {timings.cells_s:.1f}s, "
          f"reports {reports_s:.1f}s")
    print(f"run {run_id}: {out / 'report.html'}, results.json, summary.md, junit/, results/run={run_id}/")
    return 0


def _run_cells(results: Path, run_id: str | None) -> tuple[str, list[dict]]:
    from conformance.pipeline import read_results

    if not results.is_dir():
        raise UsageError(f"{results}: no results dataset (run `parquet-conformance run` first)")
    table = read_results(results)
    runs = sorted(set(table.column("run").to_pylist())) if table.num_rows else []
    if not runs:
        raise UsageError(f"{results}: the results dataset holds no run")
    run_id = run_id or runs[-1]
    if run_id not in runs:
        raise UsageError(f"no run {run_id!r} in {results}; runs: {', '.join(runs[-5:])}")
    return run_id, [r for r in table.to_pylist() if r["run"] == run_id]


def cmd_report(args: argparse.Namespace) -> int:
    from reports.diff import diff_runs

    results = Path(args.results)
    run_a, cells_a = _run_cells(results, args.diff[0])
    run_b, cells_b = _run_cells(results, args.diff[1])
    changes = diff_runs(cells_a, cells_b)
    if args.json:
        print(json.dumps({"before": run_a, "after": run_b, "changes": changes}, indent=1))
        return 0
    for c in changes:
        print(f"{c['kind']:<10} {c['case']} [{c['adapter']} {c['role']}]: {c['before']} -> {c['after']}")
    kinds = {k: sum(1 for c in changes if c["kind"] == k) for k in ("regression", "fix", "change")}
    print(f"{len(changes)} changed cells between {run_a} and {run_b}: "
          + ", ".join(f"{v} {k}{'es' if k == 'fix' and v != 1 else 's' if v != 1 else ''}" for k, v in kinds.items()))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from conformance.gate import check, expected_failures_text, load_expected

    path = Path(args.expected_failures)
    run_id, cells = _run_cells(Path(args.results), args.run)
    verdicts = {c["case"]: c["verdict"] for c in cells if c["adapter"] == args.adapter}
    if not verdicts:
        adapters = sorted({c["adapter"] for c in cells})
        raise UsageError(f"adapter {args.adapter!r} is not in run {run_id} (it has: {', '.join(adapters)})")
    if all(v == "skip" for v in verdicts.values()):
        raise UsageError(f"adapter {args.adapter!r} was unavailable in run {run_id}")
    if args.write_expected_failures:
        path.write_text(expected_failures_text(args.adapter, run_id, verdicts))
        print(f"wrote {sum(v.startswith('fail') for v in verdicts.values())} expected failures to {path}")
        return 0
    try:
        expected = load_expected(path)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file (create it with --write-expected-failures)") from None
    except ValueError as e:
        raise UsageError(f"{path}: {e}") from None
    result = check(verdicts, expected)
    for case, verdict in result.unexpected_failures:
        print(f"UNEXPECTED FAILURE {case}: {verdict}")
    for case in result.unexpected_passes:
        print(f"UNEXPECTED PASS    {case} (remove it from {path})")
    for case, want, got in result.changed_failures:
        print(f"CHANGED FAILURE    {case}: expected {want}, got {got}")
    for case in result.not_run:
        print(f"note: {case} is listed but was not run")
    status = "ok" if result.ok else "FAILED"
    print(f"gate {status}: {args.adapter} in run {run_id}, {len(verdicts)} cases, {len(expected)} expected failures")
    return 0 if result.ok else 1


def summary_table(cells: list[dict]) -> str:
    from reports.render import scores

    lines = [f"{'adapter':<13} {'version':<10} {'pass':>5} {'fail':>5} {'skip':>5}  failures"]
    for a in scores(cells):
        detail = ", ".join(f"{k[5:]} {v}" for k, v in a["failures"].items())
        lines.append(f"{a['adapter']:<13} {a['version'] or '-'!s:<10} {a['pass']:>5} {a['fail']:>5} "
                     f"{a['skip']:>5}  {detail}")
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
                    "generates golden and corrupted files with expectations, runs Parquet readers on them in "
                    "isolated workers (on Spark), reports and gates the verdicts, and inspects footers.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    gen = sub.add_parser("generate", help="write the corpus: case files, bases, expected data, manifest.json",
                         description="Write every case of the catalog into DIR (cases/, bases/, expected/, "
                                     "manifest.json). Same version + seed = byte-identical output. DIR must be "
                                     "empty, absent, or an earlier corpus (which is replaced).")
    gen.add_argument("--out", required=True, metavar="DIR", help="output directory")
    gen.add_argument("--seed", type=int, default=0, help="seed for random payloads (default 0)")
    gen.add_argument("--only", metavar="PATTERN",
                     help="globs over case ids, comma-separated, e.g. 'ext/size/*,corrupt/*'")
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

    run = sub.add_parser("run", help="the main job: corpus x adapters on Spark, verdicts, results, reports",
                         description="Generate the corpus if needed (or use --corpus), run every available "
                                     "adapter on every case in isolated workers inside Spark tasks, judge each cell "
                                     "against the case's expectation, append the cells to OUT/results/run=ID/ and "
                                     "write OUT/report.html, results.json, summary.md and junit/<adapter>.xml.")
    run.add_argument("--corpus", metavar="DIR", help="an existing corpus (default: OUT/corpus, generated if absent)")
    run.add_argument("--out", default="reports/latest", metavar="DIR", help="output directory (default reports/latest)")
    run.add_argument("--only", metavar="PATTERN", help="globs over case ids, comma-separated")
    run.add_argument("--seed", type=int, default=0, help="seed when generating the corpus")
    run.add_argument("--master", default="local[*]",
                     help="Spark master: local[*] (default, embedded), spark://HOST:PORT, or none (no Spark)")
    run.add_argument("--conf", action="append", metavar="KEY=VALUE", help="extra Spark configuration (repeatable)")
    run.add_argument("--run-id", metavar="ID", help="name of the run (default: the UTC time)")
    run.add_argument("--resume", metavar="RUN_ID", help="finish an interrupted run without redoing its finished cells")
    _add_adapter_options(run)
    run.set_defaults(func=cmd_run)

    rep = sub.add_parser("report", help="compare two runs: cells whose verdict changed",
                         description="List the cells (case, adapter, role) whose verdict differs between two runs "
                                     "of the results dataset: regressions, fixes and other changes.")
    rep.add_argument("--diff", nargs=2, required=True, metavar=("RUN_A", "RUN_B"), help="the two run ids")
    rep.add_argument("--results", default="reports/latest/results", metavar="DIR", help="the results dataset")
    rep.add_argument("--json", action="store_true", help="machine-readable output")
    rep.set_defaults(func=cmd_report)

    chk = sub.add_parser("check", help="the CI gate: verdicts vs an expected-failure list",
                         description="Compare one adapter's verdicts in a run with its expected-failure list. Exit 0 "
                                     "when they match, 1 on any unexpected failure, unexpected pass or changed "
                                     "failure (each printed), 2 on bad input. See docs/ci-gate.md.")
    chk.add_argument("--adapter", required=True, metavar="NAME")
    chk.add_argument("--expected-failures", required=True, metavar="FILE",
                     help="one case id per line, optionally followed by its pinned verdict; # comments")
    chk.add_argument("--write-expected-failures", action="store_true", help="write FILE from the run instead")
    chk.add_argument("--results", default="reports/latest/results", metavar="DIR", help="the results dataset")
    chk.add_argument("--run", metavar="RUN_ID", help="the run to check (default: the latest)")
    chk.set_defaults(func=cmd_check)

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
