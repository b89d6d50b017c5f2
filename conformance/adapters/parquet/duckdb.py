"""DuckDB's own Parquet reader (C++), results handed over as Arrow."""

from __future__ import annotations

from parquet_conformance.conformance.adapters import PythonAdapter


class DuckDB(PythonAdapter):
    name = "duckdb"
    implementation = "DuckDB"
    module = "duckdb"
    package = "duckdb"

    def requirements(self, version: str) -> list[str]:
        return [f"duckdb=={version}", "pyarrow"]  # results come as Arrow

    def read(self, path: str) -> object:
        con = self.load().connect()
        try:
            result = con.execute("SELECT * FROM read_parquet(?)", [path])
            # to_arrow_table is the newer name; releases before 1.4 have only fetch_arrow_table
            return (getattr(result, "to_arrow_table", None) or result.fetch_arrow_table)()
        finally:
            con.close()


ADAPTER = DuckDB()
