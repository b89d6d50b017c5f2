"""polars' own Parquet reader (Rust, polars-parquet)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from parquet_conformance.conformance.adapters import PythonAdapter
from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.adapters.parquet.operations import explicit_keys
from parquet_conformance.conformance.adapters.reproducing import Reproducer, Reproducing
from parquet_conformance.conformance.adapters.taxonomy import Refusals
from parquet_conformance.conformance.adapters.writing import PythonWriter
from parquet_conformance.generators.parquet.keys import COLUMN, FOOTER
from parquet_conformance.generators.parquet.write_sizes import PAGE_BYTES, ROW_GROUP_ROWS

# write_parquet's options per profile: it compresses with ZSTD and writes a page index by default, and has no switch
# for DATA_PAGE_V2 or dictionary encoding.
OPTIONS: dict[str, dict[str, object]] = {
    "default": {}, "zstd": {"compression": "zstd"}, "no-statistics": {"statistics": False},
    "page-index": {"data_page_size": PAGE_BYTES}, "row-groups": {"row_group_size": ROW_GROUP_ROWS}}


class Polars(PythonAdapter, PythonWriter, Reproducing):
    name = "polars"
    implementation = "polars (polars-parquet, Rust)"
    module = "polars"
    package = "polars"
    profiles = tuple(OPTIONS)
    refusals = Refusals(classes=("polars.exceptions.PolarsError", "builtins.OSError"))  # a panic is a PanicException

    def requirements(self, version: str) -> list[str]:
        return [f"polars=={version}", "pyarrow"]  # results come as Arrow

    def read(self, path: str) -> object:
        return self.load().read_parquet(path)

    # docs/adapter-protocol.md#keys: polars takes explicit keys (ParquetDecryptionProperties, in the releases that
    # have it), the footer's and each column's under its dotted path.
    operations = ("decrypt",)
    keyed = ("decrypt",)

    def offers(self, op: str, path: str) -> bool:
        return hasattr(self.load(), "ParquetDecryptionProperties")

    def takes(self, op: str, keys: Mapping[str, str]) -> bool:
        return FOOTER in keys

    def decrypt(self, path: str, keys: Mapping[str, str]) -> object:
        pl = self.load()
        data = explicit_keys(keys)
        props = pl.ParquetDecryptionProperties(footer_key=data.pop(FOOTER), column_keys={
            k.removeprefix(COLUMN): v for k, v in data.items()})
        return pl.read_parquet(path, decryption=props)

    def canonical(self, result: Any) -> Mapping[str, Any]:
        return super().canonical(result.to_arrow())  # our conversion: polars read the file eagerly

    def write(self, source: str, path: str, profile: str) -> None:
        self.load().from_arrow(self.table(source)).write_parquet(path, **OPTIONS[profile])

    def reproducer(self) -> Reproducer:
        return reproducers.python("polars", "import polars as pl\nimport pyarrow as pa", "pl.__version__",
                                  "return pl.read_parquet(path)", "pip install polars=={version} pyarrow",
                                  arrow="result.to_arrow()")


ADAPTER = Polars()
