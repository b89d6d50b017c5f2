"""Adapters for Parquet readers."""
