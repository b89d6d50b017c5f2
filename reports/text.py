"""The one helper module the report formats share (no format imports another): text made safe for XML, Markdown
and terminals, a cell's detail in one paragraph, release order and implementation families, the HTML templates'
environment, and the skip-overhead table and chart that report.html and skip-overhead.md both draw."""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import os
import re
import shlex
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from importlib.metadata import PackageNotFoundError, metadata
from pathlib import Path
from typing import Any

import jinja2
from jinja2.bccache import Bucket
from markupsafe import Markup, escape

from parquet_conformance.conformance.harness.chains import root_cause
from parquet_conformance.conformance.harness.model import Cell, Overhead, Verdict
from parquet_conformance.corpus.model import NAME_RE, Citation, Level, level_sentence
from parquet_conformance.kernel.cache import cache_dir
from parquet_conformance.kernel.escape import markdown, terminal
from parquet_conformance.reports.datadiff import describe, headline
from parquet_conformance.reports.model import CellMark, Comparison, DataDiff, Mark, ResultsDocument

MAX_FILE_NAME = 100  # characters of a name a report makes a file of; longer or odd names are hashed


def chart_rc(font_size: int) -> Any:
    """matplotlib settings of every chart: the same data gives the same bytes (a fixed hash salt, text kept as
    text), and names are drawn as given: math text would read `$...$` in a version string as a formula."""
    return {"svg.hashsalt": "parquet-conformance", "svg.fonttype": "none", "font.family": "DejaVu Sans",
            "font.size": font_size, "text.parse_math": False, "text.usetex": False}

def xml_text(text: str) -> str:
    """Text for XML (JUnit): kernel/escape.py `terminal`, newlines kept, so that what XML 1.0 cannot carry at all
    (C0 controls, lone surrogates) and what a viewer would act on (C1 controls, bidi overrides) is shown as an escape;
    ElementTree escapes the markup characters."""
    return terminal(text, keep_newlines=True)


def detail(cell: Cell, diff: DataDiff | None = None) -> str:
    """Why a cell is what it is, in one paragraph: the expectation, the outcome, the error or the data (with its
    diff against the expected data, for wrong data)."""
    text = f"expected {cell.expected} ({cell.role}, {cell.level}), got {cell.outcome}"
    if cell.disagreement:
        text += f"; attempts disagree: {cell.disagreement}"
    if cell.rows is not None:
        text += f": {cell.rows} rows, data {cell.data_hash}"
    if cell.error_class or cell.error_message:
        text += f"\n{cell.error_class or '-'}: {cell.error_message or ''}"
    if diff is not None:
        text += "\n" + describe(diff)
    return text


def level_parts(level: Level, sentence: Citation | None, notes: str = "", limit: int = 240) -> tuple[str, str]:
    """An expectation's level in words (`must: the spec requires`) and what it rests on: the sentence, quoted with its
    source and section, or the case's notes (which say why) where it rests on none; `limit` characters of each."""
    said = f"{level}: {level.phrase}"
    if sentence is not None:
        return said, f"“{shorten(sentence.quote, limit)}” ({sentence.source}, {sentence.section})"
    return said, f"why: {shorten(notes, limit)}" if notes.strip() else "(the case cites no sentence)"


def level_text(level: Level, sentence: Citation | None, notes: str = "", limit: int = 240) -> str:
    """An expectation's level and what it rests on, in one line: `must: the spec requires “…” (source, section)`."""
    said, basis = level_parts(level, sentence, notes, limit)
    return f"{said} {basis}" if sentence is not None or not notes.strip() else f"{said}: {basis.removeprefix('why: ')}"


def cell_level(doc: ResultsDocument, cell: Cell, limit: int = 240) -> tuple[str, str]:
    """A cell's level in words and what it rests on (level_parts), from its case in the document."""
    case = doc.case_of(cell.case)
    if case is None:
        return level_parts(cell.level, None, limit=limit)
    return level_parts(cell.level, level_sentence(case.citations, cell.role, cell.level), case.notes, limit)


def cell_level_text(doc: ResultsDocument, cell: Cell, limit: int = 240) -> str:
    """A cell's level and what it rests on, in one line (level_text)."""
    case = doc.case_of(cell.case)
    if case is None:
        return level_text(cell.level, None, limit=limit)
    return level_text(cell.level, level_sentence(case.citations, cell.role, cell.level), case.notes, limit)


def file_name(name: str) -> str:
    """A name (an adapter, a segment of a case id) fit to be one file name: itself when it is a checked name of at
    most MAX_FILE_NAME characters; else a readable prefix and a digest of the whole, so that no name from a results
    dataset, however long or odd, can make a path too long or lead out of its folder."""
    if NAME_RE.fullmatch(name) and len(name) <= MAX_FILE_NAME:
        return name
    prefix = re.sub(r"[^A-Za-z0-9._+-]+", "-", name)[:40].strip(".-") or "name"
    return f"{prefix}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"


def distinct_names(wanted: dict[str, str]) -> dict[str, str]:
    """key -> its wanted file name (a stem), no two alike even on a file system that folds case: a key whose stem an
    earlier key took (two long names sharing their cut prefix, an external adapter named like a built-in engine,
    names that differ only in case) gets its own digest added. The keys keep the dict's order: an earlier key keeps
    its wanted stem. Every place a name becomes a file name goes through it, so that no file overwrites another."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for key, stem in wanted.items():
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
        for n in itertools.count():
            if stem.casefold() not in taken:
                break
            stem = f"{wanted[key][:80]}-{digest[:12]}" + (f"-{n}" if n else "")
        taken.add(stem.casefold())
        out[key] = stem
    return out


def file_names(names: Iterable[str]) -> dict[str, str]:
    """Each name as a file name of its own (file_name, made distinct: distinct_names); a name that is its own file
    name, in lower case, keeps it before any other."""
    order = sorted(set(names), key=lambda n: (file_name(n) != n, n != n.lower(), n))
    return distinct_names({n: file_name(n) for n in order})


def cell_text(text: object) -> str:
    """Outside text in Markdown (a table cell, a list item, a heading): kernel/escape.py `markdown`, the one escaper of
    that sink (one line, every punctuation character escaped, no autolink)."""
    return markdown(str(text))


def version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """Release order (1.9 < 1.10), as conformance/harness/envs.py orders releases."""
    return tuple((1, int(p)) if p.isdigit() else (0, p) for p in re.findall(r"\d+|[A-Za-z]+", version))


def family_name(adapter: str, version: str | None) -> str:
    """The implementation a row belongs to: `polars-1.40.1` (a release, version 1.40.1) is polars."""
    return adapter.removesuffix(f"-{version}") if version else adapter


def registered_name(doc: ResultsDocument, adapter: str, version: str | None) -> str:
    """The registered adapter a row is (`pyarrow-18.0.0`, run as `--adapter pyarrow==18.0.0`, is pyarrow), from the
    options that name it again: also where the version it reports is not its release's (`parquet-java-4.0.1` reports
    parquet-hadoop's 1.15.2); `family_name` for a run that stored none."""
    options = shlex.split(doc.reproduce.get(adapter, ""))
    if "--adapter" in options[:-1]:
        named = options[options.index("--adapter") + 1]
        return re.split(r"==|@(?=[^@]*$)", named)[0] if ("==" in named or named.rfind("@") > 0) else named
    return family_name(adapter, version)


SYMBOL = {Verdict.PASS: "✓", Verdict.WRONG_DATA: "wrong", Verdict.CRASH: "crash", Verdict.UNHANDLED: "unh",
          Verdict.HANG: "hang", Verdict.REJECTED_VALID: "rej", Verdict.ACCEPTED_INVALID: "acc",
          Verdict.WRONG_METADATA: "meta", Verdict.FLAKY: "flaky", Verdict.REPRESENTATION: "repr",
          Verdict.SKIP: "–", Verdict.HARNESS_ERROR: "ours"}
MEANING = {  # the legend, in words; a verdict without a line here is shown by its name
    Verdict.PASS: "did what the case expects",
    Verdict.WRONG_DATA: "returned other data than the case's (the worst: a user would not notice)",
    Verdict.CRASH: "lost control: a signal, an abort, a panic, a stack overflow, or out of memory",
    Verdict.UNHANDLED: "raised an error it does not raise on purpose (a NullPointerException, a TypeError, an "
                       "IndexError): lost control as a crash does, but the process survived",
    Verdict.HANG: "gave no answer in time",
    Verdict.REJECTED_VALID: "refused a file it must read",
    Verdict.ACCEPTED_INVALID: "read a file it must reject",
    Verdict.WRONG_METADATA: "an aware reader used the metadata form the case forbids",
    Verdict.FLAKY: "some of its attempts passed and some failed: counted apart, neither a pass nor a failure",
    Verdict.REPRESENTATION: "returned the case's data in a form its library documents (fastparquet's NaN for a null "
                            "float: docs/adapters.md#documented-representations), not the expected data and not "
                            "other data: counted apart, neither a pass nor a failure",
    Verdict.SKIP: "not judged: the implementation is unavailable here, or fails the same way on the unmodified base",
    Verdict.HARNESS_ERROR: "not judged: parquet-conformance failed here, not the implementation",
}
LEVEL_MEANING = {  # what an expectation's level says (docs/spec-notes.md#levels)
    Level.MUST: "a requirement of the format's released or main-line text (a MUST, the Error recovery rule, the "
                "definition of a Parquet file); the gate enforces it",
    Level.SHOULD: "a SHOULD, a recommendation; the gate enforces it when asked (check --level should)",
    Level.POLICY: "this suite's own reading, a proposal or upstream code (docs/spec-notes.md says why); enforced when "
                  "asked (check --level policy)",
}
EXPECTATIONS = {"read": "must return exactly the base's data", "reject": "must fail with an error",
                "either": "may do either; a crash, an unhandled error, a hang or other data fails every "
                          "expectation"}
# What an expectation asks of a case whose operation is not a read (an encode case writes rows into streams).
OP_EXPECTATIONS = {"encode": {"read": "write exactly the expected output streams", "reject": "refuse the rows with an "
                              "error", "either": "write exactly the expected output streams or refuse the rows"},
                   "decode": {"read": "decode exactly the expected rows", "reject": "refuse the stream with an error",
                              "either": "decode exactly the expected rows or refuse the stream"}}


def expectation_words(expectation: str, op: str = "read") -> str:
    """What an expectation asks of a reader (or a codec) in words, for the case's operation."""
    own = OP_EXPECTATIONS.get(op, {}).get(expectation)
    return own or {"read": "return exactly the base's data", "reject": "fail with an error",
                   "either": "return exactly the base's data or fail with an error"}.get(expectation, expectation)
TERMS = {  # words the detail panel and the summaries use
    "attempts": "how often the cell was read: the run's read, --repeat rounds, and a read in a fresh worker "
                "process for every cell that did not pass (a pass and a failure among them make the cell flaky; "
                "failures of different kinds make it the worst of them)",
    "read just before": "the case the same worker process read before this one: a reader that keeps state between "
                        "files may fail because of it (the fresh worker's read tells)",
    "root cause": "the deepest error a chained error names (Java's Caused by, Python's __cause__), shown first",
    "level": "the force of what the expectation rests on: must, should or policy (the legend); it weighs only "
             "reading versus refusing",
}


def severity(verdict: Verdict) -> int:
    """The order of lists and which of a (case, adapter)'s roles a report shows: the judge's (Verdict.severity)."""
    return verdict.severity


def css_class(verdict: Verdict) -> str:
    return verdict.value.replace(":", "-")


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def percent(rate: float | None) -> str:
    """A pass rate as a percentage with one decimal that never rounds up to 100% nor down to 0% (685/688 is 99.5%,
    not 100%)."""
    if rate is None:
        return "–"
    shown = round(rate * 100, 1)
    if shown >= 100 and rate < 1:
        return "99.9%"
    if shown <= 0 and rate > 0:
        return "0.1%"
    return f"{shown:.1f}%"


def shorten(text: str, limit: int) -> str:
    """One line of at most `limit` characters, cut at a word and ended with "…" where it was cut."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[:limit - 1]
    if " " in cut[limit // 2:]:
        cut = cut[:cut.rindex(" ")]
    return cut.rstrip(" ,;:").removesuffix(" /").rstrip(" ,;:") + "…"  # nor a " / " between lines


AT_THE_LIMIT = re.compile(r"at the ([\d.]+ [GM]iB) address-space limit")  # conformance/harness/transport.py says it
SIGNALS = {"SIGSEGV": "a segmentation fault: it touched memory it does not own",
           "SIGABRT": "an abort: it stopped itself on a failed check, a failed allocation or a panic",
           "SIGILL": "an illegal instruction, usually a deliberate trap such as an assertion",
           "SIGBUS": "a bus error: a memory access the hardware refused",
           "SIGFPE": "an arithmetic fault such as a division by zero",
           "SIGKILL": "killed from outside: the kernel's out-of-memory killer sends it"}
_LAST_WORDS = re.compile(r"panic|abort|fatal|error|fail|assert|exception|out of memory", re.I)


def last_words(cell: Cell) -> str:
    """The line of a dead worker's stderr tail that says what happened: the first that names a panic, an abort, an
    error or a failure, else its last line (the tail may start mid-line); "" when it only repeats the signal."""
    lines = [ln.strip() for ln in (cell.error_message or "").splitlines() if ln.strip()]
    lines = [ln for ln in lines if ln != cell.error_class]
    said = next((ln for ln in lines if _LAST_WORDS.search(ln)), lines[-1] if lines else "")
    return shorten(said, 160)


def failure_text(cell: Cell) -> str:
    """A crash's or a hang's one line: the signal (and what it means) or the limit (and why that limit), and the
    dead worker's last words."""
    if cell.outcome == "timeout":
        limit = (cell.error_message or "").removeprefix("no answer within ").removesuffix("s")
        try:
            seconds = f"{float(limit):.1f} s"
        except ValueError:
            seconds = "the limit"
        return (f"no answer within {seconds}: the hang limit this run set for {cell.adapter} from its own slowest "
                "answered cell, at most its timeout (docs/results.md#what-a-verdict-guarantees)")
    how = cell.error_class or str(cell.outcome)
    signal = re.search(r"SIG[A-Z]+", how)
    meaning = SIGNALS.get(signal.group(), "") if signal else ""
    text = ("ran out of memory" + (f" ({how})" if how != "oom" else "") if cell.outcome == "oom" else
            how + (f" ({meaning})" if meaning else ""))
    if AT_THE_LIMIT.search(how):
        text += (": the limit the harness sets on each worker's memory, where the kernel refused an allocation "
                 "(without it the same read may crash otherwise or grow much further)")
    said = last_words(cell)
    return text + (f"; its last words: {said}" if said else "")


def error_line(cell: Cell) -> str:
    """A cell's error in one line: its root cause first for a chained error, else its message's first line."""
    message = cell.error_message or ""
    first = next((ln.strip() for ln in message.splitlines() if ln.strip()), "")
    root = root_cause(message)
    line = f"{root} (root cause; {first})" if root else first
    return ": ".join(p for p in (cell.error_class, line) if p)


def what_happened(cell: Cell, diff: DataDiff | None = None) -> str:
    """What the cell shows, in one line: the expectation, the outcome and the error or the data."""
    if cell.verdict == Verdict.FLAKY:
        got = f"attempts that disagree: {cell.disagreement or cell.outcome}"
    elif cell.verdict == Verdict.REPRESENTATION:  # not other data: the form the library documents
        got = (f"{cell.rows} rows in the form its library documents ({', '.join(cell.representations)})"
               + (f": {headline(diff)}" if diff is not None else ""))
    elif diff is not None and cell.expected == "reject":  # judged wrong data: it read other data than the base's
        got = f"{diff.returned_rows} rows from a file it must reject, and not the base's data: {headline(diff)}"
    elif diff is not None:
        got = f"{diff.returned_rows} rows of other data: {headline(diff)}"
    elif cell.verdict == Verdict.WRONG_METADATA:
        got = f"a read from the {cell.metadata} metadata"
    elif cell.rows is not None:
        got = f"a read of {cell.rows} rows" + (" of other data" if cell.verdict == Verdict.WRONG_DATA else "")
    elif cell.outcome in ("crash", "oom", "timeout"):
        got = f"{cell.outcome}: {failure_text(cell)}"
    elif cell.error_class or cell.error_message:
        got = f"{cell.outcome}: {error_line(cell)}"
    else:
        got = str(cell.outcome)
    return f"expected {cell.expected} ({cell.role}), got {got}"


# -- new, known, fixed ---------------------------------------------------------------------------

MARK_ORDER = {Mark.NEW: 0, Mark.CHANGED: 1, Mark.UNSEEN: 2, Mark.KNOWN: 3, Mark.FIXED: 4}  # the loudest first
MARKS_LEGEND = {Mark.NEW: "fails now, passed before (or is not in the expected-failure list)",
                Mark.CHANGED: "fails otherwise than before (or than the verdict listed)",
                Mark.KNOWN: "fails as before (or as listed)",
                Mark.FIXED: "passes now, failed before (or is listed: remove it from the list)",
                Mark.UNSEEN: "fails; the earlier run has no verdict to compare with: no such cell (a case or an "
                             "implementation added), or it was flaky, skipped or not judged there"}

def mark_text(mark: CellMark, comparison: Comparison) -> str:
    """A cell's mark in words: "new failure (passed in run r2)"."""
    before = f" {mark.before}" if mark.before else ""
    listed = comparison.kind == "expected-failures"
    match mark.mark:
        case Mark.NEW:
            return "new failure: " + ("not in the expected-failure list" if listed else
                                      f"it passed in {comparison.what}")
        case Mark.KNOWN:
            return "known failure: " + (f"listed{before}" if listed else f"it failed the same way in {comparison.what}")
        case Mark.CHANGED:
            return f"changed failure: {'listed as' if listed else 'it was'}{before or ' another failure'}" + (
                "" if listed else f" in {comparison.what}")
        case Mark.FIXED:
            return f"fixed: {'listed' if listed else 'it failed in ' + comparison.what}{before and ' as' + before}"
        case Mark.UNSEEN:
            if mark.before:
                return f"not compared: it was{before} in {comparison.what}, not a pass or a failure"
            return f"not compared: {comparison.what} has no such cell (a case or an implementation added)"
    return str(mark.mark)



@dataclass(frozen=True)
class TrackCount:
    """A track's cells in the header: cases x implementations, and the cells judged (one per role a case names)."""

    track: str
    cases: int
    adapters: int
    pairs: int  # (case, adapter) cells of the matrix that ran
    judged: int  # cells judged: an aware reader is judged once in each role a case names

    @property
    def text(self) -> str:
        grid = self.cases * self.adapters
        ran = "" if self.pairs == grid else f" ({self.pairs} ran)"
        return (f"{self.track}: {plural(self.cases, 'case')} × {plural(self.adapters, 'implementation')} = "
                f"{plural(grid, 'cell')}{ran}"
                + ("" if self.judged == self.pairs else f", judged in {self.judged} (case, role) cells"))


def track_counts(doc: ResultsDocument) -> list[TrackCount]:
    out = []
    for track in sorted({c.track for c in doc.cases} | {a.track for a in doc.adapters}):
        cells = [c for c in doc.cells if c.track == track]
        out.append(TrackCount(track, sum(c.track == track for c in doc.cases),
                              sum(a.track == track for a in doc.adapters), len({(c.case, c.adapter) for c in cells}),
                              len(cells)))
    return out



_PUBLISHED: ContextVar[tuple[Path, Path] | None] = ContextVar("published", default=None)


@contextlib.contextmanager
def published(staging: Path, final: Path) -> Iterator[None]:
    """Pages written into `staging` will be read from `final` (reports are written aside, then moved into place):
    links out of them (corpus_href) are made from where they will be."""
    token = _PUBLISHED.set((staging.resolve(), final.resolve()))
    try:
        yield
    finally:
        _PUBLISHED.reset(token)


def corpus_href(doc: ResultsDocument, page_dir: Path, run_out: Path | None = None) -> str:
    """The run's corpus relative to a page's folder. A run records its corpus relative to its own folder
    (harness/results.py recorded_path): `run_out`, that folder when the page is elsewhere (a site); by default the
    page's own (report.html's, junit's: the run's --out)."""
    if not doc.run.corpus:
        return "corpus"
    page = page_dir.resolve()
    moved = _PUBLISHED.get()
    if moved is not None and (page == moved[0] or moved[0] in page.parents):
        page = moved[1] / page.relative_to(moved[0])
    corpus = Path(doc.run.corpus)
    if not corpus.is_absolute():
        corpus = (run_out.resolve() if run_out is not None else page) / corpus
    return Path(os.path.relpath(corpus.resolve(), page)).as_posix()


def repro_command(doc: ResultsDocument, cell: Cell, corpus: str = "corpus") -> str | None:
    """The one-line `parquet-conformance read` that reproduces a cell, run from where `corpus` (the run's corpus,
    relative) is; None for a run stored without its case files' names. report.html's script builds the same line."""
    case = doc.case_of(cell.case)
    if case is None or not case.file:
        return None
    options = doc.reproduce.get(cell.adapter, f"--adapter {shlex.quote(cell.adapter)}")
    op = f" --op {shlex.quote(case.op)}" if case.op != "read" else ""
    return f"parquet-conformance read {shlex.quote(f'{corpus}/{case.file}')} {options}{op}"


# -- links: citations to their sources, docs/ references to the project's documentation ----------

_SOURCE = re.compile(r"^(?P<repo>[\w.-]+/[\w.-]+) (?:PR #(?P<pr>\d+) )?(?P<path>[^\s()@]+)"
                     r"(?: \((?:PR #\d+, merged; )?(?P<at>[0-9a-f]{7,40})\)| @ (?P<at2>[0-9a-f]{7,40}))?$")
DOCS_REF = re.compile(r"\bdocs/[\w.-]+\.md(?:#[\w-]+)?")


def anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def citation_url(source: str, section: str = "") -> str | None:
    """Where a citation's source is: `owner/repo path (commit)`, `owner/repo path @ commit`, `owner/repo path` (the
    default branch) or `owner/repo PR #N ...` on GitHub, at its section for a Markdown file; None for a source that
    is no such path (a seed, a document named in words)."""
    m = _SOURCE.match(source.strip())
    if not m:
        return None
    if m.group("pr"):
        return f"https://github.com/{m.group('repo')}/pull/{m.group('pr')}"
    path = m.group("path")
    url = f"https://github.com/{m.group('repo')}/blob/{m.group('at') or m.group('at2') or 'HEAD'}/{path}"
    return url + (f"#{anchor(section)}" if section and path.endswith(".md") else "")


def pinned_url(source: str, section: str = "") -> str | None:
    """Where a citation's source is at the commit it names (a file of a repository, or of a pull request's commit),
    so that anyone can open the very text quoted; None for a source without a commit or that is no such path (a
    seed, our own file, a document named in words)."""
    m = _SOURCE.match(source.strip())
    commit = m and (m.group("at") or m.group("at2"))
    if not m or not commit:
        return None
    path = m.group("path")
    return (f"https://github.com/{m.group('repo')}/blob/{commit}/{path}"
            + (f"#{anchor(section)}" if section and path.endswith(".md") else ""))


@cache
def docs_base() -> str | None:
    """Where this project's docs/ folder is on the web: the package's Source (or Homepage) URL, when it declares one
    ([project.urls] in pyproject.toml); None when it does not, and docs/ references stay text."""
    try:
        urls = metadata("parquet-conformance").get_all("Project-URL") or []
    except PackageNotFoundError:
        return None
    by_name = {k.strip().lower(): v.strip() for k, _, v in (u.partition(",") for u in urls)}
    base = by_name.get("source") or by_name.get("homepage")
    return f"{base.rstrip('/')}/blob/HEAD/" if base and base.startswith("https://github.com/") else None


def linked(text: str) -> Markup:
    """Text with its docs/….md references made links (when docs_base() knows where they are) or code, escaped."""
    out, last = [], 0
    for m in DOCS_REF.finditer(text):
        out.append(escape(text[last:m.start()]))
        base = docs_base()
        ref = escape(m.group(0))
        out.append(Markup(f'<a href="{escape(base + m.group(0))}">{ref}</a>' if base else
                          f'<code title="in the parquet-conformance repository">{ref}</code>'))
        last = m.end()
    out.append(escape(text[last:]))
    return Markup("").join(out)


Link = Callable[[str], str]


@dataclass(frozen=True)
class Links:
    """Where the site's pages are, from the page being rendered (report.html has none)."""

    case: Link | None = None
    impl: Link | None = None


def html_text(text: str) -> str:
    """Outside text in HTML written by hand (an HTML block of summary.md): what the templates do to every value,
    `html_visible` then autoescape."""
    return str(escape(terminal(text, keep_newlines=True)))


def html_visible(value: object) -> object:
    """Every value a template outputs, before autoescape: controls, bidi overrides and line separators shown as
    escapes (kernel/escape.py `terminal`, newlines kept), in markup already made safe (Markup) too."""
    if value is None or isinstance(value, int | float):
        return value
    if isinstance(value, Markup):
        return Markup(terminal(str(value), keep_newlines=True))
    return terminal(str(value), keep_newlines=True)


class _Compiled(jinja2.FileSystemBytecodeCache):
    """jinja2's cache of compiled templates, kept in the cache folder: a folder that cannot be read or written (a
    read-only home, another user's cache) costs a compile, never a run's reports."""

    def load_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):
            super().load_bytecode(bucket)

    def dump_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def _compiled() -> jinja2.BytecodeCache | None:
    """Where compiled templates are kept; none where the cache folder cannot be made."""
    try:
        return _Compiled(str(cache_dir("templates")))
    except OSError:
        return None


def environment() -> jinja2.Environment:
    """The templates' environment. Compiled templates are kept in the cache folder (jinja2's bytecode cache, keyed by
    each template's source): compiling them again is a tenth of a second of every run's reports."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("parquet_conformance.reports", "templates"),
                             autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
                             undefined=jinja2.StrictUndefined, finalize=html_visible,
                             bytecode_cache=_compiled())
    env.globals.update(symbol=SYMBOL, css=css_class, verdicts=list(Verdict), meaning=MEANING, percent=percent,
                       plural=plural, citation_url=citation_url, expectations=EXPECTATIONS, terms=TERMS)
    env.filters["linked"] = linked
    return env



# -- skip overhead -------------------------------------------------------------------------------

ABOUT = ("Time to open and read each base with a FileMetaData extension of each size, relative to the base without "
         "one (median of the library's own time; `!`: the extra time exceeds 10x reading the extension's bytes "
         "once). Bytes read: the worker's read() calls over one read of the largest file. Measured by "
         "bench/skip_overhead.py.")


@dataclass(frozen=True)
class Line:
    """One (adapter, base): its rows by extension size (None: the base as it is)."""

    adapter: str
    version: str | None
    base: str
    by_size: dict[int | None, Overhead]

    @property
    def plain_ms(self) -> str:
        plain = self.by_size.get(None)
        return "-" if plain is None else plain.outcome if plain.seconds is None else f"{1000 * plain.seconds:.1f}"

    def ratio(self, size: int) -> str:
        r = self.by_size.get(size)
        return "-" if r is None or r.ratio is None else f"{r.ratio:.2f}x{'!' if r.flagged else ''}"

    def bytes_read(self, size: int) -> str:
        r = self.by_size.get(size)
        return "-" if r is None or r.bytes_read is None else f"{r.bytes_read / (1 << 20):.1f} MiB"


def lines(rows: list[Overhead]) -> list[Line]:
    out: dict[tuple[str, str], Line] = {}
    for r in rows:
        line = out.setdefault((r.adapter, r.base), Line(r.adapter, r.version, r.base, {}))
        line.by_size[r.size] = r
    return list(out.values())


def sizes(rows: list[Overhead]) -> list[int]:
    return sorted({r.size for r in rows if r.size is not None})


def overhead_chart_svg(rows: list[Overhead]) -> str:
    """A panel per reader: its time ratio against the extension size, a line per base."""
    import matplotlib
    from matplotlib.figure import Figure

    adapters = sorted({r.adapter for r in rows})
    cols = sizes(rows)
    ncols = min(4, len(adapters)) or 1
    nrows = max(1, -(-len(adapters) // ncols))
    with matplotlib.rc_context(chart_rc(8)):
        fig = Figure(figsize=(2.6 * ncols, 2.2 * nrows), layout="constrained")
        axes = fig.subplots(nrows, ncols, squeeze=False, sharey=True)
        for i, ax in enumerate(axes.flat):
            if i >= len(adapters):
                ax.set_visible(False)
                continue
            for ln in (ln for ln in lines(rows) if ln.adapter == adapters[i]):
                points = [(k, r.ratio) for k, s in enumerate(cols)
                          if (r := ln.by_size.get(s)) is not None and r.ratio is not None]
                ax.plot([k for k, _ in points], [y for _, y in points], marker="o", linewidth=1.2, label=ln.base)
                flags = [k for k, s in enumerate(cols) if (r := ln.by_size.get(s)) is not None and r.flagged]
                ax.plot(flags, [ln.by_size[cols[k]].ratio for k in flags], "rx", markersize=9)
            ax.axhline(1.0, color="grey", linewidth=0.6)
            ax.set_xticks(range(len(cols)), [Overhead.size_text(s) for s in cols])
            ax.set_title(adapters[i])
            ax.set_yscale("log")
            ax.grid(True, alpha=0.3)
            if i % ncols == 0:
                ax.set_ylabel("time / no extension")
            if i == 0:
                ax.legend(fontsize=7, frameon=False)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": "parquet-conformance"})
    return buf.getvalue()


