"""The `parquet-conformance` command line: argument parsing, one call per command, printing.

Exit codes: 0 success; 1 the thing examined is bad (an invalid file, a failed gate); 2 bad usage or
input that cannot be used at all (missing file, unwritable directory, a corpus that does not match
its manifest); 3 the gate could not judge every cell (harness errors: ours, not the implementation's).
Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from parquet_conformance.corpus.errors import UsageError
from parquet_conformance.corpus.model import GENERATOR_VERSION


def _user_errors() -> tuple[type[Exception], ...]:
    """Errors that are the user's input, reported in one line (exit 2)."""
    from parquet_conformance.conformance.app.run import RunError
    from parquet_conformance.conformance.harness.execute import SpecError
    from parquet_conformance.conformance.harness.gate import GateError
    from parquet_conformance.conformance.harness.results import ResultsError
    from parquet_conformance.corpus.dist import DistError
    from parquet_conformance.corpus.registry import RegistryError

    return UsageError, SpecError, GateError, ResultsError, RunError, DistError, RegistryError


def progress_line(text: str) -> None:
    """One updating line on a terminal; a line each otherwise (CI logs)."""
    if sys.stderr.isatty():
        print(f"\r{text[:100]:<100}", end="", file=sys.stderr, flush=True)
    else:
        print(text, file=sys.stderr, flush=True)


def end_progress() -> None:
    if sys.stderr.isatty():
        print(file=sys.stderr)


def _every(n: int) -> object:
    def tick(i: int, total: int, label: str) -> None:
        if sys.stderr.isatty() or (i + 1) % n == 0 or i + 1 == total:
            progress_line(f"[{i + 1}/{total}] {label}")
    return tick


def _tracks(args: argparse.Namespace) -> list:
    from parquet_conformance.corpus import track

    return [track.get(name) for name in args.track] if getattr(args, "track", None) else track.all_tracks()


def cmd_generate(args: argparse.Namespace) -> int:
    import time

    from parquet_conformance.corpus.build import generate

    start = time.monotonic()
    try:
        manifest = generate(Path(args.out), seed=args.seed, only=args.only, large=args.large, tracks=_tracks(args),
                            progress=_every(25))  # type: ignore[arg-type]
    except (FileExistsError, ValueError) as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"cannot write {args.out}: {e.strerror or e}") from None
    end_progress()
    kinds: dict[str, int] = {}
    for c in manifest.cases:
        kinds[c.kind] = kinds.get(c.kind, 0) + 1
    print(f"wrote {len(manifest.cases)} cases ({', '.join(f'{v} {k}' for k, v in kinds.items())}) and "
          f"{len(manifest.bases)} bases to {args.out} in {time.monotonic() - start:.1f}s")
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    from parquet_conformance.corpus import track

    path = Path(args.file)
    if path.is_dir():
        raise UsageError(f"{path}: is a directory; inspect takes a file")
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    fmt = track.get(args.track)
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


def specs(args: argparse.Namespace) -> list:
    from parquet_conformance.conformance import adapters
    from parquet_conformance.conformance.harness.execute import AdapterSpec

    only_tracks = set(getattr(args, "track", None) or [])
    if only_tracks:
        _tracks(args)  # an unknown track name fails here, naming the known ones
    matrix = []
    if getattr(args, "versions", None):
        from parquet_conformance.conformance.app.versions import matrix_specs

        matrix = matrix_specs(Path(args.versions))
    default = [] if args.adapter_cmd or matrix else [
        n for n in adapters.names(default_run=args.command == "run")
        if not only_tracks or adapters.get(n).track in only_tracks]
    external = [AdapterSpec.parse_external(t, args.external_track) for t in args.adapter_cmd or []]
    chosen = [AdapterSpec.parse(n) for n in args.adapter or default] + external + matrix
    for spec in chosen:
        spec.build()  # an unknown name fails here, before anything runs
    if dupes := sorted({s.name for s in chosen if [x.name for x in chosen].count(s.name) > 1}):
        raise UsageError(f"adapter {dupes[0]!r} is given twice")
    if only_tracks and (other := [s.name for s in chosen if s.build().track not in only_tracks]):
        raise UsageError(f"adapter {other[0]!r} is not of the track(s) {', '.join(sorted(only_tracks))}")
    return chosen


def cmd_adapters(args: argparse.Namespace) -> int:
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


def cmd_read(args: argparse.Namespace) -> int:
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
              + (f"\n  {flat['error_class']}: {flat['error_message']}" if report["error"] else ""))
    return 0


def _conf(pairs: list[str] | None) -> dict[str, str]:
    out = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--conf wants KEY=VALUE, got {pair!r}")
        out[key] = value
    return out


def cmd_run(args: argparse.Namespace) -> int:
    from parquet_conformance.conformance.app.run import RunOptions, run_job

    if args.resume and args.run_id:
        raise UsageError("give --run-id or --resume, not both")
    if args.repeat < 1:
        raise UsageError("--repeat wants a positive number of rounds")
    if args.remote and not args.remote.startswith("sc://"):
        raise UsageError(f"--remote wants a Spark Connect URL sc://HOST:PORT, got {args.remote!r}")
    opts = RunOptions(out=Path(args.out), specs=specs(args), corpus=Path(args.corpus) if args.corpus else None,
                      only=args.only, seed=args.seed, master=args.remote or args.master, conf=_conf(args.conf),
                      run_id=args.run_id, resume=args.resume, repeat=args.repeat, tracks=tuple(args.track or ()))
    result = run_job(opts, progress_line)
    end_progress()
    t = result.timings
    print(summary_table(result.cells))
    flaky = [c for c in result.cells if c.verdict == "flaky"]
    print(f"{len(result.cells)} cells, {len(result.cells) / max(t.cells_s, 1e-9):.1f} cells/s; time: generation "
          f"{t.generation_s:.1f}s, Spark start {t.spark_start_s:.1f}s, cells {t.cells_s:.1f}s, confirming "
          f"{t.confirmed} non-pass cells ({t.rerun} re-run in fresh workers) {t.confirm_s:.1f}s, "
          f"reports {t.reports_s:.1f}s")
    print(f"{len(flaky)} flaky cells (attempts that disagree)" + "".join(
        f"\n  {c.case} [{c.adapter} {c.role}]: {c.disagreement}" for c in flaky[:20]))
    print(f"run {result.run_id} on corpus {result.corpus_digest[:16]}: {opts.out / 'report.html'}, results.json, "
          f"summary.md, junit/, results/run={result.run_id}/")
    return 0


FAST_READERS = ("pyarrow", "duckdb", "polars", "fastparquet", "datafusion")  # in-process: milliseconds a read


def cmd_fuzz(args: argparse.Namespace) -> int:
    import importlib.util

    from parquet_conformance.conformance.app.fuzz import FuzzOptions, run_fuzz
    from parquet_conformance.conformance.harness.execute import AdapterSpec
    from parquet_conformance.reports.findings import summary, write_findings

    if importlib.util.find_spec("hypothesis") is None:
        raise UsageError("fuzz needs hypothesis: pip install 'parquet-conformance[fuzz]'")
    if (args.examples is not None and args.examples < 1) or (args.time is not None and args.time <= 0) \
            or args.budget < 0 or args.shrink_time < 0:
        raise UsageError("--examples and --time want a positive number, --budget and --shrink-time a non-negative one")
    chosen = specs(args) if args.adapter or args.adapter_cmd else [AdapterSpec(n) for n in FAST_READERS]
    opts = FuzzOptions(specs=chosen, seed=args.seed, examples=args.examples, time_s=args.time, master=args.master,
                       conf=_conf(args.conf), track=args.fuzz_track, out=Path(args.out), shrink=not args.no_shrink,
                       save=not args.no_save, shrink_time_s=args.shrink_time, budget_s=args.budget)
    report = run_fuzz(opts, progress_line)
    end_progress()
    paths = write_findings(report, opts.out)
    print(summary(report))
    print("findings: " + ", ".join(str(p) for p in paths))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    if args.diff:
        return report_diff(args)
    if args.history:
        return report_history(args)
    if args.rewrite:
        return report_rewrite(args)
    return report_site(args)


def report_rewrite(args: argparse.Namespace) -> int:
    from parquet_conformance.reports import write_reports
    from parquet_conformance.reports.document import stored_document

    out = Path(args.rewrite)
    if not (out / "results").is_dir():
        raise UsageError(f"{out}: no results folder (the --out of a run)")
    doc = stored_document(out / "results", args.run)
    paths = write_reports(doc, out)
    print(f"wrote {len(paths)} reports of run {doc.run.id} to {out}")
    return 0


def report_diff(args: argparse.Namespace) -> int:
    from parquet_conformance.conformance.harness.results import read_cells
    from parquet_conformance.reports.diff import diff_runs

    results = Path(args.results)
    run_a, cells_a = read_cells(results, args.diff[0])
    run_b, cells_b = read_cells(results, args.diff[1])
    diff = diff_runs(cells_a, cells_b)
    if args.json:
        print(json.dumps({"before": run_a, "after": run_b, "changes": [c.to_json() for c in diff.changes],
                          "only_before": [c.to_json() for c in diff.only_before],
                          "only_after": [c.to_json() for c in diff.only_after]}, indent=1))
        return 0
    for c in diff.changes:
        print(f"{c.kind:<10} {c.case} [{c.adapter} {c.role}]: {c.before} -> {c.after}")
    kinds = {k: len(diff.of_kind(k)) for k in ("regression", "fix", "change")}
    print(f"{len(diff.changes)} changed cells between {run_a} and {run_b}: "
          + ", ".join(f"{v} {k}" for k, v in kinds.items()))
    for run, only in ((run_a, diff.only_before), (run_b, diff.only_after)):
        if only:
            adapters = sorted({c.adapter for c in only})
            print(f"{len(only)} cells only in {run} (cases or adapters not in the other run; adapters: "
                  f"{', '.join(adapters[:10])}{' ...' if len(adapters) > 10 else ''})")
    return 0


def _plotting() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError("charts need matplotlib: pip install 'parquet-conformance[plots]'") from None


def report_history(args: argparse.Namespace) -> int:
    from parquet_conformance.reports.history import load_history, write_history

    _plotting()
    results = Path(args.history)
    out = Path(args.out) if args.out else results.resolve().parent
    history = load_history(results)
    paths = write_history(history, out)
    end_progress()
    latest = history.latest
    print(f"{len(history.runs)} runs (ordered by {history.ordered_by}): {', '.join(p.run for p in history.runs[-5:])}"
          + (" ..." if len(history.runs) > 5 else ""))
    if latest is not None:
        print(f"since {history.runs[-2].run}: {len(latest.of_kind('regression'))} newly failing, "
              f"{len(latest.of_kind('fix'))} newly fixed, {len(latest.of_kind('change'))} changed failures; "
              f"{len(latest.only_before)} cells only in {history.runs[-2].run}, {len(latest.only_after)} only in "
              f"{history.runs[-1].run}")
        for c in latest.of_kind("regression")[:20]:
            print(f"  newly failing {c.case} [{c.adapter} {c.role}]: {c.before} -> {c.after}")
        for c in latest.of_kind("fix")[:20]:
            print(f"  newly fixed   {c.case} [{c.adapter} {c.role}]: {c.before} -> {c.after}")
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def report_site(args: argparse.Namespace) -> int:
    from parquet_conformance.reports.document import stored_document
    from parquet_conformance.reports.history import load_history
    from parquet_conformance.reports.site import write_site

    results, out = Path(args.results), Path(args.site)
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: exists and is not a directory")
    doc = stored_document(results, args.run)
    history = load_history(results)
    if len(history.runs) > 1:
        _plotting()
    progress_line(f"writing {len(doc.adapters)} implementation pages and {len(doc.cases)} case pages")
    try:
        paths = write_site(doc, out, history if len(history.runs) > 1 else None)
    except OSError as e:
        raise UsageError(f"cannot write {out}: {e.strerror or e}") from None
    end_progress()
    print(f"wrote {len(paths)} files for run {doc.run.id} to {out}: open {out / 'index.html'}")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from parquet_conformance.conformance.harness import gate
    from parquet_conformance.conformance.harness.results import read_cells, read_record

    path = Path(args.expected_failures)
    results = Path(args.results)
    run_id, cells = read_cells(results, args.run)
    record = read_record(results, run_id)
    mine = [c for c in cells if c.adapter == args.adapter]
    if not mine:
        adapters = sorted({c.adapter for c in cells})
        raise UsageError(f"adapter {args.adapter!r} is not in run {run_id} (it has: {', '.join(adapters)})")
    if all(c.verdict == "skip" for c in mine):
        raise UsageError(f"adapter {args.adapter!r} was unavailable in run {run_id}")
    if record is not None and Path(record.info.corpus).is_dir():  # the corpus is still here: it must be the one run
        from parquet_conformance.conformance.app.run import load_corpus

        _, _, digest = load_corpus(Path(record.info.corpus))
        if digest != record.info.corpus_digest:
            raise UsageError(f"{record.info.corpus} changed since run {run_id} (manifest digest {digest[:16]}, the run "
                             f"used {record.info.corpus_digest[:16]})")
    if record is not None and record.info.only != args.only:
        what = f"only {record.info.only!r}" if record.info.only else "the whole corpus"
        raise UsageError(f"run {run_id} covered {what}; the gate checks {args.only or 'the whole corpus'!r} "
                         f"(pass --only {record.info.only!r} to gate that selection)" if record.info.only else
                         f"run {run_id} covered the whole corpus; drop --only")
    if args.write_expected_failures:
        if not path.parent.is_dir():
            raise UsageError(f"{path.parent}: no such directory")
        path.write_text(gate.expected_failures_text(args.adapter, run_id, mine))
        print(f"wrote {sum(c.verdict.is_failure for c in mine)} expected failures to {path}")
        return 0
    if path.is_dir():
        raise UsageError(f"{path}: is a directory, not an expected-failure list")
    if not path.is_file():
        raise UsageError(f"{path}: no such file (create it with --write-expected-failures)")
    known = set(record.corpus_cases) if record else {c.case for c in cells}
    result = gate.check(mine, gate.load_expected(path, known))
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
    status = "ok" if result.ok and not result.unjudged else "FAILED" if not result.ok else "INCOMPLETE"
    print(f"gate {status}: {args.adapter} in run {run_id}, {len(mine)} cells, "
          f"{sum(c.verdict.is_failure for c in mine)} failing, {len(result.unjudged)} not judged")
    return 1 if not result.ok else 3 if result.unjudged else 0


def cmd_envs(args: argparse.Namespace) -> int:
    from parquet_conformance.conformance.harness import envs
    from parquet_conformance.conformance.harness.execute import AdapterSpec

    if args.action == "prune":
        names = None if not args.all else [e.name for e in envs.listing()]
        if args.release:
            names = [AdapterSpec.parse(r).build().environment().name for r in args.release]
        removed = envs.prune(names)
        print(f"removed {len(removed)} environments, {envs.human(sum(e.size for e in removed))}: "
              + (", ".join(e.name for e in removed) or "none"))
        return 0
    rows = envs.listing()
    for e in rows:
        state = f"made in {e.seconds}s" if e.ready else "incomplete"
        print(f"{e.name:<32} {e.package:<18} {e.version:<12} {envs.human(e.size):>10}  {state}")
    print(f"{len(rows)} environments, {envs.human(sum(e.size for e in rows))} in {envs.root()}")
    return 0


def cmd_bisect(args: argparse.Namespace) -> int:
    from parquet_conformance.conformance.app.versions import bisect, bisection_text

    result = bisect(args.adapter, args.case, args.from_version, args.to_version,
                    Path(args.corpus) if args.corpus else None, progress_line)
    end_progress()
    print(bisection_text(result))
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from parquet_conformance.conformance.app.imports import import_directory
    from parquet_conformance.corpus.model import NAME_RE

    if not NAME_RE.fullmatch(args.source):
        raise UsageError(f"--source {args.source!r}: use letters, digits, '.', '_', '+', '-'")
    args.command = "import"
    try:
        result = import_directory(Path(args.dir), Path(args.out), args.source, specs(args), args.import_track,
                                  _every(10))  # type: ignore[arg-type]
    except (FileExistsError, ValueError) as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"{args.out}: {e.strerror or e}") from None
    end_progress()
    for f in result.findings:
        print(f"FINDING {f['case']}: " + "; ".join(f"{v['voter']} {v['outcome']}" for v in f["votes"]))  # type: ignore[attr-defined]
    counts: dict[str, int] = {}
    for c in result.manifest.cases:
        word = str(c.expect[next(iter(c.expect))])
        counts[word] = counts.get(word, 0) + 1
    print(f"imported {len(result.manifest.cases)} files into {args.out}: "
          + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
          + f"; {len(result.findings)} findings; voters: {', '.join(result.voters) or 'none'}"
          + (f"; unavailable: {', '.join(result.unavailable)}" if result.unavailable else ""))
    return 0


def summary_table(cells: list) -> str:
    from parquet_conformance.reports.model import scores

    lines = [f"{'adapter':<13} {'version':<10} {'pass':>5} {'fail':>5} {'skip':>5} {'ours':>5}  failures"]
    for a in scores(cells):
        detail = ", ".join(f"{k.removeprefix('fail:')} {v}" for k, v in a.failures.items())
        lines.append(f"{a.adapter:<13} {a.version or '-'!s:<10} {a.passed:>5} {a.fail:>5} {a.skip:>5} "
                     f"{a.harness_errors:>5}  {detail}")
    return "\n".join(lines)


def _add_adapter_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--adapter", action="append", metavar="NAME",
                   help="a registered adapter (repeatable; default: all); see `parquet-conformance adapters`")
    p.add_argument("--adapter-cmd", action="append", metavar="NAME=COMMAND",
                   help="an external adapter speaking docs/adapter-protocol.md, e.g. myreader='java -jar r.jar'")
    p.add_argument("--external-track", default="parquet", metavar="TRACK",
                   help="the track the --adapter-cmd workers read (default parquet)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="parquet-conformance",
        description="Conformance suite for Apache Parquet binary protocol extensions (Thrift field 32767), and "
                    "any other registered wire-format track: generates golden and corrupted files with "
                    "expectations, runs implementations on them in isolated workers (on Spark), reports and gates "
                    "the verdicts, and inspects files.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {GENERATOR_VERSION}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    gen = sub.add_parser("generate", help="write the corpus: case files, bases, expected data, manifest.json",
                         description="Write every case of the selected tracks' catalogs into DIR (cases/, bases/, "
                                     "expected/, manifest.json, SHA256SUMS). Same version + seed = byte-identical "
                                     "output. DIR must be empty, absent, or an earlier corpus (which is replaced).")
    gen.add_argument("--out", required=True, metavar="DIR", help="output directory")
    gen.add_argument("--seed", type=int, default=0, help="seed for random payloads (default 0)")
    gen.add_argument("--only", metavar="PATTERN",
                     help="globs over case ids, comma-separated, e.g. 'ext/size/*,corrupt/*'")
    gen.add_argument("--large", action="store_true", help="also write the 64 MiB and 128 MiB extension cases")
    gen.add_argument("--track", action="append", metavar="NAME", help="only this track (repeatable; default: all)")
    gen.set_defaults(func=cmd_generate)

    ins = sub.add_parser("inspect", help="print a file's tail, footer structs and every extension found",
                         description="Decode a file of a track (default parquet: the tail and Thrift footer, every "
                                     "field-32767 extension with struct, header form, offset, length, sha256, "
                                     "trailing UUID, page headers included). A Parquet file is valid when a Thrift "
                                     "compact reader decodes its footer; notes say what that reading skipped, "
                                     "findings which rules of the spec the file breaks. Exit 1 if the file is not "
                                     "valid, or with --strict if it has findings.")
    ins.add_argument("file", metavar="FILE")
    ins.add_argument("--json", action="store_true", help="machine-readable output")
    ins.add_argument("--strict", action="store_true",
                     help="exit 1 also when the file breaks a rule of the spec (a finding)")
    ins.add_argument("--track", default="parquet", metavar="NAME", help="the file's track (default parquet)")
    ins.set_defaults(func=cmd_inspect)
    from parquet_conformance.conformance.app.extend import register as register_extend

    register_extend(sub)

    ada = sub.add_parser("adapters", help="list the adapters: track, implementation, engine, version, roles",
                         description="Start each adapter's worker once and report what it is, or why it is "
                                     "unavailable (a missing library or runtime never fails a run). Adapters come "
                                     "from the entry-point group parquet_conformance.adapters: installed packages "
                                     "add theirs.")
    _add_adapter_options(ada)
    ada.add_argument("--json", action="store_true", help="machine-readable output")
    ada.set_defaults(func=cmd_adapters)

    rd = sub.add_parser("read", help="read one file with one adapter and print the outcome",
                        description="One cell: the adapter's worker reads FILE; the outcome is read (rows, "
                                    "data_hash of the canonical data), rejected (error class and message), crash, "
                                    "timeout, oom, unavailable or harness-error (our side failed).")
    rd.add_argument("file", metavar="FILE")
    _add_adapter_options(rd)
    rd.add_argument("--op", default="read", help="the operation to ask for (a track may define more than read)")
    rd.add_argument("--json", action="store_true", help="machine-readable output")
    rd.set_defaults(func=cmd_read)

    run = sub.add_parser("run", help="the main job: corpus x adapters on Spark, verdicts, results, reports",
                         description="Generate the corpus if needed (or use --corpus), check every file against "
                                     "the manifest and the manifest against its digest, run every available "
                                     "adapter on every case of its track in isolated workers inside Spark tasks, "
                                     "judge each cell, append the cells to OUT/results/run=ID/ and write every "
                                     "registered report (report.html, results.json, summary.md, junit/).")
    run.add_argument("--corpus", metavar="DIR", help="an existing corpus (default: OUT/corpus, generated if absent)")
    run.add_argument("--out", default="reports/latest", metavar="DIR", help="output directory (default reports/latest)")
    run.add_argument("--only", metavar="PATTERN", help="globs over case ids, comma-separated")
    run.add_argument("--seed", type=int, default=0, help="seed when generating the corpus")
    run.add_argument("--master", default="local[*]",
                     help="Spark master: local[*] (default, embedded), spark://HOST:PORT, sc://HOST:PORT (a Spark "
                          "Connect server), or none (no Spark)")
    run.add_argument("--remote", metavar="sc://HOST:PORT", help="a Spark Connect server (the same as --master sc://...)")
    run.add_argument("--conf", action="append", metavar="KEY=VALUE", help="extra Spark configuration (repeatable)")
    run.add_argument("--run-id", metavar="ID", help="name of the run (default: the UTC time)")
    run.add_argument("--resume", metavar="RUN_ID", help="finish an interrupted run without redoing its finished cells")
    run.add_argument("--repeat", type=int, default=1, metavar="N",
                     help="go through the matrix N times (later rounds in shuffled order); a cell whose attempts "
                          "disagree is flaky (every non-pass cell is also re-run in a fresh worker)")
    run.add_argument("--track", action="append", metavar="NAME",
                     help="only this track's cases and adapters (repeatable; default: every track)")
    run.add_argument("--versions", metavar="FILE",
                     help="a version matrix (TOML: adapter -> list of versions or {from, to}): every release runs "
                          "in its own cached environment, as its own row NAME-VERSION; see docs/adapters.md")
    _add_adapter_options(run)
    run.set_defaults(func=cmd_run)

    fz = sub.add_parser("fuzz", help="search for files that break readers; findings shrunk into regression cases",
                        description="Differential fuzzing (docs/fuzzing.md): files made of a base and a chain of "
                                    "structure-aware mutations (Hypothesis strategies), judged by our strict decoder "
                                    "and reference reader (read / reject / either), read by every selected adapter "
                                    "in persistent workers inside Spark tasks. Each distinct finding (implementation, "
                                    "verdict, normalised message) is confirmed in a fresh worker, shrunk against that "
                                    "adapter alone, and saved as a regression case (corpus/regressions) that "
                                    "`parquet-conformance read` reproduces and `run` judges. Writes OUT/findings.json "
                                    "and OUT/findings.html. --examples N is reproducible: the same seed gives the same "
                                    "examples and findings; --time S is not (how many batches of examples finish in S "
                                    "seconds depends on the machine).")
    mode_fz = fz.add_mutually_exclusive_group(required=True)
    mode_fz.add_argument("--examples", type=int, metavar="N", help="search N examples (reproducible)")
    mode_fz.add_argument("--time", type=float, metavar="S", help="search for S seconds (not reproducible in count)")
    fz.add_argument("--seed", type=int, default=0, help="the run seed; each batch's seed derives from it (default 0)")
    fz.add_argument("--master", default="local[*]", help="Spark master (default local[*]), or none (no Spark)")
    fz.add_argument("--conf", action="append", metavar="KEY=VALUE", help="extra Spark configuration (repeatable)")
    fz.add_argument("--out", default="reports/fuzz", metavar="DIR", help="findings.json and findings.html go here")
    fz.add_argument("--track", dest="fuzz_track", default="parquet", metavar="NAME", help="the track (default parquet)")
    fz.add_argument("--no-shrink", action="store_true", help="confirm findings, do not shrink them")
    fz.add_argument("--no-save", action="store_true", help="do not save findings as regression cases")
    fz.add_argument("--shrink-time", type=float, default=60.0, metavar="S",
                    help="seconds of shrinking per finding at most (default 60)")
    fz.add_argument("--budget", type=float, default=300.0, metavar="S",
                    help="seconds for confirming, shrinking and saving all findings after the search, most severe "
                         "first (crash, hang, wrong data); findings past it are listed, not saved (default 300)")
    _add_adapter_options(fz)  # default for fuzz: the fast in-process readers (FAST_READERS)
    fz.set_defaults(func=cmd_fuzz)

    env = sub.add_parser("envs", help="list or free the environments of released versions",
                         description="Released versions (--adapter NAME==VERSION or NAME@VERSION, --versions, "
                                     "bisect, pinned adapters) run in environments created on first use under "
                                     "~/.cache/parquet-conformance/envs. `list` shows them with their sizes; "
                                     "`prune` removes the incomplete ones, the named releases, or --all.")
    env.add_argument("action", choices=["list", "prune"])
    env.add_argument("release", nargs="*", metavar="NAME==VERSION", help="prune: these releases' environments")
    env.add_argument("--all", action="store_true", help="prune: every environment")
    env.set_defaults(func=cmd_envs)

    bis = sub.add_parser("bisect", help="the first release of an implementation whose verdict on a case changed",
                         description="Run one case (or every case a glob selects) over the released versions of "
                                     "an adapter's package, each in its cached environment: the oldest, the newest, "
                                     "then a binary search for the first release whose verdicts differ from the "
                                     "oldest's. Prints every release tried and both outcomes at the boundary.")
    bis.add_argument("--adapter", required=True, metavar="NAME", help="a registered adapter, e.g. polars")
    bis.add_argument("--case", required=True, metavar="ID", help="a case id, or globs, e.g. 'ext/file-metadata/*'")
    bis.add_argument("--from", dest="from_version", metavar="V", help="the oldest release to consider")
    bis.add_argument("--to", dest="to_version", metavar="V", help="the newest release to consider")
    bis.add_argument("--corpus", metavar="DIR", help="an existing corpus (default: the cases generated afresh)")
    bis.set_defaults(func=cmd_bisect)

    rep = sub.add_parser("report", help="compare runs, draw their history, or write the static site",
                         description="Reports over a results dataset (OUT/results of `run`). --diff: the cells whose "
                                     "verdict changed between two runs (regressions, fixes, other changes), apart "
                                     "from the cells present in only one of them. --history RESULTS_DIR: per "
                                     "implementation and version, the pass rate over the runs as a chart "
                                     "(history.svg) and history.md with the cells newly failing and newly fixed since "
                                     "the previous run. --site DIR: a static site for any host (index with the "
                                     "matrix and scores, a page per implementation with its error clusters and "
                                     "history, a page per case with its citations and every implementation's "
                                     "outcome). --rewrite OUT: a run's reports again (report.html, summary.md, ...) "
                                     "from OUT/results, with what OUT holds since (skip-overhead.json of "
                                     "bench/skip_overhead.py).")
    mode = rep.add_mutually_exclusive_group(required=True)
    mode.add_argument("--rewrite", metavar="OUT", help="a run's output folder: write its reports again")
    mode.add_argument("--diff", nargs=2, metavar=("RUN_A", "RUN_B"), help="the two run ids to compare")
    mode.add_argument("--history", metavar="RESULTS_DIR", help="a results dataset: chart and changes over its runs")
    mode.add_argument("--site", metavar="DIR", help="write the static site of a run into DIR")
    rep.add_argument("--results", default="reports/latest/results", metavar="DIR",
                     help="the results dataset (--diff, --site; default reports/latest/results)")
    rep.add_argument("--run", metavar="RUN_ID", help="--site, --rewrite: the run to show (default: the latest)")
    rep.add_argument("--out", metavar="DIR",
                     help="--history: where history.svg and history.md go (default: the folder holding RESULTS_DIR)")
    rep.add_argument("--json", action="store_true", help="--diff: machine-readable output")
    rep.set_defaults(func=cmd_report)

    chk = sub.add_parser("check", help="the CI gate: verdicts vs an expected-failure list",
                         description="Compare one adapter's verdicts in a run with its expected-failure list. Exit 0 "
                                     "when they match, 1 on any unexpected failure, unexpected pass or changed "
                                     "failure (each printed), 2 on bad input (a list naming unknown cases or "
                                     "verdicts, or one cell twice), 3 when cells could not be judged (harness "
                                     "errors). See docs/ci-gate.md.")
    chk.add_argument("--adapter", required=True, metavar="NAME")
    chk.add_argument("--expected-failures", required=True, metavar="FILE",
                     help="'case-id [role] [verdict]' per line; # comments")
    chk.add_argument("--write-expected-failures", action="store_true", help="write FILE from the run instead")
    chk.add_argument("--results", default="reports/latest/results", metavar="DIR", help="the results dataset")
    chk.add_argument("--run", metavar="RUN_ID", help="the run to check (default: the latest)")
    chk.add_argument("--only", metavar="PATTERN",
                     help="the selection the run was made with (a run of part of the corpus is gated only so)")
    chk.set_defaults(func=cmd_check)

    from parquet_conformance.corpus.cli import register as register_corpus_commands

    corpus_commands = register_corpus_commands(sub)
    imp = corpus_commands.add_parser(
        "import", help="someone else's Parquet files as a corpus, expectations by consensus of the readers",
        description="Read every file of DIR (recursively, the track's suffix) with every available adapter and our "
                    "strict decoder, and write a corpus to OUT: each file a base and a case "
                    "import/<source>/<path>, citing the source path and sha256. All read the same data: the case "
                    "expects `read` with that data; all reject: `reject`; otherwise `either`, and a finding naming "
                    "who said what (printed, and in OUT/findings.json). OUT then runs like any corpus "
                    "(`run --corpus OUT`).")
    imp.add_argument("dir", metavar="DIR")
    imp.add_argument("--source", required=True, metavar="NAME",
                     help="where the files come from, e.g. apache-parquet-testing@<commit>: the citation and case ids")
    imp.add_argument("--out", required=True, metavar="OUT", help="the corpus directory to write (empty or absent)")
    imp.add_argument("--track", dest="import_track", default="parquet", metavar="NAME",
                     help="the files' track (default parquet)")
    _add_adapter_options(imp)
    imp.set_defaults(func=cmd_import)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except _user_errors() as e:
        end_progress()
        print(f"parquet-conformance: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("parquet-conformance: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
