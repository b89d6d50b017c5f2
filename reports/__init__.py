"""Reports of a run: HTML matrix, results.json, JUnit XML per implementation, summary.md, run diffs."""
