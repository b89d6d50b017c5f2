"""Every claim the corpus makes about apache/parquet-format's history holds in the repository (issue 36, item 5):
citations quote a commit of the main line or a release tag, or name the pull request whose head or merge ref they
quote (and then carry no force above `policy`: a proposal); "open", "merged", "merged after X, unreleased" and
"released in X" say what the repository says of that pull request; a format version is a release that exists.

The facts come from tests/format_facts.py (`PARQUET_FORMAT_GIT=DIR python -m tests.format_facts --write`), read from a
clone with its tags and pull-request refs; CI reads the committed tests/data/format-facts.json. Texts checked: the
catalogs' titles, notes and citation sources, the regression store, docs/spec-notes.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from parquet_conformance.corpus import regression_store
from parquet_conformance.corpus.model import Citation, Level
from parquet_conformance.corpus.parquet.catalog import all_cases as parquet_cases
from tests.format_facts import FACTS, SOURCE

REPO = Path(__file__).resolve().parent.parent
SPEC_NOTES = REPO / "docs" / "spec-notes.md"

# The claim forms a text may use, each checked against the facts.
OPEN = re.compile(r"PR #(\d+)(?:'s \w+)? \(open\)|PR #(\d+), open\b|PR #(\d+) \(open[;,)]")
MERGED_UNRELEASED = re.compile(r"PR #(\d+),? merged after (\d+\.\d+\.\d+), unreleased")
RELEASED = re.compile(r"PR #(\d+),? released in (\d+\.\d+\.\d+)")
MERGED = re.compile(r"#(\d+),? merged\b")
# A format version named in prose: after these words it is parquet-format's, and must be a release that exists.
VERSION = re.compile(r"(?:(?:parquet-format|parquet\.thrift|format|of|in|after|before|since|a|an) "
                     r"(2\.\d{1,2}(?:\.\d+)?)(?![\d.]*\d)|(?<![\w.])(2\.\d{1,2}(?:\.\d+)?) readers?\b)")


def version_of(m: re.Match[str]) -> str:
    return m.group(1) or m.group(2)


@pytest.fixture(scope="module")
def facts() -> dict:
    return json.loads(FACTS.read_text())


def citations() -> Iterator[tuple[str, Citation]]:
    for c in parquet_cases():
        for x in c.citations:
            yield c.id, x
    for e in regression_store.load():
        for x in e["citations"]:
            yield e["id"], Citation.from_json(x)


def texts() -> Iterator[tuple[str, str]]:
    """(where, text) of every prose that may claim something of the format's history."""
    for c in parquet_cases():
        yield f"{c.id} title", c.title
        yield f"{c.id} notes", c.notes
    for e in regression_store.load():
        yield f"{e['id']} notes", e.get("notes", "")
    for n, line in enumerate(SPEC_NOTES.read_text().splitlines(), 1):
        yield f"docs/spec-notes.md:{n}", line


def test_every_parquet_format_citation_names_a_checked_commit(facts: dict) -> None:
    """A source names a commit the repository has; a pull request named with it is the one whose head, merge ref or
    squash commit it is; a commit off the main line is a proposal's and its sentence carries at most `policy`."""
    bad = []
    for where, c in citations():
        if "apache/parquet-format" not in c.source:
            continue
        m = SOURCE.fullmatch(c.source)
        if m is None:
            bad.append(f"{where}: {c.source!r} is not 'apache/parquet-format [PR #N] PATH (COMMIT)'")
            continue
        pr, _, commit = m.groups()
        fact = facts["commits"].get(commit)
        if not fact or not fact["exists"]:
            bad.append(f"{where}: {commit} is no commit of apache/parquet-format")
            continue
        if pr and pr not in fact["pr_head"] + fact["pr_merge_ref"] + fact["merged_as"]:
            bad.append(f"{where}: {commit} is neither the head, the merge ref nor the merge of PR #{pr}")
        if not fact["on_main"] and not fact["releases"] and c.level not in (None, Level.POLICY):
            bad.append(f"{where}: {c.source} is a proposal's commit (off the main line, in no release), but the "
                       f"sentence is cited at {c.level}")
        if not pr and not fact["on_main"] and not fact["releases"]:
            bad.append(f"{where}: {commit} is on no release and not on the main line: name its pull request")
    assert not bad, "\n".join(bad[:10])


def test_every_state_claim_holds(facts: dict) -> None:
    prs, latest = facts["prs"], facts["latest_release"]
    bad = []
    for where, text in texts():
        for m in OPEN.finditer(text):
            n = next(g for g in m.groups() if g)
            if prs.get(n, {}).get("state") != "open":
                bad.append(f"{where}: PR #{n} is said open; the repository says {prs.get(n, {}).get('state')}")
        for m in MERGED_UNRELEASED.finditer(text):
            n, after = m.groups()
            p = prs.get(n, {})
            if p.get("state") != "merged" or p.get("first_release") or after != latest:
                bad.append(f"{where}: PR #{n} is said merged after {after}, unreleased; the repository says "
                           f"{p.get('state')}, first released in {p.get('first_release')} (latest release {latest})")
        for m in RELEASED.finditer(text):
            n, version = m.groups()
            if prs.get(n, {}).get("first_release") != version:
                bad.append(f"{where}: PR #{n} is said released in {version}; the repository says "
                           f"{prs.get(n, {}).get('first_release')}")
        for m in MERGED.finditer(text):
            n = m.group(1)
            if n in prs and prs[n]["state"] != "merged":
                bad.append(f"{where}: #{n} is said merged; the repository says {prs[n]['state']}")
    assert not bad, "\n".join(bad[:10])


def test_every_format_version_named_is_a_release(facts: dict) -> None:
    """"parquet-format 2.13", "a reader of 2.14": a version is named as its release tag names it (X.Y.Z), and only if
    that release exists; what is on the main line only is said so ("merged after 2.13.0, unreleased")."""
    releases = set(facts["releases"])
    bad = [f"{where}: {m.group(0)!r}" for where, text in texts() for m in VERSION.finditer(text)
           if version_of(m) not in releases]
    assert not bad, "\n".join(bad[:10])


@pytest.mark.parametrize("text", [
    "a group annotated FILE (LogicalType 19, parquet-format 2.13) with the six fields",  # FILE is not in 2.13.0
    "apache/parquet-format LogicalTypes.md (PR #606, merged; 55010d6e)",  # #606 is open
    "a 2.13 reader meets FieldRepetitionType 3",
])
def test_the_checks_catch_the_claims_of_the_audit(facts: dict, text: str) -> None:
    """The three claims issue 36 found, each caught by one of the checks above."""
    prs, releases = facts["prs"], set(facts["releases"])
    caught = (any(version_of(m) not in releases for m in VERSION.finditer(text))
              or any(prs.get(m.group(1), {}).get("state") != "merged" for m in MERGED.finditer(text))
              or (SOURCE.fullmatch(text) is None and text.startswith("apache/parquet-format")))
    assert caught


def test_the_facts_cover_every_cited_commit(facts: dict) -> None:
    cited = {m.group(3) for _, c in citations() if (m := SOURCE.fullmatch(c.source))}
    assert cited <= set(facts["commits"]), f"run tests/format_facts.py --write: {sorted(cited - set(facts['commits']))}"
