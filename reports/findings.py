"""The findings of a `fuzz` run (app/fuzz.py): findings.json (the FuzzReport record) and findings.html,
a section per finding with its minimal chain and the minimal file's bytes around where it differs from its base."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from parquet_conformance.conformance.harness.model import FuzzReport
from parquet_conformance.reports.text import environment


def hexdump(offset: int, hexed: str, width: int = 16) -> str:
    """`xxd`-like lines: offset, bytes, printable ASCII."""
    data = bytes.fromhex(hexed)
    lines = []
    for i in range(0, len(data), width):
        row = data[i:i + width]
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in row)
        lines.append(f"{offset + i:08x}  {row.hex(' '):<{width * 3}} {text}")
    return "\n".join(lines)


def per_implementation(report: FuzzReport) -> dict[str, int]:
    return dict(Counter(f"{f.implementation} {f.version}" for f in report.findings))


def summary(report: FuzzReport) -> str:
    """The run in a few lines: rate, distinct findings per implementation, shrunk chain sizes, regressions saved."""
    lines = [f"{report.examples} examples in {report.batches} batches, {report.search_s:.1f}s, "
             f"{report.examples_per_s:.1f} examples/s ({report.mode} mode, seed {report.seed}, {report.master}); "
             f"{len(report.findings)} distinct findings, {len(report.harness)} harness errors kept apart "
             f"({report.oracle_errors} examples our oracle could not judge); shrinking {report.shrink_s:.1f}s"]
    for impl, n in sorted(per_implementation(report).items()):
        lines.append(f"  {impl}: {n}")
    for f in report.findings:
        steps = len(f.chain.get("steps", []))
        shrunk = f"{steps} -> {f.shrunk_steps} steps" if f.shrunk_steps is not None else f"{steps} steps, not shrunk"
        where = f.regression or f"not saved: {f.not_saved}"
        lines.append(f"  {f.adapter} {f.verdict} [{'confirmed' if f.confirmed else 'unconfirmed'}; {shrunk}] "
                     f"{f.signature[:70]} -> {where}")
    return "\n".join(lines)


def write_findings(report: FuzzReport, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    doc = out / "findings.json"
    doc.write_text(json.dumps(report.to_json(), indent=1, ensure_ascii=True) + "\n", encoding="utf-8")
    page = out / "findings.html"
    template = environment().get_template("findings.html.j2")
    dumps = [hexdump(f.window_offset or 0, f.window_hex) if f.window_hex is not None else None
             for f in report.findings]
    page.write_text(template.render(report=report, dumps=dumps, per_impl=per_implementation(report),
                                    chains=[json.dumps(f.shrunk_chain or f.chain, indent=1) for f in report.findings]),
                    encoding="utf-8")
    return [doc, page]
