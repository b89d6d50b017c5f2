"""The Parquet track's report formats (a track folder of the reports floor: only the Parquet track's folders import
it, and it reaches the rest through the registries): parquet-site/, apache/parquet-site's status tables."""
