"""A misbehaving worker for the runner's isolation tests: speaks the adapter protocol, then
does what argv[1] says when asked to read a file whose name contains "bad"."""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import time

MODE = sys.argv[1]


def answer(req: dict) -> dict:
    if "bad" not in req["path"]:
        return {"id": req["id"], "outcome": "read", "columns": ["x"], "rows": [[{"int": "1"}], [None]]}
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
        print("not json at all")
        print(json.dumps({"id": "999", "outcome": "read", "columns": [], "rows": []}))
        print(json.dumps([1, 2, 3]))
        print("{\"id\": " + json.dumps(req["id"]) + ", \"outcome\": \"rejec", flush=True)  # a broken line
        print(flush=True)
        return {"id": req["id"], "outcome": "rejected", "error": {"class": "Bad", "message": "no"}}
    if MODE == "bad-rows":
        return {"id": req["id"], "outcome": "read", "columns": ["x"], "rows": [[{"weird": 1}]]}
    raise SystemExit(f"unknown mode {MODE}")


for line in sys.stdin:
    req = json.loads(line)
    if req["cmd"] == "start":
        if MODE == "refuse":
            print(json.dumps({"id": req["id"], "ok": False, "unavailable": "libfoo is not installed"}), flush=True)
            continue
        print(json.dumps({"id": req["id"], "ok": True, "adapter": "fake", "implementation": "fake",
                          "version": "0", "roles": ["legacy"]}), flush=True)
    elif req["cmd"] == "read":
        print(json.dumps(answer(req)), flush=True)
    else:
        break
