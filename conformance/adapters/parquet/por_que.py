"""por-que: a pure-Python Parquet reader (its own Thrift compact parser, page decoding and record assembly), as
its README reads a local file: `ParquetFile.from_reader(ensure_async_reader(f), path)`, then
`await pf.read_all_data(reader)`, a dict from column to its values.

por-que needs Python >= 3.13: the adapter is pinned to 0.5.0 in an environment of its own, made by uv from a
Python >= 3.13 found on the machine (`uv python find`, PATH, pyenv; envs.find_python), and is unavailable, in
one line, where there is none.

Representation limits: timestamps come back as datetimes (nanoseconds cut to microseconds); a DECIMAL as a Python
Decimal without its trailing zeros (-90 for -90.00), given its column's scale again from por-que's own schema
(top-level columns). What else it returns is taken as it is (INT32 and INT64 decimals as unscaled integers are its
finding, not repaired here).
"""

from __future__ import annotations

import decimal
from typing import Any

from parquet_conformance.conformance.adapters import PythonAdapter
from parquet_conformance.conformance.adapters.taxonomy import Refusals
from parquet_conformance.generators.canonical import canonical_rows

# The messages of the ValueErrors its own code raises on purpose (por_que/physical.py, schema.py, enums.py, ...).
OWN_CHECKS = ("Multiple dictionary pages", r"Data page index \d+ is out of range", "Column index path",
              "Data page path", "Schema must be parsed", "Compression codec", "Could not resolve schema element type",
              "Parent group not found", "Found parent group", r".* is not a valid \w+ name", "cannot coerce",
              "Column chunk path", "Root assembler", "Unexpected boundary")


class PorQue(PythonAdapter):
    name = "por-que"
    cell_cost_s = 0.04
    implementation = "por-que (pure Python)"
    module = "por_que"
    package = "por-que"
    release = "0.5.0"
    python = (3, 13)
    # Its exception hierarchy (PorQueError: ParquetFormatError, ParquetCorruptedError, ThriftParsingError, ...) and
    # the ValueErrors its own checks raise; its codecs' errors leak as they are (snappy's UncompressError, ZstdError)
    # and count as theirs. A TypeError or AttributeError from its record assembly is not a refusal.
    refusals = Refusals(
        classes=("por_que.exceptions.PorQueError", "snappy.UncompressError", "cramjam.DecompressionError",
                 "zstandard.ZstdError", "zlib.error", "gzip.BadGzipFile"),
        messages=(("builtins.ValueError", "^(" + "|".join(OWN_CHECKS) + ")"),))

    def requirements(self, version: str) -> list[str]:
        return [f"por-que=={version}", "pyarrow"]  # pyarrow: the harness's canonical form imports it

    def version(self) -> str:
        from importlib import metadata

        return metadata.version("por-que")

    def read(self, path: str) -> Any:
        import asyncio

        return asyncio.run(self._read(path))

    async def _read(self, path: str) -> Any:
        from por_que import ParquetFile
        from por_que.util.async_adapter import ensure_async_reader

        with open(path, "rb") as fh:
            reader = ensure_async_reader(fh)
            parquet_file = await ParquetFile.from_reader(reader, path)
            return await parquet_file.read_all_data(reader), parquet_file

    def canonical(self, result: Any) -> dict[str, Any]:
        data, parquet_file = result
        # its schema, asked after the read (ours: the scales its decimals lost)
        children = parquet_file.metadata.schema_root.children
        scales = {name: leaf.scale for name, leaf in children.items() if getattr(leaf, "scale", None) is not None}
        columns = list(data)
        values = [[_scaled(v, scales.get(c)) for v in data[c]] for c in columns]
        return canonical_rows(columns, zip(*values, strict=True))


def _scaled(v: Any, scale: int | None) -> Any:
    """A Decimal at its column's scale (por-que drops trailing zeros: -90 for -90.00), when that changes no digit; an
    integer (its unscaled INT32 and INT64 decimals) stays as it is."""
    if scale is None or not isinstance(v, decimal.Decimal) or not v.is_finite():
        return v
    exact = v.quantize(decimal.Decimal(1).scaleb(-scale))
    return exact if exact == v else v


ADAPTER = PorQue()
