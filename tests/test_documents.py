"""kernel/documents.py: the checker of our own agrees with the `jsonschema` package on the schemas we derive, over
real documents edited anywhere; it names the field; parsing is bounded in size and depth and strict."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parquet_conformance.conformance.harness import protocol
from parquet_conformance.conformance.harness.model import RunInfo
from parquet_conformance.conformance.harness.results import RunRecord
from parquet_conformance.corpus.build import generate
from parquet_conformance.corpus.model import manifest_schema
from parquet_conformance.kernel import documents

# Two deliberate differences from JSON Schema are kept out of the drawn values: an integer is never a float (1.0),
# and an anchored pattern matches the whole string (Python's `$` also matches before a final newline).
text = st.text(alphabet=st.characters(blacklist_characters="\n"), max_size=12)
scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | text
           | st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
                      max_leaves=10)


@st.composite
def edited(draw: st.DrawFn, doc: Any) -> Any:
    doc = copy.deepcopy(doc)
    parent: Any = None
    key: Any = None
    node = doc
    while isinstance(node, (dict, list)) and node and draw(st.integers(0, 4)) > 0:
        parent, key = node, draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
        node = node[key]
    if parent is None:
        return draw(values)
    action = draw(st.sampled_from(["replace", "delete", "add"]))
    if action == "replace":
        parent[key] = draw(values | st.sampled_from(["my role#1", "legacy", "0" * 64, "x" * 300, -1, 0]))
    elif action == "delete":
        del parent[key]
    elif isinstance(parent, dict):
        parent[draw(text)] = draw(values)
    else:
        parent.append(draw(values))
    return doc


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[dict[str, Any], Any]]:
    """(schema, a valid document) pairs: a manifest, a run record, a start answer, an error answer."""
    out = tmp_path_factory.mktemp("docs") / "corpus"
    generate(out, only="base/flat,corrupt/tiny/empty")
    manifest = json.loads((out / "manifest.json").read_text())
    record = RunRecord(RunInfo("r1", "0", 0, "none", "/c", None, ["parquet"], "0" * 64,
                               "2026-01-01T00:00:00+00:00"), ["base/flat"], ["base/flat"]).to_json()
    start = protocol.to_json(protocol.StartReply("1-ab", "x", "X (Rust)", "1.2.3", ["legacy", "aware:x"], engine="e"))
    error = protocol.to_json(protocol.ErrorAnswer("2-cd", "rejected", protocol.ErrorInfo("no", "E"), 0.5))
    return [(manifest_schema(), manifest), (documents.record_schema(RunRecord), record),
            (documents.record_schema(protocol.StartReply), start),
            (documents.record_schema(protocol.ErrorAnswer), error)]


def agree(schema: dict[str, Any], doc: Any) -> None:
    ours = documents.problem_of(doc, schema)
    theirs = jsonschema.Draft202012Validator(schema).is_valid(doc)
    assert (ours is None) == theirs, (ours, doc)


def test_the_samples_are_valid(samples: list[tuple[dict[str, Any], Any]]) -> None:
    for schema, doc in samples:
        jsonschema.Draft202012Validator.check_schema(schema)
        agree(schema, doc)
        assert documents.problem_of(doc, schema) is None


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_our_checker_agrees_with_jsonschema(samples: list[tuple[dict[str, Any], Any]], data: st.DataObject) -> None:
    schema, doc = data.draw(st.sampled_from(samples))
    agree(schema, data.draw(edited(doc)))


@pytest.mark.slow
@settings(max_examples=5000, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_our_checker_agrees_with_jsonschema_many(samples: list[tuple[dict[str, Any], Any]],
                                                 data: st.DataObject) -> None:
    schema, doc = data.draw(st.sampled_from(samples))
    agree(schema, data.draw(edited(doc)))


@pytest.mark.parametrize(("doc", "message"), [
    ({"format": 1}, "where: 'manifest_version' is required"),
])
def test_a_problem_names_the_field(doc: Any, message: str) -> None:
    with pytest.raises(documents.DocumentError, match=message):
        documents.validate(doc, {"type": "object", "required": ["manifest_version"]}, "where")


@pytest.mark.parametrize(("data", "message"), [
    (b"[" * 100_000 + b"]" * 100_000, "nested too deep to parse"),
    (b"[" * 70 + b"]" * 70, "nested deeper than 64"),
    (b'{"a": NaN}', "NaN is not a JSON number"),
    (b'{"a": 1e999}', "out of range"),
    (b"1" * 5000, "not JSON"),
    (b"\xff", "not JSON"),
    (b"x" * 101, "larger than 100 bytes"),
])
def test_parsing_is_bounded_and_strict(data: bytes, message: str) -> None:
    with pytest.raises(documents.DocumentError, match=message):
        documents.parse(data, 100 if len(data) == 101 else 1 << 20)


def test_only_regular_files_are_read(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "big").write_bytes(b"{}" * 100)
    (tmp_path / "link").symlink_to(tmp_path / "big")
    with pytest.raises(documents.DocumentError, match="not a regular file"):
        documents.read_bytes(tmp_path / "fifo", 10)
    with pytest.raises(documents.DocumentError, match="larger than 10 bytes"):
        documents.read_bytes(tmp_path / "big", 10)
    with pytest.raises(documents.DocumentError, match="a symbolic link"):
        documents.read_bytes(tmp_path / "link", 1000, links=False)
    assert documents.read_bytes(tmp_path / "link", 1000) == b"{}" * 100
    assert math.isfinite(documents.parse(b"1.5", 10))  # type: ignore[arg-type]


def _depth_by_recursion(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth_by_recursion(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth_by_recursion(v) for v in value), default=0)
    return 0


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=3),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner,
                                                                                        max_size=3), max_leaves=30)


@given(JSON_VALUES, st.integers(0, 8))
def test_depth_is_the_deepest_nesting_and_stops_past_its_limit(value: object, stop: int) -> None:
    """The level-at-a-time walk (every value looked at once) against the plain recursive definition."""
    found, deepest = documents.depth(value, stop), _depth_by_recursion(value)
    assert found == deepest if deepest <= stop else found == stop + 1


def _same(a: object, b: object) -> bool:
    """Equal, and of the same types all the way down (a tuple stays a tuple)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)  # type: ignore[attr-defined]
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))  # type: ignore[arg-type]
    return a == b or (a != a and b != b)  # NaN is itself here


@pytest.mark.parametrize("record", ["Cell", "OutcomeRow", "RunInfo", "DataDiff", "AdapterScore"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_plain_is_asdict_without_the_copies(record: str, data: st.DataObject) -> None:
    import dataclasses

    from parquet_conformance.conformance.harness import model
    from parquet_conformance.kernel.documents import plain
    from parquet_conformance.reports import model as reports_model

    cls = getattr(model, record, None) or getattr(reports_model, record)
    value = data.draw(st.from_type(cls))
    assert _same(plain(value), dataclasses.asdict(value))


def test_plain_keeps_tuples_and_copies_what_it_does_not_know() -> None:
    import collections
    import dataclasses

    from parquet_conformance.kernel.documents import plain

    pair = collections.namedtuple("pair", "a b")

    @dataclasses.dataclass
    class Inner:
        xs: list[int]

    @dataclasses.dataclass
    class Outer:
        t: tuple[Any, ...]
        p: Any
        s: set[int]
        inner: Inner

    value = Outer((1, Inner([2])), pair(Inner([3]), "b"), {4}, Inner([5]))
    out = plain(value)
    assert _same(out, dataclasses.asdict(value))
    assert out["s"] == {4} and out["s"] is not value.s  # deep-copied, as asdict does
