"""The writer role (fast tier): the track's word on a written file (findings cited, data read back, variants), the
writer's verdict, the write protocol, the written corpus and the writers report. Real writers: pyarrow and DuckDB
in their workers (tests/test_writers_matrix.py runs the whole matrix with the JVM and Node writers)."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from parquet_conformance.conformance.harness import protocol, writing
from parquet_conformance.conformance.harness.executor import LocalExecutor
from parquet_conformance.conformance.harness.judge import Judge, writer_verdict
from parquet_conformance.conformance.harness.model import (
    WRITTEN,
    Cell,
    Error,
    Rejected,
    Verdict,
    WriterCell,
    WriteRow,
    WriterVerdict,
    Wrote,
)
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus import written as written_corpus
from parquet_conformance.corpus.model import Expectation, Kind
from parquet_conformance.generators.parquet import thrift
from parquet_conformance.generators.parquet.edits import FieldBytes, apply_edits, field_list, rewrite_fields
from parquet_conformance.generators.parquet.strict import parse_file
from parquet_conformance.generators.parquet.written import PROFILES, jobs
from tests.helpers import md_text

TRACK = tracks.get("parquet")


def _write(table: pa.Table, **options: object) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink, **options)
    return sink.getvalue()


def _flat() -> pa.Table:
    return pa.ipc.open_file(pa.BufferReader(TRACK.write_input("flat"))).read_all()


def test_every_profile_has_its_tables_and_default_has_every_table() -> None:
    assert [p for p, _ in jobs()].count("default") == len(PROFILES["default"].tables) >= 7
    assert all(t in TRACK.bases() for _, t in jobs())
    assert set(TRACK.write_profiles()) == set(PROFILES)


def test_a_conforming_file_passes_with_three_variants() -> None:
    written = TRACK.judge_written("flat", _write(_flat(), compression="none"))
    assert not written.findings and written.same_data and written.read_by == "reference"
    assert [v.name for v in written.variants] == ["as-written", "footer", "pages"]
    assert all(v.kind == Kind.GOLDEN and v.expect["legacy"] == Expectation.READ for v in written.variants)
    assert all(parse_file(v.data) for v in written.variants)  # the extensions keep the file valid
    assert writer_verdict(WRITTEN, written) == WriterVerdict.PASS


def test_compressed_pages_let_a_reader_refuse_the_file_as_written() -> None:
    written = TRACK.judge_written("flat", _write(_flat(), compression="zstd"))
    assert written.variants[0].expect["legacy"] == Expectation.EITHER
    assert "Codec support may vary" in " ".join(c.quote for c in written.variants[0].citations)


def test_a_field_of_another_wire_type_is_a_finding_citing_its_declaration() -> None:
    """hyparquet-writer 0.17.0 writes IntType.bitWidth as an i32: parquet.thrift declares `1: required i8`."""
    data = _write(pa.table({"small": pa.array([1, None, -3], pa.int8())}))
    (int_type,) = [r for r in parse_file(data).structs() if r.name == "IntType"]
    retyped = [FieldBytes(f.id, thrift.I32, thrift.encode_value(thrift.I32, 8)) if f.id == 1 else f
               for f in field_list(data, int_type)]
    data = apply_edits(data, [rewrite_fields(data, int_type, retyped)])
    written = TRACK.judge_written("flat", data)
    (finding,) = written.findings
    assert finding.rule == "wire-type" and finding.path.endswith("INTEGER.bitWidth")
    assert finding.citation.quote == "1: i8 bitWidth" and finding.citation.section == "struct IntType"
    assert [v.name for v in written.variants] == ["as-written"]  # no extensions on a nonconforming file
    assert written.variants[0].expect["legacy"] == Expectation.EITHER
    assert writer_verdict(WRITTEN, written) == WriterVerdict.NONCONFORMING


def test_text_that_is_not_utf8_is_a_finding_and_its_bytes_are_the_data() -> None:
    raw = pa.array([b"ok", b"\xff\xfe", None], pa.binary())
    text = pa.Array.from_buffers(pa.string(), len(raw), raw.buffers())  # no validation: what a writer may hold
    written = TRACK.judge_written("flat", _write(pa.table({"s": text})), None)
    assert [(f.rule, f.path) for f in written.findings] == [("utf8", "s")]
    assert "UTF-8 encoded character string" in written.findings[0].citation.quote
    # each value as read (generators/canonical.py): text where it is UTF-8, its bytes where not
    assert written.expected == {"columns": ["s"], "rows": [["ok"], [{"bin": "fffe"}], [None]]}


def test_data_the_writer_changed_is_judged_on_what_the_file_holds() -> None:
    table = _flat().set_column(0, "i32", pa.array([0] * 24, pa.int32()))
    written = TRACK.judge_written("flat", _write(table))
    assert not written.findings and not written.same_data and written.differing == ("i32",)
    assert written.expected is not None and written.expected["rows"][0][0] == {"int": "0"}
    assert writer_verdict(WRITTEN, written) == WriterVerdict.WRONG_DATA


def test_columns_a_writer_took_are_compared_alone() -> None:
    written = TRACK.judge_written("flat", _write(_flat().select(["i32", "f64"])), ["i32", "f64"])
    assert written.same_data and written.expected["columns"] == ["i32", "f64"]


def test_a_footer_that_does_not_decode_is_corrupt_and_rejected() -> None:
    data = bytearray(_write(_flat()))
    data[-8:-4] = (10**6).to_bytes(4, "little")
    written = TRACK.judge_written("flat", bytes(data))
    assert not written.decodes and written.variants[0].kind == Kind.CORRUPT
    assert written.variants[0].expect["legacy"] == Expectation.REJECT
    assert writer_verdict(WRITTEN, written) == WriterVerdict.NONCONFORMING


@pytest.mark.parametrize(("outcome", "verdict"), [("rejected", WriterVerdict.REFUSED), ("crash", WriterVerdict.CRASH),
                                                  ("oom", WriterVerdict.CRASH), ("timeout", WriterVerdict.HANG),
                                                  ("unhandled-error", WriterVerdict.UNHANDLED),
                                                  ("unavailable", WriterVerdict.SKIP),
                                                  ("harness-error", WriterVerdict.HARNESS_ERROR)])
def test_a_failure_to_write_is_judged_as_a_reads_outcome(outcome: str, verdict: WriterVerdict) -> None:
    assert writer_verdict(outcome, None) == verdict


def test_the_write_answer_is_parsed() -> None:
    assert protocol.parse_write_answer({"id": "3", "outcome": "written", "writer": "w 1"}, "3") == Wrote("w 1")
    rejected = protocol.parse_write_answer({"id": "3", "outcome": "rejected", "error": {"message": "no"}}, "3")
    assert rejected == Rejected(Error(None, "no"))
    with pytest.raises(protocol.ProtocolError):
        protocol.parse_write_answer({"id": "3", "outcome": "read", "columns": [], "rows": []}, "3")
    with pytest.raises(protocol.ProtocolError):
        protocol.parse_write_answer({"id": "4", "outcome": "written"}, "3")


def test_writers_write_in_their_workers_and_declined_tables_are_probed_by_column() -> None:
    """DuckDB declines all-types with its defaults (types it lacks): each column alone, then the columns it took."""
    tasks = writing.jobs_of([AdapterSpec("pyarrow"), AdapterSpec("duckdb")],
                            [("default", "flat"), ("default", "all-types"), ("v2", "page-index")])
    inputs = {t: TRACK.write_input(t) for t in ("flat", "all-types", "page-index")}
    got: list[tuple[WriteRow, bytes | None]] = []
    writing.write_all(LocalExecutor(), tasks, inputs, got.extend)
    rows = {r.file_id: (r, data) for r, data in got}
    assert rows["pyarrow/default/flat"][0].outcome == WRITTEN and rows["pyarrow/v2/page-index"][0].size
    assert "duckdb/v2/page-index" not in rows  # DuckDB writes no DATA_PAGE_V2: not asked
    declined, _ = rows["duckdb/default/all-types"]
    accepted, data = rows["duckdb/default/all-types-accepted"]
    assert declined.outcome == "rejected" and accepted.outcome == WRITTEN and data is not None
    assert accepted.columns and 0 < len(accepted.columns) < len(_all_types_columns())


def _all_types_columns() -> list[str]:
    return pa.ipc.open_file(pa.BufferReader(TRACK.write_input("all-types"))).schema.names


def test_the_written_corpus_makes_each_file_a_base_and_its_variants_cases(tmp_path: Path) -> None:
    data = _write(_flat())
    f = written_corpus.WrittenFile("pyarrow/default/flat", "pyarrow", "26", "default", "flat", None, data,
                                   TRACK.judge_written("flat", data))
    manifest = written_corpus.build(tmp_path, TRACK, [f])
    base = manifest.bases["written/pyarrow/default/flat"]
    assert base.baseline_case == "written/pyarrow/default/flat/as-written"
    assert [c.id.rsplit("/", 1)[1] for c in manifest.cases] == ["as-written", "footer", "pages"]
    case = manifest.case("written/pyarrow/default/flat/footer")
    assert (tmp_path / case.file).read_bytes() == f.written.variants[1].data
    assert case.citations[0].source == "pyarrow 26" and "metadata" in case.expect_hash  # the metadata role, derived
    assert json.loads((tmp_path / base.expected).read_text()) == f.written.expected


def _cell(case: str, adapter: str, verdict: Verdict, outcome: str = "read", message: str | None = None) -> Cell:
    return Cell(case=case, track="parquet", group=case.split("/")[0], kind=Kind.GOLDEN, adapter=adapter,
                implementation=adapter, version="1", role="legacy", expected=Expectation.READ, outcome=outcome,
                verdict=verdict, error_class=None, error_message=message, rows=None, data_hash=None, duration_s=0.1,
                metadata=None, attempts=1, previous_case=None, disagreement=None)


def test_the_writers_report_draws_the_grid_and_the_headline(tmp_path: Path) -> None:
    from parquet_conformance.conformance.harness.model import RunInfo
    from parquet_conformance.reports.model import RESULTS_FORMAT, RESULTS_VERSION, ResultsDocument, WritersMatrix
    from parquet_conformance.reports.writers import FORMAT, headline

    row = WriteRow("duckdb", "DuckDB", "2", "default", "nested", None, WRITTEN, None, None, 0.1)
    cases = [f"written/duckdb/default/nested/{v}" for v in ("as-written", "footer", "pages")]
    writer = Judge.writer_cell(row, None, cases)
    cells = [_cell(cases[0], "pyarrow", Verdict.REJECTED_VALID, "rejected", "levels"),
             _cell(cases[0], "fastparquet", Verdict.REJECTED_VALID, "rejected", "no lists"),
             _cell(cases[1], "pyarrow", Verdict.PASS)]
    main = [_cell("base/nested", "fastparquet", Verdict.REJECTED_VALID, "rejected", "no lists")]
    matrix = WritersMatrix("written/r1", {"default": "defaults"}, [writer], [],
                           {c: f"cases/{c}.parquet" for c in cases}, cells)
    doc = ResultsDocument(RESULTS_FORMAT, RESULTS_VERSION, RunInfo("r1", "0", 0, "none", "", None, ["parquet"], ""),
                          [], [], main, writers=matrix)
    assert [(w, r) for w, r, _ in headline(doc)] == [("duckdb 2", "pyarrow")]  # fastparquet fails the table itself
    paths = FORMAT.write(doc, tmp_path)
    html = (tmp_path / "writers.html").read_text()
    assert {p.name for p in paths} == {"writers.html", "writers.md"}
    assert 'href="written/r1/cases/written/duckdb/default/nested/as-written.parquet"' in html
    assert "(as on base/nested)" in html
    back = ResultsDocument.from_parts(doc.run, doc.cells, doc.parts())
    assert back.writers == matrix
    assert isinstance(writer, WriterCell) and writer.verdict == WriterVerdict.HARNESS_ERROR  # written, not judged


def test_the_grid_says_whose_failure_each_is(tmp_path: Path) -> None:
    """Issue 32: a reader failing a file the others read is the reader's fault; a file most readers fail, or one our
    strict decoder finds breaks a rule, is the writer's; a failure on the table itself is the table's; refusals the
    spec allows are apart; a run without the tables' base cells says so."""
    from parquet_conformance.conformance.harness.model import RunInfo
    from parquet_conformance.reports.model import RESULTS_FORMAT, RESULTS_VERSION, ResultsDocument, WritersMatrix
    from parquet_conformance.reports.writers import FORMAT, grids, headline, missing_bases

    def writer(name: str, verdict: WriterVerdict) -> WriterCell:
        row = WriteRow(name, name, "1", "default", "flat", None, WRITTEN, None, None, 0.1)
        cell = Judge.writer_cell(row, None, [f"written/{name}/default/flat/as-written"])
        return dataclasses.replace(cell, verdict=verdict)

    good, bad, broken = (writer("good", WriterVerdict.PASS), writer("bad", WriterVerdict.PASS),
                         writer("broken", WriterVerdict.NONCONFORMING))
    readers = ["r1", "r2", "r3", "r4"]
    cells = [_cell(good.cases[0], r, Verdict.WRONG_DATA if r == "r4" else Verdict.PASS) for r in readers]
    cells += [_cell(bad.cases[0], r, Verdict.PASS if r == "r4" else Verdict.REJECTED_VALID, "rejected", "no")
              for r in readers]
    cells += [_cell(broken.cases[0], "r1", Verdict.CRASH, "crash", "SIGSEGV"),
              _cell(broken.cases[0], "r2", Verdict.PASS, "rejected", "refused, as it may")]
    main = [_cell("base/flat", r, Verdict.PASS) for r in readers[:3]]  # r4 did not read base/flat
    matrix = WritersMatrix("written/r1", {"default": "defaults"}, [good, bad, broken], [],
                           {c.case: f"cases/{c.case}.parquet" for c in cells}, cells)
    doc = ResultsDocument(RESULTS_FORMAT, RESULTS_VERSION, RunInfo("r1", "0", 0, "none", "", None, ["parquet"], ""),
                          [], [], main, writers=matrix)
    assert [(w, r) for w, r, _ in headline(doc, "reader")] == [("good 1", "r4")]
    assert [(w, r) for w, r, _ in headline(doc, "writer")] == [("bad 1", "r1"), ("bad 1", "r2"), ("bad 1", "r3"),
                                                                ("broken 1", "r1")]
    grid = grids(doc)[0]
    assert grid.cells[("good 1", "r4")].text == "0/1 R1" and grid.cells[("good 1", "r4")].css == "fail-reader"
    assert grid.cells[("bad 1", "r1")].text == "0/1 W1" and grid.cells[("bad 1", "r1")].css == "fail-writer"
    assert grid.cells[("broken 1", "r2")].text == "0/1 r1" and grid.cells[("broken 1", "r2")].css == "refuses"
    assert missing_bases(doc) == ["base/flat"]
    FORMAT.write(doc, tmp_path)
    html, md = (tmp_path / "writers.html").read_text(), md_text((tmp_path / "writers.md").read_text())
    assert 'id="missing-bases"' in html and "**Warning**: the run has no cells of base/flat" in md
    assert "The readers' faults" in md and "- **good 1** → r4:" in md
