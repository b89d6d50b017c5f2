"""`corpus fetch` against archives and servers built to hurt: a decompression bomb, too many entries, more
content than the manifest lists, a member that does not match the manifest, a server that trickles. Each is
refused in one line with nothing written into the target, and nothing is left behind in it."""

from __future__ import annotations

import contextlib
import hashlib
import io
import socket
import subprocess
import tarfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from parquet_conformance.corpus import dist
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
    archive, digest = dist.pack(corpus, tmp_path / "dist")
    proc = fetch(archive, digest, tmp_path / "into")
    assert proc.returncode == 0, proc.stderr
    assert dist.verify_tree(dist.find_root(tmp_path / "into")) == []
