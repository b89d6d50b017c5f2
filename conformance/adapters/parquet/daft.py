"""daft's Parquet reader (Rust), through `daft.read_parquet(path).to_arrow()`, in an environment of its
own (daft 0.7 declares pyarrow<26). Which decoder a release has, from the crate paths in its library:

- up to 0.7.4: a vendored parquet2 with the parquet-format-safe Thrift crate: an engine of its own, run as
  `daft-parquet2` (pinned to 0.4.18);
- 0.7.5 to 0.7.15: arrow-rs parquet 57.3 under daft's own reader;
- from 0.7.16: arrow-rs parquet 59 under a new daft reader: `daft` (pinned to 0.7.26).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from parquet_conformance.conformance.adapters import AdapterUnavailable, PythonAdapter
from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.adapters.reproducing import Reproducer, Reproducing
from parquet_conformance.conformance.adapters.taxonomy import Refusals
from parquet_conformance.conformance.harness.envs import version_key


class Daft(PythonAdapter, Reproducing):
    name = "daft"
    cell_cost_s = 0.025
    implementation = "daft"
    module = "daft"
    package = "daft"
    release = "0.7.26"
    default_run = False  # arrow-rs, as datafusion is: run by name
    # daft's exceptions, but a Rust panic its runtime caught and wrapped in one (`task N panicked with message`).
    refusals = Refusals(classes=tuple(f"daft.exceptions.{name}" for name in (
        "DaftCoreException", "ByteStreamError", "DaftTransientError", "DaftTypeError")),
        unhandled=(("builtins.BaseException", r"panicked with message|panicked at|invariant violated"),))

    def describe(self) -> dict[str, Any]:
        """In the worker: the decoder of the daft that is loaded (the harness only knows the release asked for)."""
        try:
            release = self.version()
        except AdapterUnavailable:  # in the harness, without daft
            release = self.release or ""
        key = version_key(release)
        engine = ("parquet2 (vendored) + parquet-format-safe Thrift" if key < version_key("0.7.5") else
                  "arrow-rs parquet 57.3" if key < version_key("0.7.16") else "arrow-rs parquet 59")
        return {**super().describe(), "engine": f"{engine} via daft {release}"}

    def read(self, path: str) -> object:
        """The lazy read run to its end (collect): what it raises is daft's; the Arrow table is our conversion."""
        return self.load().read_parquet(os.path.abspath(path)).collect()

    def canonical(self, result: Any) -> Mapping[str, Any]:
        return super().canonical(result.to_arrow())

    def reproducer(self) -> Reproducer:
        return reproducers.python("daft", "import daft\nimport pyarrow as pa", "daft.__version__",
                                  "return daft.read_parquet(path).collect()", "pip install daft=={version}",
                                  arrow="result.to_arrow()")


class DaftParquet2(Daft):
    name = "daft-parquet2"
    implementation = "daft (parquet2 decoder)"
    release = "0.4.18"
    default_run = True  # parquet2 is an engine of its own


ADAPTER = Daft()
ADAPTER_PARQUET2 = DaftParquet2()
