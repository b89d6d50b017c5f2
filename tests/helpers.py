"""Shared by the tests: how to start the command line in a fresh process (or run it in this one); every case of a
list read by adapters."""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from html.parser import HTMLParser
from subprocess import CompletedProcess

from parquet_conformance.conformance.harness.workers import Worker

CLI = [sys.executable, "-m", "parquet_conformance.app.cli"]
StartedWorker = Callable[[str], AbstractContextManager[Worker]]  # the started_worker fixture (conftest.py)


def cli_here(*args: str) -> CompletedProcess[str]:
    """The command line run in this process (app/cli.py main), its streams captured, as cli() returns it, without a
    new process's start (imports, registries, tracks: most of a CPU-second). A traceback would fail the test that
    called it as one on stderr would. Each kind of refusal keeps a check through cli(), as a user meets it."""
    import contextlib
    import io

    from parquet_conformance.app.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as e:  # argparse's refusals
            code = e.code if isinstance(e.code, int) else 1
    return CompletedProcess(["parquet-conformance", *args], code, out.getvalue(), err.getvalue())


def upstream_failures(adapter: str) -> dict[str, str]:
    """case -> the verdict pinned for `adapter` in tests/upstream/<adapter>.txt (upstream bugs the tests expect)."""
    from pathlib import Path

    from parquet_conformance.conformance.harness.gate import parse_expected

    path = Path(__file__).parent / "upstream" / f"{adapter}.txt"
    if not path.is_file():
        return {}
    return {e.case: str(e.verdict) for e in parse_expected(path.read_text())}


def read_cases(cases: list, root: object, specs: list) -> list:
    """Every case read by every adapter of its track, locally (harness/cells.run_cells on the local executor): the
    outcome rows."""
    from pathlib import Path

    from parquet_conformance.conformance.harness.cells import run_cells
    from parquet_conformance.conformance.harness.executor import LocalExecutor
    from parquet_conformance.conformance.harness.reading import Attempt

    rows: list = []
    run_cells(LocalExecutor(), [(c, Attempt()) for c in cases], Path(str(root)), specs, rows.extend)
    return rows


def md_text(text: str) -> str:
    """Markdown we wrote, its escapes undone (kernel/escape.py markdown): what GitHub shows, to assert on."""
    import re

    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text.replace("<!-- -->", ""))


class Page(HTMLParser):
    """Elements, attributes and text of rendered HTML (comments apart: they show nothing)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str]] = []
        self.text: list[str] = []
        self.cells: list[str] = []
        self._cell: list[str] | None = None

    @property
    def hrefs(self) -> list[str]:
        return [v for k, v in self.attrs if k == "href"]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [(k, v or "") for k, v in attrs]
        if tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def rendered(markdown_text: str) -> Page:
    """Markdown as GitHub renders it (cmark-gfm, raw HTML let through so that any that slips out shows)."""
    import cmarkgfm
    from cmarkgfm.cmark import Options

    page = Page()
    page.feed(cmarkgfm.github_flavored_markdown_to_html(markdown_text, options=Options.CMARK_OPT_UNSAFE))
    page.close()
    return page

