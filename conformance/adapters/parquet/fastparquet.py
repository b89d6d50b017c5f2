"""fastparquet (Python + numba/cython), through its pandas output.

pandas has no null for float64, so fastparquet returns NaN for null floats, and decimals as
float64: the DATE and DECIMAL annotations are re-applied here from the file's schema; the
NaN/null ambiguity cannot be undone and shows in the `base/*` baseline cases.
"""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

from parquet_conformance.conformance.adapters import PythonAdapter
from parquet_conformance.conformance.harness.envs import version_key
from parquet_conformance.generators.canonical import canonical_rows
from parquet_conformance.generators.parquet.written import ROW_GROUP_ROWS

# write's options per profile; DATA_PAGE_V2 is a module switch (fastparquet.writer.DATAPAGE_VERSION). It
# dictionary-encodes only pandas categoricals: the table's columns are written PLAIN by default.
OPTIONS: dict[str, dict[str, Any]] = {
    "default": {}, "zstd": {"compression": "ZSTD"}, "v2": {}, "no-dictionary": {}, "no-statistics": {"stats": False},
    "row-groups": {"row_group_offsets": ROW_GROUP_ROWS}}
DATE, DECIMAL = 6, 5  # parquet.thrift ConvertedType
WIDE = decimal.Context(prec=100)  # quantizing a float to a DECIMAL(38) or (76) scale needs more than 28 digits
FLOATING = (4, 5)  # parquet.thrift Type FLOAT, DOUBLE


class FastParquet(PythonAdapter):
    name = "fastparquet"
    implementation = "fastparquet"
    module = "fastparquet"
    package = "fastparquet"
    profiles = tuple(OPTIONS)

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
