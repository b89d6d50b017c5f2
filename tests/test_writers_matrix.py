"""The writer x reader matrix end to end (integration: Node writers): `run --writers` writes, judges each writer's
files, reads them with every reader as written and with extensions, and draws writers.html; written files a reader
fails are kept as regression cases that `corpus add-regression --from` ships."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parquet_conformance.app.run import RunOptions, run_job
from parquet_conformance.conformance.harness.model import WriterVerdict
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.corpus import regression_store

# slow (.ci/run runs it after the default tests): the module's writers and readers, kept out of the default run's
# 15 minutes on 2 cores
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def matrix_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("writers")
    run_job(RunOptions(out=out, specs=[AdapterSpec("pyarrow"), AdapterSpec("polars")], only="base/flat",
                       master="none", run_id="w1", writers="written/*/default/flat*/*,written/*/page-index/*/*",
                       writer_names=("pyarrow", "hyparquet", "parquetjs")))
    return out


def test_each_writer_is_judged_on_every_file_it_was_asked_for(matrix_run: Path) -> None:
    doc = json.loads((matrix_run / "results.json").read_text())
    writers = {(w["writer"], w["profile"], w["table"], w["columns"] is not None): w for w in doc["writers"]["writers"]}
    assert writers[("pyarrow", "default", "flat", False)]["verdict"] == WriterVerdict.PASS
    # hyparquet-writer 0.17.0 writes IntType.bitWidth as an i32 (parquet.thrift: `1: required i8 bitWidth`)
    bitwidth = [w for (name, _, table, _), w in writers.items() if name == "hyparquet" and table == "all-types"
                and w["verdict"] == WriterVerdict.NONCONFORMING]
    assert bitwidth and bitwidth[0]["findings"][0]["citation"]["quote"] == "1: i8 bitWidth"
    # @dsnp/parquetjs 1.8.9 gives every page of a chunk first_row_index 0
    index = writers[("parquetjs", "page-index", "page-index", False)]
    assert index["verdict"] == WriterVerdict.NONCONFORMING
    assert {f["rule"] for f in index["findings"]} == {"page-index"}
    assert "first_row_index" in index["findings"][0]["citation"]["quote"]
    assert writers[("hyparquet", "v2", "page-index", False)]["created_by"] == "hyparquet"


def test_every_reader_reads_every_selected_file_with_its_variants(matrix_run: Path) -> None:
    doc = json.loads((matrix_run / "results.json").read_text())
    cells = doc["writers"]["cells"]
    cases = {c["case"] for c in cells}
    assert "written/pyarrow/default/flat/pages" in cases
    assert "written/parquetjs/page-index/page-index/as-written" in cases
    assert {c["adapter"] for c in cells} == {"pyarrow", "polars"}
    flat = {c["adapter"]: c["verdict"] for c in cells if c["case"] == "written/pyarrow/default/flat/footer"}
    assert flat == {"pyarrow": "pass", "polars": "pass"}
    # the nonconforming file: either, so a read of the right data or a refusal both pass
    index = [c for c in cells if c["case"] == "written/parquetjs/page-index/page-index/as-written"]
    assert {c["expected"] for c in index} == {"either"}
    # polars refuses field 32767 in page headers, whoever wrote the file (parquetjs 1.8.9 refuses the flat table's
    # dates before 1970, "DATE value is out of bounds: -7": its file is the table's other columns, flat-accepted)
    pages = {c["case"].split("/")[1]: c["verdict"] for c in cells if c["adapter"] == "polars"
             and c["case"].endswith("/pages") and c["case"].split("/")[3] in ("flat", "flat-accepted")}
    assert set(pages.values()) == {"fail:rejected-valid"} and len(pages) == 3
    html = (matrix_run / "writers.html").read_text()
    assert "written/w1/cases/written/pyarrow/default/flat/as-written.parquet" in html
    assert 'href="writers.html"' in (matrix_run / "report.html").read_text()


def test_failing_files_are_kept_as_regressions_that_ship(matrix_run: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    store = matrix_run / "regressions"
    kept = {e["id"]: e for e in regression_store.load(store)}
    entry = kept["regression/written/pyarrow/default/flat/pages"]
    assert entry["found_by"]["writer"] == "pyarrow" and entry["found_by"]["readers"][0]["adapter"] == "polars"
    assert entry["citations"][0]["source"].startswith("pyarrow ")
    monkeypatch.setenv(regression_store.ENV, str(tmp_path / "shipped"))
    regression_store.add_from(store, entry["id"])
    assert [e["id"] for e in regression_store.load()] == [entry["id"]]


def test_report_upstream_has_folders_as_a_writer_and_as_a_reader_of_written_files(matrix_run: Path,
                                                                                   tmp_path: Path) -> None:
    """Issue 32: a folder for every confirmed failure of every adapter and writer: parquetjs's nonconforming page
    index as a writer (the rules, the file it wrote, the inspect line), polars' refusal of extensions in page headers
    on files the other reader reads, as a reader."""
    import subprocess

    from tests.helpers import CLI

    for name, want in (("parquetjs", "-writer-nonconforming-"), ("polars", "written-")):
        out = tmp_path / name
        proc = subprocess.run([*CLI, "report", "--results", str(matrix_run / "results"), "--upstream", name,
                               str(out)], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        folders = [p for p in out.iterdir() if p.is_dir() and want in p.name]
        assert folders, sorted(p.name for p in out.iterdir())
        readme = (folders[0] / "README.md").read_text()
        if name == "parquetjs":
            assert "inspect --strict written.parquet" in readme and (folders[0] / "written.parquet").is_file()
        else:
            assert "## Why: " in readme and json.loads(
                (folders[0] / "finding.json").read_text())["case"].startswith("written/")
