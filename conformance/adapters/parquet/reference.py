"""Our reference reader (generators/parquet/reference.py): aware of every FlatBuffers-footer profile and
strict (every footer it uses passes our strict decoder and the profiles' checks before any data is read);
data through pyarrow from a footer rebuilt out of the metadata it chose. It answers which metadata it
used, so that aware-role expectations on `decode` can be checked. It passes every case of the default
corpus by construction (docs/spec-notes.md#the-reference-reader)."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import metadata
from typing import Any

from parquet_conformance.conformance.adapters import PythonAdapter
from parquet_conformance.conformance.adapters.parquet.pyarrow import ARROW
from parquet_conformance.conformance.adapters.taxonomy import Refusals
from parquet_conformance.corpus.model import GENERATOR_VERSION
from parquet_conformance.generators.canonical import ArrowData
from parquet_conformance.generators.parquet.reference import PROFILES, read_table


class Reference(PythonAdapter):
    name = "reference"
    cell_cost_s = 0.03
    implementation = "parquet-conformance reference reader"
    roles = tuple(f"aware:{p}" for p in PROFILES)
    module = "pyarrow.parquet"
    # Its own refusals (the strict decoder's, the profiles', the Thrift codec's), then pyarrow's on the data.
    refusals = Refusals(classes=(*ARROW, *(f"parquet_conformance.generators.parquet.{name}" for name in (
        "reference.ReferenceError", "footer.FooterError", "profiles.ProfileError", "thrift.ThriftError",
        "parx.ParxError"))))

    def version(self) -> str:
        return GENERATOR_VERSION

    def library_version(self) -> str | None:
        """Our code (the fingerprint's digest) and the pyarrow that reads the data."""
        return f"{GENERATOR_VERSION} pyarrow {metadata.version('pyarrow')}"

    def read(self, path: str) -> Any:
        with open(path, "rb") as fh:
            return read_table(fh.read())

    def canonical(self, result: Any) -> Mapping[str, Any]:
        table, choice = result
        return ArrowData(table, choice.metadata)


ADAPTER = Reference()
