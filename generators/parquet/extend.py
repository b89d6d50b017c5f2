"""A vendor's payload as field 32767 of any struct of an existing Parquet file (`parquet-conformance extend`).

BinaryProtocolExtensions.md, "Appending extensions to thrift": AppendExtension replaces a serialized struct's stop
byte with the header of field 32767 (binary), appends ULEB128(size), the bytes and a new stop byte. That is
edits.extension_field inserted before the selected struct's stop byte. In the footer nothing else changes but the
footer length (edits.apply_edits); outside it (page headers, the page index, bloom filter headers) the bytes after
the insertion move, and layout.move rewrites every offset and length that follows or spans it.

Selection: `struct` names a parquet.thrift struct, `where` filters narrow it; a struct must pass every filter
(docs/extending.md):

    row_group=N   inside row group N: the RowGroup, its ColumnChunks and all below them, in the footer and in the
                  data region (pages, page index, bloom filter)
    column=N      inside the N-th column chunk of a row group (leaf order, from 0); a SchemaElement or ColumnOrder:
                  the N-th leaf's
    path=a.b      inside the column chunk whose column is a.b (dotted, as path_in_schema); a SchemaElement: the
                  element at that path, a group included; a ColumnOrder: that leaf's
    page=N        inside the N-th page header of a column chunk (a dictionary page counts)
    key=K         a KeyValue whose key is K
    at=PATH       exactly the struct at PATH, as `extend --dry-run` and `inspect` print paths
                  (e.g. row_groups[0].columns[1].meta_data, row_groups[0].columns[0].offset_index)
    index=N       of the structs left, the N-th in file order (byte offset; negative counts from the end)
    all           every struct left

Without `index` or `all`, exactly one struct must be left. Nothing left, or several without `index`/`all`, is an
error naming the candidates: the tool never guesses.

Framing (profiles.frame): the raw payload; the payload and a 16-byte UUID (`uuid`); or a profile's framing
(`profile`: the spec's Footer example `payload | crc32 | size | crc32(size) | UUID`, its migration form, or the Arrow
prototypes' layout), under the profile's UUID unless `uuid` names another.
"""

from __future__ import annotations

import argparse
import difflib
import re
import uuid as uuidlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from parquet_conformance.generators.parquet.edits import HEADERS, Edit, apply_edits, extension_field
from parquet_conformance.generators.parquet.footer import (
    EXTENSION_IDS,
    STRUCT_NAMES,
    Extension,
    FooterError,
    ParquetFooter,
    Problem,
    StructRef,
    struct_extensions,
)
from parquet_conformance.generators.parquet.layout import move, page_structs
from parquet_conformance.generators.parquet.profiles import CRCS, FRAMINGS, check_framing, frame
from parquet_conformance.generators.parquet.strict import check_file

# A Thrift binary's length is an i32: no reader takes more (docs/spec-notes.md#size-limits).
MAX_EXTENSION = 2**31 - 1
# Arrow C++ refuses Thrift strings over 100,000,000 bytes by default, parquet-java messages over 100 MiB.
READER_LIMIT = 100_000_000
MAX_FOOTER = 2**32 - 1  # the footer length is a u32
NUMBERS = ("row_group", "column", "page", "index")
FILTERS = (*NUMBERS, "path", "key", "at", "all")
EXISTING = ("refuse", "replace", "add")
FILTER_HELP = "row_group=N, column=N, path=a.b, page=N, key=K, at=PATH, index=N, all"


class ExtendError(ValueError):
    """Input `extend` cannot use, in one line."""


@dataclass(frozen=True)
class Selector:
    """`struct` and the `where` filters (module docstring)."""

    struct: str
    row_group: int | None = None
    column: int | None = None
    path: str | None = None
    page: int | None = None
    key: str | None = None
    at: str | None = None
    index: int | None = None
    every: bool = False

    @classmethod
    def parse(cls, struct: str, where: Sequence[str] = ()) -> Selector:
        if struct not in STRUCT_NAMES:
            close = difflib.get_close_matches(struct, sorted(STRUCT_NAMES), n=1)
            hint = f"did you mean {close[0]}?" if close else "--struct takes a parquet.thrift struct name, e.g. " \
                                                              "ColumnMetaData"
            raise ExtendError(f"unknown struct {struct!r}: {hint}")
        values: dict[str, Any] = {}
        for item in where:
            name, sep, text = item.partition("=")
            value: str | int | bool = text
            if name == "all" and not sep:
                name, value = "every", True
            elif name not in FILTERS or name == "all" or not sep or not text:
                raise ExtendError(f"bad --where {item!r}: the filters are {FILTER_HELP}")
            elif name in NUMBERS:
                try:
                    value = int(text)
                except ValueError:
                    raise ExtendError(f"bad --where {item!r}: {name} takes a number") from None
                if value < 0 and name != "index":
                    raise ExtendError(f"bad --where {item!r}: {name} counts from 0")
            if name in values:
                raise ExtendError(f"--where {'all' if name == 'every' else name} given twice")
            values[name] = value
        if "every" in values and "index" in values:
            raise ExtendError("--where all and --where index=N exclude each other")
        return cls(struct, **values)

    def describe(self) -> str:
        shown = [f"{k}={v}" for k in ("row_group", "column", "path", "page", "key", "at", "index")
                 if (v := getattr(self, k)) is not None]
        return " ".join(shown + (["all"] if self.every else []))


# -- where a struct is ----------------------------------------------------------------------------------

_ROW_GROUP = re.compile(r"row_groups\[(\d+)\]")
_COLUMN = re.compile(r"row_groups\[\d+\]\.columns\[(\d+)\]")
_PAGE = re.compile(r"row_groups\[\d+\]\.columns\[\d+\]\.pages\[(\d+)\]")
_SCHEMA = re.compile(r"schema\[(\d+)\]")
_ORDER = re.compile(r"column_orders\[(\d+)\]")  # one per leaf, in leaf order (parquet.thrift FileMetaData)


def schema_paths(footer: ParquetFooter) -> list[tuple[str, int | None]]:
    """(dotted path, leaf number or None for a group) of each SchemaElement in order; the root's path is ''.
    Counts that do not add up are followed as far as they go, never trusted to index anything."""
    out: list[tuple[str, int | None]] = []
    if footer.encrypted_footer:
        return out
    stack: list[list[Any]] = []  # [prefix, children left]
    leaf = 0
    for i, el in enumerate(footer.root.children("schema")):
        raw = el.value("name", b"")
        name = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        children = el.value("num_children") or 0
        if i == 0:
            out.append(("", None))
            stack = [["", children]]
            continue
        while stack and stack[-1][1] <= 0:
            stack.pop()
        prefix = stack[-1][0] if stack else ""
        if stack:
            stack[-1][1] -= 1
        path = f"{prefix}.{name}" if prefix else name
        if children > 0:
            out.append((path, None))
            stack.append([path, children])
        else:
            out.append((path, leaf))
            leaf += 1
    return out


@dataclass(frozen=True)
class Place:
    row_group: int | None
    column: int | None
    path: str | None
    page: int | None


def _number(pattern: re.Pattern[str], path: str) -> int | None:
    m = pattern.match(path)
    return int(m.group(1)) if m else None


def place(ref: StructRef, schema: list[tuple[str, int | None]]) -> Place:
    leaves = [p for p, leaf in schema if leaf is not None]
    column = _number(_COLUMN, ref.path)
    if column is not None:
        path = leaves[column] if column < len(leaves) else None
        return Place(_number(_ROW_GROUP, ref.path), column, path, _number(_PAGE, ref.path))
    element = _number(_SCHEMA, ref.path)
    if element is not None and element < len(schema) and element > 0:
        return Place(None, schema[element][1], schema[element][0], None)
    order = _number(_ORDER, ref.path)
    if order is not None:
        return Place(None, order, leaves[order] if order < len(leaves) else None, None)
    return Place(_number(_ROW_GROUP, ref.path), None, None, None)


def _passes(sel: Selector, ref: StructRef, where: Place) -> bool:
    if sel.at is not None and ref.path != sel.at:
        return False
    if sel.key is not None and (ref.name != "KeyValue" or ref.value("key") != sel.key.encode()):
        return False
    return all(want is None or want == have for want, have in (
        (sel.row_group, where.row_group), (sel.column, where.column), (sel.path, where.path), (sel.page, where.page)))


def candidates(footer: ParquetFooter) -> list[StructRef]:
    """Every struct of the file that an extension can go into, in file order: the data region's (page headers, page
    index, bloom filter headers), then the footer's."""
    return sorted(page_structs(footer) + footer.structs(), key=lambda r: r.node.start)


def select(footer: ParquetFooter, sel: Selector) -> list[StructRef]:
    named = [r for r in candidates(footer) if r.name == sel.struct]
    if not named:
        raise ExtendError(f"this file has no {sel.struct}")
    schema = schema_paths(footer)
    left = [r for r in named if _passes(sel, r, place(r, schema))]
    if not left:
        raise ExtendError(f"no {sel.struct} matches --where {sel.describe()} (the file has {len(named)}: "
                          f"{_some(named)})")
    if sel.index is not None:
        if not -len(left) <= sel.index < len(left):
            raise ExtendError(f"index={sel.index}: {len(left)} {sel.struct} match ({_some(left)})")
        return [left[sel.index]]
    if sel.every or len(left) == 1:
        return left
    raise ExtendError(f"{len(left)} {sel.struct} match{' --where ' + sel.describe() if sel.describe() else ''} "
                      f"({_some(left)}): narrow it (--where at=PATH, index=N, ...) or take each (--where all)")


def _some(refs: list[StructRef], n: int = 4) -> str:
    shown = ", ".join(r.path for r in refs[:n])
    return shown + (f", ... {len(refs) - n} more" if len(refs) > n else "")


# -- the extension ------------------------------------------------------------------------------------


def parse_uuid(text: str) -> bytes:
    """A UUID as its 16 bytes in RFC 4122 order (the order of its hex string): 8-4-4-4-12 hex digits, 32 hex
    digits, or the urn:uuid: and {braced} forms."""
    try:
        return uuidlib.UUID(text.strip()).bytes
    except ValueError:
        raise ExtendError(f"bad --uuid {text!r}: a UUID is 32 hex digits, e.g. "
                          "123e4567-e89b-12d3-a456-426614174000") from None


def framed(payload: bytes, uuid: str | None = None, profile: str | None = None, crc: str = "zlib") -> bytes:
    """The extension's bytes: the payload raw, with a trailing UUID, or framed as a profile frames it."""
    if profile == "par3":
        raise ExtendError("--profile par3 is the final form's file tail (no Thrift footer), not an extension framing")
    if profile is not None and profile not in FRAMINGS:
        raise ExtendError(f"unknown --profile {profile!r}: the framings are {', '.join(FRAMINGS)}")
    if crc not in CRCS:
        raise ExtendError(f"unknown --crc {crc!r}: {' or '.join(CRCS)}")
    if crc != "zlib" and profile not in ("spec-example", "migration"):
        raise ExtendError("--crc goes with --profile spec-example or migration (the others use zlib's CRC-32 only)")
    return frame(payload, profile, None if uuid is None else parse_uuid(uuid), crc)


def describe_extension(ext: Extension) -> dict[str, Any]:
    """An extension as `inspect` lists it: Extension.describe and, for a binary one, what its framing says (the
    profile its trailing UUID names, the trailer found, whether it checks; profiles.check_framing)."""
    out = ext.describe()
    if ext.type == "binary":
        out.update(check_framing(bytes(ext.payload)).to_json())
    return out


def framing_text(ext: dict[str, Any]) -> str:
    """`, profile P, framing F ok|bad (why)` for an extension whose trailing UUID or trailer says something."""
    out = f", profile {ext['profile']}" if ext.get("profile") else ""
    if ext.get("framing"):
        verdict = "ok" if ext["framing_ok"] else f"bad ({ext['framing_error']})"
        out += f", framing {ext['framing']}{' ' + ext['framing_crc'] if ext.get('framing_crc') else ''} {verdict}"
    return out


@dataclass
class Extended:
    data: bytes  # the extended file
    placed: list[dict[str, Any]]  # each new extension as `inspect` lists it (describe_extension)
    warnings: list[str] = field(default_factory=list)

    @property
    def lines(self) -> list[str]:
        return [f"{e['path']} ({e['struct']}): header {e['header']}, {e['length']} bytes at offset {e['offset']}, "
                f"uuid {e['uuid']}{framing_text(e)}" for e in self.placed]


def _key(p: Problem) -> tuple[str, str, str]:
    return p.level, p.rule, p.path


def extend(data: bytes, payload: bytes, *, struct: str, where: Sequence[str] = (), uuid: str | None = None,
           profile: str | None = None, crc: str = "zlib", header: str = "spec", existing: str = "refuse") -> Extended:
    """`payload` (framed: `framed`) as field 32767 of each selected struct of `data`. `header`: `spec` writes
    `08 FF FF 01` as the spec's AppendExtension does, `zigzag` `08 FE FF 03` as a Thrift compiler writes field 32767
    (docs/spec-notes.md). A struct that has an extension already: `existing` refuse (the spec reserves one field),
    replace it, or add a second one (nonconforming: for test files). ExtendError for every input it cannot use;
    the file it returns has no finding of the spec's rules that `data` did not have."""
    if header not in HEADERS:
        raise ExtendError(f"unknown --header {header!r}: spec (08 FF FF 01) or zigzag (08 FE FF 03)")
    if existing not in EXISTING:
        raise ExtendError(f"unknown --existing {existing!r}: {', '.join(EXISTING)}")
    sel = Selector.parse(struct, where)
    body = framed(payload, uuid, profile, crc)
    if len(body) > MAX_EXTENSION:
        raise ExtendError(f"the extension would be {len(body)} bytes; a Thrift binary holds at most {MAX_EXTENSION}")
    try:
        footer, before = check_file(data)
    except FooterError as e:
        raise ExtendError(f"not a Parquet file with a Thrift footer: {e}") from None
    if footer.signature:
        raise ExtendError("the footer is signed (an encrypted file in plaintext footer mode): an extension would break "
                          "its signature")
    refs = select(footer, sel)
    new_field = extension_field(body, header)
    edits = [_edit(ref, new_field, existing) for ref in refs]
    grow = sum(len(e.data) - (e.end - e.start) for e in edits if e.start >= footer.footer_offset)
    if footer.footer_length + grow > MAX_FOOTER:
        raise ExtendError(f"the footer would be {footer.footer_length + grow} bytes; its length field holds at most "
                          f"{MAX_FOOTER}")
    inside = all(ref.node.start >= footer.footer_offset for ref in refs)
    out = apply_edits(data, edits) if inside else move(footer, edits)
    placed = _check(out, body, refs, before, existing)
    return Extended(out, placed, _warnings(before, body, uuid, profile))


def _edit(ref: StructRef, new_field: bytes, existing: str) -> Edit:
    present = [f for f in ref.node.fields if f.id in EXTENSION_IDS]
    if not present or existing == "add":
        stop = ref.node.stop_offset
        return Edit(stop, stop, new_field)
    if existing == "refuse":
        raise ExtendError(f"{ref.path} ({ref.name}) has an extension already ({present[0].end - present[0].header_end}"
                          " bytes); the spec reserves one field 32767 per struct: --existing replace or add")
    if len(present) > 1:
        raise ExtendError(f"{ref.path} ({ref.name}) has {len(present)} extension fields; --existing replace takes one")
    return Edit(present[0].header_start, present[0].end, new_field)


def _check(out: bytes, body: bytes, refs: list[StructRef], before: list[Problem],
           existing: str) -> list[dict[str, Any]]:
    """The new extensions as the extended file shows them; ExtendError if the edit broke a rule the input kept (a
    bug of ours or a layout we do not know how to move: nothing is written)."""
    try:
        footer, after = check_file(out)
    except FooterError as e:
        raise ExtendError(f"refusing to write: the extended file does not decode ({e})") from None
    allowed = {("finding", "extension", r.path) for r in refs} if existing == "add" else set()
    extra = Counter(map(_key, after)) - Counter(map(_key, before))
    new = [p for p in after if _key(p) in extra and _key(p) not in allowed]
    if new:
        raise ExtendError(f"refusing to write: the extended file would break a rule the input keeps ({new[0]})")
    by_path = {(r.name, r.path): r for r in candidates(footer)}
    placed = []
    for ref in refs:
        now = by_path.get((ref.name, ref.path))
        found = struct_extensions(out, now) if now is not None else []
        if not found or found[-1].payload != body:
            raise ExtendError(f"refusing to write: {ref.path} does not read back with the extension")
        placed.append(describe_extension(found[-1]))
    return placed


def _warnings(before: list[Problem], body: bytes, uuid: str | None, profile: str | None) -> list[str]:
    out = []
    findings = [p for p in before if p.level == "finding"]
    if findings:
        out.append(f"the input breaks {len(findings)} rule(s) of the spec already (the first: {findings[0]}); "
                   "the extended file keeps them")
    if uuid is None and profile is None:
        out.append("no UUID: the spec says extensions MUST carry enough unique state to be told apart (--uuid)")
    if len(body) > READER_LIMIT:
        out.append(f"the extension is {len(body)} bytes: Arrow C++ refuses Thrift strings over {READER_LIMIT} bytes "
                   "and parquet-java messages over 100 MiB by default")
    return out


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


class Extender:
    """The Parquet track's side of `parquet-conformance extend` (corpus/track.py Extender): its options, its help,
    the extension itself."""

    max_payload = MAX_EXTENSION
    errors = (ExtendError,)
    description, epilog = DESCRIPTION, EPILOG
    options = ("struct", "where", "uuid", "profile", "crc", "header", "existing")

    def add_options(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("--struct", required=True, metavar="NAME", help="a parquet.thrift struct, e.g. ColumnMetaData")
        p.add_argument("--where", action="append", default=[], metavar="FILTER", help="narrow the structs (see above)")
        p.add_argument("--uuid", metavar="U", help="append this UUID (16 bytes, RFC 4122 order) after the payload")
        p.add_argument("--profile", metavar="NAME",
                       help="frame as this profile: spec-example, migration, arrow-prototype")
        p.add_argument("--crc", default="zlib", metavar="KIND",
                       help="the CRC-32 of spec-example and migration framing: zlib (default) or castagnoli")
        p.add_argument("--header", default="spec", metavar="FORM",
                       help="spec: 08 FF FF 01 as the spec's AppendExtension writes it (default); zigzag: 08 FE FF 03 "
                            "as a Thrift compiler writes field 32767 (docs/spec-notes.md)")
        p.add_argument("--existing", default="refuse", metavar="WHAT",
                       help="a struct with an extension already: refuse (default; the spec reserves one field), "
                            "replace it, or add a second (nonconforming: for test files)")

    def extend(self, data: bytes, payload: bytes, **options: Any) -> Extended:
        return extend(data, payload, **options)


EXTENDER = Extender()
