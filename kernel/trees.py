"""Trees we read and trees we write: the one owner of paths below a root (every command that reads or writes a
folder of files goes through here: generate, corpus import, add-regression, pack, fetch's extraction, run --out,
the reports and the site, the writers' outputs).

- Reading: no symbolic link is followed below the root (each component is opened relative to its parent with
  O_NOFOLLOW), only regular files are read, and every file is streamed in CHUNK pieces under a stated bound, never
  read whole into memory unless its caller asks for a bounded `read_below`.
- Writing: into a fresh temporary sibling of the target (`replaced`), swapped with the target in one rename at the
  end, so that an interrupt leaves the old output or the new one, never a mix; no link is written through (files
  are created with O_EXCL|O_NOFOLLOW, folders opened with O_NOFOLLOW); a single file is replaced the same way
  (`write_atomic`).
- Before anything is written: an output inside an input tree, or an input inside an output, or an output inside
  one of our own trees that it would break (a corpus, a results dataset), is refused in one line (`separate`); names
  mapped to files are checked for collisions and for the file system's limits (`check_names`).
docs/architecture.md#trees states the bounds."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import hashlib
import os
import shutil
import signal
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath
from typing import IO, BinaryIO

from parquet_conformance.kernel.errors import UsageError

CHUNK = 1 << 20
MAX_NAME_BYTES = 255  # one path component (ext4, xfs, btrfs, APFS, NTFS in UTF-16 units)
MAX_PATH_BYTES = 4000  # a whole relative path (PATH_MAX is 4096 on Linux, with the root before it)
MANIFEST = "manifest.json"
CORPUS_MARK = b'"parquet-conformance-manifest"'  # corpus/model.py MANIFEST_FORMAT, as every manifest spells it
_RENAME_EXCHANGE = 2


class TreeError(UsageError):
    """A tree that cannot be read or written as asked: one line, exit 2."""


# -- reading ----------------------------------------------------------------------------------------


def walk(root: Path) -> tuple[list[str], dict[str, str]]:
    """(the regular files below `root`, as sorted relative POSIX names; every other entry that is no folder -> what
    it is: `symbolic link`, `not a file`). No link is followed."""
    files: list[str] = []
    odd: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in sorted(dirnames + filenames):
            path = os.path.join(dirpath, name)
            rel = Path(path).relative_to(root).as_posix()
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISLNK(mode):
                odd[rel] = "symbolic link"
            elif stat.S_ISREG(mode):
                files.append(rel)
            elif not stat.S_ISDIR(mode):
                odd[rel] = "not a file"
    return sorted(files), odd


def files_below(root: Path, suffix: str = "") -> tuple[list[str], list[str]]:
    """(the regular files below `root` whose names end with `suffix`; the entries left alone, each with what it is:
    symbolic links, FIFOs, sockets, devices). No link is followed."""
    files, odd = walk(root)
    return [f for f in files if f.endswith(suffix)], [f"{rel} ({what}, not read)" for rel, what in odd.items()]


def _parts(rel: str) -> list[str]:
    parts = PurePosixPath(rel).parts
    if not parts or rel.startswith("/") or any(p in ("..", ".") for p in parts) or "\x00" in rel:
        raise TreeError(f"{rel!r}: not a relative path below its tree")
    return list(parts)


def _folder_fd(root: Path, parts: list[str], create: bool) -> int:
    """An fd of the folder root/parts..., each component opened below the last with no link followed."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for i, part in enumerate(parts):
            child = _child_fd(root, fd, part, parts[:i], create)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _child_fd(root: Path, fd: int, part: str, above: list[str], create: bool) -> int:
    """The folder `part` below the open folder `fd` (root/above...), no link followed; made first with `create`."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        try:
            return os.open(part, flags, dir_fd=fd)
        except FileNotFoundError:
            if not create:
                raise
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, 0o755, dir_fd=fd)
            return os.open(part, flags, dir_fd=fd)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR):
            raise TreeError(f"{root}: {'/'.join([*above, part])} passes through a symbolic link or a file; "
                            "no link is followed in a tree") from None
        raise


def open_below(root: Path, rel: str, limit: int | None = None) -> BinaryIO:
    """`rel` below `root`, opened for reading with no symbolic link followed at any component; a regular file of at
    most `limit` bytes, or TreeError naming what it is."""
    *folders, name = _parts(rel)
    fd = _folder_fd(root, folders, create=False)
    try:
        file_fd, _ = _open_regular(fd, name, root / rel, limit)
    finally:
        os.close(fd)
    os.set_blocking(file_fd, True)
    return os.fdopen(file_fd, "rb")


def _open_regular(folder_fd: int, name: str, path: Path, limit: int | None = None) -> tuple[int, int]:
    """(fd, size) of the regular file `name` in the open folder, of at most `limit` bytes, opened without following a
    link (and without blocking on a FIFO); TreeError naming `path` and what it is otherwise."""
    try:
        file_fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder_fd)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise TreeError(f"{path}: a symbolic link; no link is followed in a tree") from None
        raise
    st = os.fstat(file_fd)
    if not stat.S_ISREG(st.st_mode) or (limit is not None and st.st_size > limit):
        os.close(file_fd)
        what = "not a regular file" if not stat.S_ISREG(st.st_mode) else f"{st.st_size} bytes, over {limit}"
        raise TreeError(f"{path}: {what}")
    return file_fd, st.st_size


def _create_new(folder_fd: int, name: str, path: Path) -> int:
    """An fd of the new file `name` in the open folder, never through a link or over an existing file."""
    try:
        return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644,
                       dir_fd=folder_fd)
    except FileExistsError:
        raise TreeError(f"{path}: exists already (two names map to it, or something else wrote it)") from None


def read_below(root: Path, rel: str, limit: int) -> bytes:
    """A whole file below `root` of at most `limit` bytes (a file that grows past it while read is refused too)."""
    with open_below(root, rel, limit) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise TreeError(f"{root / rel}: over {limit} bytes")
    return data


def open_file(path: Path, limit: int | None = None) -> BinaryIO:
    """A file a command names (FILE): itself a regular file, not a symbolic link, of at most `limit` bytes."""
    return open_below(path.parent, path.name, limit)


def copy_stream(src: IO[bytes], dst: IO[bytes], limit: int | None = None) -> tuple[int, str]:
    """(bytes, sha256) of `src` copied into `dst` in CHUNK pieces; TreeError past `limit` bytes."""
    h = hashlib.sha256()
    size = 0
    while chunk := src.read(CHUNK):
        size += len(chunk)
        if limit is not None and size > limit:
            raise TreeError(f"more than {limit} bytes")
        h.update(chunk)
        dst.write(chunk)
    return size, h.hexdigest()


def sha256_below(root: Path, rel: str) -> tuple[int, str]:
    """(size, sha256) of a file below `root`, streamed."""
    h = hashlib.sha256()
    size = 0
    with open_below(root, rel) as f:
        while chunk := f.read(CHUNK):
            size += len(chunk)
            h.update(chunk)
    return size, h.hexdigest()


# -- what an output may be ----------------------------------------------------------------------------


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _inside(inner: Path, outer: Path) -> bool:
    return inner == outer or outer in inner.parents


def within(inner: Path, outer: Path) -> bool:
    """`inner` is `outer` or below it, links resolved."""
    return _inside(_real(inner), _real(outer))


def ours(path: Path) -> str | None:
    """What tree of ours `path` is, if any: a corpus (our manifest.json: its format named in its first bytes), a
    static site (`report --site`: index.html, case/ and impl/) or a results dataset (run=ID folders holding a run's
    cells or record)."""
    try:
        manifest = path / MANIFEST
        if manifest.is_file() and not manifest.is_symlink():
            with manifest.open("rb") as f:
                if CORPUS_MARK in f.read(4096):
                    return "a corpus"
        if (path / "index.html").is_file() and (path / "case").is_dir() and (path / "impl").is_dir():
            return "a site"
        if path.is_dir() and any(p.name.startswith("run=") and ((p / "cells.parquet").exists() or (p / "_run.json")
                                                                 .exists()) for p in path.iterdir()):
            return "a results dataset"
    except OSError:
        return None
    return None


def separate(output: Path, inputs: Mapping[str, Path] | None = None, replaces: str | None = None) -> None:
    """TreeError unless `output` (what a command writes) and each input tree (name -> path) are apart: neither
    inside the other, and `output` inside no corpus or results dataset of ours (it would add files that break it).
    `replaces`: what `output` itself may be (an earlier corpus that generate replaces), which is no error."""
    out = _real(output)
    for name, path in (inputs or {}).items():
        src = _real(path)
        if _inside(out, src):
            raise TreeError(f"{output} is inside {name} {path}; write it elsewhere")
        if _inside(src, out):
            raise TreeError(f"{name} {path} is inside the output {output}; write the output elsewhere")
    for folder in [out, *out.parents]:
        what = ours(folder)
        if what is not None and not (folder == out and what == replaces):
            where = "is" if folder == out else f"is inside {folder}, which is"
            raise TreeError(f"{output} {where} {what}; writing there would break it: choose another folder")


def check_names(rels: Iterable[str]) -> None:
    """Names mapped to files, checked before anything is written: each a relative path whose components fit the file
    system (MAX_NAME_BYTES each, MAX_PATH_BYTES in all), no two the same (exactly, or as a file and a folder)."""
    seen: set[str] = set()
    folders: set[str] = set()
    for rel in rels:
        parts = _parts(rel)
        for part in parts:
            if len(part.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
                raise TreeError(f"{rel!r}: a name of more than {MAX_NAME_BYTES} bytes, which no file system takes")
        if len(rel.encode("utf-8", "surrogateescape")) > MAX_PATH_BYTES:
            raise TreeError(f"{rel[:60]!r}...: a path of more than {MAX_PATH_BYTES} bytes")
        if rel in seen or rel in folders:
            raise TreeError(f"{rel!r} would be written twice (two names map to it)")
        seen.add(rel)
        folders.update("/".join(parts[:i]) for i in range(1, len(parts)))
    if clash := seen & folders:
        raise TreeError(f"{sorted(clash)[0]!r} would be both a file and a folder")


# -- writing ---------------------------------------------------------------------------------------


def write_below(root: Path, rel: str, data: bytes | IO[bytes], limit: int | None = None) -> tuple[int, str]:
    """A new file below `root` (its folders made as needed), never through a link or over an existing file: (size,
    sha256) of what was written. `data`: bytes, or a stream copied in CHUNK pieces (at most `limit` bytes)."""
    *folders, name = _parts(rel)
    fd = _folder_fd(root, folders, create=True)
    try:
        file_fd = _create_new(fd, name, root / rel)
    finally:
        os.close(fd)
    with os.fdopen(file_fd, "wb") as f:
        if isinstance(data, bytes | bytearray | memoryview):
            f.write(data)
            return len(data), hashlib.sha256(data).hexdigest()
        return copy_stream(data, f, limit)


def copy_files(src: Path, dst: Path, rels: Iterable[str], threads: int = 4) -> None:
    """The regular files `rels` of `src` copied to the same names below the folder `dst` (new files, folders made as
    needed), no link followed in either tree, as `open_below` and `write_below` do; but each folder is opened once,
    below its parent's open folder, the bytes are copied by the kernel (copy_file_range), and runs of folders are
    copied by `threads` threads at once: making files and folders is most of the time, spent in the file system, not
    in Python (a corpus of 1,600 files in 558 folders: 0.5 to 0.75 s one file at a time, 0.1 to 0.5 s this way)."""
    by_folder: dict[tuple[str, ...], list[str]] = {}
    for rel in rels:
        *folders, name = _parts(rel)
        by_folder.setdefault(tuple(folders), []).append(name)
    runs = sorted(by_folder.items())  # depth first: a folder's parent is still open when it is reached
    size = max(1, -(-len(runs) // max(1, threads)))

    def copy_run(run: list[tuple[tuple[str, ...], list[str]]]) -> None:
        with _FolderStack(src, create=False) as ins, _FolderStack(dst, create=True) as outs:
            for folders, names in run:
                src_fd, dst_fd = ins.at(folders), outs.at(folders)
                for name in names:
                    _copy_file(src, dst, "/".join((*folders, name)), name, src_fd, dst_fd)

    with ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="pqc-copy") as pool:
        list(pool.map(copy_run, [runs[i:i + size] for i in range(0, len(runs), size)]))


class _FolderStack:
    """The open folders from a root down to the current one, each opened below its parent with no link followed:
    moving to a folder closes those not on its path and opens the rest."""

    def __init__(self, root: Path, create: bool) -> None:
        self.root, self.create = root, create
        self.names: list[str] = []
        self.fds: list[int] = []

    def __enter__(self) -> _FolderStack:
        self.fds = [_folder_fd(self.root, [], create=False)]
        return self

    def __exit__(self, *_: object) -> None:
        for fd in self.fds:
            os.close(fd)

    def at(self, folders: tuple[str, ...]) -> int:
        keep = 0
        while keep < min(len(self.names), len(folders)) and self.names[keep] == folders[keep]:
            keep += 1
        while len(self.names) > keep:
            self.names.pop()
            os.close(self.fds.pop())
        for part in folders[keep:]:
            self.fds.append(_child_fd(self.root, self.fds[-1], part, self.names, self.create))
            self.names.append(part)
        return self.fds[-1]


def _copy_file(src: Path, dst: Path, rel: str, name: str, src_fd: int, dst_fd: int) -> None:
    fd_in, size = _open_regular(src_fd, name, src / rel)
    try:
        fd_out = _create_new(dst_fd, name, dst / rel)
        try:
            _copy_fd(fd_in, fd_out, size)
        finally:
            os.close(fd_out)
    finally:
        os.close(fd_in)


def _copy_fd(fd_in: int, fd_out: int, size: int) -> None:
    """`size` bytes (the file's size when opened: a file that grows meanwhile is copied as it was then), in the
    kernel where it can (copy_file_range), else through a buffer."""
    left = size
    try:
        while left > 0 and (n := os.copy_file_range(fd_in, fd_out, min(left, 1 << 30))):
            left -= n
        return
    except (AttributeError, OSError) as e:
        if isinstance(e, OSError) and e.errno not in (errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
            raise
    os.set_blocking(fd_in, True)
    while left > 0 and (chunk := os.read(fd_in, min(left, CHUNK))):
        os.write(fd_out, chunk)
        left -= len(chunk)


def link_below(root: Path, existing: str, rel: str) -> None:
    """`rel` below `root` the same file as `existing` (a hard link: written once, no symbolic link), or a copy
    where the file system has no hard links."""
    *folders, name = _parts(rel)
    src_fd = _folder_fd(root, _parts(existing)[:-1], create=False)
    fd = _folder_fd(root, folders, create=True)
    try:
        os.link(_parts(existing)[-1], name, src_dir_fd=src_fd, dst_dir_fd=fd, follow_symlinks=False)
    except OSError as e:
        if e.errno not in (errno.EPERM, errno.EMLINK, errno.EXDEV, errno.ENOTSUP):
            raise
        with open_below(root, existing) as src:
            write_below(root, rel, src)
    finally:
        os.close(src_fd)
        os.close(fd)


def write_atomic(path: Path, data: bytes | str) -> None:
    """One file replaced whole: written to a temporary sibling, then renamed over `path` (a link there is replaced,
    never written through; an interrupt leaves the old file or the new one)."""
    raw = data.encode() if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:200]}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _exchange(a: Path, b: Path) -> bool:
    """Swaps two paths in one step (renameat2 RENAME_EXCHANGE, Linux 3.15+); False where the system cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(a))


def sweep(folder: Path, prefix: str) -> None:
    """Temporary folders `prefix<pid>-...` of writers that were killed (SIGKILL leaves them; any other interrupt
    removes its own), removed: a folder whose process is gone."""
    try:
        entries = list(folder.iterdir())
    except OSError:
        return
    for entry in entries:
        rest = entry.name.removeprefix(prefix)
        pid = rest.split("-", 1)[0]
        if rest != entry.name and pid.isdigit() and entry.is_dir() and not entry.is_symlink() \
                and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(entry, ignore_errors=True)


def replaceable(target: Path, may_replace: str | None = None) -> None:
    """TreeError unless `replaced` may replace `target`: absent, empty, or what `may_replace` says. A command checks it
    first, so that an output it would refuse is refused before any work (`generate` builds every case first)."""
    if os.path.lexists(target):
        if target.is_symlink() or not target.is_dir():
            raise TreeError(f"{target} exists and is not a folder")
        if any(target.iterdir()) and ours(target) != may_replace:
            held = f" and is not {may_replace}" if may_replace else ""
            raise TreeError(f"{target} is not empty{held}; refusing to replace it")


@contextlib.contextmanager
def replaced(target: Path, may_replace: str | None = None) -> Iterator[Path]:
    """A fresh folder to write `target`'s new contents into: a hidden sibling, swapped with `target` in one step when
    the block ends (the old contents then removed), removed if it raises. `target` may be absent, empty, or what
    `may_replace` says (the `ours` word: "a corpus"); anything else is refused before anything is written."""
    replaceable(target, may_replace)
    target.parent.mkdir(parents=True, exist_ok=True)
    prefix = f".{target.name[:100]}.partial-"
    sweep(target.parent, prefix)
    staging = Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=target.parent))
    try:
        yield staging
        staging.chmod(0o755)
        if not os.path.lexists(target):
            staging.rename(target)
        elif _exchange(staging, target):
            pass  # staging now holds the old contents
        else:  # no exchange here: two renames, the old output kept under a hidden name between them
            old = staging.with_name(staging.name.replace(".partial-", ".old-"))
            target.rename(old)
            staging.rename(target)
            staging = old
    finally:
        shutil.rmtree(staging, ignore_errors=True)


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP held back while the block runs (a few renames), delivered when it ends."""
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextlib.contextmanager
def files_replaced(out: Path) -> Iterator[Path]:
    """A fresh hidden folder inside `out` to write a set of files and folders into (a run's reports, among what
    else `out` holds); when the block ends they replace their namesakes in `out` together, interrupts held back
    meanwhile, so that Ctrl-C leaves the old set or the new one. A folder among them (junit/) is swapped whole."""
    out.mkdir(parents=True, exist_ok=True)
    sweep(out, ".partial-")
    staging = Path(tempfile.mkdtemp(prefix=f".partial-{os.getpid()}-", dir=out))
    try:
        yield staging
        entries = sorted(staging.iterdir())
        with interrupts_deferred():
            for entry in entries:
                target = out / entry.name
                if entry.is_dir() and not entry.is_symlink() and target.is_dir() and not target.is_symlink():
                    if not _exchange(entry, target):
                        shutil.rmtree(target)
                        entry.rename(target)
                else:
                    if target.is_dir() and not target.is_symlink():
                        shutil.rmtree(target)
                    os.replace(entry, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
