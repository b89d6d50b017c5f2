"""parquet-java (parquet-hadoop), the Java reference implementation, from the jars that ship
with pyspark. A small Java worker (java/ParquetJavaWorker.java) is compiled with the
machine's javac at first use and cached by the hash of its source and classpath. Its errors are sorted
by java/JavaErrors.java (docs/adapters.md#error-taxonomy): IOException, Thrift's TException and
parquet-java's ParquetRuntimeException, or a plain check parquet-java's own code throws with a message,
are refusals, unless a cause in the chain is a null dereference, a bad cast, an index, buffer or JDK
argument check, or an Error."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from importlib import metadata
from pathlib import Path

from parquet_conformance.conformance.adapters import (
    AdapterUnavailable,
    CommandAdapter,
    Reproducer,
    cache_dir,
    cache_lock,
    require_program,
)
from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.harness.envs import say

SOURCE = Path(__file__).parent / "java" / "ParquetJavaWorker.java"
ERRORS = Path(__file__).parent / "java" / "JavaErrors.java"  # the error rule, which Spark's adapter uses too


def pyspark_jars() -> Path:
    try:
        from pyspark.find_spark_home import _find_spark_home
    except ImportError:
        raise AdapterUnavailable("parquet-java comes from pyspark's jars: pip install pyspark") from None
    # Inside a Spark executor pyspark is imported from a zip; SPARK_HOME names the real install.
    return Path(os.environ.get("SPARK_HOME") or _find_spark_home()) / "jars"


def jar_version(jars: Path, artifact: str) -> str:
    for jar in sorted(jars.glob(f"{artifact}-*.jar")):
        if m := re.fullmatch(rf"{artifact}-(\d[\w.\-]*)\.jar", jar.name):
            return m.group(1)
    raise AdapterUnavailable(f"no {artifact} jar in {jars}")


class ParquetJava(CommandAdapter):
    name = "parquet-java"
    implementation = "parquet-java (parquet-hadoop)"
    start_timeout_s = 180.0

    def library_version(self) -> str | None:
        """parquet-hadoop's jar version, and the JVM it runs on (its path: what `java` resolves to)."""
        try:
            java = shutil.which("java")
            return f"{jar_version(pyspark_jars(), 'parquet-hadoop')} {os.path.realpath(java) if java else ''}"
        except AdapterUnavailable:
            return None

    def command(self) -> list[str]:
        jars = pyspark_jars()
        version = jar_version(jars, "parquet-hadoop")
        java = require_program("java")
        classpath = f"{jars}{os.sep}*"
        out = compiled([SOURCE, ERRORS], classpath, version,
                       f"compiling the Java worker against parquet-java {version} (once)")
        return [java, "-Xmx2g", "-XX:+UseSerialGC", "-Xss8m", "-cp", f"{out}{os.pathsep}{classpath}",
                "ParquetJavaWorker", version]

    def reproducer(self) -> Reproducer:
        """repro/parquet-java.tmpl reads as the worker's `read` does: a single-file program (JEP 330, Java 17) on
        pyspark's jars, which hold parquet-hadoop, Hadoop's client and Jackson (to read expected.json)."""
        try:
            pyspark = f"pyspark=={metadata.version('pyspark')}"
        except metadata.PackageNotFoundError:
            pyspark = "pyspark"
        return reproducers.template(
            "parquet-java.tmpl", "Java", "Repro.java",
            f"pip install {pyspark}  # its jars hold parquet-hadoop {{version}}, Hadoop's client and Jackson (or any\n"
            "# classpath with parquet-hadoop, Hadoop's client, Jackson, SLF4J's API, JTS and the file's codecs)\n"
            "JARS=\"$(python -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')/jars/*\"",
            'java -cp "$JARS" Repro.java')


def compiled(sources: list[Path], classpath: str, version: str, progress: str) -> Path:
    """The folder of the sources' classes, compiled with the machine's javac at first use and cached by the hash of
    the sources and the classpath."""
    javac = require_program("javac")
    digest = hashlib.sha256(classpath.encode() + version.encode())
    for source in sources:
        digest.update(source.read_bytes())
    out = cache_dir("java", digest.hexdigest()[:16])
    with cache_lock(out):
        if not all((out / f"{source.stem}.class").exists() for source in sources):
            say(progress)
            proc = subprocess.run([javac, "-nowarn", "-cp", classpath, "-d", str(out), *map(str, sources)],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                raise AdapterUnavailable(f"javac failed: {proc.stderr.strip()[-500:]}")
    return out


ADAPTER = ParquetJava()
