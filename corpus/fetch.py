"""`corpus fetch`: download (http, https, or a local regular file) under one deadline for the whole download, check
the sha256 *before* the archive is opened, then hand it to corpus/extract.py. The download waits in a temporary
folder outside the target, so that a refused archive leaves nothing there.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import socket
import stat
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from parquet_conformance.corpus.dist import CHUNK, HEX64, NO_MORE_THAN, DistError, Limits, Refused
from parquet_conformance.corpus.extract import safe_extract
from parquet_conformance.corpus.model import GENERATOR_VERSION


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


def download(url: str, dest: Path, limits: Limits = NO_MORE_THAN) -> str:
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


def fetch(url: str, sha256: str, into: Path, limits: Limits = NO_MORE_THAN) -> Path:
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
