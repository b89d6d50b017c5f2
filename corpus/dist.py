"""The corpus as a release artifact: what its jobs share (the manifest loaded and checked, names, SHA256SUMS, the
errors), and the corpus every command that runs one starts from (`open_corpus`: verified). The jobs, one module
each: corpus/pack.py (a reproducible archive), corpus/verify.py (a tree or an archive against its manifest),
corpus/fetch.py (a download under a deadline, checked before it is opened) and corpus/extract.py (an archive
unpacked safely).
"""

from __future__ import annotations

import functools
import hashlib
import re
import tarfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from parquet_conformance.corpus.model import (
    MANIFEST_FORMAT,
    MANIFEST_VERSION,
    Manifest,
    manifest_schema,
)
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


def _safe_rel(rel: object) -> bool:
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


def open_corpus(corpus: Path) -> tuple[Path, Manifest, str]:
    """The corpus root, its manifest and the manifest's digest, after every file was checked against the manifest
    and the manifest against its digest: what every command that runs a corpus starts from. DistError otherwise."""
    from parquet_conformance.corpus.verify import verify_tree

    root, manifest = read_manifest(corpus)
    problems = verify_tree(root, manifest)
    if problems:
        more = f" (and {len(problems) - 1} more: `parquet-conformance corpus verify {root}`)" if problems[1:] else ""
        raise DistError(f"{root}: {problems[0]}{more}; nothing was run")
    return root, manifest, manifest_digest(root)
