"""The toy track's one reader: an adapter is one file and one registration line."""

from __future__ import annotations

from typing import Any

from parquet_conformance.conformance.adapters import PythonAdapter
from tests.toy import parse


class ToyReader(PythonAdapter):
    name = "toy-reader"
    implementation = "toy reader (tests)"
    track_name = "toy"  # it lives outside conformance/adapters/<track>/
    roles = ("reader",)
    module = "json"  # nothing to install

    def version(self) -> str:
        return "1"

    def read(self, path: str) -> Any:
        with open(path, "rb") as fh:
            return parse(fh.read())

    def canonical(self, result: Any) -> dict[str, Any]:
        return result


ADAPTER = ToyReader()
