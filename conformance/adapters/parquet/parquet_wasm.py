"""parquet-wasm: arrow-rs's Parquet reader compiled to WebAssembly, run by Node.js from a private npm
prefix (conformance/envs.py) with apache-arrow (JS) to decode the Arrow IPC stream it returns. The
reader is arrow-rs: its release decides the behaviour, so the engine names it (a parquet-wasm release
embeds one arrow-rs, read from the crate paths in its .wasm)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from parquet_conformance.conformance.adapters import CommandAdapter, require_program
from parquet_conformance.conformance.envs import ensure, version_key

WORKER = Path(__file__).parent / "js" / "parquet_wasm_worker.mjs"
ARROW_RS = (("0.5", "47.0"), ("0.6", "51.0"), ("0.7.0", "56.1"), ("0.7.1", "56.2"), ("0.8", "59.3"))


def arrow_rs(version: str) -> str | None:
    """The arrow-rs release inside a parquet-wasm release (None before 0.5, which this adapter cannot load)."""
    found = None
    for first, crate in ARROW_RS:
        if version_key(version) >= version_key(first):
            found = crate
    return found


class ParquetWasm(CommandAdapter):
    name = "parquet-wasm"
    implementation = "parquet-wasm (arrow-rs in WebAssembly)"
    index = "npm"
    package = "parquet-wasm"
    release = "0.8.0"
    default_run = False

    def requirements(self, version: str) -> list[str]:
        return [f"parquet-wasm@{version}", "apache-arrow@17"]  # apache-arrow decodes the IPC stream it returns

    def describe(self) -> dict[str, Any]:
        crate = arrow_rs(self.release or "")
        return {**super().describe(), "engine": f"arrow-rs {crate} via parquet-wasm {self.release}" if crate else None}

    def command(self) -> list[str]:
        node = require_program("node")
        engine = self.describe()["engine"] or ""
        return [node, "--max-old-space-size=4096", str(WORKER), str(ensure(self.environment())), engine]


ADAPTER = ParquetWasm()
