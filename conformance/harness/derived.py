"""Schemas derived from the records, never written by hand: the Arrow schemas of the staging and results
datasets, and the JSON Schemas of the manifest and the adapter protocol (reports/schemas.py writes them,
with results.json's, as files for other languages).
"""

from __future__ import annotations

import dataclasses
import typing
from enum import Enum
from typing import Any, get_args, get_origin

import pyarrow as pa

from parquet_conformance.conformance.harness import protocol
from parquet_conformance.conformance.harness.model import Cell, OutcomeRow
from parquet_conformance.corpus.model import manifest_schema
from parquet_conformance.kernel.documents import JSON_SCHEMA, document_schema, json_type, unwrap_optional

__all__ = ["OUTCOME_SCHEMA", "RESULT_SCHEMA", "arrow_schema", "document_schema", "manifest_schema", "protocol_schema"]


def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


# -- Arrow -------------------------------------------------------------------------------------


def _arrow_type(hint: Any) -> pa.DataType:
    if isinstance(hint, type) and issubclass(hint, Enum):
        return pa.string()
    if hint in (str,):
        return pa.string()
    if hint is int:
        return pa.int64()
    if hint is float:
        return pa.float64()
    if hint is bool:
        return pa.bool_()
    if get_origin(hint) is list:
        return pa.list_(_arrow_type(get_args(hint)[0]))
    raise TypeError(f"no Arrow type for {hint!r}")


def arrow_schema(cls: type) -> pa.Schema:
    """A flat record's Arrow schema: one column per field, nullable where the field may be None."""
    hints = _hints(cls)
    cols = []
    for f in dataclasses.fields(cls):
        hint, nullable = unwrap_optional(hints[f.name])
        cols.append(pa.field(f.name, _arrow_type(hint), nullable=nullable))
    return pa.schema(cols)


OUTCOME_SCHEMA = arrow_schema(OutcomeRow)
RESULT_SCHEMA = arrow_schema(Cell)


# -- JSON Schema (derived by kernel/documents.py, which also checks documents against it) --------------


def protocol_schema() -> dict[str, Any]:
    """Every message of the adapter protocol, each a definition; a line is any one of them."""
    defs: dict[str, Any] = {}
    messages = (protocol.StartRequest, protocol.ReadRequest, protocol.WriteRequest, protocol.StopRequest,
                protocol.StartReply, protocol.UnavailableReply, protocol.DataAnswer, protocol.DigestAnswer,
                protocol.WrittenAnswer, protocol.ErrorAnswer)
    for cls in messages:
        json_type(cls, defs)
    # A `read` answer carries the track's data fields (Parquet: columns, rows) beside these.
    return {"$schema": JSON_SCHEMA, "title": "parquet-conformance adapter protocol, version "
            f"{protocol.PROTOCOL_VERSION}: one JSON object per line",
            "anyOf": [{"$ref": f"#/$defs/{cls.__name__}"} for cls in messages], "$defs": dict(sorted(defs.items()))}
