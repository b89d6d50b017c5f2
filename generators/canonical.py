"""Implementation-neutral data: every value as a typed, JSON-able token.

Borrowed from toml-test's tagged JSON (`{"type": "integer", "value": "42"}`): integers, floats,
decimals and temporal values travel as strings so that no JSON library rounds them, NaN and -0.0
stay distinct, and text never compares equal to binary.

    null, true, false        themselves
    "text"                   UTF-8 text (a text value a reader returns that is not UTF-8 is its bytes, {"bin": ...})
    {"int": "42"}            an integer of any width
    {"float": "1.5"}         repr of the double (float16 and float32 widened exactly), "nan", "inf", "-0.0"
    {"bin": "00ff"}          bytes, as hex
    {"dec": "12.34"}         a decimal, at its scale
    {"date": "2001-02-03"}   a date (proleptic Gregorian; years outside 0..9999 as "+10000-01-01", "-0001-...")
    {"ts_ns": "..."}         a timestamp: nanoseconds since 1970-01-01 as written, whatever the unit or zone
    {"time_ns": "..."}       a time of day: nanoseconds since midnight
    {"uuid": "…-…"}          a UUID, lowercase with hyphens
    {"bin": "…"}             also an interval, in the 12 bytes of Parquet's INTERVAL (months, days, millis;
                             u32 LE each), whichever Arrow interval type a reader returns
    [...]                    a list; a map is a list of [key, value] pairs
    {"struct": {...}}        a struct, field name -> value

Temporal values are integers in one unit, so a reader that returns microseconds and one that returns
nanoseconds for the same instant compare equal, and no value outside Python's datetime range (year
1..9999) can make the conversion fail. Arrow data is converted column by column from the Arrow
buffers (`canonical_table`); `canonical_value` converts the Python values other readers give.
Older tokens from external workers (`ts_us`, `ts_ms`, `time_us`, `time_ms`) are accepted by
`normalize` and become the tokens above.
"""

from __future__ import annotations

import datetime as dt
import decimal
import functools
import hashlib
import json
import json.encoder
import math
import re
import struct
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pyarrow is imported where Arrow data is read: a worker whose reader returns none (a codec of
    import pyarrow as pa  # rows) starts without it, in half the time

_UNIT_NS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}
_EPOCH = dt.datetime(1970, 1, 1)
_EPOCH_DATE = dt.date(1970, 1, 1)


# -- dates in any year (Howard Hinnant's civil_from_days / days_from_civil) ------------------------


def date_text(days: int) -> str:
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    y = yoe + era * 400 + (m <= 2)
    year = f"{y:04d}" if 0 <= y <= 9999 else f"{y:+05d}"  # ISO 8601: four digits, signed beyond them
    return f"{year}-{m:02d}-{d:02d}"


def date_days(text: str) -> int:
    sign = -1 if text.startswith("-") else 1
    year_s, month_s, day_s = text.lstrip("+-").rsplit("-", 2)
    y, m, d = sign * int(year_s), int(month_s), int(day_s)
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


class Canonical(dict[str, Any]):
    """Table data (`columns`, `rows`; an aware reader's `metadata`) as this module's converters make it, which a
    track judges after `normalize` (the Parquet track's normalize is exactly that). A worker of ours hashes such data
    where it is made, normalized the same way (conformance/harness/worker.py); data of any other form goes to the
    harness, which applies the track's own normalize."""


class Normal(Canonical):
    """Canonical data from Arrow buffers (`canonical_table`), already what `normalize` makes of it (every token is
    made in its normal form: tests/test_canonical.py holds it as a property over Arrow types), so a worker of ours
    hashes it as it is."""


# -- Arrow data -----------------------------------------------------------------------------------


def canonical_table(table: Any) -> Normal:
    """Canonical form of a pyarrow Table."""
    cols = [canonical_array(table.column(i)) for i in range(table.num_columns)]
    return Normal(columns=list(table.column_names), rows=[list(r) for r in zip(*cols, strict=True)])


def _ints(arr: pa.Array) -> list[int | None]:
    """The integer behind each value of a temporal array, read from its buffers (no Python datetime)."""
    import pyarrow as pa

    width = pa.int32() if arr.type.bit_width == 32 else pa.int64()
    return arr.view(width).to_pylist()


def _interval(months: int, days: int, millis: int) -> dict[str, str]:
    return {"bin": struct.pack("<III", months & 0xFFFFFFFF, days & 0xFFFFFFFF, millis & 0xFFFFFFFF).hex()}


@functools.cache
def _day_time_id() -> int:
    """pyarrow before 20 has no name for this type id (nor a way to make such an array)."""
    import pyarrow as pa

    return int(getattr(pa.lib, "Type_INTERVAL_DAY_TIME", -1))


@functools.cache
def _list_view_ids() -> frozenset[int]:
    """pyarrow before 16 has no list views (so nothing can return one)."""
    import pyarrow as pa

    return frozenset(getattr(pa.lib, n, -2) for n in ("Type_LIST_VIEW", "Type_LARGE_LIST_VIEW"))


def _day_time(arr: pa.ChunkedArray) -> list[object]:
    """Arrow's day_time_interval, which pyarrow's Python layer cannot hand over (arrow-rs returns Parquet INTERVAL
    this way): read through nanoarrow. It has no months, so a reader that returns it loses them."""
    import nanoarrow

    return [None if v is None else _interval(0, *v) for v in nanoarrow.Array(arr).iter_py()]


def canonical_array(arr: pa.Array | pa.ChunkedArray) -> list[object]:
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        if arr.type.id == _day_time_id():
            return _day_time(arr)
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    t = arr.type
    if pa.types.is_interval(t):  # month_day_nano
        return [None if v is None else _interval(v.months, v.days, v.nanoseconds // 1_000_000)
                for v in arr.to_pylist()]
    if isinstance(t, pa.ExtensionType):
        if t.extension_name == "arrow.uuid":
            return [None if b is None else {"uuid": str(uuid.UUID(bytes=b))} for b in arr.storage.to_pylist()]
        return canonical_array(arr.storage)
    if pa.types.is_dictionary(t):
        return canonical_array(arr.dictionary_decode())
    if pa.types.is_timestamp(t):
        return [None if v is None else {"ts_ns": str(v * _UNIT_NS[t.unit])} for v in _ints(arr)]
    if pa.types.is_date32(t):
        return [None if v is None else {"date": date_text(v)} for v in _ints(arr)]
    if pa.types.is_date64(t):
        return [None if v is None else {"date": date_text(v // 86_400_000)} for v in _ints(arr)]
    if pa.types.is_time(t):
        return [None if v is None else {"time_ns": str(v * _UNIT_NS[t.unit])} for v in _ints(arr)]
    if t.id in _list_view_ids():
        return canonical_array(arr.cast(pa.large_list(t.value_type)))
    if pa.types.is_map(t):
        arr = arr.take(pa.array(range(len(arr)), pa.int64()))  # a copy whose keys and items are its own entries
        pairs = [[k, v] for k, v in zip(canonical_array(arr.keys), canonical_array(arr.items), strict=True)]
        offsets, valid = arr.offsets.to_pylist(), arr.is_valid().to_pylist()
        return [pairs[offsets[i]:offsets[i + 1]] if valid[i] else None for i in range(len(arr))]
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return _split(arr, canonical_array(arr.flatten()))
    if pa.types.is_string(t) or pa.types.is_large_string(t):  # read as bytes: a reader may not have checked UTF-8
        binary = pa.binary() if pa.types.is_string(t) else pa.large_binary()
        return [None if b is None else _text(b) for b in arr.view(binary).to_pylist()]
    if pa.types.is_struct(t):
        fields = [(t.field(i).name, canonical_array(arr.field(i))) for i in range(t.num_fields)]
        valid = arr.is_valid().to_pylist()
        return [{"struct": {name: values[j] for name, values in fields}} if valid[j] else None
                for j in range(len(arr))]
    return [canonical_value(v) for v in arr.to_pylist()]


# -- Arrow data as JSON text, for hashing where the data is ------------------------------------------

dumps = functools.partial(json.dumps, sort_keys=True, separators=(",", ":"), ensure_ascii=True)  # data_hash's text
_quote = json.encoder.encode_basestring_ascii  # what `dumps` does to a string


def column_texts(arr: pa.Array | pa.ChunkedArray) -> list[str]:
    """Each value's token as `dumps` writes it (`dumps(canonical_array(arr)[i])`: tests/test_canonical.py holds it as a
    property), made straight from the values for the flat types, which is most of any reader's data; other types go
    through their tokens."""
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        if arr.type.id == _day_time_id():
            return [dumps(v) for v in _day_time(arr)]
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    t = arr.type
    if pa.types.is_integer(t):
        return ["null" if v is None else f'{{"int":"{v}"}}' for v in arr.to_pylist()]
    if pa.types.is_boolean(t):
        return ["null" if v is None else "true" if v else "false" for v in arr.to_pylist()]
    if pa.types.is_floating(t):  # float16 and float32 widened exactly, as canonical_value widens them
        return ["null" if v is None else '{"float":"nan"}' if v != v else f'{{"float":"{v!r}"}}'
                for v in arr.cast(pa.float64()).to_pylist()]
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        binary = pa.binary() if pa.types.is_string(t) else pa.large_binary()
        return ["null" if b is None else _text_json(b) for b in arr.view(binary).to_pylist()]
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return ["null" if b is None else f'{{"bin":"{b.hex()}"}}' for b in arr.to_pylist()]
    if pa.types.is_timestamp(t) or pa.types.is_time(t):
        tag, unit = ("ts_ns" if pa.types.is_timestamp(t) else "time_ns"), _UNIT_NS[t.unit]
        return ["null" if v is None else f'{{"{tag}":"{v * unit}"}}' for v in _ints(arr)]
    if pa.types.is_date32(t):
        return ["null" if v is None else f'{{"date":"{date_text(v)}"}}' for v in _ints(arr)]
    if pa.types.is_decimal(t):
        return ["null" if v is None else f'{{"dec":"{v}"}}' for v in arr.to_pylist()]
    return [dumps(v) for v in canonical_array(arr)]


def _text_json(raw: bytes) -> str:
    try:
        return str(_quote(raw.decode("utf-8")))
    except UnicodeDecodeError:
        return f'{{"bin":"{raw.hex()}"}}'


def texts_hash(columns: Sequence[str], texts: Sequence[Sequence[str]]) -> str:
    """`data_hash` of the table whose values' JSON texts are `texts` (one list per column): the same text, joined."""
    rows = ",".join(f"[{','.join(row)}]" for row in zip(*texts, strict=True))
    return hashlib.sha256(f'{{"columns":{dumps(list(columns))},"rows":[{rows}]}}'.encode()).hexdigest()


class ArrowData(Mapping[str, Any]):
    """A reader's Arrow table as canonical data, made when it is asked for: `columns`, `rows` (the tokens of
    `canonical_table`, made once, on first use) and an aware reader's `metadata`; `texts()` gives each column's values
    as JSON text straight from Arrow, which is what a worker of ours hashes (canonical.Normal data, it needs no
    normalize)."""

    def __init__(self, table: Any, metadata: str | None = None) -> None:
        self.table, self.metadata = table, metadata
        self._rows: list[list[object]] | None = None

    def _keys(self) -> list[str]:
        return ["columns", "rows", *(["metadata"] if self.metadata is not None else [])]

    def __getitem__(self, key: str) -> Any:
        if key == "columns":
            return list(self.table.column_names)
        if key == "rows":
            if self._rows is None:
                self._rows = canonical_table(self.table)["rows"]
            return self._rows
        if key == "metadata" and self.metadata is not None:
            return self.metadata
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    def texts(self) -> list[list[str]]:
        return [column_texts(self.table.column(i)) for i in range(self.table.num_columns)]


def _text(raw: bytes) -> object:
    """A text value a reader returned: itself, or, when it is not UTF-8 (the reader returned the file's bytes
    unchecked), those bytes: that is the reader's read, never equal to any text, not a failure of ours."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return {"bin": raw.hex()}


def _split(arr: pa.Array, values: list[object]) -> list[object]:
    """`values` (the flattened children) cut back into the lists of `arr`, with its null lists."""
    lengths = arr.value_lengths().to_pylist()  # null for a null list, whose values flatten() skipped
    valid = arr.is_valid().to_pylist()
    out: list[object] = []
    pos = 0
    for n, ok in zip(lengths, valid, strict=True):
        out.append(values[pos:pos + n] if ok else None)
        pos += n or 0
    return out


# -- Python values --------------------------------------------------------------------------------


def canonical_value(v: object) -> object:
    if v is None:
        return None
    if hasattr(v, "value") and hasattr(v, "to_pydatetime"):  # a pandas Timestamp: its nanoseconds, unrounded
        return {"ts_ns": str(v.value)}
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
        return {"ts_ns": str((v - _EPOCH) // dt.timedelta(microseconds=1) * 1000)}
    if isinstance(v, dt.date):
        return {"date": date_text((v - _EPOCH_DATE).days)}
    if isinstance(v, dt.time):
        us = ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
        return {"time_ns": str(us * 1000)}
    if isinstance(v, uuid.UUID):
        return {"uuid": str(v)}
    if isinstance(v, dict):
        return {"struct": {str(k): canonical_value(x) for k, x in v.items()}}
    if isinstance(v, (list, tuple)):
        return [canonical_value(x) for x in v]
    raise TypeError(f"no canonical form for {type(v).__name__}")


def canonical_rows(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> Canonical:
    return Canonical(columns=list(columns), rows=[[canonical_value(v) for v in row] for row in rows])


def data_hash(canonical: object) -> str:
    return hashlib.sha256(dumps(canonical).encode()).hexdigest()


# -- tokens from other programs -------------------------------------------------------------------

_SCALE_NS = {"ts_ns": ("ts_ns", 1), "ts_us": ("ts_ns", 1000), "ts_ms": ("ts_ns", 1_000_000),
             "time_ns": ("time_ns", 1), "time_us": ("time_ns", 1000), "time_ms": ("time_ns", 1_000_000)}
# The number forms a token may take (docs/adapter-protocol.md): plain decimal digits, a sign, a point and an
# exponent of a few digits; no underscores, spaces or hex that Python's own parsers would take; bounded, so
# that no conversion costs more than the line it came in.
MAX_DIGITS = 400
INT_FORM = re.compile(rf"[+-]?[0-9]{{1,{MAX_DIGITS}}}")
_DIGITS = f"[0-9]{{1,{MAX_DIGITS}}}"
_DECIMAL = rf"[+-]?(?:{_DIGITS}(?:\.[0-9]{{0,{MAX_DIGITS}}})?|\.{_DIGITS})(?:[eE][+-]?[0-9]{{1,6}})?"
DEC_FORM = re.compile(_DECIMAL)
FLOAT_FORM = re.compile(rf"{_DECIMAL}|[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
DATE_FORM = re.compile(r"(?:[0-9]{4}|[+-][0-9]{4,9})-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])")
HEX_FORM = re.compile(r"(?:[0-9a-fA-F]{2})*")


def normalize(canonical: dict[str, Any]) -> dict[str, Any]:
    """Re-canonicalize tokens from another program: `{"float": "1.0E-300"}` becomes `{"float": "1e-300"}`,
    `{"int": "007"}` becomes `{"int": "7"}`, `{"ts_us": "5"}` becomes `{"ts_ns": "5000"}`. Raises ValueError on
    anything that is not a token, or a number not in the forms above."""
    columns = canonical["columns"]
    if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
        raise ValueError("columns must be a list of strings")
    rows = canonical["rows"]
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        raise ValueError("rows must be a list of lists")
    return {"columns": columns, "rows": [[_token(v) for v in row] for row in rows]}


def _form(pattern: re.Pattern[str], tag: str, text: str) -> str:
    if not pattern.fullmatch(text):
        raise ValueError(f"{json.dumps(text[:40])}{'...' if len(text) > 40 else ''} is not a {tag!r} token")
    return text


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
            if tag == "int":
                return {tag: str(int(_form(INT_FORM, tag, x)))}
            if tag in _SCALE_NS:
                name, factor = _SCALE_NS[tag]
                return {name: str(int(_form(INT_FORM, tag, x)) * factor)}
            if tag == "float":
                return canonical_value(float(_form(FLOAT_FORM, tag, x)))
            if tag == "bin":
                return {"bin": _form(HEX_FORM, tag, x).lower()}
            if tag == "date":
                return {"date": date_text(date_days(_form(DATE_FORM, tag, x)))}
            if tag == "uuid":
                return {"uuid": str(uuid.UUID(x))}
            if tag == "dec":
                return {"dec": str(decimal.Decimal(_form(DEC_FORM, tag, x)))}
    raise ValueError(f"not a canonical value: {json.dumps(v)[:80]}")
