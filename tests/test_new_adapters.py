"""The adapters added for more implementations, against their real libraries (tests/test_adapters.py
already checks each one's identity, faithful bases and rejection of a non-Parquet file): the documented
representation limits, the engine each names, and the behaviours found on the corpus (a crash is a
`crash` cell, an old decoder rejects an unknown binary field)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from parquet_conformance.conformance.harness.model import Crash, Read, Rejected, Unavailable
from parquet_conformance.conformance.harness.specs import AdapterSpec, describe
from parquet_conformance.conformance.harness.workers import Worker
from parquet_conformance.corpus.build import generate
from parquet_conformance.generators.canonical import data_hash
from parquet_conformance.generators.parquet.bases import base_expected, base_hash, base_table


def started(name: str) -> Worker:
    worker = AdapterSpec.parse(name).worker()
    if isinstance(worker.read("/nonexistent").outcome, Unavailable):
        worker.close()
        pytest.skip(f"{name}: {worker.unavailable}")
    return worker


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    generate(root, only="base/nested,corrupt/footer-length/max,ext/file-metadata/flat/spec-header")
    return root


def case(corpus: Path, case_id: str) -> str:
    return str(corpus / "cases" / f"{case_id}.parquet")


def clickhouse_limits(value: object, t: object) -> object:
    """The nested base as ClickHouse types hold it: an Array is never Nullable (null list -> []), a Tuple is
    never Nullable (null struct -> a struct of its fields' defaults)."""
    import pyarrow as pa

    assert isinstance(t, pa.DataType)
    if pa.types.is_list(t):
        return [clickhouse_limits(x, t.value_type) for x in value or []]  # type: ignore[attr-defined]
    if pa.types.is_struct(t):
        fields = (value or {"struct": {}})["struct"]  # type: ignore[index]
        return {"struct": {f.name: clickhouse_limits(fields.get(f.name), f.type) for f in t}}
    return value


def test_clickhouse_reads_nested_with_its_documented_limits(corpus: Path) -> None:
    worker = started("clickhouse")
    try:
        outcome = worker.read(case(corpus, "base/nested")).outcome
    finally:
        worker.close()
    expected = base_expected("nested")
    schema = base_table("nested").schema
    limited = {"columns": expected["columns"],
               "rows": [[clickhouse_limits(v, schema.field(i).type) for i, v in enumerate(row)]
                        for row in expected["rows"]]}
    assert isinstance(outcome, Read), outcome
    assert outcome.data_hash != base_hash("nested")  # the limit shows on the baseline case, as documented
    assert outcome.data_hash == data_hash(limited)


def test_clickhouse_engine_names_the_release_and_reader() -> None:
    row = describe(AdapterSpec("clickhouse"))
    if not row["available"]:
        pytest.skip(row["reason"])
    assert re.fullmatch(r"ClickHouse \d+(\.\d+)+ (native v3|Arrow C\+\+ parquet \(the default reader\))", row["engine"])


def test_velox_crash_is_a_crash_cell_and_the_worker_comes_back(corpus: Path) -> None:
    worker = started("velox")
    try:
        crashed = worker.read(case(corpus, "corrupt/footer-length/max")).outcome  # footer length 0xFFFFFFFF
        after = worker.read(case(corpus, "base/nested")).outcome
    finally:
        worker.close()
    assert isinstance(crashed, Crash) and "SIGSEGV" in (crashed.error.cls or ""), crashed
    assert isinstance(after, Read) and after.data_hash == base_hash("nested")  # nulls and empties exact


@pytest.mark.parametrize(("name", "engine"), [("daft-parquet2", "parquet2"), ("parquet-wasm@0.6.1", "arrow-rs 51")])
def test_old_thrift_decoders_reject_an_unknown_binary_field(corpus: Path, name: str, engine: str) -> None:
    """Their Thrift skip() reads an unknown binary field as a string: random payload bytes are not UTF-8."""
    row = describe(AdapterSpec.parse(name))
    if not row["available"]:
        pytest.skip(row["reason"])
    assert engine in row["engine"]
    worker = started(name)
    try:
        outcome = worker.read(case(corpus, "ext/file-metadata/flat/spec-header")).outcome
    finally:
        worker.close()
    assert isinstance(outcome, Rejected), outcome


@pytest.mark.parametrize("name", ["parquetjs", "parquet-wasm", "daft"])
def test_current_readers_skip_the_unknown_field(corpus: Path, name: str) -> None:
    worker = started(name)
    try:
        outcome = worker.read(case(corpus, "ext/file-metadata/flat/spec-header")).outcome
    finally:
        worker.close()
    assert isinstance(outcome, Read) and outcome.data_hash == base_hash("flat"), outcome
