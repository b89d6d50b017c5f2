"""A VARIANT column as a reader of it returns it, in the normal form of decoded variants (generators/parquet/variant.py,
docs/spec-notes.md#variant): Arrow's canonical extension `arrow.parquet.variant` (a struct of metadata and value, and
typed_value where the reader keeps it shredded), decoded by our decoder."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from parquet_conformance.generators.canonical import ArrowData, Normal, canonical_table
from parquet_conformance.generators.parquet import variant

EXTENSION = b"arrow.parquet.variant"


def variant_columns(table: Any) -> list[int]:
    """The top-level columns Arrow marks as VARIANT: by the canonical extension's name in the field's metadata
    (pyarrow registers no such type), or as pyspark's `toArrow` marks a VariantType (a struct of value and metadata
    whose `metadata` field says {"variant": "true"}: pyspark/sql/pandas/types.py `is_variant`)."""
    return [i for i, f in enumerate(table.schema)
            if (f.metadata or {}).get(b"ARROW:extension:name") == EXTENSION or _spark_variant(f.type)]


def _spark_variant(t: Any) -> bool:
    import pyarrow as pa

    return pa.types.is_struct(t) and any(
        t.field(k).name == "metadata" and (t.field(k).metadata or {}).get(b"variant") == b"true"
        for k in range(t.num_fields))


def arrow_data(table: Any) -> Mapping[str, Any]:
    """A reader's Arrow table as canonical data, its VARIANT columns decoded (ArrowData where it has none)."""
    marked = variant_columns(table)
    if not marked:
        return ArrowData(table)
    data = canonical_table(table)
    rows = [[_decoded(v) if i in marked else v for i, v in enumerate(row)] for row in data["rows"]]
    return Normal(columns=data["columns"], rows=rows)


def _decoded(value: object) -> object:
    """The variant, or, where the reader's bytes are no Variant the spec defines (an object with a field name twice),
    those bytes as they are: other data than any reading's, which the judge finds wrong (never our error)."""
    try:
        return variant.reconstruct(cast("Mapping[str, Any] | None", value))
    except variant.VariantError:
        return value
