"""The harness: protocol, workers, execution (local and Spark), the judge, results and the gate. Imports no track
and no report (docs/architecture.md)."""
