"""Skiff schemas: the node model, parsing the format's schema descriptions, and the table-schema rules.

Sources. "Seed 004" is the YTsaurus «Формат Skiff» page (shared/seeds/004_96e98cb65d86e5c4.txt); section
names are quoted from it. Upstream files are the C++ reference, read, not copied:

* UPSTREAM_PUBLIC_H   ydb-platform/ydb library/cpp/skiff/public.h @ 0cb33d8c17c651a741145d4ea499913e1de1fd5a
  (EWireType, the wire-type names; the same library is vendored in ytsaurus/ytsaurus);
* UPSTREAM_SKIFF_CPP  ytsaurus/ytsaurus library/cpp/skiff/skiff.cpp @ 7d3f53a2452e9a715ecd2eb6a491bae1d82b0eb3
  (byte layout of every wire type);
* UPSTREAM_SCHEMA_CPP ydb-platform/ydb library/cpp/skiff/skiff_schema.cpp @ e601ca03f859335d57ecff2e5aa6af234b6052ed
  (variants need at least one child);
* UPSTREAM_MATCH_CPP  ytsaurus/ytsaurus yt/yt/library/skiff_ext/schema_match.cpp
  @ 08b4009e7c430b3f8b8e04949807421101451861 (description parsing, `$name` references, table rules).

Newer upstream revisions add var_int32, var_int64, float, string_var, string_fixed, variant_var and
repeated_block_var; neither the seed nor the released Python binding (ytsaurus-yson 0.4.10) has them,
so they are not modelled here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

__all__ = ["COLUMN_TYPES", "COMPOSITE_TYPES", "KEY_SWITCH", "OTHER_COLUMNS", "RANGE_INDEX", "ROW_INDEX",
           "SPARSE_COLUMNS", "WIRE_TYPES", "SkiffSchema", "SkiffSchemaError", "TableLayout", "WireType",
           "column_types", "optional_inner", "parse_format_attributes", "parse_schema", "short_string", "table_layout",
           "to_description", "validate_table_schema"]

SEED = "seed 004 «Формат Skiff»"
UPSTREAM_PUBLIC_H = "ydb-platform/ydb library/cpp/skiff/public.h @ 0cb33d8c17c651a741145d4ea499913e1de1fd5a"
UPSTREAM_SKIFF_CPP = "ytsaurus/ytsaurus library/cpp/skiff/skiff.cpp @ 7d3f53a2452e9a715ecd2eb6a491bae1d82b0eb3"
UPSTREAM_SCHEMA_CPP = "ydb-platform/ydb library/cpp/skiff/skiff_schema.cpp @ e601ca03f859335d57ecff2e5aa6af234b6052ed"
UPSTREAM_MATCH_CPP = ("ytsaurus/ytsaurus yt/yt/library/skiff_ext/schema_match.cpp"
                      " @ 08b4009e7c430b3f8b8e04949807421101451861")

MAX_DEPTH = 64  # description nesting limit: hostile input ends in SkiffSchemaError well before RecursionError


class WireType(StrEnum):
    """How a Skiff node is encoded; each member's docstring names the document it comes from."""

    def __new__(cls, value: str, source: str) -> WireType:
        member = str.__new__(cls, value)
        member._value_ = value
        member.__doc__ = source
        return member

    NOTHING = "nothing", f"Empty encoding; only meaningful as a variant child. {SEED}, «Простые типы / Nothing»."
    BOOLEAN = "boolean", (f"One byte, 0x00 or 0x01. {SEED}, «Boolean»; any other byte is an error per "
                          f"{UPSTREAM_SKIFF_CPP} (TUncheckedSkiffParser::ParseBoolean).")
    INT8 = "int8", f"1-byte two's complement. {UPSTREAM_PUBLIC_H}; layout {UPSTREAM_SKIFF_CPP} (ParseSimple<i8>)."
    INT16 = "int16", f"2-byte LE two's complement. {UPSTREAM_PUBLIC_H}; {UPSTREAM_SKIFF_CPP} (ParseSimple<i16>)."
    INT32 = "int32", f"4-byte LE two's complement. {UPSTREAM_PUBLIC_H}; {UPSTREAM_SKIFF_CPP} (ParseSimple<i32>)."
    INT64 = "int64", f"8-byte LE two's complement. {SEED}, «Int64 / Uint64»."
    INT128 = "int128", (f"16 bytes: low u64 LE then high i64 LE, i.e. one 16-byte LE two's complement. "
                        f"{UPSTREAM_PUBLIC_H}; {UPSTREAM_SKIFF_CPP} (ParseInt128).")
    INT256 = "int256", (f"32 bytes: four u64 LE parts; read as one 32-byte LE two's complement, assuming Parts[0] "
                        f"is the least significant. {UPSTREAM_PUBLIC_H}; {UPSTREAM_SKIFF_CPP} (ParseInt256).")
    UINT8 = "uint8", f"1-byte unsigned. {UPSTREAM_PUBLIC_H}; {UPSTREAM_SKIFF_CPP} (ParseSimple<ui8>)."
    UINT16 = "uint16", f"2-byte LE unsigned. {UPSTREAM_PUBLIC_H}; {UPSTREAM_SKIFF_CPP} (ParseSimple<ui16>)."
    UINT32 = "uint32", f"4-byte LE unsigned. {UPSTREAM_PUBLIC_H}; {UPSTREAM_SKIFF_CPP} (ParseSimple<ui32>)."
    UINT64 = "uint64", f"8-byte LE unsigned. {SEED}, «Int64 / Uint64»."
    UINT128 = "uint128", (f"16-byte LE unsigned (low, high u64). {UPSTREAM_PUBLIC_H}; "
                          f"{UPSTREAM_SKIFF_CPP} (ParseUint128).")
    UINT256 = "uint256", (f"32-byte LE unsigned (four u64 parts). {UPSTREAM_PUBLIC_H}; "
                          f"{UPSTREAM_SKIFF_CPP} (ParseUint256).")
    DOUBLE = "double", f"8-byte LE IEEE 754 binary64. {SEED}, «Double»."
    STRING32 = "string32", f"u32 LE byte length, then the bytes. {SEED}, «String32»."
    YSON32 = "yson32", (f"u32 LE length, then YSON text or binary; framed exactly like string32 "
                        f"({UPSTREAM_SKIFF_CPP}: ParseYson32 is ParseString32). {SEED}, «Yson32».")
    TUPLE = "tuple", f"Each child's value in order; may have no children. {SEED}, «Tuple»."
    VARIANT8 = "variant8", (f"u8 tag i, then the value of child i. {SEED}, «Variant8 / variant16»; at least one "
                            f"child per {UPSTREAM_SCHEMA_CPP} (CreateVariant8Schema).")
    VARIANT16 = "variant16", (f"u16 LE tag i, then the value of child i. {SEED}, «Variant8 / variant16»; at least "
                              f"one child per {UPSTREAM_SCHEMA_CPP}.")
    REPEATED_VARIANT8 = "repeated_variant8", (f"(u8 tag, value)* then 0xFF. {SEED}, «RepeatedVariant8 / "
                                              f"RepeatedVariant16»; at least one child per {UPSTREAM_SCHEMA_CPP}.")
    REPEATED_VARIANT16 = "repeated_variant16", (f"(u16 LE tag, value)* then 0xFFFF. {SEED}, «RepeatedVariant8 / "
                                                f"RepeatedVariant16»; at least one child per {UPSTREAM_SCHEMA_CPP}.")


WIRE_TYPES = {str(member): member for member in WireType}  # by name; WireType(name) confuses mypy's __new__
COMPOSITE_TYPES = frozenset({WireType.TUPLE, WireType.VARIANT8, WireType.VARIANT16, WireType.REPEATED_VARIANT8,
                             WireType.REPEATED_VARIANT16})
# Seed «Ограничения на skiff-схему таблицы»: the types a dense or sparse column may have.
COLUMN_TYPES = frozenset({WireType.INT64, WireType.UINT64, WireType.BOOLEAN, WireType.DOUBLE, WireType.STRING32,
                          WireType.YSON32})
# The upstream reading (`lenient`): every simple type but nothing may be a column; newer upstream table schemas
# accept them (UPSTREAM_MATCH_CPP), the released binding accepts them when the schema is made.
LENIENT_COLUMN_TYPES = frozenset(w for w in WireType if w not in COMPOSITE_TYPES and w != WireType.NOTHING)
# Most children a node can address: the tag width, less the terminator tag for repeated variants.
MAX_CHILDREN = {WireType.VARIANT8: 0x100, WireType.VARIANT16: 0x10000, WireType.REPEATED_VARIANT8: 0xFF,
                WireType.REPEATED_VARIANT16: 0xFFFF}

OTHER_COLUMNS, SPARSE_COLUMNS, KEY_SWITCH = "$other_columns", "$sparse_columns", "$key_switch"
ROW_INDEX, RANGE_INDEX = "$row_index", "$range_index"


class SkiffSchemaError(ValueError):
    """A schema description or a table schema that breaks a rule; the message names where."""


@dataclass(frozen=True)
class SkiffSchema:
    """One node of a Skiff schema tree. Names do not affect encoding; table schemas match them to columns."""

    wire_type: WireType
    name: str | None = None
    children: tuple[SkiffSchema, ...] = ()

    def __post_init__(self) -> None:
        problem = _shape_problem(self.wire_type, len(self.children))
        if problem:
            raise SkiffSchemaError(problem)


def _shape_problem(wire_type: WireType, child_count: int) -> str | None:
    if wire_type not in COMPOSITE_TYPES:
        return f"{wire_type} is a simple type and takes no children (got {child_count})" if child_count else None
    if wire_type == WireType.TUPLE:
        return None
    if child_count == 0:
        return f"{wire_type} must have at least one child"
    if child_count > MAX_CHILDREN[wire_type]:
        return f"{wire_type} can address at most {MAX_CHILDREN[wire_type]} children, got {child_count}"
    return None


def short_string(schema: SkiffSchema) -> str:
    """Upstream's short debug form, e.g. `variant8<nothing;int64;>` (names left out)."""
    if not schema.children:
        return str(schema.wire_type)
    return f"{schema.wire_type}<{''.join(short_string(child) + ';' for child in schema.children)}>"


# --- descriptions ------------------------------------------------------------------------

def parse_schema(description: object, registry: Mapping[str, object] | None = None, *,
                 path: str = "schema") -> SkiffSchema:
    """A schema from its description: a map {wire_type, name?, children?} or a `$name` reference into
    `registry` (seed 004 «Конфигурация формата»; reference resolution as in UPSTREAM_MATCH_CPP ParseSchema).
    Errors name the path, e.g. `schema.children[1] -> $row -> children[0]: ...`."""
    return _Parser(registry or {}).parse(description, path, 0)


def parse_format_attributes(attributes: Mapping[str, object]) -> list[SkiffSchema]:
    """The table schemas of a format's attributes (`table_skiff_schemas`, optional `skiff_schema_registry`)."""
    tables = attributes.get("table_skiff_schemas")
    registry = attributes.get("skiff_schema_registry", {})
    if not isinstance(tables, Sequence) or isinstance(tables, str | bytes):
        raise SkiffSchemaError("table_skiff_schemas: must be a list of schema descriptions")
    if not isinstance(registry, Mapping):
        raise SkiffSchemaError("skiff_schema_registry: must be a map")
    parser = _Parser(registry)
    return [parser.parse(table, f"table_skiff_schemas[{index}]", 0) for index, table in enumerate(tables)]


class _Parser:
    def __init__(self, registry: Mapping[str, object]) -> None:
        self.registry = registry
        self.resolved: dict[str, SkiffSchema] = {}
        self.in_progress: list[str] = []  # reference chain being resolved, to report cycles in order

    def parse(self, description: object, path: str, depth: int) -> SkiffSchema:
        if depth > MAX_DEPTH:
            raise SkiffSchemaError(f"{path}: nested deeper than {MAX_DEPTH}")
        if isinstance(description, str):
            return self.reference(description, path, depth)
        if isinstance(description, Mapping):
            return self.node(description, path, depth)
        raise SkiffSchemaError(f"{path}: a schema is a map or a '$name' string, got {type(description).__name__}")

    def reference(self, text: str, path: str, depth: int) -> SkiffSchema:
        if not text.startswith("$"):
            raise SkiffSchemaError(f"{path}: reference {text!r} must start with '$'")
        name = text[1:]
        if name in self.resolved:
            return self.resolved[name]
        if name in self.in_progress:
            cycle = " -> ".join(f"${n}" for n in [*self.in_progress[self.in_progress.index(name):], name])
            raise SkiffSchemaError(f"{path}: recursive reference {cycle}")
        if name not in self.registry:
            raise SkiffSchemaError(f"{path}: unknown reference {text!r} (not in skiff_schema_registry)")
        self.in_progress.append(name)
        try:
            schema = self.parse(self.registry[name], f"{path} -> {text}", depth + 1)
        finally:
            self.in_progress.pop()
        self.resolved[name] = schema
        return schema

    def node(self, description: Mapping[object, object], path: str, depth: int) -> SkiffSchema:
        unknown = sorted(str(key) for key in description if key not in ("wire_type", "name", "children"))
        if unknown:
            raise SkiffSchemaError(f"{path}: unknown keys {unknown} (allowed: wire_type, name, children)")
        wire_type = _wire_type(description.get("wire_type"), path)
        name = description.get("name")
        if name is not None and not isinstance(name, str):
            raise SkiffSchemaError(f"{path}: name must be a string, got {type(name).__name__}")
        children = self.children(description, wire_type, path, depth)
        problem = _shape_problem(wire_type, len(children))
        if problem:
            raise SkiffSchemaError(f"{path}: {problem}")
        return SkiffSchema(wire_type, name or None, children)  # upstream treats "" as no name

    def children(self, description: Mapping[object, object], wire_type: WireType, path: str,
                 depth: int) -> tuple[SkiffSchema, ...]:
        if "children" not in description:
            if wire_type in COMPOSITE_TYPES:
                raise SkiffSchemaError(f"{path}: composite type {wire_type} needs 'children'")
            return ()
        listed = description["children"]
        if not isinstance(listed, Sequence) or isinstance(listed, str | bytes):
            raise SkiffSchemaError(f"{path}: children must be a list, got {type(listed).__name__}")
        return tuple(self.parse(child, f"{path}.children[{index}]", depth + 1) for index, child in enumerate(listed))


def _wire_type(value: object, path: str) -> WireType:
    if value is None:
        raise SkiffSchemaError(f"{path}: 'wire_type' is required")
    if not isinstance(value, str) or value not in WIRE_TYPES:
        raise SkiffSchemaError(f"{path}: unknown wire_type {value!r}")
    return WIRE_TYPES[value]


def to_description(schema: SkiffSchema) -> dict[str, object]:
    """The plain-map description of `schema` (children always listed for composite types)."""
    out: dict[str, object] = {"wire_type": str(schema.wire_type)}
    if schema.name is not None:
        out["name"] = schema.name
    if schema.wire_type in COMPOSITE_TYPES:
        out["children"] = [to_description(child) for child in schema.children]
    return out


# --- table schemas -------------------------------------------------------------------------

@dataclass(frozen=True)
class TableLayout:
    """A checked table schema split the way rows are encoded: the root tuple's children before
    `$sparse_columns` (dense columns and the control columns, in wire order), the sparse columns
    (tag = position), and whether `$other_columns` closes the row."""

    dense: tuple[SkiffSchema, ...]
    sparse: tuple[SkiffSchema, ...]
    other_columns: bool
    lenient: bool = False  # columns may be any simple type, or its variant8<nothing;T>, sparse ones included


def validate_table_schema(schema: SkiffSchema, *, row_index_name: str = ROW_INDEX,
                          range_index_name: str = RANGE_INDEX, lenient: bool = False) -> None:
    """Raise SkiffSchemaError unless `schema` meets seed 004 «Ограничения на skiff-схему таблицы»
    (plus UPSTREAM_MATCH_CPP's rule that no column name appears twice).

    `lenient` is the upstream reading of three rules the seed states more narrowly (docs/spec-notes.md#skiff):
    an unknown `$name` is a dense column, a column may have any simple type but nothing (int8 ... uint256), and
    a sparse column may be `variant8<nothing;T;>`. The strict reading is the reference; the lenient one builds
    the data of cases whose expectation is `either`."""
    table_layout(schema, row_index_name=row_index_name, range_index_name=range_index_name, lenient=lenient)


def table_layout(schema: SkiffSchema, *, row_index_name: str = ROW_INDEX,
                 range_index_name: str = RANGE_INDEX, lenient: bool = False) -> TableLayout:
    """The TableLayout of a valid table schema (see validate_table_schema)."""
    if schema.wire_type != WireType.TUPLE:
        raise SkiffSchemaError(f"table schema root must be tuple, got {schema.wire_type}")
    count = len(schema.children)
    seen: set[str] = set()
    dense: list[SkiffSchema] = []
    sparse: tuple[SkiffSchema, ...] = ()
    for index, child in enumerate(schema.children):
        name = _unique_name(child, f"child #{index} of the table schema", seen)
        if name == OTHER_COLUMNS:
            _check_other_columns(child, index, count)
        elif name == SPARSE_COLUMNS:
            sparse = _check_sparse_columns(child, index, count, schema, seen, lenient)
        else:
            _check_dense(child, name, row_index_name, range_index_name, lenient)
            dense.append(child)
    has_other = bool(schema.children) and schema.children[-1].name == OTHER_COLUMNS
    return TableLayout(tuple(dense), sparse, has_other, lenient)


def _unique_name(child: SkiffSchema, where: str, seen: set[str]) -> str:
    if not child.name:
        raise SkiffSchemaError(f"{where} ({short_string(child)}) has no name; every column must be named")
    if child.name in seen:
        raise SkiffSchemaError(f"column name {child.name!r} appears more than once")
    seen.add(child.name)
    return child.name


def _check_other_columns(child: SkiffSchema, index: int, count: int) -> None:
    if child.wire_type != WireType.YSON32:
        raise SkiffSchemaError(f"{OTHER_COLUMNS} must be yson32, got {short_string(child)}")
    if index != count - 1:
        raise SkiffSchemaError(f"{OTHER_COLUMNS} must be the last child (it is #{index} of {count})")


def _check_sparse_columns(child: SkiffSchema, index: int, count: int, root: SkiffSchema,
                          seen: set[str], lenient: bool) -> tuple[SkiffSchema, ...]:
    if child.wire_type != WireType.REPEATED_VARIANT16:
        raise SkiffSchemaError(f"{SPARSE_COLUMNS} must be repeated_variant16, got {short_string(child)}")
    last = count - 2 if root.children[-1].name == OTHER_COLUMNS else count - 1
    if index != last:
        raise SkiffSchemaError(f"{SPARSE_COLUMNS} must be the last child, or second to last when "
                               f"{OTHER_COLUMNS} follows it (it is #{index} of {count})")
    for position, column in enumerate(child.children):
        name = _unique_name(column, f"child #{position} of {SPARSE_COLUMNS}", seen)
        if name.startswith("$"):
            raise SkiffSchemaError(f"sparse column {name!r} has a special name ('$' names cannot be sparse)")
        if column.wire_type not in column_types(lenient) and not (lenient and optional_inner(column, lenient)):
            raise SkiffSchemaError(f"sparse column {name!r} must be one of {_column_type_list()}, "
                                   f"got {short_string(column)}")
    return child.children


def _check_dense(child: SkiffSchema, name: str, row_index_name: str, range_index_name: str, lenient: bool) -> None:
    if name == KEY_SWITCH:
        if child.wire_type != WireType.BOOLEAN:
            raise SkiffSchemaError(f"{KEY_SWITCH} must be boolean, got {short_string(child)}")
    elif name in (row_index_name, range_index_name):
        if short_string(child) != "variant8<nothing;int64;>":
            raise SkiffSchemaError(f"{name} must be variant8<nothing;int64;>, got {short_string(child)}")
    elif name.startswith("$") and not lenient:
        raise SkiffSchemaError(f"column {name!r}: unknown special name (names starting with '$' are reserved)")
    elif optional_inner(child, lenient) is None and child.wire_type not in column_types(lenient):
        raise SkiffSchemaError(f"dense column {name!r} must be one of {_column_type_list()} or "
                               f"variant8<nothing;T;> of one of them, got {short_string(child)}")


def column_types(lenient: bool = False) -> frozenset[WireType]:
    return LENIENT_COLUMN_TYPES if lenient else COLUMN_TYPES


def optional_inner(schema: SkiffSchema, lenient: bool = False) -> SkiffSchema | None:
    """T for a nullable column `variant8<nothing;T>` with T a column type, else None."""
    if schema.wire_type != WireType.VARIANT8 or len(schema.children) != 2:
        return None
    nothing, inner = schema.children
    ok = nothing.wire_type == WireType.NOTHING and inner.wire_type in column_types(lenient)
    return inner if ok else None


def _column_type_list() -> str:
    return ", ".join(sorted(COLUMN_TYPES))
