"""Mutations: the typed steps from a base file to a case file, on the one mutation base (generators/steps.py:
the record, the registry, parse and the checks). `apply` replays a case's steps on its base. One module per
family: extension (field 32767 in structs and page headers), fields (fields of any type and id, removed fields,
rewritten values, swapped statistics, and the field edits by position that `fuzz` draws), tail (footer length,
magic, truncation), flatbuffer (FlatBuffers footers and their damage), encoding (the encoding extension), pages
(field 32767 outside the footer), structure (byte and varint edits confined to a region: the steps of `fuzz`),
rewrite (the features family: rows written again with a feature, another writer's fixture, legacy nested forms,
BIT_PACKED levels).
"""

from parquet_conformance.generators.parquet.mutations import (  # noqa: F401  each family registers its steps
    encoding,
    extension,
    fields,
    flatbuffer,
    pages,
    rewrite,
    structure,
    tail,
)
from parquet_conformance.generators.parquet.mutations.base import MUTATIONS, Context, Mutation, apply, parse, register
from parquet_conformance.generators.steps import MutationError

__all__ = ["MUTATIONS", "Context", "Mutation", "MutationError", "apply", "parse", "register"]
