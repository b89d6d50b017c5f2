"""Every expectation that claims something of a reader rests on a sentence that requires it
(docs/spec-notes.md#expectations, #levels): each `read` and each `reject`, of every role, cites a sentence marked as
requiring it (Citation.requires), in every track's catalog and in the stored regression cases; where the spec has no
such sentence, the sentence is one of this suite's own rules, quoted verbatim from docs/spec-notes.md at its anchor.

The requiring sentences are listed once in tests/requirements.json (the ledger), each with the text it was checked
against: a seed of shared/seeds/ or an upstream file at a commit, and that text's sha256. CI runs on a clean clone,
which has neither, so there the ledger is what is checked: a sentence changed or added in a catalog and not checked
again fails. Where the texts are reachable the ledger itself is checked against them: the seeds in
$PARQUET_CONFORMANCE_SEEDS (default: shared/seeds beside the repository), apache/parquet-format and apache/thrift
in git repositories named by $PARQUET_FORMAT_GIT and $THRIFT_GIT. Every other seed quote is checked against its seed
there too. `python -m tests.test_expectation_audit --write` rewrites the ledger (all texts must be reachable).

A quote matches its text when each of its fragments (split at " ... ", an elision, and " / ", a line break in a
layout or list) appears in the text with runs of white space as one space, Markdown's `\\_` as `_` and, in a
.thrift file, the comment markers at line starts removed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from parquet_conformance.corpus import regression_store
from parquet_conformance.corpus.model import OWN_RULES, Citation, Expectation
from parquet_conformance.corpus.parquet.catalog import all_cases as parquet_cases
from parquet_conformance.corpus.skiff.catalog import all_cases as skiff_cases

REPO = Path(__file__).resolve().parent.parent
LEDGER = Path(__file__).parent / "requirements.json"
SEEDS = Path(os.environ.get("PARQUET_CONFORMANCE_SEEDS", REPO.parent / "shared" / "seeds"))
GIT = {"apache/parquet-format": os.environ.get("PARQUET_FORMAT_GIT"), "apache/thrift": os.environ.get("THRIFT_GIT")}
UPSTREAM = re.compile(r"(apache/parquet-format|apache/thrift)(?: PR #\d+)? (\S+) \(([0-9a-f]{7,40})\)")
PATHS = {"parquet.thrift": "src/main/thrift/parquet.thrift"}


def cases() -> Iterator[tuple[str, dict[str, Expectation], list[Citation]]]:
    """(id, expectations, citations) of every case a catalog or the regression store defines."""
    for c in (*parquet_cases(), *skiff_cases()):
        yield c.id, dict(c.expect), list(c.citations)
    for e in regression_store.load():
        yield e["id"], {r: Expectation(w) for r, w in e["expect"].items()}, [Citation.from_json(c) for c in
                                                                             e["citations"]]


def claims(expect: dict[str, Expectation]) -> set[str]:
    """The roles whose expectation asks something of a reader: every `read` and `reject` (an `either` asks only the
    floor, which holds at every level: it is this suite's reading, `policy`, unless a sentence requires it)."""
    return {role for role, word in expect.items() if word in (Expectation.READ, Expectation.REJECT)}


def key(c: Citation) -> tuple[str, str, str]:
    return c.source, c.section, c.quote


OWN = OWN_RULES  # this suite's own rules: checked against the file itself, not the ledger


def requiring_sentences() -> dict[tuple[str, str, str], Citation]:
    return {key(c): c for _, _, cites in cases() for c in cites if c.requires and c.source != OWN}


def test_every_reject_and_aware_read_cites_a_sentence_that_requires_it() -> None:
    missing = [f"{case_id} ({role}: {expect[role]})" for case_id, expect, cites in cases()
               for role in sorted(claims(expect)) if not any(role in c.requires for c in cites)]
    assert not missing, f"{len(missing)} expectations rest on no requiring sentence, e.g. {missing[:5]}"


def test_a_sentence_requires_only_what_the_case_claims() -> None:
    """`requires` marks the sentence behind a read or a reject, nothing else (an `either` needs none): a marker
    elsewhere would say a sentence requires what it does not."""
    stray = [f"{case_id}: {c.quote[:50]!r} requires {role} ({expect.get(role)})" for case_id, expect, cites in cases()
             for c in cites for role in c.requires if role not in claims(expect)]
    assert not stray, stray[:5]


def test_every_requiring_sentence_is_in_the_ledger_as_checked() -> None:
    ledger = {(e["source"], e["section"], e["quote"]) for e in json.loads(LEDGER.read_text())}
    used = set(requiring_sentences())
    unchecked = sorted(used - ledger)[:3]
    assert not unchecked, ("requiring sentences not checked against their text (run python -m "
                           f"tests.test_expectation_audit --write where the texts are): {unchecked}")
    assert not ledger - used, f"the ledger lists sentences no case cites as requiring: {sorted(ledger - used)[:3]}"


def test_every_rule_of_ours_is_quoted_from_spec_notes_at_its_anchor() -> None:
    """A citation of this suite's own rule quotes docs/spec-notes.md verbatim, and its section is an anchor of that
    file: the rule a verdict rests on is the one the docs state."""
    notes = REPO / "docs" / "spec-notes.md"
    text, found = notes.read_text(), anchors(notes)
    own = {key(c): c for _, _, cites in cases() for c in cites if c.source == OWN}
    bad = [f"{c.section}: {c.quote[:60]!r}" for c in own.values()
           if c.section.removeprefix("#") not in found or missing_fragments(c.quote, text)]
    assert own and not bad, bad[:5]


def normalize(text: str, thrift: bool = False) -> str:
    if thrift:
        text = re.sub(r"(?m)^\s*(/\*\*|\*/|\*|//)", " ", text)
    return re.sub(r"\s+", " ", text.replace("\\_", "_")).strip()


def fragments(quote: str) -> list[str]:
    return [f for f in re.split(r" \.\.\. | / ", quote) if f.strip()]


def missing_fragments(quote: str, text: str, thrift: bool = False) -> list[str]:
    body = normalize(text, thrift)
    return [f for f in fragments(quote) if normalize(f, thrift) not in body]


@cache
def seed_files() -> dict[str, Path]:
    """Seed number ("001") -> its file, where the seeds are reachable."""
    return {p.name[:3]: p for p in sorted(SEEDS.glob("[0-9][0-9][0-9]_*.txt"))} if SEEDS.is_dir() else {}


def texts_of(c: Citation) -> list[tuple[str, str | None]]:
    """(where, text or None if unreachable) of the texts a citation's quote must appear in: every seed it names,
    else the upstream file at its commit."""
    if c.seed:
        return [(f"shared/seeds/{n}", seed_files()[n].read_text() if n in seed_files() else None)
                for n in re.findall(r"\b(\d{3})\b", c.seed)]
    m = UPSTREAM.fullmatch(c.source)
    if m is None:
        return []
    repo, path, commit = m.groups()
    path = PATHS.get(path, path)
    where = f"{repo}@{commit}:{path}"
    if not GIT[repo]:
        return [(where, None)]
    proc = subprocess.run(["git", "-C", GIT[repo], "show", f"{commit}:{path}"], capture_output=True, text=True)
    return [(where, proc.stdout if proc.returncode == 0 else None)]


def ledger_entries() -> list[dict[str, str]]:
    """The ledger as --write makes it: every requiring sentence, each text it was found in and that text's sha256."""
    out = []
    for (source, section, quote), c in sorted(requiring_sentences().items()):
        texts = texts_of(c)
        if not texts:
            raise SystemExit(f"{quote[:60]!r}: {source} names no seed and no upstream file at a commit")
        for where, text in texts:
            if text is None:
                raise SystemExit(f"cannot reach {where} (set PARQUET_CONFORMANCE_SEEDS, PARQUET_FORMAT_GIT, "
                                 "THRIFT_GIT)")
            if bad := missing_fragments(quote, text, where.endswith(".thrift")):
                raise SystemExit(f"{where} does not say {bad[0]!r}")
            out.append({"source": source, "section": section, "quote": quote, "checked_in": where,
                        "sha256": hashlib.sha256(text.encode()).hexdigest()})
    return out


def test_the_ledger_holds_where_its_texts_are_reachable() -> None:
    checked = 0
    for e in json.loads(LEDGER.read_text()):
        c = Citation(e["source"], e["section"], e["quote"])
        n = re.fullmatch(r"shared/seeds/(\d{3})", e["checked_in"])
        if n:
            text = seed_files()[n.group(1)].read_text() if n.group(1) in seed_files() else None
        else:
            text = dict(texts_of(c)).get(e["checked_in"])
        if text is None:
            continue
        assert hashlib.sha256(text.encode()).hexdigest() == e["sha256"], f"{e['checked_in']} is not the text checked"
        assert not missing_fragments(e["quote"], text, e["checked_in"].endswith(".thrift")), e["quote"]
        checked += 1
    if not checked:
        pytest.skip("no seed or upstream text reachable: the ledger is checked against the catalogs only")


def test_every_seed_quote_is_verbatim_in_its_seed() -> None:
    if not seed_files():
        pytest.skip(f"the seeds are not at {SEEDS} (set PARQUET_CONFORMANCE_SEEDS)")
    cites = {key(c): c for _, _, cs in cases() for c in cs if c.seed}
    bad = [(where, c.quote[:60], missing) for c in cites.values() for where, text in texts_of(c)
           if text is not None and (missing := missing_fragments(c.quote, text))]
    assert not bad, bad[:5]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python -m tests.test_expectation_audit --write")
    entries = ledger_entries()
    LEDGER.write_text(json.dumps(entries, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(entries)} checked sentences to {LEDGER}")


def anchors(doc: Path) -> set[str]:
    """A Markdown file's anchors: its headings as GitHub slugs them, and explicit <a id="..."> ones."""
    text = doc.read_text()
    slugs = {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
             for h in re.findall(r"(?m)^#{1,6} (.+)$", text)}
    return slugs | set(re.findall(r'<a id="([^"]+)">', text))


def test_every_link_into_spec_notes_lands() -> None:
    """Case notes, the regression store and the docs point into docs/spec-notes.md by anchor: each one exists."""
    texts = [c.notes for c in (*parquet_cases(), *skiff_cases())]
    texts += [e.get("notes", "") for e in regression_store.load()]
    texts += [p.read_text() for p in [*(REPO / "docs").glob("*.md"), REPO / "README.md"]]
    wanted = {m for t in texts for m in re.findall(r"spec-notes\.md#([A-Za-z0-9_-]+)", t)}
    spec = (REPO / "docs" / "spec-notes.md").read_text()
    wanted |= set(re.findall(r"\]\(#([A-Za-z0-9_-]+)\)", spec))
    missing = sorted(wanted - anchors(REPO / "docs" / "spec-notes.md"))
    assert not missing, missing
