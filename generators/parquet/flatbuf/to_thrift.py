"""A Thrift FileMetaData from the comparable form of a FlatBuffers one (convert.flatbuffer_comparable),
so that a reader that only speaks Thrift (pyarrow) reads the data the FlatBuffers footer describes.

Fields the FlatBuffers schema (PR #544) dropped are derived: ColumnMetaData.type and
path_in_schema from the schema, encodings from whether a dictionary page exists (readers take
the real encoding from each page header), ConvertedType for the annotations that have one
unambiguously (UTF8, DATE, DECIMAL, LIST, MAP).
"""

from __future__ import annotations

from parquet_conformance.generators.parquet.flatbuf.schema import FlatbufferError
from parquet_conformance.generators.parquet.footer import SchemaTreeError, schema_leaves
from parquet_conformance.generators.parquet.thrift import BINARY, BYTE, I16, I32, I64, LIST, STRUCT, TRUE, encode_struct

LOGICAL_IDS = {"StringType": 1, "MapType": 2, "ListType": 3, "EnumType": 4, "DecimalType": 5, "DateType": 6,
               "TimeType": 7, "TimestampType": 8, "IntType": 10, "NullType": 11, "JsonType": 12, "BsonType": 13,
               "UUIDType": 14, "Float16Type": 15, "VariantType": 16, "GeometryType": 17, "GeographyType": 18}
CONVERTED = {"StringType": 0, "MapType": 1, "ListType": 3, "DecimalType": 5, "DateType": 6}
PLAIN, RLE, RLE_DICTIONARY = 0, 3, 8


def _logical(logical: tuple[str, dict] | None) -> bytes | None:
    if logical is None:
        return None
    member, p = logical
    if member == "DecimalType":
        body = encode_struct([(1, I32, p["scale"]), (2, I32, p["precision"])])
    elif member in ("TimeType", "TimestampType"):
        unit = encode_struct([(p["unit"] + 1, STRUCT, b"\x00")])
        body = encode_struct([(1, TRUE, bool(p["is_adjusted_to_utc"])), (2, STRUCT, unit)])
    elif member == "IntType":
        body = encode_struct([(1, BYTE, p["bit_width"]), (2, TRUE, bool(p["is_signed"]))])
    elif member == "VariantType":
        body = encode_struct([(1, BYTE, p.get("specification_version"))])
    elif member == "GeometryType":
        body = encode_struct([(1, BINARY, p.get("crs"))])
    elif member == "GeographyType":
        body = encode_struct([(1, BINARY, p.get("crs")), (2, I32, p.get("algorithm"))])
    else:
        body = b"\x00"
    return encode_struct([(LOGICAL_IDS[member], STRUCT, body)])


def leaf_paths(schema: list[dict] | None) -> list[tuple[int, list[bytes]]]:
    """(schema index, path) of every leaf (footer.schema_leaves); FlatbufferError where the list is not one tree: a
    flatbuffer that verifies says nothing about that."""
    try:
        return schema_leaves([(el["name"] or b"", el["num_children"] or 0) for el in schema or []])
    except SchemaTreeError as e:
        raise FlatbufferError(str(e)) from None


def _element(el: dict) -> bytes:
    logical = el["logical_type"]
    converted = CONVERTED.get(logical[0]) if logical else None
    decimal = logical[1] if logical and logical[0] == "DecimalType" else {}
    return encode_struct([
        (1, I32, el["type"]), (2, I32, el["type_length"]), (3, I32, el["repetition_type"]), (4, BINARY, el["name"]),
        (5, I32, el["num_children"] or None), (6, I32, converted), (7, I32, decimal.get("scale")),
        (8, I32, decimal.get("precision")), (9, I32, el["field_id"]), (10, STRUCT, _logical(logical))])


def _kvs(pairs: list | None) -> tuple | None:
    return None if pairs is None else (STRUCT, [encode_struct([(1, BINARY, k), (2, BINARY, v)]) for k, v in pairs])


def _statistics(s: dict | None) -> bytes | None:
    if s is None:
        return None
    lo, hi = s.get("min"), s.get("max")
    return encode_struct([
        (3, I64, s["null_count"]), (4, I64, s["distinct_count"]), (5, BINARY, hi and hi[0]),
        (6, BINARY, lo and lo[0]), (7, TRUE, hi and hi[1]), (8, TRUE, lo and lo[1])])


def _column(col: dict, ptype: int, path: list[bytes]) -> bytes:
    encodings = [PLAIN, RLE] + ([RLE_DICTIONARY] if col["dictionary_page_offset"] else [])
    bloom = col.get("bloom_filter") or (None, None)
    meta = encode_struct([
        (1, I32, ptype), (2, LIST, (I32, encodings)), (3, LIST, (BINARY, path)), (4, I32, col["codec"]),
        (5, I64, col["num_values"]), (6, I64, col["total_uncompressed_size"]),
        (7, I64, col["total_compressed_size"]), (8, LIST, _kvs(col["key_value_metadata"])),
        (9, I64, col["data_page_offset"]), (10, I64, col["index_page_offset"]),
        (11, I64, col["dictionary_page_offset"]), (12, STRUCT, _statistics(col["statistics"])),
        (14, I64, bloom[0]), (15, I32, bloom[1])])
    return encode_struct([(2, I64, 0), (3, STRUCT, meta)])


def comparable_to_thrift(meta: dict) -> bytes:
    schema = meta["schema"]
    leaves = leaf_paths(schema)
    row_groups = []
    for rg in meta["row_groups"]:
        cols = [_column(col, schema[i]["type"], path) for col, (i, path) in zip(rg["columns"], leaves, strict=True)]
        sorting = None if rg["sorting_columns"] is None else (STRUCT, [
            encode_struct([(1, I32, c), (2, TRUE, d), (3, TRUE, n)]) for c, d, n in rg["sorting_columns"]])
        row_groups.append(encode_struct([
            (1, LIST, (STRUCT, cols)), (2, I64, rg["total_byte_size"]), (3, I64, rg["num_rows"]),
            (4, LIST, sorting), (5, I64, rg["file_offset"]), (6, I64, rg["total_compressed_size"]),
            (7, I16, rg["ordinal"])]))
    orders = [schema[i]["column_order"] for i, _ in leaves]
    column_orders = (STRUCT, [encode_struct([(1, STRUCT, b"\x00")]) for _ in orders]) if all(orders) else None
    return encode_struct([
        (1, I32, meta["version"]), (2, LIST, (STRUCT, [_element(el) for el in schema])), (3, I64, meta["num_rows"]),
        (4, LIST, (STRUCT, row_groups)), (5, LIST, _kvs(meta["kv"])), (6, BINARY, meta["created_by"]),
        (7, LIST, column_orders)])
