"""Skiff bytes <-> Python values, for one schema (`encode`/`decode`) and for table row streams
(`encode_rows`/`decode_rows`). Wire layouts: see the WireType member docstrings in `schema`.

Python forms of values: int for every integer type (range-checked on encode), float for double, bool for
boolean, bytes for string32, the raw YSON bytes for yson32 (not parsed), None for nothing, `(tag, value)`
for variant8/16, a list of `(tag, value)` for repeated_variant8/16, a list for tuple.

Decoding is bounded: every read is checked against the bytes that remain before anything is sliced, so a
length prefix past the end is a SkiffDecodeError, never an allocation; recursion follows the schema only.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping, Sequence
from typing import TypeAlias

from . import yson
from .schema import (
    OTHER_COLUMNS,
    RANGE_INDEX,
    ROW_INDEX,
    SPARSE_COLUMNS,
    SkiffSchema,
    TableLayout,
    WireType,
    optional_inner,
    table_layout,
)

__all__ = ["Row", "SkiffDecodeError", "SkiffEncodeError", "Value", "decode", "decode_rows", "encode", "encode_rows",
           "row_spans", "yson_spans"]

Value: TypeAlias = "bool | int | float | bytes | tuple[int, Value] | list[Value] | None"
Row: TypeAlias = "tuple[int, dict[str, yson.YsonValue]]"

# wire type -> (byte width, signed)
INTEGERS = {WireType.INT8: (1, True), WireType.INT16: (2, True), WireType.INT32: (4, True), WireType.INT64: (8, True),
            WireType.INT128: (16, True), WireType.INT256: (32, True), WireType.UINT8: (1, False),
            WireType.UINT16: (2, False), WireType.UINT32: (4, False), WireType.UINT64: (8, False),
            WireType.UINT128: (16, False), WireType.UINT256: (32, False)}
# wire type -> tag width in bytes
TAG_WIDTH = {WireType.VARIANT8: 1, WireType.VARIANT16: 2, WireType.REPEATED_VARIANT8: 1,
             WireType.REPEATED_VARIANT16: 2}
REPEATED = (WireType.REPEATED_VARIANT8, WireType.REPEATED_VARIANT16)
MAX_STRING = 0xFFFFFFFF
TABLE_INDEX_WIDTH = 2  # the input stream's root is variant16 over the table schemas
MAX_TABLES = 0x10000


class SkiffEncodeError(ValueError):
    """A value that does not fit its schema; the message names the path within the value."""


class SkiffDecodeError(ValueError):
    """Bytes that do not decode under the schema; `offset` is the byte where the problem starts."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"at byte {offset}: {message}")
        self.offset = offset


# --- single values: encode ----------------------------------------------------------------

def encode(schema: SkiffSchema, value: Value) -> bytes:
    """The Skiff bytes of `value` under `schema`."""
    out = bytearray()
    _encode(schema, value, out, "value")
    return bytes(out)


def _encode(schema: SkiffSchema, value: Value, out: bytearray, path: str) -> None:
    wire_type = schema.wire_type
    if wire_type in INTEGERS:
        out += _integer_bytes(wire_type, value, path)
    elif wire_type == WireType.NOTHING:
        _expect(value is None, path, "nothing takes None", value)
    elif wire_type == WireType.BOOLEAN:
        _expect(isinstance(value, bool), path, "boolean takes bool", value)
        out.append(1 if value else 0)
    elif wire_type == WireType.DOUBLE:
        _expect(isinstance(value, float), path, "double takes float", value)
        out += struct.pack("<d", value)
    elif wire_type in (WireType.STRING32, WireType.YSON32):
        out += _string_bytes(wire_type, value, path)
    elif wire_type == WireType.TUPLE:
        _encode_tuple(schema, value, out, path)
    elif wire_type in REPEATED:
        _encode_repeated(schema, value, out, path)
    else:
        _encode_alternative(schema, value, out, path)


def _expect(ok: bool, path: str, rule: str, value: object) -> None:
    if not ok:
        raise SkiffEncodeError(f"{path}: {rule}, got {type(value).__name__} {value!r:.80}")


def _integer_bytes(wire_type: WireType, value: Value, path: str) -> bytes:
    width, signed = INTEGERS[wire_type]
    # bool is an int subclass; refusing it keeps boolean and integer columns apart
    _expect(isinstance(value, int) and not isinstance(value, bool), path, f"{wire_type} takes int", value)
    assert isinstance(value, int)
    low, high = (-(1 << (8 * width - 1)), (1 << (8 * width - 1)) - 1) if signed else (0, (1 << (8 * width)) - 1)
    if not low <= value <= high:
        raise SkiffEncodeError(f"{path}: {value} is out of {wire_type} range [{low}, {high}]")
    return value.to_bytes(width, "little", signed=signed)


def _string_bytes(wire_type: WireType, value: Value, path: str) -> bytes:
    _expect(isinstance(value, bytes), path, f"{wire_type} takes bytes", value)
    assert isinstance(value, bytes)
    if len(value) > MAX_STRING:
        raise SkiffEncodeError(f"{path}: {len(value)} bytes do not fit a u32 length")
    return len(value).to_bytes(4, "little") + value


def _encode_tuple(schema: SkiffSchema, value: Value, out: bytearray, path: str) -> None:
    _expect(isinstance(value, list), path, "tuple takes a list", value)
    assert isinstance(value, list)
    if len(value) != len(schema.children):
        raise SkiffEncodeError(f"{path}: tuple has {len(schema.children)} children, value has {len(value)} items")
    for index, (child, item) in enumerate(zip(schema.children, value, strict=True)):
        _encode(child, item, out, f"{path}[{index}]")


def _encode_alternative(schema: SkiffSchema, value: Value, out: bytearray, path: str) -> None:
    tag, item = _tagged(schema, value, path)
    out += tag.to_bytes(TAG_WIDTH[schema.wire_type], "little")
    _encode(schema.children[tag], item, out, f"{path}<{tag}>")


def _encode_repeated(schema: SkiffSchema, value: Value, out: bytearray, path: str) -> None:
    _expect(isinstance(value, list), path, f"{schema.wire_type} takes a list of (tag, value)", value)
    assert isinstance(value, list)
    width = TAG_WIDTH[schema.wire_type]
    for index, element in enumerate(value):
        tag, item = _tagged(schema, element, f"{path}[{index}]")
        out += tag.to_bytes(width, "little")
        _encode(schema.children[tag], item, out, f"{path}[{index}]<{tag}>")
    out += _terminator(schema.wire_type).to_bytes(width, "little")


def _tagged(schema: SkiffSchema, value: Value, path: str) -> tuple[int, Value]:
    ok = isinstance(value, tuple) and len(value) == 2 and type(value[0]) is int
    _expect(ok, path, f"{schema.wire_type} takes a (tag, value) tuple", value)
    assert isinstance(value, tuple)
    tag, item = value
    if not 0 <= tag < len(schema.children):
        raise SkiffEncodeError(f"{path}: tag {tag} is out of range [0, {len(schema.children)})")
    return tag, item


def _terminator(wire_type: WireType) -> int:
    return (1 << (8 * TAG_WIDTH[wire_type])) - 1  # 0xFF / 0xFFFF ends a repeated variant


# --- single values: decode ----------------------------------------------------------------

def decode(schema: SkiffSchema, data: bytes) -> Value:
    """The value that `data` encodes under `schema`; every byte must be used."""
    reader = _Reader(bytes(data))
    value = reader.value(schema, "value")
    reader.finish()
    return value


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    @property
    def remaining(self) -> int:
        return len(self.data) - self.pos

    def take(self, size: int, what: str) -> bytes:
        if size > self.remaining:  # checked before slicing: a bogus length never allocates
            raise SkiffDecodeError(f"{what} needs {size} bytes, {self.remaining} remain", self.pos)
        chunk = self.data[self.pos:self.pos + size]
        self.pos += size
        return chunk

    def unsigned(self, width: int, what: str) -> int:
        return int.from_bytes(self.take(width, what), "little")

    def finish(self) -> None:
        if self.remaining:
            raise SkiffDecodeError(f"{self.remaining} trailing bytes after the value", self.pos)

    def value(self, schema: SkiffSchema, path: str) -> Value:
        wire_type = schema.wire_type
        if wire_type in INTEGERS:
            width, signed = INTEGERS[wire_type]
            return int.from_bytes(self.take(width, f"{path} ({wire_type})"), "little", signed=signed)
        if wire_type == WireType.NOTHING:
            return None
        if wire_type == WireType.BOOLEAN:
            return self.boolean(path)
        if wire_type == WireType.DOUBLE:
            number: float = struct.unpack("<d", self.take(8, f"{path} (double)"))[0]
            return number
        if wire_type in (WireType.STRING32, WireType.YSON32):
            return self.string(path, wire_type)
        if wire_type == WireType.TUPLE:
            return [self.value(child, f"{path}[{index}]") for index, child in enumerate(schema.children)]
        if wire_type in REPEATED:
            return self.repeated(schema, path)
        return self.alternative(schema, path)

    def boolean(self, path: str) -> bool:
        start = self.pos
        byte = self.take(1, f"{path} (boolean)")[0]
        if byte > 1:  # upstream ParseBoolean rejects it too
            raise SkiffDecodeError(f"{path}: boolean byte must be 0 or 1, got {byte}", start)
        return byte == 1

    def string(self, path: str, wire_type: WireType) -> bytes:
        length = self.unsigned(4, f"{path} ({wire_type} length)")
        return self.take(length, f"{path} ({wire_type} body of {length} bytes)")

    def tag(self, schema: SkiffSchema, path: str) -> int:
        start = self.pos
        tag = self.unsigned(TAG_WIDTH[schema.wire_type], f"{path} ({schema.wire_type} tag)")
        ends_sequence = schema.wire_type in REPEATED and tag == _terminator(schema.wire_type)
        if tag < len(schema.children) or ends_sequence:
            return tag
        raise SkiffDecodeError(f"{path}: {schema.wire_type} tag {tag} is out of range [0, {len(schema.children)})",
                               start)

    def alternative(self, schema: SkiffSchema, path: str) -> tuple[int, Value]:
        tag = self.tag(schema, path)
        return tag, self.value(schema.children[tag], f"{path}<{tag}>")

    def repeated(self, schema: SkiffSchema, path: str) -> list[Value]:
        items: list[Value] = []
        width = TAG_WIDTH[schema.wire_type]
        while True:
            if self.remaining < width:
                raise SkiffDecodeError(f"{path}: {schema.wire_type} has no end tag "
                                       f"0x{_terminator(schema.wire_type):X} before the end of the data", self.pos)
            tag = self.tag(schema, path)
            if tag == _terminator(schema.wire_type):
                return items
            items.append((tag, self.value(schema.children[tag], f"{path}[{len(items)}]<{tag}>")))


# --- table row streams ------------------------------------------------------------------------

def encode_rows(table_schemas: Sequence[SkiffSchema], rows: Iterable[tuple[int, Mapping[str, yson.YsonValue]]], *,
                row_index_name: str = ROW_INDEX, range_index_name: str = RANGE_INDEX, lenient: bool = False) -> bytes:
    """A job input stream: per row, the u16 table index, then the row under that table's schema
    (seed 004 «Использование skiff serialization library для передачи табличных данных»).

    Dense columns are always written: a missing or None value needs a nullable `variant8<nothing;T>`
    column (tag 0). Sparse columns are written only when present and not None. Every other column goes
    into `$other_columns` as a YSON map (`{}` when there are none); without `$other_columns` it is an error.
    `lenient`: the upstream reading of the table rules (schema.validate_table_schema)."""
    layouts = _layouts(table_schemas, row_index_name, range_index_name, lenient)
    out = bytearray()
    for number, (table_index, columns) in enumerate(rows):
        path = f"row {number}"
        if type(table_index) is not int or not 0 <= table_index < len(layouts):
            raise SkiffEncodeError(f"{path}: table index {table_index!r} is out of range [0, {len(layouts)})")
        out += table_index.to_bytes(TABLE_INDEX_WIDTH, "little")
        _encode_row(layouts[table_index], columns, out, path)
    return bytes(out)


def _layouts(table_schemas: Sequence[SkiffSchema], row_index_name: str, range_index_name: str,
             lenient: bool) -> list[TableLayout]:
    if not 0 < len(table_schemas) <= MAX_TABLES:
        raise ValueError(f"a row stream needs 1 to {MAX_TABLES} table schemas, got {len(table_schemas)}")
    return [table_layout(schema, row_index_name=row_index_name, range_index_name=range_index_name, lenient=lenient)
            for schema in table_schemas]


def _encode_row(layout: TableLayout, columns: Mapping[str, yson.YsonValue], out: bytearray, path: str) -> None:
    reserved = {OTHER_COLUMNS, SPARSE_COLUMNS} & columns.keys()
    if reserved:
        raise SkiffEncodeError(f"{path}: {sorted(reserved)} name the row's layout, not columns")
    for column in layout.dense:
        _encode_dense(column, columns.get(_name(column)), out, f"{path}.{column.name}", layout.lenient)
    if layout.sparse:
        _encode_sparse(layout.sparse, columns, out, path, layout.lenient)
    described = {_name(column) for column in (*layout.dense, *layout.sparse)}
    others = {name: value for name, value in columns.items() if name not in described}
    if layout.other_columns:
        out += _string_bytes(WireType.YSON32, _yson(others, path), f"{path}.{OTHER_COLUMNS}")
    elif others:
        raise SkiffEncodeError(f"{path}: columns {sorted(others)} are neither dense nor sparse, "
                               f"and the table has no {OTHER_COLUMNS}")


def _name(column: SkiffSchema) -> str:
    assert column.name, "table_layout guarantees named columns"
    return column.name


def _encode_dense(column: SkiffSchema, value: yson.YsonValue, out: bytearray, path: str, lenient: bool) -> None:
    inner = optional_inner(column, lenient)
    if value is None:
        if inner is None:
            raise SkiffEncodeError(f"{path}: missing or null, but {column.wire_type} is not nullable "
                                   f"(a nullable column is variant8<nothing;T;>)")
        out.append(0)
    elif inner is not None:
        out.append(1)
        _encode(inner, _column_value(value, path), out, path)
    else:
        _encode(column, _column_value(value, path), out, path)


def _encode_sparse(sparse: tuple[SkiffSchema, ...], columns: Mapping[str, yson.YsonValue], out: bytearray,
                   path: str, lenient: bool) -> None:
    for tag, column in enumerate(sparse):
        value = columns.get(_name(column))
        if value is not None:
            out += tag.to_bytes(2, "little")
            _encode(_sparse_type(column, lenient), _column_value(value, f"{path}.{column.name}"), out,
                    f"{path}.{column.name}")
    out += _terminator(WireType.REPEATED_VARIANT16).to_bytes(2, "little")


def _sparse_type(column: SkiffSchema, lenient: bool) -> SkiffSchema:
    """What a sparse column's value is written as: its type; upstream's reading (`lenient`) also takes the optional
    form variant8<nothing;T> and writes a present value as T, without the tag (schema_match.cpp deoptionalizes every
    field: TFieldDescription::Simplify, and the skiff parser and writer use the deoptionalized wire type)."""
    return optional_inner(column, lenient) or column


def _column_value(value: yson.YsonValue, path: str) -> Value:
    # dense and sparse columns hold simple values only; lists and maps belong in yson32 bytes
    if isinstance(value, list | dict):
        raise SkiffEncodeError(f"{path}: a column value is a scalar, got {type(value).__name__}")
    return value


def _yson(others: dict[str, yson.YsonValue], path: str) -> bytes:
    try:
        return yson.dumps(others)
    except yson.YsonError as error:
        raise SkiffEncodeError(f"{path}.{OTHER_COLUMNS}: {error}") from None


def decode_rows(table_schemas: Sequence[SkiffSchema], data: bytes, *, row_index_name: str = ROW_INDEX,
                range_index_name: str = RANGE_INDEX, lenient: bool = False) -> list[Row]:
    """The rows of a job input stream (see encode_rows). A row holds its non-null dense and sparse
    columns and the `$other_columns` map's entries (nulls included: YSON can say `#`)."""
    layouts = _layouts(table_schemas, row_index_name, range_index_name, lenient)
    reader = _Reader(bytes(data))
    rows: list[Row] = []
    while reader.remaining:
        path = f"row {len(rows)}"
        start = reader.pos
        table_index = reader.unsigned(TABLE_INDEX_WIDTH, f"{path} (table index)")
        if table_index >= len(layouts):
            raise SkiffDecodeError(f"{path}: table index {table_index} is out of range [0, {len(layouts)})", start)
        rows.append((table_index, _decode_row(layouts[table_index], reader, path)))
    return rows


def _decode_row(layout: TableLayout, reader: _Reader, path: str) -> dict[str, yson.YsonValue]:
    columns: dict[str, yson.YsonValue] = {}
    for column in layout.dense:
        value = _unwrap(column, reader.value(column, f"{path}.{column.name}"), layout.lenient)
        if value is not None:
            columns[_name(column)] = _as_column(value)
    if layout.sparse:
        _decode_sparse(layout.sparse, reader, columns, path, layout.lenient)
    if layout.other_columns:
        described = {_name(column) for column in (*layout.dense, *layout.sparse)}
        _decode_other_columns(reader, columns, described, path)
    return columns


def _unwrap(column: SkiffSchema, value: Value, lenient: bool) -> Value:
    if optional_inner(column, lenient) is not None:
        assert isinstance(value, tuple)
        return value[1]  # tag 0 decodes to (0, None): a null, left out of the row
    return value


def _as_column(value: Value) -> yson.YsonValue:
    assert not isinstance(value, tuple | list), "column types are simple"
    return value


def _decode_sparse(sparse: tuple[SkiffSchema, ...], reader: _Reader, columns: dict[str, yson.YsonValue],
                   path: str, lenient: bool) -> None:
    node = SkiffSchema(WireType.REPEATED_VARIANT16, SPARSE_COLUMNS, sparse)
    while True:
        if reader.remaining < 2:
            raise SkiffDecodeError(f"{path}.{SPARSE_COLUMNS}: no end tag 0xFFFF before the end of the data",
                                   reader.pos)
        start = reader.pos
        tag = reader.tag(node, f"{path}.{SPARSE_COLUMNS}")
        if tag == _terminator(WireType.REPEATED_VARIANT16):
            return
        name = _name(sparse[tag])
        if name in columns:
            raise SkiffDecodeError(f"{path}: sparse column {name!r} appears twice", start)
        columns[name] = _as_column(reader.value(_sparse_type(sparse[tag], lenient), f"{path}.{name}"))


def _decode_other_columns(reader: _Reader, columns: dict[str, yson.YsonValue], described: set[str],
                          path: str) -> None:
    where = f"{path}.{OTHER_COLUMNS}"
    raw = reader.string(where, WireType.YSON32)
    body = reader.pos - len(raw)
    try:
        others = yson.loads(raw)
    except yson.YsonError as error:
        offset = body + (error.offset or 0)
        raise SkiffDecodeError(f"{where}: YSON: {error.reason}", offset) from None
    if not isinstance(others, dict):
        raise SkiffDecodeError(f"{where}: must hold a YSON map, got {type(others).__name__}", body)
    clash = sorted(others.keys() & described)
    if clash:
        raise SkiffDecodeError(f"{where}: columns {clash} are also dense or sparse", body)
    columns.update(others)


def yson_spans(table_schemas: Sequence[SkiffSchema], data: bytes) -> list[tuple[int, int]]:
    """Where each yson32 field (its u32 length and its body) lies in a row stream (u16 table index, then the row),
    read with the generic codec and no table rules, so that a stream's YSON can be compared as values or
    respelled. SkiffDecodeError if the stream does not decode."""
    return _spans(table_schemas, data).spans


def row_spans(table_schemas: Sequence[SkiffSchema], data: bytes) -> list[tuple[int, int]]:
    """Where each row (its table index included) lies in a row stream, read as in yson_spans."""
    return _spans(table_schemas, data).rows


def _spans(table_schemas: Sequence[SkiffSchema], data: bytes) -> _SpanReader:
    reader = _SpanReader(bytes(data))
    while reader.remaining:
        start = reader.pos
        index = reader.unsigned(TABLE_INDEX_WIDTH, "table index")
        if index >= len(table_schemas):
            raise SkiffDecodeError(f"table index {index} is out of range [0, {len(table_schemas)})", start)
        reader.value(table_schemas[index], "row")
        reader.rows.append((start, reader.pos))
    return reader


class _SpanReader(_Reader):
    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.spans: list[tuple[int, int]] = []
        self.rows: list[tuple[int, int]] = []

    def string(self, path: str, wire_type: WireType) -> bytes:
        start = self.pos
        body = super().string(path, wire_type)
        if wire_type == WireType.YSON32:
            self.spans.append((start, self.pos))
        return body
