"""The adapter protocol (docs/adapter-protocol.md) as typed messages, after Bowtie's `_commands.py`:
one dataclass per message, the JSON Schema in conformance/harness/schemas/protocol.schema.json derived from
them (conformance/harness/derived.py), and one parser per direction that turns any other JSON into a
ProtocolError naming what is wrong.

Parsing is total: any line (any bytes, depth, size or number) becomes a message, a ProtocolError (the cell is a
harness error) or an OutOfStep (the line answers no request in flight: the worker is discarded and the cell goes to
a fresh one); nothing else escapes. Each answer is held to its record's JSON Schema (kernel/documents.py), whose
limits (MAX_* here, the name patterns of corpus/model.py) are docs/adapter-protocol.md's; the data is then the
track's to check (`normalize`).

Every string that crosses the boundary is sanitised here (`clean`): lone surrogates, NUL and
other characters XML cannot carry become U+FFFD, and the sha256 of the raw text is kept in the
message, so that no answer can break storage or a report after the fact.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from parquet_conformance.conformance.harness import chains
from parquet_conformance.conformance.harness.model import (
    Crash,
    Error,
    HarnessError,
    Outcome,
    OutOfMemory,
    Read,
    Rejected,
    Unavailable,
    Unhandled,
    Wrote,
)
from parquet_conformance.conformance.harness.sample import check_sample, sample_of
from parquet_conformance.corpus.model import KEYS, MAX_NAME, ROLE, ROLE_RE
from parquet_conformance.generators.canonical import data_hash
from parquet_conformance.kernel import documents
from parquet_conformance.kernel.documents import PRINTABLE, DocumentError

PROTOCOL_VERSION = 1
MAX_LINE = 16 << 20  # one answer line; a longer one is out of step (read in linear time up to here)
MAX_DEPTH = 64  # arrays and objects in one answer (the deepest data of the corpus nests 10)
MAX_TEXT = 4000  # of an error message kept in a cell
MAX_ID = 64  # characters of a request id
MAX_DESCRIPTION = 200  # of an implementation's name, its engine, an error class
MAX_VERSION = 100
MAX_ROLES = 16
MAX_ROWS = 1 << 40
MAX_SAMPLE = 1 << 20  # a sample's JSON text (sample.py keeps it near SAMPLE_CHARS)
HASH = "^[0-9a-f]{64}$"
DESCRIPTION = {"minLength": 1, "maxLength": MAX_DESCRIPTION, "pattern": PRINTABLE}
ID = {"maxLength": MAX_ID}


class ProtocolError(ValueError):
    """A message that is not what the protocol allows at this point."""


class OutOfStep(ProtocolError):
    """A line that answers no request in flight (unsolicited, a duplicate, for another id, or no answer at all: not
    JSON, too long): the worker's stream can no longer be trusted, and the cell it was read for is not to blame."""


# -- requests (harness -> worker) --------------------------------------------------------------


@dataclass(frozen=True)
class StartRequest:
    id: str
    protocol: int = PROTOCOL_VERSION
    cmd: Literal["start"] = "start"


@dataclass(frozen=True)
class ReadRequest:
    """Read the whole file at `path` (absolute) the way a user of the library would. `case` is informational;
    `cmd` is the case's operation (`read` for Parquet), `keys` what it needs besides the file (a decryption's keys).
    `digest` (sent only to the harness's own Python worker): the worker may answer with the data's hash, row count
    and sample instead of the data (DigestAnswer), the sample only when the hash is none of `expect` (the hashes that
    count as the right data: no data diff will be drawn)."""

    id: str
    path: str
    case: str
    cmd: str = field(default="read", metadata={"required": True})
    digest: bool | None = None
    expect: list[str] | None = field(default=None, metadata={"schema": {"items": {"pattern": HASH}}})
    # the keys the case's operation needs (corpus/model.py Case.keys; docs/adapter-protocol.md#keys): only with them
    keys: dict[str, str] | None = field(default=None, metadata={"schema": KEYS})


@dataclass(frozen=True)
class WriteRequest:
    """Write the table of `source` (absolute; an Arrow IPC file, or the document the adapter asked for) to `path`
    (absolute; the worker creates it) with the named profile, through the library's public API. `table` is
    informational."""

    id: str
    source: str
    path: str
    profile: str
    table: str
    cmd: Literal["write"] = "write"


@dataclass(frozen=True)
class StopRequest:
    cmd: Literal["stop"] = "stop"


# -- answers (worker -> harness) ---------------------------------------------------------------


@dataclass(frozen=True)
class StartReply:
    """The worker's self-description, checked at start: a bad one makes the adapter unavailable, with the reason."""

    id: str = field(metadata={"schema": ID})
    adapter: str = field(metadata={"schema": DESCRIPTION})
    implementation: str = field(metadata={"schema": DESCRIPTION})
    version: str = field(metadata={"schema": {"maxLength": MAX_VERSION, "pattern": PRINTABLE}})
    roles: list[str] = field(metadata={"schema": {"items": ROLE, "maxItems": MAX_ROLES, "uniqueItems": True}})
    ok: Literal[True] = True
    engine: str | None = field(default=None, metadata={"schema": DESCRIPTION})


@dataclass(frozen=True)
class UnavailableReply:
    id: str = field(metadata={"schema": ID})
    unavailable: str  # why (kept to its first MAX_TEXT characters)
    ok: Literal[False] = False


@dataclass(frozen=True)
class ErrorInfo:
    message: str  # kept to its first MAX_TEXT characters
    cls: str | None = field(default=None, metadata={"json": "class", "schema": {"maxLength": 1000}})


@dataclass(frozen=True)
class DataAnswer:
    """`read`: the data, in the fields the track defines (Parquet: `columns` and `rows`)."""

    id: str = field(metadata={"schema": ID})
    outcome: Literal["read"]
    # which metadata an aware reader used
    metadata: str | None = field(default=None, metadata={"schema": {"maxLength": 40, "pattern": PRINTABLE}})
    library_s: float | None = None  # seconds the library's own call took (the rest of a cell is ours)


@dataclass(frozen=True)
class DigestAnswer:
    """`read`, answered to a request that asked for a digest: the canonical data's hash (generators/canonical.py
    data_hash, of the data the track's normalize would make), its row count, and its bounded sample
    (conformance/harness/sample.py) unless the hash was one the request expected."""

    id: str = field(metadata={"schema": ID})
    outcome: Literal["read"]
    data_hash: str = field(metadata={"schema": {"pattern": HASH}})
    row_count: int = field(metadata={"schema": {"minimum": 0, "maximum": MAX_ROWS}})
    sample: str | None = field(default=None, metadata={"schema": {"maxLength": MAX_SAMPLE}})
    metadata: str | None = field(default=None, metadata={"schema": {"maxLength": 40, "pattern": PRINTABLE}})
    library_s: float | None = None


@dataclass(frozen=True)
class WrittenAnswer:
    """`write`: the file is at the request's path. `writer`: the library and version that wrote it, when they are
    not the ones the worker announced (hyparquet's worker writes with hyparquet-writer)."""

    id: str = field(metadata={"schema": ID})
    outcome: Literal["written"]
    writer: str | None = field(default=None, metadata={"schema": {"maxLength": 200, "pattern": PRINTABLE}})
    library_s: float | None = None


@dataclass(frozen=True)
class ErrorAnswer:
    """`rejected`: the library refused the file (an error it raises on purpose); `unhandled-error`: it raised anything
    else (docs/adapters.md#error-taxonomy); `crash` / `oom`: it ran out of stack or memory and the worker survived;
    `harness-error`: the worker's own code (not the library) failed, e.g. converting the library's result;
    `unavailable`: the adapter has no way to do the case's operation (its library has no such API), which says
    nothing of the library (a skip), with the reason as the message."""

    id: str = field(metadata={"schema": ID})
    outcome: Literal["rejected", "unhandled-error", "crash", "oom", "harness-error", "unavailable"]
    error: ErrorInfo
    library_s: float | None = None  # seconds the library's own call took, when it returned or raised


def to_json(message: object) -> dict[str, Any]:
    """A message's JSON object, its None fields left out (shallow: every message is flat but ErrorAnswer's error;
    a request is made per cell, so no deep copy)."""
    out = {f.name: getattr(message, f.name) for f in fields(message)}  # type: ignore[arg-type]
    if isinstance(message, ErrorAnswer):
        out["error"] = {"class": message.error.cls, "message": message.error.message}
    return {k: v for k, v in out.items() if v is not None}


# -- sanitising --------------------------------------------------------------------------------

# Characters XML 1.0 cannot hold (C0 controls but tab/newline/CR, lone surrogates, U+FFFE/FFFF), and NUL.
_BAD_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def clean(text: str, limit: int | None = None) -> str:
    """`text` safe for UTF-8 storage, XML and terminals; when anything was replaced, the sha256 of the raw
    text (UTF-8 with surrogates passed through) is appended so that the original stays identifiable."""
    cut = text if limit is None else chains.cut(text, limit)  # a chained error keeps its root cause
    if not _BAD_CHARS.search(cut):
        return cut
    raw = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return _BAD_CHARS.sub("\ufffd", cut) + f" [sanitised; sha256 of the raw text {raw}]"


def one_line(text: str, limit: int = 300) -> str:
    """A reason fit for one line of a table: whitespace folded, cut at `limit`, sanitised."""
    return clean(" ".join(text.split()), limit)


def decode_line(line: bytes) -> tuple[str, str | None]:
    """A line from a worker as text, and the sha256 of the raw line if it was not UTF-8 (its invalid bytes
    become U+FFFD: an error answer is still usable, data is not; see `parse_answer`)."""
    try:
        return line.decode("utf-8"), None
    except UnicodeDecodeError:
        return line.decode("utf-8", "replace"), hashlib.sha256(line).hexdigest()


# -- parsing -----------------------------------------------------------------------------------


def parse_line(line: bytes) -> tuple[object, str | None]:
    """A worker's line as JSON, and the sha256 of the raw line if it was not UTF-8 (see decode_line). A line that is
    no JSON at all cannot be the answer to anything: OutOfStep."""
    text, raw_sha = decode_line(line)
    try:
        # Depth is checked once the id says whose answer this is (`_answer_to`); JSON's own recursion stops far below.
        return documents.parse(text, MAX_LINE, max_depth=None), raw_sha
    except DocumentError as e:
        raise OutOfStep(f"a line that is {e}: {clean(text, 120)!r}") from None


def _answer_to(obj: object, want_id: str) -> dict[str, Any]:
    """The answer to request `want_id`: OutOfStep for a line that is another's or none; ProtocolError for one too
    deep to be an answer."""
    if not isinstance(obj, dict):
        raise OutOfStep(f"expected a JSON object answering request {want_id}, got {_show(obj)}")
    if obj.get("id") != want_id:
        raise OutOfStep(f"expected the answer to request {want_id}, got one for id {_show(obj.get('id'))}")
    if documents.depth(obj, MAX_DEPTH) > MAX_DEPTH:
        raise ProtocolError(f"the answer nests arrays and objects deeper than {MAX_DEPTH}")
    return obj


def _check(obj: dict[str, Any], record: type, what: str) -> None:
    try:
        documents.validate(obj, documents.record_schema(record), what)
    except DocumentError as e:
        raise ProtocolError(str(e)) from None


START_REFUSED = "start answer"  # how every ProtocolError of parse_start begins (refused_start)


def refused_start(reason: str) -> bool:
    """Whether an unavailable adapter's reason is a start answer we refused (a role outside the alphabet, one listed
    twice, ...), as the worker words it (workers.py): the run, summary.md and `check` say so."""
    return reason.startswith(f"worker did not start: {START_REFUSED}")


def parse_start(obj: object, want_id: str) -> StartReply | UnavailableReply:
    """The start answer; ProtocolError (the adapter is unavailable, with the reason) for any other line or for a
    self-description outside the protocol's limits (a role refused is named, with the rule it breaks)."""
    obj = _answer_to(obj, want_id)
    if obj.get("ok") is False:
        return UnavailableReply(want_id, clean(str(obj.get("unavailable") or "worker refused to start"), MAX_TEXT))
    if obj.get("ok") is not True:
        raise ProtocolError(f"{START_REFUSED}: 'ok' must be true or false")
    roles = obj.get("roles")
    if isinstance(roles, list) and len(roles) <= MAX_ROLES:  # more: the schema's limit says so
        if twice := next((r for i, r in enumerate(roles) if r in roles[:i]), None):
            raise ProtocolError(f"{START_REFUSED}: role {_show(twice)} refused: it is listed twice")
        for role in roles:
            if isinstance(role, str) and (not ROLE_RE.fullmatch(role) or len(role) > MAX_NAME):
                raise ProtocolError(f"{START_REFUSED}: role {_show(role)} refused: a role is [a-z][a-z0-9-]* with an "
                                    f"optional :profile of [A-Za-z0-9][A-Za-z0-9._-]*, at most {MAX_NAME} characters "
                                    "(docs/adapter-protocol.md#limits)")
    _check(obj, StartReply, START_REFUSED)
    engine = obj.get("engine")
    return StartReply(id=want_id, adapter=obj["adapter"], implementation=obj["implementation"],
                      version=obj["version"], roles=list(obj["roles"]), engine=engine)


def parse_answer(obj: object, want_id: str, normalize: Callable[[Mapping[str, Any]], object],
                 raw_sha: str | None = None, digest: bool = False, expect: frozenset[str] = frozenset()) -> Outcome:
    """The outcome a `read` answer reports. `normalize` is the track's: the answer's data in canonical form
    (ValueError, or any other exception, if the answer holds no such data: a protocol error, never the run's).
    `raw_sha`: the line was not UTF-8 (see decode_line). `digest`: the request asked for a digest (only then may the
    answer be a DigestAnswer); `expect`: the hashes that count as the right data (a read of one keeps no sample)."""
    obj = _answer_to(obj, want_id)
    kind = obj.get("outcome")
    repaired = f" [invalid UTF-8 replaced; sha256 of the raw line {raw_sha}]" if raw_sha else ""
    if kind == "read" and "data_hash" in obj:
        if not digest:
            raise ProtocolError("a digest answer to a request that asked for the data")
        _check(obj, DigestAnswer, "read answer")
        sample = obj.get("sample")
        if sample is not None:
            try:
                check_sample(sample)
            except ValueError as e:
                raise ProtocolError(f"malformed sample in the answer: {clean(str(e), 300)}") from None
        metadata = obj.get("metadata")
        return Read(obj["data_hash"], obj["row_count"], clean(metadata) if metadata else None, sample)
    if kind == "read":
        _check(obj, DataAnswer, "read answer")
        if raw_sha:
            raise ProtocolError(f"data in an answer that is not UTF-8{repaired}")
        try:
            canonical = normalize(obj)
            rows = canonical.get("rows") if isinstance(canonical, dict) else None
            found = data_hash(canonical)
            sample = None if found in expect else sample_of(canonical)
        except Exception as e:  # the track's check of data from outside: whatever it raises, the cell is ours
            detail = str(e) if isinstance(e, ValueError) else f"{type(e).__name__}: {e}"
            raise ProtocolError(f"malformed data in the answer: {clean(detail, 300)}") from None
        metadata = obj.get("metadata")
        return Read(found, len(rows) if isinstance(rows, list) else 0, clean(metadata) if metadata else None, sample)
    if kind in ("rejected", "unhandled-error", "crash", "oom", "harness-error", "unavailable"):
        _check(obj, ErrorAnswer, f"{kind} answer")
        err = obj["error"]
        if kind == "unavailable":
            return Unavailable(clean(err["message"], MAX_TEXT))
        error = Error(clean(err["class"], 300) if err.get("class") is not None else None,
                      clean(err["message"], MAX_TEXT) + repaired)
        variants: dict[str, type[Rejected | Unhandled | Crash | OutOfMemory | HarnessError]] = {
            "rejected": Rejected, "unhandled-error": Unhandled, "crash": Crash, "oom": OutOfMemory,
            "harness-error": HarnessError}
        return variants[kind](error)
    raise ProtocolError(f"unknown outcome {_show(kind)} in the answer")


def parse_write_answer(obj: object, want_id: str, raw_sha: str | None = None) -> Wrote | Outcome:
    """What a `write` answer reports: the file written, or the writer's failure (the error outcomes of `read`)."""
    answer = _answer_to(obj, want_id)
    if answer.get("outcome") == "written":
        _check(answer, WrittenAnswer, "written answer")
        writer = answer.get("writer")
        return Wrote(clean(writer, 200) if isinstance(writer, str) else None)
    if answer.get("outcome") == "read":
        raise ProtocolError(f"a `read` answer to write request {want_id}")
    return parse_answer(answer, want_id, _no_data, raw_sha)


def _no_data(answer: Mapping[str, Any]) -> object:
    raise ValueError("data in the answer to a write")


def library_seconds(obj: object) -> float | None:
    """The answer's `library_s`, when it is a plausible number of seconds (it only ever feeds benchmarks)."""
    value = obj.get("library_s") if isinstance(obj, dict) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 1e6:
        return float(value)
    return None


def _show(value: object) -> str:
    return clean(repr(value), 120)
