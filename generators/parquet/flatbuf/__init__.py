"""FlatBuffers FileMetaData footer (apache/parquet-format PR #544): schema, generated code, converter."""
