"""`parquet-conformance report --upstream NAME OUT`: what a vendor pastes into an issue, one folder per finding of
one implementation in a run: the smallest file that shows it, a script in the library's own API that imports nothing
of ours (exit 0 when the reader does what the spec requires, 1 when the finding reproduces), the expected data as
plain JSON values, the versions and the spec's sentence.

A finding is one failure signature of the adapter (reports/clusters.py: verdict and normalised message): a non-pass
verdict the run confirmed in a fresh worker (flaky cells, harness errors and skips are none; wrong-metadata needs
the reader's own word on which footer it used, which no public API gives, and is left out). Its file is the
smallest case that shows it; the others are listed. The script comes from the adapter (adapters/reproducing.py, next to
its `read`), so that it calls the library as the run did; this module fills in the finding.

Plain values (expected.json and what the scripts compare): null, booleans and text as themselves; integers as JSON
numbers (beyond 2**53 as text); floats as numbers, or "NaN", "Infinity", "-Infinity"; decimals as text at their
scale; dates "2001-02-03", timestamps "2001-02-03T04:05:06.789" and times "04:05:06.789" as written (no zone,
fraction to the nanosecond); UUIDs as text; bytes as {"$hex": "00ff"}; lists as arrays, maps as arrays of [key,
value], structs as objects.
"""

from __future__ import annotations

import decimal
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parquet_conformance.conformance.adapters import Adapter
from parquet_conformance.conformance.adapters.reproducing import Reproducer, reproducer_of
from parquet_conformance.conformance.harness.model import Cell, Verdict
from parquet_conformance.conformance.harness.sample import column_digests
from parquet_conformance.corpus.model import CaseEntry, Citation, Expectation, Manifest
from parquet_conformance.generators.canonical import date_text
from parquet_conformance.kernel.errors import UsageError
from parquet_conformance.reports.clusters import clusters
from parquet_conformance.reports.model import DataDiff, ResultsDocument

# Verdicts a script can show with the library alone.
SHOWN = (Verdict.WRONG_DATA, Verdict.CRASH, Verdict.HANG, Verdict.REJECTED_VALID, Verdict.ACCEPTED_INVALID)
SAFE_INT = 2**53


@dataclass(frozen=True)
class Finding:
    adapter: str
    verdict: Verdict
    signature: str
    cell: Cell  # the cell of the smallest case that shows it
    case: CaseEntry
    others: list[str]  # the other cases with the same signature


@dataclass(frozen=True)
class Comparison:
    """What the script compares with expected.json, and on which file it should pass once the bug is fixed."""

    columns: list[str]  # empty: nothing compared (a reject, or data no reference states)
    control: bool  # base.parquet goes with it: the adapter read the unmodified base right in these columns
    note: str


# -- plain values ---------------------------------------------------------------------------------


def clock_text(ns: int) -> str:
    seconds, fraction = divmod(ns, 10**9)
    text = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return text + (f".{fraction:09d}".rstrip("0") if fraction else "")


def timestamp_text(ns: int) -> str:
    days, rest = divmod(ns, 86_400 * 10**9)
    return f"{date_text(days)}T{clock_text(rest)}"


def plain(token: Any) -> Any:
    """A canonical token (generators/canonical.py) as a plain JSON value (this module's docstring)."""
    if token is None or isinstance(token, (bool, str)):
        return token
    if isinstance(token, list):
        return [plain(x) for x in token]
    ((tag, value),) = token.items()
    match tag:
        case "struct":
            return {k: plain(v) for k, v in value.items()}
        case "int":
            n = int(value)
            return n if abs(n) <= SAFE_INT else str(n)
        case "float":
            return {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}.get(value, None) or float(value)
        case "dec":
            return format(decimal.Decimal(value), "f")
        case "date" | "uuid":
            return value
        case "ts_ns":
            return timestamp_text(int(value))
        case "time_ns":
            return clock_text(int(value))
        case "bin":
            return {"$hex": value}
    raise ValueError(f"no plain form for the token {tag!r}")


def shown(text: str) -> str:
    """A value of a data diff (JSON text of a token, maybe shortened) as plain JSON text, where it parses."""
    try:
        return json.dumps(plain(json.loads(text)), ensure_ascii=False)
    except (ValueError, TypeError, AttributeError):
        return text


# -- findings -------------------------------------------------------------------------------------


def resolve(doc: ResultsDocument, name: str) -> str:
    """The adapter of the run that NAME names: an adapter, or the implementation of exactly one."""
    adapters = {a.adapter: a.implementation for a in doc.adapters}
    if name in adapters:
        return name
    matching = [a for a, impl in adapters.items() if impl.casefold() == name.casefold()]
    if len(matching) == 1:
        return matching[0]
    raise UsageError(f"{name!r}: {'names several adapters: ' + ', '.join(matching) if matching else 'not in run '}"
                     f"{'' if matching else doc.run.id + '; its adapters: ' + ', '.join(sorted(adapters))}")


def findings(doc: ResultsDocument, manifest: Manifest, adapter: str) -> list[Finding]:
    """One finding per failure signature of the adapter, with the smallest case file that shows it."""
    cells = {(c.case, c.adapter, c.verdict): c for c in doc.cells}
    out = []
    for cluster in clusters(doc):
        if cluster.adapter != adapter or cluster.verdict not in SHOWN:
            continue
        cases = sorted(cluster.cases, key=lambda c: (manifest.case(c).size, c))
        out.append(Finding(adapter=adapter, verdict=cluster.verdict, signature=cluster.signature,
                           cell=cells[(cases[0], adapter, cluster.verdict)], case=manifest.case(cases[0]),
                           others=cases[1:]))
    return out


def _digests(sample: str | None) -> dict[str, str]:
    if sample is None:
        return {}
    kept = json.loads(sample)
    return dict(zip(kept["columns"], kept["digests"], strict=True))


def comparison(finding: Finding, doc: ResultsDocument, manifest: Manifest,
               expected: tuple[list[str], list[list[Any]]]) -> Comparison:
    """The columns to compare: those the adapter reads right in the unmodified base (its baseline cell), and of a
    wrong-data finding those its reading of this case changed, so that the script passes once the bug is fixed
    and does not fail on a difference the adapter shows on every file of the base."""
    cell, case = finding.cell, finding.case
    if cell.expected == Expectation.REJECT or case.data_unknown or cell.role in case.expect_hash:
        return Comparison([], False, "")
    want_columns, want_rows = expected
    want = dict(zip(want_columns, column_digests(want_columns, want_rows), strict=True))
    baseline_case = manifest.bases[case.base].baseline_case
    baseline = next((c for c in doc.cells if c.case == baseline_case and c.adapter == cell.adapter), None)
    note = ""
    if baseline is None or baseline.case == case.id:
        good = list(want_columns)
        if baseline is None:
            note = f"the run did not read the unmodified base ({baseline_case}): every column is compared"
    elif baseline.verdict == Verdict.WRONG_DATA:
        base = _digests(baseline.sample)
        good = [c for c in want_columns if base.get(c) == want[c]]
        if len(good) < len(want_columns):
            note = (f"{cell.adapter} reads {', '.join(c for c in want_columns if c not in good)} of the unmodified "
                    f"base ({baseline_case}) differently too: those columns are not compared")
    elif baseline.verdict == Verdict.PASS:
        good = list(want_columns)
    else:
        good = list(want_columns)
        note = f"{cell.adapter} could not read the unmodified base ({baseline_case}: {baseline.verdict})"
    control = baseline is not None and baseline.case != case.id and baseline.verdict in (Verdict.PASS,
                                                                                          Verdict.WRONG_DATA)
    if cell.verdict != Verdict.WRONG_DATA or cell.sample is None:
        return Comparison(good, control, note)
    got = _digests(cell.sample)
    changed = [c for c in good if got.get(c) != want[c]]
    if not changed:  # the difference lies only in columns the adapter reads differently in the base too
        changed = [c for c in want_columns if got.get(c) != want[c]]
        note = (f"{cell.adapter} reads {', '.join(changed)} of the unmodified base ({baseline_case}) differently "
                "too; the script compares them all the same")
        control = False
    return Comparison(changed, control, note)


# -- one folder -----------------------------------------------------------------------------------


def folder_name(index: int, finding: Finding) -> str:
    return f"{index:02d}-{finding.verdict.value.removeprefix('fail:')}-{finding.case.id.replace('/', '_')}"


def header(lang: str, lines: list[str]) -> str:
    if lang == "Python":
        return "\n".join(lines).replace("\\", "\\\\").replace('"""', "'''")
    return "\n".join(("// " + line).rstrip() for line in lines)


def literal(lang: str, values: list[str]) -> str:
    if lang == "Java":
        return "List.of(" + ", ".join(json.dumps(v) for v in values) + ")"
    return json.dumps(values)


def observed(finding: Finding, diff: DataDiff | None) -> list[str]:
    """What the run saw, in the README's words."""
    cell = finding.cell
    if cell.verdict == Verdict.WRONG_DATA and diff is not None:
        lines = [f"returned {diff.returned_rows} rows"
                 + (f" (expected {diff.expected_rows})" if diff.expected_rows is not None else "")
                 + (f"; columns that differ: {', '.join(diff.differing_columns)}" if diff.differing_columns else "")]
        for r in diff.rows[:5]:
            if r.expected:
                lines += [f"row {r.row} `{c}`: expected `{shown(w)}`, returned `{shown(g)}`"
                          for c, w, g in zip(r.columns, r.expected, r.returned, strict=True)]
        return lines
    if cell.verdict in (Verdict.WRONG_DATA, Verdict.ACCEPTED_INVALID):
        return [f"returned data ({cell.rows} rows)"]
    if cell.verdict == Verdict.HANG:
        return [f"no answer: {cell.error_message}"]
    error = ": ".join(p for p in (cell.error_class, (cell.error_message or "").strip()) if p)
    lines = error.splitlines()[:12]
    first = ("the process lost control: " if cell.verdict == Verdict.CRASH else "raised ") + (lines[0] if lines else "")
    return [first, *lines[1:]]


def ours(text: str) -> str:
    """Notes name this project's docs by path: say whose they are."""
    return re.sub(r"(?<![\w/])docs/([\w.-]+\.md(?:#[\w-]+)?)", r"parquet-conformance's docs/\1", text)


def citation_lines(citations: list[Citation], role: str, expected: Expectation) -> list[str]:
    """Each sentence quoted (" / " parts one line each), its source, and whether it is what requires the expectation."""
    out = []
    for c in citations:
        out += [f"> {line}" for line in c.quote.split(" / ")]
        where = f"{c.source}, {c.section}" + (f" (copy: {c.seed})" if c.seed else "")
        out += [">", f"> — {where}" + (f"; **this sentence requires the `{expected.value}`**"
                                       if role in c.requires else ""), ""]
    return out


def readme(finding: Finding, doc: ResultsDocument, repro: Reproducer, cmp: Comparison, version: str,
           engine: str, timeout_s: int, files: list[str]) -> str:
    cell, case = finding.cell, finding.case
    summary = next((c for c in doc.cases if c.id == case.id), None)
    citations = summary.citations if summary else case.citations
    install = repro.install.format(version=version)
    lines = [f"# {cell.implementation} {version}: {case.title}", "",
             f"**{cell.verdict.value}** on `{case.id}` ({case.kind.value}; a reader in the `{cell.role}` role "
             f"{cell.expected.meaning}).", "", ours(case.notes), "",
             "## Expected", "",
             f"**{cell.expected.value}**: a `{cell.role}` reader {cell.expected.meaning}."
             + (" The data is `expected.json` (plain JSON values, one row a line)." if cmp.columns else ""), "",
             "## Observed", ""]
    lines += [f"- {line}" for line in observed(finding, doc.diff_of(cell))]
    lines += ["", "## The spec", "", *citation_lines(citations, cell.role, cell.expected)]
    lines += ["## Reproduce", "", "```", install, repro.run, "```", "",
              f"`{repro.script}` ({repro.language}) reads `case.parquet` with {cell.adapter}'s own API and nothing "
              "else. Exit 0: the reader does what the spec requires (the bug is fixed); exit 1: it reproduces"
              + {Verdict.CRASH: " (or the process dies)",
                 Verdict.HANG: f" (a hang: stopped after {timeout_s} s)"}.get(cell.verdict, "")
              + "; exit 2: the script could not turn what the reader returned into plain values to compare."]
    if cmp.columns:
        lines += ["", f"It compares the columns {', '.join(f'`{c}`' for c in cmp.columns)} and the row count with "
                      "`expected.json`." + (f" ({cmp.note})" if cmp.note else "")]
    if cmp.control:
        lines += ["", f"`base.parquet` is the file the case was made from (`{case.base}`), which {cell.adapter} "
                      f"reads as expected: `{repro.run} base.parquet` exits 0."]
    lines += ["", "## Versions", "",
              f"- {cell.implementation} {version}" + (f" (engine: {engine})" if engine else "")
              + f": the `{cell.adapter}` adapter of parquet-conformance",
              f"- found by parquet-conformance {doc.run.generator_version}, run `{doc.run.id}`, corpus seed "
              f"{doc.run.seed} (manifest sha256 {doc.run.corpus_digest[:16]}…); case file sha256 `{case.sha256}`",
              "", "## Files", ""]
    lines += [f"- `{f}`" for f in files]
    if finding.others:
        lines += ["", f"## The same failure in {len(finding.others)} other cases", ""]
        lines += [f"- `{c}`" for c in finding.others[:40]] + (["- …"] if len(finding.others) > 40 else [])
    return "\n".join(lines).replace("\n\n\n", "\n\n") + "\n"


def script(repro: Reproducer, finding: Finding, cmp: Comparison, version: str, timeout_s: int) -> str:
    cell, case = finding.cell, finding.case
    lines = [f"{cell.implementation} {version}: {case.title}",
             f"parquet-conformance case {case.id}: {cell.verdict.value} ({cell.role} reader: {cell.expected.value})",
             f"Run: {repro.run} [FILE]   (FILE defaults to case.parquet beside this script)",
             "Exit 0: the reader does what the spec requires; exit 1 (or a crash): the finding reproduces."]
    text = repro.text.replace("@@HEADER@@", header(repro.language, lines))
    text = text.replace("@@EXPECT@@", cell.expected.value).replace("@@COLUMNS@@", literal(repro.language,
                                                                                           cmp.columns))
    return text.replace("@@TIMEOUT_S@@", str(timeout_s))


def write_finding(folder: Path, finding: Finding, doc: ResultsDocument, manifest: Manifest, root: Path,
                  adapter: Adapter, repro: Reproducer) -> None:
    case = finding.case
    base = manifest.bases[case.base]
    canonical = json.loads((root / base.expected).read_text())
    table = (list(canonical["columns"]), [list(r) for r in canonical["rows"]])
    cmp = comparison(finding, doc, manifest, table)
    version = finding.cell.version or "unknown"
    folder.mkdir(parents=True)
    shutil.copyfile(root / case.file, folder / "case.parquet")
    files = ["case.parquet"]
    if cmp.columns or cmp.control:
        rows = [{c: plain(v) for c, v in zip(table[0], row, strict=True)} for row in table[1]]
        (folder / "expected.json").write_text(
            "[\n" + ",\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n]\n")
        files.append("expected.json")
    if cmp.control:
        shutil.copyfile(root / base.file, folder / "base.parquet")
        files.append("base.parquet")
    timeout_s = int(adapter.timeout_s)
    (folder / repro.script).write_text(script(repro, finding, cmp, version, timeout_s))
    files = ["README.md", repro.script, *files]
    (folder / "README.md").write_text(readme(finding, doc, repro, cmp, version, adapter.engine, timeout_s, files))


def write_upstream(doc: ResultsDocument, name: str, out: Path) -> list[tuple[Finding, Path]]:
    """Every finding of NAME in the run as a folder of OUT (which must not hold anything yet)."""
    from parquet_conformance.conformance.adapters import get
    from parquet_conformance.corpus.dist import open_corpus
    from parquet_conformance.kernel.registry import RegistryError

    adapter = resolve(doc, name)
    version = next((a.version for a in doc.adapters if a.adapter == adapter), None)
    try:
        registered = get(adapter)
    except RegistryError:  # a release's row of a version matrix: NAME-VERSION
        registered = get(adapter.removesuffix(f"-{version}"))
    repro = reproducer_of(registered)
    if repro is None:
        raise UsageError(f"adapter {adapter!r} has no reproducer script (adapters/reproducing.py); those that have "
                         f"one: {', '.join(with_reproducers())}")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out}: exists and is not an empty directory")
    if not doc.run.corpus:
        raise UsageError(f"run {doc.run.id} records no corpus: its files cannot be copied")
    root, manifest, digest = open_corpus(Path(doc.run.corpus))
    if doc.run.corpus_digest and digest != doc.run.corpus_digest:
        raise UsageError(f"{root}: its manifest changed since run {doc.run.id} (sha256 {digest[:16]}…, the run "
                         f"read {doc.run.corpus_digest[:16]}…)")
    found = findings(doc, manifest, adapter)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for i, finding in enumerate(found, 1):
        folder = out / folder_name(i, finding)
        write_finding(folder, finding, doc, manifest, root, registered, repro)
        written.append((finding, folder))
    (out / "README.md").write_text(index(doc, adapter, written))
    return written


def index(doc: ResultsDocument, adapter: str, written: list[tuple[Finding, Path]]) -> str:
    lines = [f"# {adapter}: {len(written)} findings of run {doc.run.id}", "",
             "One folder per failure: its smallest file, a script in the library's own API (exit 0: fixed, 1: "
             "reproduces), the expected data and the spec's sentence.", "",
             "| folder | verdict | case | other cases | signature |", "|---|---|---|---|---|"]
    for f, folder in written:
        sig = f.signature.replace("|", "\\|")
        lines.append(f"| [{folder.name}]({folder.name}/README.md) | {f.verdict.value} | `{f.case.id}` | "
                     f"{len(f.others)} | {sig} |")
    return "\n".join(lines) + "\n"


def with_reproducers() -> list[str]:
    from parquet_conformance.conformance.adapters import get, names

    return [n for n in names() if reproducer_of(get(n)) is not None]
