"""`report --upstream` with outside text anywhere (issue 29, class 1): a case's title and notes, an implementation's
name and version, an error message, column names and values, a citation's quote and source. Arbitrary Unicode
(controls, lone surrogates, bidi overrides, line and paragraph separators, backticks, brackets, quotes, Markdown and
HTML syntax, `\\u000a`) must stay data:

- the script written into a finding's folder is the adapter's skeleton byte for byte, whatever the finding (it
  reads the finding from finding.json), so nothing from outside can end one of its comments or strings; the
  skeletons parse (`ast`, and in the integration tier `node --check` and `javac`);
- finding.json holds the text as it was, and the Python script reads it back so;
- the README, rendered by GitHub's renderer (cmark-gfm), shows the text as text: no link
  but ours (sources at a commit), no image, no HTML, no heading or list from it, and each field's text (with what a
  terminal would act on shown as an escape) in the rendered text.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parquet_conformance.app import upstream, upstream_folders
from parquet_conformance.app.upstream_readme import index
from parquet_conformance.conformance.adapters import get, names
from parquet_conformance.conformance.adapters.reproducing import reproducer_of
from parquet_conformance.conformance.harness.model import Cell, Verdict
from parquet_conformance.corpus.model import CaseEntry
from parquet_conformance.kernel.escape import terminal
from tests.helpers import rendered

# What the Markdown of a README makes: no image, no raw HTML (cmark-gfm lets it through here, so it would show).
MARKDOWN_TAGS = {"h1", "h2", "h3", "h4", "p", "a", "code", "pre", "em", "strong", "ul", "ol", "li", "table", "thead",
                 "tbody", "tr", "th", "td", "blockquote", "hr", "br"}
FAST = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
SCRIPTED = [n for n in names() if reproducer_of(get(n)) is not None]
# Text that ends a comment or a string in some language, or means something to Markdown or HTML.
NASTY = ["\u2028", "\u2029", "\r", "\n", "\\u000a", "\\u0022", '"""', "*/", "`", "```", "</script>", "<img src=x>",
         "![x](http://evil.example/x.png)", "[a](javascript:alert(1))", "# heading", "- item", "| a | b |", "\x1b[31m",
         "\u202e", "\ud800", "&amp;", "${x}", "'", "\x00", "\x9b", "<!--", "-->", "\\", "[^1]", "www.evil.example"]
texts = st.lists(st.sampled_from(NASTY) | st.text(max_size=8), min_size=1, max_size=6).map("".join)
VERDICTS = [Verdict.UNHANDLED, Verdict.WRONG_DATA, Verdict.REJECTED_VALID, Verdict.CRASH, Verdict.HANG,
            Verdict.ACCEPTED_INVALID, Verdict.WRONG_METADATA]


def make_cell(verdict: Verdict, implementation: str, version: str, message: str) -> Cell:
    return Cell.from_row(dict(
        case="hostile/case", track="parquet", group="hostile", kind="golden", adapter="pyarrow",
        implementation=implementation, version=version, role="legacy",
        expected="reject" if verdict == Verdict.ACCEPTED_INVALID else "read",
        outcome={Verdict.CRASH: "crash", Verdict.HANG: "timeout", Verdict.WRONG_DATA: "read",
                 Verdict.ACCEPTED_INVALID: "read", Verdict.WRONG_METADATA: "read"}.get(verdict, "unhandled-error"),
        verdict=verdict, error_class=message[:20] or None, error_message=message, rows=2, data_hash=None,
        duration_s=0.1, metadata="thrift", attempts=2, previous_case=None, disagreement=None, sample=None))


def make_case(title: str, notes: str, quote: str, source: str) -> CaseEntry:
    return CaseEntry.from_json(dict(
        id="hostile/case", track="parquet", title=title, group="hostile", kind="golden", base="b",
        file="cases/hostile/case.parquet", size=10, sha256="0" * 64, seed=0, mutations=[{"step": "x"}],
        expect={"legacy": "read"}, decode={},
        citations=[{"source": source, "section": quote[:10], "quote": quote, "requires": ["legacy"], "level": "must"},
                   {"source": "apache/parquet-format README.md (24102ed5)", "section": "File Format",
                    "quote": quote}],
        notes=notes, extensions=None, large=False))


def doc_of(case: CaseEntry) -> SimpleNamespace:
    return SimpleNamespace(cases=[], roles={"legacy": "a reader"}, reproduce={}, diff_of=lambda c: None,
                           run=SimpleNamespace(id="r1", generator_version="0.2.0", seed=0, corpus_digest="ab" * 32))


def shows(text: str) -> str:
    """What a field looks like once rendered: itself, with what a terminal would act on as a visible escape."""
    return " ".join(terminal(text).split())


@FAST
@given(title=texts, notes=texts, impl=texts, version=texts, message=texts, quote=texts, column=texts,
       verdict=st.sampled_from(VERDICTS), source=texts)
def test_a_finding_with_any_text_stays_data(tmp_path_factory: pytest.TempPathFactory, title: str, notes: str,
                                            impl: str, version: str, message: str, quote: str, column: str,
                                            verdict: Verdict, source: str) -> None:
    root = tmp_path_factory.mktemp("corpus")
    (root / "cases" / "hostile").mkdir(parents=True)
    (root / "cases" / "hostile" / "case.parquet").write_bytes(b"PAR1")
    case = make_case(title, notes, quote, f"apache/parquet-format {source} (24102ed5)")
    finding = upstream.Finding("pyarrow", verdict, "cause " + message, make_cell(verdict, impl, version, message),
                               case, ["other/" + column])
    manifest = SimpleNamespace(bases={}, case=lambda _: case)
    for name in ("pyarrow", "hyparquet", "parquet-java", "spark"):
        adapter, repro = get(name), reproducer_of(get(name))
        folder = tmp_path_factory.mktemp("finding") / "f"
        upstream_folders.write_finding(folder, finding, doc_of(case), manifest, root, adapter, repro)  # type: ignore[arg-type]
        scripts = [p for p in folder.iterdir() if p.name.startswith(("repro.", "Repro."))]
        if scripts:  # the skeleton, byte for byte, and the files it runs
            assert repro is not None and [p.read_text(encoding="utf-8") for p in scripts] == [repro.text]
            assert all((folder / f).read_text(encoding="utf-8") == text for f, text in repro.companions.items())
        # a script where one can judge: not for wrong data when no data is stated (this corpus has none)
        assert bool(scripts) == (repro is not None and verdict in upstream.SCRIPTED and verdict != Verdict.WRONG_DATA)
        data = json.loads((folder / "finding.json").read_text(encoding="utf-8"))
        assert (data["title"], data["implementation"], data["version"], data["observed"]["error_message"],
                data["others"]) == (title, impl, version, message[:4000], ["other/" + column])
        page = rendered((folder / "README.md").read_text(encoding="utf-8"))
        assert set(page.tags) <= MARKDOWN_TAGS, set(page.tags) - MARKDOWN_TAGS  # no image, no HTML of its own
        assert all(h.startswith("https://github.com/apache/parquet-format/blob/24102ed5/") for h in page.hrefs), \
            page.hrefs
        shown = " ".join("".join(page.text).split())
        for field in (title, impl, version, shows(quote.split(" / ")[0])):
            assert shows(field) in shown, (field, shown[:400])
        heading = (folder / "README.md").read_text(encoding="utf-8").splitlines()[0]
        assert heading.startswith("# ") and rendered(heading).tags == ["h1"]


@FAST
@given(cause=texts, case_id=texts, adapter=texts, run_id=texts)
def test_the_list_of_findings_is_a_table_whatever_the_text(cause: str, case_id: str, adapter: str,
                                                           run_id: str) -> None:
    case = make_case("t", "", "q", "x")
    case = CaseEntry.from_json({**case.to_json(), "id": "hostile/case"})
    finding = upstream.Finding("pyarrow", Verdict.UNHANDLED, cause, make_cell(Verdict.UNHANDLED, "i", "1", "m"),
                               case, [case_id])
    doc = SimpleNamespace(run=SimpleNamespace(id=run_id))
    page = rendered(index(doc, adapter, [(finding, Path("01-x"))], None))  # type: ignore[arg-type]
    assert set(page.tags) <= MARKDOWN_TAGS and page.hrefs == ["01-x/README.md"]
    assert "table" in page.tags and shows(cause) in " ".join("".join(page.text).split())


@FAST
@given(title=texts, column=texts)
def test_the_python_script_reads_the_text_as_data(tmp_path_factory: pytest.TempPathFactory, title: str,
                                                  column: str) -> None:
    folder = tmp_path_factory.mktemp("script")
    repro = reproducer_of(get("pyarrow"))
    assert repro is not None
    data = {"title": title, "file": "case.parquet", "expect": "read", "columns": [column], "rows": 1,
            "timeout_s": 5, "refusals": {"classes": [], "messages": [], "unhandled": [], "oom": [],
                                         "safety_nets": []}}
    (folder / "finding.json").write_text(json.dumps(data), encoding="utf-8")
    ns: dict[str, object] = {"__name__": "repro", "__file__": str(folder / "repro.py")}
    exec(compile(repro.text, "repro.py", "exec"), ns)
    assert ns["FINDING"]["title"] == title and ns["COLUMNS"] == [column]  # type: ignore[index]


@pytest.mark.parametrize("name", SCRIPTED)
def test_every_python_skeleton_parses(name: str) -> None:
    repro = reproducer_of(get(name))
    assert repro is not None
    if repro.language == "Python":
        ast.parse(repro.text)


@pytest.mark.integration
@pytest.mark.parametrize("name", [n for n in SCRIPTED if reproducer_of(get(n)).language == "JavaScript"])  # type: ignore[union-attr]
def test_every_node_skeleton_parses(name: str, tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node")
    repro = reproducer_of(get(name))
    assert repro is not None
    (tmp_path / repro.script).write_text(repro.text, encoding="utf-8")
    proc = subprocess.run([node, "--check", repro.script], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.integration
@pytest.mark.parametrize("name", [n for n in SCRIPTED if reproducer_of(get(n)).language == "Java"])  # type: ignore[union-attr]
def test_every_java_skeleton_compiles(name: str, tmp_path: Path) -> None:
    from parquet_conformance.conformance.adapters.parquet.parquet_java import pyspark_jars

    javac = shutil.which("javac")
    if javac is None:
        pytest.skip("no javac")
    repro = reproducer_of(get(name))
    assert repro is not None
    for name, text in [(repro.script, repro.text), *repro.companions.items()]:  # the launcher and its program
        (tmp_path / name).write_text(text, encoding="utf-8")
    proc = subprocess.run([javac, "-cp", f"{pyspark_jars()}{os.sep}*", "-d", str(tmp_path / "classes"),
                           repro.script, *repro.companions], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
