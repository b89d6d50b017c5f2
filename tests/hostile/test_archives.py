"""`corpus fetch` and `corpus verify` against archives, sources and servers built to hurt: a decompression bomb, too
many entries, more content than the manifest lists, a member that does not match the manifest, a server that
trickles its body or its headers, one that sends less than it promised, a FIFO as the source, large members that a
verify could hold in memory. Each is refused in one line with nothing written into the target, and nothing is left
behind in it."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import socket
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from parquet_conformance.corpus import dist, pack
from parquet_conformance.corpus.build import generate
from tests.helpers import CLI


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hostile") / "corpus"
    generate(out, only="base/flat,corrupt/tiny/*")
    return out


def archive_of(path: Path, members: list[tuple[str, bytes | int]]) -> str:
    """A .tar.gz of (name, bytes) members, or (name, n) for n zero bytes (streamed, never held in memory)."""
    class Zeros(io.RawIOBase):
        def __init__(self, n: int) -> None:
            self.left = n

        def readinto(self, b: bytearray) -> int:  # type: ignore[override]
            n = min(len(b), self.left)
            b[:n] = bytes(n)
            self.left -= n
            return n

    with tarfile.open(path, "w:gz", compresslevel=1) as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = data if isinstance(data, int) else len(data)
            tar.addfile(info, Zeros(data) if isinstance(data, int) else io.BytesIO(data))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def corpus_members(corpus: Path, top: str = "c") -> list[tuple[str, bytes | int]]:
    return [(f"{top}/{p.relative_to(corpus).as_posix()}", p.read_bytes())
            for p in sorted(corpus.rglob("*")) if p.is_file()]


def fetch(archive: Path, digest: str, into: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "corpus", "fetch", str(archive), "--sha256", digest, "--into", str(into), *extra],
                          capture_output=True, text=True, timeout=300)


def refused(proc: subprocess.CompletedProcess[str], into: Path, code: int = 1) -> str:
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not into.exists() or not any(into.iterdir()), f"left behind: {list(into.iterdir())}"
    return proc.stderr


def test_a_bomb_stops_at_the_ceiling(tmp_path: Path) -> None:
    digest = archive_of(tmp_path / "bomb.tar.gz", [("c/manifest.json", b"{}"), ("c/zeros", 200 << 20)])
    assert (tmp_path / "bomb.tar.gz").stat().st_size < 1 << 20  # 200 MiB of content in under 1 MiB
    err = refused(fetch(tmp_path / "bomb.tar.gz", digest, tmp_path / "into", "--max-bytes", str(64 << 20)),
                  tmp_path / "into")
    assert "more than 67108864 bytes of files" in err


def test_more_than_the_manifest_lists_is_refused(corpus: Path, tmp_path: Path) -> None:
    digest = archive_of(tmp_path / "a.tar.gz", [*corpus_members(corpus), ("c/cases/extra.bin", 40 << 20)])
    err = refused(fetch(tmp_path / "a.tar.gz", digest, tmp_path / "into"), tmp_path / "into")
    assert "bytes of files where the manifest lists" in err


def test_too_many_entries_are_refused(corpus: Path, tmp_path: Path) -> None:
    many = [(f"c/cases/empty-{i}", b"") for i in range(3000)]
    digest = archive_of(tmp_path / "a.tar.gz", [*corpus_members(corpus), *many])
    err = refused(fetch(tmp_path / "a.tar.gz", digest, tmp_path / "into"), tmp_path / "into")
    assert "entries where the manifest lists" in err
    err = refused(fetch(tmp_path / "a.tar.gz", digest, tmp_path / "into2", "--max-entries", "100"), tmp_path / "into2")
    assert "more than 100 entries" in err


def test_a_member_that_fails_the_manifest_is_never_moved_into_place(corpus: Path, tmp_path: Path) -> None:
    members = corpus_members(corpus)
    name = next(n for n, _ in members if n.endswith(".parquet") and "cases/" in n)
    tampered = [(n, (d[:-1] + b"!") if n == name else d) for n, d in members]  # type: ignore[operator]
    digest = archive_of(tmp_path / "a.tar.gz", tampered)  # the archive's sha256 is right; a member is not
    err = refused(fetch(tmp_path / "a.tar.gz", digest, tmp_path / "into"), tmp_path / "into")
    assert "sha256 mismatch" in err and name.removeprefix("c/") in err


@pytest.fixture
def trickle() -> Iterator[str]:
    """A server on 127.0.0.1 that answers with a byte every 0.3 s, forever."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    stop = threading.Event()

    def serve() -> None:
        conn, _ = server.accept()
        conn.recv(65536)
        conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 100000000\r\n\r\n")
        with contextlib.suppress(OSError):  # the client hangs up at its deadline: that is the point
            while not stop.is_set():
                conn.sendall(b"x")
                time.sleep(0.3)
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/corpus.tar.gz"
    stop.set()
    server.close()


def test_a_trickling_server_is_cut_off_at_the_deadline(trickle: str, tmp_path: Path) -> None:
    proc = subprocess.run([*CLI, "corpus", "fetch", trickle, "--sha256", "0" * 64, "--into", str(tmp_path / "into"),
                           "--timeout", "2"], capture_output=True, text=True, timeout=120)
    err = refused(proc, tmp_path / "into", code=2)
    assert "not done within 2s" in err


def test_the_limits_pass_a_real_corpus(corpus: Path, tmp_path: Path) -> None:
    archive, digest = pack.pack(corpus, tmp_path / "dist")
    proc = fetch(archive, digest, tmp_path / "into")
    assert proc.returncode == 0, proc.stderr
    assert dist.verify_tree(dist.find_root(tmp_path / "into")) == []


def serve_once(respond: Callable[[socket.socket], None]) -> Iterator[str]:
    """A server on 127.0.0.1 that answers one request with `respond(conn)`; yields its URL."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()

    def serve() -> None:
        conn, _ = server.accept()
        conn.recv(65536)
        with contextlib.suppress(OSError):  # the client hangs up at its deadline
            respond(conn)
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/corpus.tar.gz"
    server.close()


@pytest.fixture
def slow_headers() -> Iterator[str]:
    """A server that sends its status line, then a header byte every half second, forever."""
    def respond(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\n")
        for _ in range(600):
            conn.sendall(b"X")
            time.sleep(0.5)
    yield from serve_once(respond)


@pytest.fixture
def short_body() -> Iterator[str]:
    """A server that promises 100000 bytes and hangs up after 10."""
    def respond(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 100000\r\n\r\n0123456789")
    yield from serve_once(respond)


def test_headers_sent_a_byte_at_a_time_are_cut_at_the_deadline(slow_headers: str, tmp_path: Path) -> None:
    """One deadline covers connecting, headers and body: a per-read timeout never fires on a trickle."""
    proc = subprocess.run([*CLI, "corpus", "fetch", slow_headers, "--sha256", "0" * 64, "--into",
                           str(tmp_path / "into"), "--timeout", "3"], capture_output=True, text=True, timeout=120)
    assert "not done within 3s" in refused(proc, tmp_path / "into", code=2)


def test_a_short_body_is_a_failed_download(short_body: str, tmp_path: Path) -> None:
    proc = subprocess.run([*CLI, "corpus", "fetch", short_body, "--sha256", "0" * 64, "--into",
                           str(tmp_path / "into")], capture_output=True, text=True, timeout=120)
    assert "ended after 10 of 100000 bytes" in refused(proc, tmp_path / "into", code=2)


@pytest.mark.parametrize("kind", ["fifo", "ftp", "directory"])
def test_only_regular_files_and_http_are_sources(kind: str, tmp_path: Path) -> None:
    """A FIFO would block the fetch forever; other schemes are not ours to follow."""
    source = str(tmp_path / "src")
    if kind == "fifo":
        os.mkfifo(source)
    elif kind == "directory":
        os.mkdir(source)
    else:
        source = "ftp://127.0.0.1/corpus.tar.gz"
    err = refused(fetch(Path(source) if kind != "ftp" else source, "0" * 64, tmp_path / "into"),  # type: ignore[arg-type]
                  tmp_path / "into", code=2)
    assert ("not a regular file" if kind != "ftp" else "only http:// and https://") in err


def test_verify_holds_no_member_in_memory_but_the_manifest(tmp_path: Path) -> None:
    """An archive of large JSON members (megabytes of zeros compress to almost nothing) is hashed in bounded memory:
    only a top-level manifest.json and SHA256SUMS are ever held."""
    big = 48 << 20
    archive_of(tmp_path / "a.tar.gz", [("c/manifest.json", b"{}"), *[(f"c/expected/j{i}.json", big) for i in range(8)]])
    assert (tmp_path / "a.tar.gz").stat().st_size < 3 << 20
    # VmHWM, the peak of this process's own memory: ru_maxrss starts from the forking parent's peak (a test worker's)
    code = ("import re, sys; from pathlib import Path; from parquet_conformance.corpus import verify; "
            "problems, _ = verify.verify_archive(Path(sys.argv[1])); "
            "print(len(problems), re.search(r'VmHWM:\\s+(\\d+) kB', Path('/proc/self/status').read_text())[1])")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "a.tar.gz")], capture_output=True, text=True,
                          timeout=300)
    problems, peak_kib = map(int, proc.stdout.split())
    assert problems > 0 and peak_kib < 300 << 10, (problems, peak_kib)  # 8 x 48 MiB would be 384 MiB
