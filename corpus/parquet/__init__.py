"""The Parquet track: binary protocol extensions (Thrift field 32767) in Parquet footers.

Its code lives in generators/parquet (codec, footer, bases, mutations, profiles, inspector,
reference reader), corpus/parquet/catalog (the cases) and conformance/adapters/parquet (the
readers); this object is what the harness sees of it (corpus/track.py).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from parquet_conformance.corpus.model import Case, Mutation
from parquet_conformance.corpus.parquet.catalog import all_cases
from parquet_conformance.generators import canonical
from parquet_conformance.generators.parquet import bases, mutations
from parquet_conformance.generators.parquet.mutations import Context
from parquet_conformance.generators.parquet.mutations.extension import Extend, Payload
from parquet_conformance.generators.parquet.reference import PROFILES


class ParquetTrack:
    name = "parquet"
    suffix = ".parquet"
    default_role = "legacy"
    roles: ClassVar[dict[str, str]] = {"legacy": "a reader that knows no extension (any Parquet reader today)",
             **{f"aware:{p}": f"a reader that implements the {p} extension profile; where a case names no "
                "expectation for it, the legacy one applies" for p in PROFILES}}

    def cases(self) -> Sequence[Case]:
        return all_cases()

    def bases(self) -> Sequence[str]:
        return list(bases.BASES)

    def base_description(self, name: str) -> str:
        return bases.BASES[name].description

    def base_file(self, name: str) -> bytes:
        return bases.base_bytes(name)

    def base_expected(self, name: str) -> object:
        return bases.base_expected(name)

    def baseline_case(self, name: str) -> str | None:
        return f"base/{name}"

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
        promises readers "will ignore [...] with little processing overhead" (conformance/app/overhead.py)."""
        data = bases.base_bytes(base)
        if size is None:
            return data
        extend = Extend(struct="FileMetaData", header="spec", payload=Payload.random(size))
        return extend.apply(data, Context(random.Random(size)))

    def read_data(self, path: Path) -> list[object]:
        """pyarrow's reading and the reference reader's, each when it reads."""
        import pyarrow.parquet as pq

        from parquet_conformance.generators.parquet.reference import read_table

        readings: list[object] = []
        for read in (lambda: pq.read_table(path), lambda: read_table(path.read_bytes())[0]):
            try:
                readings.append(canonical.canonical_table(read()))
            except Exception:
                continue
        return readings

    def fuzzer(self) -> Any:
        """The Parquet fuzzer (corpus/parquet/fuzz.py): imported on use, it needs hypothesis."""
        from parquet_conformance.corpus.parquet.fuzz import FUZZER

        return FUZZER

    def extender(self) -> Any:
        """`parquet-conformance extend`: field 32767 in any struct of a file (generators/parquet/extend.py)."""
        from parquet_conformance.generators.parquet.extend import EXTENDER

        return EXTENDER

    def inspect(self, path: Path) -> dict[str, Any]:
        from parquet_conformance.generators.parquet.inspect import inspect_file

        return inspect_file(path)

    def describe_inspection(self, report: Mapping[str, Any]) -> str:
        from parquet_conformance.generators.parquet.inspect import format_text

        return format_text(report)


TRACK = ParquetTrack()
