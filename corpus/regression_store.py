"""Regression cases: files found in the wild that broke a reader, kept as permanent cases.

After Arrow's fuzzing corpus (every fixed crash keeps its reproducer): `corpus add-regression` copies a file (or a
case of another store: `--from` a fuzz run's OUT/regressions) to `regressions/files/<id><suffix>` next to this
module and records it in `regressions/regressions.json`; `corpus.build.generate` then writes it to
`cases/<id><suffix>` with a manifest entry like any other case (kind `regression`, one `copy` mutation). Each entry
names its track (default `parquet`).

The directory can be moved with the environment variable PARQUET_CONFORMANCE_REGRESSIONS (a directory holding
`regressions.json` and `files/`), for a private collection or for tests.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus.model import (
    ROLE_RE,
    CaseEntry,
    Citation,
    Expectation,
    Kind,
    check_case_id,
    matches,
)
from parquet_conformance.kernel import trees

ENV = "PARQUET_CONFORMANCE_REGRESSIONS"
INDEX = "regressions.json"
PREFIX = "regression/"
WORDS = tuple(e.value for e in Expectation)
# Where the `copy` mutation says the file comes from: relative to the `corpus` package.
SOURCE_DIR = "regressions/files"
MAX_FILE = 64 << 20  # bytes of a regression file: it is committed with the project


def regressions_dir() -> Path:
    return Path(os.environ.get(ENV) or Path(__file__).parent / "regressions")


def load(root: Path | None = None) -> list[dict]:
    """The recorded regressions; an absent index is an empty list."""
    path = (root or regressions_dir()) / INDEX
    if not path.is_file():
        return []
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise ValueError(f"{path}: not JSON ({e})") from None
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "id" in e for e in entries):
        raise ValueError(f"{path}: expected a JSON list of regression entries")
    return entries


def save(entries: list[dict], root: Path | None = None) -> None:
    root = root or regressions_dir()
    root.mkdir(parents=True, exist_ok=True)
    text = json.dumps(sorted(entries, key=lambda e: e["id"]), indent=1, ensure_ascii=True) + "\n"
    tmp = root / f".{INDEX}.tmp"
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(root / INDEX)


def _track(entry: dict) -> str:
    """An entry's track; entries written before tracks existed are the first registered track's."""
    return str(entry.get("track") or tracks.names()[0])


def _suffix(entry: dict) -> str:
    return tracks.get(_track(entry)).suffix


def source(case_id: str, suffix: str) -> str:
    return f"{SOURCE_DIR}/{case_id}{suffix}"


def file_path(case_id: str, suffix: str, root: Path | None = None) -> Path:
    return (root or regressions_dir()) / "files" / f"{case_id}{suffix}"


def parse_expect(items: list[str], default_role: str) -> dict[str, str]:
    """`["legacy=reject", "aware:x=either"]` -> `{"legacy": "reject", "aware:x": "either"}`."""
    expect: dict[str, str] = {}
    for item in items:
        role, sep, word = item.partition("=")
        role, word = role.strip(), word.strip()
        if not sep or not ROLE_RE.fullmatch(role) or word not in WORDS:
            raise ValueError(f"--expect wants ROLE=WORD with ROLE 'legacy' or 'aware:<profile>' and WORD one of "
                             f"{', '.join(WORDS)}; got {item!r}")
        if role in expect:
            raise ValueError(f"--expect names role {role!r} twice")
        expect[role] = word
    if default_role not in expect:
        # Other roles fall back to the track's default role (conformance/harness/judge.py Judge.expectation).
        raise ValueError(f"--expect must say what a {default_role} reader must do, e.g. --expect {default_role}=reject")
    return expect


def parse_cite(text: str) -> Citation:
    """`"source | section | quote"`; the quote may itself contain `|`."""
    parts = [p.strip() for p in text.split("|", 2)]
    if len(parts) != 3 or not all(parts):
        raise ValueError(f"--cite wants 'source | section | quote', got {text!r}")
    return Citation(parts[0], parts[1], parts[2])


def validate_id(case_id: str, existing: list[dict]) -> None:
    if not case_id.startswith(PREFIX):
        raise ValueError(f"regression ids start with {PREFIX!r}, e.g. regression/arrow-gh-12345; got {case_id!r}")
    check_case_id(case_id)
    if any(e["id"] == case_id for e in existing):
        raise ValueError(f"regression {case_id!r} already exists")
    if any(c.id == case_id for t in tracks.all_tracks() for c in t.cases()):
        raise ValueError(f"{case_id!r} is already a catalog case")


def read_file(file: Path | bytes) -> bytes:
    """A file to keep (FILE, or a store's file already read), itself a regular file and no symbolic link, of at
    most MAX_FILE bytes (a regression file is committed with the project)."""
    if isinstance(file, bytes):
        return file
    try:
        return trees.read_below(file.parent, file.name, MAX_FILE)
    except FileNotFoundError:
        raise ValueError(f"{file}: no such file") from None
    except trees.TreeError as e:
        raise ValueError(str(e)) from None


def add(file: Path | bytes, case_id: str, expect: dict[str, str], citations: list[Citation], title: str | None = None,
        notes: str = "", base: str | None = None, track: str | None = None, root: Path | None = None,
        found_by: dict | None = None, data_unknown: bool = False) -> dict:
    """Copies `file` into the collection and records it. Raises ValueError on bad input. `found_by`: how it was
    found, when a tool found it (`fuzz`: the seed, the minimal chain, the implementation and version). `track` and
    `base` default to the first registered track and its first base; `data_unknown`: no reference states the file's
    data (reads are judged on read versus reject only)."""
    root = root or regressions_dir()
    entries = load(root)
    validate_id(case_id, entries)
    track = track or tracks.names()[0]
    if track not in tracks.names():
        raise ValueError(f"unknown track {track!r}; known: {', '.join(tracks.names())}")
    known = tracks.get(track).bases()
    base = base or known[0]
    if base not in known:
        raise ValueError(f"unknown base {base!r}; known: {', '.join(known)}")
    if not citations:
        raise ValueError("a regression needs at least one --cite: where the file comes from and why it matters")
    data = read_file(file)
    named = file.name if isinstance(file, Path) else case_id
    entry = {"id": case_id, "track": track, "title": title or f"found-in-the-wild file {named}", "base": base,
             "expect": expect, "citations": [c.to_json() for c in citations], "notes": notes,
             "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    if found_by is not None:
        entry["found_by"] = found_by
    if data_unknown:
        entry["data_unknown"] = True
    dest = file_path(case_id, _suffix(entry), root)
    dest.parent.mkdir(parents=True, exist_ok=True)
    trees.write_atomic(dest, data)  # a link at dest is replaced, never written through
    try:
        save([*entries, entry], root)
    except BaseException:
        dest.unlink(missing_ok=True)
        raise
    return entry


def add_from(store: Path, case_id: str, root: Path | None = None) -> dict:
    """Ships a case of another store (a fuzz run's OUT/regressions) into this collection, as it was recorded there:
    its file, expectations, citations, notes and how it was found. ValueError on bad input."""
    entry = next((e for e in load(store) if e["id"] == case_id), None)
    if entry is None:
        known = ", ".join(e["id"] for e in load(store)[:5]) or "none"
        raise ValueError(f"{store}: no regression {case_id!r} (it has: {known})")
    citations = [Citation.from_json(c) for c in entry.get("citations", [])]
    try:  # read below the store, no link followed out of it
        data = trees.read_below(store, f"files/{case_id}{_suffix(entry)}", MAX_FILE)
    except FileNotFoundError:
        raise ValueError(f"{store}: no file for regression {case_id!r}") from None
    except trees.TreeError as e:
        raise ValueError(str(e)) from None
    return add(data, case_id, dict(entry["expect"]), citations,
               title=entry.get("title"), notes=entry.get("notes", ""), base=entry.get("base"), track=_track(entry),
               root=root, found_by=entry.get("found_by"), data_unknown=bool(entry.get("data_unknown")))


def selected(only: str | None = None, root: Path | None = None) -> list[dict]:
    """The regressions `generate --only` keeps: the same globs as for catalog cases."""
    return [e for e in load(root) if matches(e["id"], only)]


def case_entries(entries: list[dict], root: Path | None = None) -> Iterator[tuple[CaseEntry, bytes]]:
    """Manifest entries with the file bytes, checked against the index."""
    for e in entries:
        suffix = _suffix(e)
        path = file_path(e["id"], suffix, root)
        try:  # below the collection, no link followed out of it
            data = trees.read_below(root or regressions_dir(), f"files/{e['id']}{suffix}", MAX_FILE)
        except (OSError, trees.TreeError) as err:
            why = getattr(err, "strerror", None) or err
            raise ValueError(f"regression {e['id']}: cannot read {path}: {why}") from None
        digest = hashlib.sha256(data).hexdigest()
        if digest != e["sha256"]:
            raise ValueError(f"regression {e['id']}: {path} does not match the sha256 in {INDEX}")
        yield CaseEntry(
            id=e["id"], track=_track(e), title=e["title"], group="regression", kind=Kind.REGRESSION,
            base=e["base"], file=f"cases/{e['id']}{suffix}", size=len(data), sha256=digest, seed=0,
            mutations=[{"mutation": "copy", "source": source(e["id"], suffix)}],
            expect={r: Expectation(w) for r, w in e["expect"].items()}, decode={},
            citations=[Citation.from_json(c) for c in e["citations"]], notes=e.get("notes", ""), extensions=None,
            large=False, data_unknown=bool(e.get("data_unknown", False))), data
