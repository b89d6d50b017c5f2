"""parquet-java (parquet-hadoop), the Java reference implementation, from the jars that ship
with pyspark. Its releases are pyspark's (`package`): `parquet-java==4.0.1` reads with the parquet-hadoop jar pyspark
4.0.1 bundles (1.15.2), from that release's environment, the one `spark==4.0.1` runs in (conformance/harness/envs.py);
its row reports parquet-hadoop's version. A small Java worker (java/ParquetJavaWorker.java) is compiled with the
machine's javac at first use and cached by the hash of its source and classpath. Its errors are sorted
by java/JavaErrors.java (docs/adapters.md#error-taxonomy): IOException, Thrift's TException and
parquet-java's ParquetRuntimeException, or a plain check parquet-java's own code throws with a message,
are refusals, unless a cause in the chain is a null dereference, a bad cast, an index, buffer or JDK
argument check, or an Error.

It writes too, with ExampleParquetWriter (parquet-java's own Group API, no Spark): `write_source` turns the table
into a message type (as a parquet-java user declares one) and rows shaped like it."""

from __future__ import annotations

import decimal
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from parquet_conformance.conformance.adapters import AdapterUnavailable, CommandAdapter, require_program
from parquet_conformance.conformance.adapters.parquet import reproducers
from parquet_conformance.conformance.adapters.parquet.values import decimal_bytes
from parquet_conformance.conformance.adapters.reproducing import Reproducer, Reproducing
from parquet_conformance.conformance.adapters.writing import NotExpressible, Writer
from parquet_conformance.conformance.harness.envs import Env, ensure, environment, say
from parquet_conformance.generators.parquet.write_sizes import PAGE_BYTES, PAGE_ROWS, ROW_GROUP_ROWS
from parquet_conformance.kernel.cache import cache_dir, cache_lock

SOURCE = Path(__file__).parent / "java" / "ParquetJavaWorker.java"
ERRORS = Path(__file__).parent / "java" / "JavaErrors.java"  # the error rule, which Spark's adapter uses too
# ExampleParquetWriter.Builder options per profile (the worker maps each to its `with...` call). It writes a column
# index and an offset index by default.
OPTIONS: dict[str, dict[str, Any]] = {
    "default": {}, "zstd": {"codec": "ZSTD"}, "v2": {"v2": True}, "no-dictionary": {"dictionary": False},
    "no-statistics": {"statistics": False}, "page-index": {"pageSize": PAGE_BYTES, "pageRows": PAGE_ROWS},
    "row-groups": {"rowGroupRows": ROW_GROUP_ROWS}}
UNIT = {"s": "MILLIS", "ms": "MILLIS", "us": "MICROS", "ns": "NANOS"}


def pyspark_jars() -> Path:
    try:
        from pyspark.find_spark_home import _find_spark_home
    except ImportError:
        raise AdapterUnavailable("parquet-java comes from pyspark's jars: pip install pyspark") from None
    # Inside a Spark executor pyspark is imported from a zip; SPARK_HOME names the real install.
    return Path(os.environ.get("SPARK_HOME") or _find_spark_home()) / "jars"


def pyspark_requirements(version: str) -> list[str]:
    """What a pyspark release's environment installs, for parquet-java's release and Spark's alike: one environment
    per release (envs.py remakes an environment asked for with other requirements)."""
    return [f"pyspark=={version}"]


def release_jars(env: Env) -> Path:
    """The jars of the pyspark a release's environment holds."""
    found = sorted(env.path.glob("venv/lib/python*/site-packages/pyspark/jars"))
    if not found:
        raise AdapterUnavailable(f"no pyspark jars in the environment {env.path}")
    return found[0]


def jar_version(jars: Path, artifact: str) -> str:
    for jar in sorted(jars.glob(f"{artifact}-*.jar")):
        if m := re.fullmatch(rf"{artifact}-(\d[\w.\-]*)\.jar", jar.name):
            return m.group(1)
    raise AdapterUnavailable(f"no {artifact} jar in {jars}")


class ParquetJava(CommandAdapter, Writer, Reproducing):
    name = "parquet-java"
    cell_cost_s = 0.03
    implementation = "parquet-java (parquet-hadoop)"
    start_timeout_s = 180.0
    profiles = tuple(OPTIONS)
    # A release is pyspark's, whose jars hold parquet-hadoop (pyspark 3.5: 1.13.1, 4.0: 1.15.2, 4.1: 1.16.0).
    package = "pyspark"

    def requirements(self, version: str) -> list[str]:
        return pyspark_requirements(version)

    def jars(self) -> Path:
        """The installed pyspark's jars, or a release's from its environment (made here on first use)."""
        if self.release is None:
            return pyspark_jars()
        env = environment(self)
        ensure(env)
        return release_jars(env)

    def library_version(self) -> str | None:
        """parquet-hadoop's jar version (a release's: its pyspark's, known before its environment is made), and the
        JVM it runs on (its path: what `java` resolves to)."""
        java = shutil.which("java")
        jvm = os.path.realpath(java) if java else ""
        if self.release is not None:
            return f"pyspark {self.release} {jvm}"
        try:
            return f"{jar_version(pyspark_jars(), 'parquet-hadoop')} {jvm}"
        except AdapterUnavailable:
            return None

    def command(self) -> list[str]:
        jars = self.jars()
        version = jar_version(jars, "parquet-hadoop")
        java = require_program("java")
        classpath = f"{jars}{os.sep}*"
        out = compiled([SOURCE, ERRORS], classpath, version,
                       f"compiling the Java worker against parquet-java {version} (once)")
        return [java, "-Xmx2g", "-XX:+UseSerialGC", "-Xss8m", "-cp", f"{out}{os.pathsep}{classpath}",
                "ParquetJavaWorker", version]

    def reproducer(self) -> Reproducer:
        """repro/parquet-java-read.tmpl reads as the worker's `read` does, run by repro/parquet-java.tmpl (Repro.java,
        Java 17's source launcher, JEP 330), which checks the classpath first: pyspark's jars, which hold
        parquet-hadoop, Hadoop's client and Jackson (to read expected.json)."""
        try:
            pyspark = f"pyspark=={self.release or metadata.version('pyspark')}"
        except metadata.PackageNotFoundError:
            pyspark = "pyspark"
        return reproducers.java(
            "parquet-java",
            f"pip install {pyspark}  # its jars hold parquet-hadoop {{version}}, Hadoop's client and Jackson (or any\n"
            "# classpath with parquet-hadoop, Hadoop's client, Jackson, SLF4J's API, JTS and the file's codecs)\n"
            "JARS=\"$(python -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')/jars/*\"",
            'java -cp "$JARS" Repro.java')

    def write_source(self, table: Any, profile: str) -> bytes:
        schema = "message m { " + " ".join(_declare(f.name, f.type) for f in table.schema) + " }"
        columns = {f.name: _column(table.column(f.name).combine_chunks(), f.type) for f in table.schema}
        rows = [{name: values[i] for name, values in columns.items()} for i in range(table.num_rows)]
        return json.dumps({"schema": schema, "options": OPTIONS[profile], "rows": rows}).encode()


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


def _declare(name: str, t: Any, rep: str = "optional") -> str:
    """A field of the message type, as parquet-java's MessageTypeParser reads it."""
    import pyarrow as pa

    if pa.types.is_dictionary(t):
        return _declare(name, t.value_type, rep)
    if pa.types.is_null(t):
        return f"{rep} int32 {name} (UNKNOWN);"
    if pa.types.is_integer(t) and t.bit_width <= 32:
        return f"{rep} int32 {name} (INTEGER({t.bit_width},{str(pa.types.is_signed_integer(t)).lower()}));"
    if pa.types.is_integer(t):
        return f"{rep} int64 {name}" + (";" if pa.types.is_signed_integer(t) else " (INTEGER(64,false));")
    if isinstance(t, pa.UuidType):
        return f"{rep} fixed_len_byte_array(16) {name} (UUID);"
    if isinstance(t, pa.JsonType):
        return f"{rep} binary {name} (JSON);"
    simple = {pa.float32(): "float", pa.float64(): "double", pa.bool_(): "boolean"}
    if t in simple:
        return f"{rep} {simple[t]} {name};"
    if pa.types.is_float16(t):
        return f"{rep} fixed_len_byte_array(2) {name} (FLOAT16);"
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return f"{rep} binary {name} (STRING);"
    if pa.types.is_fixed_size_binary(t):
        return f"{rep} fixed_len_byte_array({t.byte_width}) {name};"
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        return f"{rep} binary {name};"
    if pa.types.is_decimal(t):
        decl = f"DECIMAL({t.precision},{t.scale})"
        if t.precision <= 18:
            return f"{rep} {'int32' if t.precision <= 9 else 'int64'} {name} ({decl});"
        return f"{rep} fixed_len_byte_array({decimal_bytes(t.precision)}) {name} ({decl});"
    if pa.types.is_date32(t):
        return f"{rep} int32 {name} (DATE);"
    if pa.types.is_time32(t):
        return f"{rep} int32 {name} (TIME(MILLIS,false));"
    if pa.types.is_time64(t):
        return f"{rep} int64 {name} (TIME({UNIT[t.unit]},false));"
    if pa.types.is_timestamp(t):
        return f"{rep} int64 {name} (TIMESTAMP({UNIT[t.unit]},{'true' if t.tz else 'false'}));"
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return f"{rep} group {name} (LIST) {{ repeated group list {{ {_declare('element', t.value_type)} }} }}"
    if pa.types.is_struct(t):
        return f"{rep} group {name} {{ " + " ".join(_declare(f.name, f.type) for f in t) + " }"
    if pa.types.is_map(t):
        return (f"{rep} group {name} (MAP) {{ repeated group key_value {{ {_declare('key', t.key_type, 'required')} "
                f"{_declare('value', t.item_type)} }} }}")
    raise NotExpressible(f"no parquet-java type here for {t}")


def _column(arr: Any, t: Any) -> list[Any]:
    """A column's values for the worker: temporal values as the integers of the unit declared (seconds as
    milliseconds, which TIMESTAMP has no unit for), the rest by `_value`."""
    import pyarrow as pa

    if pa.types.is_timestamp(t) or pa.types.is_date32(t) or pa.types.is_time(t):
        width = pa.int32() if t.bit_width == 32 else pa.int64()
        scale = 1000 if pa.types.is_timestamp(t) and t.unit == "s" else 1
        return [None if x is None else _long(x * scale) for x in arr.view(width).to_pylist()]
    return [_value(v, t) for v in arr.to_pylist()]


def _long(v: int) -> int | str:
    return str(v) if abs(v) > 2**53 else v  # beyond a double's exact integers: text, which the worker parses


def _value(v: Any, t: Any) -> Any:
    import pyarrow as pa

    if v is None:
        return None
    if pa.types.is_dictionary(t):
        return _value(v, t.value_type)
    if isinstance(t, pa.UuidType):
        return {"hex": v.bytes.hex()}
    if pa.types.is_float16(t):
        import numpy as np

        return {"hex": np.array([v], dtype=np.float16).tobytes().hex()}
    if pa.types.is_floating(t):
        return v if math.isfinite(v) else repr(float(v)).replace("nan", "NaN").replace("inf", "Infinity")
    if pa.types.is_integer(t):
        return _long(v - (1 << t.bit_width) if not pa.types.is_signed_integer(t) and v >= 1 << (t.bit_width - 1)
                     and t.bit_width >= 32 else v)
    if (pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t)
            or pa.types.is_fixed_size_binary(t)):
        return {"hex": bytes(v).hex()}
    if pa.types.is_decimal(t):
        unscaled = int(v.scaleb(t.scale, decimal.Context(prec=100)))
        if t.precision <= 18:
            return _long(unscaled)
        return {"hex": unscaled.to_bytes(decimal_bytes(t.precision), "big", signed=True).hex()}
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return {"list": [{"element": _value(x, t.value_type)} for x in v]}
    if pa.types.is_struct(t):
        return {f.name: _value(v.get(f.name), f.type) for f in t}
    if pa.types.is_map(t):
        return {"key_value": [{"key": _value(k, t.key_type), "value": _value(x, t.item_type)} for k, x in v]}
    if pa.types.is_date32(t) or pa.types.is_timestamp(t) or pa.types.is_time(t):
        raise NotExpressible(f"{t} inside a list, struct or map")
    return v  # bool, str


ADAPTER = ParquetJava()
