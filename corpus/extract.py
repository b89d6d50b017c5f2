"""Unpacking a corpus archive (`corpus fetch`'s last step): only plain files and directories under one top-level
directory (no absolute paths, `..`, links or devices), no more bytes and entries than the ceilings and the
archive's own manifest say: the whole archive is checked before anything is written, then unpacked into a hidden
folder next to the target, checked against its manifest there, and only then renamed into place.
"""

from __future__ import annotations

import os
import re
import tarfile
import zlib
from pathlib import Path, PurePosixPath

from parquet_conformance.corpus.dist import (
    MANIFEST,
    NO_MORE_THAN,
    DistError,
    Limits,
    Refused,
    corpus_files,
    load_manifest,
    member_kind,
    verify_tree,
)
from parquet_conformance.kernel import trees

SLACK_BYTES = 16 << 20  # manifest.json, README and SHA256SUMS, which the manifest cannot list
SLACK_ENTRIES = 8


def _unsafe(m: tarfile.TarInfo, into_real: str) -> str | None:
    """Why a member may not be unpacked into `into_real`, or None."""
    name = m.name
    if not name or "\x00" in name:
        return "has an empty or NUL-containing name"
    if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name):
        return "is an absolute path"
    if ".." in PurePosixPath(name.replace("\\", "/")).parts:
        return "goes up with '..'"
    kind = member_kind(m)
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


def plan(tar: tarfile.TarFile, into: Path, limits: Limits = NO_MORE_THAN
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


def safe_extract(archive: Path, into: Path, limits: Limits = NO_MORE_THAN) -> Path:
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
        trees.separate(into)  # not into a corpus, a results dataset or a site of ours
        # Unpacked under a temporary name and renamed at the end (kernel/trees.py): no half-unpacked corpus under
        # its real name, and nothing written through a link.
        try:
            with trees.replaced(dest) as staging:
                for m, parts in members:
                    rel = "/".join(parts[1:])
                    if m.isdir():
                        if rel:
                            staging.joinpath(*parts[1:]).mkdir(parents=True, exist_ok=True)
                        continue
                    src = tar.extractfile(m)
                    assert src is not None  # plan() admits only files and directories
                    trees.write_below(staging, rel, src)
                if problems := verify_tree(staging):
                    more = f" (and {len(problems) - 1} more)" if problems[1:] else ""
                    raise Refused(f"refusing the archive: {problems[0]}{more}; nothing was unpacked")
        except OSError as e:
            raise DistError(f"cannot unpack into {into}: {e.strerror or e}") from None
    return dest
