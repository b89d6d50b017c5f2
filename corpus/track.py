"""A track is one wire format under the suite (its folders: docs/architecture.md): it provides its
cases, its bases with their data in canonical form, how a worker's answer becomes canonical
data, and (registered separately) its adapters. Everything else (build, run, judge, report,
gate) is shared and imports no track: it reaches them through `get` and `all_tracks`.

Adding a track: a folder per layer for its code, an object satisfying `Track`, and one entry-point line
(group `parquet_conformance.tracks`). tests/toy/ is the smallest example. What a track may also offer is a
declared protocol (`Fuzzable`, `Skippable`), checked with isinstance, never probed by name.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from parquet_conformance.corpus.model import Case, Citation, Expectation, Kind, Mutation, WriterFinding
from parquet_conformance.kernel import registry
from parquet_conformance.kernel.errors import UsageError


class Track(Protocol):
    name: str  # also the `track` of every case and base it makes
    suffix: str  # of its case files, e.g. ".parquet"
    default_role: str  # the role an adapter has when it names none
    roles: Mapping[str, str]  # role -> what such a reader knows (for the manifest)

    def cases(self) -> Sequence[Case]:
        """The catalog, in a stable order; ids unique (the track checks this when it loads)."""
        ...

    def bases(self) -> Sequence[str]: ...

    def base_description(self, name: str) -> str: ...

    def base_file(self, name: str) -> bytes: ...

    def base_expected(self, name: str) -> object:
        """The base's data in the track's canonical form (JSON-able)."""
        ...

    def baseline_case(self, name: str) -> str | None:
        """The case that is the base unmodified, if any: an adapter's reading of it is its baseline."""
        ...

    def build(self, case: Case, seed: int) -> tuple[bytes, list[dict[str, Any]] | None]:
        """The case's bytes, replayed from its base and mutations with this seed, and what they wrote."""
        ...

    def parse_mutation(self, obj: Mapping[str, Any]) -> Mutation:
        """A mutation from its manifest form; ValueError naming the mutation if it is not valid."""
        ...

    def normalize(self, answer: Mapping[str, Any]) -> object:
        """The canonical data of a worker's `read` answer; ValueError if it holds no such data."""
        ...

    def writers(self) -> dict[str, str]:
        """Versions of the libraries that wrote the bases (recorded in the manifest)."""
        ...

    def read_data(self, path: Path) -> list[object]:
        """The track's own readings of a file (canonical data), for `corpus import` to find the data the readers
        agree on in; empty when it has none."""
        ...

    def inspect(self, path: Path) -> dict[str, Any]:
        """What a file of this format holds (`parquet-conformance inspect`); `valid` says if it decodes, and
        `findings`, where a track has them, list the rules of its spec the file breaks (`inspect --strict`).
        A track that reads on two levels says with `strict` whether its strict decoder accepts the file
        (strict_kind); without it, `valid` is that word."""
        ...

    def describe_inspection(self, report: Mapping[str, Any]) -> str:
        """`inspect`'s report as text."""
        ...


def strict_kind(report: Mapping[str, Any]) -> Kind:
    """A track's inspect report (Track.inspect) as a kind: corrupt where it does not decode, nonconforming where
    it decodes but the strict decoder refuses it (a rule of the spec broken), golden otherwise."""
    if not report["valid"]:
        return Kind.CORRUPT
    return Kind.GOLDEN if report.get("strict", True) else Kind.NONCONFORMING


@dataclass(frozen=True)
class Oracle:
    """What a generated file must do, as the track's strict decoder and reference reader decide it: per role,
    `read` (it decodes to the base's data), `reject` (it does not decode) or `either` (it decodes to other
    metadata: any answer but wrong data, a crash or a hang). `other_data`: the reference read other data than
    the base's, so a reader's data cannot be judged against the base (any read passes)."""

    expect: dict[str, Expectation]
    other_data: bool = False


class Fuzzer(Protocol):
    """A track's side of `fuzz` (app/fuzz.py, docs/fuzzing.md): files as a base plus a chain of steps,
    drawn by a Hypothesis strategy, replayed from the chain alone, and judged by the track's own decoder."""

    default_adapters: tuple[str, ...]  # what `fuzz` runs without --adapter: readers fast enough to search with

    def chains(self) -> Any:
        """The Hypothesis strategy of chains (opaque to the harness)."""
        ...

    def base_of(self, chain: Any) -> str: ...

    def build(self, chain: Any) -> bytes:
        """The chain replayed on its base; a step that does not apply to what came before it is skipped."""
        ...

    def to_json(self, chain: Any) -> dict[str, Any]: ...

    def from_json(self, obj: Mapping[str, Any]) -> Any: ...

    def oracle(self, data: bytes, base: str) -> Oracle: ...

    def citations(self, expect: Mapping[str, Expectation] | None = None) -> list[Citation]:
        """What the oracle's expectations rest on: cited by every regression case a finding becomes. Given the
        case's expectations, the sentences that require its `reject`s (and aware `read`s) are marked so
        (Citation.requires; docs/spec-notes.md#expectations)."""
        ...


@runtime_checkable
class Fuzzable(Protocol):
    """A track that `fuzz` can search (its Fuzzer needs hypothesis: imported on use)."""

    def fuzzer(self) -> Fuzzer: ...


@runtime_checkable
class Deriving(Protocol):
    """A track with roles judged on the case file itself (a metadata-only reader's role, say), not on the base's
    data: at generate time, per such role, the expectation and the data hash a read must have; `op`, the case's
    operation, where its answer is not the rows (a track's operations on a file's metadata, say)."""

    def derive(self, base: bytes, data: bytes, expect: Mapping[str, Expectation],
               op: str = "read") -> dict[str, tuple[Expectation, str]]: ...


@runtime_checkable
class Skippable(Protocol):
    """A track with an extension readers must skip, for the skip-overhead measurement (app/overhead.py)."""

    def skippable(self, base: str, size: int | None) -> bytes:
        """The base with a skippable extension of `size` bytes (None: the base itself)."""
        ...


class Extended(Protocol):
    data: bytes  # the extended file
    placed: list[dict[str, Any]]  # each extension written, as the track's `inspect` lists it
    warnings: list[str]  # what the user should know; the file is written all the same

    @property
    def lines(self) -> list[str]:
        """Each extension written, as one line of text."""
        ...


class Extender(Protocol):
    """A track's side of `extend` (app/extend.py, docs/extending.md): a vendor's payload appended to
    structs of an existing file as the track's extension mechanism appends it."""

    max_payload: int  # bytes: a bigger payload file is refused before it is read
    errors: tuple[type[Exception], ...]  # what `extend` raises for input it cannot use (one line each)
    description: str  # `extend --help`: what the track's extension does
    epilog: str  # `extend --help`: examples
    options: tuple[str, ...]  # the names of the options add_options declares, handed to `extend`

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        """The track's own options of `extend` (FILE, --payload-file, --out and the rest are every track's)."""

    def extend(self, data: bytes, payload: bytes, **options: Any) -> Extended: ...


@runtime_checkable
class Described(Protocol):
    """A track that says, in a corpus archive's README (corpus/pack.py), what its files test and what each kind
    (corpus/model.py Kind) of its cases means to its strict decoder."""

    archive_intro: str
    kinds: Mapping[str, str]


@runtime_checkable
class Reporting(Protocol):
    """A track with report formats of its own: registered report formats (reports/) that draw its cells alone."""

    report_formats: tuple[str, ...]


def report_formats() -> dict[str, str]:
    """Report format -> the track it belongs to (the formats no track claims draw every track's cells)."""
    return {name: t.name for t in all_tracks() if isinstance(t, Reporting) for name in t.report_formats}


@runtime_checkable
class MetadataForms(Protocol):
    """A track whose files can carry their metadata in more than one form: a case's `decode` names the form an
    aware reader must use (or corpus/model.py ANY_FORM), and a reader's answer (`Read.metadata`) the one it used."""

    metadata_forms: tuple[str, ...]


def metadata_forms(track: Track) -> tuple[str, ...]:
    """The metadata forms a track declares (none: its cases name none)."""
    return track.metadata_forms if isinstance(track, MetadataForms) else ()


@runtime_checkable
class Extensible(Protocol):
    """A track whose files carry extensions a vendor can append (`extend`)."""

    def extender(self) -> Extender: ...


@dataclass(frozen=True)
class WrittenVariant:
    """A written file as readers meet it: as written, or with the spec's extensions added (`mutations`, replayed on
    the written file), with what a reader must do with it and why."""

    name: str  # "as-written", or the family of extensions added (one of Writable.written_variants)
    title: str
    kind: Kind
    mutations: tuple[Mutation, ...]
    expect: dict[str, Expectation]
    citations: tuple[Citation, ...]
    notes: str
    data: bytes


@dataclass(frozen=True)
class Written:
    """The track's word on a file a writer wrote from one of its tables: the rules it breaks, its data as the track's
    reference reads it back, and the variants readers are given. `expected`: the data a reader must return (the
    table's where the writer kept it; else what the file holds); None where nothing reads the file back."""

    findings: tuple[WriterFinding, ...]
    decodes: bool  # a lenient reader of the format decodes it (the track's first level of reading)
    expected: object | None
    same_data: bool  # the data read back is the table's
    differing: tuple[str, ...]  # columns whose values differ from the table's
    read_by: str | None  # which of the track's readers read it back
    read_error: str | None
    created_by: str | None
    variants: tuple[WrittenVariant, ...]
    features: tuple[str, ...] = ()  # the track's feature ids the file uses (what its writer shows it writes)


@runtime_checkable
class Writable(Protocol):
    """A track whose files other implementations write (app/writers.py): the tables a writer is given and
    the named profiles it writes them with, and the track's word on each file written."""

    def write_profiles(self) -> Mapping[str, str]:
        """Profile name -> what it asks of a writer (`default`: the writer's own defaults)."""
        ...

    def write_jobs(self) -> Sequence[tuple[str, str]]:
        """(profile, table) of every file a writer is asked for; tables are the track's bases."""
        ...

    def write_input(self, table: str) -> bytes:
        """The table as a writer is given it (an Arrow IPC file)."""
        ...

    def written_variants(self) -> Mapping[str, str]:
        """Variant name -> what readers are given (`as-written` first: the file as written), in the reports' order."""
        ...

    def judge_written(self, table: str, data: bytes, columns: Sequence[str] | None = None) -> Written:
        """The track's word on a file written from `table` (`columns`: the writer was given only those)."""
        ...


def extender(track: Track) -> Extender:
    """The track's extension toolkit; UsageError if it has none."""
    if not isinstance(track, Extensible):
        raise UsageError(f"track {track.name!r} has no extension mechanism to extend files with")
    return track.extender()


def fuzzer(track: Track) -> Fuzzer:
    """The track's fuzzer; UsageError if it has none."""
    if not isinstance(track, Fuzzable):
        raise UsageError(f"track {track.name!r} has no fuzzer")
    return track.fuzzer()


def valid_role(track: Track, role: str) -> bool:
    """One of the track's roles, or another of a family it has (`aware:x` where `aware:...` roles exist)."""
    families = {r.split(":", 1)[0] for r in track.roles if ":" in r}
    return role in track.roles or (":" in role and role.split(":", 1)[0] in families)


def names() -> list[str]:
    return registry.names(registry.TRACKS)


def get(name: str) -> Track:
    track = registry.load(registry.TRACKS, name)
    return track  # type: ignore[return-value]


def all_tracks() -> list[Track]:
    return [get(n) for n in names()]


def installed(name: str) -> Track | None:
    """The track of that name, if it is installed here (a corpus may hold a track this installation lacks)."""
    return get(name) if name in names() else None
