"""Format code below everything else: the canonical data form shared by tracks, and each track's codec,
bases and mutations (see docs/architecture.md)."""
