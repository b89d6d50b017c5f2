"""A toy track, defined only in the tests, to show that the harness knows no format: a file is lines of
`name=integer`; a reader returns them as rows. Registered by tests/test_tracks.py through real entry
points (a dist-info directory on PYTHONPATH), exactly as a third-party package would register it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parquet_conformance.corpus.model import Case, Citation, Mutation

TOY = Citation("tests/toy/__init__.py", "the toy format", "a file is lines of name=integer")
BASES = {"two": b"a=1\nb=2\n"}


@dataclass(frozen=True)
class Append:
    """Append raw bytes to the base file."""

    text: str

    def to_json(self) -> dict[str, Any]:
        return {"mutation": "append", "text": self.text}


def parse(data: bytes) -> dict[str, Any]:
    """The toy format's own strict reader, also used by the toy adapter."""
    rows = []
    for line in data.decode("utf-8").splitlines():
        name, sep, value = line.partition("=")
        if not sep or not name.isidentifier():
            raise ValueError(f"not a toy line: {line!r}")
        rows.append([name, {"int": str(int(value))}])
    return {"columns": ["name", "value"], "rows": rows}


class ToyTrack:
    name = "toy"
    suffix = ".toy"
    default_role = "reader"
    roles: Mapping[str, str] = {"reader": "a reader of toy files"}

    def cases(self) -> Sequence[Case]:
        return [
            Case(id="toy/base/two", title="the base", kind="golden", base="two", mutations=(),
                 expect={"reader": "read"}, citations=(TOY,)),
            Case(id="toy/extra-line", title="a third line: other data", kind="golden", base="two",
                 mutations=(Append("c=3\n"),), expect={"reader": "read"}, citations=(TOY,)),
            Case(id="toy/garbage", title="not toy at all", kind="corrupt", base="two",
                 mutations=(Append("???\n"),), expect={"reader": "reject"}, citations=(TOY,)),
        ]

    def bases(self) -> Sequence[str]:
        return list(BASES)

    def base_description(self, name: str) -> str:
        return "two toy lines"

    def base_file(self, name: str) -> bytes:
        return BASES[name]

    def base_expected(self, name: str) -> object:
        return parse(BASES[name])

    def baseline_case(self, name: str) -> str | None:
        return "toy/base/two"

    def build(self, case: Case, seed: int) -> tuple[bytes, list[dict[str, Any]] | None]:
        data = BASES[case.base]
        for m in case.mutations:
            assert isinstance(m, Append)
            data += m.text.encode()
        return data, None

    def parse_mutation(self, obj: Mapping[str, Any]) -> Mutation:
        return Append(obj["text"])

    def normalize(self, answer: Mapping[str, Any]) -> object:
        if not isinstance(answer.get("rows"), list):
            raise ValueError("no rows")
        return {"columns": answer["columns"], "rows": answer["rows"]}

    def writers(self) -> dict[str, str]:
        return {}

    def read_data(self, path: Path) -> list[object]:
        return []

    def inspect(self, path: Path) -> dict[str, Any]:
        try:
            return {"valid": True, "error": None, "rows": len(parse(path.read_bytes())["rows"])}
        except ValueError as e:
            return {"valid": False, "error": str(e)}

    def describe_inspection(self, report: Mapping[str, Any]) -> str:
        return f"toy file: {report}"


TRACK = ToyTrack()
