"""Run cells in persistent, isolated worker processes.

Each adapter gets one worker process (restarted after it dies), started under conformance/harness/reaper.py
so that neither it nor anything it starts outlives the harness. A cell's outcome is what the worker
answered, or what happened to it: killed by a signal or aborted (`crash`, with the signal and the
last lines of stderr: a panic message, an abort reason), no answer within the timeout (`timeout`;
the worker is killed), out of memory (`oom`: MemoryError, bad_alloc, Rust's allocation failure,
Java's OutOfMemoryError, or SIGKILL).

Framing is strict: each request carries an id no worker can guess, and only the line that carries it answers
it. An answer with that id that breaks the protocol (malformed data, a field over its limit) is a
`harness-error` for that cell. A line that answers no request in flight (unsolicited, a duplicate, another id,
not JSON, over 16 MiB), or output waiting before a request is sent, means the worker is out of step: it is
killed and the cell in flight goes to a fresh worker, whose outcome decides it (out of step again: a
`harness-error`), so that no cell inherits another's line. stderr is read as it comes and only its tail kept.
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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

from parquet_conformance.conformance.adapters import Adapter, AdapterUnavailable, PythonAdapter
from parquet_conformance.conformance.harness import accounting, envs, protocol
from parquet_conformance.conformance.harness.model import (
    Crash,
    Error,
    HarnessError,
    Outcome,
    OutOfMemory,
    Timeout,
    Wrote,
)
from parquet_conformance.conformance.harness.model import Unavailable as UnavailableOutcome
from parquet_conformance.conformance.harness.protocol import OutOfStep, ProtocolError, StartReply
from parquet_conformance.kernel import trees

T = TypeVar("T")  # what an answer parses to: an Outcome, or a write's Wrote
MakeRequest = Callable[[str], protocol.ReadRequest | protocol.WriteRequest]  # the request, given its id
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
Normalize = Callable[[Mapping[str, Any]], object]


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


@dataclass(frozen=True)
class Timed:
    outcome: Outcome
    duration_s: float
    previous_case: str | None = None  # what this worker process read just before (None: a new process)
    library_s: float | None = None  # what the worker says the library's own call took


@dataclass(frozen=True)
class TimedWrite:
    outcome: Wrote | Outcome
    duration_s: float
    library_s: float | None = None


class WorkerDied(Exception):
    pass


class Worker:
    """One adapter's worker process, started on first use and after every death."""

    def __init__(self, adapter: Adapter, command: list[str] | None = None, normalize: Normalize | None = None,
                 name: str | None = None) -> None:
        self.adapter = adapter
        self.name = name or adapter.name  # its cells' adapter name (a release's: NAME-VERSION)
        self.command = command
        self.normalize = normalize or _no_data
        self.proc: subprocess.Popen[bytes] | None = None
        self.info: StartReply | None = None
        self.unavailable: str | None = None
        self._buf = bytearray()
        self._ids = itertools.count(1)
        self._stderr: StderrTail | None = None
        self._box: Box | None = None
        self.last_case: str | None = None  # the last case the current process read

    # -- process management ---------------------------------------------------------

    def _spawn(self) -> None:
        cmd = self.command or envs.worker_command(self.adapter)
        limit = self.adapter.memory_limit_bytes or 0
        self._buf = bytearray()
        self.last_case = None
        self._box = Box.make()
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self._box.env()}
        cgroup = ["--cgroup", str(self._box.cgroup)] if self._box.cgroup else []
        try:
            self.proc = subprocess.Popen([sys.executable, "-S", "-E", str(REAPER), str(limit), *cgroup, "--", *cmd],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         start_new_session=True, env=env)
        except BaseException:
            self._box.kill()
            raise
        accounting.enter(self.proc.pid, self.name)  # bench/matrix.py's CPU per adapter; else nothing
        assert self.proc.stderr is not None
        self._stderr = StderrTail(self.proc.stderr)

    def _request_id(self) -> str:
        """Unique per process and unguessable: no line a worker writes before a request can carry its id."""
        return f"{next(self._ids)}-{secrets.token_hex(4)}"

    def start(self) -> StartReply:
        """Starts the worker if needed; returns its self-description or raises AdapterUnavailable."""
        return self.await_start(self.launch())

    def launch(self) -> str | None:
        """Spawns the worker and asks it to start, without waiting (None: it is running or known unavailable).
        The process must be spawned by a thread that lives as long as the worker: the reaper's parent-death
        signal follows the spawning thread, not the process. Waiting (`await_start`) may be done anywhere."""
        if self.unavailable or (self.proc is not None and self.proc.poll() is None and self.info is not None):
            return None
        try:
            self._spawn()
            request_id = self._request_id()
            self._send(protocol.StartRequest(request_id))
        except AdapterUnavailable as e:  # its command cannot be made here (a missing program, say)
            self.unavailable = str(e)
            return None
        except (OSError, WorkerDied) as e:
            self.kill()
            self.unavailable = protocol.one_line(f"worker did not start: {e}")
            return None
        return request_id

    def await_start(self, request_id: str | None) -> StartReply:
        """The answer to `launch`'s start request (or the running worker's description)."""
        if self.unavailable:
            raise AdapterUnavailable(self.unavailable)
        if request_id is None:
            assert self.info is not None
            return self.info
        try:
            obj, _ = protocol.parse_line(self._line(time.monotonic() + self.adapter.start_timeout_s))
            reply = protocol.parse_start(obj, request_id)
        except AdapterUnavailable as e:
            self.unavailable = str(e)
            raise
        except (OSError, TimeoutError, WorkerDied, ProtocolError) as e:
            self.kill()
            tail = self.stderr_tail(800).strip().splitlines()[-1:]  # the last line: the error, not its traceback
            self.unavailable = protocol.one_line(f"worker did not start: {e}" + (f": {tail[0]}" if tail else ""))
            raise AdapterUnavailable(self.unavailable) from None
        if isinstance(reply, protocol.UnavailableReply):
            self.kill()
            self.unavailable = reply.unavailable
            raise AdapterUnavailable(self.unavailable)
        self.info = reply
        return reply

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

    def _stderr_mark(self) -> int:
        return self._stderr.total if self._stderr is not None else 0

    # -- protocol -------------------------------------------------------------------

    def _send(self, message: protocol.StartRequest | protocol.ReadRequest | protocol.WriteRequest) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(protocol.to_json(message)).encode() + b"\n")
            self.proc.stdin.flush()
        except OSError:
            raise WorkerDied("worker closed its input") from None

    def _line(self, deadline: float) -> bytes:
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

    def _quiet(self) -> bool:
        """Nothing came from the worker since its last answer (no stray line, no end of its output)."""
        if self.proc is None or self.proc.stdout is None or self.proc.poll() is not None or self._buf:
            return False
        return not select.select([self.proc.stdout.fileno()], [], [], 0)[0]

    def read(self, path: str, case_id: str = "", op: str = "read", timeout_s: float | None = None,
             expect: frozenset[str] = frozenset()) -> Timed:
        """One cell. Never raises: every failure of the worker (or of our side of the protocol) is an outcome. A
        worker out of step is discarded and the cell goes, once, to a fresh worker. `expect`: the data hashes that
        count as the right data (no sample is kept of such a read). Our own Python worker is asked for the digest
        of its data rather than the data (protocol.DigestAnswer): the hashing is done where the data is."""
        t0 = time.monotonic()
        digest = self.command is None and isinstance(self.adapter, PythonAdapter)
        outcome, previous, library_s = self._once_more(
            case_id, lambda rid: protocol.ReadRequest(rid, path, case_id, op, digest or None,
                                                      sorted(expect) if digest and expect else None),
            lambda obj, rid, raw: protocol.parse_answer(obj, rid, self.normalize, raw, digest, expect), timeout_s)
        return Timed(outcome, time.monotonic() - t0, previous, library_s)

    def write(self, source: str, path: str, profile: str, table: str, timeout_s: float | None = None) -> TimedWrite:
        """One write (conformance/harness/writing.py). Never raises: as for `read`, every failure is an outcome."""
        t0 = time.monotonic()
        outcome, _, library_s = self._once_more(
            f"write {profile} {table}", lambda rid: protocol.WriteRequest(rid, source, path, profile, table),
            protocol.parse_write_answer, timeout_s)
        return TimedWrite(outcome, time.monotonic() - t0, library_s)

    def _once_more(self, label: str, request: MakeRequest, parse: Callable[[object, str, str | None], T],
                   timeout_s: float | None) -> tuple[T | Outcome, str | None, float | None]:
        """One exchange, and once more in a fresh worker when this one was out of step."""
        timeout = timeout_s or self.adapter.timeout_s
        try:
            return self._exchange(label, request, parse, timeout)
        except OutOfStep:
            try:
                return self._exchange(label, request, parse, timeout)
            except OutOfStep as e:
                return self._protocol_error(e), None, None

    def _exchange(self, label: str, request: MakeRequest, parse: Callable[[object, str, str | None], T],
                  timeout: float) -> tuple[T | Outcome, str | None, float | None]:
        """(outcome, the case this process read before, library_s) of one request; OutOfStep (the worker killed)
        when its stream is out of step."""
        if self.proc is not None and self.info is not None and not self._quiet():
            self.kill()  # it wrote something unasked, or died, since its last answer: that is no cell's outcome
        try:
            self.start()
        except AdapterUnavailable as e:
            return UnavailableOutcome(str(e)), None, None
        mark = self._stderr_mark()
        previous, self.last_case = self.last_case, label
        try:
            request_id = self._request_id()
            try:
                self._send(request(request_id))
            except WorkerDied:
                raise OutOfStep("the worker's input was closed before the request was sent") from None
            obj, raw_sha = protocol.parse_line(self._line(time.monotonic() + timeout))
            outcome = parse(obj, request_id, raw_sha)
            if self._buf:  # more came with the answer (a second answer, a stray line): the answer stands, the worker
                self.kill()  # goes, so that no later cell reads what came after it
            return outcome, previous, protocol.library_seconds(obj)
        except TimeoutError:
            self.kill()
            return Timeout(timeout), previous, None
        except WorkerDied:
            if self._request_unread():  # it ended after its last answer, before it took this request: not this cell
                raise OutOfStep("the worker ended before it read the request") from None
            return self._death(mark), previous, None
        except OutOfStep:
            self.kill()
            raise
        except ProtocolError as e:
            self.kill()  # the stream is out of step: a fresh worker for the next cell
            return self._protocol_error(e), previous, None

    def _request_unread(self) -> bool:
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

    @staticmethod
    def _protocol_error(e: ProtocolError) -> Outcome:
        return HarnessError(Error("protocol-error", protocol.clean(str(e), protocol.MAX_TEXT)))

    def _death(self, mark: int) -> Outcome:
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
        if rc != -signal.SIGKILL and at_the_limit(tail, self.adapter.memory_limit_bytes):
            how += f" at the {limit_text(self.adapter.memory_limit_bytes or 0)} address-space limit"
        error = Error(how, protocol.clean(tail[-STDERR_TAIL:] or how))
        if rc == -signal.SIGKILL or any(m in tail for m in OOM_MARKERS):
            return OutOfMemory(error)
        return Crash(error)


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


def _no_data(answer: Mapping[str, Any]) -> object:
    raise ValueError("this worker was given no way to read data (no track)")
