"""The limit of one Python adapter: its library reading the files in one process of its own, no harness.

    PYTHON bench/limit.py [--shim DIR] ADAPTER [RELEASE] LIST FIRST

LIST holds one `op<TAB>path` per line. The adapter is prepared (its library loaded, a JVM started: Spark's session),
then `adapter.run(op, path)` is called for every file from the FIRST-th on, as the worker calls it, and what it
returns or raises is dropped: no conversion to canonical data, no protocol, no hashing. Before each file its index
is printed, so that bench/matrix.py can go on after a file that kills or hangs the process (it starts the loop again
after that file, and cuts a file at the adapter's adaptive limit, as a run does). `--shim`: the folder of links to
the running harness (conformance/harness/envs.py harness_path), for a release whose library lives in an environment
of its own. The process runs under the adapter's address-space limit, as its worker does.
"""

from __future__ import annotations

import resource
import sys


def main(argv: list[str]) -> int:
    if argv[:1] == ["--shim"]:
        sys.path.insert(0, argv[1])
        argv = argv[2:]
    from parquet_conformance.conformance.adapters import PythonAdapter, get

    name, *release, listing, first = argv
    adapter = get(name)
    if not isinstance(adapter, PythonAdapter):
        print(f"{name} is not a Python adapter", file=sys.stderr)
        return 2
    if release:
        adapter.release = release[0]
    if adapter.memory_limit_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (adapter.memory_limit_bytes, adapter.memory_limit_bytes))
    adapter.prepare()
    with open(listing, encoding="utf-8") as fh:
        todo = [line.rstrip("\n").split("\t", 1) for line in fh if line.strip()]
    progress = open(3, "w", buffering=1, closefd=False)
    for i, (op, path) in enumerate(todo[int(first):], int(first)):
        print(i, file=progress)
        try:
            adapter.run(op, path)
        except BaseException as e:
            if isinstance(e, KeyboardInterrupt):
                raise
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
