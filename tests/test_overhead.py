"""Skip overhead (conformance/overhead.py): the measurement's shape on a real reader, and the flag rule. No
timing is asserted: the figures are whatever this machine gives."""

from __future__ import annotations

from parquet_conformance.conformance.execute import AdapterSpec
from parquet_conformance.conformance.overhead import FLAG_FACTOR, _flagged, measure, table
from parquet_conformance.corpus import track
from parquet_conformance.generators.parquet.footer import parse_file


def test_the_files_carry_the_extension_asked_for() -> None:
    parquet = track.get("parquet")
    assert parquet.skippable("flat", None) == parquet.base_file("flat")  # type: ignore[attr-defined]
    (ext,) = parse_file(parquet.skippable("flat", 1 << 20)).extensions()  # type: ignore[attr-defined]
    assert (ext.struct, ext.length) == ("FileMetaData", 1 << 20)


def test_pyarrow_reads_every_size() -> None:
    rows = measure([AdapterSpec("pyarrow")], track.get("parquet"), ["flat"], repeat=1, sizes=(0, 1 << 20))
    assert [(r.size, r.outcome) for r in rows] == [(None, "read"), (0, "read"), (1 << 20, "read")]
    assert rows[0].ratio == 1.0 and all(r.seconds is not None and r.ratio is not None for r in rows)
    assert "pyarrow" in table(rows) and "1 MiB" in table(rows)


def test_the_flag_rule() -> None:
    once, plain = 0.01, 0.002
    assert not _flagged(0, 10.0, once, plain)  # a 0 B extension is noise, never flagged
    assert not _flagged(None, 10.0, once, plain)
    assert not _flagged(1 << 20, FLAG_FACTOR * once, once, plain)
    assert _flagged(1 << 20, FLAG_FACTOR * once + 1.0, once, plain)
    assert not _flagged(1 << 20, None, once, plain)  # the reader refused the file
