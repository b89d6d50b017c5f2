"""Arrow C++'s Parquet reader through pyarrow."""

from __future__ import annotations

from parquet_conformance.conformance.adapters import PythonAdapter, Reproducer
from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.adapters.taxonomy import Refusals
from parquet_conformance.conformance.harness.envs import version_key

# Arrow's errors (ArrowTypeError, ArrowKeyError and ArrowIndexError are TypeError, KeyError and IndexError too), and
# OSError: parquet-cpp's ParquetException arrives as one (Status::IOError). ArrowMemoryError is a MemoryError: oom.
ARROW = ("pyarrow.lib.ArrowException", "builtins.OSError")


class PyArrow(PythonAdapter):
    name = "pyarrow"
    implementation = "Arrow C++ (parquet-cpp)"
    module = "pyarrow.parquet"
    package = "pyarrow"
    refusals = Refusals(classes=ARROW)

    def requirements(self, version: str) -> list[str]:
        # pyarrow <= 14 was built against numpy 1 and does not say so (15 declares numpy<2 itself).
        return [f"pyarrow=={version}", *(["numpy<2"] if version_key(version) < version_key("15") else [])]

    def version(self) -> str:
        import pyarrow

        return pyarrow.__version__

    def read(self, path: str) -> object:
        return self.load().read_table(path)

    def reproducer(self) -> Reproducer:
        return reproducers.python("pyarrow", "import pyarrow as pa\nimport pyarrow.parquet as pq", "pa.__version__",
                                  "return pq.read_table(path)", "pip install pyarrow=={version}")


ADAPTER = PyArrow()
