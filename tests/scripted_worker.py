"""A worker that answers each case as a script says: `scripted_worker.py SCRIPT.json` where the script maps case-id
globs to a behaviour (the first that matches; `*` for the rest). Its answers are the attempts the entry points are
fed in tests/test_one_judge.py, so that every entry point judges the same attempts.

Behaviours: `real` (pyarrow reads the file: read, or its refusal), `wrong` (real data with one value changed),
`refuse` (a refusal), `crash` (the process aborts), `flaky` (a refusal the first time any worker meets the case, a
real read after: a marker file beside the script remembers it, so the run's fresh-worker confirmation disagrees).
"""

from __future__ import annotations

import fnmatch
import json
import os
import sys

SCRIPT = json.loads(open(sys.argv[1]).read())


def real(path: str) -> dict:
    import pyarrow.parquet as pq

    from parquet_conformance.generators.canonical import canonical_table

    try:
        return {"outcome": "read", **canonical_table(pq.read_table(path))}
    except Exception as e:  # pyarrow's refusal is the reader's answer
        return {"outcome": "rejected", "error": {"class": type(e).__name__, "message": str(e)}}


def answer(case: str, path: str) -> dict:
    behaviour = next(b for glob, b in SCRIPT.items() if fnmatch.fnmatch(case, glob))
    if behaviour == "crash":
        os.abort()
    if behaviour == "refuse":
        return {"outcome": "rejected", "error": {"class": "ScriptedError", "message": f"refused {case}"}}
    if behaviour == "flaky":
        marker = f"{sys.argv[1]}.{case.replace('/', '_')}.seen"
        if not os.path.exists(marker):
            open(marker, "w").close()
            return {"outcome": "rejected", "error": {"class": "ScriptedError", "message": f"refused {case} once"}}
    got = real(path)
    if behaviour == "wrong" and got["outcome"] == "read" and got["rows"]:
        got["rows"][0] = [{"int": "-999"}, *got["rows"][0][1:]]
    return got


def main() -> None:
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("cmd") == "start":
            reply = {"id": req["id"], "ok": True, "adapter": "scripted", "implementation": "scripted", "version": "1",
                     "roles": ["legacy"]}
        elif req.get("cmd") == "stop":
            return
        else:
            reply = {"id": req["id"], **answer(req["case"], req["path"])}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
