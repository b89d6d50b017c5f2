"""parquet-pages: Parquet's metadata read by Apache Thrift's own Python library (TCompactProtocol over the
classes Thrift generates from parquet.thrift): the footer, every page header (walked through each column chunk's
total_compressed_size) and the page index, as `read_parquet_metadata(path)` returns them. It reads no data.

A metadata-only reader, in the role of its own, `metadata`: its answer is the metadata summary
(generators/parquet/summary.py) built from the Thrift structs it returns, and it is judged against the summary our
decoder makes of the same file (corpus/parquet: the case's `expect_hash`), never against the data.

It checks both magics with `assert` (gone under `python -O`; the worker does not run so), and has no exception
classes of its own: Thrift's, a struct error or an AssertionError are its refusals.
"""

from __future__ import annotations

import inspect
from importlib import metadata
from typing import Any

from parquet_conformance.conformance.adapters import PythonAdapter
from parquet_conformance.conformance.adapters.taxonomy import Refusals
from parquet_conformance.generators.parquet.summary import chunk, element, summary


class ParquetPages(PythonAdapter):
    name = "parquet-pages"
    implementation = "parquet-pages (Apache Thrift Python)"
    module = "parquet_pages"
    package = "parquet-pages"
    roles = ("metadata",)
    # Apache Thrift's exceptions, its transport's EOFError (readAll on a short input), the ValueError its generated
    # code's enums raise for a value they lack ("9 is not a valid Encoding"), and its own "no metadata for
    # ColumnChunk". It checks the magics with `assert`: an assertion is no refusal in any language (Rust's assert!
    # panics, C's aborts, `python -O` removes it), so a file without them is an unhandled error for it, as a seek before
    # the file's start (OSError EINVAL) and Thrift's skip() decoding a binary field as UTF-8 (UnicodeDecodeError) are.
    refusals = Refusals(classes=("thrift.Thrift.TException", "builtins.EOFError"),
                        messages=(("builtins.RuntimeError", r"^no metadata for ColumnChunk"),
                                  ("builtins.ValueError", r"^-?\d+ is not a valid \w+$")))

    def requirements(self, version: str) -> list[str]:
        # thrift: 0.1.0 imports it without declaring it; pyarrow: the harness's canonical form imports it
        return [f"{self.package}=={version}", "thrift", "pyarrow"]

    def version(self) -> str:
        return metadata.version("parquet-pages")

    def read(self, path: str) -> Any:
        read = self.load().read_parquet_metadata
        # every page header now (releases before 0.5 have no lazy loading, and read them so)
        eager = {"lazy_load_pg_hdrs": False} if "lazy_load_pg_hdrs" in inspect.signature(read).parameters else {}
        return read(path, **eager)

    def canonical(self, result: Any) -> dict[str, Any]:
        schema = [element(e.name, e.type, e.repetition_type, e.num_children) for e in result.schema or []]
        groups = []
        for rg in result.row_groups or []:
            chunks = []
            for cc in rg.columns or []:
                md = cc.meta_data
                path, type_, codec, num_values = (None if md is None else getattr(md, f)
                                                  for f in ("path_in_schema", "type", "codec", "num_values"))
                chunks.append(chunk(path, type_, codec, num_values, [h.type for h in cc.page_headers]))
            groups.append((rg.num_rows, chunks))
        return summary(result.num_rows, schema, groups)


ADAPTER = ParquetPages()
