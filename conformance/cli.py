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
