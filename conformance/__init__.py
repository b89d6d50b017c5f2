"""parquet-conformance: conformance suite for Parquet binary protocol extensions."""

__version__ = "0.1.0"
