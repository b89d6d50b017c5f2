"""The Parquet track's fuzzer (corpus/track.py Fuzzer; docs/fuzzing.md): chains of mutations on small bases,
replayed from their JSON form, judged by the strict decoder and the reference reader.

The oracle, per role:
- legacy: no Thrift compact reader can read the footer (footer.read_footer fails) -> `reject`; the strict
  decoder (strict.parse_file) accepts it and pyarrow reads the base's data -> `read`; anything between (the
  spec's rules object, a head magic that is not PAR1, other data) -> `either`.
- aware:<profile>, when the file has a FlatBuffers footer of that profile: the reference reader
  (generators/parquet/reference.py) reads the base's data -> `read`, other data -> `either`, nothing -> `reject`.
"""

from __future__ import annotations

import random
import struct as _struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from parquet_conformance.corpus.model import Citation, Expectation
from parquet_conformance.corpus.parquet.catalog.common import AWARE, IGNORE, RECOVERY, REVERSE, ZIGZAG, rule
from parquet_conformance.corpus.track import Oracle
from parquet_conformance.generators.canonical import canonical_table, data_hash
from parquet_conformance.generators.parquet import bases, mutations
from parquet_conformance.generators.parquet.footer import FooterError
from parquet_conformance.generators.parquet.mutations import Context, Mutation
from parquet_conformance.generators.parquet.profiles import ProfileError
from parquet_conformance.generators.parquet.reference import ReferenceError, choose_footer, read_exactly, read_table
from parquet_conformance.generators.parquet.strict import check_file, strict_objections

# What a step raises when the file before it no longer has what it edits: it is skipped.
NOT_APPLICABLE = (ValueError, LookupError, _struct.error, OverflowError)
MAX_FILE = 1 << 24  # a chain that grows a file past this is cut there: a reader's size limits are not the search


# The oracle's ground: the strict decoder follows parquet.thrift and the compact protocol
# (generators/parquet/footer.py, thrift.py); an extension is ignored by readers that do not know it. The rule itself
# is this suite's (docs/spec-notes.md#fuzz-oracle), not a sentence of parquet.thrift.
ORACLE = rule("fuzz-oracle", "A footer no Thrift compact reader decodes is expected to be rejected; one the strict "
              "decoder accepts, whose data pyarrow reads as the base's, to be read; one between, either.")
CITATIONS = [ORACLE, ZIGZAG, IGNORE]


@dataclass(frozen=True)
class Chain:
    base: str
    steps: tuple[Mutation, ...]

    def to_json(self) -> dict[str, Any]:
        return {"base": self.base, "steps": [s.to_json() for s in self.steps]}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Chain:
        return cls(obj["base"], tuple(mutations.parse(s) for s in obj["steps"]))


def replay(chain: Chain) -> tuple[bytes, list[int]]:
    """The file, and the indexes of the steps that applied. Payloads are seeded with 0: the chain is the file."""
    buf, ctx, applied = bases.base_bytes(chain.base), Context(random.Random(0)), []
    for i, step in enumerate(chain.steps):
        try:
            out = step.apply(buf, ctx)
        except NOT_APPLICABLE:
            continue
        if len(out) <= MAX_FILE:
            buf = out
            applied.append(i)
    return buf, applied


def _pyarrow_hash(data: bytes) -> str | None:
    try:
        return data_hash(canonical_table(read_exactly(data)))
    except Exception:  # pyarrow's errors on a corrupt file are of many kinds; any of them is "does not decode"
        return None


def legacy_expectation(data: bytes, base_hash: str) -> tuple[Expectation, bool]:
    """`reject` only for what no Thrift compact reader can read (footer.read_footer fails); what it reads but the
    spec's rules object to (non-minimal varints, wire types skipped, findings: strict.check_file) is `either`.
    A head magic that is not PAR1 is such a finding: the spec lays the file out, but a reader reads from the tail
    and nothing obliges it to look at the head (docs/spec-notes.md#head-magic)."""
    try:
        _, problems = check_file(data)
    except FooterError:  # the decoder is total: nothing else escapes it (tests/hostile/test_decoder_totality.py)
        return Expectation.REJECT, False
    h = _pyarrow_hash(data)
    if h == base_hash and not strict_objections(problems):
        return Expectation.READ, False
    return Expectation.EITHER, h != base_hash  # pyarrow read other data or none: the file's data is unknown


def aware_expectation(data: bytes, base_hash: str) -> tuple[str, Expectation, bool] | None:
    """(role, expectation, other data) for a file with a FlatBuffers footer; None without one."""
    try:
        choice = choose_footer(data)
    except (ReferenceError, ProfileError):
        return None
    if choice.profile is None:
        return None
    try:
        table, _ = read_table(data)
        h = data_hash(canonical_table(table))
    except Exception:  # the reference reader gives up: pyarrow's error on the rebuilt file
        return f"aware:{choice.profile}", Expectation.REJECT, False
    same = h == base_hash
    return f"aware:{choice.profile}", Expectation.READ if same else Expectation.EITHER, not same


class ParquetFuzzer:
    default_adapters = ("pyarrow", "duckdb", "polars", "fastparquet", "datafusion")  # in-process: ms a read

    def chains(self) -> Any:
        # imported here, not at the top: start-up time (only this path needs it)
        from parquet_conformance.corpus.parquet.strategies import chains

        return chains().map(lambda pair: Chain(*pair))

    def base_of(self, chain: Chain) -> str:
        return chain.base

    def build(self, chain: Chain) -> bytes:
        return replay(chain)[0]

    def to_json(self, chain: Chain) -> dict[str, Any]:
        return chain.to_json()

    def from_json(self, obj: Mapping[str, Any]) -> Chain:
        return Chain.from_json(obj)

    def oracle(self, data: bytes, base: str) -> Oracle:
        base_hash = bases.base_hash(base)
        legacy, other = legacy_expectation(data, base_hash)
        expect = {"legacy": legacy}
        aware = aware_expectation(data, base_hash)
        if aware is not None:
            role, expected, aware_other = aware
            expect[role] = expected
            other = other or aware_other
        return Oracle(expect, other)

    def citations(self, expect: Mapping[str, Expectation] | None = None) -> list[Citation]:
        """The oracle's ground; a `reject` rests on README's error recovery (the oracle rejects only a footer no
        Thrift compact reader decodes, or a PAR3 footer the reference cannot use: the file metadata is lost), an
        aware `read` on the profile's trailer, found in reverse."""
        words = dict(expect or {})
        rejects = [role for role, e in words.items() if e == Expectation.REJECT]
        legacy_reads = [role for role, e in words.items() if e == Expectation.READ and not role.startswith("aware:")]
        aware_reads = [role for role, e in words.items() if e == Expectation.READ and role.startswith("aware:")]
        return [*((ORACLE.requiring(*legacy_reads),) if legacy_reads else (ORACLE,)), ZIGZAG, IGNORE,
                *((RECOVERY.requiring(*rejects),) if rejects else ()),
                *((AWARE.requiring(*aware_reads), REVERSE) if aware_reads else ())]


FUZZER = ParquetFuzzer()
