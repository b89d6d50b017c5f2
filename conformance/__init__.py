"""The harness and the adapters: the Adapter base and registry, their isolated workers, the judge, the local and
Spark executors, the results store and the gate (see docs/architecture.md; the command line is app/, above the
reports)."""
