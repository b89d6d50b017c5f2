"""Both Skiff adapters through their real workers (python -m ...worker NAME, the process the harness starts):
the seed's byte examples in both implementations, crashes of the binding as `crash` outcomes that the next
cell survives, and the hypothesis round trip across implementations (rows -> bytes by one, bytes -> rows by the
other). The binding's tests skip only when ytsaurus-yson is not installed."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parquet_conformance.conformance.adapters import AdapterUnavailable
from parquet_conformance.conformance.adapters.skiff.ytsaurus import YtsaurusSkiff
from parquet_conformance.conformance.harness.model import Crash, Read, Rejected
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.corpus.build import generate
from parquet_conformance.corpus.skiff import TRACK
from parquet_conformance.corpus.skiff.catalog import all_bases
from parquet_conformance.generators.skiff import reference, tokens
from parquet_conformance.generators.skiff.randomized import random_document

HAVE_YT = importlib.util.find_spec("yt_yson_bindings") is not None
ADAPTERS = ["skiff-reference", pytest.param("ytsaurus-skiff", marks=pytest.mark.skipif(
    not HAVE_YT, reason="ytsaurus-yson is not installed (pip install 'parquet-conformance[skiff]')"))]
needs_yt = pytest.mark.skipif(not HAVE_YT, reason="ytsaurus-yson is not installed")
# The binding writes YSON in its own spelling: the seed's `{foo=bar}` comes back as `{"foo"="bar";}`.
YSON_RESPELLED = {"skiff/seed/yson32-map/encode", "skiff/seed/format-config/encode"}


class RawWorker:
    """The adapter's worker process, spoken to line by line, so that a test sees the raw answer."""

    def __init__(self, name: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "parquet_conformance.conformance.harness.worker", name],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True)
        self.n = 0
        assert self.ask({"cmd": "start", "protocol": 1})["ok"] is True

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin and self.proc.stdout
        self.n += 1
        self.proc.stdin.write(json.dumps({**request, "id": str(self.n)}) + "\n")
        self.proc.stdin.flush()
        answer: dict[str, Any] = json.loads(self.proc.stdout.readline())
        assert answer["id"] == str(self.n)
        return answer

    def run(self, op: str, path: Path) -> dict[str, Any]:
        return self.ask({"cmd": op, "path": str(path), "case": "test"})

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("skiff-corpus")
    return root, generate(root, only="skiff/seed/*,skiff/corrupt/other-columns-*,skiff/ambiguous/boolean-*,"
                                     "skiff/encode/null-int64/*", tracks=[TRACK]).to_json()


@pytest.fixture(scope="module")
def workers() -> Iterator[dict[str, RawWorker]]:
    started = {name: RawWorker(name) for name in ["skiff-reference", *(["ytsaurus-skiff"] if HAVE_YT else [])]}
    yield started
    for worker in started.values():
        worker.close()


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_seed_examples_are_byte_exact(adapter: str, corpus: tuple[Path, dict[str, Any]],
                                      workers: dict[str, RawWorker]) -> None:
    root, manifest = corpus
    seed_cases = [c for c in manifest["cases"] if c["id"].startswith("skiff/seed/")]
    assert len(seed_cases) == 26
    for entry in seed_cases:
        answer = workers[adapter].run(entry["op"], root / entry["file"])
        assert answer["outcome"] == "read", (entry["id"], answer)
        base = all_bases()[entry["base"]]
        assert tokens.normalize(answer) == base.expected(), entry["id"]
        if entry["op"] == "encode":
            seed_bytes = list(base.streams or ())
            if adapter == "ytsaurus-skiff" and entry["id"] in YSON_RESPELLED:  # same YSON value, other spelling
                assert answer["streams"] != seed_bytes and b'{"foo"="bar";}' in bytes.fromhex(answer["streams"][0])
            else:
                assert answer["streams"] == seed_bytes, entry["id"]


@needs_yt
def test_binding_crashes_are_crash_cells_and_the_next_cell_runs(corpus: tuple[Path, dict[str, Any]]) -> None:
    root, manifest = corpus
    by_id = {c["id"]: c for c in manifest["cases"]}
    worker = AdapterSpec("ytsaurus-skiff").worker()
    try:
        def run(case_id: str) -> Any:
            return worker.read(str(root / by_id[case_id]["file"]), case_id, by_id[case_id]["op"]).outcome

        segv = run("skiff/corrupt/other-columns-list/decode")
        assert isinstance(segv, Crash) and "SIGSEGV" in (segv.error.message or ""), segv
        good = run("skiff/seed/int64-42/decode")
        assert isinstance(good, Read) and good.data_hash == manifest["bases"]["skiff-seed-int64-42-decode"]["data_hash"]
        aborted = run("skiff/encode/null-int64/encode")
        assert isinstance(aborted, Crash) and "None passed to SkiffRecord" in (aborted.error.message or "")
        # An exception whose str() raises (its message holds the byte 0xff) is still a refusal, not a crash.
        refused = run("skiff/ambiguous/boolean-byte-ff/decode")
        assert isinstance(refused, Rejected) and "UnicodeDecodeError" in (refused.error.message or "")
    finally:
        worker.close()


def test_without_the_binding_the_adapter_is_unavailable_in_one_line() -> None:
    adapter = YtsaurusSkiff()
    adapter.module = "yt_yson_bindings_not_installed"
    with pytest.raises(AdapterUnavailable, match=r"pip install 'parquet-conformance\[skiff\]'") as error:
        adapter.load()
    assert "\n" not in str(error.value)


def single_table_documents(seed: int) -> list[tuple[dict[str, Any], list[list[Any]]]]:
    """A random format and rows, as one (format, rows) per table: the output side writes each table alone."""
    fmt, rows = random_document(f"hypothesis-{seed}")
    out = []
    for index, table in enumerate(fmt["table_skiff_schemas"]):
        one = {**fmt, "table_skiff_schemas": [table]}
        out.append((one, [[0, cols] for t, cols in rows if t == index]))
    return out


@needs_yt
@pytest.mark.parametrize(("writer", "reader"), [("skiff-reference", "ytsaurus-skiff"),
                                                ("ytsaurus-skiff", "skiff-reference")])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32))
def test_round_trip_across_implementations(writer: str, reader: str, seed: int, workers: dict[str, RawWorker],
                                           tmp_path: Path) -> None:
    for n, (fmt, rows) in enumerate(single_table_documents(seed)):
        encode_doc = tmp_path / f"{seed}-{n}-encode.json"
        encode_doc.write_bytes(reference.dump({"format": fmt, "rows": rows}))
        written = workers[writer].run("encode", encode_doc)
        assert written["outcome"] == "read", written
        [stream] = written["streams"]
        decode_doc = tmp_path / f"{seed}-{n}-decode.json"
        decode_doc.write_bytes(reference.dump({"format": fmt, "stream": stream}))
        read = workers[reader].run("decode", decode_doc)
        assert read["outcome"] == "read", (read, stream)
        assert tokens.normalize(read) == tokens.normalize({"rows": rows})
