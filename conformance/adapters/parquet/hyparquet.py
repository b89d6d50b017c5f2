"""hyparquet, a pure JavaScript reader, run by Node.js. It is installed with npm into a private
prefix at first use (conformance/harness/envs.py; `hyparquet@VERSION` runs another release); its worker
(js/hyparquet_worker.mjs) uses only the adapter protocol, and so doubles as the example of an external
adapter."""

from __future__ import annotations

from pathlib import Path

from parquet_conformance.conformance.adapters import CommandAdapter, Reproducer, require_program
from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.harness.envs import ensure

WORKER = Path(__file__).parent / "js" / "hyparquet_worker.mjs"


class Hyparquet(CommandAdapter):
    name = "hyparquet"
    implementation = "hyparquet (JavaScript)"
    index = "npm"
    package = "hyparquet"
    release = "1.31.5"  # pinned: a new hyparquet is a deliberate change of the matrix

    def command(self) -> list[str]:
        node = require_program("node")
        return [node, "--max-old-space-size=4096", str(WORKER), str(ensure(self.environment()))]

    def reproducer(self) -> Reproducer:
        """repro/hyparquet.tmpl reads as the worker's `read` does, and turns values into plain ones as it does."""
        return reproducers.template("hyparquet.tmpl", "JavaScript", "repro.mjs", "npm install hyparquet@{version}",
                                    "node repro.mjs")


ADAPTER = Hyparquet()
