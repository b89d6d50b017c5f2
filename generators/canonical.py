"""Implementation-neutral rows: every value as a typed, JSON-able token.

Borrowed from toml-test's tagged JSON (`{"type": "integer", "value": "42"}`): integers,
floats, decimals and timestamps travel as strings so that no JSON library rounds them,
NaN and -0.0 stay distinct, and text never compares equal to binary.
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

_EPOCH = dt.datetime(1970, 1, 1)


def canonical_value(v: object) -> object:
    if v is None:
        return None
    if hasattr(v, "item") and not isinstance(v, (bytes, str)):  # numpy scalar
        v = v.item()
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": "nan" if math.isnan(v) else repr(v)}
    if isinstance(v, str):
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return {"bin": bytes(v).hex()}
    if isinstance(v, decimal.Decimal):
        return {"dec": str(v)}
    if isinstance(v, dt.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(dt.UTC).replace(tzinfo=None)
        return {"ts_us": str((v - _EPOCH) // dt.timedelta(microseconds=1))}
    if isinstance(v, dt.date):
        return {"date": v.isoformat()}
    if isinstance(v, dict):
        return {"struct": {str(k): canonical_value(x) for k, x in v.items()}}
    if isinstance(v, (list, tuple)):
        return [canonical_value(x) for x in v]
    raise TypeError(f"no canonical form for {type(v).__name__}")


def canonical_rows(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> dict:
    return {"columns": list(columns), "rows": [[canonical_value(v) for v in row] for row in rows]}


def canonical_table(table: Any) -> dict[str, Any]:
    """Canonical form of a pyarrow Table."""
    cols = [table.column(i).to_pylist() for i in range(table.num_columns)]
    return canonical_rows(table.column_names, zip(*cols, strict=True) if cols else [])


def data_hash(canonical: object) -> str:
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def normalize(canonical: dict) -> dict:
    """Re-canonicalize tokens from another program: `{"float": "1.0E-300"}` becomes
    `{"float": "1e-300"}`, `{"int": "007"}` becomes `{"int": "7"}`. Raises ValueError on
    anything that is not a token."""
    columns = canonical["columns"]
    if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
        raise ValueError("columns must be a list of strings")
    return {"columns": columns, "rows": [[_token(v) for v in row] for row in canonical["rows"]]}


def _token(v: object) -> object:
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, list):
        return [_token(x) for x in v]
    if isinstance(v, dict) and len(v) == 1:
        ((tag, x),) = v.items()
        if tag == "struct" and isinstance(x, dict):
            return {"struct": {str(k): _token(y) for k, y in x.items()}}
        if isinstance(x, str):
            if tag in ("int", "ts_us"):
                return {tag: str(int(x))}
            if tag == "float":
                return canonical_value(float(x))
            if tag == "bin":
                return {"bin": bytes.fromhex(x).hex()}
            if tag in ("dec", "date"):
                return {tag: x}
    raise ValueError(f"not a canonical value: {json.dumps(v)[:80]}")
