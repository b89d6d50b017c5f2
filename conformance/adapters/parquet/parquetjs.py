"""@dsnp/parquetjs, a pure JavaScript reader (Apache Thrift's JS library for the footer), run by Node.js
from a private npm prefix (conformance/harness/envs.py). Pinned to 1.8.9: the `latest` 1.9.3 tarball ships
without dist/ and cannot be loaded. Its worker (js/parquetjs_worker.mjs) turns the library's raw
3-level list shape into tokens.

It writes too: `write_source` turns the table into the library's schema object and rows (in its shapes: a list is
{list: [{element: v}]}), which the worker appends one by one to a ParquetWriter, as its users write."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from parquet_conformance.conformance.adapters import CommandAdapter, require_program
from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.adapters.parquet.values import NOT_SCALAR, tagged
from parquet_conformance.conformance.adapters.reproducing import Reproducer, Reproducing
from parquet_conformance.conformance.adapters.writing import NotExpressible, Writer
from parquet_conformance.conformance.harness.envs import ensure, environment
from parquet_conformance.generators.parquet.write_sizes import PAGE_ROWS, ROW_GROUP_ROWS

WORKER = Path(__file__).parent / "js" / "parquetjs_worker.mjs"
# ParquetWriter's options per profile ("field": per column; pageSize counts rows). It writes DATA_PAGE_V2 and a page
# index by default,
# never dictionary-encodes, and compresses with UNCOMPRESSED, GZIP, SNAPPY or BROTLI (no ZSTD).
OPTIONS: dict[str, dict[str, Any]] = {
    "default": {}, "v2": {}, "no-dictionary": {}, "no-statistics": {"field": {"statistics": False}},
    "page-index": {"pageSize": PAGE_ROWS}, "row-groups": {"rowGroupSize": ROW_GROUP_ROWS}}


class ParquetJs(CommandAdapter, Writer, Reproducing):
    name = "parquetjs"
    implementation = "@dsnp/parquetjs (JavaScript)"
    index = "npm"
    package = "@dsnp/parquetjs"
    release = "1.8.9"
    profiles = tuple(OPTIONS)

    def command(self) -> list[str]:
        node = require_program("node")
        return [node, "--max-old-space-size=4096", str(WORKER), str(ensure(environment(self)))]

    def reproducer(self) -> Reproducer:
        """repro/parquetjs.tmpl reads as the worker's `read` does and turns values into tokens with the worker's own
        functions (copied in), then into plain values."""
        return reproducers.node("parquetjs.tmpl", "parquetjs_worker.mjs", "npm install @dsnp/parquetjs@{version}",
                                read=("keepRawTemporal", "bigFromBytes", "decimal", "float", "isList", "maps",
                                      "mapPaths", "token", "read"))

    def write_source(self, table: Any, profile: str) -> bytes:
        options = dict(OPTIONS[profile])
        extra = options.pop("field", {})
        schema = {f.name: {**_field(f.type), **extra} for f in table.schema}
        rows = [{k: _value(v, table.schema.field(k).type) for k, v in row.items() if v is not None}
                for row in table.to_pylist()]
        return json.dumps({"schema": schema, "rows": rows, "options": options}).encode()


INTS = {(8, True): "INT_8", (16, True): "INT_16", (32, True): "INT32", (64, True): "INT64",
        (8, False): "UINT_8", (16, False): "UINT_16", (32, False): "UINT_32", (64, False): "UINT_64"}


def _field(t: Any) -> dict[str, Any]:
    """The library's schema entry of a column (every column optional, as the table's are nullable)."""
    import pyarrow as pa

    out: dict[str, Any] = {"optional": True}
    if pa.types.is_integer(t):
        return {**out, "type": INTS[(t.bit_width, pa.types.is_signed_integer(t))]}
    simple = {pa.float64(): "DOUBLE", pa.float32(): "FLOAT", pa.bool_(): "BOOLEAN", pa.string(): "UTF8",
              pa.large_string(): "UTF8", pa.binary(): "BYTE_ARRAY", pa.large_binary(): "BYTE_ARRAY",
              pa.date32(): "DATE"}
    if t in simple:
        return {**out, "type": simple[t]}
    if pa.types.is_decimal(t) and t.precision <= 18:
        return {**out, "type": "DECIMAL", "precision": t.precision, "scale": t.scale}
    if pa.types.is_timestamp(t) and t.unit in ("ms", "us") and t.tz is None:
        return {**out, "type": "TIMESTAMP_MILLIS" if t.unit == "ms" else "TIMESTAMP_MICROS"}
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        element = {"element": _field(t.value_type)}
        return {**out, "type": "LIST", "fields": {"list": {"repeated": True, "fields": element}}}
    if pa.types.is_struct(t):
        return {**out, "fields": {f.name: _field(f.type) for f in t}}
    raise NotExpressible(f"no @dsnp/parquetjs schema type here for {t}")


def _value(v: Any, t: Any) -> Any:
    """A value in the library's shape; 64-bit integers, bytes and non-finite floats tagged for the worker."""
    import pyarrow as pa

    if v is None:
        return None
    if (scalar := tagged(v, t)) is not NOT_SCALAR:
        return scalar
    if pa.types.is_timestamp(t):
        since = v - dt.datetime(1970, 1, 1)
        return since // dt.timedelta(milliseconds=1) if t.unit == "ms" else {"$big": str(since // dt.timedelta(
            microseconds=1))}
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return {"list": [{"element": _value(x, t.value_type)} if x is not None else {} for x in v]}
    if pa.types.is_struct(t):
        return {f.name: _value(v.get(f.name), f.type) for f in t if v.get(f.name) is not None}
    return v


ADAPTER = ParquetJs()
