"""arrow-rs's Parquet reader through DataFusion's Python bindings."""

from __future__ import annotations

import mmap
import re
from collections import Counter
from collections.abc import Mapping
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from parquet_conformance.conformance.adapters import PythonAdapter
from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.adapters.reproducing import Reproducer, Reproducing
from parquet_conformance.conformance.adapters.taxonomy import Refusals
from parquet_conformance.conformance.adapters.writing import PythonWriter
from parquet_conformance.generators.parquet.write_sizes import PAGE_BYTES, ROW_GROUP_ROWS

# ParquetWriterOptions per profile (None: DataFrame.write_parquet with no option). Statistics "page" (its default)
# is what writes the page index.
OPTIONS: dict[str, dict[str, Any] | None] = {
    "default": None, "zstd": {"compression": "zstd(3)"}, "v2": {"writer_version": "2.0"},
    "no-dictionary": {"dictionary_enabled": False}, "no-statistics": {"statistics_enabled": "none"},
    "page-index": {"statistics_enabled": "page", "data_pagesize_limit": PAGE_BYTES},
    "row-groups": {"max_row_group_size": ROW_GROUP_ROWS}}


CRATE = re.compile(rb"parquet-(\d+\.\d+\.\d+)[/\\]src")


@cache
def parquet_crate() -> str | None:
    """The arrow-rs `parquet` crate the installed DataFusion build reads with: the version most of its library's
    crate paths name (a build links others through its dependencies, cited far less); None without DataFusion."""
    spec = find_spec("datafusion")
    if spec is None or not spec.submodule_search_locations:
        return None
    found: Counter[str] = Counter()
    for library in Path(next(iter(spec.submodule_search_locations))).glob("_internal*"):
        with library.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            found.update(m.group(1).decode() for m in CRATE.finditer(data))
    return found.most_common(1)[0][0] if found else None


class DataFusion(PythonAdapter, PythonWriter, Reproducing):
    name = "datafusion"
    implementation = "arrow-rs (via DataFusion)"
    module = "datafusion"
    package = "datafusion"
    profiles = tuple(OPTIONS)
    # DataFusionError arrives as a plain Exception with its kind first; its Internal kind is a bug by its own word.
    refusals = Refusals(messages=(("builtins.Exception", r"^(DataFusion error|Arrow error|Parquet error): "),),
                        unhandled=(("builtins.Exception", r"Internal error|panicked"),))

    def describe(self) -> dict[str, Any]:
        """The arrow-rs release underneath (apache/parquet-site's arrow-rs table speaks of those), read from the build
        that is installed where this runs (the worker's: a release's environment)."""
        crate = parquet_crate()
        return {**super().describe(), "engine": f"arrow-rs parquet {crate}" if crate else None}

    def read(self, path: str) -> object:
        """The plan collected into record batches (the user's call); one table of them is our conversion."""
        df = self.load()
        ctx = df.SessionContext(df.SessionConfig().with_target_partitions(1))  # keep file order
        frame = ctx.read_parquet(path)
        return frame.schema(), frame.collect()

    def canonical(self, result: Any) -> Mapping[str, Any]:
        import pyarrow as pa

        schema, batches = result
        return super().canonical(pa.Table.from_batches(batches, schema=schema))

    def write(self, source: str, path: str, profile: str) -> None:
        df = self.load()
        frame = df.SessionContext(df.SessionConfig().with_target_partitions(1)).from_arrow(self.table(source))
        options = OPTIONS[profile]
        if options is None:
            frame.write_parquet(path)
        else:
            frame.write_parquet_with_options(path, df.ParquetWriterOptions(**options))

    def reproducer(self) -> Reproducer:
        return reproducers.python(
            "datafusion", "import datafusion\nimport pyarrow as pa", "datafusion.__version__",
            "ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(1))  # file order\n"
            "frame = ctx.read_parquet(path)\nreturn frame.schema(), frame.collect()",
            "pip install datafusion=={version}",
            arrow="pa.Table.from_batches(result[1], schema=result[0])",
            not_compared={"interval": "arrow-rs hands Parquet's INTERVAL over as Arrow's day_time_interval, which "
                                      "pyarrow's Python layer cannot read (the run reads it through nanoarrow)"})


ADAPTER = DataFusion()
