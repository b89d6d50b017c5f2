"""parquet-python (PyPI `parquet`): a pure-Python reader whose footer and page headers are decoded by thriftpy2's
compact protocol, read as its README shows: `parquet.DictReader(file)`, one dict per row.

It decodes PLAIN and PLAIN_DICTIONARY pages of v1 files with the SNAPPY and GZIP codecs (the `snappy` extra);
RLE_DICTIONARY, the dictionary encoding pyarrow writes by default, it refuses ("Unsupported encoding"), and so
most of this suite's bases. What it returns is taken as it is, wrong values included: those are findings, never
repaired here (a BOOLEAN column that decodes to nothing shifts the other values under the wrong names, dates are
read as ordinals, decimals keep the unscaled integer).
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

from parquet_conformance.conformance.adapters.parquet.operations import NoDecryption
from parquet_conformance.conformance.adapters.taxonomy import Refusals
from parquet_conformance.generators.canonical import canonical_rows


# No decryption: its parquet.thrift has no FileCryptoMetaData, DictReader takes no key.
class ParquetPython(NoDecryption):
    name = "parquet-python"
    implementation = "parquet-python (pure Python, thriftpy2)"
    module = "parquet"
    package = "parquet"
    # Its own exception and the plain errors it raises on purpose, thriftpy2's (its Thrift decoder) and its codecs'
    # (python-snappy, gzip). A huge length is a MemoryError (oom); a KeyError for a v2 page header is not a refusal.
    refusals = Refusals(
        classes=("parquet.ParquetFormatException", "thriftpy2.thrift.TException", "snappy.UncompressError",
                 "gzip.BadGzipFile", "zlib.error"),
        messages=(("builtins.NotImplementedError", r"^Bit packing not yet supported"),
                  ("builtins.EOFError", r"^Expected \d+ bytes but got \d+ bytes")))

    def requirements(self, version: str) -> list[str]:
        return [f"parquet[snappy]=={version}", "pyarrow"]  # pyarrow: the harness's canonical form imports it

    def version(self) -> str:
        return metadata.version("parquet")

    def prepare(self) -> None:
        import logging

        self.load()
        logging.getLogger("parquet").setLevel(logging.ERROR)  # a warning per page on stderr otherwise

    def read(self, path: str) -> Any:
        with open(path, "rb") as fh:
            return list(self.load().DictReader(fh))

    def canonical(self, result: Any) -> dict[str, Any]:
        columns = list(result[0]) if result else []
        return canonical_rows(columns, ([row[c] for c in columns] for row in result))


ADAPTER = ParquetPython()
