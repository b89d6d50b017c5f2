"""Apache Spark's Parquet data source (`spark.read.parquet`), in a local[1] session that the
worker starts once; results come back through Arrow (`DataFrame.toArrow`)."""

from __future__ import annotations

from parquet_conformance.conformance.adapters import PythonAdapter, require_program


class Spark(PythonAdapter):
    name = "spark"
    implementation = "Apache Spark (parquet-java footer, vectorized reader)"
    module = "pyspark"
    memory_limit_bytes = None  # a JVM child; spark.driver.memory bounds it
    timeout_s = 120.0
    start_timeout_s = 300.0
    session = None

    def prepare(self) -> None:
        from pyspark.sql import SparkSession

        self.load()
        require_program("java")
        self.session = (SparkSession.builder.master("local[1]").appName("parquet-conformance-adapter")
                        .config("spark.ui.enabled", "false")
                        .config("spark.driver.memory", "2g")
                        .config("spark.sql.session.timeZone", "UTC")
                        .config("spark.sql.files.ignoreCorruptFiles", "false")
                        .getOrCreate())
        self.session.sparkContext.setLogLevel("ERROR")

    def read(self, path: str) -> object:
        assert self.session is not None, "prepare() starts the session"
        return self.session.read.parquet(f"file://{path}").toArrow()


ADAPTER = Spark()
