"""Skiff bases: a format and rows, as a decode document (the rows' input stream) or an encode document (the
rows to write). A base's expected data is what a `read` must return: the rows (decode) or the output streams
(encode), in the canonical form of `tokens`. Bases are cheap; the catalog makes one per expectation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from . import reference, tokens


@dataclass(frozen=True)
class Base:
    name: str
    description: str
    op: Literal["decode", "encode"]
    format: Mapping[str, Any]
    rows: Sequence[Sequence[Any]]  # [[table_index, {column: token}], ...]
    # The upstream reading of the table rules builds the stream and the data (cases expecting `either`).
    lenient: bool = False
    # Explicit bytes, where the data is a reading our encoder does not write (e.g. a boolean byte 2 as true):
    stream: str | None = None  # decode: the input stream, hex
    streams: tuple[str, ...] | None = None  # encode: the output streams, hex

    def __post_init__(self) -> None:
        if not self.name.startswith("skiff-"):
            raise ValueError(f"Skiff base {self.name!r}: names start with 'skiff-' (they share a namespace)")

    def document(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"format": self.format, "rows": [list(r) for r in self.rows]}
        if self.op == "decode":
            stream = self.stream or reference.input_stream(doc, lenient=self.lenient).hex()
            doc = {"format": self.format, "stream": stream}
        return doc

    def file(self) -> bytes:
        return reference.dump(self.document())

    def expected(self) -> dict[str, Any]:
        if self.op == "decode":
            return tokens.normalize({"rows": [list(r) for r in self.rows]})
        streams = ([bytes.fromhex(s) for s in self.streams] if self.streams is not None
                   else reference.encode(self.document(), lenient=self.lenient))
        return tokens.streams_data(self.format, streams)
