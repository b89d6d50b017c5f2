"""arrow-rs's Parquet reader through DataFusion's Python bindings."""

from __future__ import annotations

from conformance.adapters import PythonAdapter, arrow_rows


class DataFusion(PythonAdapter):
    name = "datafusion"
    implementation = "arrow-rs (via DataFusion)"
    module = "datafusion"

    def read(self, path: str) -> dict:
        df = self.load()
        ctx = df.SessionContext(df.SessionConfig().with_target_partitions(1))  # keep file order
        return arrow_rows(ctx.read_parquet(path).to_arrow_table())


ADAPTER = DataFusion()
