"""`parquet-conformance corpus import DIR --source NAME --out OUT`: every file of DIR read by every available
adapter of the track (the runner's workers, conformance/harness/reading.py) and by the track's strict decoder; the
votes go to corpus/imports.py, which writes the corpus with expectations by consensus and the findings."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from parquet_conformance.app import console
from parquet_conformance.conformance.harness.model import Crash, OutOfMemory, Read, Rejected, Timeout, Unhandled
from parquet_conformance.conformance.harness.reading import WorkerSet
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus.imports import STRICT, Imported, Vote, write_corpus
from parquet_conformance.corpus.model import NAME_RE, Kind, Manifest
from parquet_conformance.corpus.track import strict_kind
from parquet_conformance.kernel import trees
from parquet_conformance.kernel.errors import UsageError

Progress = Callable[[int, int, str], None]
MAX_READ = 256 << 20  # bytes of an imported file our own libraries read to state its data (docs/architecture.md#trees)


@dataclass(frozen=True)
class ImportResult:
    manifest: Manifest
    findings: list[dict[str, object]]
    voters: dict[str, str]  # adapter -> implementation and version (the available ones)
    unavailable: dict[str, str]  # adapter -> why
    skipped: list[str]  # entries of the folder not read (links, devices), with what each is


def vote(name: str, outcome: object, version: str) -> Vote | None:
    """An adapter's outcome as a vote; None when it says nothing about the file (unavailable, our own error)."""
    match outcome:
        case Read(data_hash=h):
            return Vote(name, "read", h, version)
        case Rejected(error=e):
            return Vote(name, "rejected", None, f"{version}: {e.cls}: {e.message[:160]}")
        case Crash() | Unhandled() | Timeout() | OutOfMemory():
            return Vote(name, str(outcome.kind), None, version)
    return None


def import_directory(src: Path, out: Path, source: str, specs: Sequence[AdapterSpec], track_name: str,
                     progress: Progress | None = None) -> ImportResult:
    track = tracks.get(track_name)
    if not src.is_dir():
        raise ValueError(f"{src}: not a directory")
    trees.separate(out, {"the imported folder": src}, replaces="a corpus")
    trees.replaceable(out, may_replace="a corpus")  # a folder it would refuse: refused before a reader starts
    found, skipped = trees.files_below(src, track.suffix)  # no link followed out of the folder
    paths = [src / rel for rel in found]
    if not paths:
        raise ValueError(f"{src}: no {track.suffix} file" + (f" ({len(skipped)} entries not read: {skipped[0]})"
                                                             if skipped else ""))
    # Readers whose every role is judged on the file itself (Parquet's metadata role) answer no data: no vote.
    file_roles = set(getattr(track, "file_roles", ()))
    workers = WorkerSet([s for s in specs if s.build().track == track.name
                         and not (s.build().roles and set(s.build().roles) <= file_roles)])
    voters: dict[str, str] = {}
    unavailable: dict[str, str] = {}
    files = []
    try:
        for i, path in enumerate(paths):
            relative = path.relative_to(src).as_posix()
            if progress:
                progress(i, len(paths), relative)
            votes = []
            for name, worker in workers.workers.items():
                timed = worker.read(str(path.resolve()), relative)
                info = worker.info
                version = f"{info.implementation} {info.version}" if info else ""
                if (v := vote(name, timed.outcome, version)) is not None:
                    votes.append(v)
                    voters[name] = version
                elif info is None:
                    unavailable[name] = str(getattr(timed.outcome, "reason", timed.outcome.kind))
            kind = strict_kind(track.inspect(path))  # the track's strict word: the file is mapped, not read
            votes.append(Vote(STRICT, "read" if kind is Kind.GOLDEN else "rejected"))
            # Our own readings (what a `read` must return) decode the whole file: only up to MAX_READ bytes; a larger
            # file is `either` (no data of ours to expect), as where our libraries cannot read it.
            readings = tuple(track.read_data(path)) if path.stat().st_size <= MAX_READ else ()
            files.append(Imported(path, relative, tuple(votes), kind, readings))
    finally:
        workers.close()
    readers = {f"reader {n}": v for n, v in sorted(voters.items())}
    manifest, findings = write_corpus(out, track, source, files, readers, root=src)
    return ImportResult(manifest, findings, voters, unavailable, skipped)


def command(args: argparse.Namespace) -> int:
    if not NAME_RE.fullmatch(args.source):
        raise UsageError(f"--source {args.source!r}: use letters, digits, '.', '_', '+', '-'")
    try:
        result = import_directory(Path(args.dir), Path(args.out), args.source, console.specs(args),
                                  console.one_track(args).name, console.every(10))
    except (FileExistsError, ValueError) as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"{args.out}: {e.strerror or e}") from None
    console.end_progress()
    for entry in result.skipped:
        print(f"parquet-conformance: warning: not imported: {entry}", file=sys.stderr)
    for f in result.findings:
        votes = f["votes"]
        assert isinstance(votes, list)
        print(f"FINDING {f['case']}: " + "; ".join(f"{v['voter']} {v['outcome']}" for v in votes))
    counts: dict[str, int] = {}
    for c in result.manifest.cases:
        word = str(c.expect[next(iter(c.expect))])
        counts[word] = counts.get(word, 0) + 1
    print(f"imported {len(result.manifest.cases)} files into {args.out}: "
          + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
          + f"; {len(result.findings)} findings; voters: {', '.join(result.voters) or 'none'}"
          + (f"; unavailable: {', '.join(result.unavailable)}" if result.unavailable else ""))
    return 0
