"""The Skiff track: YTsaurus's schemaful wire format between job proxies and user jobs (seed 004).

Its code lives in generators/skiff (schema, codec, YSON subset, the strict reference, canonical tokens, bases,
mutations), corpus/skiff/catalog (the cases) and conformance/adapters/skiff (the codecs under test); this
object is what the harness sees of it (corpus/track.py). A case file is a JSON document (docs/skiff.md); its
operation is `decode` (an input stream -> rows) or `encode` (rows -> output streams).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from parquet_conformance.corpus.model import Case, Mutation
from parquet_conformance.generators.skiff import reference, tokens

if TYPE_CHECKING:
    from parquet_conformance.generators.skiff.bases import Base


def _bases() -> Mapping[str, Base]:
    """The catalog's bases. The catalog is imported on use, as the Parquet track's: a run on a generated corpus needs
    none of it."""
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.corpus.skiff.catalog import all_bases

    return all_bases()


class SkiffTrack:
    name = "skiff"
    suffix = ".json"
    default_role = "codec"
    roles: ClassVar[dict[str, str]] = {
        "codec": "a Skiff codec of a user job's side: decodes the job's input stream into rows (op decode) and "
                 "encodes rows into the job's output streams (op encode)"}

    def cases(self) -> Sequence[Case]:
        # imported here, not at the top: start-up time (only this path needs it)
        from parquet_conformance.corpus.skiff.catalog import all_cases

        return all_cases()

    def bases(self) -> Sequence[str]:
        return list(_bases())

    def base_description(self, name: str) -> str:
        return _bases()[name].description

    def base_file(self, name: str) -> bytes:
        return _bases()[name].file()

    def base_expected(self, name: str) -> object:
        return _bases()[name].expected()

    def baseline_case(self, name: str) -> str | None:
        return None  # exact data only: no representation of Skiff values is forgiven

    def build(self, case: Case, seed: int) -> tuple[bytes, list[dict[str, Any]] | None]:
        # imported here, not at the top: start-up time (only this path needs it)
        from parquet_conformance.generators.skiff import mutations

        steps = [m for m in case.mutations if isinstance(m, mutations.Mutation)]
        if len(steps) != len(case.mutations):
            raise ValueError(f"case {case.id}: a mutation that is not a Skiff mutation")
        return mutations.apply(self.base_file(case.base), steps, seed), None

    def parse_mutation(self, obj: Mapping[str, Any]) -> Mutation:
        # imported here, not at the top: start-up time (only this path needs it)
        from parquet_conformance.generators.skiff import mutations

        return mutations.parse(obj)

    def normalize(self, answer: Mapping[str, Any]) -> object:
        return tokens.normalize(answer)

    def writers(self) -> dict[str, str]:
        return {}  # our own codec writes every Skiff byte

    def read_data(self, path: Path) -> list[object]:
        return []  # a Skiff case document is not a file found elsewhere

    def inspect(self, path: Path) -> dict[str, Any]:
        return reference.inspect_document(path.read_bytes())

    def describe_inspection(self, report: Mapping[str, Any]) -> str:
        return reference.describe(report)


TRACK = SkiffTrack()
