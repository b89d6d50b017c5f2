"""`report --upstream NAME` for a run with the writer x reader matrix (`run --writers`): NAME's failures as a writer
and the written corpus its failures as a reader come from (app/upstream_folders.py writes those as it
writes the main corpus's: its failures on written files that are its own, reports/writers.py `fault`).

- As a writer: each failing write (a file that breaks a rule of the spec, data other than it was given, a crash,
  an unhandled error, a hang) grouped by cause (the rules broken, or the error's signature), a folder with the file it
  wrote (where it wrote one), the rules with the sentences they break, and the `parquet-conformance inspect` line
  that shows them. No script: the finding is about bytes our strict decoder reads, not about a library's read.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from parquet_conformance.app.upstream import FINDING_FILE
from parquet_conformance.app.upstream_readme import e, links, quote
from parquet_conformance.conformance.harness.judge import error_text, normalise
from parquet_conformance.conformance.harness.model import WriterCell, WriterVerdict
from parquet_conformance.corpus.dist import MAX_MANIFEST
from parquet_conformance.corpus.model import Manifest
from parquet_conformance.kernel import documents
from parquet_conformance.kernel.errors import UsageError
from parquet_conformance.reports.model import ResultsDocument
from parquet_conformance.reports.text import file_name


def written_root(doc: ResultsDocument, results: Path) -> Path | None:
    """The run's written corpus: its recorded folder, relative to the run's output folder (the results' parent)."""
    if doc.writers is None:
        return None
    path = Path(doc.writers.corpus)
    path = path if path.is_absolute() else results.resolve().parent / path
    return path if (path / "manifest.json").is_file() else None


def written_manifest(root: Path) -> Manifest:
    """The written corpus's manifest, read bounded and without following a link, and made records. Not checked against
    the manifest schema: its bases are named WRITER/PROFILE/TABLE, which the schema's name pattern refuses (so a
    resumed `run --writers` cannot read it back either: corpus/written.py and the schema disagree)."""
    try:
        text = documents.read_bytes(root / "manifest.json", MAX_MANIFEST, links=False)
        return Manifest.from_json(json.loads(text))
    except (documents.DocumentError, ValueError, KeyError, TypeError) as e:
        raise UsageError(f"{root}/manifest.json: not a written corpus's manifest ({type(e).__name__}: {e})") from None


def cause(w: WriterCell) -> str:
    if w.verdict == WriterVerdict.NONCONFORMING:
        return "breaks " + ", ".join(sorted({f.rule for f in w.findings}))
    if w.verdict == WriterVerdict.WRONG_DATA:
        return "writes other data than it was given"
    return normalise(error_text(w.error_class, w.error_message, w.outcome))


def writer_findings(doc: ResultsDocument, results: Path, out: Path, name: str, start: int) -> list[tuple[str, Path]]:
    """The adapter's failing writes, a folder per cause with the smallest file it wrote."""
    if doc.writers is None:
        return []
    root = written_root(doc, results)
    failing = [w for w in doc.writers.writers if w.writer == name and w.verdict.is_failure]
    groups: dict[str, list[WriterCell]] = {}
    for w in failing:
        groups.setdefault(f"{w.verdict}: {cause(w)}", []).append(w)
    out_folders = []
    for i, (why, writes) in enumerate(sorted(groups.items()), start):
        writes = sorted(writes, key=lambda w: (w.size or 0, w.profile, w.table))
        first = writes[0]
        folder = out / f"{i:02d}-writer-{file_name(first.verdict.value.removeprefix('fail:'))}-" \
                       f"{file_name(first.profile)}-{file_name(first.table)}"
        folder.mkdir(parents=True)
        files = ["README.md"]
        source = root / doc.writers.files[first.cases[0]] if root is not None and first.cases else None
        if source is not None and source.is_file():
            shutil.copyfile(source, folder / "written.parquet")
            files.append("written.parquet")
        (folder / FINDING_FILE).write_text(json.dumps({"format": "parquet-conformance writer finding 1",
                                                       "cause": why, "writes": [w.to_json() for w in writes]},
                                                      indent=1, ensure_ascii=True) + "\n", encoding="utf-8")
        files.append(FINDING_FILE)
        (folder / "README.md").write_text(writer_readme(first, writes[1:], why, doc, files), encoding="utf-8")
        out_folders.append((why, folder))
    return out_folders


def writer_readme(w: WriterCell, others: list[WriterCell], why: str, doc: ResultsDocument, files: list[str]) -> str:
    lines = [f"# {e(w.implementation)} {e(w.version or 'unknown')} as a writer: {e(why)}", "",
             f"Asked to write the table {e(w.table)} with the profile {e(w.profile)}"
             + (f" (the columns it takes: {e(', '.join(w.columns))})" if w.columns else "")
             + f", it gave **{e(w.verdict.value)}**.", "", "## What parquet-conformance found", ""]
    if w.verdict == WriterVerdict.NONCONFORMING:
        lines += ["Our strict decoder (parquet-conformance's own decoder of the footer and pages, which checks every "
                  "rule of the spec it knows) finds the file breaks these rules:", ""]
        for f in w.findings[:12]:
            lines += [f"- {e(f.rule)} at {e(f.path)}: {e(f.message)}", ""]
            urls = links(f.citation)
            lines += quote(f.citation, urls, "") if urls else [
                f"  (the rule is parquet-conformance's reading: {e(f.citation.source)}, {e(f.citation.section)})", ""]
    elif w.verdict == WriterVerdict.WRONG_DATA:
        lines += [f"The file is valid, but its data read back is not the table it was given, in the columns "
                  f"{e(', '.join(w.differing))} (read back by {e(w.read_by or 'our reference reader')}).", ""]
    else:
        lines += [f"The write raised or died: {e(error_text(w.error_class, w.error_message, w.outcome))}.", ""]
    lines += ["## Reproduce", "", "```", "pip install parquet-conformance",
              "parquet-conformance inspect --strict written.parquet   # the rules the file breaks, one per finding",
              "```", "", "`written.parquet` is the file the writer wrote (when it wrote one); `finding.json` holds "
              "every write of this cause as data.", "",
              "## Versions", "", f"- {e(w.implementation)} {e(w.version or 'unknown')}; the file's created_by: "
              f"{e(w.created_by or '-')}", f"- found by parquet-conformance {e(doc.run.generator_version)}, run "
              f"{e(doc.run.id)}", "", "## Files", ""] + [f"- `{f}`" for f in files]
    if others:
        lines += ["", f"## The same in {len(others)} other writes", ""]
        lines += [f"- {e(o.profile)} / {e(o.table)}" for o in others[:40]]
    return "\n".join(lines) + "\n"
