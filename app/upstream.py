"""`parquet-conformance report --upstream NAME OUT`: what a vendor pastes into an issue, one folder per cause of one
implementation's confirmed failures in a run: the smallest file that shows it, the expected data as plain JSON
values, a README (app/upstream_readme.py) and, where the adapter has one (Adapter.reproducer), a script in
the library's own API that imports nothing of ours (exit 0 when the reader does what the spec requires, 1 when the
finding reproduces, 2 when it cannot judge); else the exact `parquet-conformance read` line that reproduces it.

A finding is every confirmed failure (`fail:*`: the run saw it again in a fresh worker; flaky cells, harness errors
and skips are none), grouped by cause: the verdict and what the cells share, with column names, numbers, offsets
and paths left out (an error's signature, the kind of data difference, the family of cases a reader reads where it
must refuse), so that one bug is one folder whatever columns and files show it. Its file is the smallest case that
shows it; the others are listed.

Scripts hold nothing of the finding: its data (the expectation, the columns compared, the time limit, the library's
declared refusals) is finding.json beside them, so that no title, name or value from outside is written into code.

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
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from parquet_conformance.conformance.adapters import Adapter
from parquet_conformance.conformance.adapters.reproducing import Reproducer
from parquet_conformance.conformance.adapters.taxonomy import SAFETY_NETS
from parquet_conformance.conformance.harness.judge import error_text, normalise
from parquet_conformance.conformance.harness.model import Cell, Verdict
from parquet_conformance.conformance.harness.results import run_path
from parquet_conformance.conformance.harness.sample import column_digests
from parquet_conformance.corpus.model import KEY_RE, NAME_RE, CaseEntry, Expectation, Manifest
from parquet_conformance.generators.canonical import date_text
from parquet_conformance.kernel.errors import UsageError
from parquet_conformance.reports.model import DataDiff, ResultsDocument
from parquet_conformance.reports.text import file_name

# Verdicts a script can show with the library alone; another failure (wrong-metadata rests on which footer the reader
# used, which no public API says) gets a folder with the file and the `read` line.
SCRIPTED = (Verdict.WRONG_DATA, Verdict.CRASH, Verdict.UNHANDLED, Verdict.HANG, Verdict.REJECTED_VALID,
            Verdict.ACCEPTED_INVALID)
SAFE_INT = 2**53
# A name, version or option a README may print inside a command as it is: nothing a shell or Markdown acts on.
SAFE_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+@=:,/-]{0,100}")
FINDING_FILE = "finding.json"


@dataclass(frozen=True)
class Finding:
    adapter: str
    verdict: Verdict
    cause: str  # what its cells share (no column name, number or path)
    cell: Cell  # the cell of the smallest case that shows it
    case: CaseEntry
    others: list[str]  # the other cases with the same cause
    on_base: bool = False  # found on an unmodified base (its baseline case): the library's reading of a valid file


@dataclass(frozen=True)
class Comparison:
    """What the script compares with expected.json, and on which file it should pass once the bug is fixed."""

    columns: list[str]  # empty: no data compared (a reject, or data no reference states)
    rows: int | None  # the row count to compare (None: not compared)
    control: bool  # base.parquet goes with it: the adapter read the unmodified base right in these columns
    note: str
    not_compared: dict[str, str]  # column -> why the script cannot compare it (Reproducer.not_compared)


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


# -- causes ---------------------------------------------------------------------------------------


KINDS = {"int": "integer", "float": "float", "dec": "decimal", "date": "date", "ts_ns": "timestamp", "time_ns": "time",
         "bin": "bytes", "uuid": "UUID", "struct": "struct"}  # canonical tokens' tags, in words


def kind_of(text: str) -> str:
    """What sort of value a data diff shows (JSON text of a token): `null`, `NaN`, a token's tag, `text`, ..."""
    try:
        token = json.loads(text)
    except ValueError:
        return "no row" if text == "(no row)" else "value"
    if token is None:
        return "null"
    if isinstance(token, bool):
        return "boolean"
    if isinstance(token, str):
        return "text"
    if isinstance(token, list):
        return "list"
    if isinstance(token, dict) and len(token) == 1:
        ((tag, value),) = token.items()
        return "NaN" if tag == "float" and value == "nan" else KINDS.get(str(tag), str(tag))
    return "value"


def data_cause(diff: DataDiff | None) -> str:
    """A wrong-data cell's cause: the kinds of change its first differing values show (`null -> NaN`, `other
    timestamp`), and a row count or columns that differ; no column name."""
    if diff is None:
        return "returned other data"
    changes = set()
    for row in diff.rows:
        for want, got in zip(row.expected, row.returned, strict=False):
            k_want, k_got = kind_of(want), kind_of(got)
            changes.add(f"{k_want} -> {k_got}" if k_want != k_got else f"other {k_want}")
    if diff.expected_rows is not None and diff.returned_rows != diff.expected_rows:
        changes.add("another row count")
    if set(diff.expected_columns) != set(diff.returned_columns):
        changes.add("other columns")
    return "returned other data: " + (", ".join(sorted(changes)) or "values the sample does not show")


def without_names(text: str, names: list[str]) -> str:
    """An error's text with the base's column names left out where a message names a column: quoted, or after
    `column`, `field` or `group` (rugo's "column 'amount'", parquet-java's "optional group i32 {")."""
    for name in sorted(names, key=len, reverse=True):
        n = re.escape(name)
        text = re.sub(rf"(['\"`]){n}\1", r"\1<column>\1", text)
        text = re.sub(rf"\b(column|field|group)(:?\s+){n}(?![\w.])", r"\1\2<column>", text, flags=re.I)
    return text


def cause(cell: Cell, doc: ResultsDocument, case: CaseEntry, names: list[str], on_base: bool = False) -> str:
    """What a failure shares with others of the same cause (see the module's doc)."""
    family = case.id.rsplit("/", 1)[0]
    match cell.verdict:
        case Verdict.WRONG_DATA:
            return data_cause(doc.diff_of(cell)) + (" (an unmodified base)" if on_base else "")
        case Verdict.ACCEPTED_INVALID:
            return f"read a file it must reject: {family}/*"
        case Verdict.WRONG_METADATA:
            return f"used the {cell.metadata} footer: {family}/*"
        case Verdict.HANG:
            return "no answer within the hang limit"
        case Verdict.CRASH:  # the signal, or what died; a stderr tail is cut at any character
            first = (cell.error_message or "").strip().splitlines()[:1]
            detail = first[0] if first and cell.outcome == "oom" else ""
            return normalise(": ".join(p for p in (cell.outcome, cell.error_class, detail) if p))
    # an error: its class and its root cause (or first line), not the lines a wrapper adds around it
    line = error_text(cell.error_class, cell.error_message, str(cell.outcome)).split(" / ")[0]
    return normalise(without_names(line, names))


def findings(doc: ResultsDocument, manifest: Manifest, adapter: str) -> list[Finding]:
    """One finding per cause of the adapter's confirmed failures, with the smallest case that shows it."""
    groups: dict[tuple[Verdict, str, bool], list[Cell]] = {}
    known = {c.id for c in manifest.cases}
    for cell in doc.cells:
        if cell.adapter != adapter or not cell.verdict.is_failure or cell.case not in known:
            continue
        case = manifest.case(cell.case)
        base = manifest.bases.get(case.base)
        names = list(base.columns) if base is not None else []
        on_base = base is not None and base.baseline_case == case.id
        groups.setdefault((cell.verdict, cause(cell, doc, case, names, on_base), on_base), []).append(cell)
    out = []
    for (verdict, why, on_base), cells in groups.items():
        ranked = sorted(cells, key=lambda c: (manifest.case(c.case).size, c.case, c.role))
        cases = list(dict.fromkeys(c.case for c in ranked))
        out.append(Finding(adapter, verdict, why, ranked[0], manifest.case(cases[0]), cases[1:], on_base))
    severity = list(Verdict)
    return sorted(out, key=lambda f: (severity.index(f.verdict), -len(f.others), f.case.id))


def resolve(doc: ResultsDocument, name: str) -> str:
    """The adapter of the run that NAME names: an adapter (a reader, or a writer of its writer x reader matrix), or the
    implementation of exactly one."""
    adapters = {a.adapter: a.implementation for a in doc.adapters}
    if doc.writers is not None:
        adapters.update({w.writer: w.implementation for w in doc.writers.writers if w.writer not in adapters})
    if name in adapters:
        return name
    matching = [a for a, impl in adapters.items() if impl.casefold() == name.casefold()]
    if len(matching) == 1:
        return matching[0]
    raise UsageError(f"{name!r}: {'names several adapters: ' + ', '.join(matching) if matching else 'not in run '}"
                     f"{'' if matching else doc.run.id + '; its adapters: ' + ', '.join(sorted(adapters))}")


# -- what a script compares -----------------------------------------------------------------------


def _digests(sample: str | None) -> dict[str, str]:
    if sample is None:
        return {}
    kept = json.loads(sample)
    return dict(zip(kept["columns"], kept["digests"], strict=True))


def comparison(finding: Finding, doc: ResultsDocument, manifest: Manifest,
               expected: tuple[list[str], list[list[Any]]] | None,
               not_comparable: dict[str, str] | None = None) -> Comparison:
    """The columns to compare: those the adapter reads right in the unmodified base (its baseline cell), and of a
    wrong-data finding those its reading of this case changed, so that the script passes once the bug is fixed
    and does not fail on a difference the adapter shows on every file of the base; never those the script cannot
    read (`not_comparable`, the reproducer's). `expected`: the base's data, None where no reference states it."""
    cell, case = finding.cell, finding.case
    if expected is None or cell.expected == Expectation.REJECT or case.data_unknown or cell.role in case.expect_hash:
        return Comparison([], None, False, "", {})
    want_columns, want_rows = expected
    skipped = {c: why for c, why in (not_comparable or {}).items() if c in want_columns}
    want = dict(zip(want_columns, column_digests(want_columns, want_rows), strict=True))
    baseline_case = manifest.bases[case.base].baseline_case
    baseline = next((c for c in doc.cells if c.case == baseline_case and c.adapter == cell.adapter), None)
    note = ""
    if baseline is None or baseline.case == case.id:
        good = list(want_columns)
        if baseline is None:
            note = f"the run did not read the unmodified base ({baseline_case}): every column is compared"
    elif baseline.verdict in (Verdict.WRONG_DATA, Verdict.REPRESENTATION):  # both keep the sample read
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
    good = [c for c in good if c not in skipped]
    control = baseline is not None and baseline.case != case.id and baseline.verdict in (
        Verdict.PASS, Verdict.WRONG_DATA, Verdict.REPRESENTATION)
    rows = len(want_rows)
    if cell.verdict != Verdict.WRONG_DATA or cell.sample is None:
        return Comparison(good, rows, control, note, skipped)
    got = _digests(cell.sample)
    changed = [c for c in good if got.get(c) != want[c]]
    if not changed and len(got) == len(want_columns):  # only in columns it reads differently in the base too
        changed = [c for c in want_columns if got.get(c) != want[c] and c not in skipped]
        note = (f"{cell.adapter} reads {', '.join(changed)} of the unmodified base ({baseline_case}) differently "
                "too; the script compares them all the same")
        control = False
    return Comparison(changed, rows, control, note, skipped)


def script_judges(finding: Finding, cmp: Comparison) -> str | None:
    """Why no script can show this finding (None: one can)."""
    if finding.case.op != "read":  # the script reads the file as a user reads it, and nothing else
        return (f"the case asks for the operation `{finding.case.op}` (docs/adapter-protocol.md#operations), and the "
                "script only reads the file: a plain read would show something else")
    if finding.verdict not in SCRIPTED:
        return (f"a script cannot judge `{finding.verdict.value}` with the library alone: it rests on which footer "
                "the reader used, which no public API says")
    if finding.cell.expected == Expectation.REJECT:  # any data it returns reproduces: nothing to compare
        return None
    if finding.verdict == Verdict.WRONG_DATA and not cmp.columns and cmp.rows is None:
        return "the case states no data to compare: only parquet-conformance's own judgement shows the difference"
    if finding.verdict == Verdict.WRONG_DATA and not cmp.columns and cmp.not_compared:
        return ("the values that differ are in columns the script cannot read: "
                + "; ".join(f"{c}: {why}" for c, why in cmp.not_compared.items()))
    return None


# -- one folder -----------------------------------------------------------------------------------


def folder_name(index: int, finding: Finding) -> str:
    return f"{index:02d}-{finding.verdict.value.removeprefix('fail:')}-" + file_name(finding.case.id.replace("/", "_"))


def safe_word(text: str | None, fallback: str) -> str:
    """Text a command prints as it is (a version, an adapter's name), or the fallback where it is anything else."""
    return text if text and SAFE_WORD.fullmatch(text) else fallback


def read_line(doc: ResultsDocument, finding: Finding, file: str) -> str:
    """The `parquet-conformance read` line that reproduces the cell, run from the finding's folder."""
    options = doc.reproduce.get(finding.adapter, "")
    if not (options and all(SAFE_WORD.fullmatch(w) for w in options.split())):
        options = f"--adapter {safe_word(finding.adapter, 'NAME')}"
    op = f" --op {safe_word(finding.case.op, 'OP')}" if finding.case.op != "read" else ""
    # the case's keys (checked as the manifest's: a name and base64, no character a shell reads)
    keys = "".join(f" --key {n}={v}" for n, v in finding.case.keys.items()
                   if NAME_RE.fullmatch(n) and KEY_RE.fullmatch(v))
    return f"parquet-conformance read {file} {options}{op}{keys}"


def finding_data(finding: Finding, cmp: Comparison, file: str, adapter: Adapter,
                 repro: Reproducer | None = None) -> dict[str, Any]:
    """finding.json: what a script reads, and the finding as data for anyone else. `refusals`: the adapter's declared
    refusals and the runtime's safety nets, which a Python script judges an error by (a Java or Node script carries
    its worker's rule)."""
    cell, case = finding.cell, finding.case
    rule = {"refusals": {**asdict(adapter.refusals), "safety_nets": SAFETY_NETS}} if (
        repro is not None and repro.language == "Python") else {}
    return {"format": "parquet-conformance finding 1", "case": case.id, "title": case.title, "file": file,
            "adapter": cell.adapter, "implementation": cell.implementation, "version": cell.version,
            "role": cell.role, "verdict": cell.verdict.value, "cause": finding.cause, "expect": cell.expected.value,
            "columns": cmp.columns, "rows": cmp.rows, "not_compared": cmp.not_compared,
            "timeout_s": int(adapter.timeout_s), **rule,
            "observed": {"outcome": str(cell.outcome), "error_class": cell.error_class,
                         "error_message": (cell.error_message or "")[:4000], "rows": cell.rows},
            "others": finding.others}


# -- the command ----------------------------------------------------------------------------------


def locate_corpus(recorded: str, results: Path, given: Path | None) -> Path:
    """The run's corpus: --corpus, else the path the run recorded, found against the run's folder (the one holding
    the results dataset: harness/results.py run_path), wherever the run was started, moved or copied to."""
    if given is not None:
        return given
    if not recorded:
        raise UsageError("the run records no corpus: give it with --corpus DIR")
    path = run_path(results, recorded)
    if (path / "manifest.json").is_file():
        return path
    raise UsageError(f"{recorded}: the run's corpus is not there ({path}); give it with --corpus DIR")
