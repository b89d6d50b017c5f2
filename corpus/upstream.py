"""Upstream test files beside the generated corpus: a track may pin files of another project (apache/parquet-testing)
in a committed list, each with its path, the commit it was read at, its sha256 and the expectation its own
expectation file gives (cases.json, a README, an .md beside it), or our reading of its documented content. A few
MiB of them are committed beside the list (the track's `upstream_copy()`), so a fresh clone judges them with no
download; the others come from a checkout the user gives (`generate --upstream DIR`). Nothing is downloaded, and a
file whose bytes differ from its pin is refused, never judged (a pin is a promise about exactly those bytes). Each
becomes a case `upstream/<repo>/<path>` (`/<op>` added for a pin of an operation), built on the base of the generated
case that transcribes it (its `twin`), whose data a `read` must return unless the list says its data cannot be
stated (`data_unknown`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parquet_conformance.corpus.model import (
    NAME_RE,
    ROLE_RE,
    CaseEntry,
    Citation,
    Expectation,
    Level,
    check_case_id,
    matches,
)
from parquet_conformance.corpus.track import Track

SHA256 = re.compile(r"[0-9a-f]{64}")
COMMIT = re.compile(r"[0-9a-f]{40}")
MAX_FILE = 64 << 20  # a pinned test file is small; a larger one is not what the pin names


class UpstreamError(ValueError):
    """A pin list that is not one, or a checkout whose file is not the pinned bytes."""


@dataclass(frozen=True)
class Pin:
    repo: str  # owner/name
    path: str  # inside the repository
    commit: str  # 40 hex digits: where the path and its sha256 were read
    sha256: str
    sha256_from: str  # how we know the digest (the stored copy we hashed, or the listing we took it from)
    expect: dict[str, Expectation]
    expectation: str  # what the upstream expectation file says, quoted
    base: str  # the base of the case that transcribes it
    twin: str | None  # that case's id
    data_unknown: bool
    op: str = "read"  # what the worker is asked to do with the file (Case.op): a pin per operation

    @property
    def case_id(self) -> str:
        parts = [self.repo.split("/")[1], *self.path.rsplit(".", 1)[0].split("/")]
        return "upstream/" + "/".join([*parts, *([self.op] if self.op != "read" else [])])


def _pin(obj: Mapping[str, Any], where: str) -> Pin:
    try:
        pin = Pin(repo=str(obj["repo"]), path=str(obj["path"]), commit=str(obj["commit"]), sha256=str(obj["sha256"]),
                  sha256_from=str(obj["sha256_from"]),
                  expect={str(r): Expectation(w) for r, w in dict(obj["expect"]).items()},
                  expectation=str(obj["expectation"]), base=str(obj["base"]),
                  twin=None if obj.get("twin") is None else str(obj["twin"]), data_unknown=bool(obj["data_unknown"]),
                  op=str(obj.get("op", "read")))
    except (KeyError, TypeError, ValueError) as e:
        raise UpstreamError(f"{where}: not a pin ({e})") from None
    parts = pin.path.split("/")
    if not (COMMIT.fullmatch(pin.commit) and SHA256.fullmatch(pin.sha256) and pin.expect
            and all(ROLE_RE.fullmatch(r) for r in pin.expect) and re.fullmatch(r"[\w.-]+/[\w.-]+", pin.repo)
            and all(NAME_RE.fullmatch(p) and p not in (".", "..") for p in parts) and NAME_RE.fullmatch(pin.op)):
        raise UpstreamError(f"{where}: a pin needs a 40-digit commit, a sha256, roles and a relative path")
    check_case_id(pin.case_id)
    return pin


def load(path: Path) -> list[Pin]:
    """The pins of a committed list (`{"files": [...]}`), each checked."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise UpstreamError(f"{path}: cannot read the pin list ({e})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("files"), list):
        raise UpstreamError(f"{path}: expected an object with a list of files")
    pins = [_pin(obj, f"{path} files[{i}]") for i, obj in enumerate(doc["files"])]
    if len({p.case_id for p in pins}) != len(pins):
        raise UpstreamError(f"{path}: a file is pinned twice")
    return pins


def read_pinned(checkout: Path, pin: Pin) -> bytes | None:
    """The pinned file's bytes from the checkout (None where the checkout lacks it); UpstreamError where they are not
    the pinned bytes, or the path leaves the checkout."""
    root = checkout.resolve()
    path = (root / pin.path).resolve()
    if root not in path.parents:
        raise UpstreamError(f"{pin.path}: leaves the checkout {checkout}")
    if not path.is_file():
        return None
    if path.stat().st_size > MAX_FILE:
        raise UpstreamError(f"{checkout / pin.path}: {path.stat().st_size} bytes, not the pinned file")
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != pin.sha256:
        raise UpstreamError(f"{checkout / pin.path}: refused, its sha256 is not the one pinned at {pin.repo} "
                            f"{pin.commit[:8]} ({pin.sha256[:12]}...)")
    return data


def case_entries(track: Track, pins: Sequence[Pin], checkout: Path | None, only: str | None,
                 kind_of: Any, stored: Path | None = None) -> tuple[list[tuple[CaseEntry, bytes]], list[Pin]]:
    """(entries with their bytes, pins neither folder holds) for the pins `only` selects: from the checkout given to
    `generate --upstream` (None: none), else from the track's committed copies (`stored`). `kind_of(path)`: the
    track's strict word on a file (corpus/track.py strict_kind over the track's inspect)."""
    if checkout is not None and not checkout.is_dir():
        raise UpstreamError(f"{checkout}: not a directory")
    found, missing = [], []
    for pin in pins:
        if not matches(pin.case_id, only):
            continue
        where, data = checkout, read_pinned(checkout, pin) if checkout is not None else None
        if data is None and stored is not None:
            where, data = stored, read_pinned(stored, pin)
        if data is None or where is None:
            missing.append(pin)
            continue
        citation = Citation(f"{pin.repo} {pin.path} ({pin.commit[:8]})", "expectation file", pin.expectation,
                            level=Level.POLICY)
        origin = ("committed beside its pin (corpus/parquet/parquet-testing)" if where == stored else
                  "from the checkout given to `generate --upstream`")
        notes = (f"{pin.repo} at {pin.commit}, sha256 {pin.sha256} ({pin.sha256_from}); {origin}. "
                 + (f"Transcribed by {pin.twin}." if pin.twin else "No generated twin."))
        found.append((CaseEntry(
            id=pin.case_id, track=track.name, title=f"{pin.repo} {pin.path} as pinned", group="upstream",
            kind=kind_of(where / pin.path), base=pin.base, file=f"cases/{pin.case_id}{track.suffix}",
            size=len(data), sha256=pin.sha256, seed=0,
            mutations=[{"mutation": "copy", "source": f"{pin.repo}@{pin.commit}:{pin.path}"}],
            expect=dict(pin.expect), decode={}, citations=[citation], notes=notes, extensions=None, large=False,
            data_unknown=pin.data_unknown, op=pin.op), data))
    return found, missing
