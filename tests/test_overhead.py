"""Skip overhead (app/overhead.py): the measurement's shape on a real reader, and the flag rule. No
timing is asserted: the figures are whatever this machine gives."""

from __future__ import annotations

from parquet_conformance.app.overhead import FLAG_FACTOR, _flagged, measure
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.corpus import track
from parquet_conformance.generators.parquet.strict import parse_file
from parquet_conformance.reports.overhead import markdown, text_table
from parquet_conformance.reports.text import overhead_chart_svg as chart_svg


def test_the_files_carry_the_extension_asked_for() -> None:
    parquet = track.get("parquet")
    assert parquet.skippable("flat", None) == parquet.base_file("flat")  # type: ignore[attr-defined]
    (ext,) = parse_file(parquet.skippable("flat", 1 << 20)).extensions()  # type: ignore[attr-defined]
    assert (ext.struct, ext.length) == ("FileMetaData", 1 << 20)


def test_pyarrow_reads_every_size() -> None:
    rows = measure([AdapterSpec("pyarrow")], track.get("parquet"), ["flat"], repeat=1, sizes=(0, 1 << 20))
    assert [(r.size, r.outcome) for r in rows] == [(None, "read"), (0, "read"), (1 << 20, "read")]
    assert rows[0].ratio == 1.0 and all(r.seconds is not None and r.ratio is not None for r in rows)
    assert "pyarrow" in text_table(rows) and "1 MiB" in text_table(rows)
    assert all(r.bytes_read is not None and r.bytes_read >= 0 for r in rows)  # Linux has /proc
    big, plain = rows[2].bytes_read or 0, rows[0].bytes_read or 0
    assert big - plain >= 1 << 20  # the reader read the extension's bytes (it must, to skip them in a stream)
    assert "| pyarrow |" in markdown(rows) and "<svg" in chart_svg(rows)
    assert chart_svg(rows) == chart_svg(rows)  # deterministic


def test_the_flag_rule() -> None:
    once, plain = 0.01, 0.002
    assert not _flagged(0, 10.0, once, plain)  # a 0 B extension is noise, never flagged
    assert not _flagged(None, 10.0, once, plain)
    assert not _flagged(1 << 20, FLAG_FACTOR * once, once, plain)
    assert _flagged(1 << 20, FLAG_FACTOR * once + 1.0, once, plain)
    assert not _flagged(1 << 20, None, once, plain)  # the reader refused the file
