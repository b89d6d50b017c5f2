"""fastparquet (Python + numba/cython), through its pandas output.

pandas has no null for float64, so fastparquet returns NaN for null floats, and decimals as
float64: the DATE and DECIMAL annotations are re-applied here from the file's schema; the
NaN/null ambiguity cannot be undone and shows in the `base/*` baseline cases.
"""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.adapters.parquet.operations import NoDecryption
from parquet_conformance.conformance.adapters.representations import Documented
from parquet_conformance.conformance.adapters.reproducing import Reproducer, Reproducing
from parquet_conformance.conformance.adapters.taxonomy import Refusals
from parquet_conformance.conformance.adapters.writing import PythonWriter
from parquet_conformance.conformance.harness.envs import version_key
from parquet_conformance.generators.canonical import canonical_rows
from parquet_conformance.generators.parquet.write_sizes import ROW_GROUP_ROWS
from parquet_conformance.generators.representations import Representation

# write's options per profile; DATA_PAGE_V2 is a module switch (fastparquet.writer.DATAPAGE_VERSION). It
# dictionary-encodes only pandas categoricals: the table's columns are written PLAIN by default.
OPTIONS: dict[str, dict[str, Any]] = {
    "default": {}, "zstd": {"compression": "ZSTD"}, "v2": {}, "no-dictionary": {}, "no-statistics": {"stats": False},
    "row-groups": {"row_group_offsets": ROW_GROUP_ROWS}}
DATE, DECIMAL = 6, 5  # parquet.thrift ConvertedType
WIDE = decimal.Context(prec=100)  # quantizing a float to a DECIMAL(38) or (76) scale needs more than 28 digits
FLOATING = (4, 5)  # parquet.thrift Type FLOAT, DOUBLE

# The repro script's `data`: pandas values, with the DATE and DECIMAL annotations re-applied as `canonical` does.
PANDAS_DATA = '''def data(result):
    """(column names, row count, one column's values) of the pandas DataFrame, with DATE and DECIMAL re-applied
    from the file's schema (pandas holds dates as timestamps and decimals as floats); NaN outside a FLOAT or DOUBLE
    column is pandas' null."""
    pf, df = result

    def values(name):
        element = pf.schema.schema_element(name.split("."))
        kind, scale = element.converted_type, element.scale or 0
        out = []
        for v in df[name].tolist():
            if isinstance(v, float) and v != v and element.type not in (4, 5):  # not FLOAT, DOUBLE
                v = None
            elif kind == 6 and isinstance(v, dt.datetime):  # ConvertedType DATE
                v = v.date()
            elif kind == 5 and isinstance(v, float) and v == v:  # ConvertedType DECIMAL
                v = decimal.Decimal(repr(v)).quantize(decimal.Decimal(1).scaleb(-scale))
            out.append(v)
        return out

    return [str(c) for c in df.columns], len(df), values'''


# No decryption: no key parameter anywhere in its API; its Thrift spec names the encryption fields, nothing decrypts
# them.
class FastParquet(NoDecryption, PythonWriter, Reproducing):
    name = "fastparquet"
    cell_cost_s = 0.3  # its hangs burn CPU to their limit
    implementation = "fastparquet"
    module = "fastparquet"
    package = "fastparquet"
    profiles = tuple(OPTIONS)
    # Its own exception, its codecs' and JSON codecs', and the plain errors it raises on purpose (fastparquet/core.py,
    # compression.py, converted_types.py); its Cython Thrift reader's TypeError ('NoneType' object is not iterable),
    # numpy's index errors and a seek before the file's start (OSError EINVAL) are not among them.
    refusals = Refusals(
        classes=("fastparquet.util.ParquetException", "cramjam.DecompressionError", "fastparquet.json.JsonCodecError"),
        messages=(("builtins.NotImplementedError", r"^Encoding "),
                  ("builtins.RuntimeError", r"^(Compression '.*' not available|Attempt to read as categorical|"
                                            r"Assigned array dtype)"),
                  # writer.py's own word on a column it has no Parquet type for: the table declined, not a bug
                  ("builtins.ValueError", r"^(Timestamp $|Column contains repeated value|Returning category type|"
                                          r"Can't infer object conversion type)"),
                  ("builtins.ImportError", r"^BSON not found")))
    representations = (
        Documented(Representation.NULL_FLOAT_AS_NAN,
                   "In pandas, there is no internal representation difference between NULL (no value) and NaN/NaT "
                   "(not a valid number) for float and time columns.",
                   "https://fastparquet.readthedocs.io/en/latest/details.html#nulls"),
        Documented(Representation.STRUCT_AS_LEAF_COLUMNS,
                   "Fastparquet can read nested schemas. The principal mechamism is flattening, whereby parquet "
                   "schema struct columns become top-level columns.",
                   "https://fastparquet.readthedocs.io/en/latest/details.html#reading-nested-schema"))

    def requirements(self, version: str) -> list[str]:
        # Releases before 2024.11 were built against numpy 1 and do not say so.
        return [f"fastparquet=={version}", *(["numpy<2"] if version_key(version) < version_key("2024.11") else [])]

    def read(self, path: str) -> Any:
        pf = self.load().ParquetFile(path)
        return pf, pf.to_pandas()

    def write(self, source: str, path: str, profile: str) -> None:
        """Through pandas, as its users write: nullable pandas dtypes keep integers and booleans with nulls what they
        are (a plain to_pandas would make them float64)."""
        import pandas as pd
        import pyarrow as pa

        nullable = {pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(), pa.int32(): pd.Int32Dtype(),
                    pa.int64(): pd.Int64Dtype(), pa.uint8(): pd.UInt8Dtype(), pa.uint16(): pd.UInt16Dtype(),
                    pa.uint32(): pd.UInt32Dtype(), pa.uint64(): pd.UInt64Dtype(), pa.bool_(): pd.BooleanDtype(),
                    pa.string(): pd.StringDtype()}
        frame = self.table(source).to_pandas(types_mapper=nullable.get)
        fp = self.load()
        writer = fp.writer
        before = writer.DATAPAGE_VERSION
        writer.DATAPAGE_VERSION = 2 if profile == "v2" else before
        try:
            fp.write(path, frame, write_index=False, **OPTIONS[profile])
        finally:
            writer.DATAPAGE_VERSION = before

    def reproducer(self) -> Reproducer:
        return reproducers.python("fastparquet", "import fastparquet", "fastparquet.__version__",
                                  "pf = fastparquet.ParquetFile(path)\nreturn pf, pf.to_pandas()",
                                  "pip install fastparquet=={version}", data=PANDAS_DATA)

    def canonical(self, result: Any) -> dict[str, Any]:
        import pandas as pd

        pf, df = result
        columns = []
        for name in df.columns:
            element = pf.schema.schema_element(name.split("."))
            kind, scale = element.converted_type, element.scale or 0
            nan_is_null = element.type not in FLOATING  # pandas marks missing objects with NaN
            columns.append([_python(v, kind, scale, pd, nan_is_null) for v in df[name].tolist()])
        return canonical_rows([str(c) for c in df.columns], zip(*columns, strict=True) if columns else [])


def _python(v: object, kind: int | None, scale: int, pd: Any, nan_is_null: bool = False) -> object:
    if v is None or v is pd.NA or v is pd.NaT or (nan_is_null and isinstance(v, float) and v != v):
        return None
    if hasattr(v, "tolist") and not isinstance(v, (str, bytes)):  # numpy array (nested) or scalar
        v = v.tolist()
    if isinstance(v, list):
        return [_python(x, None, 0, pd) for x in v]
    if kind == DATE and isinstance(v, dt.datetime):  # a pandas Timestamp is a datetime: canonical_value keeps its ns
        return v.date()
    if kind == DECIMAL and isinstance(v, float) and v == v:
        return decimal.Decimal(repr(v)).quantize(decimal.Decimal(1).scaleb(-scale), context=WIDE)
    return v


ADAPTER = FastParquet()
