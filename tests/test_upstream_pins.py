"""The apache/parquet-testing files the evolution family transcribes, pinned (corpus/parquet/upstream.json, read by
corpus/upstream.py): the list is well formed and points at our bases and twins; pinned bytes come in beside the
cases, other bytes are refused. With PARQUET_TESTING_CHECKOUT (a checkout of apache/parquet-testing) every pinned
file it holds must match its pin and become a case; CI has none, a developer can (docs/corpus-distribution.md)."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest

from parquet_conformance.corpus import upstream
from parquet_conformance.corpus.build import generate
from parquet_conformance.corpus.parquet import TRACK
from parquet_conformance.corpus.parquet.catalog import all_cases
from parquet_conformance.generators.parquet.bases import BASES, base_bytes

PINS = TRACK.upstream_pins()


def test_every_pin_rests_on_our_base_and_twin() -> None:
    ids = {c.id for c in all_cases()}
    assert len(PINS) >= 15
    for pin in PINS:
        assert pin.base in BASES and (pin.twin is None or pin.twin in ids), pin.path
        assert pin.repo == "apache/parquet-testing" and pin.expectation
    transcribed = {p.path for p in PINS if p.twin}
    assert {"data/int32_with_uuid_logical_type.parquet", "data/no_path_in_schema.zstd.parquet",
            "data/int96_timestamp_order.parquet"} <= transcribed


def _fake(tmp_path: Path, data: bytes) -> tuple[Path, upstream.Pin]:
    """A checkout holding one file, and a pin of exactly those bytes (our own base stands in for an upstream file)."""
    pin = upstream.Pin("apache/parquet-testing", "data/x.parquet", "0" * 40, hashlib.sha256(data).hexdigest(), "test",
                       {"legacy": upstream.Expectation.READ}, "a test pin", "flat", None, False)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "x.parquet").write_bytes(data)
    return tmp_path, pin


def test_pinned_bytes_become_a_case_on_the_twins_base(tmp_path: Path) -> None:
    checkout, pin = _fake(tmp_path, base_bytes("flat"))
    (entry, data), = upstream.case_entries(TRACK, [pin], checkout, None, lambda _: "golden")[0]
    assert entry.id == "upstream/parquet-testing/data/x" and entry.base == "flat" and data == base_bytes("flat")
    assert entry.group == "upstream" and entry.citations[0].level == "policy"


def test_a_changed_byte_is_refused(tmp_path: Path) -> None:
    data = bytearray(base_bytes("flat"))
    checkout, pin = _fake(tmp_path, bytes(data))
    data[100] ^= 1
    (checkout / "data" / "x.parquet").write_bytes(bytes(data))
    with pytest.raises(upstream.UpstreamError, match="refused"):
        upstream.case_entries(TRACK, [pin], checkout, None, lambda _: "golden")


def test_a_pin_cannot_leave_the_checkout() -> None:
    with pytest.raises(upstream.UpstreamError):
        upstream._pin({"repo": "a/b", "path": "../x.parquet", "commit": "0" * 40, "sha256": "0" * 64,
                       "sha256_from": "", "expect": {"legacy": "read"}, "expectation": "", "base": "flat",
                       "data_unknown": False}, "test")


@pytest.mark.skipif(not os.environ.get("PARQUET_TESTING_CHECKOUT"), reason="PARQUET_TESTING_CHECKOUT is not set")
def test_a_checkout_gives_every_pinned_file_it_holds(tmp_path: Path) -> None:
    checkout = Path(os.environ["PARQUET_TESTING_CHECKOUT"])
    held = [p for p in PINS if (checkout / p.path).is_file()]
    assert held
    manifest = generate(tmp_path / "corpus", only="upstream/*", tracks=[TRACK], upstream=checkout)
    assert {c.id for c in manifest.cases} == {p.case_id for p in held} | {p.case_id for p in STORED}
    for case in manifest.cases:
        folder = checkout if case.id in {p.case_id for p in held} else TRACK.upstream_copy()
        assert (tmp_path / "corpus" / case.file).read_bytes() == (folder / next(
            p.path for p in PINS if p.case_id == case.id)).read_bytes()
    shutil.rmtree(tmp_path / "corpus")


STORED = [p for p in PINS if (TRACK.upstream_copy() / p.path).is_file()]
BUDGET = 2 << 20  # bytes of committed upstream files (docs/corpus-distribution.md#upstream-files)


def test_the_committed_copies_are_pinned_files_within_the_budget() -> None:
    """Every file of corpus/parquet/parquet-testing is a pinned file byte for byte; together they stay within the
    budget the docs state."""
    folder = TRACK.upstream_copy()
    files = {str(f.relative_to(folder)) for f in folder.rglob("*") if f.is_file()}
    assert files == {p.path for p in STORED} and len(files) == 67
    for pin in STORED:
        assert upstream.read_pinned(folder, pin) is not None
    assert sum((folder / f).stat().st_size for f in files) <= BUDGET


def test_a_fresh_clone_judges_the_committed_copies_with_no_checkout(tmp_path: Path) -> None:
    """generate without --upstream puts the committed copies in the corpus (a pin per operation: its own case, its
    op); with no copy and no checkout the pin is only missing."""
    pins = [p for p in STORED if p.path == "data/int32_with_null_pages.parquet"]
    found, missing = upstream.case_entries(TRACK, pins, None, None, lambda _: "golden", TRACK.upstream_copy())
    assert {e.id: e.op for e, _ in found} == {"upstream/parquet-testing/data/int32_with_null_pages": "read",
                                              "upstream/parquet-testing/data/int32_with_null_pages/page-index":
                                                  "page-index",
                                              "upstream/parquet-testing/data/int32_with_null_pages/statistics":
                                                  "statistics"} and not missing
    assert "committed beside its pin" in found[0][0].notes
    assert upstream.case_entries(TRACK, pins, None, None, lambda _: "golden")[1] == pins
    manifest = generate(tmp_path / "corpus", only="upstream/parquet-testing/data/int32_with_null_pages*",
                        tracks=[TRACK])
    answered = manifest.case("upstream/parquet-testing/data/int32_with_null_pages/page-index")
    assert answered.expect_hash["legacy"] and not answered.data_unknown  # judged on our decoder's answer
