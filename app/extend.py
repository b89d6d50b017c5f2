"""`parquet-conformance extend`: a vendor's payload appended to structs of an existing file (docs/extending.md).

What every track shares (its arguments are app/cli.py's): the input file, the payload file and its
size, OUT and --force, writing atomically. The track's Extender (corpus/track.py; Parquet:
generators/parquet/extend.py) declares its own options and help, and does the rest. Bad input is one line on
stderr and exit 2 (a UsageError), and nothing is written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from parquet_conformance.app.console import one_track
from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus.track import Extender
from parquet_conformance.kernel.errors import UsageError


def _input(path: Path, what: str) -> None:
    if path.is_dir():
        raise UsageError(f"{path}: is a directory; {what} is a file")
    if not path.is_file():
        raise UsageError(f"{path}: no such file")


def _check_out(out: Path, force: bool) -> None:
    if out.is_dir():
        raise UsageError(f"{out}: is a directory; --out takes a file name")
    if out.exists() and not force:
        raise UsageError(f"{out}: exists; --force replaces it")
    parent = out.parent
    if not parent.is_dir():
        raise UsageError(f"cannot write {out}: no directory {parent}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write {out}: {parent} is not writable")


def _write(out: Path, data: bytes) -> None:
    """Through a temporary file in OUT's directory, renamed into place: OUT is whole or untouched."""
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, out)
    except OSError as e:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise UsageError(f"cannot write {out}: {e.strerror or e}") from None


def track_extender(named: list[str] | None) -> Extender:
    """The Extender of the track `--track` names (default: the first registered); UsageError if it has none."""
    return tracks.extender(one_track(argparse.Namespace(command="extend", track=named)))


def command(args: argparse.Namespace) -> int:
    src, payload_path = Path(args.file), Path(args.payload_file)
    _input(src, "FILE")
    _input(payload_path, "--payload-file")
    if args.out is None and not args.dry_run:
        raise UsageError("extend needs --out OUT (or --dry-run)")
    out = None if args.dry_run or args.out is None else Path(args.out)
    if out is not None:
        _check_out(out, args.force)
    extender = track_extender(args.track)
    try:
        size = payload_path.stat().st_size
        if size > extender.max_payload:
            raise UsageError(f"{payload_path}: {size} bytes; an extension holds at most {extender.max_payload}")
        data, payload = src.read_bytes(), payload_path.read_bytes()
    except OSError as e:
        raise UsageError(f"{e.filename}: {e.strerror or e}") from None
    try:
        result = extender.extend(data, payload, **{name: getattr(args, name) for name in extender.options})
    except extender.errors as e:
        raise UsageError(f"{src}: {e}") from None
    if out is not None:
        _write(out, result.data)
    for warning in result.warnings:
        print(f"parquet-conformance: warning: {warning}", file=sys.stderr)
    if args.json:
        print(json.dumps({"file": str(src), "out": None if out is None else str(out), "size": len(result.data),
                          "extensions": result.placed, "warnings": result.warnings}, indent=1))
    else:
        where = "would be" if out is None else f"{out}:"
        print(f"{where} {src} with {len(result.placed)} extension(s), {len(result.data)} bytes")
        print("\n".join(f"  {line}" for line in result.lines))
    return 0
