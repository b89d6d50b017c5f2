"""Hypothesis strategies for the Parquet track's mutations: one per mutation model, and `chains`, a base and a
chain of them (docs/fuzzing.md). As Bowtie's bowtie/hypothesis.py gives one strategy per record, each
strategy here builds the mutation's dataclass, so every value drawn is a valid, replayable step.

Sizes are bounded (payloads up to 4 KiB, chains up to 6 steps) so that an example is built and read in
milliseconds; the region parameters (`which`, `field`, `offset`) are taken modulo what the file holds
(generators/parquet/mutations/structure.py), so small integers reach every struct of a small footer and
shrink towards the first one.
"""

from __future__ import annotations

from typing import get_args

from hypothesis import strategies as st

from parquet_conformance.generators.parquet import thrift
from parquet_conformance.generators.parquet.footer import HEADER_FORMS
from parquet_conformance.generators.parquet.mutations import Mutation
from parquet_conformance.generators.parquet.mutations.extension import (
    Extend,
    ExtendAfterStop,
    ExtendPageHeader,
    Payload,
)
from parquet_conformance.generators.parquet.mutations.fields import TYPED_VALUES, AddTypedField
from parquet_conformance.generators.parquet.mutations.flatbuffer import AddFlatbufferFooter, DamageFlatbufferFooter
from parquet_conformance.generators.parquet.mutations.structure import (
    DeleteField,
    DropStop,
    DuplicateField,
    EditVarint,
    FlipBits,
    InsertField,
    MoveField,
    SetWireType,
    SpliceBytes,
    Target,
    VarintEdit,
)
from parquet_conformance.generators.parquet.mutations.tail import (
    FlipFooterLengthBit,
    SetFooterLength,
    SetTailMagic,
    TruncateInFooter,
)

# Small bases written by pyarrow with fixed settings (generators/parquet/bases.py), and two other writers'.
BASES = ("flat", "nested", "dictionary", "all-types", "page-index", "multi-row-group", "writer-duckdb",
         "writer-fastparquet")
# The structs every base's footer holds, a few that only some hold, and those outside the footer (page headers,
# the page index, bloom filters: layout.all_structs), which the field edits reach with the data moved.
STRUCTS = ("FileMetaData", "SchemaElement", "RowGroup", "ColumnChunk", "ColumnMetaData", "Statistics", "KeyValue",
           "PageEncodingStats", "LogicalType", "ColumnOrder", "TypeDefinedOrder", "TimestampType", "DecimalType",
           "IntType", "StringType", "TimeUnit", "SortingColumn", "PageHeader", "DataPageHeader",
           "DictionaryPageHeader", "DataPageHeaderV2", "ColumnIndex", "OffsetIndex", "PageLocation",
           "BloomFilterHeader")

small = st.integers(0, 15)
structs = st.sampled_from(STRUCTS)
offsets = st.integers(0, 1 << 16)
hex_bytes = st.binary(max_size=24).map(bytes.hex)
headers = st.sampled_from(tuple(HEADER_FORMS.values()))
UUIDS = (bytes(16), b"\xff" * 16)


def payloads() -> st.SearchStrategy[Payload]:
    """Random or non-UTF-8 bytes of any size up to 4 KiB (with or without the opaque UUID), or exact bytes: a UUID
    alone, a nested struct with its own field 32767 (an extension inside an extension), or anything."""
    sized = st.builds(Payload, kind=st.sampled_from(["random", "non-utf8"]), size=st.integers(0, 4096),
                      uuid=st.booleans())
    exact = st.one_of(hex_bytes, st.sampled_from(UUIDS).map(bytes.hex), nested_extension().map(bytes.hex))
    return sized | exact.map(lambda h: Payload("hex", hex=h))


@st.composite
def nested_extension(draw: st.DrawFn) -> bytes:
    """A Thrift struct holding field 32767 whose payload is again such a struct, `depth` times."""
    inner = draw(st.binary(max_size=16))
    for _ in range(draw(st.integers(1, 4))):
        inner = _extension(draw(headers), inner) + b"\x00"
    return inner


def _extension(header: str, payload: bytes) -> bytes:
    raw = next(raw for raw, form in HEADER_FORMS.items() if form == header)
    return raw + thrift.uleb(len(payload)) + payload


def targets() -> st.SearchStrategy[Target]:
    return st.sampled_from(get_args(Target))


def flip_bits() -> st.SearchStrategy[FlipBits]:
    return st.builds(FlipBits, target=targets(), struct=structs, which=small, field=small, offset=offsets,
                     mask=st.integers(1, 255))


def splice_bytes() -> st.SearchStrategy[SpliceBytes]:
    return st.builds(SpliceBytes, target=targets(), struct=structs, which=small, field=small, offset=offsets,
                     delete=st.integers(0, 8), hex=hex_bytes)


def edit_varint() -> st.SearchStrategy[EditVarint]:
    amounts = st.integers(1, 64) | st.sampled_from([2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 40])
    return st.builds(EditVarint, struct=structs, form=st.sampled_from(get_args(VarintEdit)), which=small,
                     field=small, amount=amounts)


def field_values() -> st.SearchStrategy[tuple[int, str]]:
    """(type nibble, value bytes): a well-formed value of each compact type, or any bytes under any nibble."""
    typed = st.sampled_from(sorted(TYPED_VALUES.values(), key=lambda tv: tv[0])).map(lambda tv: (tv[0], tv[1].hex()))
    binary = st.binary(max_size=32).map(lambda b: (thrift.BINARY, (thrift.uleb(len(b)) + b).hex()))
    anything = st.tuples(st.integers(1, 15), hex_bytes)
    return typed | binary | anything


@st.composite
def insert_field(draw: st.DrawFn) -> InsertField:
    ftype, value = draw(field_values())
    fid = draw(st.integers(-32768, 32767) | st.sampled_from([0, 1, 15, 16, 32767, -16384]))
    return InsertField(struct=draw(structs), id=fid, type=ftype, hex=value, which=draw(small), position=draw(small))


def delete_field() -> st.SearchStrategy[DeleteField]:
    return st.builds(DeleteField, struct=structs, which=small, field=small)


def duplicate_field() -> st.SearchStrategy[DuplicateField]:
    return st.builds(DuplicateField, struct=structs, which=small, field=small)


def move_field() -> st.SearchStrategy[MoveField]:
    return st.builds(MoveField, struct=structs, which=small, field=small, to=small)


def set_wire_type() -> st.SearchStrategy[SetWireType]:
    return st.builds(SetWireType, struct=structs, type=st.integers(1, 15), which=small, field=small)


def drop_stop() -> st.SearchStrategy[DropStop]:
    return st.builds(DropStop, struct=structs, which=small)


def extend() -> st.SearchStrategy[Extend]:
    return st.builds(Extend, struct=structs, payload=payloads(), which=small, header=headers,
                     declared_length=st.none() | st.integers(0, 1 << 33), length_pad=st.integers(0, 6),
                     drop_stop=st.booleans())


def extend_after_stop() -> st.SearchStrategy[ExtendAfterStop]:
    return st.builds(ExtendAfterStop, payload=payloads(), header=headers)


def extend_page_header() -> st.SearchStrategy[ExtendPageHeader]:
    return st.builds(ExtendPageHeader, payload=payloads(), header=headers)


def add_typed_field() -> st.SearchStrategy[AddTypedField]:
    return st.builds(AddTypedField, struct=structs, type=st.sampled_from(sorted(TYPED_VALUES)), which=small)


def flip_footer_length_bit() -> st.SearchStrategy[FlipFooterLengthBit]:
    return st.builds(FlipFooterLengthBit, bit=st.integers(0, 31))


def set_footer_length() -> st.SearchStrategy[SetFooterLength]:
    return (st.builds(SetFooterLength, value=st.integers(0, 2 ** 32 - 1))
            | st.builds(SetFooterLength, file_size_minus=st.integers(-16, 64)))


def set_tail_magic() -> st.SearchStrategy[SetTailMagic]:
    return st.builds(SetTailMagic, magic=st.sampled_from(["PAR3", "PARE", "PAR0", "par1", "\x00\x00\x00\x00"]))


def truncate_in_footer() -> st.SearchStrategy[TruncateInFooter]:
    return st.builds(TruncateInFooter, fraction=st.floats(0, 0.999))


def add_flatbuffer_footer() -> st.SearchStrategy[AddFlatbufferFooter]:
    return st.builds(AddFlatbufferFooter, profile=st.sampled_from(["spec-example", "migration", "par3"]),
                     header=headers, crc=st.sampled_from(["zlib", "castagnoli"]),
                     placement=st.sampled_from(["in-struct", "after-stop"]))


def damage_flatbuffer_footer() -> st.SearchStrategy[DamageFlatbufferFooter]:
    whats = st.sampled_from(["flatbuffer-byte", "flatbuffer-crc", "size-crc", "size-bit", "unverifiable",
                             "huge-size"])
    return st.builds(DamageFlatbufferFooter, what=whats, bit=st.integers(0, 31))


def steps() -> st.SearchStrategy[Mutation]:
    """Any one step. The byte-level ones come first: Hypothesis shrinks towards the first branch."""
    return st.one_of(flip_bits(), splice_bytes(), edit_varint(), insert_field(), delete_field(), duplicate_field(),
                     move_field(), set_wire_type(), drop_stop(), extend(), extend_after_stop(), extend_page_header(),
                     add_typed_field(), flip_footer_length_bit(), set_footer_length(), set_tail_magic(),
                     truncate_in_footer(), add_flatbuffer_footer(), damage_flatbuffer_footer())


def chains() -> st.SearchStrategy[tuple[str, tuple[Mutation, ...]]]:
    """A base and one to six steps."""
    return st.tuples(st.sampled_from(BASES), st.lists(steps(), min_size=1, max_size=6).map(tuple))
