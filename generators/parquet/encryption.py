"""Parquet modular encryption for the corpus's encrypted fixtures (apache/parquet-format Encryption.md): an
in-process test KMS and the properties pyarrow writes and reads them with. The KMS wraps keys by XOR with master
keys that are in this file: it protects nothing, so that anyone can read the fixtures with the keys."""

from __future__ import annotations

import base64
import datetime as dt
import io

import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.parquet.encryption as pe

MASTER_KEYS = {"footer-key": b"parquet-conform1", "column-key": b"parquet-conform2"}  # 16 bytes: AES-128
ENCRYPTED_COLUMNS = {"column-key": ["name"]}  # the rest is encrypted with the footer key (encrypted footer mode)
MODES = {"encrypted-footer": False, "plaintext-footer": True}  # base name -> plaintext_footer


class TestKms(pe.KmsClient):
    """Wraps a data key by XOR with the master key named."""

    def __init__(self, config: pe.KmsConnectionConfig) -> None:
        super().__init__()

    def wrap_key(self, key_bytes: bytes, master_key_identifier: str) -> str:
        master = MASTER_KEYS[master_key_identifier]
        return base64.b64encode(bytes(a ^ b for a, b in zip(key_bytes, master, strict=True))).decode()

    def unwrap_key(self, wrapped_key: str, master_key_identifier: str) -> bytes:
        master = MASTER_KEYS[master_key_identifier]
        return bytes(a ^ b for a, b in zip(base64.b64decode(wrapped_key), master, strict=True))


def _factory() -> pe.CryptoFactory:
    return pe.CryptoFactory(lambda config: TestKms(config))


def encryption_properties(plaintext_footer: bool) -> pe.FileEncryptionProperties:
    config = pe.EncryptionConfiguration(footer_key="footer-key", column_keys=ENCRYPTED_COLUMNS,
                                        plaintext_footer=plaintext_footer, double_wrapping=False,
                                        cache_lifetime=dt.timedelta(minutes=1))
    return _factory().file_encryption_properties(pe.KmsConnectionConfig(), config)


def read_with_keys(data: bytes) -> pa.Table:
    """What a reader that holds the keys reads (pyarrow with the test KMS); it verifies a plaintext footer's
    signature and every module's GCM tag."""
    props = _factory().file_decryption_properties(pe.KmsConnectionConfig(),
                                                  pe.DecryptionConfiguration(cache_lifetime=dt.timedelta(minutes=1)))
    return pq.read_table(io.BytesIO(data), decryption_properties=props)
