"""The corpus as a release artifact: pack, verify, fetch.

- `pack`: a deterministic `parquet-conformance-corpus-<version>.tar.gz` (fixed mtimes, sorted
  members, owner 0 and no names, gzip header without time or file name) and `SHA256SUMS`, so
  that anyone can rebuild a release and compare (yaml-test-suite's dated data releases and Delta
  DAT's tarballs publish no checksums; we do).
- `verify`: every file of a corpus directory or archive against the manifest's sha256, and an
  archive against the `SHA256SUMS` next to it.
- `fetch`: download, check the sha256 *before* opening the archive, then unpack only plain
  files and directories under one top-level directory (no absolute paths, `..`, links or
  devices): the whole archive is checked before anything is written.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import http.client
import io
import os
import re
import shutil
import socket
import stat
import tarfile
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from parquet_conformance.corpus.model import (
    GENERATOR_VERSION,
    MANIFEST_FORMAT,
    MANIFEST_VERSION,
    Manifest,
    manifest_schema,
)
from parquet_conformance.generators.canonical import data_hash
from parquet_conformance.kernel import documents
from parquet_conformance.kernel.documents import DocumentError

STEM = "parquet-conformance-corpus"
SUMS = "SHA256SUMS"
README = "README"
MANIFEST = "manifest.json"
MTIME = 0  # every member's mtime, and the gzip header's
MAX_DOWNLOAD = 2 << 30
MAX_MANIFEST = 64 << 20  # the default corpus's is 3.4 MiB
MAX_EXPECTED = 16 << 20  # a base's expected data (the largest is 250 KiB); parsed into Python objects
MAX_SUMS = 1 << 20  # SHA256SUMS: a line per archive


@dataclass(frozen=True)
class Limits:
    """What `fetch` accepts. Unpacked bytes and entries are capped twice: by these ceilings while the archive is
    scanned (so a bomb stops early), then by what the archive's own manifest lists (its files' sizes)."""

    max_download: int = MAX_DOWNLOAD
    max_unpacked: int = 1 << 30  # the --large corpus is about 250 MiB
    max_entries: int = 100_000
    deadline_s: float = 600.0  # for the whole download, however slowly the bytes come


SLACK_BYTES = 16 << 20  # manifest.json, README and SHA256SUMS, which the manifest cannot list
SLACK_ENTRIES = 8
CHUNK = 1 << 20
DATA_DIRS = ("cases", "bases", "expected")
KINDS = {
    "golden": "our strict decoder accepts it: a valid footer with extensions written as the spec says",
    "nonconforming": "valid Thrift that breaks a rule of the spec (an extension's wire type, duplicates, overlong "
    "lengths; enums out of range, statistics out of order)",
    "corrupt": "not a readable footer (bad footer length, lengths that overshoot, missing stop fields, bad tails, cut "
    "files) or damaged pages (wrong CRCs)",
    "regression": "a file found in the wild that broke a reader, kept as a permanent case",
}
HEX64 = re.compile(r"[0-9a-f]{64}")
SUMS_LINE = re.compile(r"([0-9a-fA-F]{64}) [ *](.+)")


class DistError(Exception):
    """Input that cannot be used at all (missing, not a corpus, unreachable): exit code 2."""


class Refused(Exception):
    """The thing examined is bad (checksum mismatch, unsafe archive): exit code 1."""


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            h.update(chunk)
    return h.hexdigest()


def load_manifest(text: bytes | str, where: str) -> Manifest:
    """The one manifest loader: JSON within MAX_MANIFEST and documents.MAX_DEPTH, the manifest's JSON Schema (derived
    from its records), then the records and what a schema cannot say (corpus/model.py Manifest.check); any problem
    is one DistError naming `where` and the field."""
    try:
        obj = documents.parse(text, MAX_MANIFEST)
        if not isinstance(obj, dict) or obj.get("format") != MANIFEST_FORMAT:
            raise DocumentError("not a parquet-conformance manifest")
        if obj.get("manifest_version") != MANIFEST_VERSION:
            version = obj.get("manifest_version")
            raise DocumentError(f"manifest_version {documents.shown(version)}; this version reads {MANIFEST_VERSION}")
        documents.validate(obj, _schema())
        manifest = Manifest.from_json(obj)
        _judgeable(manifest)
        return manifest
    except ValueError as e:  # DocumentError, or a record's own check (unique ids, bases and baselines that exist)
        raise DistError(f"{where}: {e}") from None


def _judgeable(manifest: Manifest) -> None:
    """Every case of an installed track says what a reader of its default role must do (the judge's fallback for
    a role the case does not name); a case of a track not installed here is never run."""
    from parquet_conformance.corpus import track as tracks

    default = {t.name: t.default_role for t in tracks.all_tracks()}
    for i, case in enumerate(manifest.cases):
        role = default.get(case.track)
        if role is not None and role not in case.expect:
            raise DocumentError(f"cases[{i}].expect: case {case.id} has no expectation for {role!r}, the default "
                                f"role of track {case.track}")


@functools.cache
def _schema() -> dict[str, object]:
    return manifest_schema()


def read_manifest(corpus: Path) -> tuple[Path, Manifest]:
    """The corpus directory (see find_root) and its manifest."""
    root = find_root(corpus)
    path = root / MANIFEST
    try:
        text = documents.read_bytes(path, MAX_MANIFEST, links=False)
    except DocumentError as e:
        raise DistError(str(e)) from None
    return root, load_manifest(text, str(path))


# -- names -------------------------------------------------------------------------------


def corpus_version(manifest: Manifest) -> str:
    """The generator version, plus what makes this build differ from the default corpus."""
    parts = [str(manifest.generator["version"])]
    if manifest.seed:
        parts.append(f"seed{manifest.seed}")
    if only := manifest.only:
        slug = re.sub(r"[^A-Za-z0-9.]+", "-", only).strip("-")[:40]
        # The hash keeps globs that slug alike (`a/*`, `a/?`) apart.
        parts.append(f"only-{slug}-{hashlib.sha256(only.encode()).hexdigest()[:8]}".replace("--", "-"))
    if manifest.large:
        parts.append("large")
    return "-".join(parts)


def archive_stem(manifest: Manifest) -> str:
    return f"{STEM}-{corpus_version(manifest)}"


# -- pack --------------------------------------------------------------------------------


def corpus_files(manifest: Manifest) -> list[str]:
    """Every data file the manifest names, relative to its directory."""
    files = {c.file for c in manifest.cases}
    for b in manifest.bases.values():
        files.update((b.file, b.expected))
    return sorted(files)


def _tarinfo(name: str, size: int | None = None) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.mtime, info.uid, info.gid, info.uname, info.gname = MTIME, 0, 0, "", ""
    if size is None:
        info.type, info.mode = tarfile.DIRTYPE, 0o755
    else:
        info.size, info.mode = size, 0o644
    return info


def pack(corpus: Path, out: Path) -> tuple[Path, str]:
    """Writes the archive and updates SHA256SUMS in `out`; returns the archive and its sha256."""
    root = find_root(corpus)
    root, manifest = read_manifest(root)
    problems = verify_tree(root, manifest)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise DistError(f"{root} does not match its manifest: {problems[0]}{more}; see `corpus verify`")
    stem = archive_stem(manifest)
    contents: dict[str, Path | bytes] = {MANIFEST: root / MANIFEST, SUMS: root / SUMS,
                                         README: readme_text(manifest).encode()}
    contents.update({rel: root / rel for rel in corpus_files(manifest)})
    dirs = {str(parent) for rel in contents for parent in PurePosixPath(rel).parents if str(parent) != "."}
    # Sorted names put every directory right before its contents (a prefix sorts first).
    names = sorted([*contents, *dirs])
    out.mkdir(parents=True, exist_ok=True)
    archive = out / f"{stem}.tar.gz"
    tmp = out / f".{archive.name}.tmp"
    try:
        with open(tmp, "wb") as raw, \
                gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=MTIME, compresslevel=9) as gz, \
                tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            tar.addfile(_tarinfo(stem))
            for name in names:
                member = f"{stem}/{name}"
                src = contents.get(name)
                if src is None:
                    tar.addfile(_tarinfo(member))
                elif isinstance(src, bytes):
                    tar.addfile(_tarinfo(member, len(src)), io.BytesIO(src))
                else:
                    with open(src, "rb") as f:
                        tar.addfile(_tarinfo(member, os.fstat(f.fileno()).st_size), f)
        tmp.replace(archive)
    finally:
        tmp.unlink(missing_ok=True)
    digest = sha256_file(archive)
    write_sums(out, {archive.name: digest})
    return archive, digest


def parse_sums(text: bytes | str) -> dict[str, str]:
    """`sha256sum` lines; undecodable bytes and other lines are ignored (a missing entry is the problem)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    sums = {}
    for line in text.splitlines():
        if m := SUMS_LINE.fullmatch(line.strip()):
            sums[m.group(2)] = m.group(1).lower()
    return sums


def read_sums(path: Path) -> dict[str, str]:
    return parse_sums(documents.read_bytes(path, MAX_SUMS))


def manifest_digest(root: Path) -> str:
    return sha256_file(root / MANIFEST)


def write_manifest_digest(root: Path) -> str:
    """A corpus carries its manifest's digest in SHA256SUMS (`sha256sum -c SHA256SUMS` checks it), so that
    a changed manifest is caught, and a report can name the corpus it ran on."""
    digest = manifest_digest(root)
    (root / SUMS).write_text(f"{digest}  {MANIFEST}\n")
    return digest


def write_sums(out: Path, new: dict[str, str]) -> None:
    """`sha256sum` format; keeps lines of other archives still present in `out`."""
    path = out / SUMS
    sums = {k: v for k, v in (read_sums(path) if path.is_file() else {}).items() if (out / k).is_file()}
    sums.update(new)
    path.write_text("".join(f"{digest}  {name}\n" for name, digest in sorted(sums.items())))


def readme_text(manifest: Manifest) -> str:
    gen = manifest.generator
    stem = archive_stem(manifest)
    kinds: dict[str, int] = {}
    for c in manifest.cases:
        kinds[c.kind] = kinds.get(c.kind, 0) + 1
    built = [f"seed {manifest.seed}"]
    if manifest.only:
        built.append(f"only the cases matching {manifest.only!r}")
    if manifest.large:
        built.append("with the large (64 MiB, 128 MiB) cases")
    lines = [
        f"{stem}",
        "=" * len(stem),
        "",
        "Apache Parquet files that test how readers handle binary protocol extensions: the Thrift field",
        "32767 (type binary) that every struct of the Parquet footer reserves for extensions",
        "(apache/parquet-format BinaryProtocolExtensions.md). Each file comes with a machine-readable",
        "statement of what a reader must do with it.",
        "",
        f"Written by {gen.get('name', 'parquet-conformance')} {gen['version']}"
        + (f" (bases written by pyarrow {gen['pyarrow']})" if "pyarrow" in gen else "") + f", {', '.join(built)}.",
        f"Tracks (wire formats): {', '.join(manifest.tracks)}; each case's \"track\" says which, its \"op\" what a",
        "reader is asked to do with the file (docs/manifest.md of parquet-conformance).",
        f"{len(manifest.cases)} cases ({', '.join(f'{n} {k}' for k, n in kinds.items())}) "
        f"from {len(manifest.bases)} bases.",
        "",
        "Layout",
        "------",
        "manifest.json              every case: id, title, kind, base, file, sha256, expectations, citations,",
        "                           the mutations that made it (schema: docs/manifest.md of",
        "                           parquet-conformance)",
        "cases/<case id>.parquet    the files, e.g. cases/corrupt/tiny/empty.parquet",
        "bases/<base>.parquet       the unmodified files the cases start from",
        "expected/<base>.json       the data a reader must return, in an implementation-neutral form",
        "",
        "What a reader must do",
        "---------------------",
        "Each case names, in manifest.json under \"expect\", one word per reader role:",
        "",
    ]
    lines += [f"  {word:<8} {meaning}" for word, meaning in manifest.expectations.items()]
    lines += [
        "",
        "Under every word, a crash, a hang, or data other than the base data is a failure. \"The base",
        "data\" is expected/<base>.json; a reader whose representation differs from it (say, NaN for a",
        "null float) may instead be compared with its own reading of bases/<base>.parquet (its",
        "baseline), which the case base/<base> checks against expected/<base>.json once.",
        "",
        "Roles:",
        "",
    ]
    lines += [f"  {role:<16} {text}" for role, text in manifest.roles.items()]
    if any(role.startswith("aware:") for role in manifest.roles):
        lines += ["  aware:<profile>  a reader that implements an extension profile; where a case names no",
                  "                   expectation for it, the legacy one applies"]
    lines += [
        "",
        "Kinds (what the strict decoder of parquet-conformance concludes about the file):",
        "",
    ]
    lines += [f"  {kind:<14} {text}" for kind, text in KINDS.items()]
    lines += [
        "",
        "Expected data",
        "-------------",
        "expected/<base>.json is {\"columns\": [names], \"rows\": [[value, ...], ...]}; values are typed",
        "tokens, so that every implementation can compare exactly:",
        "",
        "  null, true, false      themselves",
        "  \"text\"                 a JSON string is UTF-8 text",
        "  {\"int\": \"42\"}          an integer of any width",
        "  {\"float\": \"1.5\"}       Python repr of the double, or \"nan\", \"inf\", \"-inf\", \"-0.0\"",
        "  {\"bin\": \"00ff\"}        binary, as hex",
        "  {\"dec\": \"12.34\"}       a decimal, at the column's scale",
        "  {\"date\": \"2001-02-03\"} a date",
        "  {\"ts_ns\": \"981173106000000000\"}  a timestamp, nanoseconds since 1970-01-01 as written",
        "  {\"time_ns\": \"1000\"}     a time of day, nanoseconds since midnight",
        "  {\"uuid\": \"...\"}         a UUID, lowercase with hyphens",
        "  [...]                  a list",
        "  {\"struct\": {...}}      a struct, field name -> value",
        "",
        "The base's \"data_hash\" in manifest.json is the sha256 of its expected data as canonical JSON",
        "(sorted keys, no spaces, ASCII).",
        "",
        "Verifying",
        "---------",
        f"The archive:      sha256sum -c {SUMS}       (in the directory holding both)",
        "Every file:       parquet-conformance corpus verify DIR",
        "or, without parquet-conformance, in this directory:",
        "",
        "  jq -r '(.cases[], .bases[]) | \"\\(.sha256)  \\(.file)\"' manifest.json | sha256sum -c -",
        "",
        "Running a reader against the corpus: parquet-conformance's pytest plugin",
        "(pytest --parquet-conformance-corpus DIR --parquet-conformance-adapter-cmd 'your worker')",
        "or `parquet-conformance run --corpus DIR`; the worker protocol is docs/adapter-protocol.md.",
        "",
    ]
    return "\n".join(lines)


# -- verify ------------------------------------------------------------------------------


def find_root(path: Path) -> Path:
    """The corpus directory: `path` itself, or its only subdirectory holding a manifest (as fetch leaves it)."""
    if not path.is_dir():
        raise DistError(f"{path}: no such directory")
    if (path / MANIFEST).is_file():
        return path
    found = [p for p in sorted(path.iterdir()) if p.is_dir() and (p / MANIFEST).is_file()]
    if len(found) != 1:
        raise DistError(f"{path}: no {MANIFEST} here" + (" (several corpora below; name one)" if found else ""))
    return found[0]


def _safe_rel(rel: object) -> bool:
    return (isinstance(rel, str) and rel != "" and not rel.startswith(("/", "\\"))
            and ".." not in PurePosixPath(rel).parts and "\\" not in rel)


def check(manifest: Manifest, digest: Callable[[str], str | None], data: Callable[[str], str | None],
          sums: bytes | None, present: Iterable[str]) -> list[str]:
    """Problems of a corpus. `digest(rel)` is a file's sha256, or why it has none (`symbolic link`), or None
    if absent; `data(rel)` the data_hash of a JSON file (None: not readable as such); `sums` SHA256SUMS's bytes;
    `present` every file that the manifest should list."""
    problems: list[str] = []
    listed: set[str] = set()

    def expect_file(rel: object, sha: object, what: str) -> bool:
        if not _safe_rel(rel) or not isinstance(rel, str):
            problems.append(f"unsafe path in the manifest for {what}: {rel!r}")
            return False
        listed.add(rel)
        actual = digest(rel)
        if actual is None:
            problems.append(f"missing: {rel}")
        elif not HEX64.fullmatch(actual):
            problems.append(f"not a regular file: {rel} ({actual})")
        elif sha is not None and actual != sha:
            problems.append(f"sha256 mismatch: {rel} (manifest {str(sha)[:16]}..., file {actual[:16]}...)")
        else:
            return True
        return False

    for case in manifest.cases:
        expect_file(case.file, case.sha256, f"case {case.id!r}")
    for name, base in manifest.bases.items():
        expect_file(base.file, base.sha256, f"base {name!r}")
        # The manifest has no file hash for expected data, but the hash of the data itself.
        if expect_file(base.expected, None, f"the expected data of base {name!r}") \
                and data(base.expected) != base.data_hash:
            problems.append(f"data mismatch: {base.expected} (not the data whose data_hash is in the manifest)")
    if sums is None:
        problems.append(f"missing: {SUMS} (the digest of {MANIFEST})")
    elif parse_sums(sums).get(MANIFEST) != digest(MANIFEST):
        problems.append(f"{MANIFEST} does not match its digest in {SUMS}")
    problems += [f"extra: {rel}" for rel in sorted(set(present) - listed)]
    return problems


def json_data_hash(data: bytes | None) -> str | None:
    """The data_hash of expected data's JSON (None: absent, too large or not JSON)."""
    if data is None:
        return None
    try:
        return data_hash(documents.parse(data, MAX_EXPECTED))
    except DocumentError:
        return None


def _walk(root: Path) -> tuple[list[str], dict[str, str]]:
    """(the regular files under the data folders, every entry of the tree that is neither a folder nor a regular
    file -> what it is). No link is followed: a corpus holds plain files and folders, nothing pointing elsewhere."""
    present: list[str] = []
    strange: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted(dirnames + filenames):
            path = os.path.join(dirpath, name)
            rel = Path(path).relative_to(root).as_posix()
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISLNK(mode):
                strange[rel] = "symbolic link"
            elif stat.S_ISREG(mode):
                if rel.split("/", 1)[0] in DATA_DIRS:
                    present.append(rel)
            elif not stat.S_ISDIR(mode):
                strange[rel] = "not a file"
    return present, strange


def verify_tree(root: Path, manifest: Manifest | None = None) -> list[str]:
    if manifest is None:
        root, manifest = read_manifest(root)
    present, strange = _walk(root)

    def digest(rel: str) -> str | None:
        if rel in strange or any(rel.startswith(f"{s}/") for s in strange):
            return strange.get(rel, "inside a symbolic link")
        p = root / rel
        try:
            mode = os.lstat(p).st_mode
        except OSError:
            return None
        return sha256_file(p) if stat.S_ISREG(mode) else "not a file"

    def read(rel: str, limit: int) -> bytes | None:
        try:
            return documents.read_bytes(root / rel, limit, links=False)
        except DocumentError:
            return None

    problems = check(manifest, digest, lambda rel: json_data_hash(read(rel, MAX_EXPECTED)), read(SUMS, MAX_SUMS),
                     present + [rel for rel in strange if rel.split("/", 1)[0] in DATA_DIRS])
    named = set(corpus_files(manifest)) | {SUMS, MANIFEST}
    problems += [f"{what}: {rel}" for rel, what in strange.items()
                 if (rel not in named and rel.split("/", 1)[0] not in DATA_DIRS) or rel in DATA_DIRS]
    return problems


def open_corpus(corpus: Path) -> tuple[Path, Manifest, str]:
    """The corpus root, its manifest and the manifest's digest, after every file was checked against the manifest
    and the manifest against its digest: what every command that runs a corpus starts from. DistError otherwise."""
    root, manifest = read_manifest(corpus)
    problems = verify_tree(root, manifest)
    if problems:
        more = f" (and {len(problems) - 1} more: `parquet-conformance corpus verify {root}`)" if problems[1:] else ""
        raise DistError(f"{root}: {problems[0]}{more}; nothing was run")
    return root, manifest, manifest_digest(root)


def verify_archive(path: Path) -> tuple[list[str], list[str]]:
    """(problems, notes) of an archive: against SHA256SUMS next to it, then every member against the manifest."""
    problems: list[str] = []
    notes: list[str] = []
    sums_path = path.parent / SUMS
    try:
        sums = read_sums(sums_path) if sums_path.is_file() else None
    except DocumentError as e:
        problems.append(str(e))
        sums = {}
    if sums is not None:
        actual = sha256_file(path)
        if path.name not in sums:
            problems.append(f"{SUMS}: no line for {path.name}")
        elif sums[path.name] != actual:
            problems.append(f"sha256 mismatch: {path.name} is {actual}, {SUMS} says {sums[path.name]}")
        else:
            notes.append(f"{path.name}: matches {SUMS}")
    else:
        notes.append(f"no {SUMS} next to {path.name}; checking its contents only")
    def top_level(name: str, size: int) -> bool:  # the manifest and SHA256SUMS; nothing else is held in memory
        parts = PurePosixPath(name).parts
        return len(parts) <= 2 and ((parts[-1] == MANIFEST and size <= MAX_MANIFEST)
                                    or (parts[-1] == SUMS and size <= MAX_SUMS))

    try:
        members, dirs, hashes, texts = _scan(path, top_level)
    except (tarfile.TarError, EOFError, OSError, zlib.error) as e:
        problems.append(f"{path.name}: not a readable tar archive ({e})")
        return problems, notes
    manifest_names = [n for n, h in hashes.items() if HEX64.fullmatch(h) and PurePosixPath(n).name == MANIFEST
                      and len(PurePosixPath(n).parts) <= 2]
    if len(manifest_names) != 1:
        problems.append(f"{path.name}: {'no' if not manifest_names else 'more than one'} {MANIFEST} at its top")
        return problems, notes
    prefix = str(PurePosixPath(manifest_names[0]).parent)
    prefix = "" if prefix == "." else prefix + "/"
    try:
        manifest = load_manifest(texts[manifest_names[0]], f"{path.name}:{manifest_names[0]}")
    except DistError as e:
        problems.append(str(e))
        return problems, notes
    problems += [f"unsafe member name: {name!r}" for name in members if not _safe_rel(name)]
    mine = {n[len(prefix):]: h for n, h in hashes.items() if n.startswith(prefix)}
    try:
        data = _data_hashes(path, {prefix + b.expected: b.expected_size for b in manifest.bases.values()})
    except (tarfile.TarError, EOFError, OSError, zlib.error) as e:
        problems.append(f"{path.name}: not a readable tar archive ({e})")
        return problems, notes
    problems += check(manifest, mine.get, lambda rel: data.get(prefix + rel), texts.get(prefix + SUMS),
                      [n for n in mine if n not in (MANIFEST, README, SUMS)])
    problems += [f"extra: {n}" for n in sorted(hashes) if not n.startswith(prefix)]
    if len(hashes) != len(members) - len(dirs):
        problems.append("the archive holds the same name twice")
    return problems, notes


def _kind(m: tarfile.TarInfo) -> str:
    if m.isreg():
        return "file"
    if m.isdir():
        return "dir"
    if m.issym():
        return f"symbolic link to {m.linkname!r}"
    if m.islnk():
        return f"hard link to {m.linkname!r}"
    if m.ischr() or m.isblk():
        return "device"
    if m.isfifo():
        return "FIFO"
    return f"tar type {m.type!r}"


def _norm(name: str) -> str:
    return str(PurePosixPath(name)) if name not in ("", ".") else name


def _scan(path: Path, keep: Callable[[str, int], bool]) -> tuple[list[str], set[str], dict[str, str], dict[str, bytes]]:
    """One pass over an archive, in bounded memory: every member name, the directories, sha256 of files (or what a
    non-file member is: `symbolic link to ...`), and the bytes of the files `keep(name, size)` asks for."""
    members, dirs, hashes, texts = [], set(), {}, {}
    with tarfile.open(path, "r:*") as tar:
        for m in tar:
            name = _norm(m.name)
            members.append(name)
            if m.isdir():
                dirs.add(name)
                continue
            if not m.isreg():
                hashes[name] = _kind(m)
                continue
            h = hashlib.sha256()
            buf = io.BytesIO() if keep(name, m.size) else None
            src = tar.extractfile(m)
            assert src is not None  # a regular member
            while chunk := src.read(CHUNK):
                h.update(chunk)
                if buf:
                    buf.write(chunk)
            hashes[name] = h.hexdigest()
            if buf:
                texts[name] = buf.getvalue()
    return members, dirs, hashes, texts


def _data_hashes(path: Path, wanted: dict[str, int]) -> dict[str, str | None]:
    """The data_hash of each member named in `wanted` whose size is the one given, parsed one at a time."""
    out: dict[str, str | None] = {}
    with tarfile.open(path, "r:*") as tar:
        for m in tar:
            name = _norm(m.name)
            if m.isreg() and wanted.get(name) == m.size and m.size <= MAX_EXPECTED and name not in out:
                src = tar.extractfile(m)
                out[name] = json_data_hash(src.read() if src else None)
    return out


# -- fetch -------------------------------------------------------------------------------


def local_source(url: str) -> Path | None:
    """The local file a source names (a path, or a file:// URL), None for http(s); DistError for any other scheme."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in ("http", "https"):
        return None
    if scheme == "file":
        return Path(urllib.request.url2pathname(parts.path))
    if scheme == "" or (len(scheme) == 1 and os.name == "nt"):  # a path (a drive letter is no scheme)
        return Path(url)
    raise DistError(f"cannot fetch {url!r}: only http:// and https:// URLs, or a local file")


def _copy_local(path: Path, dest: Path, limits: Limits) -> str:
    """A local regular file copied into `dest` (a FIFO or a device never: it could block forever or never end)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise DistError(f"cannot fetch {path}: {e.strerror or e}") from None
    h = hashlib.sha256()
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise DistError(f"cannot fetch {path}: not a regular file")
    with os.fdopen(fd, "rb") as src:
        if st.st_size > limits.max_download:
            raise Refused(f"{path} is {st.st_size} bytes, more than the limit of {limits.max_download}")
        with open(dest, "wb") as out:
            while chunk := src.read(CHUNK):
                h.update(chunk)
                out.write(chunk)
    return h.hexdigest()


class _Deadline:
    """One deadline over a whole download: connecting, TLS, headers, redirects and body. When it passes, every
    connection made for the download is shut down, so a read blocked on a server that sends a byte now and then
    (its headers included) ends at once; each connection's own timeout is what is left of the deadline."""

    def __init__(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds
        self._fds: list[int] = []
        self._lock = threading.Lock()
        self._done = False
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    @property
    def passed(self) -> bool:
        return time.monotonic() >= self.at

    def remaining(self) -> float:
        left = self.at - time.monotonic()
        if left <= 0:
            raise TimeoutError
        return left

    def track(self, sock: socket.socket) -> None:
        with self._lock:  # the fd number stays the connection's when TLS wraps it
            self._fds.append(sock.fileno())

    def _expire(self) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
            for fd in self._fds:
                with contextlib.suppress(OSError):
                    with socket.socket(fileno=os.dup(fd)) as dup:  # shutdown reaches the connection, not the fd
                        dup.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        with self._lock:
            self._done = True
        self._timer.cancel()


def _opener(deadline: _Deadline) -> urllib.request.OpenerDirector:
    """urllib for http(s) alone (no file://, ftp:// or data: handler, no redirect elsewhere), every connection
    under the deadline."""
    def bounded(base: type[http.client.HTTPConnection]) -> type[http.client.HTTPConnection]:
        class Connection(base):  # type: ignore[valid-type, misc]
            def connect(self) -> None:
                self.timeout = deadline.remaining()
                create: Callable[..., socket.socket] = getattr(self, "_create_connection")  # noqa: B009

                def tracked(*args: Any, **kwargs: Any) -> socket.socket:
                    sock = create(*args, **kwargs)
                    deadline.track(sock)
                    return sock

                self._create_connection = tracked
                super().connect()

        return Connection

    class Http(urllib.request.HTTPHandler):
        def do_open(self, http_class: Any, req: Any, **kw: Any) -> Any:
            return super().do_open(bounded(http_class), req, **kw)

    class Https(urllib.request.HTTPSHandler):
        def do_open(self, http_class: Any, req: Any, **kw: Any) -> Any:
            return super().do_open(bounded(http_class), req, **kw)

    class Redirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
            if urllib.parse.urlsplit(newurl).scheme.lower() not in ("http", "https"):
                raise DistError(f"cannot download {req.full_url}: it redirects to {newurl!r}, not http(s)")
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    opener = urllib.request.OpenerDirector()
    for handler in (urllib.request.ProxyHandler(), urllib.request.UnknownHandler(), Http(), Https(),
                    urllib.request.HTTPDefaultErrorHandler(), Redirect(), urllib.request.HTTPErrorProcessor()):
        opener.add_handler(handler)
    return opener


def download(url: str, dest: Path, limits: Limits = Limits()) -> str:
    """Streams `url` (http, https, or a local regular file) into `dest`; returns its sha256. The whole download
    must end within the deadline (connecting and headers included): a server that trickles a byte now and then is
    cut off as surely as one that sends nothing. A body shorter than its Content-Length is a failed download."""
    local = local_source(url)
    if local is not None:
        return _copy_local(local, dest, limits)
    request = urllib.request.Request(url, headers={"User-Agent": f"parquet-conformance/{GENERATOR_VERSION}"})
    h = hashlib.sha256()
    total = 0
    deadline = _Deadline(limits.deadline_s)
    try:
        with _opener(deadline).open(request, timeout=deadline.remaining()) as resp, open(dest, "wb") as out:
            length = resp.headers.get("Content-Length")
            expected = int(length) if length and length.isdigit() else None
            if expected is not None and expected > limits.max_download:
                raise Refused(f"{url} is {expected} bytes, more than the limit of {limits.max_download}")
            while chunk := resp.read1(CHUNK):
                total += len(chunk)
                if total > limits.max_download:
                    raise Refused(f"{url} is more than the limit of {limits.max_download} bytes")
                h.update(chunk)
                out.write(chunk)
                if deadline.passed:
                    raise TimeoutError
            if deadline.passed:
                raise TimeoutError
            if expected is not None and total != expected:
                raise DistError(f"cannot download {url}: the connection ended after {total} of {expected} bytes")
    except urllib.error.HTTPError as e:
        raise DistError(f"cannot download {url}: HTTP {e.code} {e.reason}") from None
    except urllib.error.URLError as e:
        if deadline.passed or isinstance(e.reason, TimeoutError):
            raise DistError(f"cannot download {url}: not done within {limits.deadline_s:g}s") from None
        raise DistError(f"cannot download {url}: {e.reason}") from None
    except TimeoutError:
        raise DistError(f"cannot download {url}: not done within {limits.deadline_s:g}s") from None
    except (OSError, ValueError, http.client.HTTPException) as e:
        if deadline.passed:
            raise DistError(f"cannot download {url}: not done within {limits.deadline_s:g}s") from None
        raise DistError(f"cannot download {url}: {getattr(e, 'strerror', None) or e or type(e).__name__}") from None
    finally:
        deadline.close()
    return h.hexdigest()


def fetch(url: str, sha256: str, into: Path, limits: Limits = Limits()) -> Path:
    """Downloads, checks the sha256, unpacks safely into `into`; returns the unpacked corpus directory."""
    sha256 = sha256.strip().lower()
    if not HEX64.fullmatch(sha256):
        raise DistError(f"--sha256 wants 64 hex digits, got {sha256!r}")
    # The download waits outside `into`, so that a refused archive leaves nothing there.
    with tempfile.TemporaryDirectory(prefix="parquet-conformance-fetch-") as tmp:
        archive = Path(tmp) / "download.tar.gz"
        actual = download(url, archive, limits)
        if actual != sha256:
            raise Refused(f"sha256 mismatch for {url}: expected {sha256}, got {actual}; nothing was unpacked")
        return safe_extract(archive, into, limits)


def _unsafe(m: tarfile.TarInfo, into_real: str) -> str | None:
    """Why a member may not be unpacked into `into_real`, or None."""
    name = m.name
    if not name or "\x00" in name:
        return "has an empty or NUL-containing name"
    if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name):
        return "is an absolute path"
    if ".." in PurePosixPath(name.replace("\\", "/")).parts:
        return "goes up with '..'"
    kind = _kind(m)
    if kind not in ("file", "dir"):
        return f"is a {kind}; only plain files and directories are unpacked"
    if m.mode & 0o7000:
        return "has setuid, setgid or sticky bits"
    target = os.path.realpath(os.path.join(into_real, name))
    if target != into_real and not target.startswith(into_real + os.sep):
        return "would land outside the target directory"
    if hasattr(tarfile, "data_filter"):  # Python's own checks (3.11.4+, 3.12), on top of ours
        try:
            tarfile.data_filter(m, into_real)
        except tarfile.FilterError as e:
            return f"is refused by tarfile's data filter ({e})"
    return None


def plan(tar: tarfile.TarFile, into: Path, limits: Limits = Limits()
         ) -> tuple[str, list[tuple[tarfile.TarInfo, tuple[str, ...]]]]:
    """Checks every member before anything is written; returns the top directory and (member, path parts).
    Scanning stops at the first member past a ceiling, so a bomb costs no more than the ceilings."""
    into_real = os.path.realpath(into)
    seen: set[tuple[str, ...]] = set()
    out: list[tuple[tarfile.TarInfo, tuple[str, ...]]] = []
    total = 0
    manifest: bytes | None = None
    for m in tar:
        if len(out) >= limits.max_entries:
            raise Refused(f"refusing to unpack: more than {limits.max_entries} entries; nothing was written")
        if why := _unsafe(m, into_real):
            raise Refused(f"refusing to unpack: member {m.name!r} {why}; nothing was written")
        parts = PurePosixPath(m.name).parts
        if not parts:  # "." or "./": the archive's root itself
            continue
        if parts in seen:
            raise Refused(f"refusing to unpack: member {m.name!r} appears twice; nothing was written")
        seen.add(parts)
        total += m.size
        if total > limits.max_unpacked:
            raise Refused(f"refusing to unpack: more than {limits.max_unpacked} bytes of files; nothing was written")
        if len(parts) == 2 and parts[1] == MANIFEST and m.isreg() and m.size <= 64 << 20:
            src = tar.extractfile(m)
            manifest = src.read() if src else None
        out.append((m, parts))
    _within_manifest(manifest, total, len(out))
    tops = {parts[0] for _, parts in out}
    if len(tops) != 1:
        raise Refused(f"refusing to unpack: the archive must hold one top-level directory, not {len(tops)}")
    top = tops.pop()
    if any(parts == (top,) and not m.isdir() for m, parts in out):
        raise Refused(f"refusing to unpack: the archive's top-level entry {top!r} is not a directory")
    return top, out


def _within_manifest(text: bytes | None, total: int, entries: int) -> None:
    """The archive holds no more than its manifest lists (plus the few files it cannot list)."""
    if text is None:
        raise Refused(f"refusing to unpack: no {MANIFEST} at the archive's top; nothing was written")
    try:
        manifest = load_manifest(text, MANIFEST)
    except DistError as e:
        raise Refused(f"refusing to unpack: {e}; nothing was written") from None
    files = corpus_files(manifest)
    listed = sum(c.size for c in manifest.cases) + sum(b.size + b.expected_size for b in manifest.bases.values())
    dirs = {str(p) for f in files for p in PurePosixPath(f).parents}
    if total > listed + SLACK_BYTES:
        raise Refused(f"refusing to unpack: {total} bytes of files where the manifest lists {listed}; "
                      "nothing was written")
    if entries > len(files) + len(dirs) + SLACK_ENTRIES:
        raise Refused(f"refusing to unpack: {entries} entries where the manifest lists {len(files)} files; "
                      "nothing was written")


def safe_extract(archive: Path, into: Path, limits: Limits = Limits()) -> Path:
    """Unpacks into a hidden directory next to the target, checks every file against the manifest there, and
    only then renames it into place: nothing that failed a check ever appears under its real name."""
    try:
        tar = tarfile.open(archive, "r:*")
    except (tarfile.TarError, EOFError, OSError, zlib.error) as e:
        raise Refused(f"refusing to unpack: not a readable tar archive ({e})") from None
    with tar:
        try:
            top, members = plan(tar, into, limits)
        except (tarfile.TarError, EOFError, zlib.error) as e:
            raise Refused(f"refusing to unpack: broken tar archive ({e}); nothing was written") from None
        dest = into / top
        if os.path.lexists(dest):
            raise DistError(f"{dest} already exists; remove it or choose another --into")
        into.mkdir(parents=True, exist_ok=True)
        # Unpacked under a temporary name and renamed at the end: no half-unpacked corpus under its real name.
        staging = Path(tempfile.mkdtemp(prefix=f".{top}.partial-", dir=into))
        try:
            for m, parts in members:
                target = staging.joinpath(*parts[1:])
                if m.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                src = tar.extractfile(m)
                assert src is not None  # plan() admits only files and directories
                with open(target, "xb") as f:  # x: never through an existing file or link
                    shutil.copyfileobj(src, f, CHUNK)
            if problems := verify_tree(staging):
                more = f" (and {len(problems) - 1} more)" if problems[1:] else ""
                raise Refused(f"refusing the archive: {problems[0]}{more}; nothing was unpacked")
            staging.chmod(0o755)
            staging.rename(dest)
        except OSError as e:
            shutil.rmtree(staging, ignore_errors=True)
            raise DistError(f"cannot unpack into {into}: {e.strerror or e}") from None
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return dest
