"""Chained errors (issue 25 item 1): the root cause is found in Java's, py4j's, anyhow's and our Python worker's
chains, kept when a message is cut to size, put first in the one-line error the clusters key on; object ids of
every runtime are stripped from cluster keys."""

from __future__ import annotations

from parquet_conformance.conformance.harness import protocol
from parquet_conformance.conformance.harness.chains import cut, root_cause
from parquet_conformance.conformance.harness.judge import error_text, normalise
from parquet_conformance.conformance.harness.worker import _error

FRAMES = "".join(f"\tat org.apache.spark.rdd.RDD.iterator(RDD.scala:{n})\n" for n in range(300))


def py4j(object_id: int) -> str:
    """A Spark read's error as py4j gives it: the root cause after some 300 frames."""
    return (f"An error occurred while calling o{object_id}.parquet.\n: org.apache.spark.SparkException: Job aborted "
            f"due to stage failure\n{FRAMES}Caused by: org.apache.spark.SparkException: [FAILED_READ_FILE.NO_HINT] "
            "Encountered error while reading file file:///tmp/c/a.parquet.\n\tat a.B(B.java:1)\nCaused by: "
            "java.io.IOException: can not read class org.apache.parquet.format.FileMetaData: Required field "
            "'codec' was not found\n\tat c.D(D.java:2)\n")


def test_the_root_cause_of_each_kind_of_chain() -> None:
    assert root_cause(py4j(827)) == ("java.io.IOException: can not read class org.apache.parquet.format.FileMetaData: "
                                     "Required field 'codec' was not found")
    assert root_cause("Error: cannot read\n\nCaused by:\n    0: bad footer\n    1: out of range\n") == "out of range"
    assert root_cause("Corrupted thrift data at 12") is None


def test_a_cut_message_keeps_its_root_cause() -> None:
    message = py4j(827)
    kept = cut(message, protocol.MAX_TEXT)
    assert len(message) > 3 * protocol.MAX_TEXT and len(kept) <= protocol.MAX_TEXT
    assert kept.startswith("An error occurred while calling o827.parquet.") and " [...]\nCaused by: " in kept
    assert "[FAILED_READ_FILE.NO_HINT]" in kept and root_cause(kept) == root_cause(message)
    assert protocol.clean(message, protocol.MAX_TEXT) == kept  # at the protocol's boundary too
    assert cut("x" * 5000, 100) == "x" * 94 + " [...]"


def test_py4j_object_ids_make_one_cluster_and_the_cause_comes_first() -> None:
    a, b = (normalise(error_text("Py4JJavaError", py4j(n))) for n in (827, 1022))
    assert a == b and a.startswith("Py4JJavaError: java.io.IOException: can not read class")
    assert normalise("[B@1b6d3586 in Reader@6d06d69c") == normalise("[B@7a81197d in Reader@5ca881b5")
    assert normalise("part-00000-3f2c1a7e-1b2c-4d5e-8f90-a1b2c3d4e5f6.parquet") == "part-N-UUID.parquet"


def test_the_python_worker_writes_a_cause_chain_as_java_does() -> None:
    try:
        try:
            raise KeyError("field 7")
        except KeyError as inner:
            raise ValueError("cannot read the footer") from inner
    except ValueError as e:
        error = _error(e)
    assert error["class"] == "builtins.ValueError"
    assert error["message"] == "cannot read the footer\nCaused by: builtins.KeyError: 'field 7'"
    assert root_cause(error["message"]) == "builtins.KeyError: 'field 7'"
    try:
        raise ValueError("plain")
    except ValueError as e:
        assert _error(e)["message"] == "plain"
