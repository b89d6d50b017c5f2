"""The encrypted fixtures and their cases, read with the keys (pyarrow and the test KMS) and without them."""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from parquet_conformance.conformance.adapters import AdapterError, get
from parquet_conformance.generators.canonical import canonical_table, data_hash
from parquet_conformance.generators.parquet.bases import ENCRYPTED_BASES, base_bytes, base_hash, writers_table
from parquet_conformance.generators.parquet.encryption import decryption_properties, read_with_keys
from parquet_conformance.generators.parquet.footer import FooterError
from parquet_conformance.generators.parquet.inspect import inspect_bytes
from parquet_conformance.generators.parquet.strict import parse_file

PLAIN_COLUMNS = ["id", "score", "flag", "ts"]  # `name` is under the column key


def cases(manifest: dict, base: str) -> list[dict]:
    return [c for c in manifest["cases"] if c["base"] == base]


def test_the_strict_decoder_understands_both_modes() -> None:
    pare, plain = parse_file(base_bytes("encrypted-footer")), parse_file(base_bytes("plaintext-footer"))
    assert pare.encrypted_footer and pare.row_groups() == [] and {r.name for r in pare.structs()} == {
        "FileCryptoMetaData", "EncryptionAlgorithm", "AesGcmV1"}
    assert not plain.encrypted_footer and len(plain.signature) == 28
    assert inspect_bytes(base_bytes("encrypted-footer"))["encrypted_footer"] is True
    data = base_bytes("encrypted-footer")
    at = pare.metadata.end  # the module's 4-byte length
    with pytest.raises(FooterError, match="encrypted footer module says"):
        parse_file(data[:at] + bytes([data[at] ^ 1]) + data[at + 1:])
    with pytest.raises(FooterError, match="ends with b'PARE'"):
        parse_file(b"PAR1" + data[4:])


def test_a_reader_with_the_keys_reads_every_encrypted_footer_case(corpus_dir: Path, manifest: dict) -> None:
    checked = cases(manifest, "encrypted-footer")
    assert len(checked) >= 5
    for c in checked:
        data = (corpus_dir / c["file"]).read_bytes()
        assert data_hash(canonical_table(read_with_keys(data))) == base_hash("encrypted-footer"), c["id"]
        with pytest.raises(OSError, match="encrypted metadata"):
            pq.read_table(io.BytesIO(data))  # the legacy expectation: reject


def test_a_signed_plaintext_footer_with_an_extension_fails_its_signature(corpus_dir: Path, manifest: dict) -> None:
    data = base_bytes("plaintext-footer")
    assert data_hash(canonical_table(read_with_keys(data))) == base_hash("plaintext-footer")
    want = writers_table().select(PLAIN_COLUMNS)
    for c in [c for c in cases(manifest, "plaintext-footer") if c["id"].startswith("enc-files/")]:
        data = (corpus_dir / c["file"]).read_bytes()
        assert c["expect"]["legacy"] == "reject"
        with pytest.raises(OSError, match=r"ColumnMetadata|decrypt"):
            pq.read_table(io.BytesIO(data))  # no keys: the encrypted column fails
        projection = pq.read_table(io.BytesIO(data), columns=PLAIN_COLUMNS)  # what the spec lets a legacy reader do
        assert canonical_table(projection) == canonical_table(want), c["id"]
        if c["mutations"]:
            with pytest.raises(pa.ArrowInvalid, match=r"signature verification failed"):
                read_with_keys(data)


def test_the_unions_of_a_signed_plaintext_footer_are_rejected_with_and_without_keys(corpus_dir: Path,
                                                                                    manifest: dict) -> None:
    """unions/column-crypto-meta-data/*, unions/encryption-algorithm/*: legacy `reject` (pyarrow has no keys); with
    the keys the changed footer fails its signature, or its algorithm is one pyarrow does not know."""
    checked = [c for c in cases(manifest, "plaintext-footer") if c["id"].startswith("unions/")]
    assert len(checked) == 6
    for c in checked:
        data = (corpus_dir / c["file"]).read_bytes()
        assert c["expect"]["legacy"] == "reject"
        with pytest.raises(OSError):
            pq.read_table(io.BytesIO(data))
        with pytest.raises((OSError, pa.ArrowInvalid), match=r"signature verification failed|Unsupported algorithm"):
            read_with_keys(data)


@pytest.mark.parametrize("name", ENCRYPTED_BASES)
def test_fixtures_are_encrypted(name: str) -> None:
    assert base_bytes(name)[:4] == (b"PARE" if name == "encrypted-footer" else b"PAR1")


def test_every_case_read_with_keys_decrypts_with_its_own_keys_to_its_base(corpus_dir: Path, manifest: dict) -> None:
    """features/format-modular-encryption/*: what pyarrow reads with the keys the case sends is its base's data;
    without them, or with the footer's master key wrong, it refuses."""
    keyed = [c for c in manifest["cases"] if c["keys"]]
    assert {c["id"] for c in keyed} == {f"features/format-modular-encryption/{s}"
                                        for s in ("uniform", "column-key", "plaintext-footer")}
    for c in keyed:
        assert c["op"] == "decrypt"
        data = (corpus_dir / c["file"]).read_bytes()
        _factory, props = decryption_properties(c["keys"])  # held until the read ends
        table = pq.read_table(io.BytesIO(data), decryption_properties=props)
        assert data_hash(canonical_table(table)) == manifest["bases"][c["base"]]["data_hash"], c["id"]
        with pytest.raises(OSError):
            pq.read_table(io.BytesIO(data))
        wrong = {**c["keys"], "kms.footer-key": c["keys"]["kms.column-key"]}  # the footer's master key wrong
        _wrong_factory, wrong_props = decryption_properties(wrong)
        with pytest.raises((OSError, pa.ArrowException)):
            pq.read_table(io.BytesIO(data), decryption_properties=wrong_props)

def test_an_operation_takes_keys_exactly_when_it_needs_them() -> None:
    """Keys sent to an operation that takes none, or none to one that needs them, are ours to report (a harness
    error before the library's call), never the library's outcome."""
    adapter = get("pyarrow")
    with pytest.raises(AdapterError, match="sent no keys"):
        adapter.operation("decrypt", "/nonexistent.parquet", None)
    with pytest.raises(AdapterError, match="sent keys it takes none of"):
        adapter.operation("read", "/nonexistent.parquet", {"footer-key": "cGFycXVldC1jb25mb3JtMQ=="})
    adapter.operation("decrypt", "/nonexistent.parquet", {"footer-key": "cGFycXVldC1jb25mb3JtMQ=="})  # resolved only
