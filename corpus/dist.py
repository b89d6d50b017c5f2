"""The corpus as a release artifact: what its jobs share (the manifest loaded and checked, names, SHA256SUMS, the
errors), a tree against its manifest (`verify_tree`), and the corpus every command that runs one starts from
(`open_corpus`: verified). The jobs, one module each: corpus/pack.py (a reproducible archive), corpus/verify.py
(`corpus verify`: a tree, an archive or a few cases against the manifest),
corpus/fetch.py (a download under a deadline, checked before it is opened) and corpus/extract.py (an archive
unpacked safely).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import stat
import tarfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus.model import (
    ANY_FORM,
    MANIFEST_FORMAT,
    MANIFEST_VERSION,
    Manifest,
    manifest_schema,
)
from parquet_conformance.generators.canonical import data_hash
from parquet_conformance.kernel import documents, trees
from parquet_conformance.kernel.documents import DocumentError

STEM = "parquet-conformance-corpus"
SUMS = "SHA256SUMS"
README = "README"
MANIFEST = "manifest.json"
MAX_DOWNLOAD = 2 << 30
MAX_MANIFEST = 64 << 20  # the default corpus's is 3.4 MiB
MAX_EXPECTED = 16 << 20  # a base's expected data (the largest is 250 KiB); parsed into Python objects
MAX_SUMS = 1 << 20  # SHA256SUMS: a line per archive
CHUNK = 1 << 20
DATA_DIRS = ("cases", "bases", "expected")
HEX64 = re.compile(r"[0-9a-f]{64}")
SUMS_LINE = re.compile(r"([0-9a-fA-F]{64}) [ *](.+)")


@dataclass(frozen=True)
class Limits:
    """What `fetch` accepts. Unpacked bytes and entries are capped twice: by these ceilings while the archive is
    scanned (so a bomb stops early), then by what the archive's own manifest lists (its files' sizes)."""

    max_download: int = MAX_DOWNLOAD
    max_unpacked: int = 1 << 30  # the --large corpus is about 250 MiB
    max_entries: int = 100_000
    deadline_s: float = 600.0  # for the whole download, however slowly the bytes come


NO_MORE_THAN = Limits()  # the default limits


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
    a role the case does not name), and names only metadata forms its track declares; a case of a track not
    installed here is never run."""
    installed = {t.name: t for t in tracks.all_tracks()}
    for i, case in enumerate(manifest.cases):
        track = installed.get(case.track)
        if track is None:
            continue
        if track.default_role not in case.expect:
            raise DocumentError(f"cases[{i}].expect: case {case.id} has no expectation for {track.default_role!r}, "
                                f"the default role of track {case.track}")
        if stray := set(case.decode.values()) - {ANY_FORM, *tracks.metadata_forms(track)}:
            raise DocumentError(f"cases[{i}].decode: {sorted(stray)[0]!r} is no metadata form of track {case.track}")


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


def corpus_files(manifest: Manifest) -> list[str]:
    """Every data file the manifest names, relative to its directory."""
    files = {c.file for c in manifest.cases}
    for b in manifest.bases.values():
        files.update((b.file, b.expected))
    return sorted(files)


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


def safe_rel(rel: object) -> bool:
    return (isinstance(rel, str) and rel != "" and not rel.startswith(("/", "\\"))
            and ".." not in PurePosixPath(rel).parts and "\\" not in rel)


def member_kind(m: tarfile.TarInfo) -> str:
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


# -- SHA256SUMS ---------------------------------------------------------------------------


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
    trees.write_atomic(root / SUMS, f"{digest}  {MANIFEST}\n")  # replaced, never written through a link
    return digest


# -- a tree against its manifest ---------------------------------------------------------------------------------


def check(manifest: Manifest, digest: Callable[[str], str | None], data: Callable[[str], str | None],
          sums: bytes | None, present: Iterable[str]) -> list[str]:
    """Problems of a corpus. `digest(rel)` is a file's sha256, or why it has none (`symbolic link`), or None
    if absent; `data(rel)` the data_hash of a JSON file (None: not readable as such); `sums` SHA256SUMS's bytes;
    `present` every file that the manifest should list."""
    problems: list[str] = []
    listed: set[str] = set()

    def expect_file(rel: object, sha: object, what: str) -> bool:
        if not safe_rel(rel) or not isinstance(rel, str):
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
        for alt in case.alternatives:  # another reading's data: checked by its data's hash, as a base's
            if expect_file(alt.expected, None, f"the {alt.label} data of case {case.id!r}") \
                    and data(alt.expected) != alt.data_hash:
                problems.append(f"data mismatch: {alt.expected} (not the data whose data_hash is in the manifest)")
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
    files, strange = trees.walk(root)
    return [rel for rel in files if rel.split("/", 1)[0] in DATA_DIRS], strange


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
