"""The `parquet-conformance` command line: argument parsing and dispatch, nothing else. Each command's handler is
a function of the application module that owns it (`run:command`, `check:command`, ...), imported when the command
runs, so that `--help` stays fast.

Exit codes: 0 success; 1 the thing examined is bad (an invalid file, a failed gate); 2 bad usage or
input that cannot be used at all (missing file, unwritable directory, a corpus that does not match
its manifest); 3 the gate could not judge every cell (harness errors: ours, not the implementation's).
Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import sys
from typing import NoReturn

from parquet_conformance.corpus.model import GENERATOR_VERSION, KEY_RE, LEVELS, NAME_RE, Level
from parquet_conformance.kernel.documents import shown
from parquet_conformance.kernel.options import (
    SEED_MAX,
    integer,
    output_dir,
    seconds,
    spark_conf,
    spark_connect,
    spark_master,
    stored_path,
)

SEED = integer(0, SEED_MAX)


class Parser(argparse.ArgumentParser):
    """argparse with its errors in one line, as every other error (the usage is in --help)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"parquet-conformance: error: {' '.join(message.split())}\n")


def request_key(text: str) -> tuple[str, str]:
    """One key of `read --key`: NAME=BASE64, checked as a manifest's keys are (corpus/model.py KEY)."""
    name, sep, value = text.partition("=")
    if not sep or not NAME_RE.fullmatch(name) or not KEY_RE.fullmatch(value):
        raise argparse.ArgumentTypeError(f"{shown(text)}: want NAME=BASE64, a name of letters, digits, '.', '_', "
                                         "'+', '-' and a key of 16, 24 or 32 bytes as base64")
    return name, value


def add_adapter_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--adapter", action="append", metavar="NAME",
                   help="a registered adapter (repeatable; default: all); see `parquet-conformance adapters`")
    p.add_argument("--adapter-cmd", action="append", metavar="NAME=COMMAND",
                   help="an external adapter speaking docs/adapter-protocol.md, e.g. myreader='java -jar r.jar'; it "
                        "reads the track --track names (default: the first registered, parquet)")


def add_executor_options(p: argparse.ArgumentParser, default: str = "local[*]") -> None:
    """Where a command's tasks run (conformance/harness/placement.py executor_for): the one spelling of `--master`,
    `--remote` and `--conf` for every command that runs tasks."""
    p.add_argument("--master", default=default, type=spark_master,
                   help=f"Spark master: local[*] (embedded), spark://HOST:PORT, sc://HOST:PORT (a Spark Connect "
                        f"server), or none (no Spark: a worker per core here); default {default}")
    p.add_argument("--remote", dest="master", metavar="sc://HOST:PORT", type=spark_connect, default=argparse.SUPPRESS,
                   help="a Spark Connect server (the same as --master sc://...)")
    p.add_argument("--conf", action="append", metavar="KEY=VALUE", type=spark_conf,
                   help="extra Spark configuration (repeatable)")


def add_comparison_options(p: argparse.ArgumentParser) -> None:
    """What the reports mark each failure new, known or fixed against (`run`, `report --rewrite`)."""
    p.add_argument("--baseline", metavar="RESULTS_DIR",
                   help="compare with the latest run of this results dataset (default: the run before this one in "
                        "OUT/results, when there is one)")
    p.add_argument("--expected-failures", action="append", metavar="[ADAPTER=]FILE",
                   help="compare with an expected-failure list (docs/ci-gate.md) instead: known failures are the "
                        "listed ones (repeatable: ADAPTER=FILE for one adapter; a list without ADAPTER= is every "
                        "other adapter's)")


def add_track_option(p: argparse.ArgumentParser, many: bool) -> None:
    """The one spelling of `--track`: repeatable where a command spans tracks, once where it reads one."""
    p.add_argument("--track", action="append", metavar="NAME",
                   help=("only this track (repeatable; default: every registered track)" if many else
                         "the track (default: the first registered, parquet)"))


def add_extend(sub: argparse._SubParsersAction[Parser]) -> None:
    """The `extend` subcommand (its handler: app/extend.py): what every track shares. The track's own
    options and help are its Extender's, added when `extend` is the command (`main`: the track is loaded then only,
    so that no other command's start-up pays for it)."""
    p = sub.add_parser("extend", help="append a vendor's payload to structs of an existing file, as its track's "
                                      "extension mechanism does (extend --help: the track's options)")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--payload-file", required=True, metavar="P", help="the extension's bytes (any content)")
    p.add_argument("--out", metavar="OUT", help="where to write the extended file")
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    p.add_argument("--dry-run", action="store_true", help="say what would be written; write nothing")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_track_option(p, many=False)
    p.set_defaults(handler="extend:command")


def with_track_options(parser: argparse.ArgumentParser, argv: list[str]) -> None:
    """`extend`'s parser given the options and help of the Extender of the track argv names (the first registered
    track by default): only when `extend` is the command."""
    if next((a for a in argv if not a.startswith("-")), None) != "extend":
        return
    # imported here, not at the top: start-up time (only `extend` loads a track)
    from parquet_conformance.app.extend import track_extender

    pre = argparse.ArgumentParser(add_help=False)
    add_track_option(pre, many=False)
    extender = track_extender(pre.parse_known_args(argv)[0].track)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    extend = sub.choices["extend"]
    extend.description, extend.epilog = extender.description, extender.epilog
    extend.formatter_class = argparse.RawDescriptionHelpFormatter
    extender.add_options(extend)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="parquet-conformance",
        description="Conformance suite for Apache Parquet's binary protocol extensions and the format's evolution, "
                    "and any other registered wire-format track: generates golden and corrupted files with "
                    "expectations, runs implementations on them in isolated workers (on Spark), reports and gates "
                    "the verdicts, and inspects files.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {GENERATOR_VERSION}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    gen = sub.add_parser("generate", help="write the corpus: case files, bases, expected data, manifest.json",
                         description="Write every case of the selected tracks' catalogs into DIR (cases/, bases/, "
                                     "expected/, manifest.json, SHA256SUMS). Same version + seed = byte-identical "
                                     "output. DIR must be empty, absent, or an earlier corpus (which is replaced).")
    gen.add_argument("--out", required=True, metavar="DIR", type=output_dir, help="output directory")
    gen.add_argument("--seed", type=SEED, default=0, help="seed for random payloads (default 0)")
    gen.add_argument("--only", metavar="PATTERN",
                     help="globs over case ids, comma-separated, e.g. 'ext/size/*,corrupt/*'")
    gen.add_argument("--large", action="store_true", help="also write the 64 MiB and 128 MiB extension cases")
    gen.add_argument("--upstream", metavar="DIR", type=stored_path,
                     help="a checkout of apache/parquet-testing: the files the tracks pin (path, commit, sha256, "
                          "expectation) beside the cases, as upstream/...; a file whose bytes differ from its pin is "
                          "refused (docs/corpus-distribution.md#upstream-files)")
    add_track_option(gen, many=True)
    gen.set_defaults(handler="commands:generate")

    ins = sub.add_parser("inspect", help="print what a file holds: its structure and every extension found",
                         description="Decode a file as its track's inspector does (default: the first registered "
                                     "track, parquet; docs/extending.md shows what it prints). A file is valid when "
                                     "a lenient reader of its format decodes it; notes say what that reading "
                                     "skipped, findings which rules of the spec the file breaks. Exit 1 if the file "
                                     "is not valid, or with --strict if it has findings.")
    ins.add_argument("file", metavar="FILE")
    ins.add_argument("--json", action="store_true", help="machine-readable output")
    ins.add_argument("--strict", action="store_true",
                     help="exit 1 also when the file breaks a rule of the spec (a finding)")
    add_track_option(ins, many=False)
    ins.set_defaults(handler="commands:inspect")
    add_extend(sub)

    ada = sub.add_parser("adapters", help="list the adapters: track, implementation, engine, version, roles, what "
                                          "they write",
                         description="Start each adapter's worker once and report what it is, or why it is "
                                     "unavailable (a missing library or runtime never fails a run), and which "
                                     "adapters write (`run --writers`, `--writer NAME`) with which profiles, and what "
                                     "each profile asks (--json: `writes`, null for a reader only). Adapters come "
                                     "from the entry-point group parquet_conformance.adapters: installed packages "
                                     "add theirs.")
    add_adapter_options(ada)
    add_track_option(ada, many=True)
    ada.add_argument("--json", action="store_true", help="machine-readable output")
    ada.set_defaults(handler="commands:adapters")

    rd = sub.add_parser("read", help="read one file with one adapter: the outcome, and a case's verdict",
                        description="One cell: the adapter's worker reads FILE; the outcome is read (rows, "
                                    "data_hash of the canonical data), rejected (error class and message), "
                                    "unhandled-error (an error the library does not raise on purpose), crash, "
                                    "timeout, oom, unavailable or harness-error (our side failed). A case of a corpus "
                                    "(a file inside one, or a case id with --corpus) is judged as a run judges it: "
                                    "the adapter's reading of the unmodified base too, a cell that did not pass "
                                    "confirmed in a new worker; it prints the verdict and its level and exits 0 for a "
                                    "pass, 1 for a failure (or a flaky cell), 2 when the adapter is unavailable, 3 for "
                                    "a harness error. Any other file: the outcome alone (exit 0).")
    rd.add_argument("file", metavar="FILE", help="a file, or with --corpus a case id")
    rd.add_argument("--corpus", metavar="DIR", help="the corpus FILE is a case of (default: the corpus above FILE)")
    add_adapter_options(rd)
    add_track_option(rd, many=False)
    rd.add_argument("--op", default="read", help="the operation to ask for (a track may define more than read)")
    rd.add_argument("--key", action="append", type=request_key, metavar="NAME=BASE64", dest="keys",
                    help="a key for an operation that takes keys (--op decrypt), repeatable: its name and the key "
                         "as base64 (the names: docs/adapter-protocol.md#keys); a case of a corpus sends its own")
    rd.add_argument("--json", action="store_true", help="machine-readable output")
    rd.set_defaults(handler="commands:read")

    run = sub.add_parser("run", help="the main job: corpus x adapters on Spark, verdicts, results, reports",
                         description="Generate the corpus if needed (or use --corpus), check every file against "
                                     "the manifest and the manifest against its digest, run every available "
                                     "adapter on every case of its track in isolated workers inside Spark tasks, "
                                     "judge each cell, append the cells to OUT/results/run=ID/ and write every "
                                     "registered report (report.html, results.json, summary.md, junit/).")
    run.add_argument("--corpus", metavar="DIR", type=stored_path,
                     help="an existing corpus (default: OUT/corpus, generated if absent)")
    run.add_argument("--out", default="out/latest", metavar="DIR", type=output_dir,
                     help="output directory (default out/latest)")
    run.add_argument("--only", metavar="PATTERN", help="globs over case ids, comma-separated")
    run.add_argument("--seed", type=SEED, default=0, help="seed when generating the corpus")
    add_executor_options(run)
    run.add_argument("--run-id", metavar="ID", help="name of the run (default: the UTC time): at most 100 letters, "
                                                    "digits, '.', '_', '+', '-', a letter or digit first")
    run.add_argument("--resume", metavar="RUN_ID", help="finish an interrupted run without redoing its finished cells")
    run.add_argument("--repeat", type=integer(1, 1000), default=1, metavar="N",
                     help="go through the matrix N times (later rounds in shuffled order); a cell whose attempts "
                          "disagree is flaky (every non-pass cell is also re-run in a fresh worker)")
    add_track_option(run, many=True)
    run.add_argument("--fresh", action="store_true",
                     help="run every cell, reusing nothing: by default a cell whose inputs are unchanged since the "
                          "latest earlier run in OUT/results (the case's bytes, the adapter's library version, Python "
                          "and our code) is not run again; its attempts are replayed from that run (docs/results.md)")
    run.add_argument("--hang-limit", type=float, metavar="S",
                     help="seconds a confirming worker may take before a cell is a hang (default: 10x the adapter's "
                          "slowest answered cell in the run, at least 10 s, at most its timeout)")
    add_comparison_options(run)
    run.add_argument("--versions", metavar="FILE",
                     help="a version matrix (TOML: adapter -> list of versions or {from, to}): every release runs "
                          "in its own cached environment, as its own row NAME-VERSION; see docs/adapters.md")
    add_adapter_options(run)
    run.add_argument("--writers", nargs="?", const="*", metavar="PATTERN",
                     help="also the writer x reader matrix: every writer writes the track's tables with its defaults "
                          "and named profiles, each file is judged (strict decoder, data read back) and read by every "
                          "adapter, as written and with extensions added (writers.html; PATTERN: globs over the "
                          "written case ids written/WRITER/PROFILE/TABLE/VARIANT)")
    run.add_argument("--writer", action="append", metavar="NAME",
                     help="with --writers: this writer (repeatable; NAME==VERSION for a release; default: every "
                          "default writer)")
    run.set_defaults(handler="run:command")

    fz = sub.add_parser("fuzz", help="search for files that break readers; findings shrunk into regression cases",
                        description="Differential fuzzing (docs/fuzzing.md): files made of a base and a chain of "
                                    "structure-aware mutations (Hypothesis strategies), judged by our strict decoder "
                                    "and reference reader (read / reject / either), read by every selected adapter "
                                    "in persistent workers inside Spark tasks. Each distinct finding (implementation, "
                                    "verdict, normalised message) is confirmed in a fresh worker, shrunk against that "
                                    "adapter alone, and saved as a regression case in OUT/regressions that "
                                    "`parquet-conformance read` reproduces and `corpus add-regression --from` "
                                    "ships. Writes OUT/findings.json and OUT/findings.html. --examples N is "
                                    "reproducible: the same seed gives the same examples and findings; --time S is "
                                    "not (how many batches of examples finish in S seconds depends on the machine).")
    mode_fz = fz.add_mutually_exclusive_group(required=True)
    mode_fz.add_argument("--examples", type=integer(1, 10**9), metavar="N",
                         help="search N examples (reproducible)")
    mode_fz.add_argument("--time", type=seconds(), metavar="S",
                         help="search for S seconds (not reproducible in count)")
    fz.add_argument("--seed", type=SEED, default=0, help="the run seed; each batch's seed derives from it (default 0)")
    add_executor_options(fz)
    fz.add_argument("--out", default="out/fuzz", metavar="DIR", type=output_dir,
                    help="findings.json and findings.html go here")
    add_track_option(fz, many=False)
    fz.add_argument("--no-shrink", action="store_true", help="confirm findings, do not shrink them")
    fz.add_argument("--no-save", action="store_true", help="do not save findings as regression cases")
    fz.add_argument("--shrink-time", type=seconds(zero=True), default=60.0, metavar="S",
                    help="seconds of shrinking per finding at most (default 60)")
    fz.add_argument("--budget", type=seconds(zero=True), default=300.0, metavar="S",
                    help="seconds for confirming, shrinking and saving all findings after the search, most severe "
                         "first (crash, unhandled error, hang, wrong data); findings past it are listed, not saved "
                         "(default 300)")
    add_adapter_options(fz)  # default for fuzz: the track fuzzer's fast in-process readers
    fz.set_defaults(handler="fuzz:command")

    env = sub.add_parser("envs", help="list or free the environments of released versions",
                         description="Released versions (--adapter NAME==VERSION or NAME@VERSION, --versions, "
                                     "bisect, pinned adapters) run in environments created on first use under "
                                     "~/.cache/parquet-conformance/envs. `list` shows them with their sizes; "
                                     "`prune` removes the incomplete ones, the named releases, or --all.")
    env.add_argument("action", choices=["list", "prune"])
    env.add_argument("release", nargs="*", metavar="NAME==VERSION", help="prune: these releases' environments")
    env.add_argument("--all", action="store_true", help="prune: every environment")
    env.set_defaults(handler="commands:envs")

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
    add_executor_options(bis, default="none")  # a release's few cells: Spark's start would cost more than they do
    bis.set_defaults(handler="versions:command")

    rep = sub.add_parser("report",
                         help="compare runs, draw their history, write the static site or upstream reproducers",
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
                                     "bench/skip_overhead.py). --upstream NAME OUT: for each confirmed failure of one "
                                     "implementation (an adapter of the run, or its implementation), a folder in OUT "
                                     "that a vendor "
                                     "pastes into an issue: the smallest case file, a script in the library's own API "
                                     "importing nothing of ours (exit 0 when fixed, 1 when it reproduces), the "
                                     "expected data, the versions and the spec's sentence.")
    mode = rep.add_mutually_exclusive_group(required=True)
    mode.add_argument("--rewrite", metavar="OUT", help="a run's output folder: write its reports again")
    mode.add_argument("--diff", nargs=2, metavar=("RUN_A", "RUN_B"), help="the two run ids to compare")
    mode.add_argument("--history", metavar="RESULTS_DIR", help="a results dataset: chart and changes over its runs")
    mode.add_argument("--site", metavar="DIR", type=output_dir, help="write the static site of a run into DIR")
    mode.add_argument("--upstream", nargs=2, metavar=("NAME", "OUT"),
                      help="an implementation's confirmed failures as upstream-ready folders in OUT (one per failure: "
                           "its smallest file, a script in the library's own API, the expected data, the spec)")
    rep.add_argument("--results", default="out/latest/results", metavar="DIR",
                     help="the results dataset (--diff, --site, --upstream; default out/latest/results)")
    rep.add_argument("--run", metavar="RUN_ID",
                     help="--site, --rewrite, --upstream: the run to show (default: the latest)")
    rep.add_argument("--corpus", metavar="DIR",
                     help="--upstream: the run's corpus (default: the path its run recorded, found against the run's "
                          "folder, the one holding the results dataset, wherever it was moved or copied)")
    rep.add_argument("--out", metavar="DIR", type=output_dir,
                     help="--history: where history.svg and history.md go (default: the folder holding RESULTS_DIR)")
    rep.add_argument("--json", action="store_true", help="--diff: machine-readable output")
    add_comparison_options(rep)  # --rewrite
    rep.set_defaults(handler="report:command")

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
    chk.add_argument("--results", default="out/latest/results", metavar="DIR", help="the results dataset")
    chk.add_argument("--run", metavar="RUN_ID", help="the run to check (default: the latest)")
    chk.add_argument("--fail-on-flaky", action="store_true",
                     help="fail the gate (exit 1) on a flaky cell too; by default flaky cells are printed, not failed")
    chk.add_argument("--level", choices=[str(v) for v in LEVELS], default=str(Level.MUST),
                     help="the weakest level of expectation the gate enforces (default must; should adds the "
                          "recommendations, policy this suite's own readings too): a refusal of a read, or a read of "
                          "a file to reject, fails only at an enforced level; a crash, hang, unhandled error or wrong "
                          "data fails at every level")
    chk.add_argument("--only", metavar="PATTERN",
                     help="the selection the run was made with (a run of part of the corpus is gated only so)")
    chk.set_defaults(handler="check:command")

    # imported here, not at the top: start-up time (only this path needs it)
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
    imp.add_argument("--out", required=True, metavar="OUT", type=output_dir,
                     help="the corpus directory to write (empty, absent, or an earlier corpus, replaced whole)")
    add_track_option(imp, many=False)
    add_adapter_options(imp)
    imp.set_defaults(handler="imports:command")
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl-C at any point once we run, the imports included: one line
        print("parquet-conformance: interrupted", file=sys.stderr)
        return 130


def _main(argv: list[str] | None) -> int:
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.app.console import end_progress, user_errors
    from parquet_conformance.kernel.escape import guard_streams, terminal

    guard_streams()  # before anything is printed, argparse's errors included: every line passes the one escaper
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    try:
        with_track_options(parser, argv)
        args = parser.parse_args(argv)
        module, _, name = args.handler.partition(":")
        handler = getattr(importlib.import_module(f"{module}" if "." in module else
                                                  f"parquet_conformance.app.{module}"), name)
        return int(handler(args))
    except user_errors() as e:
        end_progress()
        print(f"parquet-conformance: error: {terminal(str(e))}", file=sys.stderr)  # one line, whatever it quotes
        return 2
    except OSError as e:  # the system refused: a full disk, a file-size limit, a folder made read-only meanwhile
        end_progress()
        where = f"{e.filename}: " if getattr(e, "filename", None) else ""
        full = e.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EROFS)
        what = e.strerror or errno.errorcode.get(e.errno or 0) or (str(e).splitlines() or [type(e).__name__])[0][:200]
        said = terminal(f"{'cannot write: ' if full else ''}{where}{what}")  # one line, whatever the path holds
        print(f"parquet-conformance: error: {said}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
