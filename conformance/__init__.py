"""The harness: adapters and their isolated workers, the judge, the local and Spark executors, the
results store, the gate, the pytest plugin and the command line (see docs/architecture.md)."""
