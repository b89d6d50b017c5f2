"""`python -m parquet_conformance.conformance.harness.worker ADAPTER [RELEASE]`: serve one Python adapter (a release
of it, for an adapter whose library lives outside this Python) over the JSON-lines protocol
(docs/adapter-protocol.md).

The protocol stream is a private copy of the original stdout; fd 1 itself is pointed at stderr,
so whatever the library under test prints (from Python, C++ or Rust) cannot corrupt it. The
library's call (`adapter.read`) and our conversion of its result (`adapter.canonical`) are kept
apart: an exception in the first is the library's outcome, sorted by the adapter's declared refusals
(conformance/adapters/taxonomy.py: `rejected`, `unhandled-error`, `oom` or `crash`), in the second (out of memory
included) a `harness-error`, as is an `AdapterError` (the adapter's own code failed around the library's call: a
side query, a schema probe, a conversion of ours inside `read`; adapters.ours) and an answer we cannot write.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from parquet_conformance.conformance.adapters import AdapterError, AdapterUnavailable, PythonAdapter, get
from parquet_conformance.conformance.adapters.taxonomy import message
from parquet_conformance.conformance.adapters.writing import PythonWriter
from parquet_conformance.conformance.harness import protocol
from parquet_conformance.conformance.harness.chains import chain_text, cut
from parquet_conformance.conformance.harness.sample import sample_of, sample_of_texts
from parquet_conformance.generators.canonical import (
    ArrowData,
    Canonical,
    Normal,
    data_hash,
    normalize,
    texts_hash,
)


def read_one(adapter: PythonAdapter, path: str, op: str = "read", digest: bool = False,
             expect: frozenset[str] = frozenset(), keys: dict[str, str] | None = None) -> dict[str, Any]:
    if op != "read" and op not in adapter.operations:
        # its library has no API for the operation here: nothing is said of the library (a skip, never a guess)
        return {"outcome": "unavailable", "error": {"class": None,
                                                    "message": f"adapter {adapter.name!r} has no operation {op!r}"}}
    if op != "read":
        try:  # our side query: its failure is ours
            offered = adapter.offers(op, path)
        except Exception as e:
            return {"outcome": "harness-error", "error": _error(e)}
        if not offered:  # this release lacks the API: a skip, as above
            return {"outcome": "unavailable", "error": {"class": None, "message": (
                f"{adapter.name} {adapter.version()}: its library has no API for operation {op!r} in this release")}}
    try:
        call = adapter.operation(op, path, keys)
    except AdapterError as e:  # an operation without the keys it needs, or keys it takes none of: ours
        return {"outcome": "harness-error", "error": _error(e)}
    if keys:
        try:  # our side query, as above
            taken = adapter.takes(op, keys)
        except Exception as e:
            return {"outcome": "harness-error", "error": _error(e)}
        if not taken:  # its library's API cannot be given these keys: a skip, as above
            return {"outcome": "unavailable", "error": {"class": None, "message": (
                f"{adapter.name}: its library's API for operation {op!r} cannot be given these keys "
                f"({', '.join(sorted(keys))}: docs/adapter-protocol.md#keys)")}}
    t0 = time.perf_counter()
    try:
        result = call()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:
        return library_error(adapter, e, time.perf_counter() - t0)
    library_s = time.perf_counter() - t0
    try:
        data = adapter.canonical(result)
        if digest and isinstance(data, (Canonical, ArrowData)):
            return digested(data, expect, library_s)
        return {"outcome": "read", **data, "library_s": library_s}  # ArrowData makes its rows here
    except Exception as e:  # our conversion of a result the library did return (or data the harness would refuse),
        # out of memory included: the library returned, so nothing is said about it
        return {"outcome": "harness-error", "error": _error(e)}


def digested(data: Canonical | ArrowData, expect: frozenset[str], library_s: float) -> dict[str, Any]:
    """The answer that carries the data's hash, row count and (unless the hash is expected) sample, made here, where
    the data is, from what the harness would make of the data: Arrow data straight from its values as JSON text
    (canonical.column_texts), other table data after the Parquet track's normalize (canonical.normalize, which
    canonical.Normal data needs not); data it finds malformed is a harness error either way (read_one)."""
    if isinstance(data, ArrowData):
        columns, texts = data["columns"], data.texts()
        data_digest, rows = texts_hash(columns, texts), len(texts[0]) if texts else 0
        sample = None if data_digest in expect else sample_of_texts(columns, texts)
    else:
        table = {"columns": data["columns"], "rows": data["rows"]}
        if not isinstance(data, Normal):
            table = normalize(table)
        data_digest, rows = data_hash(table), len(table["rows"])
        sample = None if data_digest in expect else sample_of(table)
    metadata = data.get("metadata")
    return {"outcome": "read", "data_hash": data_digest, "row_count": rows,
            **({"sample": sample} if sample is not None else {}), **({"metadata": metadata} if metadata else {}),
            "library_s": library_s}


def write_one(adapter: PythonAdapter, req: dict[str, Any]) -> dict[str, Any]:
    """A `write` request: the library's call, its errors sorted as a read's are (the adapter's refusals); a call that
    returns without a file at the path is our adapter's mistake (a harness error)."""
    if not isinstance(adapter, PythonWriter):
        return {"outcome": "harness-error", "error": {"class": "protocol-error",
                                                      "message": f"adapter {adapter.name!r} does not write"}}
    t0 = time.perf_counter()
    try:
        writer = adapter.write(req["source"], req["path"], req["profile"])
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:
        return library_error(adapter, e, time.perf_counter() - t0)
    library_s = time.perf_counter() - t0
    if not os.path.isfile(req["path"]):
        return {"outcome": "harness-error", "error": {"class": "no-file", "message": f"no file at {req['path']}"}}
    return {"outcome": "written", **({"writer": writer} if writer else {}), "library_s": library_s}


def library_error(adapter: PythonAdapter, e: BaseException, library_s: float) -> dict[str, Any]:
    """What the library's call raised, sorted by the adapter's refusals (conformance/adapters/taxonomy.py); an
    AdapterError, or our rule failing on the error, is ours."""
    if isinstance(e, AdapterError):
        return {"outcome": "harness-error", "error": _error(e)}
    try:
        outcome = adapter.outcome(e)
    except Exception as inner:  # our rule failed on this error: nothing is said about the library
        return {"outcome": "harness-error", "error": _error(inner)}
    return {"outcome": outcome, "error": _error(e), "library_s": library_s}


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _error(e: BaseException) -> dict[str, str]:
    causes: list[tuple[str, str]] = []
    seen, at = {id(e)}, e
    while len(causes) < 8:  # the chain Python would print: __cause__, or an unsuppressed __context__
        nxt = at.__cause__ or (None if at.__suppress_context__ else at.__context__)
        if nxt is None or id(nxt) in seen:
            break
        seen.add(id(nxt))
        causes.append((_name(type(nxt)), message(nxt)))
        at = nxt
    return {"class": _name(type(e)), "message": cut(chain_text(message(e), causes), protocol.MAX_TEXT)}


def serve(name: str, release: str | None = None) -> None:
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    adapter = get(name)
    if not isinstance(adapter, PythonAdapter):
        raise SystemExit(f"{name} is not a Python adapter")
    if release is not None:
        adapter.release = release

    def send(msg: dict[str, Any]) -> None:
        try:
            line = json.dumps(msg, ensure_ascii=True)
        except (ValueError, TypeError, RecursionError, MemoryError) as e:  # our answer, not the library's outcome
            line = json.dumps({"id": msg.get("id"), "outcome": "harness-error", "error": _error(e)})
        proto.write(line + "\n")
        proto.flush()

    for line in sys.stdin:
        req = json.loads(line)
        cmd = req.get("cmd")
        if cmd == "start":
            try:
                adapter.prepare()
                info = adapter.describe()
                send(protocol.to_json(protocol.StartReply(
                    id=req["id"], adapter=info["adapter"], implementation=info["implementation"],
                    version=adapter.version(), roles=info["roles"], engine=info["engine"])))
            except AdapterUnavailable as e:
                send(protocol.to_json(protocol.UnavailableReply(req["id"], protocol.one_line(str(e)))))
            except Exception as e:  # the library would not even load: it is unavailable here, say why in one line
                last = str(e).strip().splitlines()[-1:] or [""]
                reason = f"{type(e).__name__} while starting: {last[0]}"
                send(protocol.to_json(protocol.UnavailableReply(req["id"], protocol.one_line(reason))))
        elif cmd == "stop":  # everything is answered: the end skips the interpreter's teardown (a tenth of a
            # second of freeing the library's modules, in every worker); the box removes whatever it started
            proto.flush()
            sys.stderr.flush()
            os._exit(0)
        elif cmd == "write":
            send({"id": req["id"], **write_one(adapter, req)})
        else:  # `read`, or the operation a track defines
            send({"id": req["id"], **read_one(adapter, req["path"], str(cmd), req.get("digest") is True,
                                              frozenset(req.get("expect") or ()), req.get("keys"))})


if __name__ == "__main__":
    serve(sys.argv[1], *sys.argv[2:3])
