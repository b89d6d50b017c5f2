"""parquet-site/<engine>-<version>.yaml (reports/parquet_site.py): the site's own layout, parsed as its files are
(a YAML document of engine_id, last_updated and support -> status, note), statuses only where our cases decide the
feature, and outside text only as quoted scalars."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from parquet_conformance.conformance.harness.model import Cell, OutcomeKind, RunInfo, Verdict
from parquet_conformance.corpus.model import Expectation, Kind
from parquet_conformance.reports.model import RESULTS_FORMAT, RESULTS_VERSION, ResultsDocument, scores
from parquet_conformance.reports.parquet_site import FEATURES, FORMAT, statuses

# A support file of apache/parquet-site as it stands (data/implementations/support/duckdb.yaml, abridged): what ours
# must parse like. Its statuses come from data/implementations/legend.yaml.
SITE = """engine_id: duckdb
last_updated: "2025-12-09"
support:
  logical-variant:
    status: full
    since_version_read: "1.4.0"
  format-page-crc32:
    status: read
"""
LEGEND = {"full", "read", "write", "none", "unknown"}


def cell(case: str, verdict: Verdict, adapter: str = "duckdb", implementation: str = "DuckDB",
         version: str = "2.0.1") -> Cell:
    outcome = OutcomeKind.READ if verdict in (Verdict.PASS, Verdict.WRONG_DATA) else OutcomeKind.REJECTED
    return Cell(case=case, track="parquet", group=case.split("/")[0], kind=Kind.GOLDEN, adapter=adapter,
                implementation=implementation, version=version, role="legacy", expected=Expectation.READ,
                outcome=outcome, verdict=verdict, error_class=None, error_message=None, rows=None, data_hash=None,
                duration_s=0.0, metadata=None, attempts=1, previous_case=None, disagreement=None)


def doc(cells: list[Cell]) -> ResultsDocument:
    run = RunInfo("r1", "0.2.0", 0, "none", "corpus", None, ["parquet"], "0" * 64, "2026-11-26T06:00:00Z")
    return ResultsDocument(RESULTS_FORMAT, RESULTS_VERSION, run, scores(cells), [], cells)


def test_a_pass_where_the_feature_is_needed_is_read_a_failure_is_none_a_tolerated_pass_is_nothing() -> None:
    got = statuses([cell("base/codec-zstd", Verdict.PASS), cell("evolution/geometry/pyarrow", Verdict.PASS),
                    cell("evolution/variant/duckdb-shredded", Verdict.REJECTED_VALID),
                    cell("base/data-page-v2", Verdict.FLAKY), cell("base/page-index", Verdict.SKIP)])
    assert got["compression-zstd"][0] == "read"
    assert got["logical-variant"][0] == "none" and "evolution/variant/duckdb-shredded" in got["logical-variant"][1]
    assert "logical-geometry" not in got and "format-data-page-v2" not in got and "format-page-index" not in got
    assert "compression-gzip" not in got  # no case of it was run: left out, never guessed


def test_its_files_parse_as_the_sites_own(tmp_path: Path) -> None:
    evil = 'Evil "impl"\n# injected: yes\x1b[31m'
    cells = [cell("base/codec-snappy", Verdict.PASS, implementation=evil, version="1.0/../x"),
             cell("evolution/geography/pyarrow", Verdict.UNHANDLED, implementation=evil, version="1.0/../x"),
             cell("base/codec-gzip", Verdict.PASS, adapter="polars==1.40.1", implementation="polars",
                  version="1.40.1")]
    written = FORMAT.write(doc(cells), tmp_path)
    assert sorted(p.name for p in written) == ["duckdb-1.0_.._x.yaml", "polars-1.40.1.yaml"]
    site = yaml.safe_load(SITE)
    for path in written:
        assert path.parent == tmp_path / "parquet-site"
        ours = yaml.safe_load(path.read_text())
        assert set(ours) == set(site) and isinstance(ours["support"], dict)
        assert all(set(entry) <= {"status", "note", "since_version_read", "since_version_write"}
                   and entry["status"] in LEGEND for entry in ours["support"].values())
        assert "injected" not in ours and "\x1b" not in path.read_text()
    duck = yaml.safe_load((tmp_path / "parquet-site" / "duckdb-1.0_.._x.yaml").read_text())
    assert duck["engine_id"] == "duckdb" and duck["last_updated"] == "2026-11-26"
    assert duck["support"] == {"compression-snappy": {"status": "read", "note": duck["support"]["compression-snappy"]
                                                      ["note"]},
                               "logical-geography": {"status": "none", "note": duck["support"]["logical-geography"]
                                                     ["note"]}}


@pytest.mark.parametrize("feature", FEATURES, ids=[f.id for f in FEATURES])
def test_every_feature_is_one_of_the_sites_ids_and_names_cases_that_exist(feature: object) -> None:
    from fnmatch import fnmatchcase

    from parquet_conformance.corpus.parquet.catalog import all_cases

    ids = [c.id for c in all_cases()]
    assert all(any(fnmatchcase(i, g) for i in ids) for g in feature.cases)  # type: ignore[attr-defined]
    assert feature.id.split("-")[0] in {"compression", "format", "logical", "encoding", "physical"}  # type: ignore
