"""The features family (corpus/parquet/catalog/features.py, issue 37): every apache/parquet-site feature id is isolated
by cases or left out with a reason; each type's file holds nothing a reader could lack but its type; each variant
differs from its reference in the feature; our encoders follow the texts they are written from (BIT_PACKED,
PFOR); the operations' expected answers are what the file holds (checked against the rows, the spec's bloom
filter and XXH64 vectors); the default adapters' operations give the same answers; an adapter without an operation
answers `unavailable`, which is a skip."""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from parquet_conformance.conformance.adapters import get
from parquet_conformance.conformance.harness import protocol
from parquet_conformance.conformance.harness.judge import classify
from parquet_conformance.conformance.harness.model import Unavailable, Verdict
from parquet_conformance.conformance.harness.worker import read_one
from parquet_conformance.corpus.model import Expectation, Kind
from parquet_conformance.corpus.parquet import TRACK
from parquet_conformance.corpus.parquet.catalog import all_cases
from parquet_conformance.corpus.parquet.catalog.features import LEFT_OUT, isolating
from parquet_conformance.corpus.parquet.site import site_data
from parquet_conformance.generators import canonical
from parquet_conformance.generators.parquet import operations, pfor, thrift
from parquet_conformance.generators.parquet.bases import BASES, base_bytes, base_table
from parquet_conformance.generators.parquet.footer import StructRef, read_footer
from parquet_conformance.generators.parquet.layout import chunk_pages
from parquet_conformance.generators.parquet.mutations.rewrite import bit_packed, rle_levels
from parquet_conformance.generators.parquet.strict import check_file, strict_objections
from tests.spec_tables import MANIFEST, current, features

CASES = {c.id: c for c in all_cases()}


def build(case_id: str) -> bytes:
    return TRACK.build(CASES[case_id], 0)[0]


def test_every_site_feature_is_isolated_or_left_out_with_a_reason() -> None:
    ids = {f.id for f in site_data().features}
    mapped = {i.feature for i in isolating()}
    assert not ids - mapped - set(LEFT_OUT)
    assert all(LEFT_OUT[f] for f in LEFT_OUT) and set(LEFT_OUT) <= ids
    pins = {p.case_id for p in TRACK.upstream_pins()}
    for i in isolating():
        assert i.case in CASES or i.case in pins or i.case.endswith("/*"), i.case


def test_kinds_are_the_strict_decoders_word() -> None:
    """golden where our strict decoder objects to nothing; the wrong CRC is corrupt (a damaged page)."""
    for case_id, case in CASES.items():
        if case_id.startswith("features/"):
            objections = strict_objections(check_file(build(case_id))[1])
            assert (case.kind != Kind.GOLDEN) == bool(objections), case_id


def test_the_manifest_table_is_the_catalogs() -> None:
    assert current(MANIFEST.read_text(), "features") == features(), "run python -m tests.spec_tables --write"


def _chunks(data: bytes) -> list[StructRef]:
    return [r for r in read_footer(data)[0].structs() if r.name == "ColumnMetaData"]


@pytest.mark.parametrize("name", [n for n, b in BASES.items() if b.case and b.fixture is None])
def test_a_features_own_file_holds_nothing_a_reader_could_lack(name: str) -> None:
    """PLAIN (levels in RLE), uncompressed, v1 data pages, no statistics, no size statistics (but in the encrypted
    files' twin, whose encrypted footers keep what pyarrow writes), no page index."""
    data = base_bytes(name)
    footer = read_footer(data)[0]
    for md in _chunks(data):
        assert md.value("codec") == 0 and set(md.value("encodings")) <= {0, 3}, md.path
        assert md.get("statistics") is None, md.path
        assert (md.get("size_statistics") is not None) == (name == "feat-reference-i32-s-sized"), md.path
        assert md.get("bloom_filter_offset") is None
        assert {p.type for p in chunk_pages(footer, md) or []} == {0}  # DATA_PAGE (v1) only
    assert all(cc.get("column_index_offset") is None for rg in footer.row_groups() for cc in rg.children("columns"))


@pytest.mark.parametrize(("case_id", "encoding"), [
    ("features/encoding-plain-dictionary/pyarrow", 2), ("features/encoding-rle-dictionary/pyarrow", 8),
    ("features/encoding-delta-binary-packed/pyarrow", 5), ("features/encoding-delta-length-byte-array/pyarrow", 6),
    ("features/encoding-delta-byte-array/pyarrow", 7), ("features/encoding-byte-stream-split/pyarrow", 9),
    ("features/encoding-byte-stream-split-extended/pyarrow", 9), ("features/encoding-bit-packed/ours", 4)])
def test_an_encoding_case_is_its_reference_with_the_encoding(case_id: str, encoding: int) -> None:
    data = build(case_id)
    assert any(encoding in md.value("encodings") for md in _chunks(data))
    assert not any(encoding in md.value("encodings") for md in _chunks(base_bytes(CASES[case_id].base)))
    assert all(md.value("codec") == 0 and md.get("statistics") is None for md in _chunks(data))
    if encoding != 4:  # pyarrow reads BIT_PACKED least significant bit first (apache/arrow#42368)
        got = canonical.canonical_table(pq.read_table(io.BytesIO(data)))
        assert canonical.data_hash(got) == canonical.data_hash(canonical.canonical_table(base_table("feat-reference")))


def test_bit_packed_follows_encodings_md() -> None:
    """Encodings.md's example (1 through 7 at bit width 3), and the case's levels: the reference's nulls, most
    significant bit first."""
    assert bit_packed(list(range(8)), 3) == bytes([0b00000101, 0b00111001, 0b01110111])
    data = build("features/encoding-bit-packed/ours")
    footer = read_footer(data)[0]
    [md] = [m for m in _chunks(data) if m.value("path_in_schema") == [b"i32"]]
    levels: list[int] = []
    for page in chunk_pages(footer, md) or []:
        header = StructRef("PageHeader", "", thrift.decode_struct(data, page.start))
        dph = header.need("data_page_header")
        assert dph.value("definition_level_encoding") == 4
        n = dph.value("num_values")
        packed = data[header.node.end:header.node.end + (n + 7) // 8]
        levels += [int(b) for b in "".join(format(x, "08b") for x in packed)[:n]]
    assert levels == [int(v is not None) for v in base_table("feat-reference").column("i32").to_pylist()]
    assert rle_levels(bytes([0x03, 0x05]), 8, 1) == [1, 0, 1, 0, 0, 0, 0, 0]  # one bit-packed group of 8


def test_pfor_follows_the_proposal() -> None:
    """PR #579's Example 1 (16 bytes: for 99, bit width 3, one exception), and a round trip with exceptions."""
    vector = pfor._vector([100, 102, 101, 103, 100, 99, 50000, 104], 4)
    assert vector == (99).to_bytes(4, "little") + bytes([3, 1, 0]) + bytes.fromhex("9918a0") + bytes([6, 0]) \
        + (50000).to_bytes(4, "little")
    values = [1000 + i % 200 if i % 97 else -(2 ** 31) + i for i in range(2100)]
    assert pfor.decode(pfor.encode(values, 4)) == values
    assert pfor.decode(pfor.encode([2 ** 62, -5, 7], 8, 3)) == [2 ** 62, -5, 7]


def test_the_legacy_forms_are_the_spec_examples_shapes() -> None:
    """LogicalTypes.md's rules: the schema each legacy case writes (pyarrow's reading of it is the base's rows)."""
    def schema(case_id: str) -> str:
        return str(pq.ParquetFile(io.BytesIO(build(case_id))).schema)

    assert "repeated int32 field_id=-1 element" in schema("features/logical-list/two-level-primitive")
    assert "repeated group field_id=-1 array {" in schema("features/logical-list/array-group")
    assert "repeated group field_id=-1 tuples_tuple {" in schema("features/logical-list/tuple-group")
    assert "repeated group field_id=-1 array (List)" in schema("features/logical-list/two-level-nested")
    unannotated = schema("features/logical-list/unannotated-repeated")
    assert "repeated int32 field_id=-1 nums;" in unannotated and "(List)" not in unannotated
    for case_id in [c for c in CASES if c.startswith(("features/logical-list/", "features/logical-map/"))]:
        got = canonical.canonical_table(pq.read_table(io.BytesIO(build(case_id))))
        assert canonical.data_hash(got) == canonical.data_hash(canonical.canonical_table(
            base_table(CASES[case_id].base))), case_id


def test_the_statistics_answer_is_the_rows_bounds() -> None:
    """Our decoder's answer for the keyed file with statistics: per chunk, the bounds of its rows (min and max only:
    the feature the operation decides; a null count a library drops says nothing of them)."""
    answer = operations.statistics(build("features/format-stats-min-max/operation"))
    table = base_table("feat-keyed")
    rows = {(r[0]["int"], r[1]): r[2:] for r in answer["rows"]}
    for rg in range(2):
        part = table.slice(rg * 80, 80)
        for name in table.column_names:
            values = [v for v in part.column(name).to_pylist() if v is not None]
            want = [v.encode() if isinstance(v, str) else v for v in (min(values), max(values))]
            low, high = rows[(str(rg), name)]
            if name in ("f32", "f64"):  # a writer may write -0.0 for a minimum of +0.0 (parquet.thrift ColumnOrder)
                assert [float(low["float"]), float(high["float"])] == want, name
            else:
                assert [low, high] == [canonical.canonical_value(v) for v in want], name


def test_the_bloom_answer_never_excludes_a_present_value() -> None:
    """A split block bloom filter has no false negatives: every value of a chunk, probed in its own row group, is
    not excluded by our check of pyarrow's filters and of parquet-testing's; XXH64 as the spec's vectors."""
    assert operations.xxh64(b"") == 0xEF46DB3751D8E999 and operations.xxh64(b"a") == 0xD24EC4F1A98C6E5B
    assert operations.xxh64(b"abc") == 0x44BC2CF5AD770999
    answer = operations.bloom(build("features/format-bloom-filters/operation"))
    table = base_table("feat-keyed")
    present = {(str(rg), name, v) for rg in range(2) for name in ("id", "key")
               for v in table.slice(rg * 80, 80).column(name).to_pylist()}
    excluded: Counter[bool] = Counter()
    for rg, column, value, out in answer["rows"]:
        raw = value if isinstance(value, str) else int(value["int"])
        if (rg["int"], column, raw) in present:
            assert out is False
        excluded[out] += 1
    assert excluded[True] > 0.8 * excluded[False]  # most absent probes are excluded: the filter is read
    stored = TRACK.upstream_copy() / "data/data_index_bloom_encoding_with_length.parquet"
    rows = operations.bloom(stored.read_bytes())["rows"]
    assert rows and not any(out for _, _, value, out in rows if not str(value).endswith("~"))


TESTING_GIT = os.environ.get("PARQUET_TESTING_GIT", "/work/.mirror/apache+parquet-testing/repo")


@pytest.mark.skipif(not Path(TESTING_GIT).is_dir(), reason="no apache/parquet-testing git repository")
def test_the_bloom_check_reads_parquet_testings_filter() -> None:
    """bloom_filter.xxhash.bin: "the bloom filter was generated by inserting the strings "hello", "parquet",
    "bloom", "filter"" (data/README.md at 1a2a7512)."""
    raw = subprocess.run(["git", "-C", TESTING_GIT, "show", "1a2a75127be06fc0123f03ebd36c966f7beda27d:data/"
                          "bloom_filter.xxhash.bin"], capture_output=True, check=True).stdout
    header = thrift.decode_struct(raw, 0)
    bits = raw[header.end:]
    assert all(operations.sbbf_contains(bits, operations.xxh64(w.encode())) for w in
               ("hello", "parquet", "bloom", "filter"))
    assert not operations.sbbf_contains(bits, operations.xxh64(b"absent"))


@pytest.mark.parametrize("case_id", [c.id for c in all_cases() if c.op in operations.ANSWERS])
@pytest.mark.parametrize("adapter", ["pyarrow", "duckdb"])
def test_the_default_adapters_operations_answer_what_the_file_holds(case_id: str, adapter: str,
                                                                    tmp_path: Path) -> None:
    """What the run's cells check, for our conversions: each answer hashes as our decoder's; an adapter without the
    operation answers `unavailable` (a skip)."""
    path = tmp_path / "case.parquet"
    path.write_bytes(build(case_id))
    op, reader = CASES[case_id].op, get(adapter)
    answer = read_one(reader, str(path), op)  # type: ignore[arg-type]
    if op not in reader.operations:
        assert answer["outcome"] == "unavailable"
        outcome = protocol.parse_answer({"id": "1", **answer}, "1", TRACK.normalize)
        assert isinstance(outcome, Unavailable)
        assert classify(Expectation.READ, outcome, set()) == Verdict.SKIP
        return
    assert answer["outcome"] == "read", answer
    want = canonical.data_hash(canonical.normalize(dict(operations.ANSWERS[op](path.read_bytes()))))
    assert canonical.data_hash(TRACK.normalize(answer)) == want


def test_an_operation_case_is_judged_on_our_decoders_answer() -> None:
    """derive: the default role's expectation stays the catalog's, its data hash is the answer's; no metadata role."""
    data = build("features/format-page-index/operation")
    found = TRACK.derive(base_bytes("feat-keyed"), data, {"legacy": Expectation.READ}, "page-index")
    answer = canonical.normalize(dict(operations.page_index(data)))
    assert found == {"legacy": (Expectation.READ, canonical.data_hash(answer))}
    assert len(answer["rows"]) > 8  # several pages per chunk


def test_the_manifest_alone_rebuilds_the_familys_files() -> None:
    """Each step parsed back from its JSON form (options and renames as JSON objects) gives the same bytes."""
    from parquet_conformance.generators.parquet.mutations import apply

    for case_id, case in CASES.items():
        if case_id.startswith(("features/", "evolution/pfor/")):
            steps = [TRACK.parse_mutation(json.loads(json.dumps(m.to_json()))) for m in case.mutations]
            assert apply(TRACK.base_file(case.base), steps, 0)[0] == build(case_id), case_id


def test_the_reference_reader_rewrites_only_bit_packed_levels() -> None:
    """rle_from_bit_packed: the BIT_PACKED case's levels come out in the hybrid, every other file unchanged, an
    encrypted footer too (it has no schema to read levels from)."""
    from parquet_conformance.generators.parquet.mutations.rewrite import rle_from_bit_packed

    for name in ("feat-reference", "encrypted-footer", "plaintext-footer", "nested"):
        assert rle_from_bit_packed(base_bytes(name)) == base_bytes(name), name
    converted = rle_from_bit_packed(build("features/encoding-bit-packed/ours"))
    got = canonical.canonical_table(pq.read_table(io.BytesIO(converted)))
    assert canonical.data_hash(got) == canonical.data_hash(canonical.canonical_table(base_table("feat-reference")))


def test_a_zero_bound_is_unsigned_in_every_answer() -> None:
    """parquet.thrift lets a reader widen a +0 min to -0 ("If the min is a +0, the row group may contain -0 values as
    well"), and parquet-java does: a zero bound's sign says nothing, in our decoder's answer and in an adapter's
    alike (main judged parquet-java's -0.0 min of alltypes_tiny_pages wrong data)."""
    import math

    from parquet_conformance.conformance.adapters.parquet.operations import Answer

    zero = operations.bound(struct.pack("<f", -0.0), operations.FLOAT)
    assert isinstance(zero, float) and math.copysign(1.0, zero) == 1.0
    assert operations.bound(struct.pack("<d", -1.5), operations.DOUBLE) == -1.5
    widened = Answer(operations.STATISTICS, [(0, "f", -0.0, 9.5), (0, "g", -2.0, -0.0)]).canonical()
    written = Answer(operations.STATISTICS, [(0, "f", 0.0, 9.5), (0, "g", -2.0, 0.0)]).canonical()
    assert canonical.data_hash(widened) == canonical.data_hash(written)
