"""Render a run's judged cells into report.html, results.json, junit/<adapter>.xml and summary.md."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import jinja2

RESULTS_VERSION = 1
SYMBOL = {"pass": "✓", "fail:wrong-data": "WRONG", "fail:crash": "crash", "fail:hang": "hang",
          "fail:rejected-valid": "rej", "fail:accepted-invalid": "acc", "fail:wrong-metadata": "meta", "skip": "–"}


def scores(cells: list[dict]) -> list[dict]:
    out = []
    for adapter in dict.fromkeys(c["adapter"] for c in cells):
        mine = [c for c in cells if c["adapter"] == adapter]
        verdicts = Counter(c["verdict"] for c in mine)
        judged = len(mine) - verdicts["skip"]
        out.append({"adapter": adapter, "implementation": mine[0]["implementation"], "version": mine[0]["version"],
                    "pass": verdicts["pass"], "fail": judged - verdicts["pass"], "skip": verdicts["skip"],
                    "total": len(mine), "pass_rate": round(verdicts["pass"] / judged, 4) if judged else None,
                    "failures": {k: v for k, v in sorted(verdicts.items()) if k.startswith("fail")}})
    return out


def results_document(cells: list[dict], manifest: dict, run: dict) -> dict:
    cases = [{k: c[k] for k in ("id", "title", "group", "kind", "expect", "citations", "notes")}
             for c in manifest["cases"] if any(x["case"] == c["id"] for x in cells)]
    return {"format": "parquet-conformance-results", "results_version": RESULTS_VERSION, "run": run,
            "adapters": scores(cells), "cases": cases, "cells": cells}


def render_html(doc: dict) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
                             autoescape=jinja2.select_autoescape(default=True, default_for_string=True))
    adapters = [a["adapter"] for a in doc["adapters"]]
    grid: dict[str, dict[str, list[dict]]] = {}
    for cell in doc["cells"]:
        grid.setdefault(cell["case"], {}).setdefault(cell["adapter"], []).append(cell)
    groups = sorted({c["group"] for c in doc["cases"]})
    return env.get_template("report.html.j2").render(doc=doc, adapters=adapters, grid=grid, groups=groups,
                                                     symbol=SYMBOL, verdicts=list(SYMBOL))


def junit(cells: list[dict], adapter: str) -> bytes:
    mine = [c for c in cells if c["adapter"] == adapter]
    verdicts = Counter(c["verdict"] for c in mine)
    suite = ET.Element("testsuite", name=f"parquet-conformance.{adapter}", tests=str(len(mine)),
                       failures=str(sum(v for k, v in verdicts.items() if k.startswith("fail"))),
                       skipped=str(verdicts["skip"]), errors="0",
                       time=f"{sum(c['duration_s'] or 0 for c in mine):.3f}")
    for c in mine:
        case = ET.SubElement(suite, "testcase", classname=f"{adapter}.{c['group']}", name=f"{c['case']} [{c['role']}]",
                             time=f"{c['duration_s'] or 0:.3f}")
        detail = f"expected {c['expected']}, got {c['outcome']}"
        if c["error_class"] or c["error_message"]:
            detail += f"\n{c['error_class']}: {c['error_message']}"
        if c["verdict"] == "skip":
            ET.SubElement(case, "skipped", message=(c["error_message"] or "unavailable")[:500])
        elif c["verdict"] != "pass":
            ET.SubElement(case, "failure", message=c["verdict"], type=c["verdict"]).text = detail
    ET.indent(suite)
    return ET.tostring(suite, encoding="utf-8", xml_declaration=True)


def summary_markdown(doc: dict, limit: int = 40) -> str:
    run = doc["run"]
    lines = [f"## parquet-conformance run `{run['id']}`", "",
             f"{len(doc['cases'])} cases x {len(doc['adapters'])} adapters = {len(doc['cells'])} cells "
             f"(generator {run.get('generator_version')}, corpus seed {run.get('seed')}).", "",
             "| adapter | implementation | version | pass | fail | skip | pass rate | failures |",
             "|---|---|---|---:|---:|---:|---:|---|"]
    for a in doc["adapters"]:
        rate = f"{a['pass_rate']:.1%}" if a["pass_rate"] is not None else "–"
        fails = ", ".join(f"{k[5:]} {v}" for k, v in a["failures"].items()) or "–"
        lines.append(f"| {a['adapter']} | {_md(a['implementation'])} | {a['version'] or '–'} | {a['pass']} | "
                     f"{a['fail']} | {a['skip']} | {rate} | {fails} |")
    failing = [c for c in doc["cells"] if c["verdict"].startswith("fail")]
    if failing:
        lines += ["", f"<details><summary>{len(failing)} failing cells</summary>", "",
                  "| case | adapter | verdict | expected | error |", "|---|---|---|---|---|"]
        for c in failing[:limit]:
            err = _md(f"{c['error_class'] or ''}: {c['error_message'] or ''}".strip(": ")[:120])
            lines.append(f"| `{c['case']}` | {c['adapter']} | {c['verdict']} | {c['expected']} | {err} |")
        if len(failing) > limit:
            lines.append(f"| … {len(failing) - limit} more in results.json | | | | |")
        lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return " ".join(text.replace("|", "\\|").replace("<", "&lt;").split())


def write_reports(cells: list[dict], manifest: dict, run: dict, out: Path) -> dict:
    doc = results_document(cells, manifest, run)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(doc, indent=1) + "\n")
    (out / "report.html").write_text(render_html(doc))
    (out / "summary.md").write_text(summary_markdown(doc))
    junit_dir = out / "junit"
    junit_dir.mkdir(exist_ok=True)
    for a in doc["adapters"]:
        (junit_dir / f"{a['adapter']}.xml").write_bytes(junit(cells, a["adapter"]))
    return doc
