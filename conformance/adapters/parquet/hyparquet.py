"""hyparquet, a pure JavaScript reader, run by Node.js. It is installed with npm into a private
prefix at first use (conformance/harness/envs.py; `hyparquet@VERSION` runs another release); its worker
(js/hyparquet_worker.mjs, with the protocol's loop in js/protocol.mjs) uses only the adapter protocol, and so
doubles as the example of an external adapter.

It writes too, with hyparquet-writer (its own npm package and prefix, WRITER): `write_source` turns the table into
the document its worker hands to `parquetWriteFile` (a schema of SchemaElements, as a user of hyparquet-writer spells
one, and each column's values)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from parquet_conformance.conformance.adapters import CommandAdapter, require_program
from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.adapters.parquet.values import NOT_SCALAR, decimal_bytes, tagged
from parquet_conformance.conformance.adapters.reproducing import Reproducer, Reproducing
from parquet_conformance.conformance.adapters.writing import NotExpressible, Writer
from parquet_conformance.conformance.harness.envs import Env, ensure, environment
from parquet_conformance.generators.parquet.write_sizes import PAGE_BYTES, ROW_GROUP_ROWS

WORKER = Path(__file__).parent / "js" / "hyparquet_worker.mjs"
WRITER = Env("npm", "hyparquet-writer", "0.17.0", ("hyparquet-writer@0.17.0",))
# parquetWriteFile's options per profile ("extra": per column). It writes DATA_PAGE_V2 always, a ColumnIndex only when
# asked (an OffsetIndex by default), and compresses only with SNAPPY unless the caller brings a compressor (no ZSTD in
# Node 20's zlib).
OPTIONS: dict[str, dict[str, Any]] = {
    "default": {}, "v2": {}, "no-dictionary": {"extra": {"encoding": "PLAIN"}},
    "no-statistics": {"statistics": False}, "page-index": {"pageSize": PAGE_BYTES, "extra": {"columnIndex": True}},
    "row-groups": {"rowGroupSize": ROW_GROUP_ROWS}}
UNIT = {"ms": "MILLIS", "us": "MICROS", "ns": "NANOS"}


class Hyparquet(CommandAdapter, Writer, Reproducing):
    name = "hyparquet"
    implementation = "hyparquet (JavaScript)"
    index = "npm"
    package = "hyparquet"
    release = "1.31.5"  # pinned: a new hyparquet is a deliberate change of the matrix
    profiles = tuple(OPTIONS)

    def command(self) -> list[str]:
        node = require_program("node")
        return [node, "--max-old-space-size=4096", str(WORKER), str(ensure(environment(self))), str(ensure(WRITER))]

    def write_source(self, table: Any, profile: str) -> bytes:
        options = dict(OPTIONS[profile])
        extra = options.pop("extra", {})
        schema: list[dict[str, Any]] = [{"name": "root", "num_children": table.num_columns}]
        columns = []
        for field in table.schema:
            schema += _elements(field.name, field.type)
            columns.append({"name": field.name, "data": _values(table.column(field.name).combine_chunks(), field.type),
                            "extra": extra})
        return json.dumps({"schema": schema, "columns": columns, "options": options}).encode()

    def reproducer(self) -> Reproducer:
        """repro/hyparquet.tmpl reads as the worker's `read` does, and turns values into plain ones as it does."""
        return reproducers.node("hyparquet.tmpl", "hyparquet_worker.mjs", "npm install hyparquet@{version}")


def _elements(name: str, t: Any, rep: str = "OPTIONAL") -> list[dict[str, Any]]:
    """The SchemaElements of a column, depth first (hyparquet-writer's `schema` option)."""
    import pyarrow as pa

    e: dict[str, Any] = {"name": name, "repetition_type": rep}
    if pa.types.is_integer(t) and t.bit_width <= 32:
        signed = pa.types.is_signed_integer(t)
        if signed and t.bit_width == 32:
            return [{**e, "type": "INT32"}]
        return [{**e, "type": "INT32", "converted_type": f"{'' if signed else 'U'}INT_{t.bit_width}",
                 "logical_type": {"type": "INTEGER", "bitWidth": t.bit_width, "isSigned": signed}}]
    if pa.types.is_int64(t):
        return [{**e, "type": "INT64"}]
    simple = {pa.float64(): "DOUBLE", pa.float32(): "FLOAT", pa.bool_(): "BOOLEAN"}
    if t in simple:
        return [{**e, "type": simple[t]}]
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return [{**e, "type": "BYTE_ARRAY", "converted_type": "UTF8", "logical_type": {"type": "STRING"}}]
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return [{**e, "type": "BYTE_ARRAY"}]
    if pa.types.is_fixed_size_binary(t) and not isinstance(t, pa.ExtensionType):
        return [{**e, "type": "FIXED_LEN_BYTE_ARRAY", "type_length": t.byte_width}]
    if pa.types.is_decimal(t) and t.precision <= 38:
        physical = "INT32" if t.precision <= 9 else "INT64" if t.precision <= 18 else "FIXED_LEN_BYTE_ARRAY"
        width = {"type_length": decimal_bytes(t.precision)} if physical == "FIXED_LEN_BYTE_ARRAY" else {}
        return [{**e, "type": physical, **width, "converted_type": "DECIMAL", "scale": t.scale,
                 "precision": t.precision, "logical_type": {"type": "DECIMAL", "scale": t.scale,
                                                            "precision": t.precision}}]
    if pa.types.is_date32(t):
        return [{**e, "type": "INT32", "converted_type": "DATE", "logical_type": {"type": "DATE"}}]
    if pa.types.is_timestamp(t) and t.unit in UNIT:
        unit = UNIT[t.unit]
        converted = {"converted_type": f"TIMESTAMP_{unit}"} if unit != "NANOS" else {}
        return [{**e, "type": "INT64", **converted,
                 "logical_type": {"type": "TIMESTAMP", "isAdjustedToUTC": t.tz is not None, "unit": unit}}]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [{**e, "num_children": 1, "converted_type": "LIST", "logical_type": {"type": "LIST"}},
                {"name": "list", "repetition_type": "REPEATED", "num_children": 1},
                *_elements("element", t.value_type)]
    if pa.types.is_struct(t):
        children = [x for f in t for x in _elements(f.name, f.type)]
        return [{**e, "num_children": t.num_fields}, *children]
    raise NotExpressible(f"no hyparquet-writer schema here for {t}")


def _values(arr: Any, t: Any) -> list[Any]:
    """A column's values for hyparquet-writer: 64-bit integers, bytes and non-finite floats tagged ($big, $hex, $f:
    the worker revives them), temporal values as the integers of their unit, decimals unscaled."""
    import pyarrow as pa

    if pa.types.is_date32(t) or pa.types.is_timestamp(t):
        return [None if v is None else {"$big": str(v)} if pa.types.is_timestamp(t) else v
                for v in arr.view(pa.int64() if pa.types.is_timestamp(t) else pa.int32()).to_pylist()]
    return [_value(v, t) for v in arr.to_pylist()]


def _value(v: Any, t: Any) -> Any:
    import pyarrow as pa

    if v is None:
        return None
    if (scalar := tagged(v, t)) is not NOT_SCALAR:
        return scalar
    if pa.types.is_timestamp(t):
        if t.unit == "ns":
            raise NotExpressible("nanosecond timestamps inside a list or struct")
        since = v.replace(tzinfo=None) - dt.datetime(1970, 1, 1)
        return {"$big": str(since // dt.timedelta(microseconds={"ms": 1000, "us": 1}[t.unit]))}
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [_value(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return {f.name: _value(v.get(f.name), f.type) for f in t}
    return v


ADAPTER = Hyparquet()
