"""DuckDB's own Parquet reader (C++), results handed over as Arrow."""

from __future__ import annotations

from conformance.adapters import PythonAdapter, arrow_rows


class DuckDB(PythonAdapter):
    name = "duckdb"
    implementation = "DuckDB"
    module = "duckdb"

    def read(self, path: str) -> dict:
        con = self.load().connect()
        try:
            return arrow_rows(con.execute("SELECT * FROM read_parquet(?)", [path]).to_arrow_table())
        finally:
            con.close()


ADAPTER = DuckDB()
