"""Encrypted files (Parquet modular encryption, committed fixtures written by pyarrow with the test KMS of
generators/parquet/encryption.py) and extensions in their plaintext structs: the FileCryptoMetaData of an
encrypted footer (PARE), the signed plaintext footer. A legacy reader has no key: it must reject both files (the
PARE magic; the encrypted `name` column). The keys are in the repository, and tests/test_encryption.py reads every
case with them."""

from __future__ import annotations

from parquet_conformance.corpus.model import Case, Level
from parquet_conformance.corpus.parquet.catalog.common import FORMS, HEADER_NOTE, MAGIC, PF, RESERVED, cite, ext

ENC = f"{PF} Encryption.md (24102ed5)"
PARE = MAGIC.requiring("legacy")  # "inform legacy readers (expecting "PAR1" bytes) that they can't parse this file"
PLAINTEXT = cite(ENC, "5.5 Plaintext footer mode", "A legacy reader, trying to access a sensitive column data in an "
                 "encrypted file with a plaintext footer, will get an exception. More specifically, a Thrift parsing "
                 "exception on an encrypted page header structure.", seed=None, level=Level.MUST)
SIGNED = cite(ENC, "5.5 Plaintext footer mode", "The plaintext footer is signed in order to prevent tampering with "
              "the `FileMetaData` contents.", seed=None, level=Level.MUST)
NOTE = ("Legacy readers read whole files here, so the file's encrypted column makes them reject it (a projection "
        "without `name` is readable: docs/spec-notes.md#encryption).")


def cases() -> list[Case]:
    out = []
    for slug, struct, which in (("file-crypto-meta-data", "FileCryptoMetaData", 0), ("aes-gcm-v1", "AesGcmV1", 0)):
        for form in FORMS:
            out.append(Case(
                id=f"enc-files/encrypted-footer/{slug}/{form}-header",
                title=f"64-byte extension in the plaintext {struct} before an encrypted footer (PARE), {form} header",
                kind="golden", base="encrypted-footer", mutations=(ext(struct, which, form),),
                expect={"legacy": "reject"}, citations=(PARE, RESERVED),
                notes=f"{HEADER_NOTE[form]} The FileCryptoMetaData is neither encrypted nor signed, so a reader with "
                      "the keys must still read the file (checked with pyarrow); a legacy one must reject it."))
    out.append(Case(
        id="enc-files/encrypted-footer/encryption-algorithm-union",
        title="an extension in the EncryptionAlgorithm union of the FileCryptoMetaData, beside its one set field",
        kind="nonconforming", base="encrypted-footer", mutations=(ext("EncryptionAlgorithm", 0, "zigzag"),),
        expect={"legacy": "reject"}, citations=(PARE, RESERVED),
        notes="Legacy readers reject the PARE file whatever its unions hold (docs/spec-notes.md#unions)."))
    for slug, struct in (("file-metadata", "FileMetaData"), ("aes-gcm-v1", "AesGcmV1"),
                         ("encryption-with-column-key", "EncryptionWithColumnKey"),
                         ("column-meta-data", "ColumnMetaData")):
        out.append(Case(
            id=f"enc-files/plaintext-footer/{slug}",
            title=f"64-byte extension in the {struct} of a signed plaintext footer: the signature no longer matches",
            kind="golden", base="plaintext-footer", mutations=(ext(struct, 0, "zigzag"),),
            expect={"legacy": "reject"}, citations=(SIGNED, PLAINTEXT.requiring("legacy"), RESERVED),
            notes=f"A writer that extends a signed footer must sign it again; this one did not, so a reader with the "
                  f"keys that checks the signature must reject it (pyarrow does). {NOTE}"))
    return out
