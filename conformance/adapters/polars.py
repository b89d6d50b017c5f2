"""polars' own Parquet reader (Rust, polars-parquet)."""

from __future__ import annotations

from conformance.adapters import PythonAdapter, arrow_rows


class Polars(PythonAdapter):
    name = "polars"
    implementation = "polars (polars-parquet, Rust)"
    module = "polars"

    def read(self, path: str) -> dict:
        return arrow_rows(self.load().read_parquet(path).to_arrow())


ADAPTER = Polars()
