"""DuckDB's own Parquet reader (C++), results handed over as Arrow."""

from __future__ import annotations

import base64
import sys
from collections.abc import Mapping
from typing import Any

from parquet_conformance.conformance.adapters import AdapterError, PythonAdapter, ours
from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.adapters.parquet.operations import Answer, from_text, geo_code
from parquet_conformance.conformance.adapters.parquet.variants import arrow_data
from parquet_conformance.conformance.adapters.reproducing import Reproducer, Reproducing
from parquet_conformance.conformance.adapters.taxonomy import Refusals
from parquet_conformance.conformance.adapters.writing import PythonWriter
from parquet_conformance.generators.canonical import canonical_rows
from parquet_conformance.generators.parquet import operations
from parquet_conformance.generators.parquet.keys import COLUMN, FOOTER

# COPY options per profile. DuckDB writes no DATA_PAGE_V2 (PARQUET_VERSION V2 changes encodings only), cannot turn
# statistics off and writes no page index; ROW_GROUP_SIZE is rounded up to its vector size (2048 rows), so several
# row groups come from ROW_GROUP_SIZE_BYTES.
OPTIONS = {"default": "", "zstd": "COMPRESSION zstd", "no-dictionary": "DICTIONARY_SIZE_LIMIT 0",
           "row-groups": "ROW_GROUP_SIZE_BYTES 8000"}


# The functions of an operation that later releases added (DuckDB 1.4 has no parquet_page_index; Parquet encryption
# came with add_parquet_key, a pragma, in 0.10.0).
FUNCTIONS = {"page-index": "parquet_page_index", "bloom": "parquet_bloom_probe", "decrypt": "add_parquet_key"}


def printable_key(key: bytes) -> bool:
    """A key DuckDB can be given as text (it takes 16, 24 or 32 characters as the raw key) in a SQL literal."""
    return len(key) in (16, 24, 32) and all(0x20 < b < 0x7F and b not in b"'\\" for b in key)


class DuckDB(PythonAdapter, PythonWriter, Reproducing):
    name = "duckdb"
    cell_cost_s = 0.03
    implementation = "DuckDB"
    module = "duckdb"
    package = "duckdb"
    profiles = tuple(OPTIONS)
    # Releases up to 1.4 reserve more address space than they use: under an address-space limit they fail
    # wide files ("Out of Memory Error: Allocation failure") that they read. DuckDB bounds its own memory.
    memory_limit_bytes = None
    # duckdb.Error and its subclasses, but its internal errors, and a bare Error carrying a C++ standard library
    # exception's what() (Thrift's and the Parquet extension's own runtime_errors are bare Errors too, on purpose).
    refusals = Refusals(
        classes=("duckdb.Error",),
        unhandled=(("duckdb.InternalException", ""), ("duckdb.FatalException", ""),
                   ("duckdb.Error", r"^(vector::|basic_string|std::bad_|map::at|unordered_map::at|cannot create "
                                    r"std::vector|bitset::|std::out_of_range|std::length_error)")),
        oom=(("duckdb.OutOfMemoryException", ""),))

    def requirements(self, version: str) -> list[str]:
        return [f"duckdb=={version}", "pyarrow"]  # results come as Arrow

    def read(self, path: str) -> object:
        return self._select(path)

    def _select(self, path: str, key: str | None = None) -> object:
        """The query's result as Arrow, or where DuckDB's Arrow export fails, as the rows of fetchall(): the Arrow
        export is a conversion, and only fetchall's error says that DuckDB's read failed. With `key`: the footer
        key, registered first (PRAGMA add_parquet_key) and named in read_parquet's encryption_config."""
        con = self.load().connect(config={"memory_limit": "4GB"})
        sql = "SELECT * FROM read_parquet(?)"
        try:
            if key is not None:
                if not printable_key(key.encode()):  # takes() refused any other; a quote would end the literal
                    raise AdapterError("a footer key that is not printable text without quotes")
                con.execute(f"PRAGMA add_parquet_key('case', '{key}')")
                sql = "SELECT * FROM read_parquet(?, encryption_config = {footer_key: 'case'})"
            result = con.execute(sql, [path])
            # to_arrow_table is the newer name; releases before 1.4 have only fetch_arrow_table
            try:
                return (getattr(result, "to_arrow_table", None) or result.fetch_arrow_table)()
            except Exception as e:
                print(f"the Arrow export failed ({type(e).__name__}); the rows again through fetchall()",
                      file=sys.stderr)
            result = con.execute(sql, [path])
            return [d[0] for d in result.description], result.fetchall()
        finally:
            con.close()

    # docs/adapter-protocol.md#keys: DuckDB takes one key, the footer's, by name (PRAGMA add_parquet_key, then
    # read_parquet's encryption_config), and as text: a key it can be given is printable.
    keyed = ("decrypt",)

    def takes(self, op: str, keys: Mapping[str, str]) -> bool:
        return FOOTER in keys and not any(k.startswith(COLUMN) for k in keys) and printable_key(
            base64.b64decode(keys[FOOTER]))

    def decrypt(self, path: str, keys: Mapping[str, str]) -> object:
        with ours("the footer key as text"):
            key = base64.b64decode(keys[FOOTER]).decode("ascii")
        return self._select(path, key)

    def canonical(self, result: object) -> Mapping[str, Any]:
        """An operation's answer; Arrow, with a VARIANT column (DuckDB hands it over as `arrow.parquet.variant`,
        unshredded) decoded; or the rows of fetchall() where the Arrow export failed."""
        if isinstance(result, Answer):
            return result.canonical()
        if isinstance(result, tuple):
            columns, rows = result
            return canonical_rows(columns, rows)
        return arrow_data(result)

    # The operations (docs/adapter-protocol.md#operations), through DuckDB's own Parquet functions: parquet_metadata
    # (statistics, geospatial statistics), parquet_page_index, parquet_bloom_probe. DuckDB has no option to verify
    # page checksums.
    operations = ("statistics", "page-index", "bloom", "geo-statistics", "decrypt")
    def offers(self, op: str, path: str) -> bool:
        if op in FUNCTIONS:
            return bool(self._query("SELECT count(*) FROM duckdb_functions() WHERE function_name = ?",
                                    [FUNCTIONS[op]])[0][0])
        if op == "geo-statistics":  # parquet_metadata's geo_bbox and geo_types columns
            columns = {r[0] for r in self._query("DESCRIBE SELECT * FROM parquet_metadata(?)", [path])}
            return {"geo_bbox", "geo_types"} <= columns
        return True

    def _query(self, sql: str, params: list[object], con: Any = None) -> list[tuple[Any, ...]]:
        if con is not None:
            return list(con.execute(sql, params).fetchall())
        con = self.load().connect(config={"memory_limit": "4GB"})
        try:
            return list(con.execute(sql, params).fetchall())
        finally:
            con.close()

    def _blobs(self, path: str) -> list[bool]:
        """Per leaf column, whether DuckDB reads it as a BLOB: its statistics text then escapes bytes (\\xFF), which
        DuckDB's own cast to BLOB reads back; any other BYTE_ARRAY text is the value's UTF-8."""
        return [t == "BLOB" for t, children in self._query(
            "SELECT duckdb_type, num_children FROM parquet_schema(?)", [path])[1:] if not children]

    def statistics(self, path: str) -> Answer:
        blobs = self._blobs(path)
        rows = self._query("SELECT row_group_id, path_in_schema, type, stats_null_count, stats_min_value, "
                           "stats_max_value, try_cast(stats_min_value AS BLOB), try_cast(stats_max_value AS BLOB), "
                           "column_id FROM parquet_metadata(?) ORDER BY row_group_id, column_id", [path])
        return Answer(operations.STATISTICS, rows, lambda r: [
            r[0], r[1], from_text(r[4], r[2], r[6] if blobs[r[8]] else None),
            from_text(r[5], r[2], r[7] if blobs[r[8]] else None)])

    def page_index(self, path: str) -> Answer:
        blobs = self._blobs(path)
        rows = self._query(
            "SELECT p.row_group_id, p.path_in_schema, p.page_id, p.page_offset, p.compressed_page_size, "
            "p.first_row_index, p.null_page, p.null_count, p.min_value, p.max_value, p.boundary_order, m.type, "
            "try_cast(p.min_value AS BLOB), try_cast(p.max_value AS BLOB), p.column_id "
            "FROM parquet_page_index(?) p JOIN parquet_metadata(?) m USING (row_group_id, column_id) "
            "ORDER BY p.row_group_id, p.column_id, p.page_id", [path, path])
        return Answer(operations.PAGE_INDEX, rows, lambda r: [
            *r[:8], None if r[6] is not False else from_text(r[8], r[11], r[12] if blobs[r[14]] else None),
            None if r[6] is not False else from_text(r[9], r[11], r[13] if blobs[r[14]] else None), r[10]])

    def bloom(self, path: str) -> Answer:
        """Each chunk with a bloom filter probed (parquet_bloom_probe) with the column's distinct values, as DuckDB
        reads them, and their absent probes (generators/parquet/operations.py probes)."""
        con = self.load().connect(config={"memory_limit": "4GB"})
        try:
            chunks = self._query("SELECT row_group_id, path_in_schema FROM parquet_metadata(?) WHERE "
                                 "bloom_filter_offset IS NOT NULL ORDER BY row_group_id, column_id", [path], con)
            rows = []
            for column in dict.fromkeys(c for _, c in chunks):
                quoted = '"' + column.replace('"', '""') + '"'
                values = [v for (v,) in self._query(f"SELECT DISTINCT {quoted} FROM read_parquet(?)", [path], con)]
                for value in operations.probes(values):
                    found = dict(self._query("SELECT row_group_id, bloom_filter_excludes FROM "
                                             "parquet_bloom_probe(?, ?, ?)", [path, column, value], con))
                    rows += [(rg, column, value, found[rg]) for rg, c in chunks if c == column]
        finally:
            con.close()
        order = {chunk: i for i, chunk in enumerate(chunks)}
        return Answer(operations.BLOOM, sorted(rows, key=lambda r: order[(r[0], r[1])]))

    def geo_statistics(self, path: str) -> Answer:
        rows = self._query("SELECT row_group_id, path_in_schema, geo_bbox, geo_types FROM parquet_metadata(?) WHERE "
                           "geo_bbox IS NOT NULL OR geo_types IS NOT NULL ORDER BY row_group_id, column_id", [path])
        bounds = ("xmin", "xmax", "ymin", "ymax", "zmin", "zmax", "mmin", "mmax")
        return Answer(operations.GEO_STATISTICS, rows, lambda r: [
            r[0], r[1], *((r[2] or {}).get(k) for k in bounds), sorted(geo_code(n) for n in r[3] or [])])


    def write(self, source: str, path: str, profile: str) -> None:
        con = self.load().connect(config={"memory_limit": "4GB"})
        try:
            con.register("src", self.table(source))
            quoted = path.replace("'", "''")
            con.execute(f"COPY src TO '{quoted}' (FORMAT parquet{', ' + OPTIONS[profile] if OPTIONS[profile] else ''})")
        finally:
            con.close()

    def reproducer(self) -> Reproducer:
        return reproducers.python(
            "duckdb", "import duckdb\nimport pyarrow as pa", "duckdb.__version__",
            'con = duckdb.connect(config={"memory_limit": "4GB"})\ntry:\n    try:\n'
            '        return con.execute("SELECT * FROM read_parquet(?)", [path]).to_arrow_table()  # 1.4+\n'
            "    except Exception as e:  # the Arrow export: fetchall() says whether DuckDB read the file\n"
            "        print(f'the Arrow export failed ({type(e).__name__}); the rows again through fetchall()')\n"
            '        result = con.execute("SELECT * FROM read_parquet(?)", [path])\n'
            "        return [d[0] for d in result.description], result.fetchall()\n"
            "finally:\n    con.close()", "pip install duckdb=={version} pyarrow",
            arrow="result if isinstance(result, pa.Table) else pa.Table.from_pylist([dict(zip(result[0], r)) "
                  "for r in result[1]])")


ADAPTER = DuckDB()
