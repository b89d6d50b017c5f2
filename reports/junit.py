"""junit/<adapter>.xml: one JUnit test suite per implementation, well-formed for any message, drawn for CI tools'
list views: a failure's message says in one line what happened (expected, got, the error's first line, its root
cause first), a flaky cell is skipped with type "flaky" and the outcomes seen (neither a pass nor a failure), a cell
whose data is in a form the library documents with type "representation" (neither either), and a cell not judged is
an error. A failure's message names its level beside its verdict and, after what happened, the sentence that level
rests on ("fail:… (must: the spec requires): expected …; “…” (source, section)": reports/text.py cell_level). As
`check` does by default, a failure to read or to refuse where the expectation rests on a `should` or a `policy` is
skipped with type "below-level" (its level in the message); a crash, a hang, an unhandled error or other data is a
failure at every level. The suite's properties name the implementation, its version, the run, the corpus, the scores
per level, how many verdicts were reused from an earlier run, and what the run is compared with; against an
expected-failure list a known failure is skipped with type "xfail" (as pytest writes an expected failure), against a
previous run it stays a failure whose message says it is known."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from parquet_conformance.conformance.harness.gate import enforced
from parquet_conformance.conformance.harness.model import Verdict
from parquet_conformance.reports.model import Mark, ResultsDocument, reuse
from parquet_conformance.reports.text import (
    cell_level,
    cell_level_text,
    corpus_href,
    detail,
    file_names,
    mark_text,
    repro_command,
    shorten,
    what_happened,
    xml_text,
)

MESSAGE = 500  # characters of a message attribute
LEVEL_QUOTE = 150  # characters of the sentence a level rests on, in a message


def suite(doc: ResultsDocument, adapter: str, corpus: str = "corpus") -> bytes:
    """`corpus`: the run's corpus relative to the folder of report.html (where reproduction commands run)."""
    mine = [c for c in doc.cells if c.adapter == adapter]
    score = next(a for a in doc.adapters if a.adapter == adapter)
    listed = doc.comparison is not None and doc.comparison.kind == "expected-failures"
    root = ET.Element("testsuite", name=xml_text(f"parquet-conformance.{adapter}"), tests=str(len(mine)),
                      time=f"{sum(c.duration_s for c in mine):.3f}")
    props = ET.SubElement(root, "properties")
    now, reused = reuse(mine)
    for name, value in (("adapter", adapter), ("implementation", score.implementation),
                        ("version", score.version or ""), ("track", score.track), ("run", doc.run.id),
                        ("run.started", doc.run.started or ""), ("corpus.digest", doc.run.corpus_digest),
                        ("generator.version", doc.run.generator_version),
                        ("compared.with", doc.comparison.what if doc.comparison else ""),
                        *((f"score.{level}", f"{s.passed}/{s.passed + s.fail}") for level, s in score.levels.items()),
                        ("verdicts.decided", str(now)),
                        *((f"verdicts.reused.from.{origin}", str(n)) for origin, n in reused.items())):
        ET.SubElement(props, "property", name=xml_text(name), value=xml_text(value))
    counts = {"failures": 0, "skipped": 0, "errors": 0}
    for c in mine:
        case = ET.SubElement(root, "testcase", classname=xml_text(f"{adapter}.{c.group}"),
                             name=xml_text(f"{c.case} [{c.role}]"), time=f"{c.duration_s:.3f}")
        mark = doc.mark_of(c)
        if c.verdict != Verdict.PASS or mark is not None:  # a pass needs no words (6,000 of them would)
            cp = ET.SubElement(case, "properties")
            for name, value in (("verdict", str(c.verdict)), ("expected", str(c.expected)), ("level", str(c.level)),
                                ("outcome", str(c.outcome)), ("attempts", str(c.attempts)),
                                *((("mark", str(mark.mark)),) if mark else ())):
                ET.SubElement(cp, "property", name=name, value=xml_text(value))
        diff = doc.diff_of(c)
        line = what_happened(c, diff)
        level, basis = cell_level(doc, c, LEVEL_QUOTE)  # the level beside the verdict, what it rests on after
        if c.verdict == Verdict.SKIP:
            counts["skipped"] += 1
            ET.SubElement(case, "skipped", message=xml_text(shorten(c.error_message or "unavailable", MESSAGE)))
        elif c.verdict == Verdict.FLAKY:  # neither a pass nor a failure: skipped, with the outcomes seen
            counts["skipped"] += 1
            ET.SubElement(case, "skipped", type="flaky",
                          message=xml_text(shorten(f"flaky: {c.disagreement or 'attempts disagree'}", MESSAGE)))
        elif c.verdict == Verdict.REPRESENTATION:  # neither a pass nor a failure: skipped, naming the form
            counts["skipped"] += 1
            ET.SubElement(case, "skipped", type="representation", message=xml_text(shorten(
                f"the data in the form the library documents ({', '.join(c.representations)}): {line}", MESSAGE)))
        elif c.verdict == Verdict.HARNESS_ERROR:  # JUnit's <error>: the test could not run, nothing was judged
            counts["errors"] += 1
            ET.SubElement(case, "error", message=xml_text(shorten(
                f"not judged: parquet-conformance failed, not the implementation: {c.error_message or ''}", MESSAGE)),
                type="harness-error").text = xml_text(detail(c))
        elif c.verdict.is_failure and listed and mark is not None and mark.mark == Mark.KNOWN:
            counts["skipped"] += 1  # an expected failure, as pytest writes an xfail
            ET.SubElement(case, "skipped", type="xfail", message=xml_text(shorten(
                f"known failure, listed: {c.verdict} ({level}): {line}; {basis}", MESSAGE)))
        elif c.verdict.is_failure and not enforced(c) and (mark is None or not listed):
            counts["skipped"] += 1  # what `check` reports below its default level, and does not fail on
            ET.SubElement(case, "skipped", type="below-level", message=xml_text(shorten(
                f"{c.verdict} of a {c.level} expectation (not enforced by default; check --level {c.level}): "
                f"{line}; {basis}", MESSAGE)))
        elif c.verdict != Verdict.PASS:
            counts["failures"] += 1
            said = f"{mark.mark.upper() if mark.mark == Mark.NEW else mark.mark}: " if mark else ""
            text = detail(c, diff) + f"\nlevel {cell_level_text(doc, c)}" + (
                f"\n{mark_text(mark, doc.comparison)}" if mark and doc.comparison else "")
            command = repro_command(doc, c, corpus)
            text += f"\nreproduce it (from the folder of report.html): {command}" if command else ""
            ET.SubElement(case, "failure", message=xml_text(shorten(f"{said}{c.verdict} ({level}): {line}; {basis}",
                                                                    MESSAGE)),
                          type=c.verdict.value).text = xml_text(text)
    root.attrib.update({k: str(v) for k, v in counts.items()})
    ET.indent(root)
    out: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return out


class JUnit:
    name = "junit"

    def write(self, doc: ResultsDocument, out: Path) -> list[Path]:
        folder = out / "junit"
        folder.mkdir(exist_ok=True)
        paths = []
        names = file_names(a.adapter for a in doc.adapters)  # a name from a results dataset may be anything
        for a in doc.adapters:
            path = folder / f"{names[a.adapter]}.xml"
            path.write_bytes(suite(doc, a.adapter, corpus_href(doc, out)))
            paths.append(path)
        return paths


FORMAT = JUnit()
