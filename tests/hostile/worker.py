"""A misbehaving worker: it speaks the adapter protocol, then does what argv[1] says when asked to read a
file whose name contains "bad" (or the text of `--bad=TEXT`), or every file with `--all-bad` (good files read
as two rows). argv[2:] may hold a token that tests use to find every process it left behind (children inherit
their command line), and options: `--real` reads good files with pyarrow (a refusal is `rejected`), so that the
worker is a reader whose verdicts mean something; `--version=V` and `--engine=E` go in its start answer.

Modes: segfault, abort, hang, alloc, garbage, bad-rows, refuse, big-line, surrogate, nul, bad-utf8, early,
child-holds-stdout, surviving-child, child-then-hang, exit-at-start, exit-after-read, stateful, wrong-value (the
real data with one value changed), chained (a refusal as Spark gives it through py4j: a Java chain of causes some 300
frames long, its object id new at every read), none (reads everything).
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
OPTIONS = dict(a[2:].partition("=")[::2] for a in sys.argv[2:] if a.startswith("--"))
reads = 0


def good(path: str) -> dict:
    """The answer to a good file: two rows, or with --real what pyarrow reads (or its refusal)."""
    if "real" not in OPTIONS:
        return dict(GOOD)
    import pyarrow.parquet as pq

    from parquet_conformance.generators.canonical import canonical_table

    try:
        return {"outcome": "read", **canonical_table(pq.read_table(path))}
    except Exception as e:  # any refusal of the library is the reader's answer
        return {"outcome": "rejected", "error": {"class": type(e).__name__, "message": str(e)}}


def wrong_value(answer: dict) -> dict:
    """The same data with the first column of the third row changed, as a reader with a decoding bug gives it."""
    rows = answer.get("rows")
    if answer.get("outcome") == "read" and rows and len(rows) > 2:
        rows[2] = [{"int": "-999"}, *rows[2][1:]]
    return answer


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
    if MODE == "wrong-value":
        return {"id": rid, **wrong_value(good(req["path"]))}
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
    if MODE == "chained":
        frames = "".join(f"\tat org.apache.spark.rdd.RDD.iterator(RDD.scala:{n})\n" for n in range(300))
        message = (f"An error occurred while calling o{800 + 7 * reads}.parquet.\n: org.apache.spark.SparkException: "
                   f"Job aborted due to stage failure\n{frames}Caused by: org.apache.spark.SparkException: "
                   f"[FAILED_READ_FILE.NO_HINT] Encountered error while reading file {req['path']}.\n\tat a.B(B.java:1)"
                   "\nCaused by: java.io.IOException: can not read class org.apache.parquet.format.FileMetaData: "
                   "Required field 'codec' was not found\n\tat c.D(D.java:2)\n")
        return {"id": rid, "outcome": "rejected", "error": {"class": "py4j.protocol.Py4JJavaError", "message": message}}
    if MODE == "exit-after-read":
        os._exit(0)
    if MODE == "stateful":  # a library that carries state: other data once it has read something before
        if reads > 1:
            return {"id": rid, "outcome": "read", "columns": ["x"], "rows": [[{"int": "2"}]]}
        return {"id": rid, "outcome": "rejected", "error": {"class": "E", "message": "refused when fresh"}}
    return {"id": rid, **good(req["path"])}


for line in sys.stdin:
    req = json.loads(line)
    if req["cmd"] == "start":
        if MODE == "exit-at-start":
            os._exit(1)
        if MODE == "refuse":
            out(json.dumps({"id": req["id"], "ok": False, "unavailable": "libfoo is not installed"}))
            continue
        out(json.dumps({"id": req["id"], "ok": True, "adapter": "fake", "implementation": "fake",
                        "version": OPTIONS.get("version", "0"), "roles": ["legacy"]}
                       | ({"engine": OPTIONS["engine"]} if "engine" in OPTIONS else {})))
    elif req["cmd"] == "read":
        reads += 1
        marked = OPTIONS.get("bad", "bad") in req["path"] or "all-bad" in OPTIONS
        answer = bad(req) if marked else {"id": req["id"], **good(req["path"])}
        if answer is not None:
            out(json.dumps(answer))
    else:
        break
