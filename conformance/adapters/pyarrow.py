"""Arrow C++'s Parquet reader through pyarrow."""

from __future__ import annotations

from conformance.adapters import PythonAdapter, arrow_rows


class PyArrow(PythonAdapter):
    name = "pyarrow"
    implementation = "Arrow C++ (parquet-cpp)"
    module = "pyarrow.parquet"

    def version(self) -> str:
        import pyarrow

        return pyarrow.__version__

    def read(self, path: str) -> dict:
        return arrow_rows(self.load().read_table(path))


ADAPTER = PyArrow()
