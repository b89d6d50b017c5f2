"""The tables of docs/spec-notes.md that state levels, drawn from the catalogs (one source: the manifest carries the
same levels, derived by corpus/model.py expectation_levels). `python -m tests.spec_tables --write` rewrites them between
their markers; tests/test_levels.py fails where the file and the catalogs disagree.

- `levels-by-family`: per family, its expectations at each level and the sentences that require them;
- `evolution`: per case of `evolution/*`, its expectation, level and the sentence that requires it;
- in docs/manifest.md, `features`: each apache/parquet-site feature id and the cases that isolate it.
"""

from __future__ import annotations

import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

from parquet_conformance.corpus import regression_store
from parquet_conformance.corpus.model import LEVELS, OWN_RULES, Citation, Expectation, Level
from parquet_conformance.corpus.parquet.catalog import all_cases as parquet_cases
from parquet_conformance.corpus.skiff.catalog import all_cases as skiff_cases

SPEC_NOTES = Path(__file__).resolve().parent.parent / "docs" / "spec-notes.md"
OWN = OWN_RULES


def short(c: Citation) -> str:
    """A requiring sentence in a few words: where it is."""
    if c.source == OWN:
        return f"our rule ({c.section})"
    source = re.sub(r"^(apache/parquet-format|apache/thrift) ", "", c.source)
    source = re.sub(r" \([0-9a-f]{7,40}\)$", "", source)
    source = re.sub(r" \(.*?\)$", "", source)
    return f"{source}, {c.section}"


def rows() -> list[tuple[str, str, dict[str, Expectation], dict[str, Level], list[Citation]]]:
    """(family, id, expectations, levels, citations) of every default case (no --large), the regression store too."""
    out = []
    for c in (*parquet_cases(), *skiff_cases()):
        if c.large:
            continue
        parts = c.id.split("/")
        family = "/".join(parts[:2]) if parts[0] == "skiff" else parts[0]
        out.append((family, c.id, dict(c.expect), {r: c.level(r) for r in c.expect}, list(c.citations)))
    for e, _ in regression_store.case_entries(regression_store.load()):
        out.append(("regression", e.id, dict(e.expect), dict(e.levels), list(e.citations)))
    return out


def levels_by_family() -> str:
    counts: dict[str, Counter[Level]] = defaultdict(Counter)
    cases: Counter[str] = Counter()
    grounds: dict[str, Counter[str]] = defaultdict(Counter)
    for family, _, expect, levels, cites in rows():
        cases[family] += 1
        for role in expect:
            counts[family][levels[role]] += 1
            req = [c for c in cites if role in c.requires]
            strongest = min(req, key=lambda c: LEVELS.index(c.level or Level.POLICY)) if req else None
            grounds[family][f"{short(strongest)} ({strongest.level})" if strongest else
                            f"no requiring sentence: {expect[role]} (policy)"] += 1
    lines = ["| family | cases | must | should | policy | what the levels rest on (expectations) |",
             "|---|---:|---:|---:|---:|---|"]
    total: Counter[Level] = Counter()
    for family in sorted(counts):
        total.update(counts[family])
        why = "; ".join(f"{g}: {n}" for g, n in grounds[family].most_common())
        lines.append(f"| {family} | {cases[family]} | " + " | ".join(str(counts[family][lv] or "") for lv in LEVELS)
                     + f" | {why} |")
    lines.append(f"| all | {sum(cases.values())} | " + " | ".join(str(total[lv]) for lv in LEVELS) + " | |")
    return "\n".join(lines)


def evolution() -> str:
    lines = ["| case | expectation | level | the sentence that requires it |", "|---|---|---|---|"]
    for _, cid, expect, levels, cites in rows():
        if not cid.startswith("evolution/"):
            continue
        for role, word in expect.items():
            req = [c for c in cites if role in c.requires]
            strongest = min(req, key=lambda c: LEVELS.index(c.level or Level.POLICY)) if req else None
            ground = (f"{short(strongest)}: \"{strongest.quote[:110]}{'…' if len(strongest.quote) > 110 else ''}\""
                      if strongest else "none: `either` asks only the floor")
            lines.append(f"| `{cid.removeprefix('evolution/')}` | `{word}` | {levels[role]} | {ground} |")
    return "\n".join(lines)


def features() -> str:
    """docs/manifest.md#features: each apache/parquet-site feature id (the committed data, corpus/parquet/site.py),
    in the site's order, with the cases that isolate it (corpus/parquet/catalog/features.py isolating), how each
    speaks for it and who wrote its file, or why it is left out."""
    from parquet_conformance.corpus.parquet.catalog.features import LEFT_OUT, isolating
    from parquet_conformance.corpus.parquet.site import site_data

    site = site_data()
    by_feature: dict[str, list[str]] = defaultdict(list)
    for i in isolating():
        by_feature[i.feature].append(f"`{i.case}` ({i.how}; {i.writer})")
    extra = {"encoding-alp": "encodings", "encoding-pfor": "encodings", "logical-file": "logical-types"}
    order = [(f.id, f.category) for f in site.features] + list(extra.items())
    lines = ["| feature id | category | cases (how they speak for it; who wrote the file) |", "|---|---|---|"]
    for fid, category in order:
        cases = "; ".join([*by_feature.get(fid, []), *([f"left out: {LEFT_OUT[fid]}"] if fid in LEFT_OUT else [])])
        lines.append(f"| `{fid}` | {category} | {cases} |")
    return "\n".join(lines)


TABLES = {"levels-by-family": levels_by_family, "evolution": evolution}
MANIFEST = SPEC_NOTES.parent / "manifest.md"
MANIFEST_TABLES = {"features": features}  # docs/manifest.md's tables


def block(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- table:{name} -->\n)(.*?)(\n<!-- /table:{name} -->)", re.S)


def current(text: str, name: str) -> str | None:
    m = block(name).search(text)
    return m.group(2) if m else None


def write() -> None:
    for path, tables in ((SPEC_NOTES, TABLES), (MANIFEST, MANIFEST_TABLES)):
        text = path.read_text()
        for name, make in tables.items():
            if current(text, name) is None:
                raise SystemExit(f"docs/{path.name} has no <!-- table:{name} --> block")
            table = make()
            text = block(name).sub(lambda m, t=table: m.group(1) + t + m.group(3), text)
        path.write_text(text)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python -m tests.spec_tables --write")
    write()
    print(f"rewrote {', '.join(TABLES)} in {SPEC_NOTES} and {', '.join(MANIFEST_TABLES)} in {MANIFEST}")
