"""Arrow C++'s Parquet reader through pyarrow."""

from __future__ import annotations

import importlib.util
import inspect
from collections.abc import Mapping
from typing import Any

from parquet_conformance.conformance.adapters import AdapterError, PythonAdapter, ours
from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.adapters.parquet.operations import Answer
from parquet_conformance.conformance.adapters.reproducing import Reproducer, Reproducing
from parquet_conformance.conformance.adapters.taxonomy import Refusals
from parquet_conformance.conformance.adapters.writing import PythonWriter
from parquet_conformance.conformance.harness.envs import version_key
from parquet_conformance.generators.parquet import operations
from parquet_conformance.generators.parquet.keys import KMS
from parquet_conformance.generators.parquet.write_sizes import PAGE_BYTES, ROW_GROUP_ROWS

# write_table's options per profile (generators/parquet/written.py PROFILES).
OPTIONS: dict[str, dict[str, object]] = {
    "default": {}, "zstd": {"compression": "zstd"}, "v2": {"data_page_version": "2.0"},
    "no-dictionary": {"use_dictionary": False}, "no-statistics": {"write_statistics": False},
    "page-index": {"write_page_index": True, "data_page_size": PAGE_BYTES},
    "row-groups": {"row_group_size": ROW_GROUP_ROWS}}

# Arrow's errors (ArrowTypeError, ArrowKeyError and ArrowIndexError are TypeError, KeyError and IndexError too), and
# OSError: parquet-cpp's ParquetException arrives as one (Status::IOError). ArrowMemoryError is a MemoryError: oom.
ARROW = ("pyarrow.lib.ArrowException", "builtins.OSError")


class PyArrow(PythonAdapter, PythonWriter, Reproducing):
    name = "pyarrow"
    implementation = "Arrow C++ (parquet-cpp)"
    module = "pyarrow.parquet"
    package = "pyarrow"
    profiles = tuple(OPTIONS)
    refusals = Refusals(classes=ARROW)

    def requirements(self, version: str) -> list[str]:
        # pyarrow <= 14 was built against numpy 1 and does not say so (15 declares numpy<2 itself).
        return [f"pyarrow=={version}", *(["numpy<2"] if version_key(version) < version_key("15") else [])]

    def version(self) -> str:
        import pyarrow

        return pyarrow.__version__

    def read(self, path: str) -> object:
        return self.load().read_table(path)

    # The operations (docs/adapter-protocol.md#operations): the footer's statistics and geospatial statistics as
    # pyarrow's metadata API gives them, a read with page checksums verified, a read with the case's keys through
    # its KMS hook. pyarrow exposes no page index and no bloom filter reader.
    operations = ("statistics", "geo-statistics", "crc", "decrypt")
    keyed = ("decrypt",)

    def statistics(self, path: str) -> Answer:
        md = self.load().ParquetFile(path).metadata
        rows = []
        for i in range(md.num_row_groups):
            for j in range(md.num_columns):
                chunk = md.row_group(i).column(j)
                s = chunk.statistics if chunk.is_stats_set else None
                rows.append((i, chunk.path_in_schema,
                             *((s.min_raw, s.max_raw) if s is not None and s.has_min_max else (None, None))))
        return Answer(operations.STATISTICS, rows)

    def offers(self, op: str, path: str) -> bool:
        if op == "geo-statistics":  # pyarrow 21 and later
            return hasattr(self.load().ColumnChunkMetaData, "is_geo_stats_set")
        if op == "decrypt":  # its Python KMS hook: pyarrow 8 and later
            return importlib.util.find_spec("pyarrow.parquet.encryption") is not None
        if op == "crc":
            return "page_checksum_verification" in inspect.signature(self.load().read_table).parameters
        return True

    def geo_statistics(self, path: str) -> Answer:
        md = self.load().ParquetFile(path).metadata
        rows = []
        for i in range(md.num_row_groups):
            for j in range(md.num_columns):
                chunk = md.row_group(i).column(j)
                if chunk.is_geo_stats_set:
                    g = chunk.geo_statistics
                    rows.append((i, chunk.path_in_schema, g.xmin, g.xmax, g.ymin, g.ymax, g.zmin, g.zmax, g.mmin,
                                 g.mmax, g.geospatial_types))
        return Answer(operations.GEO_STATISTICS, rows, lambda r: [*r[:-1], sorted(r[-1] or [])])

    def takes(self, op: str, keys: Mapping[str, str]) -> bool:
        return any(k.startswith(KMS) for k in keys)  # its Python API decrypts only through a KMS

    def decrypt(self, path: str, keys: Mapping[str, str]) -> object:
        """ParquetFile(path, decryption_properties=...).read(), as pyarrow's encryption examples read, the properties
        from its CryptoFactory, whose KMS client unwraps the file's data keys with the case's master keys (the key
        material's XOR wrap: generators/parquet/encryption.py). Not read_table: before 17.0.0 it documents
        decryption_properties and drops them (apache/arrow#39645)."""
        with ours("the test KMS's decryption properties"):
            from parquet_conformance.generators.parquet.encryption import decryption  # on use (start-up)

            held = decryption(keys)
        try:
            return self.load().ParquetFile(path, decryption_properties=held.properties).read()
        finally:  # the KMS is ours: where it failed, pyarrow only passed its error on
            if held.failures:
                raise AdapterError(held.failures[0])

    def crc(self, path: str) -> object:
        return self.load().read_table(path, page_checksum_verification=True)

    def canonical(self, result: Any) -> Mapping[str, Any]:
        return result.canonical() if isinstance(result, Answer) else super().canonical(result)

    def write(self, source: str, path: str, profile: str) -> None:
        self.load().write_table(self.table(source), path, **OPTIONS[profile])

    def reproducer(self) -> Reproducer:
        return reproducers.python("pyarrow", "import pyarrow as pa\nimport pyarrow.parquet as pq", "pa.__version__",
                                  "return pq.read_table(path)", "pip install pyarrow=={version}")


ADAPTER = PyArrow()
