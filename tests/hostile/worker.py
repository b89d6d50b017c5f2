"""A misbehaving worker: it speaks the adapter protocol, then does what argv[1] says when asked to read a
file whose name contains "bad" (or the text of `--bad=TEXT`), or every file with `--all-bad` (good files read
as two rows). argv[2:] may hold a token that tests use to find every process it left behind (children inherit
their command line), and options: `--real` reads good files with pyarrow (a refusal is `rejected`), so that the
worker is a reader whose verdicts mean something; `--version=V`, `--engine=E`, `--roles=A,B` and
`--implementation-json=J`, `--version-json=J` (any text, as JSON) go in its start answer;
`--plan=TEXT:MODE,TEXT:MODE` gives each file whose path contains TEXT its own mode (one worker, every way).

Modes, per file: segfault, abort, hang, alloc, native-alloc (malloc until NULL, Rust's words, an abort),
huge-alloc (one malloc of 2**61 bytes, the same), garbage, bad-rows, big-line, surrogate, nul, bad-utf8, mismatched
(an answer for another id first), twice (the answer twice in one write), stray-later (the answer, then a line
unasked a moment later), child-holds-stdout, setsid-holds-stdout, surviving-child, setsid-child, double-fork,
child-then-hang, exit-after-read, exit-after-answer, kill-reaper and stop-reaper (a daemon first), sigkill,
tmp-litter (files in its TMPDIR, which it answers), stateful, fresh-only (reads right only as a process's first
read, refuses after: a flake of pass and failure), wrong-value (the real data with one value changed),
bad-decimal, huge-number, deep-line (JSON nested 200,000 deep), deep-rows (rows nested 700 deep),
stderr-flood (`--flood=MIB` of stderr, default 400, then the answer), chained (a refusal as Spark gives it
through py4j: a Java chain of causes some 300 frames long, its object id new at every read), none (reads
everything).
At start, for every file: refuse, exit-at-start, banner (a line before the start answer), huge-name (an 8 MiB
implementation name), bad-role (`my role#1`), dup-role (a role listed twice), numeric-version.
Mode `steps:A+B+...` (in `--plan` too) answers the n-th attempt at a file, counted across processes in `--memory=DIR`,
as step n of the list, cyclically: `crash` (SIGSEGV), `unhandled` (a KeyError, as an unhandled error), `refuse`,
`read` (the good answer): a reader whose attempts at one file disagree, in one run or across runs.
Mode `script` with `--script=FILE` (JSON: path text -> steps) answers each file as its steps say, in order:
`["write", [hex, ...]]` writes those lines in one write ("{id}" in a line's bytes becomes the request's id),
`["answer"]` the good answer, `["exit", code]`, `["child"]` a descendant in a session of its own,
`["daemon"]` a double-forked one (tests/hostile/test_properties.py draws them).
A `write` request is answered `written` after leaving at the path what `--write=MODE` says: file (the source's
bytes), dir, link (to a file outside), vanish (the folder it was given removed), sparse (a 1 TiB sparse file).
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import threading
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


def setsid_sleeper() -> None:
    """A child that leaves the worker's session and process group, and keeps what it inherited open."""
    if os.fork() == 0:
        os.setsid()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(3600)
        os._exit(0)


def daemon() -> None:
    """A grandchild orphaned at once (the classic double fork): its parent is gone before the worker answers."""
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            time.sleep(3600)
        os._exit(0)
    os.waitpid(pid, 0)


def later(text: str, delay: float = 0.3) -> None:
    """A line written unasked, a moment after the answer (while the harness may be asking the next request)."""
    def write() -> None:
        time.sleep(delay)
        out(text)
    threading.Thread(target=write, daemon=True).start()


def attempt_number(path: str) -> int:
    """How many times any worker has been asked for this file, this time included (a count kept in --memory)."""
    import hashlib

    counter = os.path.join(OPTIONS["memory"], hashlib.sha256(path.encode()).hexdigest()[:16])
    n = int(open(counter).read()) + 1 if os.path.exists(counter) else 1
    with open(counter, "w") as f:
        f.write(str(n))
    return n


def bad(req: dict, mode: str) -> dict | None:
    """The answer to a bad file, or None when this mode answers (or dies) by itself."""
    rid = req["id"]
    if mode.startswith("steps:"):
        steps = mode.removeprefix("steps:").split("+")
        mode = {"crash": "segfault", "read": "none"}.get(step := steps[(attempt_number(req["path"]) - 1) % len(steps)],
                                                         step)
        if mode == "unhandled":
            return {"id": rid, "outcome": "unhandled-error", "error": {"class": "builtins.KeyError", "message": "'x'"}}
        if mode == "refuse":
            return {"id": rid, "outcome": "rejected", "error": {"class": "E", "message": "refused"}}
    answer = {"id": rid, **good(req["path"])}
    if mode == "mismatched":  # an answer for an id never asked, then this one's
        out(json.dumps({"id": rid + "0", **GOOD}))
        return answer
    if mode == "twice":
        out(json.dumps(answer) + "\n" + json.dumps({"id": rid, "outcome": "rejected",
                                                    "error": {"class": "E", "message": "second answer"}}))
        return None
    if mode == "stray-later":
        later(json.dumps({"id": str(int(rid.split("-")[0]) + 1), "outcome": "rejected",
                          "error": {"class": "E", "message": "unasked"}}))
        return answer
    if mode == "setsid-holds-stdout":
        setsid_sleeper()
        os._exit(3)
    if mode == "setsid-child":
        setsid_sleeper()
        return answer
    if mode == "double-fork":
        daemon()
        return answer
    if mode == "exit-after-answer":
        out(json.dumps(answer))
        os._exit(0)
    if mode == "bad-decimal":
        return {"id": rid, "outcome": "read", "columns": ["x"], "rows": [[{"dec": "abc"}]]}
    if mode == "huge-number":
        out('{"id": ' + json.dumps(rid) + ', "outcome": "read", "columns": ["x"], "rows": [[1' + "0" * 5000 + "]]}")
        return None
    if mode == "deep-line":
        out("[" * 200_000 + "]" * 200_000)
        return None
    if mode == "deep-rows":
        return {"id": rid, "outcome": "read", "columns": ["x"], "rows": [[json.loads("[" * 700 + "]" * 700)]]}
    if mode == "stderr-flood":
        chunk = b"e" * (1 << 20)
        for _ in range(int(OPTIONS.get("flood", "400"))):
            sys.stderr.buffer.write(chunk)
        sys.stderr.buffer.flush()
        return answer
    if mode == "wrong-value":
        return {"id": rid, **wrong_value(good(req["path"]))}
    if mode == "segfault":
        ctypes.string_at(0)  # a real SIGSEGV, as a C library would raise it
    if mode == "abort":
        print("thread 'main' panicked at src/footer.rs:42:9:\nfooter length overflows", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGABRT)
    if mode == "hang":
        time.sleep(3600)
    if mode == "alloc":
        hoard = []
        while True:
            hoard.append(bytearray(64 << 20))
    if mode in ("native-alloc", "huge-alloc"):  # as a Rust reader dies when malloc returns NULL: its words, an abort
        libc = ctypes.CDLL(None)
        libc.malloc.restype = ctypes.c_void_p
        size = 1 << 61 if mode == "huge-alloc" else 64 << 20
        while libc.malloc(ctypes.c_size_t(size)):  # the kernel refuses only at the address-space limit (or beyond it)
            pass
        print(f"memory allocation of {size} bytes failed", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGABRT)
    if mode == "garbage":
        out("not json at all")
        return None
    if mode == "bad-rows":
        return {"id": rid, "outcome": "read", "columns": ["x"], "rows": [[{"weird": 1}]]}
    if mode == "big-line":  # 200 MB on one line, no newline until the end
        chunk = b"x" * (1 << 20)
        for _ in range(200):
            sys.stdout.buffer.write(chunk)
        out("")
        return None
    if mode == "surrogate":
        out('{"id": ' + json.dumps(rid) + ', "outcome": "rejected", "error": {"class": "E\\ud800", '
            '"message": "lone \\ud800 surrogate"}}')
        return None
    if mode == "nul":
        return {"id": rid, "outcome": "rejected", "error": {"class": "E", "message": "nul \x00 and \x07 bell"}}
    if mode == "bad-utf8":
        out(b'{"id": ' + json.dumps(rid).encode() + b', "outcome": "rejected", "error": {"class": "E", '
            b'"message": "invalid \xff\xfe utf-8"}}')
        return None
    if mode == "child-holds-stdout":
        sleeper()
        os._exit(3)
    if mode == "surviving-child":
        sleeper()
        return {"id": rid, "outcome": "rejected", "error": {"class": "E", "message": "rejected, with a child"}}
    if mode == "child-then-hang":  # keeps the run busy while a child of the worker is alive
        sleeper()
        time.sleep(3600)
    if mode == "chained":
        frames = "".join(f"\tat org.apache.spark.rdd.RDD.iterator(RDD.scala:{n})\n" for n in range(300))
        message = (f"An error occurred while calling o{800 + 7 * reads}.parquet.\n: org.apache.spark.SparkException: "
                   f"Job aborted due to stage failure\n{frames}Caused by: org.apache.spark.SparkException: "
                   f"[FAILED_READ_FILE.NO_HINT] Encountered error while reading file {req['path']}.\n\tat a.B(B.java:1)"
                   "\nCaused by: java.io.IOException: can not read class org.apache.parquet.format.FileMetaData: "
                   "Required field 'codec' was not found\n\tat c.D(D.java:2)\n")
        return {"id": rid, "outcome": "rejected", "error": {"class": "py4j.protocol.Py4JJavaError", "message": message}}
    if mode == "exit-after-read":
        os._exit(0)
    if mode in ("kill-reaper", "stop-reaper"):  # a daemon, then its reaper (the worker's parent) killed or stopped
        daemon()
        os.kill(os.getppid(), signal.SIGKILL if mode == "kill-reaper" else signal.SIGSTOP)
        if mode == "kill-reaper":
            time.sleep(3600)  # killed with its reaper (its parent-death signal)
        return {"id": rid, "outcome": "rejected", "error": {"class": "E", "message": "reaper stopped"}}
    if mode == "sigkill":  # what the OOM killer sends
        os.kill(os.getpid(), signal.SIGKILL)
    if mode == "tmp-litter":  # files left in the temporary folder it was given, and a folder
        import tempfile

        tempfile.mkstemp(prefix="litter-")
        os.makedirs(os.path.join(tempfile.gettempdir(), "litter-dir", "deep"), exist_ok=True)
        return {"id": rid, "outcome": "rejected", "error": {"class": "E", "message": tempfile.gettempdir()}}
    if mode == "stateful":  # a library that carries state: other data once it has read something before
        if reads > 1:
            return {"id": rid, "outcome": "read", "columns": ["x"], "rows": [[{"int": "2"}]]}
        return {"id": rid, "outcome": "rejected", "error": {"class": "E", "message": "refused when fresh"}}
    if mode == "fresh-only":  # a library whose state breaks it: right only before it has read anything else
        if reads > 1:
            return {"id": rid, "outcome": "rejected", "error": {"class": "E", "message": "refused after a read"}}
        return answer
    return answer


def start_answer(rid: str) -> dict:
    answer = {"id": rid, "ok": True, "adapter": "fake", "implementation": "fake",
              "version": OPTIONS.get("version", "0"), "roles": ["legacy"]}
    if "engine" in OPTIONS:
        answer["engine"] = OPTIONS["engine"]
    if "roles" in OPTIONS:
        answer["roles"] = OPTIONS["roles"].split(",")
    for key in ("implementation", "version"):  # any text at all, given as JSON (a hostile name, a control character)
        if f"{key}-json" in OPTIONS:
            answer[key] = json.loads(OPTIONS[f"{key}-json"])
    if MODE == "huge-name":
        answer["implementation"] = "x" * (8 << 20)
    if MODE == "bad-role":
        answer["roles"] = ["my role#1"]
    if MODE == "dup-role":
        answer["roles"] = ["legacy", "legacy"]
    if MODE == "numeric-version":
        answer["version"] = 1.5
    return answer


def scripted(req: dict) -> None:
    """The steps the script gives the file (the first path text it contains), or the good answer."""
    with open(OPTIONS["script"]) as f:
        script = json.load(f)
    steps = next((v for k, v in script.items() if k in req["path"]), [["answer"]])
    rid = req["id"].encode()
    for step in steps:
        if step[0] == "write":
            sys.stdout.buffer.write(b"".join(bytes.fromhex(x).replace(b"{id}", rid) + b"\n" for x in step[1]))
            sys.stdout.buffer.flush()
        elif step[0] == "answer":
            out(json.dumps({"id": req["id"], **GOOD}))
        elif step[0] == "exit":
            os._exit(step[1])
        elif step[0] == "child":
            setsid_sleeper()
        elif step[0] == "daemon":
            daemon()


def mode_for(path: str) -> str | None:
    """This file's misbehaviour, or None for a good file."""
    for pair in filter(None, OPTIONS.get("plan", "").split(",")):
        text, _, mode = pair.partition(":")
        if text in path:
            return mode
    return MODE if OPTIONS.get("bad", "bad") in path or "all-bad" in OPTIONS else None


if MODE == "banner":
    out("worker ready")
for line in sys.stdin:
    req = json.loads(line)
    if req["cmd"] == "start":
        if MODE == "exit-at-start":
            os._exit(1)
        if MODE == "refuse":
            out(json.dumps({"id": req["id"], "ok": False, "unavailable": "libfoo is not installed"}))
            continue
        out(json.dumps(start_answer(req["id"])))
    elif req["cmd"] == "write":  # what a writer may leave at its output path (--write=MODE)
        how, target = OPTIONS.get("write", "file"), req["path"]
        if how == "dir":
            os.makedirs(target)
        elif how == "link":
            os.symlink("/etc/hostname", target)
        elif how == "vanish":  # the folder the harness gave it, gone
            import shutil

            shutil.rmtree(os.path.dirname(os.path.dirname(target)))
        elif how == "sparse":
            with open(target, "wb") as f:
                f.truncate(1 << 40)  # 1 TiB of nothing
        else:
            with open(req["source"], "rb") as src, open(target, "wb") as f:
                f.write(src.read())
        out(json.dumps({"id": req["id"], "outcome": "written", "writer": "fake 1"}))
    elif req["cmd"] == "read":
        reads += 1
        if MODE == "script":
            scripted(req)
            continue
        mode = mode_for(req["path"])
        answer = bad(req, mode) if mode else {"id": req["id"], **good(req["path"])}
        if answer is not None:
            out(json.dumps(answer))
    else:
        break
