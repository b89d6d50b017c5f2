"""A document shaped like the default run's (19 Parquet readers and 2 Skiff codecs by the names, versions and engines
of the default run, its number of cases, its mix of verdicts and messages as long as real ones), made in memory:
what report.html's weight and layout are checked on without running 15,000 cells (tests/test_reports.py,
tests/test_browser.py). Deterministic: the same document every time."""

from __future__ import annotations

import random

from parquet_conformance.conformance.harness.model import Cell, OutcomeKind, RunInfo, Verdict
from parquet_conformance.corpus.model import Citation, Expectation, Kind
from parquet_conformance.reports.model import RESULTS_FORMAT, RESULTS_VERSION, CaseSummary, ResultsDocument, scores

READERS = [("carquet", "0.7.2", "carquet (C11)"),
           ("clickhouse", "4.4.0", "ClickHouse (chdb) [ClickHouse 26.9.2.1 native v3]"),
           ("daft-parquet2", "0.4.18", "daft (parquet2 decoder) [parquet2 (vendored) + parquet-format-safe thrift]"),
           ("datafusion", "55.0.0", "DataFusion [arrow-rs (via DataFusion)]"), ("duckdb", "2.0.1", "DuckDB"),
           ("fastparquet", "2026.9.0", "fastparquet"), ("hyparquet", "1.31.5", "hyparquet (JavaScript)"),
           ("hyper", "0.0.26963", "Tableau Hyper [Hyper's C++ Parquet reader (hyperd)]"),
           ("parquet-java", "1.17.0", "parquet-java [parquet-java 1.17.0]"),
           ("parquet-pages", "0.6.0", "parquet-pages (Apache Thrift Python)"),
           ("parquet-python", "1.3.1", "parquet-python (pure Python, thriftpy2)"),
           ("parquetjs", "1.8.9", "@dsnp/parquetjs (JavaScript)"), ("polars", "2.1.0", "polars (polars-parquet, Rust)"),
           ("por-que", "0.5.0", "por-que (pure Python)"), ("pyarrow", "26.0.1", "Arrow C++ (parquet-cpp)"),
           ("reference", "0.2.0", "parquet-conformance reference reader"), ("rugo", "0.5.6", "rugo (Opteryx, C++)"),
           ("spark", "4.3.0", "Apache Spark [parquet-java 1.17.0]"),
           ("velox", "0.2.0", "Velox (pyvelox) [Velox C++ Parquet reader (dwio/parquet)]")]
CODECS = [("skiff-reference", "0.2.0", "parquet-conformance Skiff reference"),
          ("ytsaurus-skiff", "0.4.10", "YTsaurus Skiff codec (C++, Python binding)")]
PARQUET_CASES, SKIFF_CASES = 779, 269
TRACE = "\n".join(f"\tat org.apache.parquet.format.converter.ParquetMetadataConverter.step{i}(Converter.java:{i})"
                  for i in range(60))
MIX = [(Verdict.PASS, OutcomeKind.READ)] * 80 + [(Verdict.PASS, OutcomeKind.REJECTED)] * 12 + [
    (Verdict.REJECTED_VALID, OutcomeKind.REJECTED), (Verdict.UNHANDLED, OutcomeKind.UNHANDLED),
    (Verdict.UNHANDLED, OutcomeKind.UNHANDLED), (Verdict.WRONG_DATA, OutcomeKind.READ),
    (Verdict.ACCEPTED_INVALID, OutcomeKind.READ), (Verdict.CRASH, OutcomeKind.CRASH),
    (Verdict.SKIP, OutcomeKind.UNAVAILABLE), (Verdict.SKIP, OutcomeKind.UNHANDLED)]


def message(rng: random.Random, outcome: OutcomeKind) -> tuple[str | None, str | None]:
    if outcome == OutcomeKind.READ:
        return None, None
    if outcome == OutcomeKind.CRASH:
        return "killed by SIGSEGV", f"Corrupted thrift data at {rng.randrange(9999)} : 19 15\n" * 8
    if outcome == OutcomeKind.UNAVAILABLE:
        return None, "fails the same way on the unmodified base"
    offset = rng.randrange(10**6)
    if rng.random() < 0.5:  # a Java chain: a long trace with its root cause at the end
        return "py4j.protocol.Py4JJavaError", (
            f"An error occurred while calling o{offset}.parquet.\n: org.apache.spark.SparkException: Could not read "
            f"footer at {offset}\n{TRACE}\nCaused by: java.lang.NullPointerException\n{TRACE[:400]}")
    return "builtins.TypeError", f"'NoneType' object is not iterable (at offset {offset})"


def document() -> ResultsDocument:
    rng = random.Random(7)
    cells, cases = [], []
    for track, adapters, n in (("parquet", READERS, PARQUET_CASES), ("skiff", CODECS, SKIFF_CASES)):
        for i in range(n):
            case = f"{'skiff/' if track == 'skiff' else ''}family-{i % 37}/struct-{i % 11}/case-{i}"
            expected = Expectation.READ if i % 3 else Expectation.REJECT
            cases.append(CaseSummary(
                id=case, track=track, title=f"a {i}-byte extension in the {i % 5}th struct of the base 'flat'",
                group=case.split("/")[0], kind=Kind.GOLDEN, expect={"legacy": expected},
                citations=[Citation("apache/parquet-format BinaryProtocolExtensions.md (737ea12e)",
                                    "Binary Protocol Extensions",
                                    "Existing readers will ignore these extensions without any modifications")],
                notes=f"Case {i}: see docs/spec-notes.md#baseline.", file=f"cases/{case}.parquet",
                expected_data="expected/flat.json", op="encode" if track == "skiff" and i % 2 else "read"))
            for adapter, version, implementation in adapters:
                verdict, outcome = rng.choice(MIX)
                error_class, error_message = message(rng, outcome)
                cells.append(Cell(case=case, track=track, group=case.split("/")[0], kind=Kind.GOLDEN, adapter=adapter,
                                  implementation=implementation, version=version, role="legacy", expected=expected,
                                  outcome=outcome, verdict=verdict, error_class=error_class,
                                  error_message=error_message, rows=24 if outcome == OutcomeKind.READ else None,
                                  data_hash=None, duration_s=0.01, metadata=None,
                                  attempts=1 if verdict == Verdict.PASS else 2,
                                  previous_case=None if verdict == Verdict.PASS else f"family-1/case-{i - 1}",
                                  disagreement=None))
    run = RunInfo("wide", "0.2.0", 0, "local[*]", "corpus", None, ["parquet", "skiff"], "0" * 64)
    return ResultsDocument(RESULTS_FORMAT, RESULTS_VERSION, run, scores(cells), cases, cells,
                           roles={"legacy": "a reader that knows no extension (any Parquet reader today)"})
