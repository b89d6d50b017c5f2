"""hyparquet, a pure JavaScript reader, run by Node.js. It is installed with npm into a
cache directory at first use; its worker (js/hyparquet_worker.mjs) uses only the adapter
protocol, and so doubles as the example of an external adapter."""

from __future__ import annotations

import subprocess
from pathlib import Path

from parquet_conformance.conformance.adapters import (
    AdapterUnavailable,
    CommandAdapter,
    cache_dir,
    cache_lock,
    require_program,
)

VERSION = "1.31.5"  # pinned: a new hyparquet is a deliberate change of the matrix
WORKER = Path(__file__).parent / "js" / "hyparquet_worker.mjs"


class Hyparquet(CommandAdapter):
    name = "hyparquet"
    implementation = "hyparquet (JavaScript)"

    def command(self) -> list[str]:
        node, npm = require_program("node"), require_program("npm")
        home = cache_dir("node", f"hyparquet-{VERSION}")
        with cache_lock(home):
            if not (home / "node_modules" / "hyparquet" / "package.json").exists():
                (home / "package.json").write_text('{"private": true}\n')
                proc = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--silent",
                                       f"hyparquet@{VERSION}"], cwd=home, capture_output=True, text=True, timeout=300)
                if proc.returncode != 0:
                    raise AdapterUnavailable(f"npm install hyparquet@{VERSION} failed: {proc.stderr.strip()[-300:]}")
        return [node, "--max-old-space-size=4096", str(WORKER), str(home)]


ADAPTER = Hyparquet()
