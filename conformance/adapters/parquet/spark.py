"""Apache Spark's Parquet data source (`spark.read.parquet`), in a local[1] session that the
worker starts once; results come back through Arrow (`DataFrame.toArrow`, pyspark >= 4.0) or, for
older releases (`spark==3.5.9`: parquet-java 1.13), through `collect()` in UTC."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from parquet_conformance.conformance.adapters import PythonAdapter, require_program
from parquet_conformance.generators.canonical import canonical_rows, canonical_table


class Spark(PythonAdapter):
    name = "spark"
    implementation = "Apache Spark (parquet-java footer, vectorized reader)"
    module = "pyspark"
    package = "pyspark"
    memory_limit_bytes = None  # a JVM child; spark.driver.memory bounds it
    timeout_s = 120.0
    start_timeout_s = 300.0
    copies = 2  # each read waits ~0.3 s on Spark's planning and scheduling: two sessions overlap their waits
    session = None

    def prepare(self) -> None:
        from pyspark.sql import SparkSession

        from parquet_conformance.conformance.harness.spark import java_options, quiet_pyspark

        quiet_pyspark()
        self.load()
        require_program("java")
        os.environ["TZ"] = "UTC"  # collect() turns timestamps into local datetimes
        time.tzset()
        self.session = (SparkSession.builder.master("local[1]").appName("parquet-conformance-adapter")
                        .config("spark.ui.enabled", "false")
                        .config("spark.driver.extraJavaOptions", java_options())
                        .config("spark.ui.showConsoleProgress", "false")
                        .config("spark.driver.memory", "2g")
                        .config("spark.sql.session.timeZone", "UTC")
                        .config("spark.sql.files.ignoreCorruptFiles", "false")
                        .getOrCreate())
        self.session.sparkContext.setLogLevel("ERROR")

    def describe(self) -> dict[str, Any]:
        """The parquet-java release is the jar this pyspark ships (3.5: 1.13, 3.3: 1.12)."""
        try:
            from pyspark.find_spark_home import _find_spark_home

            jars = sorted((Path(_find_spark_home()) / "jars").glob("parquet-hadoop-*.jar"))
        except (ImportError, OSError):
            jars = []
        engine = f"parquet-java {jars[0].stem.removeprefix('parquet-hadoop-')}" if jars else None
        return {**super().describe(), "engine": engine}

    def read(self, path: str) -> object:
        assert self.session is not None, "prepare() starts the session"
        df = self.session.read.parquet(f"file://{path}")
        return df.toArrow() if hasattr(df, "toArrow") else (df.columns, df.collect())

    def canonical(self, result: Any) -> dict[str, Any]:
        if isinstance(result, tuple):
            columns, rows = result
            return canonical_rows(columns, [[_python(v) for v in row] for row in rows])
        return canonical_table(result)


def _python(v: object) -> object:
    from pyspark.sql import Row

    if isinstance(v, Row):
        return {k: _python(x) for k, x in v.asDict(recursive=False).items()}
    if isinstance(v, list):
        return [_python(x) for x in v]
    return bytes(v) if isinstance(v, bytearray) else v


ADAPTER = Spark()
