"""@dsnp/parquetjs, a pure JavaScript reader (Apache Thrift's JS library for the footer), run by Node.js
from a private npm prefix (conformance/harness/envs.py). Pinned to 1.8.9: the `latest` 1.9.3 tarball ships
without dist/ and cannot be loaded. Its worker (js/parquetjs_worker.mjs) turns the library's raw
3-level list shape into tokens."""

from __future__ import annotations

from pathlib import Path

from parquet_conformance.conformance.adapters import CommandAdapter, require_program
from parquet_conformance.conformance.harness.envs import ensure

WORKER = Path(__file__).parent / "js" / "parquetjs_worker.mjs"


class ParquetJs(CommandAdapter):
    name = "parquetjs"
    implementation = "@dsnp/parquetjs (JavaScript)"
    index = "npm"
    package = "@dsnp/parquetjs"
    release = "1.8.9"

    def command(self) -> list[str]:
        node = require_program("node")
        return [node, "--max-old-space-size=4096", str(WORKER), str(ensure(self.environment()))]


ADAPTER = ParquetJs()
