"""Seeded random tables and rows (generators/skiff/randomized.py): every column type and placement, one to three
tables, YSON nested in lists and maps. The data of each base is fixed by its name (same generator version, same
rows); the case seed picks what varies without changing the data: the YSON spelling of golden decode streams
(`respell_yson`), where a stream is cut, which table index replaces a good one."""

from __future__ import annotations

from parquet_conformance.corpus.skiff.catalog.common import (
    DENSE,
    DENSE_NULL,
    INPUT,
    OTHER_MAP,
    OUTPUT,
    ROLE,
    SPARSE_PRESENT,
    VARIANT,
    YSON32,
    Entries,
    requiring,
)
from parquet_conformance.generators.skiff.mutations import CutRow, RespellYson, SetTableIndex
from parquet_conformance.generators.skiff.randomized import random_document

COUNT = 24
CITES = [INPUT, DENSE, DENSE_NULL, SPARSE_PRESENT, OTHER_MAP, YSON32]


def entries() -> Entries:
    e = Entries("gen")
    cuts = bad_indexes = 0
    for n in range(COUNT):
        name = f"{n:02d}"
        fmt, rows = random_document(f"skiff-gen-{name}")
        tables = len(fmt["table_skiff_schemas"])
        title = f"random rows #{name}: {len(rows)} rows over {tables} table(s)"
        decode = e.add(name, "decode", f"decode: {title}, YSON respelled", CITES, format=fmt, rows=rows,
                       mutations=[RespellYson()])
        e.add(name, "encode", f"encode: {title}", [*CITES[1:], OUTPUT], format=fmt, rows=rows)
        if rows and cuts < 12:
            cuts += 1
            e.add(f"{name}/cut", "decode", f"decode: {title}, cut inside its last row",
                  [INPUT.requiring(ROLE), *CITES[1:2]],
                  format=fmt, kind="corrupt", expect="reject", mutations=[CutRow()], base=decode.base)
        if rows and bad_indexes < 6 and n % 3 == 0:
            bad_indexes += 1
            e.add(f"{name}/table-index", "decode", f"decode: {title}, a row's table index out of range",
                  requiring([INPUT, VARIANT]), format=fmt, kind="corrupt", expect="reject",
                  mutations=[SetTableIndex(row=0)], base=decode.base)
    return e
