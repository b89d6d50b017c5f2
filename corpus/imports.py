"""`corpus import`: a directory of someone else's files (apache/parquet-testing, a vendor's regression files)
as a corpus, with expectations by consensus.

Every available reader reads every file (the harness runs them: app/imports.py); the track's strict
decoder votes too (accepts = read, refuses = reject). All read the same data: `read`, that data is the file's
base data. All reject: `reject`. Anything else (readers that disagree on the data, some reject, a crash or a
hang) is `either` and a finding that names who said what. Each file becomes its own base and one case,
`import/<source>/<path>`, whose citation is the source path and the file's sha256; `kind` is the strict
decoder's word (corpus/track.py strict_kind: golden, nonconforming or corrupt).
"""

from __future__ import annotations

import hashlib
import mmap
import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from parquet_conformance.corpus.build import derived, expected_json, write_manifest
from parquet_conformance.corpus.model import (
    MAX_CASE_ID,
    MAX_NAME,
    NAME_RE,
    BaseEntry,
    CaseEntry,
    Citation,
    Expectation,
    Kind,
    Level,
    Manifest,
    dump_json,
)
from parquet_conformance.corpus.track import Track
from parquet_conformance.generators.canonical import data_hash
from parquet_conformance.kernel import trees

STRICT = "strict-decoder"  # the track's own decoder (Track.inspect) as a voter
NO_DATA: dict[str, list[object]] = {"columns": [], "rows": []}  # the base data of a file every reader rejects
MAX_FILE = 4 << 30  # bytes of one imported file (copied in 1 MiB pieces; the readers' own reading is theirs)
MAX_COMPONENT = 200  # characters of one component of an imported case id (a file name: 255 bytes with its suffix)


@dataclass(frozen=True)
class Vote:
    voter: str  # an adapter, or STRICT
    outcome: str  # read, rejected, crash, timeout, oom
    data_hash: str | None = None  # of a read (the strict decoder reads no data)
    detail: str = ""  # version, error message

    def to_json(self) -> dict[str, object]:
        return {"voter": self.voter, "outcome": self.outcome, "data_hash": self.data_hash, "detail": self.detail}


@dataclass(frozen=True)
class Consensus:
    expect: Expectation
    data_hash: str | None  # the data a `read` (or the reading side of an `either`) returns
    finding: str | None  # who said what, when the voters disagree


def consensus(votes: Sequence[Vote]) -> Consensus:
    reads = Counter(v.data_hash for v in votes if v.outcome == "read" and v.data_hash is not None)
    outcomes = {v.outcome for v in votes}
    if not votes:
        raise ValueError("no voter: no reader was available")
    if outcomes == {"read"} and len(reads) == 1:
        return Consensus(Expectation.READ, next(iter(reads)), None)
    if outcomes == {"rejected"}:
        return Consensus(Expectation.REJECT, None, None)
    # The reading most readers gave (ties: the first in hash order) is what a reader that reads must return.
    top = sorted(reads.items(), key=lambda kv: (-kv[1], kv[0]))
    said = "; ".join(f"{v.voter}: {v.outcome}" + (f" {v.data_hash[:12]}" if v.data_hash else "")
                     + (f" ({v.detail})" if v.detail else "") for v in votes)
    return Consensus(Expectation.EITHER, top[0][0] if top else None, said)


@dataclass(frozen=True)
class Imported:
    path: Path  # the file, absolute
    relative: str  # its path under the imported directory
    votes: tuple[Vote, ...]
    kind: Kind  # the strict decoder's word (strict_kind)
    readings: tuple[object, ...]  # the track's own readings of it (canonical data), to find the consensus data in


def _clean(part: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]", "_", part).lstrip("._+-") or "unnamed"  # a name starts with a letter or digit


def _short(name: str, limit: int, whole: str, force: bool = False) -> str:
    """`name` when it fits in `limit` characters (and is not `force`d); else its start and a digest of `whole` (what
    it stands for), so that two names cut alike stay apart."""
    if len(name) <= limit and not force:
        return name
    digest = hashlib.sha256(whole.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return f"{name[:limit - 17].rstrip('._+-')}-{digest}"


def case_id(source: str, relative: str, suffix: str, distinct: bool = False) -> str:
    """`import/<source>/<path without the suffix>`, every component made a name (other characters become _, a name
    too long for a file system is cut and given a digest of the path). An id longer than MAX_CASE_ID, or one asked
    to be `distinct` (another path cleans to the same id), is `import/<source>/<the path flattened, a digest>`."""
    parts = [_short(_clean(p), MAX_COMPONENT, relative) for p in relative.removesuffix(suffix).split("/")]
    source = _short(_clean(source), MAX_COMPONENT, source)
    out = "import/" + "/".join([source, *parts])
    if distinct or len(out) > MAX_CASE_ID:
        out = f"import/{source}/{_short('__'.join(parts), MAX_COMPONENT, relative, force=True)}"
    assert all(NAME_RE.fullmatch(p) for p in out.split("/")) and len(out) <= MAX_CASE_ID
    return out


@dataclass(frozen=True)
class Placed:
    """Where an imported file goes: its case id and its base's name, distinct from every other file's."""

    file: Imported
    case: str
    base: str


def place(source: str, files: Sequence[Imported], suffix: str) -> list[Placed]:
    """Every file's case id and base name, checked before anything is written: two paths that clean to the same id
    (`a b.bin`, `a_b.bin`), or the same base name (`a/b__c`, `a__b/c`), are told apart by a digest of their
    paths; ids and names within the limits of the manifest (MAX_CASE_ID, MAX_NAME) and of file systems."""
    placed: list[Placed] = []
    ids: set[str] = set()
    names: set[str] = set()
    for f in files:
        cid = case_id(source, f.relative, suffix)
        if cid in ids:
            cid = case_id(source, f.relative, suffix, distinct=True)
        base = _short(cid.removeprefix("import/").replace("/", "__"), MAX_NAME, f.relative)
        if base in names:
            base = _short(base, MAX_NAME, f.relative, force=True)
        if cid in ids or base in names:
            raise ValueError(f"{f.relative}: two imported files map to the same case id {cid!r}")
        ids.add(cid)
        names.add(base)
        placed.append(Placed(f, cid, base))
    trees.check_names([p for x in placed for p in (f"cases/{x.case}{suffix}", f"bases/{x.base}{suffix}",
                                                   f"expected/{x.base}.json")])
    return placed


def write_corpus(out: Path, track: Track, source: str, files: Sequence[Imported],
                 readers: Mapping[str, str], root: Path | None = None) -> tuple[Manifest, list[dict[str, object]]]:
    """The corpus directory (cases/, bases/, expected/, manifest.json, SHA256SUMS, findings.json), written into a
    temporary sibling of `out` and put in its place at the end; returns the manifest and the findings. `root`: the
    imported folder (each file is read below it, no link followed, streamed: at most MAX_FILE bytes each)."""
    placed = place(source, files, track.suffix)
    bases: dict[str, BaseEntry] = {}
    cases: list[CaseEntry] = []
    findings: list[dict[str, object]] = []
    with trees.replaced(out, may_replace="a corpus") as staging:
        for p in placed:
            f, cid, base = p.file, p.case, p.base
            folder, rel = (root, f.relative) if root is not None else (f.path.parent, f.path.name)
            with trees.open_below(folder, rel, MAX_FILE) as src:
                size, digest = trees.write_below(staging, f"bases/{base}{track.suffix}", src, MAX_FILE)
            trees.link_below(staging, f"bases/{base}{track.suffix}", f"cases/{cid}{track.suffix}")  # written once
            verdict = consensus(f.votes)
            expected = next((r for r in f.readings if data_hash(r) == verdict.data_hash), None)
            if verdict.data_hash is not None and expected is None:
                verdict = Consensus(Expectation.EITHER, None, (verdict.finding or "the readers agree") +
                                    f"; no reading of {track.name}'s own libraries gives their data, so none is "
                                    "expected")
            shape: dict[str, list[object]] = expected if isinstance(expected, dict) else NO_DATA
            body = expected_json(shape)
            bases[base] = BaseEntry(
                track=track.name, description=f"{source} {f.relative} as found", file=f"bases/{base}{track.suffix}",
                size=size, sha256=digest, expected=f"expected/{base}.json", expected_size=len(body),
                data_hash=data_hash(shape), rows=len(shape.get("rows", [])),
                columns=[str(c) for c in shape.get("columns", [])], baseline_case=None)
            trees.write_below(staging, bases[base].expected, body)
            entry = CaseEntry(
                id=cid, track=track.name, title=f"{source} {f.relative}", group="import",
                kind=f.kind, base=base, file=f"cases/{cid}{track.suffix}", size=size, sha256=digest, seed=0,
                mutations=[{"mutation": "copy", "source": f"{source}:{f.relative}"}],
                expect={track.default_role: verdict.expect}, decode={},
                levels={track.default_role: Level.POLICY},  # the readers' consensus: this suite's reading
                citations=[Citation(f"{source} {f.relative}", "imported file", f"sha256 {digest}")],
                notes=f"expectation by consensus of {len(f.votes)} voters" + (f": {verdict.finding}"
                                                                              if verdict.finding else ""),
                extensions=None, large=False)
            entry = _derived(track, entry, staging)  # an imported file is its own base
            cases.append(entry)
            if verdict.finding:
                findings.append({"case": cid, "file": f.relative, "expect": str(verdict.expect),
                                 "votes": [v.to_json() for v in f.votes]})
        trees.write_below(staging, "findings.json", dump_json(findings).encode())
        manifest = write_manifest(staging, [track], readers, bases, cases)
    return manifest, findings


def _derived(track: Track, entry: CaseEntry, staging: Path) -> CaseEntry:
    """The roles a track judges on the file itself (corpus/build.py derived), over the copy just written, mapped
    rather than read into memory."""
    with trees.open_below(staging, entry.file) as f:
        if os.fstat(f.fileno()).st_size == 0:
            return derived(track, entry, b"", base=b"")
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return derived(track, entry, data, base=data)  # type: ignore[arg-type]  # a read-only buffer of the bytes
