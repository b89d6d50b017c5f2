"""A bounded sample of the data a reader returned, kept with the outcome so that a wrong-data cell can show
how it differs from the expected data (reports/datadiff.py), long after the worker answered.

The sample is JSON text: the data seen as a table (`columns`, `rows`; data with no columns, such as decoded
rows or encoded streams, is one column per item), its first rows up to SAMPLE_ROWS and SAMPLE_CHARS, the total
row count, and a digest per column over every row, so that the columns that differ are known even when the
first difference lies beyond the sampled rows. A value longer than VALUE_CHARS is kept as its digest.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

SAMPLE_ROWS = 20
SAMPLE_CHARS = 8000
VALUE_CHARS = 300


def dumps(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def digest(value: object) -> str:
    return hashlib.sha256(dumps(value).encode()).hexdigest()[:16]


def as_table(canonical: object) -> tuple[list[str], list[list[Any]]] | None:
    """The canonical data as (columns, rows): the `columns` and `rows` of a table, or the items of the first list
    it holds (`rows`, `streams`) as one column named after it. None when it holds no list."""
    if not isinstance(canonical, dict):
        return None
    columns, rows = canonical.get("columns"), canonical.get("rows")
    if (isinstance(columns, list) and all(isinstance(c, str) for c in columns) and isinstance(rows, list)
            and all(isinstance(r, list) and len(r) == len(columns) for r in rows)):
        return list(columns), [list(r) for r in rows]
    for key in ("rows", "streams"):
        items = canonical.get(key)
        if isinstance(items, list):
            return [key.removesuffix("s")], [[item] for item in items]
    return None


def placeholder(value: object) -> object:
    """The value itself, or {"digest", "chars"} when its JSON is too long to keep."""
    text = dumps(value)
    return value if len(text) <= VALUE_CHARS else {"digest": digest(value), "chars": len(text)}


def is_placeholder(value: object) -> bool:
    return isinstance(value, dict) and set(value) == {"digest", "chars"}


def column_digests(columns: list[str], rows: list[list[Any]]) -> list[str]:
    return [digest([row[i] for row in rows]) for i in range(len(columns))]


def sample_of(canonical: object) -> str | None:
    """The sample of one answer's canonical data (None: it is not data we can show as a table)."""
    table = as_table(canonical)
    if table is None:
        return None
    columns, rows = table
    kept: list[list[object]] = []
    size = 0
    for row in rows[:SAMPLE_ROWS]:
        short = [placeholder(v) for v in row]
        size += len(dumps(short))
        if size > SAMPLE_CHARS:
            break
        kept.append(short)
    return dumps({"columns": columns, "rows": kept, "total": len(rows), "digests": column_digests(columns, rows)})


def sample_of_texts(columns: list[str], texts: list[list[str]]) -> str:
    """`sample_of` the table whose values' JSON texts are `texts` (one list per column, as canonical.column_texts
    makes them: `dumps` of each token), the same text without remaking the tokens of rows it does not keep."""
    kept: list[list[object]] = []
    size = 0
    for row in list(zip(*texts, strict=True))[:SAMPLE_ROWS]:
        short = [json.loads(t) if len(t) <= VALUE_CHARS else {"digest": _digest_text(t), "chars": len(t)} for t in row]
        size += len(dumps(short))
        if size > SAMPLE_CHARS:
            break
        kept.append(short)
    total = len(texts[0]) if texts else 0
    return dumps({"columns": columns, "rows": kept, "total": total,
                  "digests": [_digest_text(f"[{','.join(col)}]") for col in texts]})


def _digest_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def check_sample(text: str) -> None:
    """ValueError unless `text` is a sample as sample_of writes one (a worker of ours makes it where the data is: the
    reports read it back, so its shape is held here, at the boundary)."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise ValueError(f"not JSON ({e})") from None
    if not isinstance(obj, dict) or set(obj) != {"columns", "rows", "total", "digests"}:
        raise ValueError("not an object of columns, rows, total and digests")
    columns, rows, total, digests = obj["columns"], obj["rows"], obj["total"], obj["digests"]
    if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
        raise ValueError("columns must be a list of strings")
    if not isinstance(rows, list) or len(rows) > SAMPLE_ROWS or not all(
            isinstance(r, list) and len(r) == len(columns) for r in rows):
        raise ValueError(f"rows must be at most {SAMPLE_ROWS} lists of one value per column")
    if not isinstance(total, int) or isinstance(total, bool) or not len(rows) <= total:
        raise ValueError("total must be a count of rows, at least the rows sampled")
    if not isinstance(digests, list) or len(digests) != len(columns) or not all(
            isinstance(d, str) and len(d) == 16 for d in digests):
        raise ValueError("digests must be one 16-character digest per column")
