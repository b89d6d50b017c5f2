"""Documented representations (generators/representations.py, conformance/adapters/representations.py): the
transforms of expected data, the judge's `representation` verdict for a read a declared transform explains (and
wrong data for one it does not), the scores and the gate counting it apart, and every adapter's declaration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parquet_conformance.conformance import adapters
from parquet_conformance.conformance.harness.gate import Entry, Status, decide
from parquet_conformance.conformance.harness.judge import Judge, Represented
from parquet_conformance.conformance.harness.model import Cell, OutcomeRow, Read, Verdict
from parquet_conformance.conformance.harness.sample import sample_of
from parquet_conformance.corpus.model import MANIFEST_VERSION, Manifest
from parquet_conformance.generators.canonical import data_hash
from parquet_conformance.generators.representations import Representation, represent, variants
from parquet_conformance.kernel.errors import UsageError
from parquet_conformance.reports.model import scores

NAN = Representation.NULL_FLOAT_AS_NAN
LEAVES = Representation.STRUCT_AS_LEAF_COLUMNS
MICROS = Representation.TEMPORAL_MICROSECONDS

F = {"float": "1.5"}
EXPECTED = {"columns": ["i", "f", "rec"],
            "rows": [[{"int": "1"}, F, {"struct": {"a": {"int": "2"}, "b": {"struct": {"c": "x"}}}}],
                     [None, None, None],
                     [{"int": "3"}, {"float": "-0.0"}, {"struct": {"a": None, "b": None}}]]}


def with_nan(data: dict[str, object]) -> dict[str, object]:
    return represent(data, NAN)


def test_a_null_float_becomes_nan_and_nothing_else_changes() -> None:
    got = represent(EXPECTED, NAN)
    assert [r[1] for r in got["rows"]] == [F, {"float": "nan"}, {"float": "-0.0"}]
    assert [r[0] for r in got["rows"]] == [{"int": "1"}, None, {"int": "3"}]  # not a float column: its null stays
    assert EXPECTED["rows"][1][1] is None  # the expected data itself is not changed


def test_a_struct_becomes_one_column_per_leaf_a_null_struct_a_null_in_each() -> None:
    got = represent(EXPECTED, LEAVES)
    assert got["columns"] == ["i", "f", "rec.a", "rec.b.c"]
    assert [r[2:] for r in got["rows"]] == [[{"int": "2"}, "x"], [None, None], [None, None]]


def test_temporal_values_are_floored_to_microseconds() -> None:
    data = {"columns": ["t"], "rows": [[{"ts_ns": "-50803199999999877"}], [[{"time_ns": "1999"}]], [None]]}
    assert represent(data, MICROS)["rows"] == [[{"ts_ns": "-50803200000000000"}], [[{"time_ns": "1000"}]], [None]]


def test_variants_hash_each_subset_that_changes_the_data() -> None:
    both = variants(EXPECTED, [NAN, LEAVES])
    assert both[data_hash(represent(EXPECTED, NAN))] == (NAN,)
    assert both[data_hash(represent(represent(EXPECTED, LEAVES), NAN))] == (LEAVES, NAN)  # in the enum's order
    assert data_hash(EXPECTED) not in both
    assert variants(EXPECTED, [MICROS]) == {}  # no temporal value: nothing to forgive


# -- the judge, on given rows ------------------------------------------------------------------------


def corpus(tmp_path: Path, cases: list[str]) -> tuple[Path, Manifest]:
    """A corpus folder with base `b`'s expected data (EXPECTED) and a manifest of `cases` (all `read`) over it."""
    (tmp_path / "expected").mkdir(parents=True)
    (tmp_path / "expected" / "b.json").write_text(json.dumps(EXPECTED))
    manifest = Manifest.from_json({
        "format": "parquet-conformance-manifest", "manifest_version": MANIFEST_VERSION,
        "generator": {"name": "t", "version": "0"}, "seed": 0, "only": None, "large": False, "tracks": ["parquet"],
        "expectations": {}, "roles": {},
        "bases": {"b": {"track": "parquet", "description": "", "file": "bases/b.parquet", "sha256": "0" * 64,
                        "size": 1, "expected_size": 1, "expected": "expected/b.json", "data_hash": data_hash(EXPECTED),
                        "rows": 3, "columns": EXPECTED["columns"], "baseline_case": "base/b"}},
        "cases": [{"id": i, "track": "parquet", "title": i, "group": i.split("/")[0], "kind": "golden", "base": "b",
                   "file": f"cases/{i}.parquet", "size": 0, "sha256": "0" * 64, "seed": 0, "mutations": [],
                   "expect": {"legacy": "read"}, "decode": {}, "citations": [], "notes": "", "extensions": None,
                   "large": False} for i in cases]})
    return tmp_path, manifest


def read(case: str, adapter: str, data: dict[str, object]) -> OutcomeRow:
    return OutcomeRow.of(case, adapter, adapter, "1", ["legacy"], Read(data_hash(data), 3, sample=sample_of(data)),
                         0.0)


def test_a_documented_transform_is_representation_an_undocumented_loss_wrong_data(tmp_path: Path) -> None:
    root, manifest = corpus(tmp_path, ["base/b", "ext/x", "ext/y"])
    judge = Judge.of(manifest, root, {"fp": (NAN,), "plain": ()})
    zero_lost = json.loads(json.dumps(EXPECTED).replace('"-0.0"', '"0.0"'))  # -0.0 as 0.0: documented by no one
    rows = [read("base/b", "fp", with_nan(EXPECTED)), read("ext/x", "fp", with_nan(EXPECTED)),
            read("ext/y", "fp", with_nan(zero_lost)),  # NaN explains part of it only
            read("base/b", "plain", with_nan(EXPECTED)),  # the same data from an adapter that declares nothing
            read("base/b", "lossy", zero_lost)]
    cells = {(c.case, c.adapter): c for c in judge.cells(rows)}
    base = cells["base/b", "fp"]
    assert (base.verdict, base.representations) == (Verdict.REPRESENTATION, ["null-float-as-nan"])
    assert not base.verdict.is_failure and base.verdict.judged and base.verdict != Verdict.PASS
    assert cells["ext/x", "fp"].verdict == Verdict.PASS  # its own reading of the base: the same data, as before
    assert cells["ext/y", "fp"].verdict == Verdict.WRONG_DATA
    assert cells["base/b", "plain"].verdict == Verdict.WRONG_DATA
    assert cells["base/b", "lossy"].verdict == Verdict.WRONG_DATA
    assert all(c.representations == [] for c in cells.values() if c.verdict != Verdict.REPRESENTATION)


def test_a_case_whose_baseline_failed_otherwise_is_judged_on_the_representation_too(tmp_path: Path) -> None:
    root, manifest = corpus(tmp_path, ["base/b", "ext/x"])
    judge = Judge.of(manifest, root, {"fp": (LEAVES, NAN)})
    flattened = represent(represent(EXPECTED, LEAVES), NAN)
    rows = [read("base/b", "fp", {"columns": ["i"], "rows": []}), read("ext/x", "fp", flattened)]
    cells = {c.case: c for c in judge.cells(rows)}
    assert cells["base/b"].verdict == Verdict.WRONG_DATA
    assert (cells["ext/x"].verdict, cells["ext/x"].representations) == (
        Verdict.REPRESENTATION, ["struct-as-leaf-columns", "null-float-as-nan"])


def test_without_the_corpus_or_a_declaration_nothing_is_forgiven(tmp_path: Path) -> None:
    root, manifest = corpus(tmp_path, ["base/b"])
    rows = [read("base/b", "fp", with_nan(EXPECTED))]
    assert [c.verdict for c in Judge.of(manifest).cells(rows)] == [Verdict.WRONG_DATA]
    assert [c.verdict for c in Judge.of(manifest, root, {"other": (NAN,)}).cells(rows)] == [Verdict.WRONG_DATA]


def test_expected_data_changed_since_the_corpus_was_verified_stops_the_judging(tmp_path: Path) -> None:
    root, manifest = corpus(tmp_path, ["base/b"])
    (root / "expected" / "b.json").write_text(json.dumps({"columns": [], "rows": []}))
    with pytest.raises(UsageError, match="not the expected data of base 'b'"):
        Judge.of(manifest, root, {"fp": (NAN,)}).cells([read("base/b", "fp", with_nan(EXPECTED))])
    assert Represented().hashes("fp", "b") == {}


def test_scores_and_the_gate_count_it_apart(tmp_path: Path) -> None:
    root, manifest = corpus(tmp_path, ["base/b", "ext/x", "ext/y"])
    rows = [read("base/b", "fp", with_nan(EXPECTED)), read("ext/x", "fp", with_nan(EXPECTED)),
            read("ext/y", "fp", {"columns": [], "rows": []})]
    cells = {c.case: c for c in Judge.of(manifest, root, {"fp": (NAN,)}).cells(rows)}
    [score] = scores(list(cells.values()))
    assert (score.passed, score.fail, score.representation, score.pass_rate) == (1, 1, 1, 0.5)
    assert score.failures == {"fail:wrong-data": 1}
    assert sum(s.passed + s.fail for s in score.levels.values()) == 2  # in no level either
    base = cells["base/b"]
    assert decide(base, None) == Status.REPRESENTATION and Status.REPRESENTATION.ok
    assert decide(base, Entry("base/b", None, Verdict.WRONG_DATA, 1)) == Status.UNEXPECTED_PASS  # no longer fails


# -- the declarations ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", adapters.names())
def test_every_declaration_quotes_its_library_and_links_it(name: str) -> None:
    declared = adapters.get(name).representations
    assert len({d.representation for d in declared}) == len(declared)
    for d in declared:
        assert isinstance(d.representation, Representation)
        assert len(d.words) > 40 and d.source.startswith("https://")


def test_the_libraries_that_document_one_declare_it() -> None:
    """What docs/adapters.md#documented-representations lists; rugo's -0.0 as 0.0 and carquet's unscaled decimals
    are documented nowhere, and stay wrong data."""
    declared = {n: {d.representation for d in adapters.get(n).representations} for n in adapters.names()}
    assert {n: r for n, r in declared.items() if r} == {"fastparquet": {NAN, LEAVES}, "hyper": {MICROS}}


def test_a_cell_stored_before_representations_reads_back(tmp_path: Path) -> None:
    root, manifest = corpus(tmp_path, ["base/b"])
    [cell] = Judge.of(manifest, root, {"fp": (NAN,)}).cells([read("base/b", "fp", with_nan(EXPECTED))])
    row = cell.to_row()
    assert row["representations"] == ["null-float-as-nan"] and row["sample"]  # its sample is kept, as wrong data's
    del row["representations"]  # a partition written before the field
    assert Cell.from_row(row).representations == []


def test_every_report_draws_it_apart(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    from parquet_conformance.conformance.harness.model import RunInfo
    from parquet_conformance.reports import write_reports
    from parquet_conformance.reports.document import results_document

    root, manifest = corpus(tmp_path / "corpus", ["base/b", "ext/x"])
    cells = Judge.of(manifest, root, {"fp": (NAN,)}).cells(
        [read("base/b", "fp", with_nan(EXPECTED)), read("ext/x", "fp", {"columns": [], "rows": []})])
    run = RunInfo("r1", "0", 0, "none", str(root), None, ["parquet"], "0" * 64, "2026-11-28T06:00:00Z")
    doc = results_document(cells, manifest, run, root)
    out = tmp_path / "out"
    out.mkdir()
    write_reports(doc, out)
    suite = ET.parse(out / "junit" / "fp.xml").getroot()
    skipped = suite.find("testcase/skipped[@type='representation']")
    assert skipped is not None and "null-float-as-nan" in skipped.get("message", "")
    assert (suite.get("failures"), suite.get("skipped")) == ("1", "1")
    summary = (out / "summary.md").read_text()
    assert "| repr. |" in summary and "| fp |" in summary
    results = json.loads((out / "results.json").read_text())
    assert results["adapters"][0]["representation"] == 1 and results["results_version"] == 8
    [diff] = [d for d in results["diffs"] if d["case"] == "base/b"]
    assert "null-float-as-nan" in diff["note"] and diff["differing_columns"] == ["f"]
    assert {c["id"]: c["baseline"] for c in results["cases"]} == {"base/b": "base/b", "ext/x": "base/b"}
    assert "rows in the form its library documents" in (out / "report.html").read_text()


def test_the_pytest_plugin_skips_it_as_check_reports_it() -> None:
    from parquet_conformance.app.pytest_plugin import item_outcome

    assert item_outcome({Status.REPRESENTATION}) == "representation"
    assert item_outcome({Status.REPRESENTATION, Status.PASS}) == "representation"
    assert item_outcome({Status.REPRESENTATION, Status.UNEXPECTED_FAILURE}) == "fail"
