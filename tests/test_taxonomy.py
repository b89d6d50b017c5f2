"""The error taxonomy on the real libraries (docs/adapters.md#error-taxonomy): per adapter, one corpus file it refuses
on purpose and one on which it loses control, through its real worker, judged by the one judge. The same loss of
control (a null dereference, a type or index error, a panic, an assertion) is `fail:unhandled-error` whatever the
reader's language: Python, Rust (through pyo3 and wasm), C++, Java (and Spark over py4j) and JavaScript.

Where no corpus file makes an adapter lose control (pyarrow, DuckDB, carquet, ...), tests/test_taxonomy_rule.py
tests its declaration on the classifier instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from parquet_conformance.conformance import adapters
from parquet_conformance.conformance.harness.judge import Judge, classify
from parquet_conformance.conformance.harness.model import (
    HarnessError,
    Outcome,
    Rejected,
    Unavailable,
    Unhandled,
    Verdict,
)
from parquet_conformance.corpus.build import generate
from parquet_conformance.corpus.dist import read_manifest
from parquet_conformance.corpus.model import Expectation
from tests.helpers import StartedWorker

OURS = "skiff/schema/no-table-skiff-schemas/decode"  # the ytsaurus adapter cannot hand this format to its binding
TINY = "corrupt/tail/PAR3-on-thrift-footer"  # no PAR1 at the end: most readers have a refusal for it
# adapter -> (a case it refuses on purpose, a case on which it loses control (None: none known), the error class)
KNOWN: dict[str, tuple[str, str | None, str]] = {
    "pyarrow": (TINY, None, ""),
    "reference": (TINY, None, ""),
    "duckdb": (TINY, None, ""),
    "carquet": (TINY, None, ""),
    "hyper": (TINY, None, ""),
    "rugo": (TINY, None, ""),
    "velox": (TINY, None, ""),
    "daft-parquet2": (TINY, None, ""),
    "clickhouse": (TINY, None, ""),
    # Rust: a panic caught by pyo3
    "polars": (TINY, "storage/enum/data-page-header-encoding/value-11", "pyo3_runtime.PanicException"),
    "datafusion": (TINY, "corrupt/footer-length/bit-16-before-start", "pyo3_runtime.PanicException"),
    # Rust: a panic daft's runtime caught and wrapped ("task N panicked with message"); a wasm trap (a panic)
    "daft": (TINY, "corrupt/footer-length/max", "daft.exceptions.DaftCoreException"),
    "parquet-wasm": (TINY, "corrupt/footer-length/max",
                     "parquet_conformance.conformance.adapters.parquet.parquet_wasm.ParquetWasmError"),
    # Python: its Cython Thrift reader's TypeError ('NoneType' object is not iterable)
    "fastparquet": ("storage/enum/data-page-header-encoding/value-11",
                    "corrupt/extension/missing-stop/schema-element/spec-header", "builtins.TypeError"),
    "por-que": (TINY, "corrupt/footer-length/at-first-page", "builtins.TypeError"),
    "parquet-python": ("storage/enum/column-meta-data-codec/value-8", "corrupt/footer-length/at-first-page",
                       "builtins.TypeError"),
    "parquet-pages": ("corrupt/extension/length-11-bytes", "corrupt/tail/PAR3-on-thrift-footer",
                      "builtins.AssertionError"),
    # Java: parquet-java's ClassCastException on a group where a primitive must be, in its worker and under Spark
    "parquet-java": (TINY, "storage/enum/schema-element-type/value-8", "java.lang.ClassCastException"),
    "spark": (TINY, "storage/enum/schema-element-type/value-8", "py4j.protocol.Py4JJavaError"),
    # JavaScript: a property of undefined; Node's Buffer bounds check. parquetjs refuses a uuid field through the
    # uuid package's own validation (rule 4: a dependency's deliberate TypeError is a refusal)
    "hyparquet": (TINY, "corrupt/footer-length/at-first-page", "TypeError"),
    "parquetjs": ("storage/unknown-field/file-metadata/id-1000/uuid", "corrupt/tiny/magic-only",
                  "RangeError [ERR_OUT_OF_RANGE]"),
    # Skiff
    "skiff-reference": ("skiff/corrupt/truncated-double/decode", None, ""),
    "ytsaurus-skiff": ("skiff/ambiguous/boolean-byte-2/decode", None, ""),
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    cases = {c for refusal, unhandled, _ in KNOWN.values() for c in (refusal, unhandled) if c}
    generate(root, only=",".join(sorted(cases | {OURS})))
    return root


def read(name: str, corpus: Path, case_ids: list[str], started_worker: StartedWorker) -> list[Outcome]:
    """Each case read by the adapter's real worker, with the case's operation (Skiff's decode and encode)."""
    _, manifest = read_manifest(corpus)
    entries = [manifest.case(c) for c in case_ids]
    with started_worker(name) as worker:
        outcomes = [worker.read(str(corpus / e.file), e.id, e.op).outcome for e in entries]
    if isinstance(outcomes[0], Unavailable):
        pytest.skip(f"{name}: {outcomes[0].reason}")
    return outcomes


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_a_known_refusal_and_a_known_unhandled_error(name: str, corpus: Path,
                                                     started_worker: StartedWorker) -> None:
    refusal, unhandled, error_class = KNOWN[name]
    _, manifest = read_manifest(corpus)
    judge, role = Judge.of(manifest), adapters.get(name).role_names()[0]
    outcomes = read(name, corpus, [c for c in (refusal, unhandled) if c], started_worker)
    assert isinstance(outcomes[0], Rejected), outcomes[0]
    expected = judge.expectation(manifest.case(refusal), role)
    assert classify(expected, outcomes[0], set()) == Verdict.PASS
    if unhandled is None:
        return
    got = outcomes[1]
    assert isinstance(got, Unhandled) and got.error.cls == error_class, got
    # whatever the case expects (reject or either), losing control fails it, in every language
    expected = judge.expectation(manifest.case(unhandled), role)
    assert expected in (Expectation.REJECT, Expectation.EITHER)
    assert classify(expected, got, set()) == Verdict.UNHANDLED


def test_the_adapters_own_failure_is_a_harness_error(corpus: Path, started_worker: StartedWorker) -> None:
    """ytsaurus-skiff's binding takes the tables' schemas, not a format: a format without them is our adapter's
    failure (AdapterError), not the library's KeyError."""
    (outcome,) = read("ytsaurus-skiff", corpus, [OURS], started_worker)
    assert isinstance(outcome, HarnessError) and (outcome.error.cls or "").endswith("AdapterError"), outcome


PROBE = r"""
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.Preconditions;
import org.apache.parquet.ShouldNeverHappenException;
import org.apache.parquet.io.ParquetDecodingException;
import org.apache.spark.SparkException;
import shaded.parquet.org.apache.thrift.protocol.TProtocolException;

public class Probe {
  static Throwable thrown(Runnable r) {
    try { r.run(); } catch (Throwable t) { return t; }
    throw new AssertionError("nothing thrown");
  }
  public static void main(String[] args) {
    Throwable[] cases = {
      new ParquetDecodingException("Can't read value in column", new ArrayIndexOutOfBoundsException(9)),
      new ParquetDecodingException("could not read page", new EOFException()),
      new IOException("can not read class FileMetaData", new TProtocolException("Required field 'version'")),
      thrown(() -> Preconditions.checkArgument(false, "miniBlockSize must be multiple of 8")),
      thrown(() -> ByteBuffer.allocate(1).limit(-1)),
      new ShouldNeverHappenException("x"),
      new SparkException("Job aborted", new NullPointerException()),
      new SparkException("Job aborted", new ParquetDecodingException("x", new EOFException())),
      new SparkException("[INTERNAL_ERROR] x", null),
      new IOException("x", new OutOfMemoryError("Java heap space")),
      new StackOverflowError(),
      new AssertionError("x"),
      new IOException("can not read", new AssertionError("magic")),
      new ParquetDecodingException("could not read page", new io.airlift.compress.MalformedInputException(3, "bad")),
    };
    for (Throwable t : cases) System.out.println(JavaErrors.outcome(t));
  }
}
"""


def test_the_java_rule_walks_the_cause_chain(tmp_path: Path) -> None:
    """java/JavaErrors.java on throwables of parquet-java, its shaded Thrift and Spark (the jars pyspark ships),
    compiled and run as the Java worker is."""
    import shutil
    import subprocess

    from parquet_conformance.conformance.adapters.parquet.parquet_java import ERRORS, compiled, pyspark_jars

    if shutil.which("javac") is None:
        pytest.skip("no javac")
    classpath = f"{pyspark_jars()}/*"
    rule = compiled([ERRORS], "", "", "compiling the error rule")
    (tmp_path / "Probe.java").write_text(PROBE)
    proc = subprocess.run(["java", "-cp", f"{rule}:{classpath}", str(tmp_path / "Probe.java")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [
        "unhandled-error", "rejected", "rejected", "rejected", "unhandled-error", "unhandled-error",
        "unhandled-error", "rejected", "unhandled-error", "oom", "crash", "unhandled-error",
        "unhandled-error", "rejected"]  # an assertion in the chain (rule 5); a codec's refusal (rule 4)
