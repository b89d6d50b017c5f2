"""parquet-site/ (reports/parquet/): apache/parquet-site's status tables from the cases that isolate each feature
and the writer grid, in the site's own layout and statuses (full, read, write, none), one adapter per site engine,
and the diff against the site's hand-kept table (a disagreement at the site's version, a change since it, what we
cannot judge). Outside text reaches the YAML only as quoted scalars."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import yaml

from parquet_conformance.conformance.harness.model import Cell, OutcomeKind, RunInfo, Verdict, WriterCell, WriterVerdict
from parquet_conformance.corpus.model import Expectation, Kind
from parquet_conformance.corpus.parquet.site import Status
from parquet_conformance.reports import focus, html, versions
from parquet_conformance.reports.model import (
    RESULTS_FORMAT,
    RESULTS_VERSION,
    CaseSummary,
    ResultsDocument,
    WritersMatrix,
    scores,
)
from parquet_conformance.reports.parquet.diff import claim_at, compare
from parquet_conformance.reports.parquet.site import FORMAT
from parquet_conformance.reports.parquet.table import site_ids, status_of, tables

LEGEND = {"full", "read", "write", "none"}
REFERENCE = "features/encoding-plain/pyarrow"  # the PLAIN, uncompressed rows the codecs are varied over
# case -> its base's baseline case, as the document's case summaries say (a base's own case is its own)
NARROW = "features/encoding-plain/i32-s"  # the INT32 and text columns of the reference alone
BASELINES = {REFERENCE: REFERENCE, **{f"features/compression-{c}/pyarrow": REFERENCE for c in ("zstd", "gzip")},
             NARROW: NARROW, "features/encoding-plain/flag": "features/encoding-plain/flag",
             "features/compression-zstd/narrow": NARROW,
             "features/logical-list/pyarrow": "features/logical-list/pyarrow",
             "features/logical-list/two-level-primitive": "features/logical-list/required-elements",
             "features/logical-list/required-elements": "features/logical-list/required-elements",
             "features/compression-lz4-deprecated/parquet-java": "features/reference/parquet-java",
             "features/reference/parquet-java": "features/reference/parquet-java",
             "features/physical-int96/pyarrow": "features/physical-int96/pyarrow",
             "ext/file-meta-data/flat/spec-header": "base/flat", "base/flat": "base/flat"}


def cell(case: str, verdict: Verdict, adapter: str = "duckdb", version: str = "2.0.1",
         outcome: OutcomeKind | None = None, expected: Expectation = Expectation.READ, role: str = "legacy",
         implementation: str = "DuckDB") -> Cell:
    outcome = outcome or (OutcomeKind.READ if verdict in (Verdict.PASS, Verdict.WRONG_DATA, Verdict.REPRESENTATION)
                          else OutcomeKind.REJECTED)
    return Cell(case=case, track="parquet", group=case.split("/")[0], kind=Kind.GOLDEN, adapter=adapter,
                implementation=implementation, version=version, role=role, expected=expected, outcome=outcome,
                verdict=verdict, error_class=None, error_message=None, rows=None, data_hash=None, duration_s=0.0,
                metadata=None, attempts=1, previous_case=None, disagreement=None)


def doc(cells: list[Cell], reproduce: dict[str, str] | None = None, writers: WritersMatrix | None = None,
        ) -> ResultsDocument:
    run = RunInfo("r1", "0.2.0", 0, "none", "corpus", None, ["parquet"], "0" * 64, "2026-11-26T06:00:00Z")
    cases = [CaseSummary(id=i, track="parquet", title=i, group=i.split("/")[0], kind=Kind.GOLDEN, expect={},
                         citations=[], notes="", file=f"cases/{i}.parquet", baseline=b) for i, b in BASELINES.items()]
    return ResultsDocument(RESULTS_FORMAT, RESULTS_VERSION, run, scores(cells), cases, cells,
                           reproduce=reproduce or {}, writers=writers)


def test_reads_is_read_an_isolated_failure_is_none_an_unisolated_one_decides_nothing() -> None:
    reads = status_of("compression-zstd", [cell(REFERENCE, Verdict.PASS),
                                           cell("features/compression-zstd/pyarrow", Verdict.PASS)], BASELINES)
    assert (reads.status, reads.reads) == ("read", True) and "writing: not shown" in reads.note
    fails = status_of("compression-zstd", [cell(REFERENCE, Verdict.PASS),
                                           cell("features/compression-zstd/pyarrow", Verdict.CRASH)], BASELINES)
    assert fails.status == "none" and "features/compression-zstd/pyarrow" in fails.note
    alike = status_of("compression-zstd", [cell(REFERENCE, Verdict.WRONG_DATA),
                                           cell("features/compression-zstd/pyarrow", Verdict.WRONG_DATA)], BASELINES)
    assert alike.status is None and "not isolated" in alike.note
    assert status_of("compression-gzip", [], BASELINES).status is None  # not run: left out, never guessed


def test_the_narrow_twin_isolates_what_the_whole_reference_cannot() -> None:
    """A reader that fails a column of the whole reference (rugo: FIXED_LEN_BYTE_ARRAY(4)) still shows its codec on
    the narrow twin; the wide case's failure decides nothing, an isolated narrow failure is `none`."""
    wide_fails = [cell(REFERENCE, Verdict.REJECTED_VALID), cell("features/compression-zstd/pyarrow",
                                                                 Verdict.REJECTED_VALID)]
    reads = status_of("compression-zstd", [*wide_fails, cell(NARROW, Verdict.PASS),
                                           cell("features/compression-zstd/narrow", Verdict.PASS)], BASELINES)
    assert reads.status == "read" and "features/compression-zstd/narrow" in reads.note
    fails = status_of("compression-zstd", [*wide_fails, cell(NARROW, Verdict.PASS),
                                           cell("features/compression-zstd/narrow", Verdict.WRONG_DATA)], BASELINES)
    assert fails.status == "none" and "features/compression-zstd/narrow" in fails.note
    assert status_of("compression-zstd", wide_fails, BASELINES).status is None


def test_a_none_beside_cases_it_reads_names_them_too() -> None:
    """A feature read in one isolating case and failed in another is `none` (DuckDB's encryption: one data page per
    chunk read, several not), and the note names what it reads beside what it fails."""
    got = status_of("compression-zstd", [cell(REFERENCE, Verdict.PASS), cell(NARROW, Verdict.PASS),
                                         cell("features/compression-zstd/pyarrow", Verdict.REJECTED_VALID),
                                         cell("features/compression-zstd/narrow", Verdict.PASS)], BASELINES)
    assert got.status == "none", got
    assert "rejected valid: features/compression-zstd/pyarrow" in got.note
    assert "reads features/compression-zstd/narrow" in got.note


def test_a_plain_file_failed_is_its_types_never_plains_none() -> None:
    """PLAIN is in every file: a reader that fails the whole reference or one type's narrow file (a BOOLEAN column
    dropped) fails that type (physical-*), not PLAIN; one PLAIN file read shows PLAIN (main gave rugo `none`)."""
    failed = [cell(REFERENCE, Verdict.REJECTED_VALID), cell("features/encoding-plain/flag", Verdict.WRONG_DATA)]
    assert status_of("encoding-plain", [*failed, cell(NARROW, Verdict.PASS)], BASELINES).status == "read"
    alone = status_of("encoding-plain", failed, BASELINES)
    assert alone.status is None and "judged under their types" in alone.note
    v1 = status_of("format-data-page-v1", failed, BASELINES)  # v1 pages, no compression: in every file too
    assert v1.status is None and "judged under their types" in v1.note


def test_a_clean_refusal_of_a_codec_passes_its_cell_yet_is_no_read() -> None:
    """A codec case expects `either`: the refusal is a pass, and the status looks at the outcome (main gave `read`)."""
    refused = cell("features/compression-gzip/pyarrow", Verdict.PASS, outcome=OutcomeKind.REJECTED,
                   expected=Expectation.EITHER)
    got = status_of("compression-gzip", [cell(REFERENCE, Verdict.PASS), refused], BASELINES)
    assert got.status == "none" and "refuses it cleanly" in got.note


def test_a_legacy_form_never_makes_none_and_its_failures_are_named() -> None:
    legacy = cell("features/logical-list/two-level-primitive", Verdict.REJECTED_VALID)
    got = status_of("logical-list", [cell("features/logical-list/pyarrow", Verdict.PASS),
                                     cell("features/logical-list/required-elements", Verdict.PASS), legacy], BASELINES)
    assert got.status == "read" and "two-level-primitive (rejected-valid)" in got.note
    only = status_of("logical-list", [cell("features/logical-list/required-elements", Verdict.PASS), legacy],
                     BASELINES)
    assert only.status == "read"  # required-elements reads
    assert status_of("logical-list", [legacy], BASELINES).status is None


def writer(features: list[str], verdict: WriterVerdict = WriterVerdict.PASS) -> WriterCell:
    return WriterCell(writer="duckdb", implementation="DuckDB", version="2.0.1", profile="default", table="all-types",
                      columns=None, outcome="written", verdict=verdict, error_class=None, error_message=None,
                      duration_s=0.0, size=1, sha256=None, created_by="DuckDB", findings=[], same_data=True,
                      differing=[], read_by="reference", read_error=None,
                      cases=["written/duckdb/default/all-types/as-written"], features=features)


def test_full_needs_the_writer_the_strict_decoder_and_a_reader_that_reads_the_feature() -> None:
    written = "written/duckdb/default/all-types/as-written"
    base = [cell(REFERENCE, Verdict.PASS), cell("features/compression-zstd/pyarrow", Verdict.PASS)]
    other = [cell(c.case, c.verdict, adapter="pyarrow", implementation="Arrow", version="26.0.1") for c in base]
    grid = WritersMatrix("written", {}, [writer(["compression-zstd"])], [], {},
                         [cell(written, Verdict.PASS, adapter="pyarrow", version="26.0.1")])
    [duck] = [t for t in tables(doc(base + other, writers=grid)) if t.adapter == "duckdb"]
    assert duck.get("compression-zstd").status == "full" and written in duck.get("compression-zstd").note
    nonconforming = WritersMatrix("written", {}, [writer(["compression-zstd"], WriterVerdict.NONCONFORMING)], [], {},
                                  grid.cells)
    [duck] = [t for t in tables(doc(base + other, writers=nonconforming)) if t.adapter == "duckdb"]
    assert duck.get("compression-zstd").status == "read"
    failing = [cell(REFERENCE, Verdict.PASS), cell("features/compression-zstd/pyarrow", Verdict.WRONG_DATA)]
    [duck] = [t for t in tables(doc(failing + other, writers=grid)) if t.adapter == "duckdb"]
    assert duck.get("compression-zstd").status == "write"


def test_one_adapter_speaks_for_an_engine_others_read_through_it(tmp_path: Path) -> None:
    cells = [cell(REFERENCE, Verdict.PASS, adapter=a, implementation=a, version=v)
             for a, v in (("parquet-java", "1.17.0"), ("spark", "4.3.0"), ("reference", "0.2.0"))]
    cells += [cell("features/physical-int96/pyarrow", Verdict.PASS, adapter=a, implementation=a, version=v)
              for a, v in (("parquet-java", "1.17.0"), ("spark", "4.3.0"), ("reference", "0.2.0"))]
    cells.append(cell(REFERENCE, Verdict.PASS, adapter="parquet-pages", role="metadata", version="0.6.0"))
    written = FORMAT.write(doc(cells), tmp_path)
    assert sorted(p.name for p in written) == ["diff.json", "diff.md", "parquet-java-1.17.0.yaml"]
    java = yaml.safe_load((tmp_path / "parquet-site" / "parquet-java-1.17.0.yaml").read_text())
    assert java["engine_id"] == "parquet-java" and "through spark: read" in java["support"]["physical-int96"]["note"]
    assert set(java) == {"engine_id", "last_updated", "support"}
    assert all(set(e) == {"status", "note"} and e["status"] in LEGEND for e in java["support"].values())


def test_a_pyspark_release_of_parquet_java_is_a_parquet_java_row_of_its_jars_version(tmp_path: Path) -> None:
    """parquet-java==4.0.1 (cells parquet-java-4.0.1) reports the parquet-hadoop jar pyspark 4.0.1 bundles, 1.15.2: its
    site table is parquet-java-1.15.2.yaml, and versions.md holds it beside the installed 1.17.0, under parquet-java."""
    rows = (("parquet-java", "1.17.0"), ("parquet-java-4.0.1", "1.15.2"))
    cells = [cell(c, Verdict.PASS, adapter=a, implementation="parquet-java (parquet-hadoop)", version=v)
             for a, v in rows for c in (REFERENCE, "features/physical-int96/pyarrow")]
    document = doc(cells, reproduce={"parquet-java": "--adapter parquet-java",
                                     "parquet-java-4.0.1": "--adapter parquet-java==4.0.1"})
    written = FORMAT.write(document, tmp_path)
    assert sorted(p.name for p in written) == ["diff.json", "diff.md", "parquet-java-1.15.2.yaml",
                                               "parquet-java-1.17.0.yaml"]
    text = versions.tables(document)
    assert "### parquet-java (" in text and "| 1.15.2 | 1.17.0 |" in text and "parquet-java-4.0.1" not in text
    # the report's matrix and a failure's "shared with" name the release by the same rule (reports/text.py)
    (family,) = [f for f in html.columns(document) if f.track == "parquet"]
    assert family.name == "parquet-java" and [c.score.version for c in family.columns] == ["1.15.2", "1.17.0"]
    assert focus.failing_families(replace(document, cells=[replace(c, verdict=Verdict.CRASH) for c in cells])) == {
        c: {"parquet-java"} for c in (REFERENCE, "features/physical-int96/pyarrow")}


def test_the_diff_tells_a_disagreement_from_a_change_since_the_sites_version_and_what_is_not_judged() -> None:
    """The site's duckdb table speaks for 1.4.0 and says `none` for the deprecated LZ4 and `read` for INT96."""
    case = "features/compression-lz4-deprecated/parquet-java"
    cells = []
    for version in ("1.4.0", "2.0.1"):
        adapter = "duckdb" if version == "2.0.1" else f"duckdb-{version}"
        cells += [cell("features/reference/parquet-java", Verdict.PASS, adapter=adapter, version=version),
                  cell(case, Verdict.PASS, adapter=adapter, version=version, expected=Expectation.EITHER),
                  cell("features/physical-int96/pyarrow", Verdict.PASS, adapter=adapter, version=version)]
    d = doc(cells, reproduce={"duckdb-1.4.0": "--adapter duckdb==1.4.0", "duckdb": "--adapter duckdb"})
    entries = {(e.version, e.feature): e for e in compare(d, tables(d))}
    at = entries[("1.4.0", "compression-lz4-deprecated")]
    assert (at.kind, at.site, at.ours, at.sides) == ("disagreement", "none", "read", ["reading"])
    assert at.site_file == "data/implementations/support/duckdb.yaml" and at.site_line
    assert at.evidence[0].read == f"parquet-conformance read corpus/cases/{case}.parquet --adapter duckdb==1.4.0"
    assert entries[("2.0.1", "compression-lz4-deprecated")].kind == "change"
    assert entries[("1.4.0", "physical-int96")].kind == "agreement"
    assert entries[("1.4.0", "logical-bson")].kind == "not-judged"
    assert len([e for e in entries if e[0] == "1.4.0"]) == len(site_ids())


def test_a_since_version_claims_its_side_only_from_that_release_on() -> None:
    """The site's arrow-rs table: VARIANT `full` since 56.0.0 claims nothing for its default, 52.2.0; a reader of
    52.2.0 that refuses VARIANT agrees with it (the first diff called that a disagreement)."""
    assert [claim_at(Status("full", None, "56.0.0", "56.0.0"), v) for v in ("52.2.0", "56.0.0", "59.3.0", "")] == \
        ["none", "full", "full", "full"]
    assert claim_at(Status("full", None, None, "20.0.0"), "18.0.0") == "read"
    assert claim_at(Status("full", None, "20.0.0", None), "18.0.0") == "write"
    assert claim_at(Status("none", None, "1.0", None), "2.0") == "none"
    case = "evolution/variant/duckdb-shredded"
    cells = [cell(case, Verdict.REJECTED_VALID, adapter="datafusion-41.0.0", version="41.0.0",
                  implementation="arrow-rs (via DataFusion) [arrow-rs parquet 52.2.0]")]
    d = doc(cells)
    found = {e.feature: e for e in compare(d, tables(d)) if e.engine == "arrow-rs"}
    assert found["logical-variant"].version == "52.2.0" and found["logical-variant"].site == "none"
    assert all(e.kind != "disagreement" for e in found.values())


def test_the_diff_files_are_written_and_name_no_disagreement_at_an_unplaced_version(tmp_path: Path) -> None:
    cells = [cell("features/reference/parquet-java", Verdict.PASS, adapter="datafusion", version="55.0.0",
                  implementation="arrow-rs (via DataFusion)"),
             cell("features/compression-lz4-deprecated/parquet-java", Verdict.CRASH, adapter="datafusion",
                  version="55.0.0", implementation="arrow-rs (via DataFusion)")]
    FORMAT.write(doc(cells), tmp_path)
    found = json.loads((tmp_path / "parquet-site" / "diff.json").read_text())
    lz4 = [e for e in found["entries"] if e["feature"] == "compression-lz4-deprecated"]
    assert [(e["engine"], e["kind"], e["version"]) for e in lz4] == [("arrow-rs", "unplaced", "")]
    assert "Disagreements" not in (tmp_path / "parquet-site" / "diff.md").read_text()
    assert (tmp_path / "parquet-site" / "arrow-rs-unknown.yaml").is_file()


def test_outside_text_reaches_the_yaml_only_quoted(tmp_path: Path) -> None:
    evil = 'Evil "impl"\n# injected: yes\x1b[31m'
    cells = [cell(REFERENCE, Verdict.PASS, implementation=evil, version="1.0/../x"),
             cell("features/physical-int96/pyarrow", Verdict.PASS, implementation=evil, version="1.0/../x")]
    FORMAT.write(doc(cells), tmp_path)
    [path] = (tmp_path / "parquet-site").glob("duckdb-*.yaml")
    assert path.name == "duckdb-1.0_.._x.yaml"
    text = path.read_text()
    assert "\x1b" not in text and not any(line.startswith("# injected") for line in text.splitlines())
    loaded = yaml.safe_load(text)
    assert set(loaded) == {"engine_id", "last_updated", "support"} and "injected" not in loaded
    assert loaded["support"]["physical-int96"]["status"] == "read"


def test_a_written_file_says_which_site_features_it_uses() -> None:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    from parquet_conformance.generators.parquet.footer import read_footer
    from parquet_conformance.generators.parquet.uses import uses

    table = pa.table({"i": pa.array([1, None], pa.int32()), "f": [1.5, 2.5], "l": [[1], []], "u": pa.array(
        [bytes(16), bytes(range(16))], pa.uuid())})
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd", data_page_version="2.0", write_page_checksum=True,
                   use_dictionary=False, column_encoding={"f": "BYTE_STREAM_SPLIT", "i": "DELTA_BINARY_PACKED"})
    found = set(uses(read_footer(sink.getvalue())[0]))
    assert {"compression-zstd", "format-data-page-v2", "format-page-crc32", "encoding-byte-stream-split",
            "encoding-delta-binary-packed", "logical-list", "logical-uuid", "physical-int32", "physical-double",
            "physical-fixed-len-byte-array"} <= found
    assert not found & {"format-data-page-v1", "compression-snappy", "encoding-rle-dictionary", "format-page-index"}


def test_enum_and_uuid_as_text_are_alternatives_a_reader_may_return() -> None:
    """LogicalTypes.md: applications lacking an enum type should read ENUM as UTF-8 strings; a UUID's text (the form
    the section writes one in) and its 16 bytes lose nothing. Each alternative is what a reader returning it hashes
    to (they were wrong data on the type's own file)."""
    import pyarrow as pa

    from parquet_conformance.corpus.parquet import TRACK
    from parquet_conformance.corpus.parquet.catalog import all_cases
    from parquet_conformance.generators.canonical import canonical_table, data_hash

    cases = {c.id: c for c in all_cases()}
    enum = {a.label: a for a in cases["features/logical-enum/pyarrow-annotated"].alternatives}
    uuid = {a.label: a for a in cases["features/logical-uuid/pyarrow"].alternatives}
    assert set(enum) == {"text"} and set(uuid) == {"text", "bytes"}
    texts = [None if r[0] is None else r[0] for r in enum["text"].data["rows"]]
    as_text = canonical_table(pa.table({"enum": pa.array(texts, pa.string())}))
    assert data_hash(TRACK.normalize(as_text)) == data_hash(enum["text"].data) and texts[0] == "RED"
    ids = [r[0] for r in uuid["text"].data["rows"]]
    assert ids[1] == "9e3779b9-7f4a-7c15-0000-000000000001"
    raw = canonical_table(pa.table({"uuid": pa.array([None if i is None else bytes.fromhex(i.replace("-", ""))
                                                      for i in ids], pa.binary(16))}))
    assert data_hash(TRACK.normalize(raw)) == data_hash(uuid["bytes"].data)
