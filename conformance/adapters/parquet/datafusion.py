"""arrow-rs's Parquet reader through DataFusion's Python bindings."""

from __future__ import annotations

from parquet_conformance.conformance.adapters import PythonAdapter


class DataFusion(PythonAdapter):
    name = "datafusion"
    implementation = "arrow-rs (via DataFusion)"
    module = "datafusion"
    package = "datafusion"

    def read(self, path: str) -> object:
        df = self.load()
        ctx = df.SessionContext(df.SessionConfig().with_target_partitions(1))  # keep file order
        return ctx.read_parquet(path).to_arrow_table()


ADAPTER = DataFusion()
