"""parquet-site/<engine>-<version>.yaml: a run's verdicts in the layout of apache/parquet-site's per-implementation
support tables (`data/implementations/support/<engine>.yaml`: `engine_id`, `last_updated`, `support` of feature id
-> `status` and a `note`), so that a maintainer can diff our matrix against the official one. The mapping from our
case families to the site's feature ids is FEATURES (docs/results.md#parquet-site says why each rests on what);
a feature none of our cases decides is left out, never guessed.

A run reads; it writes nothing. So the only statuses we give are `read` (the site's "partial reader only support":
every case of the feature passes, where passing needs the feature) and `none` (a case of the feature fails: the
reader cannot read such a file). A feature a reader merely tolerates (it reads a VARIANT file as its physical group,
which the format allows) gets no status from a pass. Skipped, flaky and harness-error cells say nothing.

A failure speaks of the feature only where the case isolates it: the same file without the feature (the case's base
unmodified, its baseline case; for a base written with the feature, the feature's `without`) is read right by that
reader (a pass, or its library's documented representation). A failure its file without the feature shows too, or one
whose file without it nobody read, is the rest of the file's, and decides nothing: fastparquet's NaN for a null float
fails no codec. A read in the form the library documents (`representation`) reads the feature.

Outside text (an implementation's name and version, as its worker reports them) reaches the YAML only as JSON-quoted
scalars (YAML 1.2 reads every JSON string as a double-quoted scalar): that is this sink's one escaper, `_scalar`."""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Mapping, Sequence
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
    # For cases that are their own base's baseline (a base written with the feature): the case of the same rows
    # written without it, which isolates it. Other cases are isolated by their base's baseline case.
    without: str | None = None


# The site's ids as data/implementations/features/*.yaml name them (apache/parquet-site, read at the stored copy).
FEATURES = (
    Feature("compression-uncompressed", ("base/flat",), "requires"),
    # the codec bases and v2 are the 'page-index' rows and writer settings, with the codec or page version changed
    Feature("compression-snappy", ("base/codec-snappy",), "requires", "base/page-index"),
    Feature("compression-gzip", ("base/codec-gzip",), "requires", "base/page-index"),
    Feature("compression-brotli", ("base/codec-brotli",), "requires", "base/page-index"),
    Feature("compression-zstd", ("base/codec-zstd",), "requires", "base/page-index"),
    Feature("compression-lz4-raw", ("base/codec-lz4-raw",), "requires", "base/page-index"),
    Feature("format-data-page-v2", ("base/data-page-v2",), "requires", "base/page-index"),
    Feature("format-page-index", ("base/page-index",), "tolerates"),
    Feature("format-bloom-filters", ("base/page-index",), "tolerates"),
    Feature("format-page-crc32", ("base/checksummed",), "tolerates", "base/dictionary"),  # 'dictionary' + a CRC
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


READS = (Verdict.PASS, Verdict.REPRESENTATION)  # the data, or the form its library documents


def without(case: str, feature: Feature, baselines: Mapping[str, str]) -> str | None:
    """The case of the same file without the feature: the case's base unmodified, or, for a base's own case, the
    feature's `without` (None: none is known, and the case isolates nothing)."""
    baseline = baselines.get(case)
    return baseline if baseline and baseline != case else feature.without


def statuses(cells: Sequence[Cell], baselines: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """feature id -> (status, note) for one implementation's cells (`baselines`: case -> its base's baseline case, the
    document's case summaries); features the cells do not decide are absent."""
    reads = {(c.case, c.role) for c in cells if c.verdict in READS}
    out: dict[str, tuple[str, str]] = {}
    for feature in FEATURES:
        mine = [c for c in cells if any(fnmatch.fnmatchcase(c.case, g) for g in feature.cases)]
        judged = [c for c in mine if c.verdict.judged]
        if not judged or any(c.verdict == Verdict.FLAKY for c in judged):
            continue
        failed = [c for c in judged if c.verdict.is_failure]
        isolated = [c for c in failed if (without(c.case, feature, baselines), c.role) in reads]
        if isolated:
            named = ", ".join(f"{c.case} ({c.verdict.value.removeprefix('fail:')})" for c in isolated[:NOTE_CASES])
            more = f" and {len(isolated) - NOTE_CASES} more" if len(isolated) > NOTE_CASES else ""
            out[feature.id] = ("none", f"parquet-conformance: fails {named}{more}, and reads the same "
                                       f"{'file' if len(isolated) == 1 else 'files'} without the feature")
        elif feature.mode == "requires" and not failed:
            cases = ", ".join(feature.cases)
            count = f"{len(judged)} case" + ("s" if len(judged) != 1 else "")
            forms = sorted({r for c in judged for r in c.representations})
            documented = f", in the form its library documents ({', '.join(forms)})" if forms else ""
            out[feature.id] = ("read", f"parquet-conformance: reads all {count} ({cases}){documented}")
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
        for score in doc.adapters:  # the Parquet track's alone: its format (corpus/track.py Reporting)
            cells = [c for c in doc.cells if c.adapter == score.adapter]
            if support := statuses(cells, {c.id: c.baseline for c in doc.cases if c.baseline}):
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
