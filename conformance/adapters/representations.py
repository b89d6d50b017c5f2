"""What a library documents about the form of the data it returns (docs/adapters.md#documented-representations):
each adapter declares, beside its `refusals`, the representations of the closed set (generators/representations.py)
its library's own documentation states, with those words and where they are. The judge then tells a read in that
form (`representation`) apart from wrong data; a difference no declaration explains stays `fail:wrong-data`."""

from __future__ import annotations

from dataclasses import dataclass

from parquet_conformance.generators.representations import Representation


@dataclass(frozen=True)
class Documented:
    """One representation as the library documents it."""

    representation: Representation
    words: str  # the library's own sentence, quoted
    source: str  # where it is: the page (and anchor) of the library's documentation
