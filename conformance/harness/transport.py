"""A worker's transport: its process and the framed bytes to and from it, under the typed client
(conformance/harness/workers.py `Worker`), which knows the requests and what their answers mean.

One process at a time (`Transport.spawn`: a new one after each death), started under conformance/harness/reaper.py
so that neither it nor anything it starts outlives the harness, in a box of its own (`Box`: a cgroup where the
machine lets us make one, a token every descendant carries, a private temporary folder) and under the adapter's
address-space limit. Requests go out as JSON lines, each with an id no worker can guess (`request_id`); an answer is
one line, read in linear time, within a deadline (TimeoutError) and within the protocol's longest line (OutOfStep);
bytes beyond it (`surplus`) or before a request (`quiet`) mean the worker is out of step. A process that ends is a
death (`death`): killed by a signal or aborted (`crash`, with the signal and the last lines of stderr: a panic
message, an abort reason), out of memory (`oom`: MemoryError, bad_alloc, Rust's allocation failure, Java's
OutOfMemoryError, or SIGKILL). stderr is read as it comes and only its tail kept.
"""

from __future__ import annotations

import array
import contextlib
import fcntl
import itertools
import json
import os
import re
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path
from typing import IO

from parquet_conformance.conformance.harness import accounting, protocol
from parquet_conformance.conformance.harness.model import Crash, Error, Outcome, OutOfMemory
from parquet_conformance.conformance.harness.protocol import OutOfStep
from parquet_conformance.kernel import trees

REAPER = Path(__file__).with_name("reaper.py")
OOM_MARKERS = ("MemoryError", "std::bad_alloc", "memory allocation of", "OutOfMemoryError",
               "Cannot allocate memory", "out of memory", "JavaScript heap out of memory")
STDERR_TAIL = 4000  # of stderr in a crash's message
# What a process says when the kernel refuses it memory: under the address-space limit (RLIMIT_AS, reaper.py) that
# limit is why (rugo: "cannot reserve the slab address space"; Rust: "memory allocation of 3200 bytes failed"), where
# without it the same file may crash otherwise or grow much further: the crash says so (limit_text). Not Java's or
# V8's own heap limits (a JVM runs without RLIMIT_AS), nor a request beyond the limit by itself.
REFUSED_MEMORY = ("memory allocation of", "std::bad_alloc", "MemoryError", "Cannot allocate memory", "address space",
                  "out of memory", "failed to allocate", "Out of memory")
ALLOCATION_SIZE = re.compile(r"(?:memory allocation of|failed to allocate) (\d+) bytes")
STDERR_KEEP = 64 << 10  # of stderr kept in memory; the rest is read and dropped


class StderrTail:
    """A worker process's stderr, read by a thread of its own as it comes (a worker never blocks on it, and a
    flood costs no disk): the last STDERR_KEEP bytes, and how many came in all."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._lock = threading.Lock()
        self._buf = bytearray()
        self.total = 0
        self._thread = threading.Thread(target=self._pump, args=(stream,), name="worker-stderr", daemon=True)
        self._thread.start()

    def _pump(self, stream: IO[bytes]) -> None:
        fd = stream.fileno()
        try:
            while chunk := os.read(fd, 1 << 16):
                with self._lock:
                    self._buf += chunk
                    self.total += len(chunk)
                    if len(self._buf) > 2 * STDERR_KEEP:
                        del self._buf[:-STDERR_KEEP]
        except OSError:
            pass
        finally:
            stream.close()

    def wait(self, timeout: float) -> None:
        """Until the stream ends (every process holding it is gone), at most `timeout` seconds."""
        self._thread.join(timeout)

    def text(self, n: int, since: int = 0) -> str:
        """The last `n` bytes written since `since` (a `total` read earlier), as text."""
        with self._lock:
            take = max(0, min(n, self.total - since, len(self._buf)))
            tail = bytes(self._buf[len(self._buf) - take:])
        return tail.decode("utf-8", "replace").strip()


class WorkerDied(Exception):
    pass


class Transport:
    """One worker process at a time, and the framed lines to and from it."""

    def __init__(self, name: str) -> None:
        self.name = name  # whose worker it carries (its cells' adapter name): the CPU account it enters
        self.proc: subprocess.Popen[bytes] | None = None
        self.memory_limit: int | None = None  # the address-space limit the process runs under
        self._buf = bytearray()
        self._ids = itertools.count(1)
        self._stderr: StderrTail | None = None
        self._box: Box | None = None

    # -- the process ----------------------------------------------------------------

    def spawn(self, command: list[str], memory_limit: int | None) -> None:
        """A new process of `command`, under the reaper, in a box of its own, under `memory_limit` (None: none)."""
        limit = memory_limit or 0
        self.memory_limit = memory_limit
        self._buf = bytearray()
        self._box = Box.make()
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self._box.env()}
        cgroup = ["--cgroup", str(self._box.cgroup)] if self._box.cgroup else []
        try:
            self.proc = subprocess.Popen([sys.executable, "-S", "-E", str(REAPER), str(limit), *cgroup, "--", *command],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         start_new_session=True, env=env)
        except BaseException:
            self._box.kill()
            raise
        accounting.enter(self.proc.pid, self.name)  # bench/matrix.py's CPU per adapter; else nothing
        assert self.proc.stderr is not None
        self._stderr = StderrTail(self.proc.stderr)

    def running(self) -> bool:
        """A process was spawned and has not ended."""
        return self.proc is not None and self.proc.poll() is None

    @property
    def pid(self) -> int | None:
        """The reaper's pid (the worker and what it starts are below it), while there is a process."""
        return self.proc.pid if self.proc is not None else None

    def kill(self) -> None:
        """The reaper kills everything below it on SIGTERM (setsid and double-forked descendants included); SIGKILL
        if it does not go."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGCONT)  # a reaper its worker stopped must run to take SIGTERM
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._box is not None:  # what the reaper could not kill (it was killed or stopped); the private /tmp
            self._box.kill()
        for stream in (proc.stdin, proc.stdout):
            if stream:
                stream.close()
        if self._stderr is not None:
            self._stderr.wait(2)  # the tail up to the end (every holder of the pipe is gone)

    def close(self) -> None:
        """The worker asked to stop (the protocol's `stop`), given 5 seconds, then killed with all it started."""
        if self.proc is not None and self.proc.poll() is None and self.proc.stdin:
            try:
                self.proc.stdin.write(b'{"cmd": "stop"}\n')
                self.proc.stdin.flush()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def stderr_tail(self, n: int = STDERR_TAIL, since: int = 0) -> str:
        return self._stderr.text(n, since) if self._stderr is not None else ""

    def stderr_mark(self) -> int:
        """How much stderr has come so far: `since` for the tail of what comes after."""
        return self._stderr.total if self._stderr is not None else 0

    def death(self, mark: int) -> Outcome:
        """What the process's end was (it is killed, with all it started): a crash, or out of memory; its stderr
        since `mark` the message."""
        assert self.proc is not None
        try:
            rc = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            rc = None
        self.kill()
        tail = self.stderr_tail(since=mark)
        if rc is not None and rc < 0:
            how = f"killed by {signal.Signals(-rc).name}"
        elif rc is None:
            how = "closed its output and did not exit"
        else:
            how = f"exited with code {rc}"
        if rc != -signal.SIGKILL and at_the_limit(tail, self.memory_limit):
            how += f" at the {limit_text(self.memory_limit or 0)} address-space limit"
        error = Error(how, protocol.clean(tail[-STDERR_TAIL:] or how))
        if rc == -signal.SIGKILL or any(m in tail for m in OOM_MARKERS):
            return OutOfMemory(error)
        return Crash(error)

    # -- framed lines ---------------------------------------------------------------

    def request_id(self) -> str:
        """Unique per process and unguessable: no line a worker writes before a request can carry its id."""
        return f"{next(self._ids)}-{secrets.token_hex(4)}"

    def send(self, message: protocol.StartRequest | protocol.ReadRequest | protocol.WriteRequest) -> None:
        """One request, as a line; WorkerDied when the worker's input is closed."""
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(protocol.to_json(message)).encode() + b"\n")
            self.proc.stdin.flush()
        except OSError:
            raise WorkerDied("worker closed its input") from None

    def line(self, deadline: float) -> bytes:
        """The next line, read in linear time; OutOfStep past MAX_LINE, TimeoutError past the deadline."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        scanned = 0
        while True:
            newline = self._buf.find(b"\n", scanned)
            if newline >= 0:
                line = bytes(self._buf[:newline])
                del self._buf[:newline + 1]
                return line
            scanned = len(self._buf)
            if scanned > protocol.MAX_LINE:
                raise OutOfStep(f"an answer line longer than {protocol.MAX_LINE} bytes")
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                raise TimeoutError("no answer within the timeout")
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise WorkerDied("worker exited")
            self._buf += chunk

    def surplus(self) -> bool:
        """More came with the line last read (a second answer, a stray line)."""
        return bool(self._buf)

    def quiet(self) -> bool:
        """Nothing came from the worker since its last answer (no stray line, no end of its output)."""
        if self.proc is None or self.proc.stdout is None or self.proc.poll() is not None or self._buf:
            return False
        return not select.select([self.proc.stdout.fileno()], [], [], 0)[0]

    def request_unread(self) -> bool:
        """The request is still in the worker's input pipe, untouched (FIONREAD counts it from either end)."""
        stdin = self.proc.stdin if self.proc is not None else None
        if stdin is None or stdin.closed:
            return False
        try:
            unread = array.array("i", [0])
            fcntl.ioctl(stdin.fileno(), termios.FIONREAD, unread, True)
        except OSError:
            return False
        return unread[0] > 0


def at_the_limit(said: str, limit: int | None) -> bool:
    """Whether a dead worker's last words say the kernel refused it memory under the address-space limit: an allocation
    failed, and none it names asked for the limit or more by itself (that would fail without the limit too)."""
    if not limit or not any(m in said for m in REFUSED_MEMORY):
        return False
    return all(int(n) < limit for n in ALLOCATION_SIZE.findall(said))


def limit_text(limit: int) -> str:
    """An address-space limit as a crash names it: `8 GiB`, `512 MiB`."""
    return f"{limit / 2**30:g} GiB" if limit >= 2**30 else f"{limit / 2**20:g} MiB"


class Box:
    """What holds one worker process and everything it starts, whatever happens to its reaper: a cgroup where the
    machine lets us make one (cgroup v2; cgroup.kill, Linux 5.14+), and in any case a token in the environment of
    every descendant (a watchdog's mark: a process that left the session or double-forked still carries it), and a
    private temporary folder (TMPDIR) removed with it."""

    _made = itertools.count()

    def __init__(self, token: str, tmp: Path, cgroup: Path | None) -> None:
        self.token, self.tmp, self.cgroup = token, tmp, cgroup

    @classmethod
    def make(cls) -> Box:
        token = f"{os.getpid()}-{next(cls._made)}-{secrets.token_hex(6)}"
        trees.sweep(Path(tempfile.gettempdir()), TMP_PREFIX)  # those of a harness that was killed
        tmp = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{os.getpid()}-"))
        return cls(token, tmp, _new_cgroup(f"parquet-conformance-{token}"))

    def env(self) -> dict[str, str]:
        return {BOX_ENV: self.token, "TMPDIR": str(self.tmp), "TMP": str(self.tmp), "TEMP": str(self.tmp)}

    def kill(self) -> None:
        """Every process in the box killed (frozen first, so that none forks meanwhile), its folders removed."""
        if self.cgroup is not None:
            with contextlib.suppress(OSError):
                (self.cgroup / "cgroup.kill").write_text("1", encoding="utf-8")
            for _ in range(200):  # until the kernel has taken them all out (a few ms)
                try:
                    if not (self.cgroup / "cgroup.procs").read_text(encoding="utf-8").strip():
                        break
                except OSError:
                    break
                time.sleep(0.01)
            with contextlib.suppress(OSError):
                self.cgroup.rmdir()
        for _ in range(50):  # the watchdog: what carries the token (all of it, where there is no cgroup)
            marked = _carrying(self.token)
            if not marked:
                break
            for sig in (signal.SIGSTOP, signal.SIGKILL):
                for pid in marked:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(pid, sig)
            time.sleep(0.01)
        shutil.rmtree(self.tmp, ignore_errors=True)


BOX_ENV = "PARQUET_CONFORMANCE_WORKER_BOX"
TMP_PREFIX = "parquet-conformance-worker-"
NO_CGROUP_ENV = "PARQUET_CONFORMANCE_NO_CGROUP"  # set: the watchdog alone (tests hold both ways to the same rules)


def _cgroup_parent() -> Path | None:
    """The cgroup v2 folder this process is in, when it is mounted and we may make folders in it."""
    if os.environ.get(NO_CGROUP_ENV):
        return None
    try:
        own = next((line.split(":", 2)[2].strip()
                    for line in Path("/proc/self/cgroup").read_text(encoding="utf-8").splitlines()
                    if line.startswith("0::")), None)
        mounts = [line.split() for line in Path("/proc/self/mountinfo").read_text(encoding="utf-8").splitlines()]
    except OSError:
        return None
    for fields in mounts:
        if "-" in fields and fields[fields.index("-") + 1] == "cgroup2" and own is not None:
            folder = Path(fields[4]) / own.lstrip("/")
            if (folder / "cgroup.procs").exists() and os.access(folder, os.W_OK):
                return folder
    return None


def _new_cgroup(name: str) -> Path | None:
    parent = _cgroup_parent()
    if parent is None:
        return None
    for old in parent.glob("parquet-conformance-*-*"):  # the empty boxes of a harness that was killed
        pid = old.name.split("-")[2]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            with contextlib.suppress(OSError):
                old.rmdir()
    try:
        (parent / name).mkdir()
    except OSError:
        return None
    if not (parent / name / "cgroup.kill").exists():  # before 5.14 there is no way to kill a cgroup at once
        with contextlib.suppress(OSError):
            (parent / name).rmdir()
        return None
    return parent / name


def _carrying(token: str) -> list[int]:
    """The live processes whose environment carries the box's token."""
    mark = f"{BOX_ENV}={token}".encode()
    found = []
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if mark in f.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            continue
    return found
