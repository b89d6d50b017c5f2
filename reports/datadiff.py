"""Data diffs: how a wrong-data cell's returned data differs from the expected data, from the bounded sample
the cell keeps (conformance/harness/sample.py) and the base's expected data in the corpus. Shown in report.html's
detail panel, the JUnit failure text, summary.md and the site's case pages.
"""

from __future__ import annotations

import dataclasses
import json

from parquet_conformance.conformance.harness.model import Cell
from parquet_conformance.conformance.harness.sample import (
    as_table,
    column_digests,
    digest,
    dumps,
    is_placeholder,
    placeholder,
)
from parquet_conformance.reports.model import DataDiff, RowDiff

DIFF_ROWS = 5  # differing rows shown
VALUE_SHOWN = 80  # characters of a value shown
ABSENT = "(no row)"


def shown(value: object) -> str:
    if is_placeholder(value):
        assert isinstance(value, dict)
        return f"<{value['chars']} characters, sha256 {value['digest']}…>"
    text = dumps(value)
    return text if len(text) <= VALUE_SHOWN else text[:VALUE_SHOWN - 1] + "…"


def same(expected: object, kept: object) -> bool:
    """An expected value against a sampled one (which may be only the digest of a long value)."""
    if is_placeholder(kept):
        assert isinstance(kept, dict)
        return bool(digest(expected) == kept["digest"])
    return placeholder(expected) == kept


def data_diff(cell: Cell, expected: object | None, baseline_note: str | None = None) -> DataDiff | None:
    """The diff of one cell with a sample; None when the sample matches the expected data in full (a flaky cell
    whose own attempt read the right data). `expected`: the base's canonical data, None if it is not at hand."""
    if cell.sample is None:
        return None
    sample = json.loads(cell.sample)
    columns, rows, total = list(sample["columns"]), sample["rows"], int(sample["total"])
    notes = [baseline_note] if baseline_note else []
    diff = DataDiff(case=cell.case, adapter=cell.adapter, role=cell.role, expected_rows=None, returned_rows=total,
                    expected_columns=[], returned_columns=columns, differing_columns=[], rows=[], note="")
    table = as_table(expected) if expected is not None else None
    if table is None:
        notes.append("the expected data is not at hand (the corpus of the run is gone): returned rows only")
        first = [RowDiff(row=i, columns=columns, expected=[], returned=[shown(v) for v in row])
                 for i, row in enumerate(rows[:DIFF_ROWS])]
        return _with(diff, rows=first, note="; ".join(notes))
    want_columns, want_rows = table
    want_digests = dict(zip(want_columns, column_digests(want_columns, want_rows), strict=True))
    got_digests = dict(zip(columns, sample["digests"], strict=True))
    differing = [c for c in columns if c in want_digests and want_digests[c] != got_digests[c]]
    differing += [c for c in columns if c not in want_digests] + [c for c in want_columns if c not in got_digests]
    common = [c for c in columns if c in want_digests]
    at = {c: i for i, c in enumerate(want_columns)}
    found: list[RowDiff] = []
    for i in range(min(len(rows), max(len(want_rows), total))):
        got = rows[i]
        if i >= len(want_rows):
            found.append(RowDiff(row=i, columns=columns, expected=[ABSENT] * len(columns),
                                 returned=[shown(v) for v in got]))
        else:
            bad = [c for j, c in enumerate(columns) if c in at and not same(want_rows[i][at[c]], got[j])]
            if bad:
                found.append(RowDiff(row=i, columns=bad, expected=[shown(want_rows[i][at[c]]) for c in bad],
                                     returned=[shown(got[columns.index(c)]) for c in bad]))
        if len(found) == DIFF_ROWS:
            break
    if len(found) < DIFF_ROWS and len(rows) == total < len(want_rows):  # every returned row was kept
        found.append(RowDiff(row=total, columns=common, expected=[shown(want_rows[total][at[c]]) for c in common],
                             returned=[ABSENT] * len(common)))
    if not found and (differing or total != len(want_rows)):
        notes.append(f"the first {len(rows)} returned rows match; the difference lies after them (the results keep "
                     f"a sample of {len(rows)} of {total} rows)")
    if not found and not differing and total == len(want_rows) and columns == want_columns:
        return None
    return _with(diff, expected_rows=len(want_rows), expected_columns=want_columns, differing_columns=differing,
                 rows=found, note="; ".join(notes))


def _with(diff: DataDiff, **changes: object) -> DataDiff:
    return dataclasses.replace(diff, **changes)  # type: ignore[arg-type]


def describe(diff: DataDiff) -> str:
    """The diff as lines of text (JUnit, summary.md, the HTML detail panel)."""
    lines = [f"data diff: returned {diff.returned_rows} rows"
             + (f", expected {diff.expected_rows}" if diff.expected_rows is not None else "")]
    if diff.expected_columns and diff.expected_columns != diff.returned_columns:
        lines.append(f"columns: expected {', '.join(diff.expected_columns)}; "
                     f"returned {', '.join(diff.returned_columns)}")
    if diff.differing_columns:
        lines.append(f"columns that differ (over every row): {', '.join(diff.differing_columns)}")
    for r in diff.rows:
        if not r.expected:
            lines.append(f"  row {r.row}: returned " + ", ".join(
                f"{c}={v}" for c, v in zip(r.columns, r.returned, strict=True)))
            continue
        for c, want, got in zip(r.columns, r.expected, r.returned, strict=True):
            lines.append(f"  row {r.row} {c}: expected {want}, returned {got}")
    if diff.note:
        lines.append(f"({diff.note})")
    return "\n".join(lines)


def headline(diff: DataDiff) -> str:
    """The diff in one line: the columns that differ and the first differing value."""
    text = f"columns {', '.join(diff.differing_columns)} differ" if diff.differing_columns else "other data"
    if diff.rows and diff.rows[0].expected:
        r = diff.rows[0]
        text += f"; row {r.row} {r.columns[0]}: expected {r.expected[0]}, returned {r.returned[0]}"
    elif diff.expected_rows is not None and diff.expected_rows != diff.returned_rows:
        text += f"; {diff.returned_rows} rows instead of {diff.expected_rows}"
    return text
