"""arrow-rs's Parquet reader through DataFusion's Python bindings."""

from __future__ import annotations

from parquet_conformance.conformance.adapters import PythonAdapter, Reproducer
from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.adapters.taxonomy import Refusals


class DataFusion(PythonAdapter):
    name = "datafusion"
    implementation = "arrow-rs (via DataFusion)"
    module = "datafusion"
    package = "datafusion"
    # DataFusionError arrives as a plain Exception with its kind first; its Internal kind is a bug by its own word.
    refusals = Refusals(messages=(("builtins.Exception", r"^(DataFusion error|Arrow error|Parquet error): "),),
                        unhandled=(("builtins.Exception", r"Internal error|panicked"),))

    def read(self, path: str) -> object:
        df = self.load()
        ctx = df.SessionContext(df.SessionConfig().with_target_partitions(1))  # keep file order
        return ctx.read_parquet(path).to_arrow_table()

    def reproducer(self) -> Reproducer:
        return reproducers.python(
            "datafusion", "import datafusion\nimport pyarrow as pa", "datafusion.__version__",
            "ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(1))  # file order\n"
            "return ctx.read_parquet(path).to_arrow_table()", "pip install datafusion=={version}")


ADAPTER = DataFusion()
