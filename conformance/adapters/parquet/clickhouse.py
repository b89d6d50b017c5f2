"""ClickHouse's Parquet readers, in process through chdb (embedded ClickHouse, no server).

chdb 4.x (ClickHouse 26.x) has one reader, the native v3. chdb 3.x (ClickHouse 25.x) selects among three
by settings: the default, built on Arrow C++'s Parquet reader; native v1 (ClickHouse's decoding, Arrow's
footer code); native v3. One adapter per reader: `clickhouse` (the version's default reader), and
`clickhouse-v1`, `clickhouse-v3`, pinned to chdb 3.7.2, the last release that still offers the choice.

Representation limits (ClickHouse's types, whatever the file says): an Array is never Nullable, so a null
list reads as [] (a null element of a list of lists too); a struct is a Tuple, never Nullable, so a null
struct reads as a struct of nulls and []. ClickHouse has one String type: every string comes out as
binary (output_format_arrow_string_as_string=0), and text is told from binary by the file's own logical
types, asked of ClickHouse's ParquetMetadata format after the data query (Arrow C++'s footer code, stricter than the
native reader: where it fails, our own footer decoder answers). That side query is ours: it never decides a verdict
(docs/adapters.md#the-data-path).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import metadata
from typing import Any

from parquet_conformance.conformance.adapters import AdapterUnavailable, PythonAdapter
from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.adapters.reproducing import Reproducer, Reproducing
from parquet_conformance.conformance.adapters.taxonomy import Refusals
from parquet_conformance.conformance.adapters.writing import PythonWriter
from parquet_conformance.generators.canonical import ArrowData
from parquet_conformance.generators.parquet.footer import read_footer, schema_leaves
from parquet_conformance.generators.parquet.write_sizes import PAGE_BYTES, ROW_GROUP_ROWS

V1, V3 = "input_format_parquet_use_native_reader", "input_format_parquet_use_native_reader_v3"
COMMON = "output_format_arrow_string_as_string=0, input_format_parquet_preserve_order=1, max_threads=1"
LIST_PARTS = {"list", "element", "item", "array", "bag", "array_element"}  # list levels in a column's path
TEXT = {"String", "Json", "JSON"}  # ENUM stays bytes, as in the expected data (docs/spec-notes.md#types)
BYTE_ARRAY, TEXT_CONVERTED, TEXT_LOGICAL = 6, {0, 19}, ("STRING", "JSON")  # parquet.thrift: UTF8, JSON


# Output settings per profile (ClickHouse's native writer). It writes a page index by default and has no setting for
# DATA_PAGE_V2 or for leaving statistics out.
OPTIONS = {"default": "", "zstd": "output_format_parquet_compression_method='zstd'",
           "no-dictionary": "output_format_parquet_max_dictionary_size=0",
           "page-index": f"output_format_parquet_data_page_size={PAGE_BYTES}",
           "row-groups": f"output_format_parquet_row_group_size={ROW_GROUP_ROWS}"}


class ClickHouse(PythonAdapter, PythonWriter, Reproducing):
    name = "clickhouse"
    cell_cost_s = 0.08
    implementation = "ClickHouse (chdb)"
    module = "chdb"
    package = "chdb"
    profiles = tuple(OPTIONS)
    reader = ""  # "", "v1" or "v3": which reader the settings select
    settings: tuple[tuple[str, int], ...] = ()
    _engine: str | None = None
    # DB::Exception arrives as a RuntimeError "Code: N. DB::Exception: ... (NAME)": a refusal, but LOGICAL_ERROR (49,
    # ClickHouse's own word for a bug) and STD_EXCEPTION (1001) carrying a C++ standard library exception; out of
    # memory is MEMORY_LIMIT_EXCEEDED (241) or CANNOT_ALLOCATE_MEMORY (173).
    refusals = Refusals(
        messages=(("builtins.RuntimeError", r"^Code: \d+\. DB::Exception: "),),
        unhandled=(("builtins.RuntimeError", r"^Code: 49\. |\(LOGICAL_ERROR\)"),
                   ("builtins.RuntimeError", r"^Code: 1001\. DB::Exception: std::|std::(out_of_range|length_error|"
                                             r"bad_cast|bad_variant_access|bad_optional_access|logic_error)")),
        oom=(("builtins.RuntimeError", r"^Code: (241|173)\. "),))

    def version(self) -> str:
        return metadata.version("chdb")  # chdb.__version__ is chdb-core's in 4.x

    def _scalar(self, sql: str) -> str:
        return str(self.load().query(sql, "CSV").bytes().decode().strip().strip('"'))

    def prepare(self) -> None:
        self.load()
        clickhouse = self._scalar("SELECT version()")
        obsolete = dict(line.replace('"', "").split(",") for line in self._scalar(
            f"SELECT name, is_obsolete FROM system.settings WHERE name IN ('{V1}', '{V3}')").splitlines() if line)
        choice = obsolete.get(V1, "1") == "0"  # the readers are still selectable
        if self.reader == "v1" and not choice:
            raise AdapterUnavailable(f"chdb {self.version()} (ClickHouse {clickhouse}) has only the native v3 reader "
                                     "(adapter clickhouse); v1 is in chdb <= 3.7.2")
        if self.reader == "v3" and V3 not in obsolete:
            raise AdapterUnavailable(f"chdb {self.version()} (ClickHouse {clickhouse}) has no native v3 reader")
        reader = {"v1": "native v1 (Arrow C++ footer)", "v3": "native v3"}.get(self.reader) or (
            "Arrow C++ parquet (the default reader)" if choice else "native v3")
        self._engine = f"ClickHouse {clickhouse} {reader}"

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "engine": self._engine or self.engine or None}

    def read(self, path: str) -> Any:
        """The data query alone: what it raises is ClickHouse's outcome."""
        chdb, quoted = self.load(), _quoted(path)
        settings = "".join(f"{k}={v}, " for k, v in self.settings)
        return chdb.query(f"SELECT * FROM file('{quoted}', Parquet) SETTINGS {settings}{COMMON}", "ArrowTable"), path

    def texts(self, path: str) -> set[tuple[str, ...]]:
        """The text columns' paths: ClickHouse's ParquetMetadata, or our footer decoder where that query fails (it
        is Arrow C++'s footer code, which refuses footers that the native reader reads); a failure of both is ours."""
        try:
            meta = self.load().query(f"SELECT columns FROM file('{_quoted(path)}', ParquetMetadata)", "JSONEachRow")
            return metadata_texts(meta.bytes())
        except Exception:  # a side query's failure says nothing about the data query
            return footer_texts(path)

    def write(self, source: str, path: str, profile: str) -> None:
        """`SELECT * FROM Python(table) INTO OUTFILE`: chdb reads the Arrow table from a Python variable."""
        chdb, quoted = self.load(), _quoted(path)
        source_table = self.table(source)  # noqa: F841 (chdb finds the table by the variable's name)
        settings = f" SETTINGS {OPTIONS[profile]}" if OPTIONS[profile] else ""
        chdb.query(f"SELECT * FROM Python(source_table) INTO OUTFILE '{quoted}' FORMAT Parquet{settings}")

    def canonical(self, result: Any) -> Mapping[str, Any]:
        """Text told from binary after the data query: only a table with binary in it asks which is which."""
        import pyarrow as pa
        import pyarrow.compute as pc

        table, path = result
        texts = self.texts(path) if any(_has_binary(pa, t) for t in table.schema.types) else set()
        return ArrowData(text_table(pa, pc, table, texts))

    def reproducer(self) -> Reproducer:
        """repro.py reads as `read` does (SQL over the file, through chdb) and tells text from binary as
        `canonical` does, from ParquetMetadata, with this module's own functions, copied in (where that query
        fails, the script cannot judge: it has no footer decoder of ours)."""
        return reproducers.python(
            "chdb", "import chdb\nimport pyarrow as pa\nimport pyarrow.compute as pc\nfrom importlib.metadata import "
            "version\nfrom typing import Any", "version('chdb')",
            'quoted = _quoted(path)\n'
            f'settings = "{"".join(f"{k}={v}, " for k, v in self.settings)}{COMMON}"\n'
            'return chdb.query(f"SELECT * FROM file(\'{quoted}\', Parquet) SETTINGS {settings}", "ArrowTable"), path',
            "pip install chdb=={version} pyarrow", arrow="text_table(pa, pc, result[0], metadata_texts(chdb.query("
            "f\"SELECT columns FROM file('{_quoted(result[1])}', ParquetMetadata)\", 'JSONEachRow').bytes()))",
            data=reproducers.ARROW_DATA + "\n\n\n" + reproducers.copied(
                LIST_PARTS=LIST_PARTS, TEXT=TEXT, functions=(_quoted, metadata_texts, _texts_as_strings, text_table)))


def _quoted(path: str) -> str:
    return path.replace("\\", "\\\\").replace("'", "\\'")


def metadata_texts(meta: bytes) -> set[tuple[str, ...]]:
    """The paths of the text columns (list levels left out) in ClickHouse's ParquetMetadata answer."""
    return {tuple(p for p in c["path"].split(".") if p not in LIST_PARTS)
            for line in meta.decode().splitlines() for c in json.loads(line)["columns"]
            if c["physical_type"] == "BYTE_ARRAY" and c["logical_type"] in TEXT}


def footer_texts(path: str) -> set[tuple[str, ...]]:
    """The same paths by our footer decoder (generators/parquet/footer.py): BYTE_ARRAY leaves whose LogicalType, or
    without one whose ConvertedType, says STRING or JSON."""
    with open(path, "rb") as fh:
        footer, _ = read_footer(fh.read())
    elements = footer.root.children("schema")
    texts = set()
    for index, names in schema_leaves([(e.value("name", b""), e.value("num_children") or 0) for e in elements]):
        element, logical = elements[index], elements[index].child("logicalType")
        text = (any(logical.get(k) for k in TEXT_LOGICAL) if logical is not None
                else element.value("converted_type") in TEXT_CONVERTED)
        if element.value("type") == BYTE_ARRAY and text:
            texts.add(tuple(n.decode("utf-8", "replace") for n in names if n.decode("utf-8", "replace")
                            not in LIST_PARTS))
    return texts


def _has_binary(pa: Any, t: Any) -> bool:
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return True
    return any(_has_binary(pa, t.field(i).type) for i in range(t.num_fields))


def text_table(pa: Any, pc: Any, table: Any, texts: set[tuple[str, ...]]) -> Any:
    """ClickHouse's table with its binary turned back into text where the file's own logical types say text (`texts`:
    the text columns' paths); text that is not UTF-8 stays what ClickHouse returned."""
    columns = [pc.cast(col, options=pc.CastOptions(_texts_as_strings(pa, col.type, (name,), texts),
                                                   allow_invalid_utf8=True))
               for name, col in zip(table.column_names, table.columns, strict=True)]
    return pa.table(columns, names=table.column_names)


def _texts_as_strings(pa: Any, t: Any, key: tuple[str, ...], texts: set[tuple[str, ...]]) -> Any:
    """The Arrow type with ClickHouse's binary turned back into text where the file's logical type says text."""
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return (pa.string() if pa.types.is_binary(t) else pa.large_string()) if key in texts else t
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(_texts_as_strings(pa, f.type, (*key, f.name), texts)) for f in t])
    if pa.types.is_map(t):
        return pa.map_(_texts_as_strings(pa, t.key_type, (*key, "key_value", "key"), texts),
                       t.item_field.with_type(_texts_as_strings(pa, t.item_type, (*key, "key_value", "value"), texts)))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        inner = t.value_field.with_type(_texts_as_strings(pa, t.value_type, key, texts))
        return pa.list_(inner) if pa.types.is_list(t) else pa.large_list(inner)
    return t


class ClickHouseV1(ClickHouse):
    name = "clickhouse-v1"
    release = "3.7.2"
    default_run = False  # Arrow C++'s footer code under ClickHouse's decoding: run by name
    reader = "v1"
    profiles = ()  # a reader of chdb 3.7.2; its writer is ClickHouse's writer, as `clickhouse` writes
    settings = ((V1, 1), (V3, 0))
    timeout_s = 20.0  # after one good read, a nested file hangs this reader: a hang, found sooner


class ClickHouseV3(ClickHouse):
    name = "clickhouse-v3"
    release = "3.7.2"
    default_run = False  # an older release of the native v3 reader that `clickhouse` runs: by name
    reader = "v3"
    profiles = ()
    settings = ((V1, 0), (V3, 1))


ADAPTER = ClickHouse()
ADAPTER_V1 = ClickHouseV1()
ADAPTER_V3 = ClickHouseV3()
