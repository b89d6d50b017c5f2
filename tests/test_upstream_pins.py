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
    assert {c.id for c in manifest.cases} == {p.case_id for p in held}
    for case in manifest.cases:
        assert (tmp_path / "corpus" / case.file).read_bytes() == (checkout / next(
            p.path for p in held if p.case_id == case.id)).read_bytes()
    shutil.rmtree(tmp_path / "corpus")
