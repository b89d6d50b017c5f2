"""`report --upstream` without running anything: plain values, the scripts the adapters give (every slot filled,
nothing of ours imported, the Python one's conversions agreeing with ours), and which columns a script compares.
The scripts themselves run against real readers in tests/test_upstream_reproduce.py."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import math
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest

from parquet_conformance.conformance.adapters import get, names
from parquet_conformance.conformance.adapters.reproducing import reproducer_of
from parquet_conformance.conformance.app import upstream
from parquet_conformance.conformance.harness.model import Cell, Verdict
from parquet_conformance.conformance.harness.sample import column_digests
from parquet_conformance.corpus.model import CaseEntry
from parquet_conformance.generators.canonical import canonical_value
from parquet_conformance.kernel.errors import UsageError

COLUMNS = ["a", "b"]
ROWS = [[{"int": "1"}, "x"], [None, "y"]]


def cell(case: str, verdict: Verdict, expected: str = "read", sample: str | None = None,
         adapter: str = "pyarrow") -> Cell:
    return Cell.from_row(dict(case=case, track="parquet", group=case.split("/")[0], kind="golden", adapter=adapter,
                              implementation="Arrow C++ (parquet-cpp)", version="1.0", role="legacy",
                              expected=expected, outcome="read", verdict=verdict, error_class=None,
                              error_message=None, rows=2, data_hash=None, duration_s=0.1, metadata=None, attempts=2,
                              previous_case=None, disagreement=None, sample=sample))


def case_entry(case: str, expected: str = "read") -> CaseEntry:
    return CaseEntry.from_json(dict(
        id=case, track="parquet", title="a title", group=case.split("/")[0], kind="golden", base="b", file="f",
        size=10, sha256="0" * 64, seed=0, mutations=[], expect={"legacy": expected}, decode={},
        citations=[{"source": "spec", "section": "s", "quote": "q / r"}], notes="see docs/spec-notes.md#x",
        extensions=None, large=False))


def sample(rows: list[list[object]]) -> str:
    return json.dumps({"columns": COLUMNS, "rows": rows, "total": len(rows), "digests": column_digests(COLUMNS, rows)})


def test_plain_values() -> None:
    assert [upstream.plain(t) for t in (None, True, "t", {"int": "7"}, {"int": str(2**60)}, {"float": "nan"},
                                        {"float": "-inf"}, {"float": "-0.0"}, {"dec": "1E-10"}, {"bin": "00ff"},
                                        {"date": "+10000-01-01"}, {"uuid": "u"}, {"time_ns": "1500000000"})] == [
        None, True, "t", 7, str(2**60), "NaN", "-Infinity", -0.0, "0.0000000001", {"$hex": "00ff"}, "+10000-01-01",
        "u", "00:00:01.5"]
    assert upstream.plain({"ts_ns": "-1"}) == "1969-12-31T23:59:59.999999999"
    assert upstream.plain({"ts_ns": "981173106000001000"}) == "2001-02-03T04:05:06.000001"
    assert upstream.plain([{"struct": {"k": [["a", {"int": "1"}]]}}]) == [{"k": [["a", 1]]}]


@pytest.mark.parametrize("name", [n for n in names() if reproducer_of(get(n)) is not None])
def test_every_script_is_whole_and_stands_alone(name: str) -> None:
    repro = reproducer_of(get(name))
    assert repro is not None
    finding = upstream.Finding(adapter=name, verdict=Verdict.WRONG_DATA, signature="s",
                               cell=cell("c/d", Verdict.WRONG_DATA, adapter=name), case=case_entry("c/d"), others=[])
    text = upstream.script(repro, finding, upstream.Comparison(["a", "b"], False, ""), "1.0", 60)
    assert "@@" not in text and "parquet_conformance" not in text and "parquet-conformance case c/d" in text
    if repro.language == "Python":
        compile(text, repro.script, "exec")
    assert repro.install.format(version="1.0") and repro.run


def test_the_python_script_writes_plain_values_as_we_do() -> None:
    repro = reproducer_of(get("pyarrow"))
    assert repro is not None
    finding = upstream.Finding(adapter="pyarrow", verdict=Verdict.CRASH, signature="s",
                               cell=cell("c/d", Verdict.CRASH), case=case_entry("c/d"), others=[])
    ns: dict[str, object] = {"__name__": "repro", "__file__": "repro.py"}
    exec(compile(upstream.script(repro, finding, upstream.Comparison([], False, ""), "1", 60), "repro.py",
                 "exec"), ns)
    script_plain, instant, days = ns["plain"], ns["Instant"], ns["Days"]
    values = [None, True, 5, 2**60, -(2**60), 1.5, -0.0, math.inf, "Grüße", decimal.Decimal("1E-10"),
              decimal.Decimal("-123.45"), dt.date(1, 1, 1), dt.date(9999, 12, 31),
              dt.datetime(2001, 2, 3, 4, 5, 6, 789),
              dt.datetime(2001, 2, 3, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=-5))),
              dt.time(23, 59, 59, 999999), uuid.UUID(int=12345), b"\x00\xff", {"a": [1, None]}, [("k", 1.0)]]
    for v in values:
        assert script_plain(v) == upstream.plain(canonical_value(v)), v  # type: ignore[operator]
    assert script_plain(math.nan) == "NaN"  # type: ignore[operator]
    for ns_ in (-1, 0, 86_400 * 10**9 - 1, 253402214400000001000, -62135596800000000001, 864000086399999999000):
        assert script_plain(instant(ns_)) == upstream.timestamp_text(ns_)  # type: ignore[operator]
    for d in (-719_163, -800_000, 0, 2_932_896, 3_000_000):
        assert script_plain(days(d)) == upstream.plain({"date": upstream.date_text(d)})  # type: ignore[operator]


def run_of(*cells: Cell) -> SimpleNamespace:
    return SimpleNamespace(cells=list(cells))


MANIFEST = SimpleNamespace(bases={"b": SimpleNamespace(baseline_case="base/b")})


def test_a_script_compares_what_the_adapter_reads_right_in_the_base() -> None:
    finding = upstream.Finding("pyarrow", Verdict.REJECTED_VALID, "s", cell("c/d", Verdict.REJECTED_VALID),
                               case_entry("c/d"), [])
    compare = upstream.comparison
    got = compare(finding, run_of(cell("base/b", Verdict.PASS)), MANIFEST, (COLUMNS, ROWS))  # type: ignore[arg-type]
    assert (got.columns, got.control) == (COLUMNS, True)
    base_off = cell("base/b", Verdict.WRONG_DATA, sample=sample([[{"int": "1"}, "x"], [None, "z"]]))
    got = compare(finding, run_of(base_off), MANIFEST, (COLUMNS, ROWS))  # type: ignore[arg-type]
    assert (got.columns, got.control) == (["a"], True) and "reads b of the unmodified base" in got.note
    got = compare(finding, run_of(), MANIFEST, (COLUMNS, ROWS))  # type: ignore[arg-type]
    assert (got.columns, got.control) == (COLUMNS, False) and "did not read the unmodified base" in got.note
    # wrong data: the columns this case changed, not those the adapter gets wrong on every file of the base
    wrong = upstream.Finding("pyarrow", Verdict.WRONG_DATA, "s", cell("c/d", Verdict.WRONG_DATA,
                             sample=sample([[{"int": "2"}, "z"], [None, "z"]])), case_entry("c/d"), [])
    got = compare(wrong, run_of(base_off), MANIFEST, (COLUMNS, ROWS))  # type: ignore[arg-type]
    assert (got.columns, got.control) == (["a"], True)
    only_b = upstream.Finding("pyarrow", Verdict.WRONG_DATA, "s", cell("c/d", Verdict.WRONG_DATA,
                              sample=sample([[{"int": "1"}, "q"], [None, "q"]])), case_entry("c/d"), [])
    got = compare(only_b, run_of(base_off), MANIFEST, (COLUMNS, ROWS))  # type: ignore[arg-type]
    assert (got.columns, got.control) == (["b"], False)
    reject = upstream.Finding("pyarrow", Verdict.ACCEPTED_INVALID, "s", cell("c/d", Verdict.ACCEPTED_INVALID,
                              expected="reject"), case_entry("c/d", "reject"), [])
    assert compare(reject, run_of(), MANIFEST, (COLUMNS, ROWS)).columns == []  # type: ignore[arg-type]


def test_names_and_notes() -> None:
    doc = SimpleNamespace(adapters=[SimpleNamespace(adapter="polars", implementation="polars (Rust)")],
                          run=SimpleNamespace(id="r1"))
    assert upstream.resolve(doc, "polars") == upstream.resolve(doc, "POLARS (rust)") == "polars"  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="not in run r1; its adapters: polars"):
        upstream.resolve(doc, "duckdb")  # type: ignore[arg-type]
    assert upstream.ours("see docs/spec-notes.md#unions.") == "see parquet-conformance's docs/spec-notes.md#unions."


def test_refusals_write_nothing(tmp_path: Path) -> None:
    doc = SimpleNamespace(adapters=[SimpleNamespace(adapter="spark", implementation="Spark", version="4.3.0")],
                          run=SimpleNamespace(id="r1", corpus="", corpus_digest=""))
    with pytest.raises(UsageError, match=r"adapter .spark. has no reproducer script.* polars"):
        upstream.write_upstream(doc, "spark", tmp_path / "out")  # type: ignore[arg-type]
    doc.adapters[0].adapter = "polars"
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    with pytest.raises(UsageError, match="not an empty directory"):
        upstream.write_upstream(doc, "polars", tmp_path / "full")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="records no corpus"):
        upstream.write_upstream(doc, "polars", tmp_path / "out")  # type: ignore[arg-type]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full"]
