"""Schemas derived from the records, never written by hand: the Arrow schemas of the staging and results
datasets, and the JSON Schemas of the manifest and the adapter protocol (reports/schemas.py writes them,
with results.json's, as files for other languages).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from enum import Enum
from typing import Any, Literal, get_args, get_origin

import pyarrow as pa

from parquet_conformance.conformance.harness import protocol
from parquet_conformance.conformance.harness.model import Cell, OutcomeRow
from parquet_conformance.corpus.model import BaseEntry, CaseEntry, Citation, Manifest

JSON_SCHEMA = "https://json-schema.org/draft/2020-12/schema"


def _optional(hint: Any) -> tuple[Any, bool]:
    if get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        if len(args) < len(get_args(hint)):
            return (args[0] if len(args) == 1 else typing.Union[tuple(args)]), True  # noqa: UP007
    return hint, False


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
        hint, nullable = _optional(hints[f.name])
        cols.append(pa.field(f.name, _arrow_type(hint), nullable=nullable))
    return pa.schema(cols)


OUTCOME_SCHEMA = arrow_schema(OutcomeRow)
RESULT_SCHEMA = arrow_schema(Cell)


# -- JSON Schema -------------------------------------------------------------------------------


def _json_type(hint: Any, defs: dict[str, Any]) -> dict[str, Any]:
    hint, nullable = _optional(hint)
    out: dict[str, Any]
    if hint is Any or hint is object:
        out = {}
    elif isinstance(hint, type) and issubclass(hint, Enum):
        out = {"enum": [m.value for m in hint]}
    elif get_origin(hint) is Literal:
        out = {"enum": list(get_args(hint))}
    elif hint is str:
        out = {"type": "string"}
    elif hint is bool:
        out = {"type": "boolean"}
    elif hint is int:
        out = {"type": "integer"}
    elif hint is float:
        out = {"type": "number"}
    elif get_origin(hint) in (list, tuple):
        out = {"type": "array", "items": _json_type(get_args(hint)[0], defs)}
    elif get_origin(hint) is dict:
        out = {"type": "object", "additionalProperties": _json_type(get_args(hint)[1], defs)}
    elif get_origin(hint) in (typing.Union, types.UnionType):
        out = {"anyOf": [_json_type(a, defs) for a in get_args(hint)]}
    elif isinstance(hint, type) and dataclasses.is_dataclass(hint):
        defs.setdefault(hint.__name__, None)
        if defs[hint.__name__] is None:
            defs[hint.__name__] = object_schema(hint, defs)
        out = {"$ref": f"#/$defs/{hint.__name__}"}
    else:
        raise TypeError(f"no JSON Schema for {hint!r}")
    if nullable:
        return {"anyOf": [out, {"type": "null"}]}
    return out


def _json_name(f: dataclasses.Field[Any]) -> str:
    return str(f.metadata.get("json", f.name))


def object_schema(cls: type, defs: dict[str, Any], *, open_: bool = True) -> dict[str, Any]:
    """A record as a JSON object: every field a property; required unless it has a default. `open_`: later
    versions may add keys (readers ignore what they do not know)."""
    hints = _hints(cls)
    props, required = {}, []
    for f in dataclasses.fields(cls):
        props[_json_name(f)] = _json_type(hints[f.name], defs)
        no_default = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        # A discriminator (a Literal, or a field marked required) is required even when the record defaults it.
        if no_default or get_origin(hints[f.name]) is Literal or f.metadata.get("required"):
            required.append(_json_name(f))
    schema: dict[str, Any] = {"type": "object", "properties": props, "required": required}
    if cls.__doc__ and not cls.__doc__.startswith(cls.__name__ + "("):
        schema["description"] = " ".join(cls.__doc__.split())
    if not open_:
        schema["additionalProperties"] = False
    return schema


def document_schema(title: str, root: type, extra_defs: tuple[type, ...] = ()) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    schema = object_schema(root, defs)
    for cls in extra_defs:
        _json_type(cls, defs)
    return {"$schema": JSON_SCHEMA, "title": title, **schema, "$defs": dict(sorted(defs.items()))}


def manifest_schema() -> dict[str, Any]:
    return document_schema("parquet-conformance manifest.json", Manifest, (CaseEntry, BaseEntry, Citation))


def protocol_schema() -> dict[str, Any]:
    """Every message of the adapter protocol, each a definition; a line is any one of them."""
    defs: dict[str, Any] = {}
    messages = (protocol.StartRequest, protocol.ReadRequest, protocol.WriteRequest, protocol.StopRequest,
                protocol.StartReply, protocol.UnavailableReply, protocol.DataAnswer, protocol.WrittenAnswer,
                protocol.ErrorAnswer)
    for cls in messages:
        _json_type(cls, defs)
    # A `read` answer carries the track's data fields (Parquet: columns, rows) beside these.
    return {"$schema": JSON_SCHEMA, "title": "parquet-conformance adapter protocol, version "
            f"{protocol.PROTOCOL_VERSION}: one JSON object per line",
            "anyOf": [{"$ref": f"#/$defs/{cls.__name__}"} for cls in messages], "$defs": dict(sorted(defs.items()))}
