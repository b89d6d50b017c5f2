"""The adapter protocol (docs/adapter-protocol.md) as typed messages, after Bowtie's `_commands.py`:
one dataclass per message, the JSON Schema in conformance/harness/schemas/protocol.schema.json derived from
them (conformance/harness/derived.py), and one parser per direction that turns any other JSON into a
ProtocolError naming what is wrong.

Every string that crosses the boundary is sanitised here (`clean`): lone surrogates, NUL and
other characters XML cannot carry become U+FFFD, and the sha256 of the raw text is kept in the
message, so that no answer can break storage or a report after the fact.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
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
)
from parquet_conformance.conformance.harness.sample import sample_of
from parquet_conformance.generators.canonical import data_hash

PROTOCOL_VERSION = 1
MAX_LINE = 16 << 20  # one answer line; a longer one is a protocol error (read in linear time up to here)
MAX_TEXT = 4000  # of an error message kept in a cell


class ProtocolError(ValueError):
    """A message that is not what the protocol allows at this point."""


# -- requests (harness -> worker) --------------------------------------------------------------


@dataclass(frozen=True)
class StartRequest:
    id: str
    protocol: int = PROTOCOL_VERSION
    cmd: Literal["start"] = "start"


@dataclass(frozen=True)
class ReadRequest:
    """Read the whole file at `path` (absolute) the way a user of the library would. `case` is informational;
    `cmd` is the case's operation (`read` for Parquet)."""

    id: str
    path: str
    case: str
    cmd: str = field(default="read", metadata={"required": True})


@dataclass(frozen=True)
class StopRequest:
    cmd: Literal["stop"] = "stop"


# -- answers (worker -> harness) ---------------------------------------------------------------


@dataclass(frozen=True)
class StartReply:
    id: str
    adapter: str
    implementation: str
    version: str
    roles: list[str]
    ok: Literal[True] = True
    engine: str | None = None


@dataclass(frozen=True)
class UnavailableReply:
    id: str
    unavailable: str
    ok: Literal[False] = False


@dataclass(frozen=True)
class ErrorInfo:
    message: str
    cls: str | None = field(default=None, metadata={"json": "class"})


@dataclass(frozen=True)
class DataAnswer:
    """`read`: the data, in the fields the track defines (Parquet: `columns` and `rows`)."""

    id: str
    outcome: Literal["read"]
    metadata: str | None = None  # which metadata an aware reader used
    library_s: float | None = None  # seconds the library's own call took (the rest of a cell is ours)


@dataclass(frozen=True)
class ErrorAnswer:
    """`rejected`: the library refused the file; `crash` / `oom`: it lost control and the worker survived;
    `harness-error`: the worker's own code (not the library) failed, e.g. converting the library's result."""

    id: str
    outcome: Literal["rejected", "crash", "oom", "harness-error"]
    error: ErrorInfo
    library_s: float | None = None  # seconds the library's own call took, when it returned or raised


def to_json(message: object) -> dict[str, Any]:
    out = asdict(message)  # type: ignore[call-overload]
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


def _require(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    value = obj.get(key)
    if not isinstance(value, kind):
        raise ProtocolError(f"{what}: {key!r} missing or not a {getattr(kind, '__name__', kind)}")
    return value


def parse_start(obj: object, want_id: str) -> StartReply | UnavailableReply:
    if not isinstance(obj, dict) or obj.get("id") != want_id:
        raise ProtocolError(f"expected the answer to start request {want_id}, got {_show(obj)}")
    if obj.get("ok") is False:
        return UnavailableReply(want_id, clean(str(obj.get("unavailable") or "worker refused to start"), MAX_TEXT))
    if obj.get("ok") is not True:
        raise ProtocolError("start answer: 'ok' must be true or false")
    roles = _require(obj, "roles", list, "start answer")
    if not all(isinstance(r, str) for r in roles):
        raise ProtocolError("start answer: 'roles' must be a list of strings")
    return StartReply(
        id=want_id, adapter=clean(_require(obj, "adapter", str, "start answer")),
        implementation=clean(_require(obj, "implementation", str, "start answer")),
        version=clean(str(_require(obj, "version", (str, int, float), "start answer"))),
        roles=[clean(r) for r in roles], engine=clean(obj["engine"]) if isinstance(obj.get("engine"), str) else None)


def parse_answer(obj: object, want_id: str, normalize: Callable[[Mapping[str, Any]], object],
                 raw_sha: str | None = None) -> Outcome:
    """The outcome a `read` answer reports. `normalize` is the track's: the answer's data in canonical form
    (ValueError if the answer holds no such data). `raw_sha`: the line was not UTF-8 (see decode_line)."""
    if not isinstance(obj, dict):
        raise ProtocolError(f"expected a JSON object answering request {want_id}, got {_show(obj)}")
    if obj.get("id") != want_id:
        raise ProtocolError(f"expected the answer to request {want_id}, got one for id {_show(obj.get('id'))}")
    kind = obj.get("outcome")
    repaired = f" [invalid UTF-8 replaced; sha256 of the raw line {raw_sha}]" if raw_sha else ""
    if kind == "read":
        if raw_sha:
            raise ProtocolError(f"data in an answer that is not UTF-8{repaired}")
        try:
            canonical = normalize(obj)
        except ValueError as e:
            raise ProtocolError(f"malformed data in the answer: {clean(str(e), 300)}") from None
        rows = canonical.get("rows") if isinstance(canonical, dict) else None
        metadata = obj.get("metadata")
        return Read(data_hash(canonical), len(rows) if isinstance(rows, list) else 0,
                    clean(metadata, 40) if isinstance(metadata, str) else None, sample_of(canonical))
    if kind in ("rejected", "crash", "oom", "harness-error"):
        err = obj.get("error")
        if not isinstance(err, dict):
            err = {}
        error = Error(clean(str(err["class"]), 300) if err.get("class") is not None else None,
                      clean(str(err.get("message") or ""), MAX_TEXT) + repaired)
        variants: dict[str, type[Rejected | Crash | OutOfMemory | HarnessError]] = {
            "rejected": Rejected, "crash": Crash, "oom": OutOfMemory, "harness-error": HarnessError}
        return variants[kind](error)
    raise ProtocolError(f"unknown outcome {_show(kind)} in the answer")


def library_seconds(obj: object) -> float | None:
    """The answer's `library_s`, when it is a plausible number of seconds (it only ever feeds benchmarks)."""
    value = obj.get("library_s") if isinstance(obj, dict) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 1e6:
        return float(value)
    return None


def _show(value: object) -> str:
    return clean(repr(value), 120)
