"""The Parquet track: binary protocol extensions (Thrift field 32767) in Parquet footers.

Its code lives in generators/parquet (codec, footer, bases, mutations, profiles, inspector,
reference reader), corpus/parquet/catalog (the cases) and conformance/adapters/parquet (the
readers); this object is what the harness sees of it (corpus/track.py).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from parquet_conformance.corpus import upstream
from parquet_conformance.corpus.model import Case, Expectation, Mutation
from parquet_conformance.generators import canonical
from parquet_conformance.generators.parquet import bases, mutations, operations, written
from parquet_conformance.generators.parquet.footer import FooterError, read_footer
from parquet_conformance.generators.parquet.mutations import Context
from parquet_conformance.generators.parquet.mutations.extension import Extend, Payload
from parquet_conformance.generators.parquet.reference import PROFILES, read_table
from parquet_conformance.generators.parquet.strict import check_file, strict_objections
from parquet_conformance.generators.parquet.summary import footer_summary, summary

METADATA = "metadata"  # the role of a metadata-only reader


@functools.cache
def _base_summary_hash(base: bytes) -> str:
    """The base's summary (an encrypted-footer base, or an imported file whose footer does not read, has none: the
    summary of nothing)."""
    try:
        footer = read_footer(base)[0]
    except (FooterError, RecursionError):
        footer = None
    if footer is None or footer.encrypted_footer:
        return canonical.data_hash(summary(None, [], []))
    return canonical.data_hash(footer_summary(footer))


def metadata_expectation(data: bytes, base: bytes) -> tuple[Expectation, str]:
    """The metadata role's expectation of a file, judged on its footer alone, and the summary hash a read must give:
    - `reject` where no Thrift compact reader reads the footer (read_footer fails: the tail, the FileMetaData) or
      there is no FileMetaData to read (an encrypted footer); a read must then give the base's summary to be
      `accepted-invalid` rather than `wrong-data`, as for the data roles;
    - `read` where the strict decoder has nothing to object to (strict.check_file: footer, layout, page headers,
      page index) and no column is encrypted: the summary of this file;
    - `either` otherwise (the spec's rules object, or a column's metadata is behind a key): the reader may refuse,
      and if it reads, it must give the summary of this file."""
    try:
        footer, problems = check_file(data)
    except (FooterError, RecursionError):
        return Expectation.REJECT, _base_summary_hash(base)
    if footer.encrypted_footer:
        return Expectation.REJECT, _base_summary_hash(base)
    found = footer_summary(footer)
    encrypted = any(cc.get("crypto_metadata") is not None
                    for rg in footer.row_groups() for cc in rg.children("columns"))
    strict = not strict_objections(problems) and not encrypted
    return (Expectation.READ if strict else Expectation.EITHER), canonical.data_hash(found)


# What readers are given of a written file (corpus/parquet/writing.py makes the variants), as the reports say it.
WRITTEN_VARIANTS = {"as-written": "the files as written", "footer": "with an extension in every footer struct",
                    "pages": "with an extension in every struct outside the footer"}


class ParquetTrack:
    name = "parquet"
    suffix = ".parquet"
    default_role = "legacy"
    metadata_forms = ("thrift", "flatbuffers")  # the footer a reader used: Thrift's, or a FlatBuffers one (PR #544)
    report_formats = ("parquet-site",)  # apache/parquet-site's support tables (reports/parquet/site.py)
    archive_intro = ("Apache Parquet files that test how readers handle binary protocol extensions: the Thrift field "
                     "32767 (type binary) that every struct of the Parquet footer reserves for extensions "
                     "(apache/parquet-format BinaryProtocolExtensions.md).")
    kinds: ClassVar[dict[str, str]] = {
        "golden": "our strict decoder accepts it: a valid footer with extensions written as the spec says",
        "nonconforming": "valid Thrift that breaks a rule of the spec (an extension's wire type, duplicates, "
                         "overlong lengths; enums out of range, statistics out of order)",
        "corrupt": "not a readable footer (bad footer length, lengths that overshoot, missing stop fields, bad "
                   "tails, cut files) or damaged pages (wrong CRCs)"}
    roles: ClassVar[dict[str, str]] = {"legacy": "a reader that knows no extension (any Parquet reader today)",
             **{f"aware:{p}": f"a reader that implements the {p} extension profile; where a case names no "
                "expectation for it, the legacy one applies" for p in PROFILES},
             METADATA: "a metadata-only reader: it answers the summary of the footer and the page headers "
                       "(generators/parquet/summary.py), not the data, and is judged on that alone, against our "
                       "decoder's summary of the same file (the case's expect_hash)"}

    def cases(self) -> Sequence[Case]:
        # imported here, not at the top: start-up time (only this path needs it)
        from parquet_conformance.corpus.parquet.catalog import all_cases  # on use: a run on a generated corpus
        # needs no catalog (a fifth of a second of imports before anything runs)

        return all_cases()

    def upstream_pins(self) -> list[upstream.Pin]:
        """The apache/parquet-testing files the evolution and features families rest on, pinned (upstream.json)."""
        return upstream.load(Path(__file__).parent / "upstream.json")

    def upstream_copy(self) -> Path:
        """The pinned files committed here (a copy at each pin's commit), judged with no checkout."""
        return Path(__file__).parent / "parquet-testing"

    def bases(self) -> Sequence[str]:
        return [*bases.BASES, *bases.UPSTREAM_BASES]

    def base_description(self, name: str) -> str:
        return bases.lookup(name).description

    def base_file(self, name: str) -> bytes:
        return bases.base_bytes(name)

    def base_expected(self, name: str) -> object:
        return bases.base_expected(name)

    file_roles = (METADATA,)  # judged on the case file itself (derive): their answers are not the data

    def baseline_case(self, name: str) -> str | None:
        return bases.lookup(name).case or f"base/{name}"

    def derive(self, base: bytes, data: bytes, expect: Mapping[str, Expectation],
               op: str = "read") -> dict[str, tuple[Expectation, str]]:
        """Roles judged on the case file itself, not on the base's data: role -> (expectation, the data hash a
        read must have). corpus/build.py records them in the case's `expect` (where the catalog names none) and
        `expect_hash`. The metadata role's expectation is our decoder's word on the footer where the catalog's
        legacy expectation agrees, and `either` where they differ: the catalog knows what Thrift runtimes do that
        the decoder does not (a varint over 10 bytes: docs/spec-notes.md#corrupt-extensions; a union with two
        fields), and a legacy `reject` may rest on what a metadata reader never reads (encrypted columns, pages).
        A case whose operation answers something else than the rows (`op`: generators/parquet/operations.py) is
        judged in the default role on the answer our decoder gives for the file."""
        legacy = expect.get(self.default_role)
        if op in operations.ANSWERS:  # the answer is what the file holds as our decoder reads it, not its rows; a
            # metadata reader has no such operation
            answer = canonical.normalize(dict(operations.ANSWERS[op](data)))
            return {self.default_role: (legacy or Expectation.READ, canonical.data_hash(answer))}
        found, summary_hash = metadata_expectation(data, base)
        return {METADATA: (found if legacy in (None, found) else Expectation.EITHER, summary_hash)}

    def build(self, case: Case, seed: int) -> tuple[bytes, list[dict[str, Any]] | None]:
        data, log = mutations.apply(bases.base_bytes(case.base), case.mutations, seed)  # type: ignore[arg-type]
        return data, log if case.kind == "golden" else None

    def parse_mutation(self, obj: Mapping[str, Any]) -> Mutation:
        return mutations.parse(obj)

    def normalize(self, answer: Mapping[str, Any]) -> object:
        try:
            return canonical.normalize({"columns": answer["columns"], "rows": answer["rows"]})
        except (KeyError, TypeError) as e:
            raise ValueError(f"no columns and rows in the answer ({e})") from None

    def writers(self) -> dict[str, str]:
        import pyarrow

        fixtures = {f"{writer} (fixture)": p["version"] for writer, p in bases.provenance().items()}
        return {"pyarrow": pyarrow.__version__, **fixtures}

    def skippable(self, base: str, size: int | None) -> bytes:
        """The base with a FileMetaData extension of `size` random bytes (None: the base itself): what the spec
        promises readers "will ignore [...] with little processing overhead" (app/overhead.py)."""
        data = bases.base_bytes(base)
        if size is None:
            return data
        extend = Extend(struct="FileMetaData", header="spec", payload=Payload.random(size))
        return extend.apply(data, Context(random.Random(size)))

    def read_data(self, path: Path) -> list[object]:
        """pyarrow's reading and the reference reader's, each when it reads."""
        import pyarrow.parquet as pq


        readings: list[object] = []
        for read in (lambda: pq.read_table(path), lambda: read_table(path.read_bytes())[0]):
            try:
                readings.append(canonical.canonical_table(read()))
            except Exception:
                continue
        return readings

    def write_profiles(self) -> dict[str, str]:
        """What each profile asks of a writer (generators/parquet/written.py)."""
        return {name: p.description for name, p in written.PROFILES.items()}

    def written_variants(self) -> dict[str, str]:
        return dict(WRITTEN_VARIANTS)

    def write_jobs(self) -> list[tuple[str, str]]:
        return list(written.jobs())

    def write_input(self, table: str) -> bytes:
        return written.table_ipc(table)

    def judge_written(self, table: str, data: bytes, columns: Sequence[str] | None = None) -> Any:
        """The rules a written file breaks, its data read back, its variants (corpus/parquet/writing.py)."""
        # imported here, not at the top: start-up time (only this path needs it)
        from parquet_conformance.corpus.parquet.writing import judge_written

        return judge_written(table, data, columns)

    def fuzzer(self) -> Any:
        """The Parquet fuzzer (corpus/parquet/fuzz.py): imported on use, it needs hypothesis."""
        # imported here, not at the top: start-up time (only this path needs it)
        from parquet_conformance.corpus.parquet.fuzz import FUZZER

        return FUZZER

    def extender(self) -> Any:
        """`parquet-conformance extend`: field 32767 in any struct of a file (generators/parquet/extend.py)."""
        # imported here, not at the top: start-up time (only this path needs it)
        from parquet_conformance.generators.parquet.extend import EXTENDER

        return EXTENDER

    def inspect(self, path: Path) -> dict[str, Any]:
        # imported here, not at the top: start-up time (only this path needs it)
        from parquet_conformance.generators.parquet.inspect import inspect_file

        return inspect_file(path)

    def describe_inspection(self, report: Mapping[str, Any]) -> str:
        # imported here, not at the top: start-up time (only this path needs it)
        from parquet_conformance.generators.parquet.inspect import format_text

        return format_text(report)


TRACK = ParquetTrack()
