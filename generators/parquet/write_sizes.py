"""The sizes the named write profiles ask writers for (generators/parquet/written.py PROFILES). A module of plain
numbers: the writers' adapters import it in a released version's environment, which has none of our dependencies."""

ROW_GROUP_ROWS = 500  # `row-groups`: at most this many rows per row group (the page-index table's 1200 rows: 3)
# `page-index`: small pages, so that the index has several pages per chunk to locate (by bytes, or by rows where a
# writer counts pages in rows)
PAGE_BYTES, PAGE_ROWS = 1024, 100
