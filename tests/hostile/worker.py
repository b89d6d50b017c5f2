"""A misbehaving worker: it speaks the adapter protocol, then does what argv[1] says when asked to read a
file whose name contains "bad", or every file with `--all-bad` (good files read as two rows). argv[2:] may
hold a token that tests use to find every process it left behind (children inherit their command line).

Modes: segfault, abort, hang, alloc, garbage, bad-rows, refuse, big-line, surrogate, nul, bad-utf8, early,
child-holds-stdout, surviving-child, child-then-hang, exit-at-start, exit-after-read, stateful, none (reads everything).
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import time

MODE = sys.argv[1]
GOOD = {"outcome": "read", "columns": ["x"], "rows": [[{"int": "1"}], [None]]}
reads = 0


def out(text: str | bytes) -> None:
    data = text.encode() if isinstance(text, str) else text
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.buffer.flush()


def sleeper() -> None:
    """A child that ignores SIGTERM and keeps whatever it inherited open."""
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(3600)
        os._exit(0)


def bad(req: dict) -> dict | None:
    """The answer to a bad file, or None when this mode answers (or dies) by itself."""
    rid = req["id"]
    if MODE == "segfault":
        ctypes.string_at(0)  # a real SIGSEGV, as a C library would raise it
    if MODE == "abort":
        print("thread 'main' panicked at src/footer.rs:42:9:\nfooter length overflows", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGABRT)
    if MODE == "hang":
        time.sleep(3600)
    if MODE == "alloc":
        hoard = []
        while True:
            hoard.append(bytearray(64 << 20))
    if MODE == "garbage":
        out("not json at all")
        return None
    if MODE == "bad-rows":
        return {"id": rid, "outcome": "read", "columns": ["x"], "rows": [[{"weird": 1}]]}
    if MODE == "big-line":  # 200 MB on one line, no newline until the end
        chunk = b"x" * (1 << 20)
        for _ in range(200):
            sys.stdout.buffer.write(chunk)
        out("")
        return None
    if MODE == "surrogate":
        out('{"id": ' + json.dumps(rid) + ', "outcome": "rejected", "error": {"class": "E\\ud800", '
            '"message": "lone \\ud800 surrogate"}}')
        return None
    if MODE == "nul":
        return {"id": rid, "outcome": "rejected", "error": {"class": "E", "message": "nul \x00 and \x07 bell"}}
    if MODE == "bad-utf8":
        out(b'{"id": ' + json.dumps(rid).encode() + b', "outcome": "rejected", "error": {"class": "E", '
            b'"message": "invalid \xff\xfe utf-8"}}')
        return None
    if MODE == "early":  # an answer for the next request, before this one's
        out(json.dumps({"id": str(int(rid) + 1), **GOOD}))
        return {"id": rid, **GOOD}
    if MODE == "child-holds-stdout":
        sleeper()
        os._exit(3)
    if MODE == "surviving-child":
        sleeper()
        return {"id": rid, "outcome": "rejected", "error": {"class": "E", "message": "rejected, with a child"}}
    if MODE == "child-then-hang":  # keeps the run busy while a child of the worker is alive
        sleeper()
        time.sleep(3600)
    if MODE == "exit-after-read":
        os._exit(0)
    if MODE == "stateful":  # a library that carries state: other data once it has read something before
        if reads > 1:
            return {"id": rid, "outcome": "read", "columns": ["x"], "rows": [[{"int": "2"}]]}
        return {"id": rid, "outcome": "rejected", "error": {"class": "E", "message": "refused when fresh"}}
    return {"id": rid, **GOOD}


for line in sys.stdin:
    req = json.loads(line)
    if req["cmd"] == "start":
        if MODE == "exit-at-start":
            os._exit(1)
        if MODE == "refuse":
            out(json.dumps({"id": req["id"], "ok": False, "unavailable": "libfoo is not installed"}))
            continue
        out(json.dumps({"id": req["id"], "ok": True, "adapter": "fake", "implementation": "fake", "version": "0",
                        "roles": ["legacy"]}))
    elif req["cmd"] == "read":
        reads += 1
        answer = bad(req) if "bad" in req["path"] or "--all-bad" in sys.argv else {"id": req["id"], **GOOD}
        if answer is not None:
            out(json.dumps(answer))
    else:
        break
