"""The scripts of `report --upstream` for the Parquet adapters (Adapter.reproducer): each reads a finding's file
with the library's own public API, as the adapter's `read` does, and imports nothing of ours. The skeletons are in
repro/ (one per language, or per library where its results need the library's schema to become plain values);
each adapter fills in how it calls its library, next to its `read`."""

from __future__ import annotations

from pathlib import Path

from parquet_conformance.conformance.adapters.reproducing import Reproducer

TEMPLATES = Path(__file__).parent / "repro"

# What the Python skeleton's `data` is for a library that hands its result over as Arrow: temporal values come from
# their integers (as generators/canonical.py reads them), so no Python date range limits what can be compared.
ARROW_DATA = '''def data(result):
    """(column names, row count, one column's values) of what the reader returned, through Arrow."""
    table = @@ARROW@@
    return table.column_names, table.num_rows, lambda name: arrow_values(table.column(name))


UNIT_NS = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}


def arrow_values(column):
    """A column's Python values; timestamps, dates and times from their integers (no date range limits them)."""
    t = column.type
    if pa.types.is_timestamp(t):
        return [None if v is None else Instant(v * UNIT_NS[t.unit]) for v in column.cast(pa.int64()).to_pylist()]
    if pa.types.is_date32(t):
        return [None if v is None else Days(v) for v in column.cast(pa.int32()).to_pylist()]
    if pa.types.is_date64(t):
        return [None if v is None else Days(v // 86_400_000) for v in column.cast(pa.int64()).to_pylist()]
    if pa.types.is_time(t):
        ints = column.cast(pa.int32() if t.bit_width == 32 else pa.int64()).to_pylist()
        return [None if v is None else TimeOfDay(v * UNIT_NS[t.unit]) for v in ints]
    return column.to_pylist()'''


def python(library: str, imports: str, version: str, read: str, install: str, arrow: str = "result",
           data: str = ARROW_DATA) -> Reproducer:
    """`read`: the body of read(path) (the library's call); `arrow`: the expression that makes the pyarrow Table of
    its `result`, for the default `data`; `version`: the expression of the library's version."""
    text = (TEMPLATES / "python.tmpl").read_text()
    text = text.replace("@@DATA@@", data.replace("@@ARROW@@", arrow)).replace("@@IMPORTS@@", imports)
    text = text.replace("@@READ@@", _indent(read)).replace("@@LIBRARY@@", library)
    text = text.replace("{VERSION}", "{" + version + "}")
    return Reproducer(language="Python", script="repro.py", text=text, install=install, run="python repro.py")


def template(name: str, language: str, script: str, install: str, run: str) -> Reproducer:
    """A skeleton written for one library (repro/NAME)."""
    return Reproducer(language=language, script=script, text=(TEMPLATES / name).read_text(), install=install,
                      run=run)


def _indent(body: str) -> str:
    return "\n".join("    " + line if line else line for line in body.strip("\n").splitlines())
