"""What the apache/parquet-format repository says of the commits, pull requests and releases the corpus cites: the
facts every "released in", "merged", "open" and version claim of the catalogs and of docs/spec-notes.md is checked
against (tests/test_commit_facts.py reads tests/data/format-facts.json; CI has no clone of the repository).

    PARQUET_FORMAT_GIT=/path/to/parquet-format.git python -m tests.format_facts --write

The repository must hold the release tags and the pull requests' refs (refs/pull/N/head, refs/pull/N/merge). A pull
request is merged when a commit of the main line names it in its subject ("... (#N)", as GitHub's squash merge
writes it); its first release is the oldest release tag that contains that commit. A commit is on the main line when
it is an ancestor of the main branch (`git merge-base --is-ancestor`).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from parquet_conformance.corpus import regression_store
from parquet_conformance.corpus.parquet.catalog import all_cases as parquet_cases

FACTS = Path(__file__).parent / "data" / "format-facts.json"
REPO = "apache/parquet-format"
MAIN = "master"
RELEASE_TAG = re.compile(r"apache-parquet-format-(\d+\.\d+\.\d+)")
# a citation's source: "apache/parquet-format [PR #N] PATH (COMMIT)"
SOURCE = re.compile(r"apache/parquet-format (?:PR #(\d+) )?(\S+) \(([0-9a-f]{7,40})\)")
PR_MENTION = re.compile(r"(?<![\w/-])PR #(\d+)")
ENUM = re.compile(r"enum (\w+) \{(.*?)\}", re.S)
UNION = re.compile(r"union (\w+) \{(.*?)\}", re.S)


def git(*args: str) -> str:
    where = os.environ.get("PARQUET_FORMAT_GIT")
    if not where:
        raise SystemExit("set PARQUET_FORMAT_GIT to a clone of apache/parquet-format with its tags and PR refs")
    return subprocess.run(["git", "-C", where, *args], capture_output=True, text=True, check=True).stdout.strip()


def is_ancestor(commit: str, of: str) -> bool:
    where = os.environ["PARQUET_FORMAT_GIT"]
    return subprocess.run(["git", "-C", where, "merge-base", "--is-ancestor", commit, of]).returncode == 0


def ref(name: str) -> str | None:
    where = os.environ["PARQUET_FORMAT_GIT"]
    p = subprocess.run(["git", "-C", where, "rev-parse", "-q", "--verify", f"{name}^{{commit}}"],
                       capture_output=True, text=True)
    return p.stdout.strip() or None


def cited_texts() -> list[str]:
    """Every text of ours that may name a pull request: the catalogs' titles, notes and citation sources, the
    regression store, docs/spec-notes.md."""
    out = []
    for c in parquet_cases():
        out += [c.title, c.notes, *(x.source for x in c.citations)]
    for e in regression_store.load():
        out += [e.get("title", ""), e.get("notes", ""), *(x["source"] for x in e["citations"])]
    out.append((Path(__file__).resolve().parent.parent / "docs" / "spec-notes.md").read_text())
    return out


def facts() -> dict[str, object]:
    releases = {}
    for tag in git("tag", "--list", "apache-parquet-format-*").split():
        m = RELEASE_TAG.fullmatch(tag)
        if m:  # release candidates (-rc0) are not releases
            releases[m.group(1)] = git("rev-parse", f"{tag}^{{commit}}")
    order = sorted(releases, key=lambda v: tuple(int(p) for p in v.split(".")))
    main = git("rev-parse", MAIN)
    subjects = {}
    for line in git("log", "--first-parent", "--format=%H %s", MAIN).splitlines():
        sha, _, subject = line.partition(" ")
        for n in re.findall(r"\(#(\d+)\)\s*$", subject):
            subjects.setdefault(int(n), sha)
    texts = cited_texts()
    numbers = sorted({int(n) for t in texts for n in PR_MENTION.findall(t)}
                     | {int(m.group(1)) for t in texts for m in SOURCE.finditer(t) if m.group(1)})
    prs = {}
    for n in numbers:
        head, merge = ref(f"refs/pull/{n}/head"), ref(f"refs/pull/{n}/merge")
        merged_as = subjects.get(n)
        first = next((v for v in order if merged_as and is_ancestor(merged_as, releases[v])), None)
        prs[str(n)] = {"head": head, "merge_ref": merge, "merged_as": merged_as,
                       "state": "merged" if merged_as else "open" if head else "unknown", "first_release": first}
    commits = {}
    for t in texts:
        for m in SOURCE.finditer(t):
            short = m.group(3)
            full = ref(short)
            if full is None:
                commits[short] = {"exists": False}
                continue
            commits[short] = {
                "exists": True, "sha": full, "on_main": is_ancestor(full, main),
                "releases": [v for v in order if is_ancestor(full, releases[v])],
                "pr_head": [n for n, p in prs.items() if p["head"] == full],
                "pr_merge_ref": [n for n, p in prs.items() if p["merge_ref"] == full],
                "merged_as": [n for n, p in prs.items() if p["merged_as"] == full],
            }
    latest = order[-1]
    thrift = git("show", f"{releases[latest]}:src/main/thrift/parquet.thrift")
    bare = re.sub(r"//[^\n]*|/\*.*?\*/", "", thrift, flags=re.S)
    enums = {name: sorted(int(v) for v in re.findall(r"=\s*(-?\d+)", body)) for name, body in ENUM.findall(bare)}
    unions = {name: sorted(int(v) for v in re.findall(r"(?m)^\s*(\d+):", body)) for name, body in UNION.findall(bare)}
    return {"repository": REPO, "main": {"branch": MAIN, "commit": main}, "releases": {v: releases[v] for v in order},
            "latest_release": latest, "prs": prs, "commits": dict(sorted(commits.items())),
            "release_enums": enums, "release_unions": unions}


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: PARQUET_FORMAT_GIT=DIR python -m tests.format_facts --write")
    FACTS.write_text(json.dumps(facts(), indent=1) + "\n")
    print(f"wrote {FACTS}")
