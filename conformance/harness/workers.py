"""Run cells in persistent, isolated worker processes.

Each adapter gets one worker process (restarted after it dies), started under conformance/harness/reaper.py
so that neither it nor anything it starts outlives the harness. A cell's outcome is what the worker
answered, or what happened to it: killed by a signal or aborted (`crash`, with the signal and the
last lines of stderr: a panic message, an abort reason), no answer within the timeout (`timeout`;
the worker is killed), out of memory (`oom`: MemoryError, bad_alloc, Rust's allocation failure,
Java's OutOfMemoryError, or SIGKILL). An answer that breaks the protocol (not JSON, another id, a
line over 16 MiB, malformed data) is a `harness-error` for that cell only, and the worker is
restarted: its stream can no longer be trusted.
"""

from __future__ import annotations

import itertools
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from parquet_conformance.conformance.adapters import Adapter, AdapterUnavailable
from parquet_conformance.conformance.harness import protocol
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
from parquet_conformance.conformance.harness.protocol import ProtocolError, StartReply

REAPER = Path(__file__).with_name("reaper.py")
OOM_MARKERS = ("MemoryError", "std::bad_alloc", "memory allocation of", "OutOfMemoryError",
               "Cannot allocate memory", "out of memory", "JavaScript heap out of memory")
STDERR_TAIL = 4000
Normalize = Callable[[Mapping[str, Any]], object]


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

    def __init__(self, adapter: Adapter, command: list[str] | None = None, normalize: Normalize | None = None) -> None:
        self.adapter = adapter
        self.command = command
        self.normalize = normalize or _no_data
        self.proc: subprocess.Popen[bytes] | None = None
        self.info: StartReply | None = None
        self.unavailable: str | None = None
        self._buf = bytearray()
        self._ids = itertools.count(1)
        self._stderr: IO[bytes] = tempfile.TemporaryFile()
        self.last_case: str | None = None  # the last case the current process read

    # -- process management ---------------------------------------------------------

    def _spawn(self) -> None:
        cmd = self.command or self.adapter.command()
        limit = self.adapter.memory_limit_bytes or 0
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self._buf = bytearray()
        self.last_case = None
        self.proc = subprocess.Popen([sys.executable, "-S", "-E", str(REAPER), str(limit), "--", *cmd],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                                     start_new_session=True, env=env)

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
            request_id = str(next(self._ids))
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
            obj, _ = self._answer(request_id, time.monotonic() + self.adapter.start_timeout_s)
            reply = protocol.parse_start(obj, request_id)
        except AdapterUnavailable as e:
            self.unavailable = str(e)
            raise
        except (OSError, TimeoutError, WorkerDied, ProtocolError, ValueError) as e:
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
        """The reaper kills the worker's whole process group on SIGTERM; SIGKILL if it does not go."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream:
                stream.close()

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None and self.proc.stdin:
            try:
                self.proc.stdin.write(b'{"cmd": "stop"}\n')
                self.proc.stdin.flush()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()
        self._stderr.close()

    def stderr_tail(self, n: int = STDERR_TAIL, since: int = 0) -> str:
        self._stderr.flush()
        end = self._stderr.seek(0, os.SEEK_END)
        self._stderr.seek(max(since, end - n))
        return self._stderr.read().decode("utf-8", "replace").strip()

    # -- protocol -------------------------------------------------------------------

    def _send(self, message: protocol.StartRequest | protocol.ReadRequest | protocol.WriteRequest) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(protocol.to_json(message)).encode() + b"\n")
            self.proc.stdin.flush()
        except OSError:
            raise WorkerDied("worker closed its input") from None

    def _line(self, deadline: float) -> bytes:
        """The next line, read in linear time; ProtocolError past MAX_LINE, TimeoutError past the deadline."""
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
                raise ProtocolError(f"an answer line longer than {protocol.MAX_LINE} bytes")
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                raise TimeoutError("no answer within the timeout")
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise WorkerDied("worker exited")
            self._buf += chunk

    def _answer(self, request_id: str, deadline: float) -> tuple[object, str | None]:
        """The next line as JSON, and the sha256 of the raw line if it was not UTF-8."""
        text, raw_sha = protocol.decode_line(self._line(deadline))
        try:
            return json.loads(text), raw_sha
        except ValueError:
            raise ProtocolError(f"answer to request {request_id} is not JSON: {protocol.clean(text, 120)!r}") from None

    def read(self, path: str, case_id: str = "", op: str = "read", timeout_s: float | None = None) -> Timed:
        """One cell. Never raises: every failure of the worker (or of our side of the protocol) is an outcome."""
        t0 = time.monotonic()
        timeout = timeout_s or self.adapter.timeout_s
        try:
            self.start()
        except AdapterUnavailable as e:
            return Timed(UnavailableOutcome(str(e)), 0.0)
        mark = self._stderr.seek(0, os.SEEK_END)
        previous, self.last_case = self.last_case, case_id
        library_s = None
        try:
            request_id = str(next(self._ids))
            self._send(protocol.ReadRequest(request_id, path, case_id, op))
            obj, raw_sha = self._answer(request_id, time.monotonic() + timeout)
            outcome = protocol.parse_answer(obj, request_id, self.normalize, raw_sha)
            library_s = protocol.library_seconds(obj)
        except TimeoutError:
            self.kill()
            outcome = Timeout(timeout)
        except WorkerDied:
            outcome = self._death(mark)
        except ProtocolError as e:
            self.kill()  # the stream is out of step: a fresh worker for the next cell
            outcome = HarnessError(Error("protocol-error", protocol.clean(str(e), protocol.MAX_TEXT)))
        return Timed(outcome, time.monotonic() - t0, previous, library_s)

    def write(self, source: str, path: str, profile: str, table: str, timeout_s: float | None = None) -> TimedWrite:
        """One write (conformance/harness/writing.py). Never raises: as for `read`, every failure is an outcome."""
        t0 = time.monotonic()
        timeout = timeout_s or self.adapter.timeout_s
        try:
            self.start()
        except AdapterUnavailable as e:
            return TimedWrite(UnavailableOutcome(str(e)), 0.0)
        mark = self._stderr.seek(0, os.SEEK_END)
        self.last_case = f"write {profile} {table}"
        library_s = None
        outcome: Wrote | Outcome
        try:
            request_id = str(next(self._ids))
            self._send(protocol.WriteRequest(request_id, source, path, profile, table))
            obj, raw_sha = self._answer(request_id, time.monotonic() + timeout)
            outcome = protocol.parse_write_answer(obj, request_id, raw_sha)
            library_s = protocol.library_seconds(obj)
        except TimeoutError:
            self.kill()
            outcome = Timeout(timeout)
        except WorkerDied:
            outcome = self._death(mark)
        except ProtocolError as e:
            self.kill()
            outcome = HarnessError(Error("protocol-error", protocol.clean(str(e), protocol.MAX_TEXT)))
        return TimedWrite(outcome, time.monotonic() - t0, library_s)

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
        else:
            how = f"exited with code {rc}"
        error = Error(how, protocol.clean(tail[-STDERR_TAIL:] or how))
        if rc == -signal.SIGKILL or any(m in tail for m in OOM_MARKERS):
            return OutOfMemory(error)
        return Crash(error)


def _no_data(answer: Mapping[str, Any]) -> object:
    raise ValueError("this worker was given no way to read data (no track)")
