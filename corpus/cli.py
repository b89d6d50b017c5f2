"""`parquet-conformance corpus ...`: pack, verify, fetch and add regression cases.

Exit codes as in conformance.cli: 0 good; 1 the thing examined is bad (a checksum mismatch, a
missing or extra file, an unsafe archive), one problem per line on stderr; 2 unusable input.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus.dist import Limits
from parquet_conformance.kernel.errors import UsageError
from parquet_conformance.kernel.options import SEED_MAX, integer, output_dir, seconds


def _fail(lines: list[str]) -> int:
    for line in lines:
        print(f"parquet-conformance: {line}", file=sys.stderr)
    return 1


def cmd_pack(args: argparse.Namespace) -> int:
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.corpus import dist, pack
    from parquet_conformance.corpus.build import generate

    if args.corpus and (args.seed or args.only or args.large):
        raise UsageError("--seed, --only and --large choose what to generate; they do not go with --corpus") from None
    try:
        if args.corpus:
            archive, digest = pack.pack(Path(args.corpus), Path(args.out))
        else:
            with tempfile.TemporaryDirectory(prefix="parquet-conformance-pack-") as tmp:
                print("generating the corpus to pack", file=sys.stderr)
                generate(Path(tmp), seed=args.seed, only=args.only, large=args.large)
                archive, digest = pack.pack(Path(tmp), Path(args.out))
    except (dist.DistError, ValueError) as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"cannot pack into {args.out}: {e.strerror or e}") from None
    print(f"{digest}  {archive}")
    print(f"wrote {archive} and {archive.parent / dist.SUMS}")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.corpus import dist, verify

    path = Path(args.path)
    try:
        if path.is_dir():
            root = dist.find_root(path)
            problems, notes = dist.verify_tree(root), list[str]()
            label = str(root)
        elif path.is_file():
            problems, notes = verify.verify_archive(path)
            label = str(path)
        else:
            raise UsageError(f"{path}: no such file or directory") from None
    except dist.DistError as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"{path}: {e.strerror or e}") from None
    for note in notes:
        print(note)
    if problems:
        return _fail([f"{label}: {p}" for p in problems] + [f"{label}: {len(problems)} problem(s)"])
    print(f"{label}: OK, every file matches the manifest")
    return 0


def cmd_fetch(args: argparse.Namespace) -> int:
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.corpus import dist, fetch

    into = Path(args.into)
    try:
        limits = dist.Limits(max_unpacked=args.max_bytes, max_entries=args.max_entries, deadline_s=args.timeout)
        root = fetch.fetch(args.url, args.sha256, into, limits)
        problems = dist.verify_tree(root)
    except dist.Refused as e:
        return _fail([f"fetch refused: {e}"])
    except dist.DistError as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"cannot fetch into {into}: {e.strerror or e}") from None
    if problems:
        return _fail([f"{root}: {p}" for p in problems])
    print(f"corpus unpacked to {root}")
    return 0


def cmd_add_regression(args: argparse.Namespace) -> int:
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.corpus import regression_store as regressions

    if args.track and len(args.track) > 1:
        raise UsageError("add-regression reads one track; --track was given more than once")
    if args.source is not None and (args.file or args.expect or args.cite or args.base or args.track):
        raise UsageError("--from ships a case as its store recorded it: give only --id with it")
    if args.source is None and not (args.file and args.expect and args.cite):
        raise UsageError("add-regression takes FILE, --expect and --cite (or --from STORE --id ID)")
    try:
        if args.source is not None:
            entry = regressions.add_from(Path(args.source), args.id)
        else:
            track = tracks.get(args.track[0] if args.track else tracks.names()[0])
            expect = regressions.parse_expect(args.expect, track.default_role)
            citations = [regressions.parse_cite(c) for c in args.cite]
            entry = regressions.add(Path(args.file), args.id, expect, citations, title=args.title, notes=args.notes,
                                    base=args.base, track=track.name)
    except ValueError as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"cannot add {args.file}: {e.strerror or e}") from None
    where = regressions.regressions_dir()
    print(f"added {entry['id']} ({entry['size']} bytes, sha256 {entry['sha256'][:16]}...) to {where}; "
          f"`parquet-conformance generate` now writes it to cases/")
    return 0


def register(sub: argparse._SubParsersAction) -> argparse._SubParsersAction:
    """Adds the `corpus` command group to the main parser (app/cli.py); returns its subcommands, to which
    the application adds `import` (it runs the adapters, which corpus/ does not import)."""
    corpus = sub.add_parser(
        "corpus", help="the corpus as a release: pack, verify, fetch; add regression cases",
        description="Release and check the corpus without this project's code: `pack` writes a reproducible "
                    "tar.gz and SHA256SUMS, `verify` checks files against the manifest, `fetch` downloads and "
                    "unpacks safely, `add-regression` keeps a file found in the wild as a permanent case. "
                    "See docs/corpus-distribution.md.")
    cmds = corpus.add_subparsers(dest="corpus_command", required=True, metavar="COMMAND")

    pk = cmds.add_parser(
        "pack", help="write parquet-conformance-corpus-<version>.tar.gz and SHA256SUMS",
        description="Pack a corpus (--corpus DIR, or the default corpus generated on the fly) into "
                    "OUT/parquet-conformance-corpus-<version>.tar.gz with manifest.json and a README that explains "
                    "the expectations, and add its sha256 to OUT/SHA256SUMS. The archive is byte-for-byte "
                    "reproducible: fixed mtimes, sorted members, no owner names. <version> is the generator "
                    "version, plus -seedN, -only-<glob>-<hash>, -large for corpora built with those options.")
    pk.add_argument("--out", required=True, metavar="DIST", type=output_dir, help="output directory")
    pk.add_argument("--corpus", metavar="DIR", help="an existing corpus (default: generate one)")
    pk.add_argument("--seed", type=integer(0, SEED_MAX), default=0,
                    help="when generating: seed for random payloads (default 0)")
    pk.add_argument("--only", metavar="PATTERN", help="when generating: glob over case ids")
    pk.add_argument("--large", action="store_true", help="when generating: include the 64 and 128 MiB cases")
    pk.set_defaults(handler="parquet_conformance.corpus.cli:cmd_pack")

    vf = cmds.add_parser(
        "verify", help="check every file against manifest.json (and an archive against SHA256SUMS)",
        description="PATH is a corpus directory (or the directory `fetch` unpacked into) or a .tar.gz. Every "
                    "case, base and expected file is checked against the manifest; files under cases/, bases/, "
                    "expected/ that the manifest does not list are extra. An archive is also checked against "
                    "the SHA256SUMS next to it. Exit 0 if all is well, 1 with one problem per line, 2 if PATH "
                    "is not a corpus.")
    vf.add_argument("path", metavar="PATH")
    vf.set_defaults(handler="parquet_conformance.corpus.cli:cmd_verify")

    ft = cmds.add_parser(
        "fetch", help="download a corpus archive, check its sha256, unpack it safely",
        description="Download URL (http, https, file, or a local path) into a temporary file (at most 2 GiB, "
                    "within --timeout), compare its sha256 with --sha256 before opening it, then unpack it into "
                    "DIR. Only plain files and directories under one top-level directory are unpacked, no more "
                    "bytes and entries than its manifest lists (and --max-bytes, --max-entries): an archive with "
                    "an absolute path, '..', a link, a device or too much content is refused whole. Files are "
                    "checked against the manifest before they are moved into place: nothing is written on "
                    "refusal. Exit 1 on a refused archive, 2 on a download error.")
    ft.add_argument("url", metavar="URL")
    ft.add_argument("--sha256", required=True, metavar="HEX", help="the archive's sha256 (from SHA256SUMS)")
    ft.add_argument("--into", required=True, metavar="DIR", type=output_dir, help="where to unpack (created if absent)")
    ft.add_argument("--timeout", type=seconds(), default=600.0, metavar="SECONDS",
                    help="give up when the whole download (connecting, headers, body) is not done within this long "
                         "(default 600)")
    ft.add_argument("--max-bytes", type=integer(1), default=Limits().max_unpacked, metavar="N",
                    help="refuse an archive holding more than N bytes of files (default 1 GiB); it may never hold "
                         "more than its manifest lists either")
    ft.add_argument("--max-entries", type=integer(1), default=Limits().max_entries, metavar="N",
                    help="refuse an archive of more than N entries (default 100000)")
    ft.set_defaults(handler="parquet_conformance.corpus.cli:cmd_fetch")

    ar = cmds.add_parser(
        "add-regression", help="keep a file found in the wild as a permanent case",
        description="Copy FILE to corpus/regressions/files/<id>.parquet and record it in "
                    "corpus/regressions/regressions.json (or the directory in $PARQUET_CONFORMANCE_REGRESSIONS); "
                    "`generate` then writes it as cases/<id>.parquet with kind 'regression'. With --from STORE, a "
                    "case that `fuzz` found and kept in its OUT/regressions is shipped the same way, as recorded "
                    "there (expectations, citations, the chain that made it).")
    ar.add_argument("file", metavar="FILE", nargs="?", help="the file (not with --from)")
    ar.add_argument("--id", required=True, help="case id, starting with 'regression/', e.g. regression/arrow-gh-12345")
    ar.add_argument("--from", dest="source", metavar="STORE",
                    help="ship case ID of another store as it was recorded there, e.g. a fuzz run's OUT/regressions")
    ar.add_argument("--expect", action="append", metavar="ROLE=WORD",
                    help="what a reader must do: legacy=read|reject|either (required), aware:<profile>=... "
                         "(repeatable)")
    ar.add_argument("--cite", action="append", metavar="'SOURCE | SECTION | QUOTE'",
                    help="where the file comes from and the rule it tests, e.g. "
                         "'apache/arrow GH-12345 | Description | reader crashes on ...' (repeatable)")
    ar.add_argument("--title", help="one line: what the file is (default: from the file name)")
    ar.add_argument("--notes", default="", help="ambiguities and reasons")
    ar.add_argument("--track", action="append", metavar="NAME",
                    help="the track whose reader reads the file (default: the first registered, parquet)")
    ar.add_argument("--base",
                    help="the base whose data a `read` must return (default: the track's first, flat); a reader that "
                         "reads the file "
                         "must return exactly expected/<base>.json or its own reading of that base")
    ar.set_defaults(handler="parquet_conformance.corpus.cli:cmd_add_regression")
    return cmds
