"""polars' own Parquet reader (Rust, polars-parquet)."""

from __future__ import annotations

from parquet_conformance.conformance.adapters import PythonAdapter


class Polars(PythonAdapter):
    name = "polars"
    implementation = "polars (polars-parquet, Rust)"
    module = "polars"

    def read(self, path: str) -> object:
        return self.load().read_parquet(path).to_arrow()


ADAPTER = Polars()
