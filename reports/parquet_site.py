"""parquet-site/<engine>-<version>.yaml: a run's verdicts in the layout of apache/parquet-site's per-implementation
support tables (`data/implementations/support/<engine>.yaml`: `engine_id`, `last_updated`, `support` of feature id
-> `status` and a `note`), so that a maintainer can diff our matrix against the official one. The mapping from our
case families to the site's feature ids is FEATURES (docs/results.md#parquet-site says why each rests on what);
a feature none of our cases decides is left out, never guessed.

A run reads; it writes nothing. So the only statuses we give are `read` (the site's "partial reader only support":
every case of the feature passes, where passing needs the feature) and `none` (a case of the feature fails: the
reader cannot read such a file). A feature a reader merely tolerates (it reads a VARIANT file as its physical group,
which the format allows) gets no status from a pass. Skipped, flaky and harness-error cells say nothing.

Outside text (an implementation's name and version, as its worker reports them) reaches the YAML only as JSON-quoted
scalars (YAML 1.2 reads every JSON string as a double-quoted scalar): that is this sink's one escaper, `_scalar`."""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from parquet_conformance.conformance.harness.model import Cell, Verdict
from parquet_conformance.reports.model import ResultsDocument
from parquet_conformance.reports.text import distinct_names

Mode = Literal["requires", "tolerates"]


@dataclass(frozen=True)
class Feature:
    """A parquet-site feature id and the cases that decide it. `requires`: a pass needs the feature (the data of a
    file written with it), so all passing is `read`; `tolerates`: a pass shows only that the reader survives a file
    with it, so only a failure speaks (`none`)."""

    id: str
    cases: tuple[str, ...]  # globs over case ids
    mode: Mode


# The site's ids as data/implementations/features/*.yaml name them (apache/parquet-site, read at the stored copy).
FEATURES = (
    Feature("compression-uncompressed", ("base/flat",), "requires"),
    Feature("compression-snappy", ("base/codec-snappy",), "requires"),
    Feature("compression-gzip", ("base/codec-gzip",), "requires"),
    Feature("compression-brotli", ("base/codec-brotli",), "requires"),
    Feature("compression-zstd", ("base/codec-zstd",), "requires"),
    Feature("compression-lz4-raw", ("base/codec-lz4-raw",), "requires"),
    Feature("format-data-page-v2", ("base/data-page-v2",), "requires"),
    Feature("format-page-index", ("base/page-index",), "tolerates"),
    Feature("format-bloom-filters", ("base/page-index",), "tolerates"),
    Feature("format-page-crc32", ("base/checksummed",), "tolerates"),
    Feature("format-binary-protocol-extensions", ("ext/*",), "requires"),
    Feature("format-ieee-754-total-order-and-nan-counts",
            ("evolution/column-order/ieee754-total-order", "evolution/nan-count/*"), "tolerates"),
    Feature("logical-variant", ("evolution/variant/duckdb-shredded",), "tolerates"),
    Feature("logical-variant-shredding", ("evolution/variant/*",), "tolerates"),
    Feature("logical-geometry", ("evolution/geometry/*",), "tolerates"),
    Feature("logical-geography", ("evolution/geography/*",), "tolerates"),
    Feature("logical-type-union", ("unions/logical-type/unknown-only", "evolution/file/*"), "tolerates"),
)
# Our adapters whose engine is one of the site's engines (data/implementations/engines.yaml); the others keep
# their own name, which the site has no table for.
ENGINES = {"pyarrow": "arrow", "parquet-java": "parquet-java", "datafusion": "arrow-rs", "hyparquet": "hyparquet",
           "duckdb": "duckdb", "polars": "polars"}
NOTE_CASES = 3  # failing cases named in a `none` note


def engine_of(adapter: str) -> str:
    """The site's engine id of an adapter: its engine's where it has one of the site's, else its own name."""
    return ENGINES.get(re.split(r"[=@]", adapter)[0], adapter)  # polars==1.40.1: polars


def _scalar(text: str) -> str:
    return json.dumps(text, ensure_ascii=True)


def _file_part(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]", "_", text)[:80] or "_"


def statuses(cells: Sequence[Cell]) -> dict[str, tuple[str, str]]:
    """feature id -> (status, note) for one implementation's cells; features the cells do not decide are absent."""
    out: dict[str, tuple[str, str]] = {}
    for feature in FEATURES:
        mine = [c for c in cells if any(fnmatch.fnmatchcase(c.case, g) for g in feature.cases)]
        judged = [c for c in mine if c.verdict.judged]
        if not judged or any(c.verdict == Verdict.FLAKY for c in judged):
            continue
        failed = [c for c in judged if c.verdict.is_failure]
        if failed:
            named = ", ".join(f"{c.case} ({c.verdict.value.removeprefix('fail:')})" for c in failed[:NOTE_CASES])
            more = f" and {len(failed) - NOTE_CASES} more" if len(failed) > NOTE_CASES else ""
            out[feature.id] = ("none", f"parquet-conformance: fails {named}{more}")
        elif feature.mode == "requires":
            cases = ", ".join(feature.cases)
            count = f"{len(judged)} case" + ("s" if len(judged) != 1 else "")
            out[feature.id] = ("read", f"parquet-conformance: reads all {count} ({cases})")
    return out


def document(engine: str, implementation: str, version: str, day: str, run: str,
             support: dict[str, tuple[str, str]]) -> str:
    lines = [f"# parquet-conformance run {run}: {json.dumps(implementation)[1:-1]} {json.dumps(version)[1:-1]}, "
             "reading only (docs/results.md#parquet-site)",
             f"engine_id: {_scalar(engine)}", f"last_updated: {_scalar(day)}", "support:"]
    for feature, (status, note) in support.items():
        lines += [f"  {feature}:", f"    status: {status}", f"    note: {_scalar(note)}"]
    return "\n".join(lines) + "\n"


class ParquetSiteFormat:
    name = "parquet-site"

    def write(self, doc: ResultsDocument, out: Path) -> list[Path]:
        folder = out / "parquet-site"
        folder.mkdir(parents=True, exist_ok=True)
        day = (doc.run.started or "")[:10]
        supported = {}
        for score in doc.adapters:
            if score.track != "parquet":
                continue
            cells = [c for c in doc.cells if c.adapter == score.adapter and c.track == "parquet"]
            if support := statuses(cells):
                supported[score.adapter] = (score, support)
        # One file each, never one over another: an engine's own adapter keeps <engine>-<version>; another adapter
        # whose name gives the same file (named like the engine, or alike in its first 80 characters) is told apart.
        order = sorted(supported, key=lambda a: (re.split(r"[=@]", a)[0] not in ENGINES, a))
        stems = distinct_names({a: f"{_file_part(engine_of(a))}-{_file_part(supported[a][0].version or 'unknown')}"
                                for a in order})
        written = []
        for adapter, (score, support) in supported.items():
            path = folder / f"{stems[adapter]}.yaml"
            path.write_text(document(engine_of(adapter), score.implementation, score.version or "", day, doc.run.id,
                                     support), encoding="utf-8")
            written.append(path)
        return written


FORMAT = ParquetSiteFormat()
