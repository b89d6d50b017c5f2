"""arrow-rs's Parquet reader through DataFusion's Python bindings."""

from __future__ import annotations

from typing import Any

from parquet_conformance.conformance.adapters import PythonAdapter
from parquet_conformance.generators.parquet.written import PAGE_BYTES, ROW_GROUP_ROWS

# ParquetWriterOptions per profile (None: DataFrame.write_parquet with no option). Statistics "page" (its default)
# is what writes the page index.
OPTIONS: dict[str, dict[str, Any] | None] = {
    "default": None, "zstd": {"compression": "zstd(3)"}, "v2": {"writer_version": "2.0"},
    "no-dictionary": {"dictionary_enabled": False}, "no-statistics": {"statistics_enabled": "none"},
    "page-index": {"statistics_enabled": "page", "data_pagesize_limit": PAGE_BYTES},
    "row-groups": {"max_row_group_size": ROW_GROUP_ROWS}}


class DataFusion(PythonAdapter):
    name = "datafusion"
    implementation = "arrow-rs (via DataFusion)"
    module = "datafusion"
    package = "datafusion"
    profiles = tuple(OPTIONS)

    def read(self, path: str) -> object:
        df = self.load()
        ctx = df.SessionContext(df.SessionConfig().with_target_partitions(1))  # keep file order
        return ctx.read_parquet(path).to_arrow_table()

    def write(self, source: str, path: str, profile: str) -> None:
        df = self.load()
        frame = df.SessionContext(df.SessionConfig().with_target_partitions(1)).from_arrow(self.table(source))
        options = OPTIONS[profile]
        if options is None:
            frame.write_parquet(path)
        else:
            frame.write_parquet_with_options(path, df.ParquetWriterOptions(**options))


ADAPTER = DataFusion()
