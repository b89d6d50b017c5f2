"""`corpus verify`: every file of a corpus folder or archive against the manifest's sha256 (and an archive against
the `SHA256SUMS` next to it). A folder is walked without following a link (a link, a device or a FIFO in a corpus
is a problem, never read); an archive is read in one bounded pass, member by member.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import tarfile
import zlib
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path, PurePosixPath

from parquet_conformance.corpus.dist import (
    CHUNK,
    DATA_DIRS,
    HEX64,
    MANIFEST,
    MAX_EXPECTED,
    MAX_MANIFEST,
    MAX_SUMS,
    README,
    SUMS,
    DistError,
    _safe_rel,
    corpus_files,
    load_manifest,
    member_kind,
    parse_sums,
    read_manifest,
    read_sums,
    sha256_file,
)
from parquet_conformance.corpus.model import Manifest
from parquet_conformance.generators.canonical import data_hash
from parquet_conformance.kernel import documents, trees
from parquet_conformance.kernel.documents import DocumentError


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


def verify_cases(root: Path, manifest: Manifest, case_ids: Iterable[str]) -> list[str]:
    """Problems of what reading a few cases rests on, checked as verify_tree checks a whole corpus: the manifest
    against its digest, and these cases' files against the manifest, no link followed (`read` of one case)."""
    wanted = set(case_ids)
    part = replace(manifest, cases=[c for c in manifest.cases if c.id in wanted], bases={})

    def digest(rel: str) -> str | None:
        h = hashlib.sha256()
        try:
            with trees.open_below(root, rel) as f:
                while chunk := f.read(CHUNK):
                    h.update(chunk)
        except FileNotFoundError:
            return None
        except (trees.TreeError, OSError) as e:
            return str(e).rsplit(": ", 1)[-1]
        return h.hexdigest()

    def data(rel: str) -> str | None:  # a case's alternative readings are its files too (their data's hash)
        try:
            return json_data_hash(documents.read_bytes(root / rel, MAX_EXPECTED, links=False))
        except DocumentError:
            return None

    try:
        sums = documents.read_bytes(root / SUMS, MAX_SUMS, links=False)
    except DocumentError:
        sums = None
    return check(part, digest, data, sums, [])


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
        wanted: dict[str, int | None] = {prefix + b.expected: b.expected_size for b in manifest.bases.values()}
        wanted |= {prefix + a.expected: None for c in manifest.cases for a in c.alternatives}
        data = _data_hashes(path, wanted)
    except (tarfile.TarError, EOFError, OSError, zlib.error) as e:
        problems.append(f"{path.name}: not a readable tar archive ({e})")
        return problems, notes
    problems += check(manifest, mine.get, lambda rel: data.get(prefix + rel), texts.get(prefix + SUMS),
                      [n for n in mine if n not in (MANIFEST, README, SUMS)])
    problems += [f"extra: {n}" for n in sorted(hashes) if not n.startswith(prefix)]
    if len(hashes) != len(members) - len(dirs):
        problems.append("the archive holds the same name twice")
    return problems, notes


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
                hashes[name] = member_kind(m)
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


def _data_hashes(path: Path, wanted: dict[str, int | None]) -> dict[str, str | None]:
    """The data_hash of each member named in `wanted` whose size is the one given (None: any within the bound),
    parsed one at a time."""
    out: dict[str, str | None] = {}
    with tarfile.open(path, "r:*") as tar:
        for m in tar:
            name = _norm(m.name)
            if m.isreg() and name in wanted and wanted[name] in (None, m.size) and m.size <= MAX_EXPECTED \
                    and name not in out:
                src = tar.extractfile(m)
                out[name] = json_data_hash(src.read() if src else None)
    return out
