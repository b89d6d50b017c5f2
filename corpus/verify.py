"""`corpus verify`: every file of a corpus folder or archive against the manifest's sha256 (and an archive against
the `SHA256SUMS` next to it). A folder is walked without following a link (a link, a device or a FIFO in a corpus
is a problem, never read); an archive is read in one bounded pass, member by member.
"""

from __future__ import annotations

import hashlib
import io
import tarfile
import zlib
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path, PurePosixPath

from parquet_conformance.corpus.dist import (
    CHUNK,
    HEX64,
    MANIFEST,
    MAX_EXPECTED,
    MAX_MANIFEST,
    MAX_SUMS,
    README,
    SUMS,
    DistError,
    check,
    json_data_hash,
    load_manifest,
    member_kind,
    read_sums,
    safe_rel,
    sha256_file,
)
from parquet_conformance.corpus.model import Manifest
from parquet_conformance.kernel import documents, trees
from parquet_conformance.kernel.documents import DocumentError


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
    problems += [f"unsafe member name: {name!r}" for name in members if not safe_rel(name)]
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
