"""DuckDB's own Parquet reader (C++), results handed over as Arrow."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from parquet_conformance.conformance.adapters import PythonAdapter
from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.adapters.parquet.variants import arrow_data
from parquet_conformance.conformance.adapters.reproducing import Reproducer, Reproducing
from parquet_conformance.conformance.adapters.taxonomy import Refusals
from parquet_conformance.conformance.adapters.writing import PythonWriter
from parquet_conformance.generators.canonical import canonical_rows

# COPY options per profile. DuckDB writes no DATA_PAGE_V2 (PARQUET_VERSION V2 changes encodings only), cannot turn
# statistics off and writes no page index; ROW_GROUP_SIZE is rounded up to its vector size (2048 rows), so several
# row groups come from ROW_GROUP_SIZE_BYTES.
OPTIONS = {"default": "", "zstd": "COMPRESSION zstd", "no-dictionary": "DICTIONARY_SIZE_LIMIT 0",
           "row-groups": "ROW_GROUP_SIZE_BYTES 8000"}


class DuckDB(PythonAdapter, PythonWriter, Reproducing):
    name = "duckdb"
    cell_cost_s = 0.03
    implementation = "DuckDB"
    module = "duckdb"
    package = "duckdb"
    profiles = tuple(OPTIONS)
    # Releases up to 1.4 reserve more address space than they use: under an address-space limit they fail
    # wide files ("Out of Memory Error: Allocation failure") that they read. DuckDB bounds its own memory.
    memory_limit_bytes = None
    # duckdb.Error and its subclasses, but its internal errors, and a bare Error carrying a C++ standard library
    # exception's what() (Thrift's and the Parquet extension's own runtime_errors are bare Errors too, on purpose).
    refusals = Refusals(
        classes=("duckdb.Error",),
        unhandled=(("duckdb.InternalException", ""), ("duckdb.FatalException", ""),
                   ("duckdb.Error", r"^(vector::|basic_string|std::bad_|map::at|unordered_map::at|cannot create "
                                    r"std::vector|bitset::|std::out_of_range|std::length_error)")),
        oom=(("duckdb.OutOfMemoryException", ""),))

    def requirements(self, version: str) -> list[str]:
        return [f"duckdb=={version}", "pyarrow"]  # results come as Arrow

    def read(self, path: str) -> object:
        """The query's result as Arrow, or where DuckDB's Arrow export fails, as the rows of fetchall(): the Arrow
        export is a conversion, and only fetchall's error says that DuckDB's read failed."""
        con = self.load().connect(config={"memory_limit": "4GB"})
        try:
            result = con.execute("SELECT * FROM read_parquet(?)", [path])
            # to_arrow_table is the newer name; releases before 1.4 have only fetch_arrow_table
            try:
                return (getattr(result, "to_arrow_table", None) or result.fetch_arrow_table)()
            except Exception as e:
                print(f"the Arrow export failed ({type(e).__name__}); the rows again through fetchall()",
                      file=sys.stderr)
            result = con.execute("SELECT * FROM read_parquet(?)", [path])
            return [d[0] for d in result.description], result.fetchall()
        finally:
            con.close()

    def canonical(self, result: object) -> Mapping[str, Any]:
        """Arrow, with a VARIANT column (DuckDB hands it over as `arrow.parquet.variant`, unshredded) decoded; or the
        rows of fetchall() where the Arrow export failed."""
        if isinstance(result, tuple):
            columns, rows = result
            return canonical_rows(columns, rows)
        return arrow_data(result)

    def write(self, source: str, path: str, profile: str) -> None:
        con = self.load().connect(config={"memory_limit": "4GB"})
        try:
            con.register("src", self.table(source))
            quoted = path.replace("'", "''")
            con.execute(f"COPY src TO '{quoted}' (FORMAT parquet{', ' + OPTIONS[profile] if OPTIONS[profile] else ''})")
        finally:
            con.close()

    def reproducer(self) -> Reproducer:
        return reproducers.python(
            "duckdb", "import duckdb\nimport pyarrow as pa", "duckdb.__version__",
            'con = duckdb.connect(config={"memory_limit": "4GB"})\ntry:\n    try:\n'
            '        return con.execute("SELECT * FROM read_parquet(?)", [path]).to_arrow_table()  # 1.4+\n'
            "    except Exception as e:  # the Arrow export: fetchall() says whether DuckDB read the file\n"
            "        print(f'the Arrow export failed ({type(e).__name__}); the rows again through fetchall()')\n"
            '        result = con.execute("SELECT * FROM read_parquet(?)", [path])\n'
            "        return [d[0] for d in result.description], result.fetchall()\n"
            "finally:\n    con.close()", "pip install duckdb=={version} pyarrow",
            arrow="result if isinstance(result, pa.Table) else pa.Table.from_pylist([dict(zip(result[0], r)) "
                  "for r in result[1]])")


ADAPTER = DuckDB()
