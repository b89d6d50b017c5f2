"""The catalog: which cases exist, what each tests, the sentence it rests on, and what
each kind of reader must do with it.

Expectations per role (after nst/JSONTestSuite's y_/n_/i_ and parquet-testing's
shredded_variant cases.json): `read` (exactly the base data), `reject` (an error), `either`
(read correctly or reject). Under every expectation a crash, hang or wrong data fails.

`kind` says what our own strict decoder (generators.footer.parse_file) must conclude:
`golden` decodes; `nonconforming` is valid Thrift that breaks an extension rule; `corrupt`
is not a readable Parquet footer at all.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field

from generators.bases import BASES

PF = "apache/parquet-format"
BPE = f"{PF} BinaryProtocolExtensions.md"
SEED_BPE = "shared/seeds/001 (BinaryProtocolExtensions.md)"


def cite(source: str, section: str, quote: str, seed: str | None = SEED_BPE) -> dict:
    return {"source": source, "section": section, "quote": quote, **({"seed": seed} if seed else {})}


IGNORE = cite(BPE, "Binary Protocol Extensions",
              "Existing readers will ignore these extensions without any modifications")
OVERHEAD = cite(BPE, "Binary Protocol Extensions",
                "Existing readers will ignore the extension bytes with little processing overhead")
FREEFORM = cite(BPE, "Binary Protocol Extensions",
                "The content of the extension is freeform and can be encoded in any format.")
UUID_MUST = cite(BPE, "Binary Protocol Extensions",
                 "implementers which MUST put enough unique state in their extension bytes for disambiguation")
WIRE = cite(BPE, "Binary Protocol Extensions",
            "4 bytes | 08 FF FF 01 (long form header for 32767: binary) / 1-5 bytes | ULEB128(M) encoded size "
            "of the extension / M bytes | extension bytes / 1 byte | \\0 (thrift stop field)")
APPEND = cite(BPE, "Appending extensions to thrift",
              "thrift.back() = '\\x08'; AppendUleb(32767, &thrift); AppendUleb(ext.size(), &thrift); "
              "thrift += ext; thrift += '\\x00';")
ZIGZAG = cite("apache/thrift doc/specs/thrift-compact-protocol.md", "Struct encoding",
              "the field id is encoded as a zigzag int (i16) following the type header byte", seed=None)
RESERVED = cite(f"{PF} README.md", "Binary Protocol Extensions",
                "Parquet Thrift IDL reserves field-id `32767` of every Thrift struct for extensions. "
                "The (Thrift) type of this field is always `binary`.", seed=None)
LAYOUT = cite(f"{PF} README.md", "File Format",
              "4-byte length in bytes of file metadata (little endian) / 4-byte magic number \"PAR1\"", seed=None)
CRITICAL = cite(BPE, "Examples / Footer",
                "guarantees that new readers will not overshoot reading bytes in case of corrupt bits in these "
                "critical 8 bytes of the file")
PROTOTYPES = cite("apache/arrow PR #48431 cpp/src/parquet/metadata3.cc (b3f493b0); apache/arrow-rs PR #9042 "
                  "parquet/src/file/metadata/flatbuf/converter.rs (e776d8a3)", "footer writer",
                  "*p++ = 0x08; WriteLEB128(kFieldId, ...) appended after the serialized FileMetaData", seed=None)
PAR3 = cite(BPE, "Examples / Footer",
            "After the migration period, the end of the Parquet file may look like this: ... 4 bytes | PAR3")
PARE = cite(f"{PF} Encryption.md", "Encrypted footer mode",
            "a new magic string (\"PARE\") in order to ... immediately inform legacy readers (expecting \"PAR1\" "
            "bytes) that they can't parse this file", seed=None)


@dataclass(frozen=True)
class Case:
    id: str
    title: str
    kind: str  # golden | nonconforming | corrupt
    base: str
    transformations: tuple[dict, ...]
    expect: dict[str, str]
    citations: tuple[dict, ...]
    notes: str = ""
    large: bool = False
    # For aware roles: which metadata the reader must use, "flatbuffers", "thrift" or "either".
    decode: dict[str, str] = field(default_factory=dict)

    @property
    def group(self) -> str:
        return self.id.split("/")[0]


def _ext(struct: str, which: int | str = 0, header: str = "zigzag", size: int = 64, kind: str = "random",
         **extra: object) -> dict:
    return {"op": "extend", "struct": struct, "which": which, "header": header,
            "payload_spec": {"kind": kind, "size": size, "uuid": True}, **extra}


HEADER_NOTE = {
    "spec": "Header written as BinaryProtocolExtensions.md writes it (08 FF FF 01); compact readers decode "
            "field id -16384, which they skip like any unknown field. See docs/spec-notes.md#field-header.",
    "zigzag": "Header written as a Thrift compiler writes field 32767 (08 FE FF 03). "
              "See docs/spec-notes.md#field-header.",
}
FORMS = ("spec", "zigzag")
STRUCTS = {  # slug -> (struct, which): the last instance, so that paths reach deep into the footer
    "file-metadata": ("FileMetaData", 0),
    "schema-element": ("SchemaElement", -1),
    "row-group": ("RowGroup", -1),
    "column-chunk": ("ColumnChunk", -1),
    "column-meta-data": ("ColumnMetaData", -1),
    "statistics": ("Statistics", -1),
    "key-value": ("KeyValue", -1),
}
SIZES = {"0B": 0, "1B": 1, "1KiB": 1 << 10, "1MiB": 1 << 20, "16MiB": 16 << 20, "64MiB": 64 << 20,
         "128MiB": 128 << 20}
LARGE = 64 << 20


def _golden() -> list[Case]:
    cases = [Case(f"base/{name}", f"the unmodified base '{name}': {b.description}", "golden", name, (),
                  {"legacy": "read"}, (LAYOUT,), "No extension. An adapter's reading of this file is its baseline: "
                  "docs/spec-notes.md#baseline.") for name, b in BASES.items()]
    for base in BASES:
        for slug, (struct, which) in STRUCTS.items():
            for form in FORMS:
                cases.append(Case(
                    f"ext/{slug}/{base}/{form}-header", f"64-byte extension in the {which}th {struct} of "
                    f"'{base}', {form} header", "golden", base, (_ext(struct, which, form),),
                    {"legacy": "read"}, (IGNORE, WIRE if form == "spec" else ZIGZAG), HEADER_NOTE[form]))
        for form in FORMS:
            cases.append(Case(
                f"ext/page-header/{base}/{form}-header", f"64-byte extension in a PageHeader of '{base}', "
                f"{form} header", "golden", base,
                ({"op": "extend_page_header", "header": form,
                  "payload_spec": {"kind": "random", "size": 64, "uuid": True}},),
                {"legacy": "read"}, (IGNORE, RESERVED),
                HEADER_NOTE[form] + " Placed in the first page header of the last column chunk so that no offset "
                "recorded in the footer moves; the chunk's byte totals grow. See docs/spec-notes.md#page-header."))
    for label, size in SIZES.items():
        for form in FORMS:
            big = size >= LARGE
            cases.append(Case(
                f"ext/size/{label}/{form}-header", f"{label} extension in FileMetaData, {form} header", "golden",
                "flat", (_ext("FileMetaData", 0, form, size),),
                {"legacy": "either" if size > 100_000_000 else "read"}, (IGNORE, OVERHEAD),
                HEADER_NOTE[form] + (" Over the 100 MB default Thrift string limits of Arrow C++ and "
                                     "parquet-java; the spec sets no limit, so rejecting is allowed: "
                                     "docs/spec-notes.md#size-limits." if size > 100_000_000 else ""),
                large=big))
    for form in FORMS:
        cases.append(Case(
            f"ext/payload/non-utf8/{form}-header", "1 KiB of invalid UTF-8 with a trailing UUID", "golden", "flat",
            (_ext("FileMetaData", 0, form, 1024, "non-utf8"),), {"legacy": "read"}, (FREEFORM, IGNORE),
            "Readers that decode Thrift binary as text must not choke on it."))
        cases.append(Case(
            f"ext/payload/non-utf8-schema-element/{form}-header", "invalid UTF-8 extension in a SchemaElement "
            "(whose neighbour `name` is a string)", "golden", "nested",
            (_ext("SchemaElement", 1, form, 100, "non-utf8"),), {"legacy": "read"}, (FREEFORM, IGNORE)))
        cases.append(Case(
            f"ext/multi/four-structs/{form}-header", "extensions in FileMetaData, a RowGroup, a ColumnMetaData and "
            "a SchemaElement at once", "golden", "multi-row-group",
            (_ext("FileMetaData", 0, form), _ext("RowGroup", 1, form, 200), _ext("ColumnMetaData", 4, form, 17),
             _ext("SchemaElement", 2, form, 1000)), {"legacy": "read"}, (IGNORE,)))
        cases.append(Case(
            f"ext/multi/every-struct/{form}-header", "an extension in every struct of the footer", "golden",
            "nested", tuple(_ext(s, "all", form, 20) for s in (
                "FileMetaData", "SchemaElement", "RowGroup", "ColumnChunk", "ColumnMetaData", "Statistics",
                "PageEncodingStats", "SizeStatistics", "KeyValue", "StringType", "ListType", "TypeDefinedOrder")),
            {"legacy": "read"}, (RESERVED, IGNORE),
            "Every struct, including the empty ones inside unions (StringType, ListType, TypeDefinedOrder); "
            "the unions themselves are in ext/union/*."))
        for union, slug in (("LogicalType", "logical-type"), ("ColumnOrder", "column-order")):
            cases.append(Case(
                f"ext/union/{slug}/{form}-header", f"an extension in every {union} union, beside its one set "
                "field", "golden", "nested", (_ext(union, "all", form, 20),), {"legacy": "either"}, (RESERVED,),
                f"{union} is a Thrift union: exactly one field may be set. Whether 'every Thrift struct' includes "
                "unions is unstated, and Thrift runtimes read a second union field differently: "
                "docs/spec-notes.md#unions."))
        cases.append(Case(
            f"ext/multi/every-column-meta-data-wide/{form}-header", "an extension in each of 1000 ColumnMetaData",
            "golden", "wide", (_ext("ColumnMetaData", "all", form, 48),), {"legacy": "read"}, (IGNORE, OVERHEAD)))
    cases.append(Case(
        "ext/multi/mixed-headers", "spec header in FileMetaData, zigzag header in a ColumnMetaData", "golden",
        "flat", (_ext("FileMetaData", 0, "spec"), _ext("ColumnMetaData", 2, "zigzag")), {"legacy": "read"},
        (WIRE, ZIGZAG), HEADER_NOTE["spec"]))
    cases.append(Case(
        "ext/payload/looks-like-tail", "payload that ends like a Parquet tail (stop byte, a length, PAR1) "
        "before its UUID", "golden", "flat",
        ({"op": "extend", "struct": "FileMetaData", "which": 0, "header": "zigzag",
          "payload_spec": {"kind": "hex", "hex": "00" + "08000000" + b"PAR1".hex() + "ff" * 8 + "00" + "10000000"
                           + b"PAR1".hex() + "0123456789abcdef0123456789abcdef"}},),
        {"legacy": "read"}, (FREEFORM,), "A reader that scans backwards for PAR1 must not stop inside payloads."))
    cases.append(Case(
        "ext/payload/no-uuid", "64 random bytes with no disambiguating UUID", "golden", "flat",
        ({"op": "extend", "struct": "FileMetaData", "which": 0, "header": "zigzag",
          "payload_spec": {"kind": "random", "size": 64, "uuid": False}},), {"legacy": "read"}, (UUID_MUST, IGNORE),
        "A writer broke the MUST; readers that do not know the extension are unaffected. No reader can tell a "
        "missing UUID from an unknown one, so the file counts as golden."))
    return cases


def _nonconforming() -> list[Case]:
    cases = []
    for t in ("bool", "i32", "i64", "double", "struct", "list"):
        cases.append(Case(
            f"nonconforming/type/{t}", f"field 32767 in FileMetaData with wire type {t}, not binary",
            "nonconforming", "flat", ({"op": "add_typed_field", "struct": "FileMetaData", "type": t},),
            {"legacy": "read"}, (RESERVED, ZIGZAG),
            "Valid Thrift: a reader that does not know field 32767 skips it by its wire type. An extension-aware "
            "reader must not treat it as an extension."))
    cases.append(Case(
        "nonconforming/type/struct-in-column-meta-data", "field 32767 as a struct inside a ColumnMetaData",
        "nonconforming", "nested",
        ({"op": "add_typed_field", "struct": "ColumnMetaData", "which": -1, "type": "struct"},),
        {"legacy": "read"}, (RESERVED,)))
    for slug, struct in (("file-metadata", "FileMetaData"), ("column-meta-data", "ColumnMetaData")):
        cases.append(Case(
            f"nonconforming/duplicate/{slug}", f"two 32767 fields in one {struct}", "nonconforming", "flat",
            (_ext(struct, 0, "zigzag", 40), _ext(struct, 0, "zigzag", 90)), {"legacy": "read"}, (RESERVED, APPEND),
            "Only one field id is reserved; a second one is valid Thrift that a legacy reader skips. Which one an "
            "aware reader uses is unspecified: docs/spec-notes.md#duplicates."))
    cases.append(Case(
        "nonconforming/duplicate/mixed-headers", "a spec-header and a zigzag-header extension in one FileMetaData",
        "nonconforming", "flat", (_ext("FileMetaData", 0, "spec", 40), _ext("FileMetaData", 0, "zigzag", 40)),
        {"legacy": "read"}, (WIRE, ZIGZAG), "Field ids -16384 and 32767: distinct for Thrift."))
    for form in FORMS:
        cases.append(Case(
            f"nonconforming/placement/after-stop/{form}-header", "extension written after the FileMetaData's stop "
            "byte, followed by a second stop byte, as the Arrow C++ and arrow-rs prototypes write it",
            "nonconforming", "flat",
            ({"op": "extend_after_stop", "header": form,
              "payload_spec": {"kind": "random", "size": 64, "uuid": True}},),
            {"legacy": "either"}, (WIRE, APPEND, PROTOTYPES),
            "The spec replaces the stop byte (`N-1 bytes ... minus \\0`, `thrift.back() = '\\x08'`); the "
            "prototypes keep it and append. A Thrift reader stops at the first stop byte and never sees the field; "
            "whether bytes after the FileMetaData inside the footer length are allowed is unstated: "
            "docs/spec-notes.md#placement."))
    for pad, expect in ((2, "read"), (5, "read"), (6, "either"), (10, "either")):
        cases.append(Case(
            f"nonconforming/uleb/length-{pad}-bytes", f"extension length written as an overlong {pad}-byte ULEB128",
            "nonconforming", "flat", (_ext("FileMetaData", 0, "zigzag", 64, length_pad=pad),), {"legacy": expect},
            (WIRE,), "The spec allows 1-5 bytes for the size; a padded LEB128 within 5 bytes is still ULEB128. "
            "Beyond 5 bytes Thrift decoders differ (C++ reads up to 10, others stop at 5)." if pad > 5 else
            "The spec allows 1-5 bytes for the size; a padded LEB128 is still ULEB128."))
    return cases


def _corrupt() -> list[Case]:
    cases = []
    for bit in (0, 1, 4, 9):
        cases.append(Case(
            f"corrupt/footer-length/bit-{bit}-within-file", f"footer length with bit {bit} flipped, still inside "
            "the file", "corrupt", "flat", ({"op": "flip_footer_length_bit", "bit": bit},), {"legacy": "either"},
            (LAYOUT, CRITICAL), "The metadata no longer starts where the length says. A reader without a checksum "
            "may still find valid metadata; it must never return other data."))
    for bit in (16, 20, 24, 30, 31):
        cases.append(Case(
            f"corrupt/footer-length/bit-{bit}-before-start", f"footer length with bit {bit} flipped, pointing "
            "before the start of the file", "corrupt", "flat", ({"op": "flip_footer_length_bit", "bit": bit},),
            {"legacy": "reject"}, (LAYOUT, CRITICAL)))
    for label, step, title in (
            ("zero", {"value": 0}, "0"), ("max", {"value": 0xFFFFFFFF}, "0xFFFFFFFF"),
            ("at-head-magic", {"file_size_minus": 8}, "file size - 8 (metadata would start at the head magic)"),
            ("at-first-page", {"file_size_minus": 12}, "file size - 12 (metadata would start at the first page "
                                                       "header, itself valid Thrift)")):
        cases.append(Case(f"corrupt/footer-length/{label}", f"footer length set to {title}", "corrupt", "flat",
                          ({"op": "set_footer_length", **step},), {"legacy": "reject"}, (LAYOUT,)))
    for struct, slug in (("FileMetaData", "file-metadata"), ("Statistics", "statistics")):
        cases.append(Case(
            f"corrupt/extension/overshoots-footer/{slug}", f"extension in {struct} whose length claims 1000 bytes "
            "more than the footer holds", "corrupt", "flat", (_ext(struct, 0, "zigzag", 64, declared_length=1064),),
            {"legacy": "reject"}, (WIRE,)))
        cases.append(Case(
            f"corrupt/extension/truncated/{slug}", f"extension in {struct} one byte shorter than its length "
            "(the length swallows the stop field)", "corrupt", "flat",
            (_ext(struct, 0, "zigzag", 64, declared_length=65),), {"legacy": "reject"}, (WIRE,)))
    cases.append(Case(
        "corrupt/extension/length-2gib", "extension length of 2^31 - 1 in FileMetaData", "corrupt", "flat",
        (_ext("FileMetaData", 0, "zigzag", 64, declared_length=2 ** 31 - 1),), {"legacy": "reject"}, (WIRE,),
        "A reader must not allocate the claimed size before checking it against the footer."))
    cases.append(Case(
        "corrupt/extension/length-over-32-bits", "extension length of 2^35 (does not fit the 1-5 byte, 32-bit size)",
        "corrupt", "flat", (_ext("FileMetaData", 0, "zigzag", 64, declared_length=2 ** 35),), {"legacy": "reject"},
        (WIRE,)))
    for struct, slug in (("FileMetaData", "file-metadata"), ("ColumnMetaData", "column-meta-data"),
                         ("SchemaElement", "schema-element")):
        for form in FORMS:
            cases.append(Case(
                f"corrupt/extension/missing-stop/{slug}/{form}-header", f"extension in {struct} with the stop "
                "field after it removed", "corrupt", "flat", (_ext(struct, 0, form, 64, drop_stop=True),),
                {"legacy": "reject"}, (WIRE, APPEND)))
    for magic, cite_ in (("PAR3", PAR3), ("PARX", LAYOUT), ("PARE", PARE)):
        cases.append(Case(
            f"corrupt/tail/{magic}-on-thrift-footer", f"a Thrift footer with tail magic {magic}", "corrupt", "flat",
            (_ext("FileMetaData", 0, "zigzag", 64), {"op": "set_tail_magic", "magic": magic}), {"legacy": "reject"},
            (cite_, LAYOUT), "A legacy reader checks the tail magic before anything else."))
    for fraction in (0.0, 0.5, 0.99):
        cases.append(Case(
            f"corrupt/truncated/footer-{int(fraction * 100)}pct", f"file cut inside its footer ({fraction:.0%} of "
            "the footer kept)", "corrupt", "flat", ({"op": "truncate_in_footer", "fraction": fraction},),
            {"legacy": "reject"}, (LAYOUT,)))
    cases.append(Case(
        "corrupt/truncated/inside-extension", "file cut in the middle of a 1 KiB extension", "corrupt", "flat",
        (_ext("FileMetaData", 0, "zigzag", 1024), {"op": "truncate_in_footer", "fraction": 0.8}),
        {"legacy": "reject"}, (LAYOUT, WIRE)))
    for label, hexdata in (("empty", ""), ("magic-only", b"PAR1".hex()), ("8-bytes", (b"PAR1" * 2).hex()),
                           ("12-bytes-zero-length", (b"PAR1" + bytes(4) + b"PAR1").hex())):
        cases.append(Case(f"corrupt/tiny/{label}", f"a {len(hexdata) // 2}-byte file", "corrupt", "flat",
                          ({"op": "replace_file", "hex": hexdata},), {"legacy": "reject"}, (LAYOUT,)))
    return cases


FOOTER = cite(BPE, "Examples / Footer",
              "K bytes | Flatbuffers representation (v0) of FileMetaData / 4 bytes | little-endian crc32(flatbuffer) "
              "/ 4 bytes | little-endian size(flatbuffer) / 4 bytes | little-endian crc32(size(flatbuffer)) / "
              "16 bytes | some-UUID", seed="shared/seeds/001, 003")
REVERSE = cite(BPE, "Examples / Footer",
               "It is put at the end to allow detection of the extension when parsed in reverse.",
               seed="shared/seeds/001, 003")
MIGRATION = cite(BPE, "Examples / Footer", "For the next N years writers will write both the Thrift and the "
                 "flatbuffer FileMetaData ... 16 bytes | some-other-UUID", seed="shared/seeds/001, 003")
FINAL = cite(BPE, "Examples / Footer", "After the migration period, the end of the Parquet file may look like this: "
             "... 4 bytes | PAR3", seed="shared/seeds/001, 003")
CRC_META = cite(BPE, "Examples / Footer", "The crc32 of the flatbuffer representation enhances Parquet to have "
                "crc32 for metadata as well", seed="shared/seeds/001, 003")
PROTOTYPE_TRAILER = cite("apache/arrow PR #48431 cpp/src/parquet/metadata3.cc (b3f493b0); apache/arrow-rs PR #9042 "
                         "(e776d8a3)", "footer writer", "compressed flatbuffer | codec | crc32 | compressed_len | "
                         "raw_len | crc32(lens) | UUID de ad be ef x4", seed=None)
SCHEMA_544 = cite("apache/parquet-format PR #544 src/main/flatbuf/parquet.fbs (c938fc70)", "root_type FileMetaData",
                  "table FileMetaData { version: int; schema: [SchemaElement]; num_rows: long; row_groups: [RowGroup]; "
                  "... }", seed=None)


def _fb(profile: str, **params: object) -> dict:
    return {"op": "add_flatbuffer_footer", "profile": profile, **params}


def _flatbuffers() -> list[Case]:
    """FlatBuffers FileMetaData footers: the "Examples / Footer" half of the spec."""
    se, mig, ap, p3 = "aware:spec-example", "aware:migration", "aware:arrow-prototype", "aware:par3"
    cases = []
    for base in BASES:
        for form in FORMS:
            cases.append(Case(
                f"fb/spec-example/{base}/{form}-header", f"FlatBuffers FileMetaData of '{base}' in the private "
                f"form (spec layout, CRC-32 zlib), {form} header", "golden", base, (_fb("spec-example", header=form),),
                {"legacy": "read", se: "read"}, (FOOTER, REVERSE, SCHEMA_544), HEADER_NOTE[form],
                decode={se: "flatbuffers"}))
        cases.append(Case(
            f"fb/migration/{base}", f"Thrift and FlatBuffers FileMetaData of '{base}' with the ratified UUID",
            "golden", base, (_fb("migration"),), {"legacy": "read", mig: "read"}, (MIGRATION, SCHEMA_544),
            decode={mig: "flatbuffers"}))
        cases.append(Case(
            f"fb/par3/{base}", f"the final form: only a FlatBuffers FileMetaData of '{base}', ending in PAR3",
            "golden", base, (_fb("par3"),), {"legacy": "reject", p3: "read"}, (FINAL, SCHEMA_544),
            "No Thrift footer: legacy readers must reject the PAR3 tail. The head magic stays PAR1, which the "
            "spec does not say: docs/spec-notes.md#par3.", decode={p3: "flatbuffers"}))
        cases.append(Case(
            f"fb/arrow-prototype/{base}", f"the Arrow C++/arrow-rs prototype trailer for '{base}', placed as they "
            "place it (after the stop byte, spec header)", "nonconforming", base,
            (_fb("arrow-prototype", placement="after-stop"),), {"legacy": "either", ap: "read"},
            (PROTOTYPE_TRAILER, PROTOTYPES), "See docs/spec-notes.md#placement.", decode={ap: "flatbuffers"}))
    for form in FORMS:
        cases.append(Case(
            f"fb/spec-example/crc-castagnoli/{form}-header", "the private form with CRC-32C (Castagnoli) instead of "
            "the zlib CRC-32", "golden", "flat", (_fb("spec-example", header=form, crc="castagnoli"),),
            {"legacy": "read", se: "read"}, (FOOTER, CRC_META),
            "The spec says crc32 without naming the polynomial. Read with zlib's CRC-32 the checks fail and the "
            "reader falls back to Thrift; read with CRC-32C they pass: docs/spec-notes.md#crc32.",
            decode={se: "either"}))
    cases.append(Case(
        "fb/arrow-prototype/lz4-raw", "the prototype trailer with an LZ4_RAW-compressed flatbuffer (codec 7)",
        "nonconforming", "flat", (_fb("arrow-prototype", placement="after-stop", codec=7),),
        {"legacy": "either", ap: "read"}, (PROTOTYPE_TRAILER,), decode={ap: "flatbuffers"}))
    cases.append(Case(
        "fb/arrow-prototype/in-struct", "the prototype trailer placed as the spec places extensions (in place of "
        "the stop byte)", "golden", "flat", (_fb("arrow-prototype"),), {"legacy": "read", ap: "read"},
        (PROTOTYPE_TRAILER, APPEND), decode={ap: "flatbuffers"}))
    damages = [("flatbuffer-byte", 0, "a flipped bit inside the flatbuffer (its CRC no longer matches)"),
               ("flatbuffer-crc", 3, "a flipped bit in crc32(flatbuffer)"),
               ("size-crc", 5, "a flipped bit in crc32(size)")]
    damages += [("size-bit", b, f"bit {b} of the size flipped (crc32(size) no longer matches)") for b in (0, 9, 20, 31)]
    damages += [("unverifiable", 0, "a root offset past the end, with both CRCs valid: fails FlatBuffers verification"),
                ("huge-size", 0, "a size beyond the file, with a valid crc32(size)")]
    for what, bit, title in damages:
        slug = f"{what}-{bit}" if what == "size-bit" else what
        cases.append(Case(
            f"fb/spec-example/damaged/{slug}", f"private form with {title}", "golden", "flat",
            (_fb("spec-example"), {"op": "damage_flatbuffer_footer", "what": what, "bit": bit}),
            {"legacy": "read", se: "read"}, (CRITICAL, CRC_META, REVERSE),
            "The Thrift footer is intact: an aware reader must notice, ignore the FlatBuffers footer and read "
            "the Thrift one, never overshoot or trust it: docs/spec-notes.md#fallback.", decode={se: "thrift"}))
        if what in ("flatbuffer-byte", "size-crc", "unverifiable", "huge-size") or (what, bit) == ("size-bit", 31):
            cases.append(Case(
                f"fb/par3/damaged/{slug}", f"PAR3 file with {title}", "corrupt", "flat",
                (_fb("par3"), {"op": "damage_flatbuffer_footer", "what": what, "bit": bit}),
                {"legacy": "reject", p3: "reject"}, (FINAL, CRITICAL),
                "No Thrift footer to fall back to: reject, without reading outside the file."))
    cases.append(Case(
        "fb/spec-example/unknown-uuid", "the private layout under a UUID no reader knows", "golden", "flat",
        (_fb("spec-example", uuid_hex="00112233445566778899aabbccddeeff"),), {"legacy": "read", se: "read"},
        (UUID_MUST, REVERSE), "An aware reader must ignore an extension whose UUID it does not know.",
        decode={se: "thrift"}))
    cases.append(Case(
        "fb/spec-example/disagrees/num-rows", "FlatBuffers FileMetaData whose num_rows is one less than its row "
        "groups hold (the Thrift footer is right)", "golden", "flat",
        (_fb("spec-example", metadata_edits=({"path": "FileMetaData", "field": 3, "delta": -1},)),),
        {"legacy": "read", se: "read"}, (FOOTER,),
        "Internally inconsistent: an aware reader can tell and must fall back to Thrift.", decode={se: "thrift"}))
    cases.append(Case(
        "fb/spec-example/disagrees/column-offset", "FlatBuffers FileMetaData whose first column's data_page_offset "
        "is 1 byte off (the Thrift footer is right)", "golden", "flat",
        (_fb("spec-example", metadata_edits=({"path": "row_groups[0].columns[0].meta_data", "field": 9,
                                              "delta": 1},)),),
        {"legacy": "read", se: "either"}, (FOOTER,),
        "Consistent in itself, so an aware reader that does not parse the Thrift footer cannot tell: it may "
        "fail to decode the page or fall back, never return other data: docs/spec-notes.md#fallback.",
        decode={se: "either"}))
    return cases


ENCODING = cite(BPE, "Examples / Encoding", "The extension stores offsets in the Parquet file where the new and "
                "duplicate encoded data for this column lives. The new writer carefully places all the new encodings "
                "at the start of the row group and all the old encodings at the end of the row group.",
                seed="shared/seeds/001")


def _encodings() -> list[Case]:
    enc = "aware:encoding"
    cases = []
    for base, columns in (("flat", ["f64", "f32"]), ("multi-row-group", ["value"])):
        for form in FORMS:
            cases.append(Case(
                f"enc/byte-stream-split/{base}/{form}-header", f"columns {', '.join(columns)} of '{base}' also as "
                "BYTE_STREAM_SPLIT at the start of each row group, PLAIN after, offsets in a ColumnMetaData "
                "extension", "golden", base,
                ({"op": "add_encoding_extension", "columns": columns, "header": form},),
                {"legacy": "read", enc: "read"}, (ENCODING, IGNORE),
                "Legacy readers read the PLAIN chunks the footer points at; an aware reader reads the new ones. "
                "The extension layout (u64 offset | u64 length | i32 encoding | UUID) is ours: the spec gives none. "
                + HEADER_NOTE[form]))
    cases.append(Case(
        "enc/byte-stream-split/bad-offset", "encoding extensions that point past the end of the file", "golden",
        "flat", ({"op": "add_encoding_extension", "columns": ["f64"], "bad_offset": True},),
        {"legacy": "read", enc: "read"}, (ENCODING,),
        "An aware reader must check the offsets and read the old encoding instead."))
    return cases


def all_cases() -> list[Case]:
    cases = _golden() + _nonconforming() + _corrupt() + _flatbuffers() + _encodings()
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    return cases


def matches(case_id: str, only: str | None) -> bool:
    """`only`: globs over case ids, comma-separated (`base/*,corrupt/*`); None matches all."""
    return only is None or any(fnmatch.fnmatch(case_id, p.strip()) for p in only.split(","))


def select_cases(only: str | None = None, large: bool = False) -> list[Case]:
    """Large cases need `large`."""
    return [c for c in all_cases() if (large or not c.large) and matches(c.id, only)]
