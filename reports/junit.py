"""junit/<adapter>.xml: one JUnit test suite per implementation, well-formed for any message."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

from parquet_conformance.conformance.harness.model import Verdict
from parquet_conformance.reports.datadiff import headline
from parquet_conformance.reports.model import ResultsDocument
from parquet_conformance.reports.text import detail, file_name, xml_text


def suite(doc: ResultsDocument, adapter: str) -> bytes:
    mine = [c for c in doc.cells if c.adapter == adapter]
    verdicts = Counter(c.verdict for c in mine)
    root = ET.Element("testsuite", name=xml_text(f"parquet-conformance.{adapter}"), tests=str(len(mine)),
                      failures=str(sum(v for k, v in verdicts.items() if k.is_failure)),
                      skipped=str(verdicts[Verdict.SKIP]), errors=str(verdicts[Verdict.HARNESS_ERROR]),
                      time=f"{sum(c.duration_s for c in mine):.3f}")
    for c in mine:
        case = ET.SubElement(root, "testcase", classname=xml_text(f"{adapter}.{c.group}"),
                             name=xml_text(f"{c.case} [{c.role}]"), time=f"{c.duration_s:.3f}")
        if c.verdict == Verdict.SKIP:
            ET.SubElement(case, "skipped", message=xml_text((c.error_message or "unavailable")[:500]))
        elif c.verdict == Verdict.HARNESS_ERROR:  # JUnit's <error>: the test could not run, nothing was judged
            ET.SubElement(case, "error", message="harness-error: parquet-conformance failed, not the implementation",
                          type="harness-error").text = xml_text(detail(c))
        elif c.verdict != Verdict.PASS:
            diff = doc.diff_of(c)
            message = c.verdict.value + (f": {headline(diff)}" if diff else "")
            ET.SubElement(case, "failure", message=xml_text(message[:500]),
                          type=c.verdict.value).text = xml_text(detail(c, diff))
    ET.indent(root)
    out: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return out


class JUnit:
    name = "junit"

    def write(self, doc: ResultsDocument, out: Path) -> list[Path]:
        folder = out / "junit"
        folder.mkdir(exist_ok=True)
        paths = []
        for a in doc.adapters:
            path = folder / f"{file_name(a.adapter)}.xml"  # a name from a results dataset may be anything
            path.write_bytes(suite(doc, a.adapter))
            paths.append(path)
        return paths


FORMAT = JUnit()
