"""The Parquet track's word on files other writers write (corpus/track.py Writable): each rule the strict decoder
finds broken, cited to the sentence it breaks; the data read back against the table the writer was given; and the
variants readers are given: the file as written, and with field 32767 added in every footer struct and in every
struct outside the footer (as corpus/parquet/catalog/writers.py does to the committed fixtures).

What a reader must do with a written file: `read` where the strict decoder has nothing to object to (`either` where
it needs a codec other than UNCOMPRESSED, which the spec lets a reader lack), `either` where the writer broke a rule
(the finding's sentence says why a reader may refuse it), `reject` where no Thrift reader decodes the footer. Its
data is the table's where the writer kept it; where the writer changed it (a writer verdict of its own), readers are
judged on what the file holds, as the reference reads it; where nothing reads it back, on read versus reject only.
Extensions are added to files the strict decoder accepts alone: on a nonconforming file the variant says nothing
more than the file as written.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

from parquet_conformance.corpus.model import Citation, Expectation, Kind, Level, WriterFinding
from parquet_conformance.corpus.parquet.catalog.common import (
    CODEC_SUPPORT,
    IGNORE,
    README,
    RECOVERY,
    RESERVED,
    THRIFT_IDL,
    THRIFT_SPEC,
    cite,
)
from parquet_conformance.corpus.parquet.catalog.unions import IDL as UNION_IDL
from parquet_conformance.corpus.parquet.catalog.writers import UNION_NAMES, UNIONS
from parquet_conformance.corpus.track import Written, WrittenVariant
from parquet_conformance.generators.parquet import written
from parquet_conformance.generators.parquet.footer import SCHEMA, Problem
from parquet_conformance.generators.parquet.mutations import apply
from parquet_conformance.generators.parquet.mutations.extension import Extend, Payload
from parquet_conformance.generators.parquet.mutations.pages import ExtendPageLevel

PAGE_INDEX_MD = "apache/parquet-format PageIndex.md (24102ed5)"


def _idl(section: str, quote: str) -> Citation:
    return cite(THRIFT_IDL, section, quote, seed=None, level=Level.MUST)


# rule (generators/parquet/footer.py, layout.py) -> the sentence it enforces. `required`, `wire-type`, `range` and
# `enum` findings cite the declaration of the very field instead (field_citation).
RULES: dict[str, Citation] = {
    "footer": RECOVERY,
    "head-magic": cite(README, "File format", '4-byte magic number "PAR1" / <Column 1 Chunk 1> ... File Metadata / '
                       '4-byte length in bytes of file metadata (little endian) / 4-byte magic number "PAR1"',
                       seed=None, level=Level.MUST),
    "after-stop": cite(THRIFT_SPEC, "Struct", "A *Struct* is a sequence of zero or more fields, followed by a stop "
                       "field.", seed=None, level=Level.MUST),
    "trailing-bytes": cite(README, "File format", "4-byte length in bytes of file metadata (little endian)",
                           seed=None, level=Level.MUST),
    "varint": cite(THRIFT_SPEC, "Integer encoding", "Var ints take 1 to 5 bytes (int32) or 1 to 10 bytes (int64).",
                   seed=None, level=Level.MUST),
    "stop": cite(THRIFT_SPEC, "Struct", "A *Struct* is a sequence of zero or more fields, followed by a stop field.",
                 seed=None, level=Level.MUST),
    "extension": RESERVED,
    "duplicate": cite(THRIFT_SPEC, "Struct", "A *Struct* is a sequence of zero or more fields, followed by a stop "
                      "field. Each field starts with a field header and is followed by the encoded field value.",
                      seed=None, level=Level.MUST),
    "union": UNION_IDL,
    "columns": cite(README, "Glossary", "A row group consists of a column chunk for each column in the dataset.",
                    seed=None, level=Level.MUST),
    "chunk-outside": _idl("struct ColumnMetaData", "Byte offset from beginning of file to first data page ... "
                          "total byte size of all compressed, and potentially encrypted, pages in this column chunk "
                          "(including the headers)"),
    "chunk-overlap": cite(README, "Column chunks", "Column chunks are composed of pages written back to back.",
                          seed=None, level=Level.MUST),
    "num-rows": _idl("struct FileMetaData, struct RowGroup", "Number of rows in this file ... Number of rows in this "
                     "row group"),
    "statistics": _idl("struct Statistics", "Lower and upper bound values for the column, determined by its "
                       "ColumnOrder."),
    "page": cite(README, "Column chunks", "Column chunks are composed of pages written back to back.  The pages "
                 "share a common header and readers can skip over pages they are not interested in.", seed=None,
                 level=Level.MUST),
    "crc": _idl("PageHeader.crc", "The CRC is computed on the serialization binary representation of the page (as "
                "written to disk), excluding the page header."),
    "page-offset": _idl("struct ColumnMetaData", "Byte offset from beginning of file to first data page ... Byte "
                        "offset from the beginning of file to first (only) dictionary page"),
    "page-index": _idl("struct PageLocation, struct OffsetIndex", "Index within the RowGroup of the first row of the "
                       "page. ... It is required that page_locations[i].first_row_index < "
                       "page_locations[i+1].first_row_index."),
    "v2-rows": _idl("struct DataPageHeaderV2, struct RowGroup", "Number of rows in this data page. Every page must "
                    "begin at a row boundary (repetition_level = 0): rows must **not** be split across page "
                    "boundaries when using V2 data pages. ... Number of rows in this row group"),
    "utf8": cite("apache/parquet-format LogicalTypes.md (24102ed5)", "STRING", "`STRING` may only be used to annotate "
                 "the `BYTE_ARRAY` primitive type and indicates that the byte array should be interpreted as a UTF-8 "
                 "encoded character string.", seed=None, level=Level.MUST),
    "bloom-filter": _idl("ColumnMetaData.bloom_filter_length", "Size of Bloom filter data including the serialized "
                         "header, in bytes."),
}
WIRE_TYPES = cite(THRIFT_SPEC, "Struct encoding", "The field header contains the field id and the field type.",
                  seed=None, level=Level.MUST)
ENUM_VALUES = _idl("enum Type, ConvertedType, FieldRepetitionType, Encoding, CompressionCodec, PageType",
                   "BOOLEAN = 0; ... FIXED_LEN_BYTE_ARRAY = 7; / UTF8 = 0; ... INTERVAL = 21; / REQUIRED = 0; ... "
                   "REPEATED = 2; / PLAIN = 0; ... ALP = 10; / UNCOMPRESSED = 0; ... LZ4_RAW = 7; / DATA_PAGE = 0; ... "
                   "DATA_PAGE_V2 = 3;")
WRITTEN = cite("app/writers.py", "the writer x reader matrix", "a base table, written by another "
               "implementation through its public API, with its defaults or a named profile", seed=None,
               level=Level.POLICY)
_FIELD_IN_MESSAGE = re.compile(r"required field (\w+)")


def field_citation(problem: Problem, struct_of: dict[str, str]) -> Citation | None:
    """The declaration of the field a finding is about (`3: required i32 num_rows`), where the finding names one."""
    if problem.rule == "required":
        name, match = struct_of.get(problem.path), _FIELD_IN_MESSAGE.search(problem.message)
        fname = match.group(1) if match else None
    elif problem.rule in ("wire-type", "range", "enum"):
        owner, _, fname = problem.path.rpartition(".")
        name = struct_of.get(owner)
    else:
        return None
    fields = SCHEMA.get(name or "", {})
    found = [(fid, ftype) for fid, (f, ftype) in fields.items() if f == fname]
    if not found:
        return None
    if problem.rule == "enum":
        return ENUM_VALUES
    fid, ftype = found[0]
    kind = "union" if name in UNION_NAMES | set(UNIONS) else "struct"
    return _idl(f"{kind} {name}", f"{fid}: {'required ' if problem.rule == 'required' else ''}{ftype} {fname}")


def findings(check: written.WrittenCheck) -> tuple[WriterFinding, ...]:
    out = []
    for p in check.problems:
        citation = field_citation(p, check.struct_of) or (WIRE_TYPES if p.rule == "wire-type" else None) or RULES.get(
            p.rule) or RULES["page"]
        out.append(WriterFinding(p.rule, p.path, p.message, citation))
    return tuple(out)


def judge_written(table: str, data: bytes, columns: Sequence[str] | None = None) -> Written:
    check = written.check(table, data, columns)
    found = findings(check)
    same = check.reading is not None and not check.differing
    expected = written.expected(table, columns) if same else check.reading
    variants = [_as_written(data, check, found, expected)]
    if not found:
        variants += _extended(data, check, unverified=expected is None)
    return Written(findings=found, decodes=check.decodes, expected=expected, same_data=same,
                   differing=tuple(check.differing), read_by=check.read_by, read_error=check.read_error,
                   created_by=check.created_by, variants=tuple(variants), features=check.features)


def _as_written(data: bytes, check: written.WrittenCheck, found: tuple[WriterFinding, ...],
                expected: object | None) -> WrittenVariant:
    data_note = _data_note(check, expected)
    if not check.decodes:
        return WrittenVariant("as-written", "the file as written: its footer does not decode", Kind.CORRUPT, (),
                              {"legacy": Expectation.REJECT}, (RECOVERY.requiring("legacy"), WRITTEN),
                              f"{found[0].message}. {data_note}".strip(), data)
    if found:
        rules = sorted({f.rule for f in found})
        citations = tuple(dict.fromkeys(f.citation for f in found))
        return WrittenVariant("as-written", f"the file as written; it breaks {', '.join(rules)}", Kind.NONCONFORMING,
                              (), {"legacy": Expectation.EITHER}, (*citations, WRITTEN),
                              f"A reader may refuse a file that breaks the spec; if it reads, the data must be right. "
                              f"{data_note}".strip(), data)
    codec = bool(check.codecs - {0})
    if expected is None:  # nothing says whether the data pages are right: the reference's refusal may be the file's
        return WrittenVariant("as-written", "the file as written; the reference cannot read its data back",
                              Kind.GOLDEN, (), {"legacy": Expectation.EITHER}, (WRITTEN,), data_note, data)
    return WrittenVariant("as-written", "the file as written", Kind.GOLDEN, (),
                          {"legacy": Expectation.EITHER if codec else Expectation.READ},
                          (WRITTEN, *((CODEC_SUPPORT,) if codec else ())),
                          " ".join(filter(None, ["Compressed pages: a reader without the codec may refuse the file "
                                                 "(the extended variants then skip it, as on the base)." if codec
                                                 else "", data_note])), data)


def _data_note(check: written.WrittenCheck, expected: object | None) -> str:
    if expected is None:
        return f"Nothing reads the data back ({check.read_error}): reads are judged on read versus reject only."
    if check.differing:
        return (f"The writer changed the data ({', '.join(check.differing[:8])}): readers are judged on what the file "
                f"holds, as the {check.read_by} reader reads it.")
    return ""


def _extended(data: bytes, check: written.WrittenCheck, unverified: bool) -> list[WrittenVariant]:
    """Field 32767 (16 random bytes) in every struct of the footer, then in every struct outside it; Thrift unions
    aside (docs/spec-notes.md#unions). `unverified`: nothing read the file's data back, so whether it is valid is
    not known here: `either`, as for the file itself."""
    families = {
        "footer": ("an extension in every footer struct", tuple(
            Extend(struct=s, which="all", header="zigzag", payload=Payload.random(16))
            for s in sorted(check.footer_structs - UNION_NAMES))),
        "pages": ("an extension in every struct outside the footer", tuple(
            ExtendPageLevel(struct=s, which="all", payload=Payload.random(16))
            for s in sorted(check.page_structs - set(UNIONS)))),
    }
    out = []
    for name, (title, steps) in families.items():
        if not steps:
            continue
        mutated, _ = apply(data, steps, seed=zlib.crc32(name.encode()))  # the same payloads in every writer's file
        out.append(WrittenVariant(name, f"the file as written, {title}", Kind.GOLDEN, steps,
                                  {"legacy": Expectation.EITHER if unverified else Expectation.READ},
                                  (RESERVED, IGNORE, WRITTEN),
                                  "Thrift unions aside (docs/spec-notes.md#unions). Every offset past an extension "
                                  "is rewritten (docs/spec-notes.md#page-level).", mutated))
    return out
