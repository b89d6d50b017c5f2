"""The Skiff track's canonical data (docs/skiff.md): decoded rows and encoded streams as typed tokens.

A value is a token of generators/canonical.py where one fits: `null`, `true`/`false`, `{"int": "42"}`,
`{"float": "1.5"}`, `{"bin": "<hex>"}` (string32 bytes and YSON strings: both are byte strings), a list, and
`{"struct": {...}}` for a YSON map. One token is Skiff's own: `{"uint": "42"}`, a YSON uint64 (`42u`), which
YSON keeps apart from the int64 `42`. Integer and double columns need no such tag: the schema types them.

- decode: `{"rows": [[table_index, {column: token}], ...]}`. A column whose value is null (a variant8 tag 0, a
  YSON `#`) is left out: in a YTsaurus row a null column and a missing one are the same thing. A row whose
  reader returned one column twice is a list of `[column, token]` pairs instead, so that it never matches.
- encode: `{"streams": [stream, ...]}`, one per output table (seed 004: the output format reads each table
  from its own pipe). A stream is a list of segments: hex strings for its bytes, and `{"yson": token}` for each
  yson32 field (length and body), since the seed fixes the bytes of every wire type but not the spelling of
  YSON (`{foo=bar}`, `{"foo"="bar";}` and binary YSON are one value). A stream that does not decode under its
  table schema, or whose YSON does not parse, is `{"raw": "<hex>"}`: still exact, never equal to a good one.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import codec, yson
from .schema import SkiffSchema, SkiffSchemaError, parse_format_attributes

__all__ = ["normalize", "rows_data", "streams_data", "token", "value"]


def token(v: object) -> object:
    """The token of a decoded value (column values and YSON values alike)."""
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, yson.YsonUint64):
        return {"uint": str(int(v))}
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": "nan" if math.isnan(v) else repr(v)}
    if isinstance(v, bytes):
        return {"bin": v.hex()}
    if isinstance(v, list):
        return [token(x) for x in v]
    if isinstance(v, dict):
        return {"struct": {str(k): token(x) for k, x in v.items()}}
    raise TypeError(f"no Skiff token for {type(v).__name__}")


def value(tok: object) -> yson.YsonValue:
    """The value a token stands for; ValueError if it is no token."""
    if tok is None or isinstance(tok, bool):
        return tok
    if isinstance(tok, list):
        return [value(x) for x in tok]
    if isinstance(tok, dict) and len(tok) == 1:
        ((tag, x),) = tok.items()
        try:
            if tag == "struct" and isinstance(x, dict):
                return {str(k): value(y) for k, y in x.items()}
            if tag == "int" and isinstance(x, str):
                return int(x)
            if tag == "uint" and isinstance(x, str) and int(x) >= 0:
                return yson.YsonUint64(int(x))
            if tag == "float" and isinstance(x, str):
                return float(x)
            if tag == "bin" and isinstance(x, str):
                return bytes.fromhex(x)
        except ValueError:
            pass
    raise ValueError(f"not a Skiff token: {str(tok)[:80]}")


def _canonical_token(tok: object) -> object:
    if isinstance(tok, str):  # another program's text: Skiff strings are bytes
        return {"bin": tok.encode().hex()}
    return token(value(tok))


def _row(row: object) -> list[object]:
    if not (isinstance(row, list | tuple) and len(row) == 2 and type(row[0]) is int and row[0] >= 0):
        raise ValueError(f"a row is [table_index, columns], got {str(row)[:80]}")
    index, columns = row
    pairs = list(columns.items()) if isinstance(columns, Mapping) else columns
    if not isinstance(pairs, list) or not all(isinstance(p, list | tuple) and len(p) == 2 and isinstance(p[0], str)
                                              for p in pairs):
        raise ValueError(f"row columns are a map or [name, value] pairs, got {str(columns)[:80]}")
    kept = [(name, _canonical_token(tok)) for name, tok in pairs if tok is not None]
    if len({name for name, _ in kept}) < len(kept):
        return [index, sorted(([name, tok] for name, tok in kept), key=lambda p: (p[0], json.dumps(p[1])))]
    return [index, dict(kept)]


def rows_data(rows: Iterable[tuple[int, Mapping[str, yson.YsonValue]]]) -> dict[str, Any]:
    """Decode data from decoded rows (Python values)."""
    return {"rows": [_row([index, {name: token(v) for name, v in columns.items()}]) for index, columns in rows]}


def streams_data(format_attributes: object, streams: Sequence[bytes]) -> dict[str, Any]:
    """Encode data: each output stream as segments, its yson32 fields as values (module docstring)."""
    try:
        if not isinstance(format_attributes, Mapping):
            raise SkiffSchemaError("the format is not a map")
        tables: list[SkiffSchema] | None = parse_format_attributes(format_attributes)
    except SkiffSchemaError:
        tables = None
    return {"streams": [_segments(tables[i] if tables and i < len(tables) else None, data)
                        for i, data in enumerate(streams)]}


def _segments(table: SkiffSchema | None, data: bytes) -> object:
    if table is None:
        return {"raw": data.hex()}
    try:
        spans = codec.yson_spans([table], data)  # the output stream: variant16 with this one table
        out: list[object] = []
        end = 0
        for start, stop in spans:
            if start > end:
                out.append(data[end:start].hex())
            out.append({"yson": token(yson.loads(data[start + 4:stop]))})
            end = stop
        if end < len(data):
            out.append(data[end:].hex())
        return out
    except (codec.SkiffDecodeError, yson.YsonError):
        return {"raw": data.hex()}


def normalize(answer: Mapping[str, Any]) -> dict[str, Any]:
    """A worker's `read` answer as canonical data: `rows` (decode), or `format` and `streams` as hex (encode).
    ValueError if it holds neither."""
    if "rows" in answer:
        rows = answer["rows"]
        if not isinstance(rows, list):
            raise ValueError("rows must be a list")
        return {"rows": [_row(r) for r in rows]}
    if "streams" in answer:
        streams = answer["streams"]
        if not isinstance(streams, list) or not all(isinstance(s, str) for s in streams):
            raise ValueError("streams must be a list of hex strings")
        try:
            raw = [bytes.fromhex(s) for s in streams]
        except ValueError:
            raise ValueError("streams must be hex strings") from None
        return streams_data(answer.get("format"), raw)
    raise ValueError("a Skiff answer holds `rows` (decode) or `streams` (encode)")
