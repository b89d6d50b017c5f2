"""The corpus: its records, the track registry, building, distribution and regression cases, and each
track's catalog (see docs/architecture.md)."""
