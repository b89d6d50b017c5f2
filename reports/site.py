"""`report --site DIR`: the cross-vendor compatibility report as a static site, for any static host.

    DIR/index.html             the matrix and the scores (report.html, with links to the pages below)
    DIR/impl/<adapter>.html    an implementation: its score, engine, error clusters, the cells that did not pass (what
                               happened, new or known, only here or shared), and its history over the runs of the
                               results dataset (impl/<adapter>.svg): report.html's implementation view as a page
    DIR/case/<case id>.html    a case: its title, expectations, citations (linked), its file and expected data in the
                               run's corpus, and every implementation's outcome with the command that reproduces it

Every page is self-contained (inline style, no script but the matrix's own, no external resource) and links the
others relatively, so the folder can be served from anywhere or opened from disk.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial
from pathlib import Path

from parquet_conformance.conformance.harness.model import Cell
from parquet_conformance.reports.clusters import clusters
from parquet_conformance.reports.datadiff import describe
from parquet_conformance.reports.focus import failing_families, failures, fixed
from parquet_conformance.reports.history import History, chart_svg
from parquet_conformance.reports.html import columns, render
from parquet_conformance.reports.model import ResultsDocument
from parquet_conformance.reports.text import (
    Links,
    corpus_href,
    environment,
    family_name,
    file_name,
    file_names,
    mark_text,
    repro_command,
)


def case_path(case_id: str) -> str:
    """A case's page: its id's segments as folders, each a file name (a long or odd one hashed), at most 8 deep."""
    segments = case_id.split("/")
    if len(segments) > 8:
        segments = [file_name(case_id)]
    return "case/" + "/".join(file_name(s) for s in segments) + ".html"


def impl_paths(adapters: Iterable[str]) -> Callable[[str], str]:
    """Each implementation's page (impl/<adapter>.html), a file of its own whatever the names (text.file_names)."""
    names = file_names(adapters)
    return lambda adapter: f"impl/{names[adapter]}.html"


def case_href(root: str, cell: Cell) -> str:
    return root + case_path(cell.case)


def up(page: str) -> str:
    """The relative path from `page` back to the site's root."""
    return "../" * page.count("/")


def write_site(doc: ResultsDocument, out: Path, history: History | None = None,
               run_out: Path | None = None) -> list[Path]:
    """`run_out`: the run's output folder (where its written corpus is, when it ran writers)."""
    env = environment()
    written = []

    def page(rel: str, text: str) -> None:
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, errors="replace", encoding="utf-8")
        written.append(path)

    corpus = corpus_href(doc, out, run_out)  # from the site's root; a page deeper down goes up first
    impl_path = impl_paths(a.adapter for a in doc.adapters)
    page("index.html", render(doc, Links(case=case_path, impl=impl_path), corpus=corpus))
    if doc.writers is not None:  # the writer x reader matrix the index links, its files where the run wrote them
        # imported here, not at the top: start-up time (only this path needs it)
        from parquet_conformance.reports.writers import FORMAT as WRITERS

        written_corpus = doc.writers.corpus
        if run_out is not None and not Path(written_corpus).is_absolute():
            written_corpus = Path(os.path.relpath((run_out / written_corpus).resolve(), out.resolve())).as_posix()
        written += WRITERS.write(replace(doc, writers=replace(doc.writers, corpus=written_corpus)), out)
    families = {c.adapter: (f, c) for f in columns(doc) for c in f.columns}
    groups = clusters(doc)
    failing_by_case = failing_families(doc)
    by_case: dict[str, list[Cell]] = {}
    for cell in doc.cells:
        by_case.setdefault(cell.case, []).append(cell)
    for a in doc.adapters:
        rel = impl_path(a.adapter)
        family, column = families[a.adapter]
        chart = None
        if history is not None:
            mine = {c.score.adapter for c in family.columns}  # this run's rows (a release by its options' name)
            releases = {s.adapter for p in history.runs for s in p.scores
                        if s.adapter in mine or family_name(s.adapter, s.version) == family.name}
            (out / "impl").mkdir(parents=True, exist_ok=True)
            svg = (out / rel).with_suffix(".svg")
            svg.write_text(chart_svg(history, releases, title=f"{family.name}: pass rate over runs"), encoding="utf-8")
            written.append(svg)
            chart = svg.name
        changes = [c for c in history.latest.changes if c.adapter == a.adapter] if history and history.latest else []
        page(rel, env.get_template("site_impl.html.j2").render(
            doc=doc, score=a, family=family, column=column, clusters=[k for k in groups if k.adapter == a.adapter],
            failing=failures(doc, a.adapter, failing_by_case), fixed=fixed(doc, a.adapter), chart=chart,
            history=history, changes=changes, root=up(rel), case_path=case_path, mark_text=mark_text,
            case_href=partial(case_href, up(rel)), sharing_title=", ".join))
    for case in doc.cases:
        rel = case_path(case.id)
        cells = sorted(by_case.get(case.id, []), key=lambda c: (c.adapter, c.role))
        page(rel, env.get_template("site_case.html.j2").render(
            doc=doc, case=case, cells=cells, corpus=up(rel) + corpus, mark_text=mark_text,
            diff_text=lambda c: (d := doc.diff_of(c)) and describe(d), root=up(rel), impl_path=impl_path,
            command=partial(repro_command, doc)))
    return written
