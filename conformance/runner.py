"""Run cells in persistent, isolated worker processes.

Each adapter gets one worker process (restarted after it dies). A cell's outcome is what
the worker answered, or what happened to it: killed by a signal or aborted (`crash`, with
the signal and the last lines of stderr: a panic message, an abort reason), no answer
within the timeout (`timeout`; the worker is killed), out of memory (`oom`: MemoryError,
bad_alloc, Rust's allocation failure, Java's OutOfMemoryError, or SIGKILL). Lines on the
worker's stdout that are not the JSON answer to the pending request are ignored.
"""

from __future__ import annotations

import itertools
import json
import os
import resource
import select
import signal
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass

from conformance.adapters import Adapter, Unavailable
from generators.canonical import data_hash, normalize

PROTOCOL_VERSION = 1
OOM_MARKERS = ("MemoryError", "std::bad_alloc", "memory allocation of", "OutOfMemoryError",
               "Cannot allocate memory", "out of memory", "JavaScript heap out of memory")
STDERR_TAIL = 4000


@dataclass
class Outcome:
    outcome: str  # read | rejected | crash | timeout | oom | unavailable
    error_class: str | None = None
    error_message: str | None = None
    rows: int | None = None
    data_hash: str | None = None
    duration_s: float = 0.0
    metadata: str | None = None  # which footer an aware reader used: "flatbuffers" | "thrift"

    def to_dict(self) -> dict:
        return asdict(self)


class WorkerDied(Exception):
    pass


class Worker:
    """One adapter's worker process, started on first use and after every death."""

    def __init__(self, adapter: Adapter, command: list[str] | None = None) -> None:
        self.adapter = adapter
        self.command = command
        self.proc: subprocess.Popen | None = None
        self.info: dict | None = None
        self.unavailable: str | None = None
        self._buf = b""
        self._ids = itertools.count(1)
        self._stderr = tempfile.TemporaryFile()

    # -- process management ---------------------------------------------------------

    def _limits(self) -> None:
        limit = self.adapter.memory_limit_bytes
        if limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    def _spawn(self) -> None:
        cmd = self.command or self.adapter.command()
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self._buf = b""
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                                     start_new_session=True, preexec_fn=self._limits, env=env)

    def start(self) -> dict:
        """Starts the worker if needed; returns its self-description or raises Unavailable."""
        if self.unavailable:
            raise Unavailable(self.unavailable)
        if self.proc is not None and self.proc.poll() is None:
            return self.info
        try:
            self._spawn()
            reply = self._request({"cmd": "start", "protocol": PROTOCOL_VERSION}, self.adapter.start_timeout_s)
        except Unavailable as e:
            self.unavailable = str(e)
            raise
        except (OSError, TimeoutError, WorkerDied) as e:
            self.kill()
            self.unavailable = f"worker did not start: {e}: {self.stderr_tail(800)}".strip()
            raise Unavailable(self.unavailable) from None
        if not reply.get("ok"):
            self.kill()
            self.unavailable = reply.get("unavailable") or "worker refused to start"
            raise Unavailable(self.unavailable)
        self.info = {k: v for k, v in reply.items() if k not in ("id", "ok")}
        return self.info

    def kill(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            stream.close()
        self.proc = None

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
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

    def _request(self, msg: dict, timeout: float) -> dict:
        msg = {**msg, "id": str(next(self._ids))}
        try:
            self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
            self.proc.stdin.flush()
        except OSError:
            raise WorkerDied("worker closed its input") from None
        return self._await(msg["id"], time.monotonic() + timeout)

    def _await(self, want: str, deadline: float) -> dict:
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" in self._buf:
                line, self._buf = self._buf.split(b"\n", 1)
                try:
                    reply = json.loads(line)
                except ValueError:
                    continue  # noise on stdout
                if isinstance(reply, dict) and reply.get("id") == want:
                    return reply
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                raise TimeoutError("no answer within the timeout")
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise WorkerDied("worker exited")
            self._buf += chunk

    def read(self, path: str, case_id: str = "") -> Outcome:
        """One cell. Never raises: every failure of the worker is an outcome."""
        t0 = time.monotonic()
        try:
            self.start()
        except Unavailable as e:
            return Outcome("unavailable", error_message=str(e))
        mark = self._stderr.seek(0, os.SEEK_END)
        try:
            reply = self._request({"cmd": "read", "path": path, "case": case_id}, self.adapter.timeout_s)
        except TimeoutError:
            self.kill()
            return Outcome("timeout", error_message=f"no answer within {self.adapter.timeout_s:g}s",
                           duration_s=time.monotonic() - t0)
        except WorkerDied:
            return self._death(mark, t0)
        return self._outcome(reply, time.monotonic() - t0)

    def _death(self, mark: int, t0: float) -> Outcome:
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
        kind = "oom" if rc == -signal.SIGKILL or any(m in tail for m in OOM_MARKERS) else "crash"
        return Outcome(kind, error_class=how, error_message=tail[-STDERR_TAIL:] or how,
                       duration_s=time.monotonic() - t0)

    @staticmethod
    def _outcome(reply: dict, duration: float) -> Outcome:
        kind = reply.get("outcome")
        if kind == "read":
            try:
                rows = normalize({"columns": reply["columns"], "rows": reply["rows"]})
            except (KeyError, TypeError, ValueError) as e:
                return Outcome("crash", "protocol-error", f"malformed rows in the answer: {e}", duration_s=duration)
            return Outcome("read", rows=len(rows["rows"]), data_hash=data_hash(rows), duration_s=duration,
                           metadata=reply.get("metadata"))
        if kind in ("rejected", "crash", "oom"):
            err = reply.get("error") or {}
            return Outcome(kind, err.get("class"), err.get("message"), duration_s=duration)
        return Outcome("crash", "protocol-error", f"unknown outcome {kind!r} in the answer", duration_s=duration)
