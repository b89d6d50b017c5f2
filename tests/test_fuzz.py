"""Differential fuzzing (docs/fuzzing.md): the steps, the strategies, the oracle, determinism, and property
tests of the judge and the reports over the record strategies."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings

from parquet_conformance.app import fuzz
from parquet_conformance.conformance.harness import strategies
from parquet_conformance.conformance.harness.judge import classify, normalise
from parquet_conformance.conformance.harness.model import Cell, Finding, FuzzReport, OutcomeRow, Read, Rejected, Verdict
from parquet_conformance.conformance.harness.reading import WorkerSet
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.corpus.model import Expectation
from parquet_conformance.corpus.parquet import strategies as chain_strategies
from parquet_conformance.corpus.parquet.fuzz import FUZZER, Chain, replay
from parquet_conformance.generators.parquet import bases, mutations
from parquet_conformance.generators.parquet.footer import FooterError, read_footer
from parquet_conformance.generators.parquet.mutations import Context
from parquet_conformance.generators.parquet.mutations.structure import (
    DeleteField,
    DropStop,
    EditVarint,
    FlipBits,
    InsertField,
    MoveField,
    SetWireType,
)
from parquet_conformance.generators.parquet.strict import parse_file
from parquet_conformance.reports.findings import hexdump, summary, write_findings

FLAT = bases.base_bytes("flat")


def _apply(step: mutations.Mutation) -> bytes:
    return step.apply(FLAT, Context(random.Random(0)))


@pytest.mark.parametrize("step", [
    DeleteField(struct="FileMetaData", field=2),  # num_rows, a required field
    DropStop(struct="KeyValue"),
    EditVarint(struct="ColumnMetaData", form="overlong", amount=2),  # the strict decoder refuses overlong varints
    SetWireType(struct="RowGroup", type=5, field=1),  # total_byte_size (i64) as an i32
    FlipBits(target="footer-length", offset=3, mask=0x80),
])
def test_each_structure_step_makes_a_file_the_strict_decoder_refuses(step: mutations.Mutation) -> None:
    with pytest.raises(FooterError):
        parse_file(_apply(step))


def test_an_unknown_field_and_a_reordered_one_keep_the_footer_valid() -> None:
    parse_file(_apply(InsertField(struct="ColumnMetaData", id=200, type=5, hex="02")))
    moved = _apply(MoveField(struct="FileMetaData", field=0, to=3))
    assert parse_file(moved).root.value("version") == parse_file(FLAT).root.value("version")


@settings(max_examples=60, deadline=None)
@given(chain_strategies.steps())
def test_every_step_round_trips_through_its_json_form(step: mutations.Mutation) -> None:
    assert mutations.parse(json.loads(json.dumps(step.to_json()))) == step


@settings(max_examples=15, deadline=None)
@given(FUZZER.chains())
def test_a_chain_replays_from_its_json_alone(chain: Chain) -> None:
    again = Chain.from_json(json.loads(json.dumps(chain.to_json())))
    assert replay(again) == replay(chain)


def test_the_oracle() -> None:
    for base in chain_strategies.BASES:
        assert FUZZER.oracle(bases.base_bytes(base), base).expect == {"legacy": Expectation.READ}
    assert FUZZER.oracle(FLAT[:-1], "flat").expect == {"legacy": Expectation.REJECT}


@pytest.mark.parametrize("args", [["--examples", "0"], ["--time", "-1"], ["--examples", "5", "--budget", "-1"],
                                  ["--examples", "5", "--shrink-time", "-2"],
                                  ["--examples", "5", "--adapter", "no-such-reader"]])
def test_bad_fuzz_arguments_are_one_line(args: list[str], tmp_path: Path) -> None:
    import subprocess

    from tests.helpers import CLI

    out = tmp_path / "out"
    proc = subprocess.run([*CLI, "fuzz", "--master", "none", "--out", str(out), *args], capture_output=True, text=True)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "Traceback" not in proc.stderr and not out.exists()


def test_batches_are_seeded_by_the_run_seed_and_index_alone() -> None:
    assert fuzz.batch_seed(3, 1) == fuzz.batch_seed(3, 1)
    assert len({fuzz.batch_seed(s, b) for s in range(3) for b in range(3)}) == 9
    seen: list[list[dict]] = [[], []]
    for run in seen:
        fuzz.drive("parquet", fuzz.batch_seed(0, 0), 10, lambda c, run=run: run.append(c.to_json()) and False)
    assert seen[0] == seen[1] and len(seen[0]) == 10


def test_a_batch_with_pyarrow_finds_the_same_findings_twice() -> None:
    runs = []
    for _ in range(2):
        workers = WorkerSet([AdapterSpec("pyarrow")])
        try:
            with tempfile.TemporaryDirectory() as tmp:
                result = fuzz.search_batch(fuzz.Probe.of("parquet", workers, Path(tmp)), 0, fuzz.batch_seed(0, 0), 10)
        finally:
            workers.close()
        runs.append(sorted((f["verdict"], f["signature"], f["example"]) for f in result["findings"]))
        assert result["examples"] == 10
    assert runs[0] == runs[1]


def test_distinct_keeps_the_first_example_of_each_key() -> None:
    entry = {"adapter": "a", "implementation": "A", "version": "1", "role": "legacy", "expected": "reject",
             "verdict": "fail:crash", "outcome": "crash", "signature": "boom", "message": "boom 1", "base": "flat",
             "chain": {}, "batch_seed": 1}
    results = [{"batch": 1, "findings": [{**entry, "batch": 1, "example": 0}], "harness": []},
               {"batch": 0, "findings": [{**entry, "batch": 0, "example": 7}, {**entry, "batch": 0, "example": 3}],
                "harness": []}]
    found, harness = fuzz.distinct(results)
    assert [(f.batch, f.example) for f in found] == [(0, 3)] and harness == []


def test_window_shows_where_the_file_differs() -> None:
    base, data = bytes(100), bytes(50) + b"\x01" + bytes(49)
    lo, hexed = fuzz.window(base, data, context=4)
    assert lo == 46 and bytes.fromhex(hexed) == bytes(4) + b"\x01" + bytes(4)
    assert hexdump(lo, hexed).startswith("0000002e  00 00 00 00 01")


# -- the record strategies: properties of the judge and the reports -----------------------


@given(strategies.outcome_rows())
def test_an_outcome_row_survives_its_row_form(row: OutcomeRow) -> None:
    assert OutcomeRow.from_row(row.to_row()) == row


@given(strategies.cells())
def test_a_cell_survives_its_row_form(cell: Cell) -> None:
    assert Cell.from_row(cell.to_row()) == cell


@given(strategies.outcomes(), strategies.expectations)
def test_the_judge_passes_only_the_expected_data_or_a_reject_that_was_allowed(outcome, expected) -> None:  # noqa: ANN001
    verdict = classify(expected, outcome, {"a" * 64})
    if verdict == Verdict.PASS:
        assert (isinstance(outcome, Read) and outcome.data_hash == "a" * 64 and expected != Expectation.REJECT) or (
            isinstance(outcome, Rejected) and expected != Expectation.READ)


@given(strategies.texts)
def test_a_signature_is_stable_under_normalising(text: str) -> None:
    assert normalise(normalise(text)) == normalise(text)


@settings(max_examples=20, deadline=None)
@given(strategies.findings().map(lambda f: [f]))
def test_the_findings_report_writes_every_finding(found: list[Finding]) -> None:
    report = FuzzReport(seed=0, mode="examples", master="none", track="parquet", adapters=["a"], batches=1,
                        examples=25, search_s=1.0, examples_per_s=25.0, oracle_errors=0, findings=found, harness=[])
    with tempfile.TemporaryDirectory() as tmp:
        doc, page = write_findings(report, Path(tmp))
        assert len(json.loads(doc.read_text())["findings"]) == len(found)
        assert page.read_text().count("<article") == len(found)
    assert f"{found[0].implementation} {found[0].version}: 1" in summary(report)


def test_a_step_after_one_that_broke_the_chunks_offsets_does_not_apply() -> None:
    """A chain that deleted a column chunk's total_compressed_size: a later step that moves data cannot find the
    chunk's pages, and is skipped (it once raised TypeError in layout.pointers and ended the fuzz run)."""
    chain = Chain("flat", (DeleteField(struct="ColumnMetaData", field=6),
                           InsertField(struct="FileMetaData", id=200, type=5, hex="02")))
    data, applied = replay(chain)
    assert applied == [0]
    md = next(r for r in read_footer(data)[0].structs() if r.name == "ColumnMetaData")
    assert md.get("total_compressed_size") is None


def test_a_kept_cases_oracle_is_decided_in_a_fresh_process_as_in_this_one() -> None:
    for data in (FLAT, FLAT[:-1], b"PAR1" + bytes(40) + b"PAR1"):
        assert fuzz.fresh_oracle("parquet", data, "flat") == FUZZER.oracle(data, "flat")
