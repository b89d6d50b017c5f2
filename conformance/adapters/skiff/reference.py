"""Our strict Skiff reference (generators/skiff/reference.py) as an adapter, in the same isolated workers."""

from __future__ import annotations

from typing import Any

from parquet_conformance.conformance.adapters.skiff import Decoded, Encoded, SkiffAdapter
from parquet_conformance.conformance.adapters.taxonomy import Refusals
from parquet_conformance.corpus.model import GENERATOR_VERSION
from parquet_conformance.generators.skiff import reference, tokens


class SkiffReference(SkiffAdapter):
    name = "skiff-reference"
    implementation = "parquet-conformance Skiff reference (Python)"
    module = "parquet_conformance.generators.skiff.reference"
    # Every error it raises on purpose is a ValueError: SkiffDecodeError, SkiffEncodeError, SkiffSchemaError, YsonError.
    refusals = Refusals(classes=("builtins.ValueError",))

    def version(self) -> str:
        return GENERATOR_VERSION

    def library_version(self) -> str | None:
        return GENERATOR_VERSION  # our code alone: the fingerprint's digest covers it

    def _doc(self, path: str) -> dict[str, Any]:
        with open(path, "rb") as fh:
            return reference.load(fh.read())

    def decode(self, path: str) -> Decoded:
        return Decoded([(index, list(columns.items())) for index, columns in reference.decode(self._doc(path))])

    def encode(self, path: str) -> Encoded:
        doc = self._doc(path)
        return Encoded(doc["format"], reference.encode(doc))

    def token(self, value: Any) -> object:
        return tokens.token(value)


ADAPTER = SkiffReference()
