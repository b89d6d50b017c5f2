"""Apache Spark's Parquet data source (`spark.read.parquet`), in a local[1] session that the
worker starts once; results come back through Arrow (`DataFrame.toArrow`, pyspark >= 4.0) or, for
older releases (`spark==3.5.9`: parquet-java 1.13) and wherever toArrow fails, through `collect()` in UTC: toArrow is
a conversion (pyspark casts Spark's Arrow batches to the schema Spark declares, which fails on a null in a column
Spark calls non-nullable), and only collect(), the user's call, decides that Spark failed
(docs/adapters.md#the-data-path).

Its errors are sorted by parquet-java's rule (java/JavaErrors.java, docs/adapters.md#error-taxonomy), in
the session's own JVM: the class is compiled with the machine's javac at first use and put on the
driver's classpath, and the Java throwable under a Py4JJavaError or a pyspark exception is handed to it
with its whole cause chain (a SparkException wraps the task's own error)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast, get_args

from parquet_conformance.conformance.adapters import PythonAdapter, require_program
from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.adapters.parquet.parquet_java import ERRORS, compiled, pyspark_requirements
from parquet_conformance.conformance.adapters.parquet.variants import arrow_data
from parquet_conformance.conformance.adapters.reproducing import Reproducer, Reproducing
from parquet_conformance.conformance.adapters.taxonomy import Outcome, Refusals
from parquet_conformance.conformance.adapters.writing import PythonWriter
from parquet_conformance.generators.canonical import canonical_rows
from parquet_conformance.generators.parquet import variant
from parquet_conformance.generators.parquet.write_sizes import PAGE_BYTES, PAGE_ROWS, ROW_GROUP_ROWS

# DataFrameWriter options per profile (parquet-java's configuration keys; Spark's `compression`). parquet-java writes
# a column index and an offset index by default.
OPTIONS: dict[str, dict[str, str]] = {
    "default": {}, "zstd": {"compression": "zstd"}, "v2": {"parquet.writer.version": "PARQUET_2_0"},
    "no-dictionary": {"parquet.enable.dictionary": "false"},
    "no-statistics": {"parquet.column.statistics.enabled": "false"},
    "page-index": {"parquet.page.size": str(PAGE_BYTES), "parquet.page.row.count.limit": str(PAGE_ROWS)},
    "row-groups": {"parquet.block.row.count.limit": str(ROW_GROUP_ROWS)}}


class Spark(PythonAdapter, PythonWriter, Reproducing):
    name = "spark"
    implementation = "Apache Spark (parquet-java footer, vectorized reader)"
    module = "pyspark"
    package = "pyspark"
    memory_limit_bytes = None  # a JVM child; spark.driver.memory bounds it
    timeout_s = 120.0
    start_timeout_s = 300.0
    cell_cost_s = 0.3  # a Spark job planned and run per file (bench/matrix.py, as all these hints)
    session = None
    profiles = tuple(OPTIONS)
    # Errors raised on the Python side without a Java throwable (the JVM's are JavaErrors.java's to sort); pyarrow's
    # are never Spark's (toArrow's conversion, retried with collect()).
    refusals = Refusals(classes=("pyspark.errors.exceptions.base.PySparkException",))

    def requirements(self, version: str) -> list[str]:
        return pyspark_requirements(version)  # the environment parquet-java==VERSION reads pyspark's jars from

    def prepare(self) -> None:
        # imported here, not at the top: start-up time (only this path needs it)
        from pyspark.sql import SparkSession

        from parquet_conformance.conformance.harness.spark import java_options, quiet_pyspark

        quiet_pyspark()
        self.load()
        require_program("java")
        os.environ["TZ"] = "UTC"  # collect() turns timestamps into local datetimes
        time.tzset()
        errors = compiled([ERRORS], "", "", "compiling the JVM's error rule (java/JavaErrors.java, once)")
        self.session = (SparkSession.builder.master("local[1]").appName("parquet-conformance-adapter")
                        .config("spark.ui.enabled", "false")
                        .config("spark.driver.extraClassPath", str(errors))
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
        if hasattr(df, "toArrow"):
            try:
                return df.toArrow()
            except Exception as e:  # Arrow or its conversion failed: collect() says whether Spark's read did
                print(f"toArrow failed ({type(e).__name__}); the rows again through collect()", file=sys.stderr)
        return df.columns, df.collect()

    def write(self, source: str, path: str, profile: str) -> None:
        """`createDataFrame(table).coalesce(1).write.parquet(dir)`, as a Spark user writes one file; its part file is
        the file written."""
        assert self.session is not None, "prepare() starts the session"
        with tempfile.TemporaryDirectory(prefix="pqc-spark-") as tmp:
            frame = self.session.createDataFrame(self.table(source)).coalesce(1)
            frame.write.options(**OPTIONS[profile]).parquet(f"file://{tmp}/out")
            (part,) = Path(tmp, "out").glob("part-*.parquet")
            shutil.move(part, path)

    def outcome(self, error: BaseException) -> Outcome:
        """The JVM's rule on the Java throwable a Py4JJavaError (`java_exception`) or a pyspark exception converted
        from one (`_origin`) carries; the declared refusals otherwise."""
        throwable = getattr(error, "java_exception", None) or getattr(error, "_origin", None)
        if throwable is None or self.session is None:
            return super().outcome(error)
        jvm = self.session.sparkContext._jvm
        assert jvm is not None
        outcome = str(jvm.JavaErrors.outcome(throwable))
        if outcome not in get_args(Outcome):
            raise ValueError(f"JavaErrors.outcome answered {outcome!r}")
        return cast(Outcome, outcome)

    def reproducer(self) -> Reproducer:
        """repro.py reads as `read` does, in a local[1] session of the same settings; an error carrying a Java
        throwable is judged by the JVM's rule, as `outcome` judges it (java/JavaErrors.java, compiled at first use)."""
        errors = reproducers.JVM_ERRORS.replace("@@SOURCE@@", repr(ERRORS.read_text(encoding="utf-8")))
        return reproducers.python(
            "pyspark", "import os\nimport time\nimport pyarrow as pa\nimport pyspark\n"
            "from pyspark.sql import SparkSession\n\nSESSION = None\nJVM_RULE = None", "pyspark.__version__",
            "global SESSION, JVM_RULE\nif SESSION is None:\n"
            "    os.environ['TZ'] = 'UTC'\n    time.tzset()\n    JVM_RULE = java_errors_classpath()\n"
            "    builder = SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false')\n"
            "    for key, value in {'spark.sql.session.timeZone': 'UTC', 'spark.sql.files.ignoreCorruptFiles': 'false',"
            " 'spark.driver.memory': '2g'}.items():\n        builder = builder.config(key, value)\n"
            "    if JVM_RULE:\n        builder = builder.config('spark.driver.extraClassPath', JVM_RULE)\n"
            "    try:\n        SESSION = builder.getOrCreate()\n"
            "    except Exception as e:  # no Java here, or none Spark can start with: not the reader's doing\n"
            "        first = (str(e).strip().splitlines() or [type(e).__name__])[0]\n"
            "        print(f'CANNOT JUDGE: Spark did not start here ({first}); it needs Java 17: {INSTALL}')\n"
            "        sys.exit(2)\n"
            "    SESSION.sparkContext.setLogLevel('ERROR')\n"
            "df = SESSION.read.parquet('file://' + path)\ntry:\n    return df.toArrow()\n"
            "except Exception as e:  # a conversion: collect(), the user's call, says whether Spark read the file\n"
            "    print(f'toArrow failed ({type(e).__name__}); the rows again through collect()')\n"
            "    return df.collect()",
            "pip install pyspark=={version} pyarrow  # and Java 17 (a JDK: javac compiles the error rule)",
            arrow="result if isinstance(result, pa.Table) else pa.Table.from_pylist([r.asDict(recursive=True) "
                  "for r in result])", errors=errors)

    def canonical(self, result: Any) -> Mapping[str, Any]:
        if isinstance(result, tuple):
            columns, rows = result
            return _rows(columns, rows)
        return arrow_data(result)  # a VARIANT column decoded (docs/spec-notes.md#variant)


def _rows(columns: list[str], rows: list[Any]) -> Mapping[str, Any]:
    """collect()'s rows as canonical data; a top-level VARIANT value (pyspark's VariantVal: the unshredded metadata
    and value bytes) in the normal form of decoded variants, by our decoder (docs/spec-notes.md#variant)."""
    from pyspark.sql.types import VariantVal

    plain = [[_python(v) for v in row] for row in rows]
    variants = {(i, j): v for i, row in enumerate(plain) for j, v in enumerate(row) if isinstance(v, VariantVal)}
    data = canonical_rows(columns, [[None if (i, j) in variants else v for j, v in enumerate(row)]
                                    for i, row in enumerate(plain)])
    for (i, j), v in variants.items():
        data["rows"][i][j] = variant.row_tokens(bytes(v.metadata), bytes(v.value))
    return data


def _python(v: object) -> object:
    from pyspark.sql import Row
    from pyspark.sql.types import Geography, Geometry

    if isinstance(v, Geometry | Geography):  # its WKB, the column's value (the SRID is the column's, in its type)
        return bytes(v.getBytes())
    if isinstance(v, Row):
        return {k: _python(x) for k, x in v.asDict(recursive=False).items()}
    if isinstance(v, list):
        return [_python(x) for x in v]
    return bytes(v) if isinstance(v, bytearray) else v


ADAPTER = Spark()
