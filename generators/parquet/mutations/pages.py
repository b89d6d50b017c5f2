"""Field 32767 in the structs outside the footer (page headers of every chunk, the page index, bloom filter
headers), moving the data after them and fixing every offset (generators/parquet/layout.py)."""

from __future__ import annotations

from dataclasses import dataclass

from parquet_conformance.generators.parquet import layout
from parquet_conformance.generators.parquet.edits import extension_field
from parquet_conformance.generators.parquet.footer import STRUCT_NAMES, read_footer
from parquet_conformance.generators.parquet.mutations.base import Context, Mutation, register
from parquet_conformance.generators.parquet.mutations.extension import Header, Payload, Which
from parquet_conformance.generators.steps import MutationError

# The structs a reader parses outside the footer, and the structs inside them.
PAGE_LEVEL = ("PageHeader", "DataPageHeader", "DataPageHeaderV2", "DictionaryPageHeader", "Statistics",
              "ColumnIndex", "OffsetIndex", "PageLocation", "BloomFilterHeader", "BloomFilterAlgorithm",
              "BloomFilterHash", "BloomFilterCompression", "SplitBlockAlgorithm", "XxHash", "Uncompressed")


@register("extend_page_level")
@dataclass(frozen=True)
class ExtendPageLevel(Mutation):
    """Field 32767 (binary) before the stop field of the selected page-level struct(s): the `which`-th of that
    name in file order (page headers chunk by chunk, then the page index and bloom filters) or `all`. Every
    byte after each one moves; every offset and length that spans or follows it is rewritten."""

    struct: str
    payload: Payload
    which: Which = 0
    header: Header = "zigzag"

    def check(self) -> None:
        if self.struct not in PAGE_LEVEL or self.struct not in STRUCT_NAMES:
            raise MutationError(f"extend_page_level: {self.struct!r} is not a page-level struct; "
                                f"known: {', '.join(PAGE_LEVEL)}")

    def apply(self, buf: bytes, ctx: Context) -> bytes:
        footer, _ = read_footer(buf)  # as Thrift reads it: a step may follow one the strict decoder refuses
        refs = layout.select(footer, self.struct, self.which)
        body = self.payload.make(ctx)
        for ref in refs:
            ctx.wrote(ref.name, ref.path, self.header, body)
        return layout.move(footer, layout.before_stops(refs, extension_field(body, self.header)))
