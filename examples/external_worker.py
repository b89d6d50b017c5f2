"""A sample external worker (docs/adapter-protocol.md): the smallest reader an implementer's CI can gate with the
GitHub Action (action.yml) or the GitLab job (examples/parquet-conformance.gitlab-ci.yml). It reads with pyarrow and
answers in the canonical form through parquet-conformance's own conversion; a worker in another language writes
the same JSON lines with its own library.

    parquet-conformance run --adapter-cmd sample='python examples/external_worker.py' --corpus CORPUS --master none
"""

from __future__ import annotations

import json
import sys

import pyarrow
import pyarrow.parquet as pq

from parquet_conformance.generators.canonical import canonical_table


def answer(request: dict) -> dict:
    if request["cmd"] == "start":
        return {"id": request["id"], "ok": True, "adapter": "sample", "implementation": "pyarrow (sample worker)",
                "version": pyarrow.__version__, "roles": ["legacy"]}
    try:
        table = pq.read_table(request["path"])
    except (pyarrow.ArrowException, OSError) as e:  # the library refused the file on purpose: what a user would see
        return {"id": request["id"], "outcome": "rejected", "error": {"class": type(e).__name__, "message": str(e)}}
    except Exception as e:  # anything else it raised: it lost control (docs/adapters.md#error-taxonomy)
        return {"id": request["id"], "outcome": "unhandled-error",
                "error": {"class": type(e).__name__, "message": str(e)}}
    return {"id": request["id"], "outcome": "read", **canonical_table(table)}


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if request["cmd"] == "stop":
            break
        sys.stdout.write(json.dumps(answer(request)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
