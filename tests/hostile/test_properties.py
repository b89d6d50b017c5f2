"""Properties over arbitrary input at each boundary, in process: any answer line becomes an outcome or a protocol
error (nothing else escapes), any edit of a manifest is one DistError or a manifest every cell of which the Judge
judges, any edit of a run record is one ResultsError or a record that `check`'s and the history's readers use.
The `slow` variants (`pytest -m slow`, run by .ci/run) draw thousands of examples each."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parquet_conformance.conformance.harness import protocol
from parquet_conformance.conformance.harness.judge import Judge
from parquet_conformance.conformance.harness.model import (
    Cell,
    Crash,
    Error,
    HarnessError,
    OutcomeRow,
    OutOfMemory,
    Read,
    Rejected,
    RunInfo,
)
from parquet_conformance.conformance.harness.results import (
    RUN_RECORD,
    ResultsError,
    RunRecord,
    Store,
    latest,
    read_cells,
    read_record,
)
from parquet_conformance.corpus import dist
from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus.build import generate
from parquet_conformance.reports.document import stored_document
from parquet_conformance.reports.history import history_markdown, load_history

ID = "7-0a1b2c3d"
FAST = settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))  # the fast tier's share
MANY = settings(max_examples=5000, deadline=None, suppress_health_check=list(HealthCheck))

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=24)
number_texts = st.sampled_from(["abc", "1_000", " 1", "0x10", "1e999999", "NaN", "-inf", "1" * 5000, "", "٣",
                                "2001-13-01", "00 ff", "+", ".", "1.5e", "9" * 401, "{12345678-1234-5678"])
TAGS = ["int", "float", "dec", "bin", "date", "uuid", "ts_ns", "ts_us", "ts_ms", "time_ns", "time_us", "time_ms",
        "struct", "uint", "yson", "raw", "weird"]
tokens = st.recursive(
    st.none() | st.booleans() | st.text(max_size=5)
    | st.builds(lambda tag, x: {tag: x}, st.sampled_from(TAGS), number_texts | st.text(max_size=12) | json_values),
    lambda inner: st.lists(inner, max_size=3) | st.builds(lambda d: {"struct": d}, st.dictionaries(
        st.text(max_size=4), inner, max_size=3)), max_leaves=12)
answers = st.fixed_dictionaries(
    {"id": st.just(ID) | st.text(max_size=4) | json_values,
     "outcome": st.sampled_from(["read", "rejected", "crash", "oom", "harness-error", "maybe"]) | json_values},
    optional={"columns": st.lists(st.text(max_size=4), max_size=3) | json_values,
              "rows": st.lists(st.lists(tokens, max_size=3), max_size=4) | json_values,
              "streams": st.lists(st.text(max_size=8), max_size=2) | json_values,
              "format": json_values,
              "error": st.fixed_dictionaries({"message": st.text() | json_values},
                                             optional={"class": st.text() | json_values}) | json_values,
              "metadata": st.text(max_size=50) | json_values,
              "library_s": st.floats() | json_values})
deep = st.integers(0, 300_000).map(lambda n: ("[" * n + "]" * n).encode())
lines = (st.binary(max_size=200) | answers.map(lambda a: json.dumps(a).encode()) | deep
         | st.builds(lambda a, junk: json.dumps(a).encode()[:-1] + junk, answers, st.binary(max_size=8)))
OUTCOMES = (Read, Rejected, Crash, OutOfMemory, HarnessError)
ERROR = Error("E", "refused")


def parsed(line: bytes, normalize: Any) -> object:
    """The outcome a line gives, or the ProtocolError it is: nothing else may come out."""
    try:
        obj, raw_sha = protocol.parse_line(line)
        return protocol.parse_answer(obj, ID, normalize, raw_sha)
    except protocol.ProtocolError as e:
        return e


def check_line(line: bytes) -> None:
    for track in tracks.all_tracks():
        result = parsed(line, track.normalize)
        assert isinstance(result, (*OUTCOMES, protocol.ProtocolError)), result
        if isinstance(result, OUTCOMES) and not isinstance(result, Read):
            result.error.message.encode("utf-8")  # sanitised: storable as it is


@FAST
@given(lines)
def test_any_answer_line_is_an_outcome_or_a_protocol_error(line: bytes) -> None:
    check_line(line)


@pytest.mark.slow
@MANY
@given(lines)
def test_any_answer_line_many(line: bytes) -> None:
    check_line(line)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.fixed_dictionaries({"id": st.just(ID) | json_values, "ok": st.booleans() | json_values},
                             optional={"adapter": st.text() | json_values, "implementation": st.text() | json_values,
                                       "version": st.text() | json_values, "engine": st.text() | json_values,
                                       "roles": st.lists(st.text(max_size=12), max_size=20) | json_values,
                                       "unavailable": st.text() | json_values}))
def test_any_start_answer_is_a_description_or_a_protocol_error(answer: dict) -> None:
    try:
        reply = protocol.parse_start(answer, ID)
    except protocol.ProtocolError:
        return
    if isinstance(reply, protocol.StartReply):  # what was accepted is within every limit of the protocol
        assert len(reply.implementation) <= protocol.MAX_DESCRIPTION and len(set(reply.roles)) == len(reply.roles)
        assert len(reply.roles) <= protocol.MAX_ROLES


# -- manifests ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def manifest_doc(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("props") / "corpus"
    generate(out, only="base/flat,corrupt/tiny/*,parx/*")
    return json.loads((out / "manifest.json").read_text())


SPECIAL = st.sampled_from([-1, 2**70, "12", 1.5, None, True, "", "x" * 5000, "../../etc/passwd", "/etc/passwd",
                           "legacy", "aware:x", "base/flat", "no/such/case", "my role#1", [], {}, "0" * 64])
replacement = SPECIAL | json_values | st.integers(1, 200_000).map(lambda n: json.loads("[" * min(n, 900) + "]"
                                                                                       * min(n, 900)))


@st.composite
def edits(draw: st.DrawFn, doc: dict[str, Any]) -> Any:
    """The document with one to three values replaced, keys deleted or added, anywhere in it."""
    doc = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, 3))):
        parent: Any = None
        key: Any = None
        node: Any = doc
        while isinstance(node, (dict, list)) and node and draw(st.integers(0, 3)) > 0:
            parent, key = node, draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
            node = node[key]
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if parent is None:
            if action == "replace":
                doc = draw(replacement)
            continue
        if action == "replace":
            parent[key] = draw(replacement)
        elif action == "delete":
            del parent[key]
        elif isinstance(parent, dict):
            parent[draw(st.text(max_size=10))] = draw(replacement)
        else:
            parent.append(draw(replacement))
    return doc


def judged(text: str) -> None:
    """A manifest that loads is one every cell of which the Judge judges, and whose files `check` can list."""
    try:
        manifest = dist.load_manifest(text, "manifest.json")
    except dist.DistError as e:
        assert "\n" not in str(e) and str(e).startswith("manifest.json")
        return
    rows = [OutcomeRow.of(case=c.id, adapter=adapter, implementation="x", version="1", roles=roles, outcome=outcome,
                          duration_s=0.1)
            for c in manifest.cases
            for adapter, roles, outcome in (("a", ["legacy"], Read(manifest.bases[c.base].data_hash, 1)),
                                            ("b", [], Rejected(ERROR)),
                                            ("c", ["aware:x", "metadata"], Crash(ERROR)))]
    cells = Judge.of(manifest).cells(rows)
    assert {(c.case, c.adapter) for c in cells} == {(r.case, r.adapter) for r in rows}
    dist.check(manifest, lambda rel: "0" * 64, lambda rel: None, None, [])


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_manifest_edit_is_one_error_or_judged_whole(manifest_doc: dict[str, Any], data: st.DataObject) -> None:
    judged(json.dumps(data.draw(edits(manifest_doc))))


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_manifest_edit_many(manifest_doc: dict[str, Any], data: st.DataObject) -> None:
    judged(json.dumps(data.draw(edits(manifest_doc))))


# -- run records ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A results dataset of three runs (pr-9, pr-10, pr-11) of one cell each; pr-10's record is the one edited."""
    out = tmp_path_factory.mktemp("records")
    store = Store(out)
    for n in (9, 10, 11):
        run = f"pr-{n}"
        info = RunInfo(run, "0", 0, "none", "/c", None, ["parquet"], "0" * 64, f"2026-01-{n:02d}T00:00:00+00:00")
        cell = Cell(case="base/flat", track="parquet", group="base", kind="golden", adapter="a", implementation="A",
                    version="1", role="legacy", expected="read", outcome="read", verdict="pass", error_class=None,
                    error_message=None, rows=1, data_hash="0" * 64, duration_s=0.1, metadata=None, attempts=1,
                    previous_case=None, disagreement=None)
        store.write(run, [Cell.from_row(cell.to_row())], RunRecord(info, ["base/flat"], ["base/flat"]))
    return store.results, json.loads((store.results / "run=pr-10" / RUN_RECORD).read_text())


def used(results: Path, record: Any) -> None:
    (results / "run=pr-10" / RUN_RECORD).write_text(json.dumps(record))
    try:
        read_record(results, "pr-10")
    except ResultsError as e:
        assert "\n" not in str(e) and RUN_RECORD in str(e)
    try:  # a record that does not read is an error naming it, never a fall-back on another run's data
        assert latest(results, ["pr-9", "pr-10", "pr-11"]) in ("pr-10", "pr-11")
    except ResultsError as e:
        assert "\n" not in str(e) and RUN_RECORD in str(e)
    history = load_history(results)
    assert {p.run for p in history.runs} >= {"pr-9", "pr-11"}  # a bad record leaves out its run alone
    history_markdown(history)
    try:
        stored_document(results, "pr-10")
    except ResultsError as e:
        assert "\n" not in str(e)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_run_record_edit_is_one_error_or_used(results: tuple[Path, dict[str, Any]], data: st.DataObject) -> None:
    used(results[0], data.draw(edits(results[1])))


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_run_record_edit_many(results: tuple[Path, dict[str, Any]], data: st.DataObject) -> None:
    used(results[0], data.draw(edits(results[1])))


def test_check_takes_the_run_that_started_last(results: tuple[Path, dict[str, Any]]) -> None:
    (results[0] / "run=pr-10" / RUN_RECORD).write_text(json.dumps(results[1]))
    assert read_cells(results[0])[0] == "pr-11"  # not pr-9, which sorts last by name
