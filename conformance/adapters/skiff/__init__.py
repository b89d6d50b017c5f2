"""Adapters for Skiff codecs (the Skiff track): each runs a case's `decode` or `encode` inside its worker.

`decode(path)` returns a `Decoded` (per row: the table index and the (column, value) pairs the library gave),
`encode(path)` an `Encoded` (the output streams the library wrote); `canonical` turns them into the answer
fields of docs/skiff.md, through the adapter's own `token` for the library's value types. The track's
`normalize` does the rest (null columns, YSON segments) on the harness side, the same for every adapter.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from parquet_conformance.conformance.adapters import PythonAdapter


@dataclass(frozen=True)
class Decoded:
    rows: list[tuple[int, list[tuple[str, Any]]]]


@dataclass(frozen=True)
class Encoded:
    format: Any
    streams: list[bytes]


def load_case(path: str) -> dict[str, Any]:
    """A case document as a user of the library would hold it: the format attributes and a stream or rows."""
    with open(path, "rb") as fh:
        doc = json.load(fh)
    if not isinstance(doc, dict) or not isinstance(doc.get("format"), dict):
        raise ValueError(f"{path}: not a Skiff case document")
    return doc


class SkiffAdapter(PythonAdapter):
    roles = ("codec",)
    operations = ("decode", "encode")

    def token(self, value: Any) -> object:
        """The canonical token (generators/skiff/tokens.py) of one value the library returned."""
        raise NotImplementedError

    def canonical(self, result: Any) -> dict[str, Any]:
        if isinstance(result, Encoded):
            return {"format": result.format, "streams": [bytes(s).hex() for s in result.streams]}
        if not isinstance(result, Decoded):
            raise TypeError(f"a Skiff operation returned {type(result).__name__}")
        rows: list[object] = []
        for index, items in result.rows:
            pairs = [[str(name), self.token(value)] for name, value in items]
            unique = len({name for name, _ in pairs}) == len(pairs)
            rows.append([index, {name: tok for name, tok in pairs} if unique else pairs])  # a column twice: pairs
        return {"rows": rows}
