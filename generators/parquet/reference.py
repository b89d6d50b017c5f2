"""The reference reader: aware of every FlatBuffers-footer profile, legacy for everything else, and strict: it
decodes every footer it uses with our strict decoder (generators/parquet/strict.py check_file, the page level
included) and the profiles' checks before any data is read, and refuses every file the spec lets a reader refuse
(docs/spec-notes.md#the-reference-reader). It passes every case of the corpus by construction of the spec's rules;
a case it does not pass is a defect of the case or of the reader.

Rules (docs/spec-notes.md#fallback):
1. The tail is parsed in reverse (generators.profiles.locate); the Thrift before it is not.
2. `PAR3` tail: the FlatBuffers footer is the only metadata; if any check fails, reject.
3. `PAR1` tail with a known UUID: use the FlatBuffers footer if every check passes (CRC of the
   size before the size is used, the size within the footer, CRC of the flatbuffer, FlatBuffers
   verification, internal consistency, and the strict decoder on the footer rebuilt from it);
   otherwise ignore it and read the Thrift footer, as a legacy reader would, and say why.
4. No known UUID (none, or one we do not know): the Thrift footer.
5. Whatever footer it uses must pass the strict decoder, except what the spec requires a reader to read
   (TOLERATED): a field 32767 that is not binary or is there twice (a reader that does not know it skips it), a
   length padded within its 1-5 bytes (the length rule), a plaintext footer's signature. Anything else the strict
   decoder objects to is refused (StrictRefusal): the reader is as strict as the spec allows.
6. `PARX` tail (apache/parquet-format PR #588, generators/parquet/parx.py): the flags (reject any but
   PATH_IN_SCHEMA_OMITTED: no keys, so no ENCRYPTED_FOOTER), then the length and the CRC; then the Thrift
   footer it frames, path_in_schema written back from the schema where the flag says it was left out.
7. A logical type it does not recognize, or one on a physical type parquet.thrift does not allow it on, is
   ignored and the physical values read (LogicalTypes.md "Unsupported Logical Types", PR #606): FILE (a group
   of ordinary columns, read as such), a LogicalType member no parquet.thrift defines, UUID on INT32, TIMESTAMP on
   FIXED_LEN_BYTE_ARRAY(12) (PR #601, open).
8. Levels in the deprecated BIT_PACKED encoding (uncompressed v1 pages) are decoded as Encodings.md packs them,
   most significant bit first, and given to pyarrow in the RLE/bit-packing hybrid (pyarrow reads BIT_PACKED least
   significant bit first: apache/arrow#42368).
The data is read by pyarrow from a file whose footer is rebuilt from the chosen metadata, so
what the FlatBuffers footer says is what gets read; pyarrow reads only what the strict decoder has
accepted, so its own leniency (lengths folded to 32 bits, bytes past the footer) never decides.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from parquet_conformance.generators.parquet import thrift
from parquet_conformance.generators.parquet.edits import apply_edits, remove_fields, set_i64
from parquet_conformance.generators.parquet.footer import FooterError, ParquetFooter, Problem, read_footer
from parquet_conformance.generators.parquet.mutations.rewrite import rle_from_bit_packed
from parquet_conformance.generators.parquet.profiles import PAR3, Located, ProfileError, locate, parse_encoding_payload
from parquet_conformance.generators.parquet.strict import check_file

PROFILES = ("spec-example", "migration", "arrow-prototype", "par3", "encoding", "parx")


class ReferenceError(ValueError):
    """The reference reader rejects the file."""


class StrictRefusal(ReferenceError):
    """The footer decodes, but breaks a rule of the spec that a reader may refuse a file for (`problem`)."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(f"{problem.rule}: {problem}")
        self.problem = problem


# What the spec requires a reader to read although our strict decoder objects (docs/spec-notes.md): a field 32767
# of another wire type or a second one (a legacy reader skips an unknown field by its type: #non-binary-field-32767,
# #duplicates), a plaintext footer's signature (#encryption). Non-minimal varints are read within 5 bytes
# (#length-fields), see strict_footer.
TOLERATED = frozenset({"extension", "signature"})
MAX_PADDED_VARINT = 5  # "1-5 bytes | ULEB128(M)": a padded varint longer than this is refused


def strict_footer(buf: bytes) -> ParquetFooter:
    """The file's Thrift footer as the strict decoder reads it; ReferenceError when no Thrift reader decodes it,
    StrictRefusal when it breaks a rule the reader may refuse the file for."""
    try:
        footer, problems = check_file(buf)
    except (FooterError, RecursionError) as e:
        raise ReferenceError(f"footer does not decode: {e}") from None
    for problem in problems:
        if problem.rule in TOLERATED:
            continue
        if problem.rule == "varint" and _longest_padded_varint(footer) <= MAX_PADDED_VARINT:
            continue
        raise StrictRefusal(problem)
    return footer


def _longest_padded_varint(footer: ParquetFooter) -> int:
    """Bytes in the longest non-minimal varint of the footer (read_footer notes only where the first one is)."""
    reader = thrift.Reader(footer.buf, footer.footer_offset, footer.footer_end)
    reader.struct()
    longest = 0
    for start in reader.overlong:
        n = 1
        while footer.buf[start + n - 1] & 0x80:
            n += 1
        longest = max(longest, n)
    return longest


@dataclass
class Choice:
    metadata: str  # "flatbuffers" | "thrift"
    profile: str | None = None
    reason: str | None = None  # why a recognized FlatBuffers footer was not used
    located: Located | None = None
    thrift_footer: bytes | None = None  # rebuilt from the flatbuffer
    new_encodings: int = 0  # column chunks read in their new encoding (the encoding extension)
    par1: bytes | None = None  # a PARX file unframed: the same file as PAR1 (parx.unframe)


def choose_footer(buf: bytes) -> Choice:
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.generators.parquet import parx

    if bytes(buf[-4:]) == parx.MAGIC:
        try:
            par1, _ = parx.unframe(buf)
        except parx.ParxError as e:
            raise ReferenceError(f"PARX footer unusable: {e}") from None
        return Choice("thrift", "parx", par1=par1)
    par3 = bytes(buf[-4:]) == PAR3
    try:
        found = locate(buf)
        if found is None:
            if par3:
                raise ProfileError("no FlatBuffers footer before PAR3")
            return Choice("thrift")
        thrift_footer = usable_thrift_footer(found, buf)
        choice = Choice("flatbuffers", found.profile, located=found, thrift_footer=thrift_footer)
        try:
            strict_footer(rebuilt_file(buf, choice))
        except ReferenceError as e:
            raise ProfileError(f"the metadata it holds fails the strict decoder ({e})") from None
    except ProfileError as e:
        if par3:
            raise ReferenceError(f"PAR3 footer unusable: {e}") from None
        return Choice("thrift", reason=str(e))
    return choice


def usable_thrift_footer(found: Located, buf: bytes) -> bytes:
    """Verifies the flatbuffer and its consistency; returns it as a Thrift FileMetaData."""
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.generators.parquet.flatbuf.convert import FlatbufferError, flatbuffer_comparable
    from parquet_conformance.generators.parquet.flatbuf.to_thrift import comparable_to_thrift

    try:
        meta = flatbuffer_comparable(found.flatbuffer, found.revision)
    except FlatbufferError as e:
        raise ProfileError(f"flatbuffer fails verification: {e}") from None
    data_end = data_region_end(found, buf)
    check_consistency(meta, data_end)
    return comparable_to_thrift(meta)


def data_region_end(found: Located, buf: bytes) -> int:
    if found.profile == "par3":
        return found.offset
    (footer_len,) = struct.unpack("<I", buf[-8:-4])
    return len(buf) - 8 - footer_len


def check_consistency(meta: dict, data_end: int) -> None:
    """What a reader can check cheaply before trusting metadata it cannot cross-check: one schema tree, a chunk
    with metadata per leaf in every row group, row counts that add up, chunks inside the data region."""
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.generators.parquet.flatbuf.convert import FlatbufferError
    from parquet_conformance.generators.parquet.flatbuf.to_thrift import leaf_paths

    try:
        leaves = len(leaf_paths(meta["schema"]))
    except FlatbufferError as e:
        raise ProfileError(str(e)) from None
    groups = meta["row_groups"] or []
    rows = sum(rg["num_rows"] or 0 for rg in groups)
    if rows != meta["num_rows"]:
        raise ProfileError(f"row groups hold {rows} rows, num_rows says {meta['num_rows']}")
    for i, rg in enumerate(groups):
        columns = rg["columns"] or []
        if len(columns) != leaves:
            raise ProfileError(f"row group {i} has {len(columns)} column chunks for {leaves} leaf columns")
        for j, col in enumerate(columns):
            start = col.get("dictionary_page_offset") or col.get("data_page_offset")
            size = col.get("total_compressed_size")
            if start is None or size is None:
                raise ProfileError(f"row group {i} column {j} has no metadata")
            if not (4 <= start and start + size <= data_end):
                raise ProfileError(f"row group {i} column {j} lies outside the data region")


def rebuilt_file(buf: bytes, choice: Choice) -> bytes:
    if choice.par1 is not None:
        return choice.par1
    if choice.metadata == "thrift":
        return buf
    assert choice.located is not None and choice.thrift_footer is not None  # chose_footer set both
    data_end = data_region_end(choice.located, buf)
    footer = choice.thrift_footer
    return bytes(buf[:data_end]) + footer + struct.pack("<I", len(footer)) + b"PAR1"


def use_new_encodings(buf: bytes, footer: ParquetFooter | None = None) -> tuple[bytes, int]:
    """Seed 001 "Encoding", as its custom reader: for each ColumnMetaData whose extension carries
    our encoding UUID and points at a chunk inside the data region, read that chunk instead of
    the old one. Extensions that do not check out are ignored (the old encoding is read), and so are
    all of them if the file they make fails the strict decoder."""
    if footer is None:
        try:
            footer = strict_footer(buf)
        except ReferenceError:
            return buf, 0
    edits, used = [], 0
    for ext in footer.extensions(include_pages=False):
        where = parse_encoding_payload(ext.payload) if ext.struct == "ColumnMetaData" else None
        if where is None:
            continue
        offset, length, _encoding = where
        if not (4 <= offset and offset + length <= footer.footer_offset):
            continue
        try:
            thrift.decode_struct(buf, offset, offset + length)  # a page header must start there
        except thrift.ThriftError:
            continue
        md = next(r for r in footer.structs() if r.path == ext.path)
        edits += [set_i64(md, "data_page_offset", offset), set_i64(md, "total_compressed_size", length),
                  set_i64(md, "total_uncompressed_size", length)]
        used += 1
    if not edits:
        return buf, 0
    rewritten = apply_edits(buf, edits)
    try:
        strict_footer(rewritten)
    except ReferenceError:
        return buf, 0
    return rewritten, used


def read_table(buf: bytes) -> tuple[object, Choice]:
    """The strict decoder first (a FlatBuffers footer through its profile, then the footer rebuilt from it; else
    the Thrift footer), then the data, by pyarrow, from what it accepted."""
    choice = choose_footer(buf)
    data = rebuilt_file(buf, choice)
    if choice.metadata == "thrift":
        footer = strict_footer(data)
        data, choice.new_encodings = use_new_encodings(data, footer)
    return read_exactly(rle_from_bit_packed(without_unsupported_annotations(data))), choice


# LogicalType members (parquet.thrift) -> the physical types (Type) they may annotate, with a FIXED_LEN_BYTE_ARRAY's
# length where it is fixed; absent: a group annotation (MAP, LIST, VARIANT) or any type (UNKNOWN). FILE (19) is not
# here: the reference reads a FILE group as the group of columns it is.
BYTE_ARRAY, FIXED = 6, 7
ALLOWED: dict[int, set[int | tuple[int, int]]] = {
    1: {BYTE_ARRAY}, 4: {BYTE_ARRAY}, 5: {1, 2, BYTE_ARRAY, FIXED}, 6: {1}, 7: {1, 2}, 8: {2}, 10: {1, 2},
    12: {BYTE_ARRAY}, 13: {BYTE_ARRAY}, 14: {(FIXED, 16)}, 15: {(FIXED, 2)}, 17: {BYTE_ARRAY}, 18: {BYTE_ARRAY}}
KNOWN = {*ALLOWED, 2, 3, 11, 16}


def without_unsupported_annotations(data: bytes) -> bytes:
    """Rule 7: the file with every LogicalType the reference does not recognize on its column taken out."""
    footer, _ = read_footer(data)
    edits = []
    for element in footer.root.children("schema") if not footer.encrypted_footer else []:
        logical = element.child("logicalType")
        if logical is None or len(logical.node.fields) != 1:
            continue  # none, or a union the strict decoder has already judged
        member, physical = logical.node.fields[0].id, element.value("type")
        allowed = ALLOWED.get(member)
        carriers = {physical, (physical, element.value("type_length"))}
        if member not in KNOWN or (allowed is not None and not allowed & carriers):
            edits.append(remove_fields(data, element, ("logicalType",)))
    return apply_edits(data, edits) if edits else data


INT64_MAX_US = (1 << 63) // 1000  # microseconds past this do not fit a 64-bit nanosecond timestamp


def read_exactly(data: bytes) -> Any:
    """pyarrow reads INT96 into nanoseconds and wraps instants beyond that range without a word; the reference
    reads such a column again in microseconds, which hold every INT96 day, and keeps that where it was needed."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    table = pq.read_table(pa.BufferReader(data))
    schema = pq.ParquetFile(pa.BufferReader(data)).schema
    int96 = [c.path for c in schema if c.physical_type == "INT96" and "." not in c.path]
    if not int96:
        return table
    wide = pq.read_table(pa.BufferReader(data), columns=int96, coerce_int96_timestamp_unit="us")
    for name in int96:
        micros = wide.column(name).cast(pa.int64())
        if (pc.max(pc.abs(micros)).as_py() or 0) >= INT64_MAX_US:
            table = table.set_column(table.schema.get_field_index(name), name, wide.column(name))
    return table
