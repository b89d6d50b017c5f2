"""The answers of the Parquet operations (docs/adapter-protocol.md#operations; what each must hold:
generators/parquet/operations.py): an adapter's operation returns the library's values as it gave them (`Answer`),
and its `canonical` converts them here, so that a conversion of ours that fails is a harness error, never the
library's outcome."""

from __future__ import annotations

import base64
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from parquet_conformance.conformance.adapters import AdapterError, PythonAdapter
from parquet_conformance.generators.canonical import Canonical, canonical_rows
from parquet_conformance.generators.parquet.keys import COLUMN, FOOTER
from parquet_conformance.generators.parquet.operations import PHYSICAL, unsigned_zero

Row = Sequence[Any]


@dataclass(frozen=True)
class Answer:
    """The rows an operation's library calls gave, and our conversion of each into the answer's values."""

    columns: tuple[str, ...]
    rows: Sequence[Row]
    convert: Callable[[Row], list[Any]] = field(default=list)

    def canonical(self) -> Canonical:
        bounds = [i for i, c in enumerate(self.columns) if c in BOUNDS]
        rows = [self.convert(r) for r in self.rows]
        return canonical_rows(self.columns, [[unsigned_zero(v) if i in bounds else v for i, v in enumerate(row)]
                                             for row in rows])


BOUNDS = ("min", "max")  # a statistics or column index bound: a float zero's sign says nothing (operations.bound)


def from_text(text: str | None, physical: str, blob: bytes | None = None) -> object:
    """A statistics value a library gives as text (DuckDB's stats_min_value, min_value of its page index) as the
    value of its physical type: integers, a FLOAT as the float32 it names (widened exactly), text as UTF-8 bytes, a
    BLOB as the bytes the library's own cast gave (`blob`)."""
    if text is None:
        return None
    if blob is not None:
        return bytes(blob)
    kind = PHYSICAL[physical]
    if kind == PHYSICAL["BOOLEAN"]:
        if text not in ("true", "false"):
            raise ValueError(f"{text[:20]!r} is not a boolean")
        return text == "true"
    if kind in (PHYSICAL["INT32"], PHYSICAL["INT64"]):
        return int(text)
    if kind == PHYSICAL["FLOAT"]:
        return struct.unpack("<f", struct.pack("<f", float(text)))[0]
    if kind == PHYSICAL["DOUBLE"]:
        return float(text)
    return text.encode()


# GeospatialStatistics.geospatial_types: WKB geometry type codes, plus 1000 (Z), 2000 (M) or 3000 (ZM).
GEO_CODES = {"point": 1, "linestring": 2, "polygon": 3, "multipoint": 4, "multilinestring": 5, "multipolygon": 6,
             "geometrycollection": 7}
GEO_DIMENSIONS = {"": 0, "z": 1000, "m": 2000, "zm": 3000}


def geo_code(name: str) -> int:
    """A geometry type a library names in words (DuckDB: `point`, `linestring_z`) as its WKB code."""
    base, _, dims = name.strip().lower().replace(" ", "_").partition("_")
    return GEO_CODES[base] + GEO_DIMENSIONS[dims]


def explicit_keys(keys: Mapping[str, str]) -> dict[str, bytes]:
    """The data keys of a request (`footer`, `column.<path>`) as bytes, for a library that takes explicit keys; a
    request without a footer key is ours to refuse (a harness error: adapters.AdapterError)."""
    if FOOTER not in keys:
        raise AdapterError("the request has no footer data key")
    return {k: base64.b64decode(v, validate=True) for k, v in keys.items() if k == FOOTER or k.startswith(COLUMN)}


class NoDecryption(PythonAdapter):
    """An adapter whose library has no decryption at all (no key parameter in its API, no crypto code in its
    sources: checked per library): asked to read with keys (`decrypt`), it reads as its users can, and what it does
    with an encrypted file is its answer (docs/adapter-protocol.md#keys)."""

    operations: tuple[str, ...] = ("decrypt",)
    keyed: tuple[str, ...] = ("decrypt",)

    def decrypt(self, path: str, keys: Mapping[str, str]) -> Any:
        return self.read(path)
