"""apache/parquet-site's implementation-status data as committed (corpus/parquet/parquet-site, corpus/parquet/site.py):
every stored file pinned by provenance.json (repository, path, commit, sha256), read by our YAML subset loader exactly
as pyyaml reads it, into the site's categories, features, engines, legend and support tables."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
import yaml

from parquet_conformance.corpus.parquet import site
from parquet_conformance.corpus.parquet.site import FOLDER, SiteDataError, load_yaml, site_data


def test_every_stored_file_is_pinned_with_its_commit_and_sha256() -> None:
    pins = json.loads((FOLDER / "provenance.json").read_text())["files"]
    stored = sorted(str(p.relative_to(FOLDER)) for p in FOLDER.rglob("*.yaml"))
    assert sorted(p["path"] for p in pins) == stored
    for pin in pins:
        assert pin["repo"] == "apache/parquet-site" and len(pin["commit"]) == 40 and pin["chosen"]
        data = (FOLDER / pin["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == pin["sha256"] and len(data) == pin["size"]


@pytest.mark.parametrize("path", sorted(p.name for p in FOLDER.rglob("*.yaml")))
def test_the_loader_reads_each_file_as_pyyaml_does(path: str) -> None:
    (file,) = [p for p in FOLDER.rglob(path)]
    text = file.read_text()
    assert load_yaml(text) == yaml.safe_load(text)


def test_the_records_hold_the_sites_tables() -> None:
    data = site_data()
    assert [c for c, _ in data.categories] == ["physical-types", "logical-types", "encodings", "compressions",
                                               "format-features", "api-features"]
    counts = {c: sum(f.category == c for f in data.features) for c, _ in data.categories}
    assert counts == {"physical-types": 8, "logical-types": 25, "encodings": 10, "compressions": 8,
                      "format-features": 12, "api-features": 6}
    assert data.feature("logical-nanosecond-time-timestamp").implementation_status is False
    assert data.feature("physical-int96").released_in == "1.0.0"
    assert {e.id for e in data.engines} == {"arrow", "parquet-java", "arrow-go", "arrow-rs", "cudf", "hyparquet",
                                             "duckdb", "polars"}
    assert data.support["duckdb"].support["format-page-crc32"].status == "read"
    assert data.support["arrow"].support["format-bloom-filters"].since_write == "24.0.0"
    assert set(data.legend) == set(site.STATUSES)
    # support files updated after the feature files we could read name ids those do not list
    assert data.unlisted()["polars"] == ["encoding-alp", "logical-file"]


def test_a_file_whose_bytes_are_not_the_pinned_ones_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "parquet-site"
    shutil.copytree(FOLDER, copy)
    legend = copy / "data/implementations/legend.yaml"
    legend.write_text(legend.read_text().replace("supported", "supported!"))
    monkeypatch.setattr(site, "FOLDER", copy)
    site_data.cache_clear()
    try:
        with pytest.raises(SiteDataError, match=r"legend\.yaml: its sha256"):
            site_data()
    finally:
        site_data.cache_clear()


@pytest.mark.parametrize(("text", "message"), [
    ("a: [1, 2]\n", "outside the subset"),
    ("a: &x 1\nb: *x\n", "outside the subset"),
    ("a: 2019-09-25\n", "not text to YAML 1.1"),
    ("a: 1.5\n", "not text to YAML 1.1"),
    ("a: yes\n", "not text to YAML 1.1"),
    ("a: |\n  text\n", "outside the subset"),
    ("a: b\n  c\n", "continued on the next line"),
    ("a:\n\t- b\n", "a tab"),
    ("a: 1\na: 2\n", "twice"),
    ("a: 'it's'\n", "malformed single-quoted"),
    ('a: "open\n', "unterminated"),
    ("a: b # comment\n", "outside the subset"),
])
def test_yaml_outside_the_subset_is_refused_with_its_line(text: str, message: str) -> None:
    with pytest.raises(SiteDataError, match=message):
        load_yaml(text)
