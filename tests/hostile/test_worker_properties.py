"""A property over whole workers: each file of an example gets a script of what the worker does when asked for it
(any lines in one write, lines carrying the request's id, the answer, an exit, a descendant in a session of its own
or double-forked; tests/hostile/worker.py `script`). Whatever the scripts, `Worker.read` returns an outcome for
every cell, every file whose script is just the answer is read as such whatever came before it, and no process
outlives the worker's close."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parquet_conformance.conformance.adapters import CommandAdapter
from parquet_conformance.conformance.harness.model import Read
from parquet_conformance.conformance.harness.workers import Worker
from parquet_conformance.corpus.parquet import TRACK
from parquet_conformance.generators.canonical import data_hash
from tests.hostile import assert_nothing_left, fake_command, token

GOOD_HASH = data_hash({"columns": ["x"], "rows": [[{"int": "1"}], [None]]})
GOOD = json.dumps({"id": "{id}", "outcome": "read", "columns": ["x"], "rows": [[{"int": "1"}], [None]]})
FILES = [f"/x/f{i}.parquet" for i in range(5)]

answer_like = st.sampled_from([
    GOOD, GOOD.replace("{id}", "1-00000000"), GOOD.replace('"x"', '"y"'),
    '{"id": "{id}", "outcome": "rejected", "error": {"class": "E", "message": "no"}}',
    '{"id": "{id}", "outcome": "read", "columns": ["x"], "rows": [[{"dec": "abc"}]]}',
    '{"id": "{id}"}', '{"id": "{id}", "outcome": "read", "rows": ' + "[" * 100 + "]" * 100 + "}",
    "[" * 5000 + "]" * 5000, "not json", "",
])
lines = st.lists(answer_like.map(str.encode) | st.binary(max_size=40).filter(lambda b: b"\n" not in b),
                 min_size=1, max_size=3)
step = (st.tuples(st.just("write"), lines.map(lambda ls: [x.hex() for x in ls]))
        | st.just(("answer",)) | st.just(("child",)) | st.just(("daemon",))
        | st.tuples(st.just("exit"), st.integers(0, 3)))
# Every script ends in an answer or an exit, so that no example waits for a timeout.
script = st.builds(lambda steps, last: [*steps, last], st.lists(step, max_size=3),
                   st.just(("answer",)) | st.tuples(st.just("exit"), st.integers(0, 3)))
scripts = st.lists(st.just([("answer",)]) | script, min_size=len(FILES), max_size=len(FILES))


def check(plan: list[list[Any]]) -> None:
    mark = token()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "script.json"
        path.write_text(json.dumps({f: steps for f, steps in zip(FILES, plan, strict=True)}))
        adapter = CommandAdapter()
        adapter.name = adapter.implementation = "scripted"
        adapter.timeout_s = 20.0
        worker = Worker(adapter, [*fake_command("script", mark), f"--script={path}"], TRACK.normalize)
        try:
            timed = [worker.read(f, f) for f in FILES]
        finally:
            worker.close()
    assert_nothing_left(mark)
    for steps, t in zip(plan, timed, strict=True):
        if [list(s) for s in steps] == [["answer"]]:
            assert isinstance(t.outcome, Read) and t.outcome.data_hash == GOOD_HASH, (plan, timed)


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(scripts)
def test_any_worker_behaviour_is_one_outcome_per_cell(plan: list[list[Any]]) -> None:
    check(plan)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(scripts)
def test_any_worker_behaviour_many(plan: list[list[Any]]) -> None:
    check(plan)
