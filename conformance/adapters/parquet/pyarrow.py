"""Arrow C++'s Parquet reader through pyarrow."""

from __future__ import annotations

from parquet_conformance.conformance.adapters import PythonAdapter


class PyArrow(PythonAdapter):
    name = "pyarrow"
    implementation = "Arrow C++ (parquet-cpp)"
    module = "pyarrow.parquet"

    def version(self) -> str:
        import pyarrow

        return pyarrow.__version__

    def read(self, path: str) -> object:
        return self.load().read_table(path)


ADAPTER = PyArrow()
