"""carquet: a Parquet reader and writer in pure C11 (its own Thrift compact decoder, codecs and page decoding),
through its Python package (ctypes over libcarquet.so), which hands each row group over through the Arrow C Data
Interface: `carquet.open_reader(path).read_all()` is a pyarrow Table.

One thread: the reader's `num_threads` defaults to every core (OpenMP).

Representation limits (carquet's Arrow export, taken as it is): DECIMAL columns come back unscaled (INT32 and INT64
as integers, FIXED_LEN_BYTE_ARRAY and BYTE_ARRAY as their bytes), INT96 as its 12 raw bytes, UUID as 16 bytes and
ENUM as text; no schema it exposes says otherwise, so nothing is re-applied here.
"""

from __future__ import annotations

from typing import Any

from parquet_conformance.conformance.adapters import PythonAdapter
from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.adapters.reproducing import Reproducer, Reproducing
from parquet_conformance.conformance.adapters.taxonomy import Refusals


class Carquet(PythonAdapter, Reproducing):
    name = "carquet"
    implementation = "carquet (C11)"
    module = "carquet"
    package = "carquet"
    refusals = Refusals(classes=("carquet.errors.CarquetError",))  # a StatusCode in its message

    def requirements(self, version: str) -> list[str]:
        return [f"{self.package}=={version}", "pyarrow"]  # its Arrow export, and the harness's canonical form

    def version(self) -> str:
        carquet = self.load()
        return f"{carquet.__version__}"

    def read(self, path: str) -> Any:
        with self.load().open_reader(path, num_threads=1) as reader:
            return reader.read_all()

    def reproducer(self) -> Reproducer:
        return reproducers.python(
            "carquet", "import carquet\nimport pyarrow as pa", "carquet.__version__",
            "with carquet.open_reader(path, num_threads=1) as reader:\n    return reader.read_all()",
            "pip install carquet=={version} pyarrow")


ADAPTER = Carquet()
