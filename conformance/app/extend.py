"""`parquet-conformance extend`: a vendor's payload appended to structs of an existing file (docs/extending.md).

Argument parsing and what every track shares: the input file, the payload file and its size, OUT and --force,
writing atomically. The track's Extender (corpus/track.py; Parquet: generators/parquet/extend.py) does the rest.
Bad input is one line on stderr and exit 2 (a UsageError), and nothing is written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from parquet_conformance.corpus.errors import UsageError

DESCRIPTION = """\
Append the bytes of --payload-file as field 32767 (binary) to structs of FILE, as BinaryProtocolExtensions.md's
AppendExtension does: the struct's stop byte becomes the field header, then ULEB128(size), the bytes and a new
stop byte. In the footer only the footer length changes; in a page header, the page index or a bloom filter
header every byte after it moves, and every offset and length that follows or spans it is rewritten. The result
is checked before it is written: it must decode, read back the extension, and break no rule of the spec that
FILE keeps.

--struct names a parquet.thrift struct; --where filters (repeatable; a struct must pass each) pick which:
  row_group=N   inside row group N (its chunks, their metadata, pages, page index and bloom filter)
  column=N      inside the N-th column chunk (leaf order, from 0); a SchemaElement, ColumnOrder: the N-th leaf's
  path=a.b      inside the chunk of column a.b (dotted path_in_schema); a SchemaElement: the one at a.b
                (groups too); a ColumnOrder: that leaf's
  page=N        inside the N-th page header of a chunk (a dictionary page counts)
  key=K         a KeyValue whose key is K
  at=PATH       exactly the struct at PATH (row_groups[0].columns[1].meta_data; --dry-run prints paths)
  index=N       of those left, the N-th in file order (negative: from the end)
  all           every one left
Without index= or all exactly one struct must match; the error lists the candidates.

Framing: the raw payload; with --uuid, the payload then the 16-byte UUID (the spec: extensions MUST carry
enough unique state to be told apart); with --profile, the profile's trailer too (spec-example, migration:
payload | crc32(payload) | size | crc32(size) | UUID, the spec's Footer example; arrow-prototype: the Arrow
prototypes' layout) under the profile's UUID unless --uuid names yours. `inspect` lists every extension with
its struct, path, header form, length, UUID and whether its framing checks."""

EPILOG = """\
examples:
  parquet-conformance extend f.parquet --struct FileMetaData --payload-file p.bin \\
      --uuid 123e4567-e89b-12d3-a456-426614174000 --out g.parquet
  parquet-conformance extend f.parquet --struct ColumnMetaData --where path=a.b --payload-file p.bin \\
      --profile spec-example --out g.parquet
  parquet-conformance extend f.parquet --struct OffsetIndex --where row_group=0 --where all \\
      --payload-file p.bin --dry-run"""


def register(sub: Any) -> None:
    """The `extend` subcommand on the command line's subparsers."""
    p = sub.add_parser("extend", help="append a vendor's payload as field 32767 to any struct of an existing file",
                       description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE")
    p.add_argument("--struct", required=True, metavar="NAME", help="a parquet.thrift struct, e.g. ColumnMetaData")
    p.add_argument("--where", action="append", default=[], metavar="FILTER", help="narrow the structs (see above)")
    p.add_argument("--payload-file", required=True, metavar="P", help="the extension's bytes (any content)")
    p.add_argument("--uuid", metavar="U", help="append this UUID (16 bytes, RFC 4122 order) after the payload")
    p.add_argument("--profile", metavar="NAME", help="frame as this profile: spec-example, migration, arrow-prototype")
    p.add_argument("--crc", default="zlib", metavar="KIND",
                   help="the CRC-32 of spec-example and migration framing: zlib (default) or castagnoli")
    p.add_argument("--header", default="spec", metavar="FORM",
                   help="spec: 08 FF FF 01 as the spec's AppendExtension writes it (default); zigzag: 08 FE FF 03 as "
                        "a Thrift compiler writes field 32767 (docs/spec-notes.md)")
    p.add_argument("--existing", default="refuse", metavar="WHAT",
                   help="a struct with an extension already: refuse (default; the spec reserves one field), replace "
                        "it, or add a second (nonconforming: for test files)")
    p.add_argument("--out", metavar="OUT", help="where to write the extended file")
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    p.add_argument("--dry-run", action="store_true", help="say what would be written; write nothing")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--track", default="parquet", metavar="NAME", help="the file's track (default parquet)")
    p.set_defaults(func=cmd_extend)


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


def cmd_extend(args: argparse.Namespace) -> int:
    from parquet_conformance.corpus import track

    src, payload_path = Path(args.file), Path(args.payload_file)
    _input(src, "FILE")
    _input(payload_path, "--payload-file")
    if args.out is None and not args.dry_run:
        raise UsageError("extend needs --out OUT (or --dry-run)")
    out = None if args.dry_run or args.out is None else Path(args.out)
    if out is not None:
        _check_out(out, args.force)
    extender = track.extender(track.get(args.track))
    try:
        size = payload_path.stat().st_size
        if size > extender.max_payload:
            raise UsageError(f"{payload_path}: {size} bytes; an extension holds at most {extender.max_payload}")
        data, payload = src.read_bytes(), payload_path.read_bytes()
    except OSError as e:
        raise UsageError(f"{e.filename}: {e.strerror or e}") from None
    try:
        result = extender.extend(data, payload, struct=args.struct, where=args.where, uuid=args.uuid,
                                 profile=args.profile, crc=args.crc, header=args.header, existing=args.existing)
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
