"""polars' own Parquet reader (Rust, polars-parquet)."""

from __future__ import annotations

from parquet_conformance.conformance.adapters import PythonAdapter, Reproducer
from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.adapters.taxonomy import Refusals


class Polars(PythonAdapter):
    name = "polars"
    implementation = "polars (polars-parquet, Rust)"
    module = "polars"
    package = "polars"
    refusals = Refusals(classes=("polars.exceptions.PolarsError", "builtins.OSError"))  # a panic is a PanicException

    def requirements(self, version: str) -> list[str]:
        return [f"polars=={version}", "pyarrow"]  # results come as Arrow

    def read(self, path: str) -> object:
        return self.load().read_parquet(path).to_arrow()

    def reproducer(self) -> Reproducer:
        return reproducers.python("polars", "import polars as pl\nimport pyarrow as pa", "pl.__version__",
                                  "return pl.read_parquet(path)", "pip install polars=={version} pyarrow",
                                  arrow="result.to_arrow()")


ADAPTER = Polars()
