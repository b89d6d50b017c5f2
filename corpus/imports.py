"""`corpus import`: a directory of someone else's files (apache/parquet-testing, a vendor's regression files)
as a corpus, with expectations by consensus.

Every available reader reads every file (the harness runs them: conformance/app/imports.py); the track's strict
decoder votes too (accepts = read, refuses = reject). All read the same data: `read`, that data is the file's
base data. All reject: `reject`. Anything else (readers that disagree on the data, some reject, a crash or a
hang) is `either` and a finding that names who said what. Each file becomes its own base and one case,
`import/<source>/<path>`, whose citation is the source path and the file's sha256; `kind` is the strict
decoder's word (strict_kind: golden, nonconforming or corrupt).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parquet_conformance.corpus.build import _prepare, _write, derived, expected_json, write_manifest
from parquet_conformance.corpus.model import (
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

STRICT = "strict-decoder"  # the track's own decoder (Track.inspect) as a voter
NO_DATA: dict[str, list[object]] = {"columns": [], "rows": []}  # the base data of a file every reader rejects


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


def strict_kind(report: Mapping[str, Any]) -> Kind:
    """A track's inspect report (Track.inspect) as a kind: corrupt where it does not decode, nonconforming where
    it decodes but the strict decoder refuses it (a rule of the spec broken), golden otherwise."""
    if not report["valid"]:
        return Kind.CORRUPT
    return Kind.GOLDEN if report.get("strict", True) else Kind.NONCONFORMING


def case_id(source: str, relative: str, suffix: str) -> str:
    """`import/<source>/<path without the suffix>`, every component made a name (other characters become _)."""
    parts = [source, *relative.removesuffix(suffix).split("/")]
    clean = [re.sub(r"[^A-Za-z0-9._+-]", "_", p).lstrip("._+-") or "_" for p in parts]
    out = "import/" + "/".join(clean)
    assert all(NAME_RE.fullmatch(p) for p in clean)
    return out


def write_corpus(out: Path, track: Track, source: str, files: Sequence[Imported],
                 readers: Mapping[str, str]) -> tuple[Manifest, list[dict[str, object]]]:
    """The corpus directory (cases/, bases/, expected/, manifest.json, SHA256SUMS, findings.json); returns the
    manifest and the findings."""
    _prepare(out)
    bases: dict[str, BaseEntry] = {}
    cases: list[CaseEntry] = []
    findings: list[dict[str, object]] = []
    for f in files:
        data = f.path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        cid = case_id(source, f.relative, track.suffix)
        verdict = consensus(f.votes)
        expected = next((r for r in f.readings if data_hash(r) == verdict.data_hash), None)
        if verdict.data_hash is not None and expected is None:
            verdict = Consensus(Expectation.EITHER, None, (verdict.finding or "the readers agree") +
                                f"; no reading of {track.name}'s own libraries gives their data, so none is expected")
        base = cid.removeprefix("import/").replace("/", "__")
        shape: dict[str, list[object]] = expected if isinstance(expected, dict) else NO_DATA
        body = expected_json(shape)
        bases[base] = BaseEntry(
            track=track.name, description=f"{source} {f.relative} as found", file=f"bases/{base}{track.suffix}",
            size=len(data), sha256=digest, expected=f"expected/{base}.json", expected_size=len(body),
            data_hash=data_hash(shape), rows=len(shape.get("rows", [])),
            columns=[str(c) for c in shape.get("columns", [])], baseline_case=None)
        _write(out, bases[base].file, data)
        _write(out, bases[base].expected, body)
        entry = CaseEntry(
            id=cid, track=track.name, title=f"{source} {f.relative}", group="import",
            kind=f.kind, base=base, file=f"cases/{cid}{track.suffix}",
            size=len(data), sha256=digest, seed=0, mutations=[{"mutation": "copy", "source": f"{source}:{f.relative}"}],
            expect={track.default_role: verdict.expect}, decode={},
            levels={track.default_role: Level.POLICY},  # the readers' consensus: this suite's reading
            citations=[Citation(f"{source} {f.relative}", "imported file", f"sha256 {digest}")],
            notes=f"expectation by consensus of {len(f.votes)} voters" + (f": {verdict.finding}" if verdict.finding
                                                                          else ""),
            extensions=None, large=False)
        entry = derived(track, entry, data, base=data)  # an imported file is its own base
        _write(out, entry.file, data)
        cases.append(entry)
        if verdict.finding:
            findings.append({"case": cid, "file": f.relative, "expect": str(verdict.expect),
                             "votes": [v.to_json() for v in f.votes]})
    (out / "findings.json").write_text(dump_json(findings))
    return write_manifest(out, [track], readers, bases, cases), findings
