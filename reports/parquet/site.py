"""parquet-site/: a run's evidence as apache/parquet-site's implementation-status tables, and their diff against the
hand-kept ones (a report format of the Parquet track).

- `<engine>-<version>.yaml`, one per engine and version: the layout of the site's
  `data/implementations/support/<engine>.yaml` (`engine_id`, `last_updated`, `support` of feature id -> `status`,
  `note`), statuses of the site's legend only, from reports/parquet/table.py's rule; a feature no case decides is
  left out and listed, with why, in the file's closing comments. One adapter speaks for a site engine (the one that
  calls its own reader); adapters that read through the same engine are named in its notes ("through").
- `diff.md`, `diff.json`: reports/parquet/diff.py, per engine and feature, where the site's claim for its default
  version and our evidence disagree, with the cells, the commands that reproduce them and the line of the site's file
  to edit (docs/results.md#parquet-site says how a maintainer makes a pull request of one).

Outside text (names, versions, notes built from case ids and errors) reaches the YAML only as JSON-quoted scalars
(YAML 1.2 reads every JSON string as a double-quoted scalar) and its comments only through `_comment`; the Markdown
only through reports/text.py `cell_text` (kernel/escape.py's Markdown escaper)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from parquet_conformance.kernel.documents import plain
from parquet_conformance.reports.model import ResultsDocument
from parquet_conformance.reports.parquet.diff import Entry, compare, provenance
from parquet_conformance.reports.parquet.table import Table, site_ids, tables
from parquet_conformance.reports.text import cell_text, distinct_names

KINDS = {"disagreement": "Disagreements: the site's claim for its version against our evidence for the same version",
         "change": "Changes since the site's version: a later release's status differs from the claim",
         "earlier": "Before the site's version: an earlier release's status differs from the claim",
         "unplaced": "Differences whose version we cannot place against the site's",
         "no-claim": "Statuses the site does not give (unknown there)"}


def _scalar(text: str) -> str:
    return json.dumps(text, ensure_ascii=True)


def _comment(text: str) -> str:
    """Text for a YAML comment: one line of plain characters."""
    return re.sub(r"[^A-Za-z0-9 ._/:;,()*'=+@-]", "_", text)[:400]


def _file_part(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]", "_", text)[:80] or "_"


def yaml_table(table: Table, through: list[Table], day: str, run: str) -> str:
    others = ", ".join(f"{t.adapter} ({t.implementation})" for t in through)
    lines = [f"# parquet-conformance run {_comment(run)}: {_comment(table.implementation)} "
             f"{_comment(table.version or 'version unknown')} (docs/results.md#parquet-site)",
             *([f"# through the same engine: {_comment(others)}"] if through else []),
             f"engine_id: {_scalar(table.engine)}", f"last_updated: {_scalar(day)}", "support:"]
    for s in table.judged:
        through_notes = [f"{t.adapter}: {t.get(s.feature).status or 'not judged'}" for t in through]
        note = s.note + (f"; through {', '.join(through_notes)}" if through_notes else "")
        lines += [f"  {s.feature}:", f"    status: {s.status}", f"    note: {_scalar(note)}"]
    lines.append(f"# judged: {len(table.judged)} of the site's {len(site_ids())} reader-side feature ids; not judged:")
    lines += [f"#   {s.feature}: {_comment(s.note.removeprefix('not judged: '))}" for s in table.statuses
              if s.status is None]
    return "\n".join(lines) + "\n"


def diff_markdown(doc: ResultsDocument, entries: list[Entry]) -> str:
    out = [f"# parquet-site: our evidence against apache/parquet-site's table (run {cell_text(doc.run.id)})", "",
           "The site's claim speaks for each engine's default version (its engines.yaml); docs/results.md#parquet-site "
           "says how each side is compared and how a disagreement becomes a pull request to apache/parquet-site.", ""]
    engines = list(dict.fromkeys(e.engine for e in entries))
    for engine in engines:
        mine = [e for e in entries if e.engine == engine]
        counts = Counter(e.kind for e in mine)
        versions = ", ".join(dict.fromkeys(f"{e.adapter} {e.version or '(version not placed)'}" for e in mine))
        out += [f"## {cell_text(engine)} (the site speaks for {cell_text(mine[0].site_version)})", "",
                f"Our tables: {cell_text(versions)}. Site file: {cell_text(provenance(engine))}. "
                + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) + ".", ""]
        for kind, title in KINDS.items():
            rows = [e for e in mine if e.kind == kind]
            if not rows:
                continue
            out += [f"### {title}", "", "| feature | site | ours | version | differs in | evidence | site line |",
                    "|---|---|---|---|---|---|---|"]
            for e in rows:
                evidence = "<br>".join(cell_text(f"{x.case}: {x.verdict} ({x.outcome})") for x in e.evidence[:3])
                line = f"{e.site_file}:{e.site_line}" if e.site_line else f"{e.site_file} (add it)"
                out.append(f"| `{cell_text(e.feature)}` | {cell_text(e.site)} | {cell_text(e.ours or '-')} | "
                           f"{cell_text(e.version or '?')} | {cell_text(', '.join(e.sides) or '-')} | "
                           f"{evidence or cell_text(e.note)} | {cell_text(line)} |")
            out.append("")
            if kind == "disagreement":
                for e in rows:
                    out += [f"- `{cell_text(e.feature)}`: {cell_text(e.note)}"]
                    out += [f"  - reproduce: `{x.read}`" for x in e.evidence[:3] if x.read]
                    if e.upstream:
                        out.append(f"  - upstream-ready folders: `{e.upstream}`")
                out.append("")
        unjudged = [e for e in mine if e.kind == "not-judged"]
        if unjudged:
            out += ["### Not judged", ""]
            out += [f"- `{cell_text(e.feature)}` ({cell_text(e.adapter)}): {cell_text(e.note)}" for e in unjudged]
            out.append("")
    if not engines:
        out += ["No adapter of the run speaks for an engine of the site.", ""]
    return "\n".join(out)


class ParquetSiteFormat:
    name = "parquet-site"

    def write(self, doc: ResultsDocument, out: Path) -> list[Path]:
        folder = out / "parquet-site"
        folder.mkdir(parents=True, exist_ok=True)
        day = (doc.run.started or "")[:10]
        found = tables(doc)
        speaking = [t for t in found if t.speaks]
        through: dict[str, list[Table]] = {}
        for t in found:
            if not t.speaks:
                through.setdefault(t.engine, []).append(t)
        # One file each, never one over another: an engine's speaking adapter keeps <engine>-<version>; another whose
        # name gives the same file is told apart (reports/text.py distinct_names).
        stems = distinct_names({t.adapter: f"{_file_part(t.engine)}-{_file_part(t.version or 'unknown')}"
                                for t in speaking})
        written = []
        for t in speaking:
            path = folder / f"{stems[t.adapter]}.yaml"
            path.write_text(yaml_table(t, through.get(t.engine, []), day, doc.run.id), encoding="utf-8")
            written.append(path)
        entries = compare(doc, found)
        (folder / "diff.md").write_text(diff_markdown(doc, entries), encoding="utf-8")
        (folder / "diff.json").write_text(json.dumps({"run": doc.run.id, "entries": [plain(e) for e in entries]},
                                                     indent=1, ensure_ascii=True) + "\n", encoding="utf-8")
        return [*written, folder / "diff.md", folder / "diff.json"]


FORMAT = ParquetSiteFormat()
