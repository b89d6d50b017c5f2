"""A worker's typed client: requests (start, read, write) and their outcomes, over its transport (the process and
framed bytes: conformance/harness/transport.py `Transport`).

Each adapter gets one worker (restarted after it dies); a cell's outcome is what the worker answered, or what
happened to it (`crash`, `timeout`: the worker is killed, `oom`: transport.py says which). Framing is strict: each
request carries an id no worker can guess, and only the line that carries it answers it. An answer with that id that
breaks the protocol (malformed data, a field over its limit) is a `harness-error` for that cell. A line that answers
no request in flight (unsolicited, a duplicate, another id, not JSON, over 16 MiB), or output waiting before a
request is sent, means the worker is out of step: it is killed and the cell in flight goes to a fresh worker, whose
outcome decides it (out of step again: a `harness-error`), so that no cell inherits another's line.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from parquet_conformance.conformance.adapters import Adapter, AdapterUnavailable, PythonAdapter
from parquet_conformance.conformance.harness import envs, protocol
from parquet_conformance.conformance.harness.model import Error, HarnessError, Outcome, Timeout, Wrote
from parquet_conformance.conformance.harness.model import Unavailable as UnavailableOutcome
from parquet_conformance.conformance.harness.protocol import OutOfStep, ProtocolError, StartReply
from parquet_conformance.conformance.harness.transport import Transport, WorkerDied

T = TypeVar("T")  # what an answer parses to: an Outcome, or a write's Wrote
MakeRequest = Callable[[str], protocol.ReadRequest | protocol.WriteRequest]  # the request, given its id
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


class Worker:
    """One adapter's worker, started on first use and after every death: typed requests over its `transport`."""

    def __init__(self, adapter: Adapter, command: list[str] | None = None, normalize: Normalize | None = None,
                 name: str | None = None) -> None:
        self.adapter = adapter
        self.name = name or adapter.name  # its cells' adapter name (a release's: NAME-VERSION)
        self.command = command
        self.normalize = normalize or _no_data
        self.transport = Transport(self.name)
        self.info: StartReply | None = None
        self.unavailable: str | None = None
        self.last_case: str | None = None  # the last case the current process read

    def _spawn(self) -> None:
        command = self.command or envs.worker_command(self.adapter)
        self.last_case = None
        self.transport.spawn(command, self.adapter.memory_limit_bytes)

    def start(self) -> StartReply:
        """Starts the worker if needed; returns its self-description or raises AdapterUnavailable."""
        return self.await_start(self.launch())

    def launch(self) -> str | None:
        """Spawns the worker and asks it to start, without waiting (None: it is running or known unavailable).
        The process must be spawned by a thread that lives as long as the worker: the reaper's parent-death
        signal follows the spawning thread, not the process. Waiting (`await_start`) may be done anywhere."""
        if self.unavailable or (self.transport.running() and self.info is not None):
            return None
        try:
            self._spawn()
            request_id = self.transport.request_id()
            self.transport.send(protocol.StartRequest(request_id))
        except AdapterUnavailable as e:  # its command cannot be made here (a missing program, say)
            self.unavailable = str(e)
            return None
        except (OSError, WorkerDied) as e:
            self.transport.kill()
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
            obj, _ = protocol.parse_line(self.transport.line(time.monotonic() + self.adapter.start_timeout_s))
            reply = protocol.parse_start(obj, request_id)
        except AdapterUnavailable as e:
            self.unavailable = str(e)
            raise
        except (OSError, TimeoutError, WorkerDied, ProtocolError) as e:
            self.transport.kill()
            tail = self.transport.stderr_tail(800).strip().splitlines()[-1:]  # the last line: the error, no traceback
            self.unavailable = protocol.one_line(f"worker did not start: {e}" + (f": {tail[0]}" if tail else ""))
            raise AdapterUnavailable(self.unavailable) from None
        if isinstance(reply, protocol.UnavailableReply):
            self.transport.kill()
            self.unavailable = reply.unavailable
            raise AdapterUnavailable(self.unavailable)
        self.info = reply
        return reply

    def close(self) -> None:
        self.transport.close()

    def read(self, path: str, case_id: str = "", op: str = "read", timeout_s: float | None = None,
             expect: frozenset[str] = frozenset(), keys: Mapping[str, str] | None = None) -> Timed:
        """One cell. Never raises: every failure of the worker (or of our side of the protocol) is an outcome. A
        worker out of step is discarded and the cell goes, once, to a fresh worker. `expect`: the data hashes that
        count as the right data (no sample is kept of such a read). Our own Python worker is asked for the digest
        of its data rather than the data (protocol.DigestAnswer): the hashing is done where the data is."""
        t0 = time.monotonic()
        digest = self.command is None and isinstance(self.adapter, PythonAdapter)
        outcome, previous, library_s = self._once_more(
            case_id, lambda rid: protocol.ReadRequest(rid, path, case_id, op, digest or None,
                                                      sorted(expect) if digest and expect else None,
                                                      dict(keys) if keys else None),
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
        if self.transport.proc is not None and self.info is not None and not self.transport.quiet():
            self.transport.kill()  # it wrote something unasked, or died, since its last answer: no cell's outcome
        try:
            self.start()
        except AdapterUnavailable as e:
            return UnavailableOutcome(str(e)), None, None
        mark = self.transport.stderr_mark()
        previous, self.last_case = self.last_case, label
        try:
            request_id = self.transport.request_id()
            try:
                self.transport.send(request(request_id))
            except WorkerDied:
                raise OutOfStep("the worker's input was closed before the request was sent") from None
            obj, raw_sha = protocol.parse_line(self.transport.line(time.monotonic() + timeout))
            outcome = parse(obj, request_id, raw_sha)
            if self.transport.surplus():  # more came with the answer (a second answer, a stray line): the answer
                self.transport.kill()  # stands, the worker goes, so that no later cell reads what came after it
            return outcome, previous, protocol.library_seconds(obj)
        except TimeoutError:
            self.transport.kill()
            return Timeout(timeout), previous, None
        except WorkerDied:
            if self.transport.request_unread():  # it ended after its last answer, before it took this request:
                raise OutOfStep("the worker ended before it read the request") from None  # not this cell's outcome
            return self.transport.death(mark), previous, None
        except OutOfStep:
            self.transport.kill()
            raise
        except ProtocolError as e:
            self.transport.kill()  # the stream is out of step: a fresh worker for the next cell
            return self._protocol_error(e), previous, None

    @staticmethod
    def _protocol_error(e: ProtocolError) -> Outcome:
        return HarnessError(Error("protocol-error", protocol.clean(str(e), protocol.MAX_TEXT)))


def _no_data(answer: Mapping[str, Any]) -> object:
    raise ValueError("this worker was given no way to read data (no track)")
