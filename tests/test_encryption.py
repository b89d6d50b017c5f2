"""The encrypted fixtures and their cases, read with the keys (pyarrow and the test KMS) and without them."""

from __future__ import annotations

import io
import shlex
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from parquet_conformance.conformance.adapters import AdapterError, get
from parquet_conformance.conformance.adapters.parquet.operations import explicit_keys
from parquet_conformance.corpus.build import generate
from parquet_conformance.generators.canonical import canonical_table, data_hash
from parquet_conformance.generators.parquet.bases import ENCRYPTED_BASES, base_bytes, base_hash, writers_table
from parquet_conformance.generators.parquet.encryption import decryption, read_with_keys
from parquet_conformance.generators.parquet.footer import FooterError
from parquet_conformance.generators.parquet.inspect import inspect_bytes
from parquet_conformance.generators.parquet.keys import COLUMN, FOOTER
from parquet_conformance.generators.parquet.strict import parse_file
from tests.helpers import CLI

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
    """features/format-modular-encryption/*: what a reader reads with the keys the case sends is its base's data
    (pyarrow through its KMS hook where the case has master keys; polars with the data keys, which every case has);
    without them, or with the footer's key wrong, it refuses."""
    import polars as pl

    keyed = [c for c in manifest["cases"] if c["keys"]]
    assert {c["id"] for c in keyed} == {f"features/format-modular-encryption/{s}" for s in (
        "uniform", "column-key", "plaintext-footer", "polars", "polars-pages")}
    for c in keyed:
        assert c["op"] == "decrypt"
        data, want = (corpus_dir / c["file"]).read_bytes(), manifest["bases"][c["base"]]["data_hash"]
        with pytest.raises(OSError):
            pq.read_table(io.BytesIO(data))
        data_keys = explicit_keys(c["keys"])
        footer, columns = data_keys.pop(FOOTER), {k.removeprefix(COLUMN): v for k, v in data_keys.items()}
        got = pl.read_parquet(io.BytesIO(data), decryption=pl.ParquetDecryptionProperties(
            footer_key=footer, column_keys=columns))
        assert data_hash(canonical_table(got.to_arrow())) == want, c["id"]
        with pytest.raises(pl.exceptions.ComputeError):
            pl.read_parquet(io.BytesIO(data), decryption=pl.ParquetDecryptionProperties(
                footer_key=bytes(len(footer)), column_keys=columns))
        if "kms.footer-key" not in c["keys"]:
            continue
        held = decryption(c["keys"])
        table = pq.read_table(io.BytesIO(data), decryption_properties=held.properties)
        assert data_hash(canonical_table(table)) == want, c["id"]
        wrong = {**c["keys"], "kms.footer-key": c["keys"]["kms.column-key"]}  # the footer's master key wrong
        wrong_held = decryption(wrong)
        with pytest.raises((OSError, pa.ArrowException)):
            pq.read_table(io.BytesIO(data), decryption_properties=wrong_held.properties)


def test_an_operation_takes_keys_exactly_when_it_needs_them() -> None:
    """Keys sent to an operation that takes none, or none to one that needs them, are ours to report (a harness
    error before the library's call), never the library's outcome."""
    adapter = get("pyarrow")
    with pytest.raises(AdapterError, match="sent no keys"):
        adapter.operation("decrypt", "/nonexistent.parquet", None)
    with pytest.raises(AdapterError, match="sent keys it takes none of"):
        adapter.operation("read", "/nonexistent.parquet", {"footer-key": "cGFycXVldC1jb25mb3JtMQ=="})
    adapter.operation("decrypt", "/nonexistent.parquet", {"footer-key": "cGFycXVldC1jb25mb3JtMQ=="})  # resolved only


@pytest.mark.integration
def test_a_keyed_finding_is_reproduced_with_its_keys_never_by_a_plain_read(tmp_path: Path) -> None:
    """fastparquet has no decryption, so it fails the encrypted cases: its upstream folder for such a finding has no
    script, though fastparquet's findings have one (a plain read would show something else), and a `read` line that
    sends the case's keys, which shows the failure again from the folder."""
    generate(tmp_path / "corpus", only="features/format-modular-encryption/uniform,features/reference/*-i32-s-sized")
    run = subprocess.run([*CLI, "run", "--master", "none", "--corpus", str(tmp_path / "corpus"), "--out",
                          str(tmp_path / "out"), "--adapter", "fastparquet"], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    out = tmp_path / "upstream"
    proc = subprocess.run([*CLI, "report", "--results", str(tmp_path / "out" / "results"), "--upstream",
                           "fastparquet", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    (folder,) = [p for p in out.iterdir() if p.is_dir()]
    readme = (folder / "README.md").read_text()
    assert not [p for p in folder.iterdir() if p.name.startswith("repro.")]
    assert "No script: the case asks for the operation \\`decrypt\\`" in readme, readme
    (line,) = [x for x in readme.splitlines() if x.startswith("parquet-conformance read case.parquet")]
    assert " --op decrypt --key kms.footer-key=" in line and " --key footer=" in line, line
    again = subprocess.run([*CLI, *shlex.split(line)[1:]], capture_output=True, text=True, timeout=300, cwd=folder)
    # the outcome alone (the folder is in no corpus); fastparquet is memory-unsafe: a crash is the same loss of control
    assert again.returncode == 0 and (": unhandled-error" in again.stdout or ": crash" in again.stdout), \
        again.stdout + again.stderr[-2000:]
