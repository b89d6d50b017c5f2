"""Our reference reader (conformance/reference.py): aware of every FlatBuffers-footer profile,
data through pyarrow from a footer rebuilt out of the metadata it chose. It answers which
metadata it used, so that aware-role expectations on `decode` can be checked."""

from __future__ import annotations

from conformance.adapters import PythonAdapter, arrow_rows
from conformance.reference import PROFILES, read_table


class Reference(PythonAdapter):
    name = "reference"
    implementation = "parquet-conformance reference reader"
    roles = tuple(f"aware:{p}" for p in PROFILES)
    module = "pyarrow.parquet"

    def version(self) -> str:
        from conformance import __version__

        return __version__

    def read(self, path: str) -> dict:
        with open(path, "rb") as fh:
            table, choice = read_table(fh.read())
        return {**arrow_rows(table), "metadata": choice.metadata}


ADAPTER = Reference()
