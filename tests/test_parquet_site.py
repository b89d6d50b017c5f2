"""parquet-site/<engine>-<version>.yaml (reports/parquet_site.py): the site's own layout, parsed as its files are
(a YAML document of engine_id, last_updated and support -> status, note), statuses only where our cases decide the
feature (a failure only where the same file without the feature reads right), and outside text only as quoted
scalars."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from parquet_conformance.conformance.harness.model import Cell, OutcomeKind, RunInfo, Verdict
from parquet_conformance.corpus.model import Expectation, Kind
from parquet_conformance.reports.model import RESULTS_FORMAT, RESULTS_VERSION, CaseSummary, ResultsDocument, scores
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
         version: str = "2.0.1", representations: tuple[str, ...] = ()) -> Cell:
    outcome = OutcomeKind.READ if verdict in (Verdict.PASS, Verdict.WRONG_DATA, Verdict.REPRESENTATION) \
        else OutcomeKind.REJECTED
    return Cell(case=case, track="parquet", group=case.split("/")[0], kind=Kind.GOLDEN, adapter=adapter,
                implementation=implementation, version=version, role="legacy", expected=Expectation.READ,
                outcome=outcome, verdict=verdict, error_class=None, error_message=None, rows=None, data_hash=None,
                duration_s=0.0, metadata=None, attempts=1, previous_case=None, disagreement=None,
                representations=list(representations))


# case -> its base's baseline case, as the document's case summaries say (a base's own case is its own)
BASELINES = {"evolution/variant/duckdb-shredded": "base/evo-variant", "evolution/geography/pyarrow":
             "base/evo-geography", "ext/file-meta-data/flat/spec-header": "base/flat",
             **{f"base/{b}": f"base/{b}" for b in ("flat", "page-index", "codec-snappy", "codec-zstd", "codec-gzip",
                                                  "data-page-v2", "evo-variant", "evo-geography", "dictionary")}}


def doc(cells: list[Cell]) -> ResultsDocument:
    run = RunInfo("r1", "0.2.0", 0, "none", "corpus", None, ["parquet"], "0" * 64, "2026-11-26T06:00:00Z")
    cases = [CaseSummary(id=i, track="parquet", title=i, group=i.split("/")[0], kind=Kind.GOLDEN, expect={},
                         citations=[], notes="", baseline=b) for i, b in BASELINES.items()]
    return ResultsDocument(RESULTS_FORMAT, RESULTS_VERSION, run, scores(cells), cases, cells)


def test_a_pass_where_the_feature_is_needed_is_read_a_failure_is_none_a_tolerated_pass_is_nothing() -> None:
    got = statuses([cell("base/codec-zstd", Verdict.PASS), cell("evolution/geometry/pyarrow", Verdict.PASS),
                    cell("evolution/variant/duckdb-shredded", Verdict.REJECTED_VALID),
                    cell("base/evo-variant", Verdict.PASS),  # the same file without VARIANT's annotation reads
                    cell("base/data-page-v2", Verdict.FLAKY), cell("base/page-index", Verdict.SKIP)], BASELINES)
    assert got["compression-zstd"][0] == "read"
    assert got["logical-variant"][0] == "none" and "evolution/variant/duckdb-shredded" in got["logical-variant"][1]
    assert "logical-geometry" not in got and "format-data-page-v2" not in got and "format-page-index" not in got
    assert "compression-gzip" not in got  # no case of it was run: left out, never guessed


def test_its_files_parse_as_the_sites_own(tmp_path: Path) -> None:
    evil = 'Evil "impl"\n# injected: yes\x1b[31m'
    cells = [cell("base/codec-snappy", Verdict.PASS, implementation=evil, version="1.0/../x"),
             cell("evolution/geography/pyarrow", Verdict.UNHANDLED, implementation=evil, version="1.0/../x"),
             cell("base/evo-geography", Verdict.PASS, implementation=evil, version="1.0/../x"),
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


def test_a_failure_its_file_without_the_feature_shows_too_is_no_none() -> None:
    """fastparquet's shape: every paged base fails alike (NaN for a null float, undocumented here), so no codec is
    `none`; once the library's words make it a representation, each codec reads; a codec that fails where its file
    without the codec reads is `none`."""
    codecs = ("codec-snappy", "codec-zstd", "codec-gzip")
    alike = statuses([cell(f"base/{b}", Verdict.WRONG_DATA) for b in ("page-index", "flat", *codecs)], BASELINES)
    assert not any(status == "none" for status, _ in alike.values())
    assert "compression-snappy" not in alike and "compression-uncompressed" not in alike
    documented = statuses([cell(f"base/{b}", Verdict.REPRESENTATION, representations=("null-float-as-nan",))
                           for b in ("page-index", "flat", *codecs)], BASELINES)
    assert documented["compression-snappy"][0] == "read" and "null-float-as-nan" in documented["compression-snappy"][1]
    assert "format-page-index" not in documented  # tolerated: a read decides nothing
    one_codec = statuses([cell("base/page-index", Verdict.REPRESENTATION), cell("base/codec-snappy", Verdict.CRASH),
                          cell("base/codec-zstd", Verdict.WRONG_DATA), cell("base/codec-gzip", Verdict.PASS)],
                         BASELINES)
    assert one_codec["compression-snappy"] == ("none", "parquet-conformance: fails base/codec-snappy (crash), and "
                                                       "reads the same file without the feature")
    assert one_codec["compression-zstd"][0] == "none" and one_codec["compression-gzip"][0] == "read"


def test_an_extension_failure_counts_only_where_its_base_reads() -> None:
    ext = "ext/file-meta-data/flat/spec-header"
    base_fails = statuses([cell("base/flat", Verdict.WRONG_DATA), cell(ext, Verdict.CRASH)], BASELINES)
    assert "format-binary-protocol-extensions" not in base_fails and "compression-uncompressed" not in base_fails
    base_reads = statuses([cell("base/flat", Verdict.PASS), cell(ext, Verdict.CRASH)], BASELINES)
    assert base_reads["format-binary-protocol-extensions"][0] == "none"
    assert statuses([cell(ext, Verdict.CRASH)], {}) == {}  # no baseline known (a run stored before it was kept)


@pytest.mark.parametrize("feature", FEATURES, ids=[f.id for f in FEATURES])
def test_every_feature_is_one_of_the_sites_ids_and_names_cases_that_exist(feature: object) -> None:
    from fnmatch import fnmatchcase

    from parquet_conformance.corpus.parquet.catalog import all_cases

    ids = [c.id for c in all_cases()]
    assert all(any(fnmatchcase(i, g) for i in ids) for g in feature.cases)  # type: ignore[attr-defined]
    assert feature.without is None or feature.without in ids  # type: ignore[attr-defined]
    assert feature.id.split("-")[0] in {"compression", "format", "logical", "encoding", "physical"}  # type: ignore


def test_a_features_file_without_it_is_the_same_rows_written_with_one_option_less() -> None:
    from parquet_conformance.generators.parquet.bases import BASES

    for feature in (f for f in FEATURES if f.without):
        [case] = feature.cases
        with_it, without_it = BASES[case.removeprefix("base/")], BASES[(feature.without or "").removeprefix("base/")]
        assert with_it.build is without_it.build and with_it.fixture is None is without_it.fixture
        assert all(o in with_it.options for o in without_it.options)
        assert len(with_it.options) == len(without_it.options) + 1, feature.id
