"""DuckDB's own Parquet reader (C++), results handed over as Arrow."""

from __future__ import annotations

from parquet_conformance.conformance.adapters import PythonAdapter


class DuckDB(PythonAdapter):
    name = "duckdb"
    implementation = "DuckDB"
    module = "duckdb"

    def read(self, path: str) -> object:
        con = self.load().connect()
        try:
            return con.execute("SELECT * FROM read_parquet(?)", [path]).to_arrow_table()
        finally:
            con.close()


ADAPTER = DuckDB()
