"""The PARX footer of apache/parquet-format PR #588 (draft, open; generators/parquet/parx.py): golden files in that
form, which a reader of today's spec must reject (their tail magic is not PAR1) and an aware reader reads, and the
damage an aware reader must catch: the length, the CRC, flags it does not know or support (issue 23, item 1).

The `aware:parx` role is a reader that implements the proposal (the reference reader, without keys: it supports
PATH_IN_SCHEMA_OMITTED, not ENCRYPTED_FOOTER). Where the proposal leaves a choice (a negative or 2^31-or-more
metadata_len, the head magic), both readings are in docs/spec-notes.md#parx."""

from __future__ import annotations

from parquet_conformance.corpus.model import Case, Level
from parquet_conformance.corpus.parquet.catalog.common import LAYOUT, MAGIC, PF, RECOVERY, cite
from parquet_conformance.generators.parquet import parx
from parquet_conformance.generators.parquet.mutations.fields import RemoveFields
from parquet_conformance.generators.parquet.mutations.tail import DamageParxTail, ToParx

RFC = f"{PF} PR #588 ParxMagicNumber.md (d2f51623)"  # a proposal's head: its sentences' force is at most policy
PARX_LAYOUT = cite(RFC, "File Layout", "A PARX file has the same overall structure as a standard Parquet file, with "
                   "two differences: the leading and trailing magic bytes are `PARX` instead of `PAR1/PARE`, and the "
                   "trailing footer is 16 bytes instead of 8.", seed=None, level=Level.POLICY)
PARX_TAIL = cite(RFC, "PARX Footer Tail — 16 bytes", "metadata_len i32 LE 0 | flags u32 LE 4 | crc32 u32 LE 8 | magic "
                 "[u8; 4] 12: Always the bytes P A R X", seed=None, level=Level.POLICY)
FLAGS = cite(RFC, "Feature Flags", "A reader **must** reject any file whose `flags` field contains bits that are not "
             "recognized or not supported ... All other bits are reserved and must be zero.", seed=None,
             level=Level.POLICY)
PATH_FLAG = cite(RFC, "Feature Flags", "1 | `PATH_IN_SCHEMA_OMITTED` | Column `path_in_schema` fields are omitted from "
                 "ColumnChunk metadata (this was a previously required field).", seed=None, level=Level.POLICY)
ENCRYPTED_FLAG = cite(RFC, "Feature Flags", "0 | ENCRYPTED_FOOTER | The `FileMetaData` block is encrypted (equivalent "
                      "to the `PARE` format).", seed=None, level=Level.POLICY)
CRC = cite(RFC, "Integrity Check", "CRC-32 (ISO 3309 / ITU-T V.42 polynomial, the same used for page level CRC "
           "values) computed over ... 1. The raw `FileMetaData`/`Footer` bytes ... 2. The first 8 bytes of the footer "
           "tail (metadata_len and flags bitmap)", seed=None, level=Level.POLICY)
ORDER = cite(RFC, "Integrity Check", "A reader should verify the checksum **before** decrypting the footer, and "
             "**after** validating the feature flags", seed=None, level=Level.POLICY)
REQUIRED_PATH = cite(f"{PF} src/main/thrift/parquet.thrift (24102ed5)", "struct ColumnMetaData",
                     "3: required list<string> path_in_schema", seed=None, level=Level.MUST)
PROTOTYPE = cite("apache/arrow-rs PR #10177 parquet/src/file/metadata/footer_tail.rs (d5ed8a70)", "try_new_parx",
                 "let metadata_len = u32::from_le_bytes(slice[0..4].try_into().unwrap()); ... Flags are checked "
                 "before CRC", seed=None, level=Level.POLICY)
LEGACY = ("A reader of today's spec reads the last 8 bytes and finds `PARX` where the README's layout has `PAR1`: "
          "it must reject the file, as the proposal intends.")
PARX = "aware:parx"
# The sentences that require each expectation (docs/spec-notes.md#expectations): a legacy reader rejects a tail that
# is not PAR1 (Encryption.md 5.4); an aware reader reads the framing the proposal defines, with the flags it
# supports, and rejects unknown flags ("must") and a length that delimits no FileMetaData (README, Error recovery).
# The CRC has only "should verify" behind it: a mismatch alone is `either` (docs/spec-notes.md#parx-crc).
NOT_PAR1 = MAGIC.requiring("legacy")
READS_PARX = PARX_LAYOUT.requiring(PARX)
READS_PATHS = PATH_FLAG.requiring(PARX)
UNKNOWN_FLAGS = FLAGS.requiring(PARX)
LOST = RECOVERY.requiring(PARX)
BASES = ("flat", "nested", "dictionary", "page-index")
OMIT = RemoveFields(struct="ColumnMetaData", fields=("path_in_schema",), which="all")


def cases() -> list[Case]:
    out = [Case(
        id=f"parx/golden/{base}", title=f"'{base}' in the PARX framing (no flags)", kind="golden", base=base,
        mutations=(ToParx(),), expect={"legacy": "reject", PARX: "read"},
        citations=(READS_PARX, PARX_TAIL, CRC, LAYOUT, NOT_PAR1),
        notes=f"{LEGACY} An aware reader checks the flags (none) and the CRC, then reads the Thrift footer.",
        decode={PARX: "thrift"},
    ) for base in BASES]
    out += [Case(
        id=f"parx/path-in-schema-omitted/{base}", title=f"'{base}' in the PARX framing, every ColumnMetaData "
        "without path_in_schema and flag bit 1 (PATH_IN_SCHEMA_OMITTED) set", kind="golden", base=base,
        mutations=(OMIT, ToParx(flags=parx.PATH_IN_SCHEMA_OMITTED)), expect={"legacy": "reject", PARX: "read"},
        citations=(READS_PATHS, PARX_TAIL, CRC, LAYOUT, NOT_PAR1),
        notes=f"{LEGACY} An aware reader takes each chunk's path from the schema (leaf j is chunk j of every row "
        "group); parquet.thrift still declares the field required, which the flag overrides.",
        decode={PARX: "thrift"},
    ) for base in ("flat", "nested")]
    out.append(Case(
        id="parx/path-in-schema-omitted-without-flag", title="'flat' in the PARX framing without path_in_schema, "
        "flag bit 1 not set", kind="nonconforming", base="flat", mutations=(OMIT, ToParx()),
        expect={"legacy": "reject", PARX: "either"}, citations=(REQUIRED_PATH, PATH_FLAG, LAYOUT, NOT_PAR1),
        notes=f"{LEGACY} Without the flag a required field is missing: an aware reader may reject it, or take the "
        "paths from the schema as the flag would have let it (docs/spec-notes.md#parx)."))
    out.append(Case(
        id="parx/head-magic-par1", title="'flat' in the PARX framing but with PAR1 at the head", kind="nonconforming",
        base="flat", mutations=(ToParx(head_magic="PAR1"),), expect={"legacy": "reject", PARX: "either"},
        citations=(PARX_LAYOUT, LAYOUT, NOT_PAR1),
        notes=f"{LEGACY} The proposal puts PARX at both ends; readers read from the tail, and nothing obliges an aware "
        "one to look at the head (docs/spec-notes.md#head-magic)."))
    damage = [
        ("metadata-len-bit-0", DamageParxTail(field="metadata_len", xor=1),
         "metadata_len with bit 0 flipped: the CRC, which covers it, no longer matches", (PARX_TAIL, CRC, LOST)),
        ("metadata-len-bit-20", DamageParxTail(field="metadata_len", xor=1 << 20),
         "metadata_len with bit 20 flipped: past the start of the file", (PARX_TAIL, CRC, LOST)),
        ("metadata-len-negative", DamageParxTail(field="metadata_len", xor=1 << 31),
         "metadata_len with bit 31 set: negative as the proposal's i32, 2^31 or more as the prototype's u32",
         (PARX_TAIL, PROTOTYPE, LOST)),
        ("crc-bit-0", DamageParxTail(field="crc", xor=1), "the crc32 with bit 0 flipped", (CRC,)),
        ("crc-castagnoli", None, "a CRC-32C (Castagnoli) where the proposal has the ISO 3309 CRC-32", (CRC,)),
        ("reserved-flag-bit-2", DamageParxTail(field="flags", xor=1 << 2, recrc=True),
         "flag bit 2 (reserved) set, the CRC right for it", (UNKNOWN_FLAGS, ORDER)),
        ("reserved-flag-bit-31", DamageParxTail(field="flags", xor=1 << 31, recrc=True),
         "flag bit 31 (reserved) set, the CRC right for it", (UNKNOWN_FLAGS, ORDER)),
        ("encrypted-flag-on-plaintext", None, "flag bit 0 (ENCRYPTED_FOOTER) on a footer that is not encrypted, the "
         "CRC right for it", (ENCRYPTED_FLAG, UNKNOWN_FLAGS, ORDER)),
    ]
    for slug, step, what, citations in damage:
        if slug == "crc-castagnoli":
            steps: tuple = (ToParx(crc="castagnoli"),)
        elif slug == "encrypted-flag-on-plaintext":
            steps = (ToParx(flags=parx.ENCRYPTED_FOOTER),)
        else:
            steps = (ToParx(), step)
        out.append(Case(
            id=f"parx/corrupt/{slug}", title=f"'flat' in the PARX framing with {what}", kind="corrupt", base="flat",
            mutations=steps, expect={"legacy": "reject", PARX: "either" if slug in CRC_ONLY else "reject"},
            citations=(*citations, LAYOUT, NOT_PAR1), notes=f"{LEGACY} {_WHY[slug]}"))
    return out


# Damage only the CRC sees: the footer is intact, and the proposal's reader "should verify" the checksum, which does
# not oblige one (docs/spec-notes.md#parx-crc).
CRC_ONLY = {"crc-bit-0", "crc-castagnoli"}
MUST = "An aware reader must reject it too: "
_WHY = {
    "metadata-len-bit-0": f"{MUST}the length delimits no FileMetaData, and the CRC over the footer and the "
    "tail's first 8 bytes does not match.",
    "metadata-len-bit-20": f"{MUST}the length reaches past the start of the file (and the CRC would not match).",
    "metadata-len-negative": f"{MUST}under either reading of the length's type it is outside the file; the two differ "
    "only for files of 2 GiB or more (docs/spec-notes.md#parx).",
    "crc-bit-0": "The CRC does not match an intact footer: an aware reader that verifies it (\"should\") rejects the "
    "file, one that does not reads the base data (docs/spec-notes.md#parx-crc).",
    "crc-castagnoli": "The proposal names its polynomial (unlike the FlatBuffers footer's crc32: "
    "docs/spec-notes.md#crc32), so a reader computing CRC-32 finds a mismatch; the footer is intact, so whether it "
    "rejects depends on whether it verifies (\"should\", docs/spec-notes.md#parx-crc).",
    "reserved-flag-bit-2": f"{MUST}the flags are checked before the CRC, and an unknown bit means reject.",
    "reserved-flag-bit-31": f"{MUST}the flags are checked before the CRC, and an unknown bit means reject.",
    "encrypted-flag-on-plaintext": f"{MUST}a reader that does not support encryption rejects the flag; one that does "
    "cannot decrypt a footer that was never encrypted.",
}
