"""`python -m conformance.worker ADAPTER`: serve one Python adapter over the JSON-lines protocol.

The protocol stream is a private copy of the original stdout; fd 1 itself is pointed at
stderr, so whatever the library under test prints (from Python, C++ or Rust) cannot corrupt
it. See docs/adapter-protocol.md.
"""

from __future__ import annotations

import json
import os
import sys

from conformance.adapters import PythonAdapter, Unavailable, get


def read_one(adapter: PythonAdapter, path: str) -> dict:
    try:
        rows = adapter.read(path)
    except MemoryError as e:
        return {"outcome": "oom", "error": _error(e)}
    except RecursionError as e:
        return {"outcome": "crash", "error": _error(e)}
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:
        outcome = "crash" if type(e).__name__ == "PanicException" else "rejected"
        return {"outcome": outcome, "error": _error(e)}
    return {"outcome": "read", **rows}


def _error(e: BaseException) -> dict:
    cls = type(e)
    return {"class": f"{cls.__module__}.{cls.__qualname__}", "message": str(e)[:4000]}


def serve(name: str) -> None:
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    adapter = get(name)

    def send(msg: dict) -> None:
        proto.write(json.dumps(msg, ensure_ascii=True) + "\n")
        proto.flush()

    for line in sys.stdin:
        req = json.loads(line)
        cmd = req.get("cmd")
        if cmd == "start":
            try:
                adapter.prepare()
                send({"id": req["id"], "ok": True, **adapter.describe(), "version": adapter.version()})
            except Unavailable as e:
                send({"id": req["id"], "ok": False, "unavailable": str(e)})
        elif cmd == "read":
            send({"id": req["id"], **read_one(adapter, req["path"])})
        elif cmd == "stop":
            return


if __name__ == "__main__":
    serve(sys.argv[1])
