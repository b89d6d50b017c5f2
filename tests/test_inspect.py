"""`inspect` on two levels: `valid` is what a Thrift compact reader accepts (notes: what it passed over), findings
are the rules of the spec a file breaks, and `--strict` turns findings into exit code 1. Each shape is a file
made here, by pyarrow and then edited with our codec; pyarrow's reading of it is checked where Thrift accepts it."""

from __future__ import annotations

import base64
import io
import json
import subprocess
import zlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.parquet.encryption as pe
import pytest

from parquet_conformance.generators.parquet import thrift
from parquet_conformance.generators.parquet.edits import Edit, apply_edits, before_stop, set_fields, set_i64
from parquet_conformance.generators.parquet.footer import FooterError, read_footer
from parquet_conformance.generators.parquet.inspect import inspect_bytes
from parquet_conformance.generators.parquet.strict import parse_file
from tests.helpers import CLI

TABLE = pa.table({"x": pa.array([3, 1, 2], pa.int64()), "s": pa.array(["b", "a", None])})


def written(**options: object) -> bytes:
    sink = io.BytesIO()
    pq.write_table(TABLE, sink, **{"compression": "none", "use_dictionary": False, **options})
    return sink.getvalue()


def edited(data: bytes, struct: str, index: int, fields: dict[str, tuple[int, object]]) -> bytes:
    footer, _ = read_footer(data)
    ref = [r for r in footer.structs() if r.name == struct][index]
    return apply_edits(data, set_fields(ref, fields))


def with_field(data: bytes, struct: str, index: int, fid: int, ftype: int, value: bytes) -> bytes:
    """A raw field (any id, any wire type) before the stop byte of a struct."""
    footer, _ = read_footer(data)
    ref = [r for r in footer.structs() if r.name == struct][index]
    return apply_edits(data, [before_stop(ref, thrift.field_header(ftype, fid, long_form=True) + value)])


def rules(report: dict, level: str) -> set[str]:
    return {p["rule"] for p in report[level]}


def test_a_clean_file_has_no_notes_or_findings() -> None:
    report = inspect_bytes(written())
    assert report["valid"] and report["notes"] == [] and report["findings"] == []


def test_an_optional_field_of_another_wire_type_is_skipped_as_thrift_does() -> None:
    """ColumnMetaData.index_page_offset (i64) written as a binary: generated code skips it; pyarrow reads the file."""
    data = with_field(written(), "ColumnMetaData", 0, 10, thrift.BINARY, thrift.uleb(3) + b"abc")
    report = inspect_bytes(data)
    assert report["valid"], report["error"]
    assert rules(report, "notes") == {"wire-type"} and report["findings"] == []
    assert report["notes"][0]["path"] == "row_groups[0].columns[0].meta_data.index_page_offset"
    with pytest.raises(FooterError, match=r"wire type binary where parquet\.thrift declares i64"):
        parse_file(data)
    assert pq.read_table(io.BytesIO(data)).equals(TABLE)


def test_a_required_field_of_another_wire_type_is_a_missing_required_field() -> None:
    data = written()
    footer, _ = read_footer(data)
    num_rows = footer.root.get("num_rows")
    assert num_rows is not None
    # num_rows (i64) rewritten as a binary of the same id
    bad = apply_edits(data, [Edit(num_rows.header_start, num_rows.end,
                                  thrift.field_header(thrift.BINARY, 3, long_form=True) + thrift.uleb(2) + b"no")])
    report = inspect_bytes(bad)
    assert report["valid"] and "required" in rules(report, "findings")
    assert any("num_rows missing (there with wire type binary" in p["message"] for p in report["findings"])


def test_num_rows_that_disagree_with_the_row_groups_is_a_finding() -> None:
    data = written()
    footer, _ = read_footer(data)
    bad = apply_edits(data, [set_i64(footer.root, "num_rows", 4)])
    report = inspect_bytes(bad)
    assert report["valid"] and rules(report, "findings") == {"num-rows"}
    assert report["num_rows"] == 4


@pytest.mark.parametrize(("struct", "field", "value"), [
    ("SchemaElement", "type", 8), ("ColumnMetaData", "codec", 8), ("ColumnMetaData", "type", -1),
    ("PageEncodingStats", "page_type", 4), ("PageEncodingStats", "encoding", 11),
])
def test_an_enum_value_out_of_range_is_a_finding(struct: str, field: str, value: int) -> None:
    report = inspect_bytes(edited(written(), struct, -1, {field: (thrift.I32, value)}))
    assert report["valid"] and rules(report, "findings") == {"enum"}
    assert str(value) in report["findings"][0]["message"]


def test_a_required_field_missing_is_a_finding() -> None:
    data = written()
    footer, _ = read_footer(data)
    kv = next(r for r in footer.structs() if r.name == "KeyValue")
    key = kv.get("key")
    assert key is not None
    # the key is field 1, the value (field 2) follows in short form with delta 1: write it in long form
    value = kv.get("value")
    assert value is not None
    bad = apply_edits(data, [Edit(key.header_start, value.header_end,
                                  thrift.field_header(thrift.BINARY, 2, long_form=True))])
    report = inspect_bytes(bad)
    assert report["valid"] and rules(report, "findings") == {"required"}


def test_overlapping_column_chunks_are_a_finding() -> None:
    data = written()
    footer, _ = read_footer(data)
    first, second = footer.row_groups()[0].children("columns")
    md = second.need("meta_data")
    bad = apply_edits(data, [set_i64(md, "data_page_offset", first.need("meta_data").value("data_page_offset") + 1)])
    assert "chunk-overlap" in rules(inspect_bytes(bad), "findings")


def test_page_crcs_right_and_wrong() -> None:
    data = written(write_page_checksum=True)
    report = inspect_bytes(data)
    assert report["findings"] == [] and report["page_headers"] == 2
    footer = parse_file(data)
    header = thrift.decode_struct(data, footer.row_groups()[0].children("columns")[0].need("meta_data")
                                  .value("data_page_offset"))
    crc = header.get(4)
    assert crc is not None and zlib.crc32(data[header.end:header.end + header.value(3)]) == crc.value & 0xFFFFFFFF
    wrong = data[:crc.header_end] + thrift.i64_value(crc.value ^ 1) + data[crc.end:]
    assert len(wrong) == len(data)
    assert rules(inspect_bytes(wrong), "findings") == {"crc"}
    assert pq.read_table(io.BytesIO(wrong)).equals(TABLE)  # pyarrow does not verify CRCs by default
    with pytest.raises(OSError, match="CRC"):
        pq.read_table(io.BytesIO(wrong), page_checksum_verification=True)


def test_statistics_whose_min_is_above_their_max_are_a_finding() -> None:
    data = written()
    footer, _ = read_footer(data)
    stats = next(r for r in footer.structs() if r.name == "Statistics")  # x: int64, min 1, max 3
    lo, hi = stats.get("min_value"), stats.get("max_value")
    assert lo is not None and hi is not None and lo.value == (1).to_bytes(8, "little")
    swapped = apply_edits(data, [Edit(lo.header_end, lo.end, thrift.encode_value(thrift.BINARY, hi.value)),
                                 Edit(hi.header_end, hi.end, thrift.encode_value(thrift.BINARY, lo.value))])
    report = inspect_bytes(swapped)
    assert report["valid"] and rules(report, "findings") == {"statistics"}


def test_a_non_minimal_varint_is_a_note() -> None:
    data = written()
    footer, _ = read_footer(data)
    version = footer.root.get("version")
    assert version is not None
    padded = apply_edits(data, [Edit(version.header_end, version.end,
                                     thrift.uleb(thrift.zigzag_encode(version.value), pad_to=3))])
    report = inspect_bytes(padded)
    assert report["valid"] and rules(report, "notes") == {"varint"} and report["findings"] == []
    with pytest.raises(FooterError, match="non-minimal"):
        parse_file(padded)


def test_bytes_after_the_file_metadata_are_a_finding() -> None:
    data = written()
    footer, _ = read_footer(data)
    end = footer.footer_end
    bad = apply_edits(data, [Edit(end, end, b"\xff" * 5)])
    report = inspect_bytes(bad)
    assert report["valid"] and rules(report, "findings") == {"trailing-bytes"}
    assert pq.read_table(io.BytesIO(bad)).equals(TABLE)  # Arrow C++ ignores them


class _Kms(pe.KmsClient):
    """A KMS that wraps keys in base64: enough for pyarrow to write an encrypted file."""

    def __init__(self, config: pe.KmsConnectionConfig) -> None:
        super().__init__()

    def wrap_key(self, key_bytes: bytes, master_key_identifier: str) -> bytes:
        return base64.b64encode(key_bytes)

    def unwrap_key(self, wrapped_key: bytes, master_key_identifier: str) -> bytes:
        return base64.b64decode(wrapped_key)


def test_a_plaintext_footer_signature_is_a_note_not_a_problem() -> None:
    """Encryption.md's plaintext footer mode, written by pyarrow: FileMetaData, then nonce and tag (28 bytes)."""
    props = pe.CryptoFactory(_Kms).file_encryption_properties(
        pe.KmsConnectionConfig(), pe.EncryptionConfiguration(footer_key="f", column_keys={"c": ["x"]},
                                                             plaintext_footer=True, double_wrapping=False))
    sink = io.BytesIO()
    pq.write_table(TABLE, sink, encryption_properties=props)
    data = sink.getvalue()
    report = inspect_bytes(data)
    assert report["valid"] and rules(report, "notes") == {"signature"} and report["findings"] == []
    assert parse_file(data).signature is not None
    assert pq.read_table(io.BytesIO(data), columns=["s"]).column("s").to_pylist() == ["b", "a", None]


def test_strict_turns_findings_into_exit_code_1(tmp_path: Path) -> None:
    data = written()
    footer, _ = read_footer(data)
    path = tmp_path / "num-rows.parquet"
    path.write_bytes(apply_edits(data, [set_i64(footer.root, "num_rows", 4)]))

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*CLI, "inspect", *args, str(path)], capture_output=True, text=True)

    assert run().returncode == 0 and "findings: 1" in run().stdout
    strict = run("--strict")
    assert strict.returncode == 1 and "Traceback" not in strict.stderr
    assert strict.stderr.count("\n") == 1 and "row groups hold 3 rows" in strict.stderr
    assert json.loads(run("--json", "--strict").stdout)["findings"][0]["rule"] == "num-rows"
    clean = tmp_path / "clean.parquet"
    clean.write_bytes(data)
    assert subprocess.run([*CLI, "inspect", "--strict", str(clean)], capture_output=True).returncode == 0
