"""The strict reference for Skiff case documents (docs/skiff.md), and `inspect` for them.

A case file is one JSON document, readable without our code:
- decode: `{"format": {"table_skiff_schemas": [...], "skiff_schema_registry": {...}}, "stream": "<hex>"}`: a
  job's input stream (seed 004: every table through one pipe, a u16 table index before each row);
- encode: `{"format": {...}, "rows": [[table_index, {column: token}], ...]}`: rows a job writes; the result is
  one output stream per table (each row behind the index 0 of a variant16 with that one table).

Strict: the seed's table rules (schema.table_layout), the codec's bounds, and every yson32 value must be YSON
(a dense or sparse yson32 column is parsed, `$other_columns` must be a map). `lenient` is the upstream
reading of the rules the seed states narrowly; it builds the data of `either` cases, it is never a verdict.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from . import codec, tokens, yson
from .schema import (
    SkiffSchema,
    TableLayout,
    WireType,
    optional_inner,
    parse_format_attributes,
    short_string,
    table_layout,
)

__all__ = ["decode", "dump", "encode", "input_stream", "inspect_document", "load", "tables"]


def load(data: bytes) -> dict[str, Any]:
    """A case document; ValueError unless it is a JSON object with a format and a stream or rows."""
    try:
        doc = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"not a Skiff case document (JSON): {e}") from None
    if not isinstance(doc, dict) or "format" not in doc or ("stream" in doc) == ("rows" in doc):
        raise ValueError("a Skiff case document is an object with `format` and either `stream` or `rows`")
    return doc


def dump(doc: Mapping[str, Any]) -> bytes:
    """The bytes of a case document: stable (sorted keys), ASCII, one key per line."""
    return (json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=True) + "\n").encode()


def tables(doc: Mapping[str, Any]) -> list[SkiffSchema]:
    fmt = doc["format"]
    if not isinstance(fmt, Mapping):
        raise ValueError("format: must be a map of format attributes")
    return parse_format_attributes(fmt)


def _layouts(doc: Mapping[str, Any], lenient: bool) -> tuple[list[SkiffSchema], list[TableLayout]]:
    schemas = tables(doc)
    return schemas, [table_layout(t, lenient=lenient) for t in schemas]


def _yson_columns(layout: TableLayout) -> set[str]:
    return {str(c.name) for c in (*layout.dense, *layout.sparse)
            if c.wire_type == WireType.YSON32 or getattr(optional_inner(c, True), "wire_type", None) == WireType.YSON32}


def decode(doc: Mapping[str, Any], lenient: bool = False) -> list[codec.Row]:
    """The rows of a decode document's stream, yson32 columns parsed."""
    schemas, layouts = _layouts(doc, lenient)
    stream = doc.get("stream")
    if not isinstance(stream, str):
        raise ValueError("stream: must be a hex string")
    rows = codec.decode_rows(schemas, bytes.fromhex(stream), lenient=lenient)
    out: list[codec.Row] = []
    for index, columns in rows:
        parsed = dict(columns)
        for name in _yson_columns(layouts[index]) & parsed.keys():
            raw = parsed[name]
            assert isinstance(raw, bytes)
            try:
                parsed[name] = yson.loads(raw)
            except yson.YsonError as e:
                raise yson.YsonError(f"row {len(out)}.{name}: yson32 is not YSON: {e}") from None
        out.append((index, parsed))
    return out


def _python_rows(rows: object, layouts: Sequence[TableLayout]) -> list[tuple[int, dict[str, yson.YsonValue]]]:
    """Encode rows (tokens) as the codec's values: yson32 columns as our YSON text."""
    if not isinstance(rows, list):
        raise ValueError("rows: must be a list of [table_index, {column: token}]")
    out = []
    for number, row in enumerate(rows):
        if not (isinstance(row, list) and len(row) == 2 and type(row[0]) is int and isinstance(row[1], dict)):
            raise ValueError(f"row {number}: must be [table_index, {{column: token}}]")
        index, columns = row
        if not 0 <= index < len(layouts):
            raise codec.SkiffEncodeError(f"row {number}: table index {index} is out of range [0, {len(layouts)})")
        yson_columns = _yson_columns(layouts[index])
        values: dict[str, yson.YsonValue] = {}
        for name, tok in columns.items():
            v = tokens.value(tok)
            values[name] = yson.dumps(v) if name in yson_columns and v is not None else v
        out.append((index, values))
    return out


def encode(doc: Mapping[str, Any], lenient: bool = False) -> list[bytes]:
    """One output stream per table: its rows, each behind table index 0."""
    schemas, layouts = _layouts(doc, lenient)
    rows = _python_rows(doc.get("rows"), layouts)
    return [codec.encode_rows([schema], [(0, cols) for index, cols in rows if index == i], lenient=lenient)
            for i, schema in enumerate(schemas)]


def input_stream(doc: Mapping[str, Any], lenient: bool = False) -> bytes:
    """The job input stream (every table, u16 table index per row) that carries an encode document's rows."""
    schemas, layouts = _layouts(doc, lenient)
    return codec.encode_rows(schemas, _python_rows(doc.get("rows"), layouts), lenient=lenient)


def inspect_document(data: bytes) -> dict[str, Any]:
    """What a case file holds, and whether the strict reference decodes (or encodes) it."""
    report: dict[str, Any] = {"valid": False, "error": None, "op": None, "tables": None}
    try:
        doc = load(data)
        report["op"] = "decode" if "stream" in doc else "encode"
        report["tables"] = [short_string(t) for t in tables(doc)]
        if report["op"] == "decode":
            report["data"] = tokens.rows_data(decode(doc))
        else:
            report["data"] = tokens.streams_data(doc["format"], encode(doc))
        report["valid"] = True
    except ValueError as e:
        report["error"] = str(e).splitlines()[0] if str(e) else type(e).__name__
    return report


def describe(report: Mapping[str, Any]) -> str:
    lines = [f"Skiff {report.get('op') or 'document'}: " + ("valid" if report["valid"] else "INVALID")]
    for i, table in enumerate(report.get("tables") or []):
        lines.append(f"  table {i}: {table}")
    data = report.get("data") or {}
    if "rows" in data:
        lines += [f"  row {n}: table {t} {json.dumps(cols, sort_keys=True)}"
                  for n, (t, cols) in enumerate(data["rows"])]
    for i, stream in enumerate(data.get("streams", [])):
        lines.append(f"  stream {i}: {json.dumps(stream)}")
    if report.get("error"):
        lines.append(f"  error: {report['error']}")
    return "\n".join(lines)
