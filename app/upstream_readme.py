"""The READMEs of `report --upstream` (app/upstream.py): a finding's README.md, which a vendor pastes into
an issue, and OUT/README.md, the list of findings.

Markdown is a sink: every text from outside (a title, an implementation's name and version, an error, a value, a
column name, a quoted sentence) reaches it through kernel/escape.py `markdown`, so that it shows as text and nothing
in it becomes a link, an image, a heading or HTML. Commands are ours, with names that pass upstream.SAFE_WORD.

A README quotes only sentences anyone can open at the commit quoted (a repository's file: reports/text.py
pinned_url); where no such sentence requires what the case expects, it says that the expectation is
parquet-conformance's own reading, and gives that reading (its section of our docs, linked where the package
declares where its docs are published). It explains the words it uses, and says when its script cannot judge."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import parquet_conformance.kernel as kernel
from parquet_conformance.app.upstream import Comparison, Finding, safe_word, shown
from parquet_conformance.conformance.adapters import Adapter
from parquet_conformance.conformance.adapters.reproducing import Reproducer, reproducer_of
from parquet_conformance.conformance.harness.model import Cell, Verdict
from parquet_conformance.corpus.model import OWN_RULES, Citation, Expectation, Kind, Level
from parquet_conformance.kernel.escape import markdown
from parquet_conformance.reports.model import ResultsDocument
from parquet_conformance.reports.text import (
    AT_THE_LIMIT,
    MEANING,
    anchor,
    docs_base,
    failure_text,
    pinned_url,
    shorten,
)

KIND_WORDS = {
    Kind.GOLDEN: "a valid file: parquet-conformance's strict decoder accepts it (the suite calls such files golden)",
    Kind.NONCONFORMING: "a file whose footer decodes but breaks a rule of the spec (nonconforming)",
    Kind.CORRUPT: "a damaged file: its footer or pages do not decode (corrupt)",
    Kind.REGRESSION: "a file found in the wild that once broke a reader (a regression case)",
}
EXPECT_WORDS = {
    Expectation.READ: "read the file and return exactly the data in `expected.json`",
    Expectation.REJECT: "refuse the file with an error it raises on purpose",
    Expectation.EITHER: "either read exactly the data in `expected.json` or refuse the file with an error; never "
                        "return other data",
}
# Where no expected.json goes with the folder (the case states no data: a file found by fuzzing, a type no reference
# reader decodes), the words name no file the folder does not have.
UNSTATED_WORDS = {
    Expectation.READ: "read the file and return its data (the case states no data to compare: any it returns counts)",
    Expectation.REJECT: EXPECT_WORDS[Expectation.REJECT],
    Expectation.EITHER: "either read the file or refuse it with an error (the case states no data to compare)",
}
ANY_EXPECTATION = (Verdict.CRASH, Verdict.UNHANDLED, Verdict.HANG)
# The expectation's force in words (Level.phrase), before what it asks: a README never says "must" for a should.
LEAD = {Level.MUST: "The spec requires that it {}.",
        Level.SHOULD: "The spec recommends (it does not require) that it {}.",
        Level.POLICY: "No sentence of the released or main-line spec requires it: by this suite's reading it "
                      "should {}."}
WHY = {Level.MUST: "The spec requires this", Level.SHOULD: "The spec recommends this (it does not require it)",
       Level.POLICY: "This is this suite's reading"}
CONFIRMED = ("confirmed: the run read the file again in a fresh process of the reader, which had read nothing else "
             "before, and saw the same")
# Our own docs a README names, and what each says (where the package says where its docs are, a link to it).
TAXONOMY = "docs/adapters.md#error-taxonomy"
REPRESENTATION = "docs/adapters.md#representation-limits"
EXPECTATIONS = "docs/spec-notes.md#expectations"
BASELINE = "docs/spec-notes.md#baseline"
DOCS_REF = re.compile(r"\bdocs/[\w.-]+\.md(?:#[\w-]+)?")


def e(text: object) -> str:
    return markdown(str(text))


# -- our docs -----------------------------------------------------------------------------------


@cache
def doc_excerpt(ref: str) -> str:
    """The first paragraph of a section of our docs (`docs/spec-notes.md#baseline`), read from the source tree where
    it is there (an installed wheel has no docs/: then nothing)."""
    path, _, fragment = ref.partition("#")
    file = Path(kernel.__file__).resolve().parents[1] / path
    if not file.is_file():
        return ""
    lines = file.read_text(encoding="utf-8").splitlines()
    starts = [i for i, ln in enumerate(lines) if ln.startswith("#") and (not fragment or anchor(ln.lstrip("#")) ==
                                                                          fragment)]
    if not starts:
        return ""
    paragraph: list[str] = []
    for ln in lines[starts[0] + 1:]:
        if ln.startswith("#") or (not ln.strip() and paragraph):
            break
        if ln.strip():
            paragraph.append(ln.strip())
    return shorten(re.sub(r"<a id=[^>]*></a>", "", " ".join(paragraph)), 700)


def doc_ref(ref: str) -> str:
    """A reference to our docs: a link where the package says where they are published, else its path, named as
    parquet-conformance's."""
    base = docs_base()
    label = f"parquet-conformance's {ref}"
    return f"[{e(label)}]({base}{ref})" if base else e(label)


def our_reading(ref: str) -> list[str]:
    """Our reading, quoted from its section of our docs, with the reference."""
    text = doc_excerpt(ref)
    return ([f"> {e(text)}", ">", f"> — {doc_ref(ref)}", ""] if text else [f"See {doc_ref(ref)}.", ""])


def with_doc_refs(text: str) -> str:
    """Text (escaped) in which docs/… references are named as ours (and linked where the docs are published)."""
    out, last = [], 0
    for m in DOCS_REF.finditer(text):
        out += [e(text[last:m.start()]), doc_ref(m.group(0))]
        last = m.end()
    return "".join([*out, e(text[last:])])


# -- citations ----------------------------------------------------------------------------------


# What a link may point at: a file of a GitHub repository at a commit (nothing a Markdown link destination would
# end at, or a renderer would read as another scheme).
SAFE_URL = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/blob/[0-9a-f]{7,40}/[\w./+-]+(#[\w-]+)?")


def links(c: Citation) -> list[str]:
    """The URLs of a citation's sources at the commits it names (a source may name several, `; ` apart)."""
    return [u for part in c.source.split("; ") if (u := pinned_url(part, c.section)) and SAFE_URL.fullmatch(u)]


def quote(c: Citation, urls: list[str], requires: str) -> list[str]:
    out = [f"> {e(line)}" for line in c.quote.split(" / ")]
    where = ", ".join(f"[{e(c.source)}]({u})" if len(urls) == 1 else f"<{u}>" for u in urls)
    return [*out, ">", f"> — {where}, section {e(c.section)}" + (f"; {requires}" if requires else ""), ""]


def requirement(finding_verdict: Verdict, on_base: bool, role: str, expected: Expectation, level: Level,
                citations: list[Citation], notes: str, stated: bool = True) -> list[str]:
    """Why the reader is expected to do what the case expects, at the force it is expected (Level.phrase): the
    sentences anyone can open, each with its force, and this suite's own rules quoted from our docs. `stated`: the
    folder has expected.json."""
    quotable = [(c, links(c)) for c in citations]
    quotable = [(c, u) for c, u in quotable if u]
    requiring = [(c, u) for c, u in quotable if role in c.requires]
    own = [c for c in citations if role in c.requires and c.source == OWN_RULES]
    out: list[str] = []
    if finding_verdict in ANY_EXPECTATION:
        out += ["Whatever a case expects, a reader must not crash, hang or lose control (raise an error it does not "
                "raise on purpose, by its own declared refusals: " + doc_ref(TAXONOMY) + "). That is "
                "parquet-conformance's rule for every file, its own reading rather than a sentence of the spec:", ""]
        out += our_reading(TAXONOMY)
    if on_base:
        out += ["The file is one of the corpus's unmodified bases: a valid file, which every reader must read. The "
                "data it must return is the values the file holds, by the spec's types and logical types"
                + ("; `expected.json` is that data as our strict reference reader decodes it" if stated else "")
                + ". This is parquet-conformance's own reading:", ""]
        out += our_reading(BASELINE)
        out += ["A difference on such a file may be a way the library chose to represent a value (a NaN for a null "
                "float where pandas has no null float, say) rather than a bug: whether it is one is yours to say. "
                f"{doc_ref(REPRESENTATION)} lists those we know.", ""]
    elif requiring or own:
        out += [f"{WHY[level]}: the sentence{'s' if len(requiring) + len(own) > 1 else ''} behind a "
                f"`{role}` reader's expectation to "
                f"{(EXPECT_WORDS if stated else UNSTATED_WORDS)[expected].split(' and ')[0]}, each with its force:",
                ""]
        for c, u in requiring:
            out += quote(c, u, f"its force: {c.level}" + (" (a proposal: no more than this suite's reading)"
                                                          if c.level == Level.POLICY else ""))
        for c in own:
            out += our_reading(f"docs/spec-notes.md{c.section}")
    elif finding_verdict not in ANY_EXPECTATION:
        out += ["No sentence of the spec states this expectation word for word: it is parquet-conformance's own "
                "reading of the spec" + (f", as the case says: {with_doc_refs(notes)}" if notes else "."), ""]
        refs = DOCS_REF.findall(notes)
        out += our_reading(refs[0] if refs else EXPECTATIONS)
    context = [(c, u) for c, u in quotable if (c, u) not in requiring or on_base]
    if context:
        out += ["The case also rests on:" if not on_base else "The case cites, for what the file is:", ""]
        for c, u in context:
            out += quote(c, u, "")
    return out


# -- what the run saw ---------------------------------------------------------------------------


def observed(finding: Finding, doc: ResultsDocument) -> list[str]:
    """What the run saw, one escaped line each."""
    cell = finding.cell
    diff = doc.diff_of(cell)
    if cell.verdict == Verdict.WRONG_DATA and diff is not None:
        lines = [f"returned {diff.returned_rows} rows"
                 + (f" (expected {diff.expected_rows})" if diff.expected_rows is not None else "")
                 + (f"; columns that differ: {', '.join(diff.differing_columns)}" if diff.differing_columns else "")]
        for r in diff.rows[:5]:
            if r.expected:
                lines += [f"row {r.row}, column {c}: expected {shown(w)}, returned {shown(g)}"
                          for c, w, g in zip(r.columns, r.expected, r.returned, strict=True)]
        return [e(line) for line in lines]
    if cell.verdict in (Verdict.WRONG_DATA, Verdict.ACCEPTED_INVALID):
        return [e(f"returned data ({cell.rows} rows)")]
    if cell.verdict in (Verdict.CRASH, Verdict.HANG):
        lines = [failure_text(cell)]
        lines += [ln for ln in (cell.error_message or "").splitlines()[1:12] if ln.strip()]
        return [e(line) for line in lines]
    error = ": ".join(p for p in (cell.error_class, (cell.error_message or "").strip()) if p)
    lines = error.splitlines()[:12] or [str(cell.outcome)]
    return [e(("raised " if i == 0 else "") + line) for i, line in enumerate(lines)]


# -- the README ---------------------------------------------------------------------------------


def readme(finding: Finding, doc: ResultsDocument, script: Reproducer | None, cmp: Comparison, adapter: Adapter,
           files: list[str], read_line: str, why_not: str | None) -> str:
    cell, case = finding.cell, finding.case
    version = cell.version or "unknown"
    summary = next((c for c in doc.cases if c.id == case.id), None)
    citations = summary.citations if summary else case.citations
    file = next(f for f in files if f.startswith("case."))
    stated = "expected.json" in files  # the data a read must return goes with the folder
    role_words = doc.roles.get(cell.role, "")
    lines = [f"# {e(cell.implementation)} {e(version)}: {e(case.title)}", "",
             f"parquet-conformance found this: **{e(cell.verdict.value)}**: {e(MEANING.get(cell.verdict, ''))}. "
             f"The file is `{file}` (case {e(case.id)}, {KIND_WORDS.get(case.kind, e(case.kind.value))}); the "
             f"failure was {CONFIRMED}."
             + (f" {len(finding.others)} other cases fail the same way (listed below)." if finding.others else ""),
             "", "## What the reader is expected to do", "",
             f"Read as a `{e(cell.role)}` reader ({e(role_words)}): "
             + LEAD[cell.level].format((EXPECT_WORDS if stated else UNSTATED_WORDS)[cell.expected])
             + f" (level `{cell.level}`)"
             + (" Whatever a case expects, it must not crash, hang or lose control: parquet-conformance's rule for "
                "every file." if cell.verdict in ANY_EXPECTATION else ""), "",
             "## What it did", ""]
    lines += [f"- {line}" for line in observed(finding, doc)]
    lines += ["", f"## Why: {cell.level.phrase}", ""]
    lines += requirement(cell.verdict, finding.on_base, cell.role, cell.expected, cell.level, citations, case.notes,
                         stated)
    if case.notes and not finding.on_base:
        lines += ["About the case: " + with_doc_refs(case.notes), ""]
    lines += ["## Reproduce", ""]
    lines += reproduce(finding, script, cmp, adapter, version, read_line, why_not, file)
    lines += ["## Versions", "",
              f"- {e(cell.implementation)} {e(version)}" + (f" (engine: {e(adapter.engine)})" if adapter.engine else "")
              + f", through the `{safe_word(cell.adapter, 'adapter')}` adapter of parquet-conformance",
              f"- found by parquet-conformance {e(doc.run.generator_version)}, run {e(doc.run.id)}, corpus seed "
              f"{e(doc.run.seed)} (manifest sha256 {e(doc.run.corpus_digest[:16])}…); the file's sha256 is "
              f"{e(case.sha256)}", "", "## Files", ""]
    lines += [f"- `{f}`: {FILE_WORDS.get(f.split('.')[0] if f != 'README.md' else f, '')}".rstrip(": ")
              for f in files]
    if finding.others:
        lines += ["", f"## The same failure in {len(finding.others)} other cases", "",
                  f"Cause: {e(finding.cause)}", ""]
        lines += [f"- {e(c)}" for c in finding.others[:40]] + (["- …"] if len(finding.others) > 40 else [])
    lines += ["", "## Words used here", ""]
    lines += [f"- **{w}**: {text}" for w, text in words(cell.role, role_words, cell.verdict)]
    return "\n".join(lines).replace("\n\n\n", "\n\n") + "\n"


FILE_WORDS = {"README.md": "this page", "case": "the file that shows the failure",
              "expected": "the data a reader must return, as plain JSON values, one row a line",
              "base": "the file the case was made from, unmodified: the control",
              "finding": "this finding as data (what the script reads: the expectation, the columns it compares, the "
                         "time limit, how the library refuses a file on purpose)",
              "repro": "the script", "Repro": "the program (it checks the classpath, then runs ReproRead.java)",
              "ReproRead": "the program that reads the file with parquet-java"}


def reproduce(finding: Finding, script: Reproducer | None, cmp: Comparison, adapter: Adapter, version: str,
              read_line: str, why_not: str | None, file: str) -> list[str]:
    cell = finding.cell
    timeout_s = int(adapter.timeout_s)
    out: list[str] = []
    if script is not None:
        install = script.install.format(version=safe_word(cell.version, "VERSION"))
        out += ["```", install, script.run, "```", "",
                f"`{script.script}` ({script.language}) reads `{file}` with the library's own public API and imports "
                "nothing of parquet-conformance; what it compares comes from `finding.json`. Exit **0**: the reader "
                "does what the spec requires (the bug is fixed); **1**: the failure reproduces"
                + {Verdict.CRASH: " (or the process dies of it)",
                   Verdict.HANG: f" (a hang: it stops the reader after {timeout_s} s)"}.get(cell.verdict, "")
                + "; **2**: the script cannot judge (a module, a jar or the runtime it needs is missing here, and "
                "it says what to install; or it could not turn what the reader returned into plain values).", ""]
        if cmp.columns:
            out += [f"It compares the row count and the columns {e(', '.join(cmp.columns))} with `expected.json`."
                    + (f" ({e(cmp.note)})" if cmp.note else ""), ""]
        for column, why in cmp.not_compared.items():
            out += [f"It cannot judge the column {e(column)}: {e(why)}.", ""]
        if cmp.control:
            out += [f"`base{Path(file).suffix}` is the file the case was made from, which {e(cell.adapter)} reads as "
                    f"expected: `{script.run} base{Path(file).suffix}` exits 0.", ""]
        out += under_the_limit(cell, adapter, f"`{script.run}`", script.run)
    else:
        if why_not:
            out += [f"No script: {e(why_not)}.", ""]
        elif reproducer_of(adapter) is None:
            out += [f"No script in {e(cell.implementation)}'s own API yet. parquet-conformance reproduces it:", ""]
        out += ["```", f"pip install parquet-conformance=={safe_word(finding_version(), 'VERSION')}", read_line, "```",
                "", "It prints the reader's outcome and the verdict (add `--json` for the whole answer).", ""]
        out += under_the_limit(cell, adapter, "`parquet-conformance read`", None)
    return out


def under_the_limit(cell: Cell, adapter: Adapter, what: str, run: str | None) -> list[str]:
    """For a crash at the harness's address-space limit (conformance/harness/transport.py names it): that the run read
    the file under it, what the reproduction does, and how to read under the same limit."""
    found = AT_THE_LIMIT.search(cell.error_class or "")
    limit = adapter.memory_limit_bytes
    if found is None or not limit:
        return []
    out = [f"The run read the file under the {found.group(1)} address-space limit parquet-conformance sets on each "
           "reader's process, and the kernel refused the reader an allocation there: that ended it. Without the "
           "limit, the same file may crash it otherwise (a segmentation fault) or make it take far more memory."]
    if run is None:
        return [*out, f"{what} reads it under the same limit, as the run did.", ""]
    return [*out, f"{what} runs without a limit; to read the file as the run did, give it the same limit (in KiB):", "",
            "```", f"(ulimit -v {limit // 1024}; {run})", "```", ""]


def finding_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("parquet-conformance")
    except PackageNotFoundError:
        return "VERSION"


def words(role: str, role_words: str, verdict: Verdict) -> list[tuple[str, str]]:
    return [("case", "one file of parquet-conformance's corpus, with a statement of what a reader must do with it "
                     "(read it, refuse it, or either)"),
            ("role", f"what a reader is judged as; {e(role)}: {e(role_words)}"),
            ("verdict", f"{e(verdict.value)}: {e(MEANING.get(verdict, ''))}"),
            ("confirmed", CONFIRMED),
            ("refusal on purpose", "an error the library raises when it refuses a file, by its declared error "
                                   f"classes or messages ({doc_ref(TAXONOMY)}); any other error is an unhandled "
                                   "error: the library lost control and its runtime caught it"),
            ("strict decoder", "parquet-conformance's own decoder of the footer and pages, which checks every rule of "
                               "the spec it knows: what decides whether a case's file is valid")]


def index(doc: ResultsDocument, adapter: str, written: list[tuple[Finding, Path]], repro: Reproducer | None,
          writes: list[tuple[str, Path]] | None = None) -> str:
    lines = [f"# {e(adapter)}: {len(written)} findings of run {e(doc.run.id)}", "",
             "One folder per cause of a confirmed failure: its smallest file, the expected data, a README that says "
             "what the reader must do and why, and "
             + ("a script in the library's own API (exit 0: fixed, 1: reproduces, 2: cannot judge)."
                if repro else "the `parquet-conformance read` line that reproduces it (no script in the library's "
                              "own API yet)."), "",
             "| folder | verdict | case | other cases | cause |", "|---|---|---|---|---|"]
    for f, folder in written:
        lines.append(f"| [{folder.name}]({folder.name}/README.md) | {e(f.verdict.value)} | {e(f.case.id)} | "
                     f"{len(f.others)} | {e(f.cause)} |")
    if writes:
        lines += ["", f"## As a writer: {len(writes)} causes (`run --writers`)", "", "| folder | cause |", "|---|---|"]
        lines += [f"| [{folder.name}]({folder.name}/README.md) | {e(why)} |" for why, folder in writes]
    return "\n".join(lines) + "\n"
