"""A verdict rests on the library's own data path (docs/adapters.md#the-data-path): a library that reads a file right
while a step of ours fails (a side query, a conversion, writing the answer) is never judged to have failed, and a
side step's failure never passes a file the library read. One test per worker language, each with the real library
and a file that makes only our step fail; on the code before this rule each was judged the library's failure."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from parquet_conformance.conformance.adapters import AdapterError, PythonAdapter, get, ours
from parquet_conformance.conformance.harness.model import HarnessError, Outcome, Read
from parquet_conformance.conformance.harness.worker import read_one
from parquet_conformance.conformance.harness.workers import Worker
from parquet_conformance.corpus.build import generate
from parquet_conformance.corpus.parquet import TRACK

FILE_GROUP = "evolution/file/group"  # ClickHouse's ParquetMetadata (Arrow C++'s footer code) refuses its FILE group
REPETITION_3 = "storage/enum/schema-element-repetition-type/value-3"  # and its histogram; the data query reads both


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("data-path") / "corpus"
    generate(out, only=f"{FILE_GROUP},{REPETITION_3}")
    return out / "cases"


def read_with(adapter: str, *paths: Path) -> list[Outcome]:
    """The adapter's real worker (its real library) reads each file."""
    chosen = get(adapter)
    worker = Worker(chosen, chosen.command(), TRACK.normalize)
    try:
        return [worker.read(str(p), p.stem).outcome for p in paths]
    finally:
        worker.close()


def test_python_a_side_query_that_fails_neither_fails_nor_passes_the_read(cases: Path) -> None:
    """ClickHouse's data query reads both files (5 and 24 rows); its side query (text or binary?) fails on both. The
    first was judged rejected-valid, the second a pass of a `reject` case: now both are reads."""
    group, repetition = read_with("clickhouse", cases / f"{FILE_GROUP}.parquet", cases / f"{REPETITION_3}.parquet")
    assert isinstance(group, Read) and group.rows == 5, group
    assert isinstance(repetition, Read) and repetition.rows == 24, repetition


def _pyarrow_table() -> Any:
    import pyarrow as pa

    return pa.table({"x": [1, 2]})


class _SideStepFails(PythonAdapter):
    """A library call that returns, then a step of ours: a probe inside `read`, or the conversion, that fails."""

    name = implementation = "side-step"
    module = "pyarrow"

    def __init__(self, where: str, error: Exception) -> None:
        self.where, self.error = where, error

    def read(self, path: str) -> Any:
        table = _pyarrow_table()  # the library returned
        if self.where == "read":
            with ours("a schema probe"):
                raise self.error
        return table

    def canonical(self, result: Any) -> Any:
        if self.where == "canonical":
            raise self.error
        return super().canonical(result)


@pytest.mark.parametrize(("where", "error"), [
    ("read", RuntimeError("Code: 1001. DB::Exception: parquet::ParquetException")),  # a refusal by the adapter's rule
    ("read", MemoryError()),
    ("canonical", MemoryError()),  # our conversion out of memory: the library had returned (it was `oom`)
    ("canonical", ValueError("nulls in input cannot be viewed as non-nullable")),
])
def test_python_a_step_of_ours_is_a_harness_error(where: str, error: Exception) -> None:
    answer = read_one(_SideStepFails(where, error), "/nowhere.parquet", digest=True)
    assert answer["outcome"] == "harness-error", answer


class _OlderRelease(PythonAdapter):
    """A release whose library lacks an operation's API (DuckDB 1.4 has no parquet_page_index): calling it would
    raise what looks like the library's refusal (a CatalogException, an AttributeError)."""

    name = "older-release"
    module = "pyarrow"
    operations = ("page-index", "bloom")

    def offers(self, op: str, path: str) -> bool:
        if op == "bloom":
            raise RuntimeError("our side query failed")
        return False

    def page_index(self, path: str) -> Any:
        raise AttributeError("no such API in this release")


def test_an_operation_a_release_lacks_is_unavailable_never_its_refusal() -> None:
    answer = read_one(_OlderRelease(), "/nowhere.parquet", op="page-index")
    assert answer["outcome"] == "unavailable" and "no API for operation 'page-index'" in answer["error"]["message"]
    assert read_one(_OlderRelease(), "/nowhere.parquet", op="bloom")["outcome"] == "harness-error"  # ours


@pytest.mark.parametrize(("adapter", "op"), [("pyarrow", "geo-statistics"), ("pyarrow", "crc"),
                                             ("duckdb", "page-index"), ("duckdb", "bloom"),
                                             ("duckdb", "geo-statistics")])
def test_the_installed_releases_offer_their_operations(adapter: str, op: str) -> None:
    """The installed pyarrow and DuckDB have every operation they declare (the check never hides one)."""
    path = Path(__file__).parents[2] / "corpus/parquet/parquet-testing/data/geospatial/crs-geography.parquet"
    spec = get(adapter)
    assert isinstance(spec, PythonAdapter) and op in spec.operations and spec.offers(op, str(path))


def test_ours_keeps_an_adapter_error_and_names_the_step() -> None:
    with pytest.raises(AdapterError, match=r"^a probe: KeyError"):
        with ours("a probe"):
            raise KeyError("x")
    with pytest.raises(AdapterError, match=r"^as it was$"):
        with ours("a probe"):
            raise AdapterError("as it was")


def test_java_an_answer_too_deep_to_write_is_ours_not_a_crash(tmp_path: Path) -> None:
    """parquet-java reads a struct nested 510 deep; its answer nests deeper than Jackson writes (1000): the worker
    died, and the cell was parquet-java's crash."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    t, v = pa.int32(), 1
    for _ in range(510):
        t, v = pa.struct([pa.field("a", t)]), {"a": v}
    path = tmp_path / "deep.parquet"
    pq.write_table(pa.table({"s": pa.array([v], type=t)}), path)
    (outcome,) = read_with("parquet-java", path)
    assert isinstance(outcome, HarnessError), outcome
    assert "writing the answer" in outcome.error.message


def test_node_a_parser_of_ours_that_fails_is_not_the_librarys_failure(tmp_path: Path) -> None:
    """TIMESTAMP(MILLIS) on FIXED_LEN_BYTE_ARRAY(12): hyparquet hands the 12 bytes to the timestamp parser. Its own
    parser makes an Invalid Date of them (the user's call returns); ours threw inside the call, and the cell was
    hyparquet's unhandled error."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from parquet_conformance.generators.parquet import thrift
    from parquet_conformance.generators.parquet.mutations import apply
    from parquet_conformance.generators.parquet.mutations.fields import AddTypedField

    sink = io.BytesIO()
    pq.write_table(pa.table({"t": pa.array([b"\x01" * 12, None], pa.binary(12))}), sink)
    millis = thrift.field_header(thrift.STRUCT, 8) + bytes.fromhex("111c1c000000") + b"\x00"  # TIMESTAMP(UTC, MILLIS)
    data, _ = apply(sink.getvalue(), [AddTypedField("SchemaElement", "struct", which=1, field_id=10, hex=millis.hex())],
                    0)
    path = tmp_path / "timestamp-on-bytes.parquet"
    path.write_bytes(data)
    (outcome,) = read_with("hyparquet", path)
    assert isinstance(outcome, HarnessError), outcome
    assert "hyparquet's own parser" in outcome.error.message


def test_parquet_java_a_repeated_field_is_not_judged_its_flat_read_is(tmp_path: Path) -> None:
    """parquet-java's Group API applies no LIST or MAP semantics: the data of a repeated field would be our worker's
    conversion, so the read is a harness error (it was a read whose lists our conversion made); a flat file reads."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    nested, flat = tmp_path / "nested.parquet", tmp_path / "flat.parquet"
    pq.write_table(pa.table({"l": [[1, 2], None], "m": pa.array([[("a", 1)], []], pa.map_(pa.string(), pa.int32()))}),
                   nested)
    pq.write_table(pa.table({"x": [1, 2], "s": pa.array([{"a": 1}, None])}), flat)
    lists, plain = read_with("parquet-java", nested, flat)
    assert isinstance(lists, HarnessError) and "LIST or MAP" in lists.error.message, lists
    assert isinstance(plain, Read) and plain.rows == 2, plain


def test_hyparquet_gives_the_files_values_never_ones_it_parsed(tmp_path: Path) -> None:
    """hyparquet parses a JSON column into objects by default: our token made `{bin: ''}` of each (wrong data of
    ours), then it was our harness error (not judged). Its `parsers` option gives the JSON's text, the file's data,
    which the worker asks for (hyparquet_worker.mjs). A FLOAT16 number was an empty bin too: now a float, the file's
    value."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from parquet_conformance.generators.canonical import canonical_table, data_hash

    texts, halves = tmp_path / "json.parquet", tmp_path / "float16.parquet"
    documents = pa.table({"j": pa.array(['{"a": 1}', "[2]"], pa.json_(pa.string()))})
    pq.write_table(documents, texts)
    table = pa.table({"h": pa.array([1.5, -2.0], pa.float16())})
    pq.write_table(table, halves)
    text, half = read_with("hyparquet", texts, halves)
    assert isinstance(text, Read) and text.data_hash == data_hash(TRACK.normalize(canonical_table(documents))), text
    assert isinstance(half, Read) and half.rows == 2, half
    assert half.data_hash == data_hash(TRACK.normalize(canonical_table(table))), half
