"""`parquet-conformance report --upstream NAME OUT`, the command's top: every finding of an implementation written as
a folder (app/upstream.py finds and compares them, upstream_readme.py words their READMEs,
upstream_writers.py adds the findings on written files), and the index of them all."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

from parquet_conformance.app.upstream import (
    FINDING_FILE,
    Finding,
    comparison,
    finding_data,
    findings,
    folder_name,
    locate_corpus,
    plain,
    read_line,
    resolve,
    script_judges,
)
from parquet_conformance.app.upstream_readme import index, readme
from parquet_conformance.app.upstream_writers import writer_findings, written_manifest, written_root
from parquet_conformance.conformance.adapters import Adapter, get
from parquet_conformance.conformance.adapters.reproducing import Reproducer, reproducer_of
from parquet_conformance.corpus.dist import open_corpus
from parquet_conformance.corpus.model import Manifest
from parquet_conformance.kernel.errors import UsageError
from parquet_conformance.kernel.registry import RegistryError
from parquet_conformance.reports.model import ResultsDocument
from parquet_conformance.reports.writers import entries


def write_finding(folder: Path, finding: Finding, doc: ResultsDocument, manifest: Manifest, root: Path,
                  adapter: Adapter, repro: Reproducer | None) -> None:
    case = finding.case
    base = manifest.bases.get(case.base)
    expected = None
    if base is not None and base.expected and (root / base.expected).is_file():
        canonical = json.loads((root / base.expected).read_text(encoding="utf-8"))
        if "columns" in canonical:  # a table (another track's expected data may be another shape)
            expected = (list(canonical["columns"]), [list(r) for r in canonical["rows"]])
    cmp = comparison(finding, doc, manifest, expected, repro.not_compared if repro else None)
    folder.mkdir(parents=True)
    suffix = Path(case.file).suffix
    file = f"case{suffix}"
    shutil.copyfile(root / case.file, folder / file)
    files = [file]
    if expected is not None and (cmp.columns or cmp.control or cmp.rows is not None):
        rows = [{c: plain(v) for c, v in zip(expected[0], row, strict=True)} for row in expected[1]]
        (folder / "expected.json").write_text(
            "[\n" + ",\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n]\n", encoding="utf-8")
        files.append("expected.json")
    if cmp.control and base is not None:
        shutil.copyfile(root / base.file, folder / f"base{suffix}")
        files.append(f"base{suffix}")
    (folder / FINDING_FILE).write_text(json.dumps(finding_data(finding, cmp, file, adapter, repro), indent=1,
                                                  ensure_ascii=True) + "\n", encoding="utf-8")
    files.append(FINDING_FILE)
    why_not = script_judges(finding, cmp) if repro is not None else None
    script = repro if repro is not None and why_not is None else None
    if script is not None:
        for name, text in reversed([(script.script, script.text), *script.companions.items()]):
            (folder / name).write_text(text, encoding="utf-8")
            files.insert(0, name)
    files.insert(0, "README.md")
    (folder / "README.md").write_text(readme(finding, doc, script, cmp, adapter, files, read_line(doc, finding, file),
                                             why_not), encoding="utf-8")


def reader_findings(doc: ResultsDocument, results: Path, out: Path, adapter: Adapter, repro: Reproducer | None,
                    start: int) -> list[tuple[Finding, Path]]:
    """The adapter's own failures on written files (not the writer's, not the table's), a folder per cause."""
    root = written_root(doc, results)
    if root is None or doc.writers is None:
        return []
    mine = [x.cell for x in entries(doc) if x.cell.adapter == adapter.name and x.kind == "fails"
            and x.fault in ("reader", "unclear")]
    if not mine:
        return []
    manifest = written_manifest(root)
    written_doc = replace(doc, cells=mine, diffs=doc.writers.diffs)
    written = []
    for i, finding in enumerate(findings(written_doc, manifest, adapter.name), start):
        folder = out / ("written-" + folder_name(i, finding))
        write_finding(folder, finding, written_doc, manifest, root, adapter, repro)
        written.append((finding, folder))
    return written


def write_upstream(doc: ResultsDocument, name: str, out: Path, results: Path,
                   corpus: Path | None = None) -> list[tuple[Finding, Path]]:
    """Every finding of NAME in the run as a folder of OUT (which must not hold anything yet)."""
    adapter = resolve(doc, name)
    version = next((a.version for a in doc.adapters if a.adapter == adapter), None)
    try:
        registered = get(adapter)
    except RegistryError:
        try:  # a release's row of a version matrix: NAME-VERSION
            registered = get(adapter.removesuffix(f"-{version}"))
        except RegistryError:
            raise UsageError(f"{adapter!r} is no adapter registered here (a worker of --adapter-cmd?): its "
                             "folders need its registration") from None
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out}: exists and is not an empty directory")
    root, manifest, digest = open_corpus(locate_corpus(doc.run.corpus, results, corpus))
    if doc.run.corpus_digest and digest != doc.run.corpus_digest:
        raise UsageError(f"{root}: its manifest is not the one run {doc.run.id} read (sha256 {digest[:16]}…, the "
                         f"run read {doc.run.corpus_digest[:16]}…)")
    repro = reproducer_of(registered)
    found = findings(doc, manifest, adapter)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for i, finding in enumerate(found, 1):
        folder = out / folder_name(i, finding)
        write_finding(folder, finding, doc, manifest, root, registered, repro)
        written.append((finding, folder))
    written += reader_findings(doc, results, out, registered, repro, len(written) + 1)
    writes = writer_findings(doc, results, out, adapter, len(written) + 1)
    (out / "README.md").write_text(index(doc, adapter, written, repro, writes), encoding="utf-8")
    return written
