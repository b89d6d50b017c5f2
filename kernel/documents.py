"""JSON documents we read back (a manifest, a run record, a worker's answer): the JSON Schema of each is derived
from its record, and every document is held to it here, with limits on size and depth, before any code uses it.

- `object_schema` / `document_schema`: a record (a dataclass) as JSON Schema. A field's `metadata["schema"]` adds
  its limits (`maxLength`, `pattern`, `minimum`, `propertyNames`, `required` keys of a mapping, ...), `items` and
  `values` those of a list's items and a mapping's values. The committed files are written from these
  (`python -m parquet_conformance.reports.schemas`).
- `parse`: bytes -> JSON within a size and a depth, strict (RFC 8259: no NaN or Infinity, no number that is not
  finite), never more than a DocumentError.
- `validate`: a document against a derived schema: the first problem, named by its path (`cases[3].size: ...`).
  A small checker of the subset the derivation writes (type, properties, required, additionalProperties, items,
  enum, anyOf, $ref, string, number and array limits, propertyNames): no dependency at run time, messages of our
  own, and a test holds it to the `jsonschema` package on the same schemas and arbitrary documents.
"""

from __future__ import annotations

import copy
import dataclasses
import errno
import json
import math
import os
import re
import stat
import types
import typing
from collections.abc import Mapping
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

JSON_SCHEMA = "https://json-schema.org/draft/2020-12/schema"
MAX_DEPTH = 64  # arrays and objects inside one another; no record of ours comes near it
# Text that stays one line in a table and a file name's neighbour: no control character, no lone surrogate.
PRINTABLE = "^[^\\u0000-\\u001f\\u007f\\ud800-\\udfff]*$"


class DocumentError(ValueError):
    """A JSON document that is not what its record allows: the message names where and what."""


# -- schemas from records ----------------------------------------------------------------------------


def unwrap_optional(hint: Any) -> tuple[Any, bool]:
    if get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        if len(args) < len(get_args(hint)):
            return (args[0] if len(args) == 1 else typing.Union[tuple(args)]), True  # noqa: UP007
    return hint, False


def json_type(hint: Any, defs: dict[str, Any], limits: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON Schema of a type hint; `limits` (a field's metadata["schema"]) apply to the value, not to null."""
    hint, nullable = unwrap_optional(hint)
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
        out = {"type": "array", "items": json_type(get_args(hint)[0], defs, (limits or {}).get("items"))}
        limits = {k: v for k, v in (limits or {}).items() if k != "items"}
    elif get_origin(hint) in (dict, Mapping) or hint is dict:
        value = get_args(hint)[1] if get_args(hint) else Any
        out = {"type": "object", "additionalProperties": json_type(value, defs, (limits or {}).get("values"))}
        limits = {k: v for k, v in (limits or {}).items() if k != "values"}
    elif get_origin(hint) in (typing.Union, types.UnionType):
        out = {"anyOf": [json_type(a, defs) for a in get_args(hint)]}
    elif isinstance(hint, type) and dataclasses.is_dataclass(hint):
        defs.setdefault(hint.__name__, None)
        if defs[hint.__name__] is None:
            defs[hint.__name__] = object_schema(hint, defs)
        out = {"$ref": f"#/$defs/{hint.__name__}"}
    else:
        raise TypeError(f"no JSON Schema for {hint!r}")
    out = {**out, **(limits or {})}
    if nullable:
        return {"anyOf": [out, {"type": "null"}]}
    return out


def json_name(f: dataclasses.Field[Any]) -> str:
    return str(f.metadata.get("json", f.name))


def object_schema(cls: type, defs: dict[str, Any], *, open_: bool = True) -> dict[str, Any]:
    """A record as a JSON object: every field a property; required unless it has a default. `open_`: later
    versions may add keys (readers ignore what they do not know)."""
    hints = typing.get_type_hints(cls)
    props, required = {}, []
    for f in dataclasses.fields(cls):
        props[json_name(f)] = json_type(hints[f.name], defs, f.metadata.get("schema"))
        no_default = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        # A discriminator (a Literal, or a field marked required) is required even when the record defaults it.
        if no_default or get_origin(hints[f.name]) is Literal or f.metadata.get("required"):
            required.append(json_name(f))
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
        json_type(cls, defs)
    return {"$schema": JSON_SCHEMA, "title": title, **schema, "$defs": dict(sorted(defs.items()))}


@cache
def record_schema(root: type) -> dict[str, Any]:
    """The schema a record's documents are checked against (derived once per process)."""
    return document_schema(root.__name__, root)


@cache
def records_schema(item: type) -> dict[str, Any]:
    """The schema of a JSON array of records."""
    defs: dict[str, Any] = {}
    items = json_type(item, defs)
    return {"$schema": JSON_SCHEMA, "title": f"list of {item.__name__}", "type": "array", "items": items,
            "$defs": defs}


# -- parsing -----------------------------------------------------------------------------------------


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


def parse(data: bytes | str, max_bytes: int, max_depth: int | None = MAX_DEPTH) -> object:
    """Strict JSON within `max_bytes` and `max_depth` (None: the caller checks the depth itself, when it knows what
    the document is); DocumentError (what is wrong, without the where) otherwise."""
    if len(data) > max_bytes:
        raise DocumentError(f"larger than {max_bytes} bytes")
    try:
        value = json.loads(data, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:  # Python's parser recurses: far below any depth a caller allows, it stops here
        raise DocumentError("nested too deep to parse") from None
    except ValueError as e:  # not JSON, not UTF-8, an integer of more digits than Python converts
        raise DocumentError(f"not JSON ({_short(str(e))})") from None
    if max_depth is not None and (d := depth(value, max_depth)) > max_depth:
        raise DocumentError(f"nested deeper than {max_depth} ({d} levels at least)")
    return value


def depth(value: object, stop: int = MAX_DEPTH) -> int:
    """How deep arrays and objects nest (a scalar: 0), without recursion, a level at a time (a worker's answer holds
    every row of a table: each value is looked at once); counting stops past `stop`."""
    level, frontier = 0, [value]
    while containers := [x for x in frontier if isinstance(x, (list, dict))]:
        level += 1
        if level > stop:
            return level
        frontier = []
        for c in containers:
            frontier.extend(c.values() if isinstance(c, dict) else c)
    return level


_LEAVES = (str, int, float, bool, type(None), Enum)


def plain(record: object) -> dict[str, Any]:
    """A record as JSON-ready data, as `dataclasses.asdict` makes it but without deep-copying each value: our records
    hold strings, numbers, enums, lists, dicts and records, so that copying is most of asdict's time (a run's
    16,000 cells: seconds). Anything else is deep-copied, as asdict does."""
    if not dataclasses.is_dataclass(record) or isinstance(record, type):
        raise TypeError(f"plain() takes a record, not {type(record).__name__}")
    return {name: _plain(getattr(record, name)) for name in _field_names(type(record))}


def _plain(value: Any) -> Any:
    if isinstance(value, _LEAVES):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return plain(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        items = [_plain(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    return copy.deepcopy(value)


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def read_bytes(path: Path, max_bytes: int, *, links: bool = True) -> bytes:
    """A regular file's bytes, at most `max_bytes`: DocumentError naming the file for a FIFO, a device, a directory,
    a symbolic link (`links=False`: inside a corpus) or a larger file, or what the system says."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if links else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)  # O_NONBLOCK: opening a FIFO does not wait for a writer
    except OSError as e:
        what = "a symbolic link" if e.errno == errno.ELOOP and not links else e.strerror or str(e)
        raise DocumentError(f"{path}: {what}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # before fdopen, which refuses a folder in its own words
        os.close(fd)
        raise DocumentError(f"{path}: not a regular file")
    with os.fdopen(fd, "rb") as f:
        try:
            data = f.read(max_bytes + 1)
        except OSError as e:
            raise DocumentError(f"{path}: {e.strerror or e}") from None
    if len(data) > max_bytes:
        raise DocumentError(f"{path}: larger than {max_bytes} bytes")
    return data


def read_json(path: Path, max_bytes: int, schema: Mapping[str, Any] | None = None, *, links: bool = True) -> Any:
    """A JSON file checked against `schema`: DocumentError `PATH: field: what` otherwise."""
    data = read_bytes(path, max_bytes, links=links)
    try:
        value = parse(data, max_bytes)
    except DocumentError as e:
        raise DocumentError(f"{path}: {e}") from None
    if schema is not None:
        validate(value, schema, str(path))
    return value


# -- checking ------------------------------------------------------------------------------------------

_KNOWN = {"$schema", "title", "description", "$defs", "type", "properties", "required", "additionalProperties",
          "items", "enum", "anyOf", "$ref", "maxLength", "minLength", "pattern", "minimum", "maximum", "maxItems",
          "uniqueItems", "propertyNames", "maxProperties"}
_TYPES: dict[str, Any] = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def validate(value: object, schema: Mapping[str, Any], where: str = "") -> None:
    """DocumentError naming the first field of `value` that `schema` does not allow (`where: path: what`)."""
    _audit(schema)
    problem = _check(value, schema, schema)
    if problem is not None:
        steps, what = problem
        raise DocumentError(": ".join(p for p in (where, _path(steps), what) if p))


def problem_of(value: object, schema: Mapping[str, Any]) -> str | None:
    """The first problem as text, or None: for callers that collect problems rather than stop."""
    try:
        validate(value, schema)
    except DocumentError as e:
        return str(e)
    return None


def _is(value: object, kind: str) -> bool:  # JSON Schema's types: a bool is no integer
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[kind])


@cache
def _pattern(pattern: str) -> re.Pattern[str]:
    # JSON Schema patterns search; an anchored one must match whole (Python's `$` also matches before a final \n).
    if pattern.startswith("^") and pattern.endswith("$") and not pattern.endswith("\\$"):
        return re.compile(f"(?:{pattern[1:-1]})\\Z")
    return re.compile(pattern)


def _matches(pattern: str, text: str) -> bool:
    compiled = _pattern(pattern)
    return bool(compiled.match(text) if compiled.pattern.endswith("\\Z") else compiled.search(text))


def shown(value: object) -> str:
    """A value of a document in a message: short, printable."""
    return _show(value)


def _show(value: object) -> str:
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "an array"
    return _short(repr(value[:80] if isinstance(value, str) else value))


def _short(text: str, limit: int = 60) -> str:
    cut = text if len(text) <= limit else text[:limit] + "..."
    return "".join(c if c.isprintable() else "\ufffd" for c in cut)


_AUDITED: set[int] = set()


def _audit(schema: object) -> None:
    """Every keyword of a schema is one the checker applies (a schema is audited once per process)."""
    if id(schema) in _AUDITED:
        return
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            if unknown := set(node) - _KNOWN:
                raise TypeError(f"the checker does not know {sorted(unknown)}")
            for key, sub in node.items():
                if key in ("properties", "$defs"):
                    stack.extend(sub.values())
                elif key in ("items", "anyOf", "additionalProperties", "propertyNames"):
                    stack.append(sub)
    _AUDITED.add(id(schema))


Problem = tuple[list[object], str]  # (the path, innermost step first; what is wrong)


def _check(value: object, schema: Mapping[str, Any], root: Mapping[str, Any]) -> Problem | None:
    if "$ref" in schema:
        return _check(value, root["$defs"][str(schema["$ref"]).removeprefix("#/$defs/")], root)
    if "anyOf" in schema:
        options = [(option, _check(value, option, root)) for option in schema["anyOf"]]
        if not all(problem for _, problem in options):
            return None
        # the problem of the option the value was meant for: not null, and the one it went deepest into
        meant = [p for o, p in options if o.get("type") != "null" and p] or [p for _, p in options if p]
        return max(meant, key=lambda p: len(p[0]))
    kind = schema.get("type")
    if kind is not None and not _is(value, kind):
        return [], f"{_show(value)} is not {'an' if kind in ('integer', 'object', 'array') else 'a'} {kind}"
    if "enum" in schema and not any(value == e and type(value) is type(e) for e in schema["enum"]):
        return [], f"{_show(value)} is not one of {', '.join(map(repr, schema['enum']))}"
    if isinstance(value, str):
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            return [], f"longer than {schema['maxLength']} characters"
        if "minLength" in schema and len(value) < schema["minLength"]:
            return [], f"shorter than {schema['minLength']} characters"
        if "pattern" in schema and not _matches(schema["pattern"], value):
            return [], f"{_show(value)} does not match {schema['pattern']}"
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return [], f"{_show(value)} is less than {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return [], f"{_show(value)} is more than {schema['maximum']}"
    elif isinstance(value, list):
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            return [], f"more than {schema['maxItems']} items"
        if schema.get("uniqueItems") and len({json.dumps(v, sort_keys=True) for v in value}) < len(value):
            return [], "an item appears twice"
        if "items" in schema:
            items = schema["items"]
            for i, item in enumerate(value):
                if found := _check(item, items, root):
                    found[0].append(i)
                    return found
    elif isinstance(value, dict):
        if "maxProperties" in schema and len(value) > schema["maxProperties"]:
            return [], f"more than {schema['maxProperties']} keys"
        for key in schema.get("required", ()):
            if key not in value:
                return [], f"{key!r} is required"
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        names = schema.get("propertyNames")
        for key, item in value.items():
            if names is not None and (found := _check(key, names, root)):
                return [key], f"the key {found[1]}"
            sub = props.get(key)
            if sub is None:
                if extra is False:
                    return [key], "is not allowed here"
                if extra is True:
                    continue
                sub = extra
            if found := _check(item, sub, root):
                found[0].append(key)
                return found
    return None


def _path(steps: list[object]) -> str:
    out = ""
    for step in reversed(steps):
        if isinstance(step, int):
            out += f"[{step}]"
        elif _plain_key(str(step)):
            out += f".{step}"
        else:
            out += f"[{_show(step)}]"
    return out.lstrip(".")


def _plain_key(key: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z0-9_:/.+-]{1,80}", key))
