"""Parquet modular encryption for the corpus's encrypted fixtures (apache/parquet-format Encryption.md): an
in-process test KMS and the properties pyarrow writes and reads them with. The KMS wraps keys by XOR with master
keys that are in this file: it protects nothing, so that anyone can read the fixtures with the keys. A case read
with the keys (op `decrypt`) sends them to the worker (`keys`: docs/adapter-protocol.md#keys), whose library's KMS
hook unwraps with them as `XorKms` does."""

from __future__ import annotations

import base64
import datetime as dt
import io
from collections.abc import Mapping
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.parquet.encryption as pe

from parquet_conformance.generators.parquet.keys import COLUMN, FOOTER, KMS

MASTER_KEYS = {"footer-key": b"parquet-conform1", "column-key": b"parquet-conform2"}  # 16 bytes: AES-128
ENCRYPTED_COLUMNS = {"column-key": ["name"]}  # the rest is encrypted with the footer key (encrypted footer mode)
MODES = {"encrypted-footer": False, "plaintext-footer": True}  # base name -> plaintext_footer
# The footer key of the fixtures written with explicit keys (polars): printable, so that a library that takes a key
# only as text (DuckDB) can be given it too.
EXPLICIT_FOOTER_KEY = b"parquet-conform3"


class XorKms(pe.KmsClient):
    """Wraps a data key by XOR with the master key named (the key material's `wrappedDEK`, base64); `wrapped` (when
    given) collects each data key it wraps, under its master key's id; `failures` what it could not unwrap (pyarrow
    calls it inside its read, and would report its error as its own)."""

    def __init__(self, master_keys: Mapping[str, bytes], wrapped: dict[str, list[bytes]] | None = None,
                 failures: list[str] | None = None) -> None:
        super().__init__()
        self.master_keys = dict(master_keys)
        self.wrapped = wrapped
        self.failures = failures if failures is not None else []

    def wrap_key(self, key_bytes: bytes, master_key_identifier: str) -> str:
        master = self.master_keys[master_key_identifier]
        if self.wrapped is not None:
            self.wrapped.setdefault(master_key_identifier, []).append(bytes(key_bytes))
        return base64.b64encode(bytes(a ^ b for a, b in zip(key_bytes, master, strict=True))).decode()

    def unwrap_key(self, wrapped_key: str, master_key_identifier: str) -> bytes:
        try:
            master = self.master_keys[master_key_identifier]
            return bytes(a ^ b for a, b in zip(base64.b64decode(wrapped_key), master, strict=True))
        except Exception as e:
            self.failures.append(f"the test KMS cannot unwrap a key of master key {master_key_identifier[:40]!r}: "
                                 f"{type(e).__name__}: {e}")
            raise


def _factory(master_keys: Mapping[str, bytes] = MASTER_KEYS, wrapped: dict[str, list[bytes]] | None = None,
             failures: list[str] | None = None) -> pe.CryptoFactory:
    return pe.CryptoFactory(lambda config: XorKms(master_keys, wrapped, failures))


def request_keys(data_keys: Mapping[str, str] = {}) -> dict[str, str]:
    """The master keys as a case sends them (`kms.<id>` -> base64), with a file's data keys (`data_keys`: its
    provenance's `footer` and `column.<path>` -> base64)."""
    return {**{KMS + k: base64.b64encode(v).decode() for k, v in MASTER_KEYS.items()}, **data_keys}


@dataclass
class Decryption:
    """What pyarrow reads an encrypted file with (`properties`), and what holds it together: the factory, which the
    caller keeps until the read ends, as pyarrow's examples do (pyarrow 15 calls the KMS client while it reads, and
    segfaults if the factory that made it is gone), and what the KMS could not unwrap (`failures`: ours)."""

    factory: pe.CryptoFactory
    properties: pe.FileDecryptionProperties
    failures: list[str] = field(default_factory=list)


def decryption(keys: Mapping[str, str]) -> Decryption:
    """A request's keys for pyarrow: its KMS hook holds the master keys (`kms.<id>`)."""
    masters = {k.removeprefix(KMS): base64.b64decode(v, validate=True) for k, v in keys.items() if k.startswith(KMS)}
    failures: list[str] = []
    factory = _factory(masters, failures=failures)
    return Decryption(factory, factory.file_decryption_properties(
        pe.KmsConnectionConfig(), pe.DecryptionConfiguration(cache_lifetime=dt.timedelta(minutes=1))), failures)


def encryption_properties(plaintext_footer: bool, column_keys: Mapping[str, list[str]] | None = ENCRYPTED_COLUMNS,
                          wrapped: dict[str, list[bytes]] | None = None) -> pe.FileEncryptionProperties:
    """The columns of `column_keys` under their master key, the others under the footer key in encrypted footer
    mode and plaintext in plaintext footer mode; every column under the footer key where `column_keys` is None.
    `wrapped` collects the data keys the KMS wraps, under their master key's id."""
    keys = {"uniform_encryption": True} if column_keys is None else {"column_keys": dict(column_keys)}
    config = pe.EncryptionConfiguration(footer_key="footer-key", plaintext_footer=plaintext_footer,
                                        double_wrapping=False, cache_lifetime=dt.timedelta(minutes=1), **keys)
    return _factory(MASTER_KEYS, wrapped).file_encryption_properties(pe.KmsConnectionConfig(), config)


def data_keys(wrapped: Mapping[str, list[bytes]], column_keys: Mapping[str, list[str]] | None) -> dict[str, str]:
    """The data keys a file was written with, as a request names them (`footer`, `column.<path>` -> base64), from
    what the KMS wrapped: one data key per master key, a column key's master key over one column."""
    by_master = {}
    for master, keys in wrapped.items():
        if len(set(keys)) != 1:
            raise ValueError(f"master key {master!r} wrapped {len(set(keys))} data keys: which is whose is unknown")
        by_master[master] = base64.b64encode(keys[0]).decode()
    out = {FOOTER: by_master["footer-key"]}
    for master, columns in (column_keys or {}).items():
        if len(columns) != 1:
            raise ValueError(f"master key {master!r} over {len(columns)} columns: one data key each is unknown")
        out[COLUMN + columns[0]] = by_master[master]
    return out


def read_with_keys(data: bytes) -> pa.Table:
    """What a reader that holds the keys reads (pyarrow with the test KMS); it verifies a plaintext footer's
    signature and every module's GCM tag."""
    held = decryption(request_keys())
    return pq.read_table(io.BytesIO(data), decryption_properties=held.properties)
