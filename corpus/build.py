"""Build the corpus of every selected track: case files, base files, expected data and manifest.json.

Format-neutral: each track (corpus/track.py) says which cases exist and how to make their bytes.
Deterministic: the same generator version, writer versions and seed give byte-identical trees.
Each case's RNG seed derives from (seed, case id), so `--only` changes nothing in the cases it keeps.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from parquet_conformance.corpus import regression_store as regressions
from parquet_conformance.corpus import upstream as upstream_files
from parquet_conformance.corpus.dist import write_manifest_digest
from parquet_conformance.corpus.model import (
    ANY_FORM,
    EXPECTATION_MEANINGS,
    GENERATOR,
    GENERATOR_VERSION,
    MANIFEST_FORMAT,
    MANIFEST_VERSION,
    AlternativeEntry,
    BaseEntry,
    Case,
    CaseEntry,
    Manifest,
    dump_json,
    matches,
)
from parquet_conformance.corpus.track import Deriving, Track, all_tracks, metadata_forms, strict_kind
from parquet_conformance.generators.canonical import data_hash
from parquet_conformance.kernel import trees
from parquet_conformance.kernel.cache import cache_lock, cache_root

CORPORA_KEPT = 3  # generated corpora kept in the cache (each code change makes a new one)
Progress = Callable[[int, int, str], None]


def case_seed(seed: int, case_id: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}:{case_id}".encode()).digest()[:8], "little")


def case_file(track: Track, case_id: str) -> str:
    return f"cases/{case_id}{track.suffix}"


def build_case(track: Track, case: Case, seed: int) -> tuple[CaseEntry, bytes]:
    if stray := set(case.decode.values()) - {ANY_FORM, *metadata_forms(track)}:
        raise ValueError(f"case {case.id}: metadata form {sorted(stray)[0]!r} is none of track {track.name}'s")
    data, log = track.build(case, case_seed(seed, case.id))
    entry = CaseEntry(
        id=case.id, track=track.name, title=case.title, group=case.group, kind=case.kind, base=case.base,
        file=case_file(track, case.id), size=len(data), sha256=hashlib.sha256(data).hexdigest(),
        seed=case_seed(seed, case.id), mutations=[m.to_json() for m in case.mutations], expect=dict(case.expect),
        decode=dict(case.decode), citations=list(case.citations), notes=case.notes, extensions=log,
        large=case.large, op=case.op, data_unknown=case.data_unknown, keys=dict(case.keys),
        alternatives=[AlternativeEntry(label=a.label, reading=a.reading, expected=alternative_file(case.id, a.label),
                                       data_hash=data_hash(a.data)) for a in case.alternatives])
    return derived(track, entry, data), data


def alternative_file(case_id: str, label: str) -> str:
    """Where an alternative's data is in the corpus: beside the bases' expected data."""
    return f"expected/cases/{case_id}.{label}.json"


def derived(track: Track, entry: CaseEntry, data: bytes, base: bytes | None = None) -> CaseEntry:
    """The entry with the roles its track judges on the file itself (an optional `derive(base, data, expect)` over
    the base's bytes and the case's: role -> (expectation, data hash), e.g. Parquet's metadata role): their
    expectation where the entry names none, and the data hash a read in that role must have. `base`: the base's
    bytes, when it is not one of the track's bases (an imported file is its own)."""
    if not isinstance(track, Deriving):
        return entry
    base_data = track.base_file(entry.base) if base is None else base
    found = track.derive(base_data, data, entry.expect, entry.op)
    expect = {**{r: e for r, (e, _) in found.items()}, **entry.expect}
    # A derived role that expects what the default role does rests on the same sentences: its level too.
    default = track.default_role
    levels = {r: entry.levels[default] for r, (e, _) in found.items()
              if r not in entry.expect and default in entry.levels and e == entry.expect.get(default)}
    return replace(entry, expect=expect, expect_hash={r: h for r, (_, h) in found.items()},
                   levels={**levels, **entry.levels})


def base_entry(track: Track, name: str) -> BaseEntry:
    data, expected = track.base_file(name), track.base_expected(name)
    shape = expected if isinstance(expected, dict) else {}
    return BaseEntry(
        track=track.name, description=track.base_description(name), file=f"bases/{name}{track.suffix}",
        size=len(data), sha256=hashlib.sha256(data).hexdigest(), expected=f"expected/{name}.json",
        expected_size=len(expected_json(expected)), data_hash=data_hash(expected), rows=len(shape.get("rows", [])),
        columns=list(shape.get("columns", [])), baseline_case=track.baseline_case(name))


def expected_json(expected: object) -> bytes:
    return dump_json(expected).encode()


def select(tracks: Sequence[Track], only: str | None, large: bool) -> list[tuple[Track, Case]]:
    """Large cases need `large`."""
    return [(t, c) for t in tracks for c in t.cases() if (large or not c.large) and matches(c.id, only)]


def generate(out: Path, seed: int = 0, only: str | None = None, large: bool = False,
             tracks: Sequence[Track] | None = None, progress: Progress | None = None,
             upstream: Path | None = None) -> Manifest:
    """The corpus written into `out`: absent, empty, or an earlier corpus, replaced whole in one step at the end
    (kernel/trees.py `replaced`), so that an interrupt leaves the earlier corpus or the new one. `upstream`: a checkout
    of the projects whose files the tracks pin (corpus/upstream.py), put beside the cases."""
    trees.separate(out, replaces="a corpus")
    trees.replaceable(out, may_replace="a corpus")  # a folder it would refuse: refused before any case is built
    tracks = list(tracks) if tracks is not None else all_tracks()
    chosen = select(tracks, only, large)
    by_name = {t.name: t for t in tracks}
    # Files found in the wild (corpus/regression_store.py), after the catalog; read and checked before `out` changes.
    found = [(e, d) for e, d in regressions.case_entries(regressions.selected(only)) if e.track in by_name]
    found += pinned_entries(tracks, upstream, only)[0]  # the committed copies, and a checkout's files if given
    if not chosen and not found:
        raise ValueError(f"no case matches {only!r}")
    with trees.replaced(out, may_replace="a corpus") as staging:
        entries = []
        total = len(chosen) + len(found)
        for i, (track, case) in enumerate(chosen):
            if progress:
                progress(i, total, case.id)
            entry, data = build_case(track, case, seed)
            trees.write_below(staging, entry.file, data)
            for alternative, written in zip(case.alternatives, entry.alternatives, strict=True):
                trees.write_below(staging, written.expected, expected_json(alternative.data))
            entries.append(entry)
        for i, (entry, data) in enumerate(found, len(chosen)):
            if progress:
                progress(i, total, entry.id)
            trees.write_below(staging, entry.file, data)
            entries.append(derived(by_name[entry.track], entry, data))
        bases = {}
        ids = {e.id for e in entries}
        for track_name, name in sorted({(e.track, e.base) for e in entries}):
            track = by_name[track_name]
            base = bases[name] = base_entry(track, name)
            if base.baseline_case not in ids:  # left out by --only: the manifest names no baseline it lacks
                base = bases[name] = replace(base, baseline_case=None)
            trees.write_below(staging, base.file, track.base_file(name))
            trees.write_below(staging, base.expected, expected_json(track.base_expected(name)))
        writers = {k: v for t in tracks for k, v in t.writers().items()}
        return write_manifest(staging, tracks, writers, bases, entries, seed=seed, only=only, large=large)


def pinned_entries(tracks: Sequence[Track], checkout: Path | None,
                   only: str | None) -> tuple[list[tuple[CaseEntry, bytes]], list[upstream_files.Pin]]:
    """The upstream files the tracks pin (a track's optional `upstream_pins()`), from the checkout where given, else
    from the track's committed copies (its optional `upstream_copy()`), each checked against its pin; and the pins
    neither holds."""
    found: list[tuple[CaseEntry, bytes]] = []
    missing: list[upstream_files.Pin] = []
    for track in tracks:
        pins = getattr(track, "upstream_pins", None)
        if pins is not None:
            stored = getattr(track, "upstream_copy", lambda: None)()
            entries, lacking = upstream_files.case_entries(track, pins(), checkout, only,
                                                           lambda path, t=track: strict_kind(t.inspect(path)), stored)
            found += entries
            missing += lacking
    return found, missing


def write_manifest(out: Path, tracks: Sequence[Track], producers: Mapping[str, str], bases: dict[str, BaseEntry],
                   cases: list[CaseEntry], seed: int = 0, only: str | None = None, large: bool = False) -> Manifest:
    """The manifest of the corpus in `out` (its files written) and its digest: the generated corpus, an imported
    one, a written one. `producers`: what made its files (writers, readers that voted), with their versions."""
    manifest = Manifest(
        format=MANIFEST_FORMAT, manifest_version=MANIFEST_VERSION,
        generator={"name": GENERATOR, "version": GENERATOR_VERSION, **producers}, seed=seed, only=only, large=large,
        tracks=[t.name for t in tracks], expectations={str(k): v for k, v in EXPECTATION_MEANINGS.items()},
        roles={r: d for t in tracks for r, d in t.roles.items()}, bases=bases, cases=cases)
    manifest.check()
    trees.write_atomic(out / "manifest.json", dump_json(manifest.to_json()))
    write_manifest_digest(out)
    return manifest


# -- the run's corpus, generated once per (sources, writers, seed, tracks) ----------------------------


def corpus_key(seed: int, tracks: Sequence[Track]) -> str:
    """What a generated corpus depends on: the generator's and the tracks' code (every source file of
    generators/ and corpus/), the writers' versions, the seed and the tracks chosen."""
    digest = hashlib.sha256(f"{GENERATOR_VERSION}:{seed}".encode())
    packages = {"parquet_conformance.generators", "parquet_conformance.corpus"}
    packages |= {type(t).__module__ for t in tracks if not type(t).__module__.startswith("parquet_conformance.")}
    for package in sorted(packages):
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.origin
        folders = [Path(f) for f in spec.submodule_search_locations or []]
        files = [(f, p) for f in folders for p in sorted(f.rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
        for folder, path in files or [(Path(spec.origin).parent, Path(spec.origin))]:  # a package, or one module
            digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    for track in sorted(tracks, key=lambda t: t.name):
        digest.update(json.dumps([track.name, track.writers()], sort_keys=True).encode())
    return digest.hexdigest()[:16]


def generate_cached(out: Path, seed: int = 0, tracks: Sequence[Track] | None = None,
                    progress: Progress | None = None) -> bool:
    """Writes the corpus into `out` (which must not hold one): a copy of the same corpus generated before, or
    generated now and kept for the next run. True when it came from the cache. A copy, not links: a change
    to `out` never reaches the cache. A cache folder that cannot be written is passed by: the corpus is generated
    into `out` directly."""
    tracks = list(tracks) if tracks is not None else all_tracks()
    root = cache_root() / "corpora"
    cached = root / corpus_key(seed, tracks)
    with contextlib.ExitStack() as held:
        try:
            root.mkdir(parents=True, exist_ok=True)
            held.enter_context(cache_lock(root))
        except OSError:  # a cache folder this user cannot write (or search): passed by
            generate(out, seed=seed, tracks=tracks, progress=progress)
            return False
        # Under the lock: one process generates at a time (test workers, runs started together; one that waited
        # copies what the other made), and no pruning removes an entry while another process copies it.
        hit = (cached / "manifest.json").is_file()
        if hit:
            os.utime(cached)  # the most recently used: pruning keeps the corpora last used, not last made
        else:
            _generate_into_cache(cached, seed, tracks, progress)
        copy_tree(cached, out)
    return hit


def _generate_into_cache(cached: Path, seed: int, tracks: Sequence[Track], progress: Progress | None) -> None:
    root = cached.parent
    staging = Path(tempfile.mkdtemp(prefix=".new-", dir=root))
    try:
        generate(staging, seed=seed, tracks=tracks, progress=progress)
        staging.rename(cached)  # atomic; another run that got there first keeps its own
    except OSError:
        if not (cached / "manifest.json").is_file():
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    for old in sorted((p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")),
                      key=lambda p: p.stat().st_mtime)[:-CORPORA_KEPT]:
        shutil.rmtree(old, ignore_errors=True)


def copy_tree(src: Path, out: Path) -> None:
    """A corpus copied file by file into `out` (replaced whole at the end, as generate replaces it), no link
    followed in either tree."""
    trees.separate(out, {"the corpus": src}, replaces="a corpus")
    files, _ = trees.files_below(src)
    with trees.replaced(out, may_replace="a corpus") as staging:
        trees.copy_files(src, staging, files)
