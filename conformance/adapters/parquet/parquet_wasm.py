"""parquet-wasm: arrow-rs's Parquet reader compiled to WebAssembly, run by Node.js from a private npm
prefix (conformance/harness/envs.py). The library's part runs in a Node child of the Python worker
(js/parquet_wasm_reader.mjs) and hands back the Arrow IPC stream it produces; our part, reading that
stream into canonical data, is pyarrow's, as for every Arrow reader. The reader is arrow-rs: its release
decides the behaviour, so the engine names it (a parquet-wasm release embeds one arrow-rs, read from the
crate paths in its .wasm).

The Python worker is a thin shell around the Node child: when the child dies, the worker dies the same
way (the same signal or exit status), so the harness records the library's crash, not ours."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from parquet_conformance.conformance.adapters import AdapterUnavailable, PythonAdapter, ours, require_program
from parquet_conformance.conformance.adapters.taxonomy import Refusals
from parquet_conformance.conformance.adapters.writing import PythonWriter
from parquet_conformance.conformance.harness.envs import ensure, environment, version_key
from parquet_conformance.generators.parquet.write_sizes import PAGE_BYTES, ROW_GROUP_ROWS

READER = Path(__file__).parent / "js" / "parquet_wasm_reader.mjs"
# writeParquet's WriterPropertiesBuilder calls per profile (the Node child makes them). arrow-rs writes page
# statistics, hence a page index, by default.
OPTIONS: dict[str, dict[str, object]] = {
    "default": {}, "zstd": {"compression": "ZSTD"}, "v2": {"v2": True}, "no-dictionary": {"dictionary": False},
    "no-statistics": {"statistics": "None"}, "page-index": {"statistics": "Page", "pageBytes": PAGE_BYTES},
    "row-groups": {"rowGroupSize": ROW_GROUP_ROWS}}
ARROW_RS = (("0.5", "47.0"), ("0.6", "51.0"), ("0.7.0", "56.1"), ("0.7.1", "56.2"), ("0.8", "59.3"))


def arrow_rs(version: str) -> str | None:
    """The arrow-rs release inside a parquet-wasm release (None before 0.5, which this adapter cannot load)."""
    found = None
    for first, crate in ARROW_RS:
        if version_key(version) >= version_key(first):
            found = crate
    return found


class ParquetWasmError(Exception):
    """The library's own error, as Node reported it (its JavaScript class is in the message)."""


class ParquetWasm(PythonAdapter, PythonWriter):
    name = "parquet-wasm"
    implementation = "parquet-wasm (arrow-rs in WebAssembly)"
    module = "pyarrow"
    index = "npm"
    package = "parquet-wasm"
    release = "0.8.0"
    default_run = False
    profiles = tuple(OPTIONS)
    default_writer = False  # arrow-rs, as datafusion's writer is: run by name (--writer parquet-wasm)
    memory_limit_bytes = None  # V8 reserves guard regions for wasm memory; --max-old-space-size bounds the heap
    # arrow-rs's ParquetError arrives as a JS Error; a panic traps the wasm (`RuntimeError: unreachable`), and
    # wasm-bindgen's glue throws TypeErrors: neither is a refusal.
    refusals = Refusals(messages=((f"{__name__}.ParquetWasmError", r"^Error: "),))
    child: subprocess.Popen[bytes] | None = None
    found = "unknown"

    def describe(self) -> dict[str, Any]:
        crate = arrow_rs(self.release or "")
        return {**super().describe(), "engine": f"arrow-rs {crate} via parquet-wasm {self.release}" if crate else None}

    def command(self) -> list[str]:
        require_program("node")
        ensure(environment(self))  # here, in the driver, where its progress is shown
        release = [self.release] if self.release else []
        return [sys.executable, "-m", "parquet_conformance.conformance.harness.worker", self.name, *release]

    def version(self) -> str:
        return self.found

    def prepare(self) -> None:
        node, prefix = require_program("node"), ensure(environment(self))
        self.child = subprocess.Popen([node, "--max-old-space-size=4096", str(READER), str(prefix)],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        status, payload = self._frame()
        if status != b"V":
            raise AdapterUnavailable(f"parquet-wasm cannot be loaded: {json.loads(payload)['message']}")
        self.found = payload.decode()

    def read(self, path: str) -> bytes:
        assert self.child is not None and self.child.stdin is not None, "prepare() starts the reader"
        self.child.stdin.write(os.fsencode(path) + b"\n")
        self.child.stdin.flush()
        status, payload = self._frame()
        if status == b"R":
            return payload
        with ours("reading the Node reader's error frame"):  # our framing, not the library
            error = json.loads(payload)
            text, oom = f"{error['class']}: {error['message']}", error["oom"] is True
        raise MemoryError(text) if oom else ParquetWasmError(text)

    def write(self, source: str, path: str, profile: str) -> None:
        """The table goes to the child as an Arrow IPC stream (our conversion of the file, before the library)."""
        import pyarrow as pa

        assert self.child is not None and self.child.stdin is not None, "prepare() starts the child"
        stream = f"{path}.arrows"
        table = self.table(source)
        with pa.OSFile(stream, "wb") as sink, pa.ipc.new_stream(sink, table.schema) as ipc:
            ipc.write_table(table)
        request = {"source": stream, "path": path, "options": OPTIONS[profile]}
        self.child.stdin.write(json.dumps(request).encode() + b"\n")
        self.child.stdin.flush()
        status, payload = self._frame()
        os.unlink(stream)
        if status != b"W":
            error = json.loads(payload)
            text = f"{error['class']}: {error['message']}"
            raise MemoryError(text) if error["oom"] else ParquetWasmError(text)

    def canonical(self, result: bytes) -> Mapping[str, Any]:
        import pyarrow as pa

        return super().canonical(pa.ipc.open_stream(result).read_all())

    def _frame(self) -> tuple[bytes, bytes]:
        assert self.child is not None and self.child.stdout is not None
        head = _exactly(self.child.stdout, 5)
        payload = _exactly(self.child.stdout, int.from_bytes(head[1:], "little")) if head else b""
        if len(head) < 5:
            self._die_as_the_child()
        return head[:1], payload

    def _die_as_the_child(self) -> None:
        assert self.child is not None
        rc = self.child.wait()
        sys.stderr.write(f"parquet-wasm's node process ended ({rc})\n")
        sys.stderr.flush()
        if rc < 0:
            os.kill(os.getpid(), -rc)
        os._exit(rc or 1)


def _exactly(stream: IO[bytes], n: int) -> bytes:
    parts, left = [], n
    while left and (part := stream.read(left)):
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


ADAPTER = ParquetWasm()
