"""Outside text into every output language (issue 29, class 1): one escaper per sink, each held to a property over
arbitrary Unicode (controls, lone surrogates, bidi overrides, line and paragraph separators, backticks, brackets,
quotes, Markdown and HTML syntax, text that GFM would autolink): what is rendered holds the text as text.

- the terminal: every command's streams are TerminalStreams; no control character, carriage return, bidi override
  or separator comes out, and what does is kernel/escape.py `terminal` of what was written;
- Markdown: rendered by cmark-gfm (GitHub's renderer, with its autolink and table extensions), escaped text is one
  paragraph or one table cell of exactly that text, no link, image, code, emphasis or tag; summary.md and history.md
  whole, drawn from documents full of such text, render only the elements they are made of;
- HTML (report.html, the site): no control character in any text or attribute, the page's own scripts and no
  other, the text shown escaped;
- XML (JUnit): well-formed, the text kept visible.
The commands that print what a worker says (`read`, `adapters`) and what a folder holds (`corpus import`) are run in
test_inputs.py and below, with such names. Example counts per CI run: FAST (the fast tier) per property."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from parquet_conformance.conformance.harness.model import Cell, OutcomeKind, RunInfo, Verdict
from parquet_conformance.corpus.model import Expectation, Kind
from parquet_conformance.kernel import escape
from parquet_conformance.reports.html import render
from parquet_conformance.reports.junit import suite
from parquet_conformance.reports.markdown import summary
from parquet_conformance.reports.model import RESULTS_FORMAT, RESULTS_VERSION, CaseSummary, ResultsDocument, scores
from parquet_conformance.reports.text import cell_text
from tests.helpers import Page, rendered

FAST = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
DOCUMENTS = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                    "\ud800-\udfff\ufffe\uffff]")  # what must never come out (a newline may, where it is ours)
SNIPPETS = ["![x](https://evil.example/x.png)", "[a](javascript:alert(1))", "www.x.com", "https://x", "http://x.y/z",
            "a@b.co", "mailto:a@b.co", "xmpp:a@b.co", "<script>alert(1)</script>", "<img src=x onerror=y>", "`", "``",
            "|", "\\|", "\\", "*", "_x_", "**", "[", "]", "(", ")", "<", ">", "&amp;", "&#x41;", '"', "'", "\u2028",
            "\u2029", "\x1b[31m", "\x1b]8;;http://x\x07", "\x9b", "\r", "\n", "\x7f", "\x00", "\u202e", "\u2066",
            "\ud800", "\ufeff", "# h", "> q", "- l", "1. n", "---", "~~~", "<!--", "-->", "[x]: http://y", "\t",
            "&", "\u00a0", "\u0085", "é", "𝔘"]
text = st.lists(st.sampled_from(SNIPPETS) | st.text(st.characters(exclude_categories=()), max_size=6),
                max_size=8).map("".join)


def flat(s: str) -> str:
    return " ".join(s.split())




# -- the terminal -------------------------------------------------------------------------------------


@FAST
@given(st.lists(text, max_size=6))
def test_the_terminal_shows_no_control_character(chunks: list[str]) -> None:
    """Whatever is written, in whatever pieces: no unsafe character reaches the stream, and what does is exactly
    `terminal` of the whole (so it reads the same however it was cut)."""
    sink = io.StringIO()
    stream = escape.TerminalStream(sink)
    for chunk in chunks:
        stream.write(chunk)
    out = sink.getvalue()
    assert not UNSAFE.search(out)
    assert out == escape.terminal("".join(chunks), keep_newlines=True)
    assert "\n" not in escape.terminal("".join(chunks))  # one line where one line is promised


# -- Markdown -----------------------------------------------------------------------------------------


@FAST
@given(text)
@example("@\u2028")  # at a line's start: what splits an e-mail address there would open an HTML block
@example("  @x.co")
@example("a@b.co")
def test_markdown_holds_any_text_as_one_paragraph_of_text(s: str) -> None:
    page = rendered(escape.markdown(s))
    assert set(page.tags) <= {"p"}, (s, page.tags)
    assert flat("".join(page.text)) == flat(escape.terminal(s))


@FAST
@given(text, text)
def test_a_table_cell_holds_any_text_and_the_table_its_shape(a: str, b: str) -> None:
    table = f"| one | two |\n|---|---|\n| {cell_text(a)} | {cell_text(b)} |\n| x | y |\n"
    page = rendered(table)
    assert set(page.tags) <= {"table", "thead", "tbody", "tr", "th", "td"}, page.tags
    assert page.tags.count("td") == 4 and page.tags.count("tr") == 3
    assert [flat(c) for c in page.cells] == ["one", "two", flat(escape.terminal(a)), flat(escape.terminal(b)), "x",
                                             "y"]


def cell(case: str, adapter: str, implementation: str, version: str, role: str, verdict: Verdict,
         outcome: OutcomeKind, message: str | None) -> Cell:
    return Cell(case=case, track="parquet", group=case.split("/")[0], kind=Kind.GOLDEN, adapter=adapter,
                implementation=implementation, version=version, role=role, expected=Expectation.READ,
                outcome=outcome, verdict=verdict, error_class=message, error_message=message, rows=None,
                data_hash=None, duration_s=0.1, metadata=None, attempts=1, previous_case=None,
                disagreement=message)


def document(implementation: str, version: str, message: str, title: str, adapter: str = "evil",
             run: str = "r1") -> ResultsDocument:
    cells = [cell(f"ext/case-{i}", adapter, implementation, version, "legacy", v, o, message)
             for i, (v, o) in enumerate([(Verdict.REJECTED_VALID, OutcomeKind.REJECTED), (Verdict.CRASH,
                                         OutcomeKind.CRASH), (Verdict.HARNESS_ERROR, OutcomeKind.HARNESS_ERROR),
                                         (Verdict.FLAKY, OutcomeKind.REJECTED), (Verdict.PASS, OutcomeKind.READ)])]
    info = RunInfo(run, "0", 0, "none", "/c", None, ["parquet"], "0" * 64)
    cases = [CaseSummary(id=c.case, track="parquet", title=title, group=c.group, kind=Kind.GOLDEN,
                         expect={"legacy": Expectation.READ}, citations=[], notes=title) for c in cells]
    return ResultsDocument(RESULTS_FORMAT, RESULTS_VERSION, info, scores(cells), cases, cells)


SUMMARY_TAGS = {"h2", "h3", "h4", "p", "strong", "code", "table", "thead", "tbody", "tr", "th", "td", "details",
                "summary"}  # its own (code: its option names); the escaped text starts none (the properties above)


@DOCUMENTS
@given(text, text, text, text)
def test_summary_md_renders_only_its_own_elements(implementation: str, version: str, message: str,
                                                  title: str) -> None:
    """summary.md of a run whose worker named itself and spoke in any text: GitHub renders its headings, tables
    and details, and nothing a name could start (no link, image, code span, raw tag); names appear as text."""
    page = rendered(summary(document(implementation, version, message, title)))
    assert set(page.tags) <= SUMMARY_TAGS, set(page.tags) - SUMMARY_TAGS
    shown = flat("".join(page.text))
    for s in (implementation, version):
        assert flat(escape.terminal(s)) in shown


@DOCUMENTS
@given(text, text, text)
def test_history_md_renders_only_its_own_elements(version: str, case: str, role: str) -> None:
    from parquet_conformance.reports.diff import diff_runs
    from parquet_conformance.reports.history import History, RunPoint, history_markdown

    before = [cell(f"ext/{case}", "evil", "impl", version, role, Verdict.PASS, OutcomeKind.READ, None)]
    after = [replace(before[0], verdict=Verdict.CRASH, outcome=OutcomeKind.CRASH, version=version + "x")]
    history = History([RunPoint("r1", None, scores(before)), RunPoint("r2", None, scores(after))], "run id",
                      diff_runs(before, after))
    page = rendered(history_markdown(history))
    assert set(page.tags) <= {"h2", "p", "img", "table", "thead", "tbody", "tr", "th", "td", "strong", "ul", "li"}
    assert [v for k, v in page.attrs if k in ("src", "href")] == ["history.svg"]  # the chart, nothing else
    shown = flat("".join(page.text))
    for s in (version, f"ext/{case}", role):
        assert flat(escape.terminal(s)) in shown


# -- HTML and XML -------------------------------------------------------------------------------------


def scripts(page: Page) -> int:
    return page.tags.count("script")


BENIGN = scripts((lambda p: (p.feed(render(document("impl", "1", "m", "t"))), p)[1])(Page()))


@DOCUMENTS
@given(text, text, text, text)
def test_report_html_shows_any_text_as_text(implementation: str, version: str, message: str, title: str) -> None:
    page = Page()
    page.feed(render(document(implementation, version, message, title)))
    assert scripts(page) == BENIGN  # the page's own, and no other
    assert not any(k.startswith("on") for k, _ in page.attrs)
    assert not [t for t in page.text if UNSAFE.search(t)]
    assert not [v for _, v in page.attrs if UNSAFE.search(v)]
    shown = flat(" ".join([*page.text, *(v for _, v in page.attrs)]))
    assert flat(escape.terminal(implementation, keep_newlines=True)) in shown


@DOCUMENTS
@given(text, text, text)
def test_junit_is_well_formed_and_keeps_any_text_visible(implementation: str, message: str, title: str) -> None:
    root = ET.fromstring(suite(document(implementation, "1", message, title), "evil"))
    values = [v for e in root.iter() for v in (*e.attrib.values(), e.text or "")]
    assert not [v for v in values if UNSAFE.search(v)]
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["implementation"] == escape.terminal(implementation, keep_newlines=True)


@pytest.mark.parametrize("name", ["\x1b[2J\x1b[Hgotcha", "a\rb", "\u202eevil\u202c", "x\u2028y", "\x9b31m"])
def test_the_site_writes_control_characters_as_escapes(name: str, tmp_path: Path) -> None:
    from parquet_conformance.reports.site import write_site

    written = write_site(document(name, name, name, name), tmp_path / "site")
    for path in written:
        content = path.read_text()
        assert not UNSAFE.search(content.replace("\t", " ")), path
        assert path.resolve().is_relative_to((tmp_path / "site").resolve())


# -- the commands that print outside text ---------------------------------------------------------------

NAME = "evil\x1b[2J\x1b]8;;http://x\x07\r\x9b31m\x7f\u2028\u202e!gnp.exe"
FILE = NAME.replace("/", "_")  # the same, as a file name
SAID = "evil\x9b31m\x85\u2028\u202e!gnp.exe\u2066"  # what the protocol lets a worker call itself (no C0, no DEL)


def printed(*args: str) -> str:
    import subprocess

    from tests.helpers import CLI

    proc = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, errors="surrogateescape")
    return proc.stdout + proc.stderr


@pytest.mark.parametrize("command", ["read", "adapters"])
def test_read_and_adapters_print_a_workers_names_as_escapes(command: str, tmp_path: Path) -> None:
    import json
    import shlex
    import sys

    from tests.hostile import WORKER, token

    worker = shlex.join([sys.executable, str(WORKER), "none", token(), "--bad=never",
                         f"--implementation-json={json.dumps(SAID)}", f"--version-json={json.dumps(SAID)}"])
    target = tmp_path / f"file{FILE}.parquet"
    target.write_bytes(b"PAR1")
    out = printed(command, *([str(target)] if command == "read" else []), "--adapter-cmd", f"evil={worker}")
    assert not UNSAFE.search(out), out
    assert escape.terminal(SAID) in out
    if command == "read":  # a file name in an error: one line, escaped
        out = printed("read", str(tmp_path / f"gone{FILE}"), "--adapter-cmd", f"evil={worker}")
        assert not UNSAFE.search(out) and len(out.strip().splitlines()) == 1, out
        assert escape.terminal(FILE) in out


def test_corpus_import_prints_file_names_as_escapes(tmp_path: Path) -> None:
    from parquet_conformance.corpus.build import generate

    generate(tmp_path / "c", only="base/flat")
    src = tmp_path / "src"
    src.mkdir()
    (src / f"{FILE}.parquet").write_bytes((tmp_path / "c" / "cases" / "base" / "flat.parquet").read_bytes())
    (src / f"x{FILE}.parquet").write_bytes(b"PAR1 and then not")
    out = printed("corpus", "import", str(src), "--source", "evil", "--out", str(tmp_path / "out"), "--adapter",
                  "reference")
    assert not UNSAFE.search(out), out
    page = Page()
    manifest = (tmp_path / "out" / "manifest.json").read_text()
    page.feed(render(document("i", "1", "m", __import__("json").loads(manifest)["cases"][0]["title"])))
    assert not [t for t in page.text if UNSAFE.search(t)]
