"""The corpus's records, defined once: what a case is, what a reader must do with it, and the
manifest that lists them. Format-neutral: a track (corpus/track.py) fills them in.

Every record is a frozen dataclass with `to_json()` and `from_json()`; the JSON Schema of the
manifest (corpus/schemas/manifest.schema.json) is derived from these classes
(`python -m parquet_conformance.reports.schemas`) and docs/manifest.md is checked against them by a test.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from importlib import metadata
from typing import Any, Protocol, Self, TypeVar

T = TypeVar("T")

GENERATOR = "parquet-conformance"
GENERATOR_VERSION = metadata.version(GENERATOR)
MANIFEST_FORMAT = "parquet-conformance-manifest"
# 3: `levels` (every expectation's force); 2: `mutations` (was `transformations`, each `{"mutation": name}`), `track`,
# `baseline_case`
MANIFEST_VERSION = 3

# A reader role: `legacy`, `aware:<profile>`, or a track's own.
ROLE_RE = re.compile(r"[a-z][a-z0-9-]*(:[A-Za-z0-9][A-Za-z0-9._-]*)?")
# Case ids, adapter names and run ids travel into file names, XML and Markdown: one pattern for all.
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
CASE_ID_RE = re.compile(rf"{NAME_RE.pattern}(/{NAME_RE.pattern})*")
MAX_NAME = 100  # characters of a role, an adapter's name, a run id, a track, a base
MAX_CASE_ID = 400  # an imported case's id holds its source's path


def pattern(regex: re.Pattern[str], max_length: int = MAX_NAME) -> dict[str, Any]:
    """A name pattern of ours as a JSON Schema string (anchored; ECMA and Python read it alike)."""
    return {"pattern": f"^{regex.pattern}$", "maxLength": max_length}


ROLE = pattern(ROLE_RE)
NAME = pattern(NAME_RE)
CASE_ID = pattern(CASE_ID_RE, MAX_CASE_ID)
SHA256 = {"pattern": "^[0-9a-f]{64}$"}
# A key a case sends with its operation (`keys`: docs/adapter-protocol.md#keys): 16, 24 or 32 bytes as base64.
KEY = {"pattern": "^([A-Za-z0-9+/]{22}==|[A-Za-z0-9+/]{32}|[A-Za-z0-9+/]{43}=)$"}
KEY_RE = re.compile(KEY["pattern"])
MAX_KEYS = 16
KEYS = {"propertyNames": NAME, "values": KEY, "maxProperties": MAX_KEYS}
COUNT = {"minimum": 0, "maximum": (1 << 63) - 1}  # a size or a count: what an int64 column holds


class Expectation(StrEnum):
    """What a reader of one role must do with a case (nst/JSONTestSuite's y_/n_/i_)."""

    READ = "read"  # return exactly the base data
    REJECT = "reject"  # fail with an error
    EITHER = "either"  # read (exactly the base data) or reject

    @property
    def meaning(self) -> str:
        return EXPECTATION_MEANINGS[self]


EXPECTATION_MEANINGS = {
    Expectation.READ: "must return exactly the base data",
    Expectation.REJECT: "must fail with an error",
    Expectation.EITHER: "may read (exactly the base data) or reject; never wrong data",
}


class Level(StrEnum):
    """The force of what a case rests on (protobuf conformance's REQUIRED / RECOMMENDED): it weighs only the choice
    between reading and refusing; a crash, a hang, an unhandled error or wrong data fails at every level. One rule
    gives it (docs/spec-notes.md#levels): the strongest force among the sentences that require the expectation."""

    MUST = "must"  # a sentence of the format's released or main-line text that requires it (MUST, or what decides it)
    SHOULD = "should"  # a SHOULD, a recommendation, of such a text
    POLICY = "policy"  # this suite's own reading (docs/spec-notes.md says why), a proposal, upstream code

    @property
    def rank(self) -> int:
        """0 for the strongest (must), 2 for policy: `check --level L` enforces every level of rank <= L's."""
        return LEVELS.index(self)

    @property
    def phrase(self) -> str:
        """How a verdict's explanation words this force, before the sentence it quotes."""
        return LEVEL_PHRASES[self]


LEVELS = (Level.MUST, Level.SHOULD, Level.POLICY)  # strongest first
LEVEL_PHRASES = {Level.MUST: "the spec requires", Level.SHOULD: "the spec recommends",
                 Level.POLICY: "this suite's reading"}


def expectation_levels(expect: Mapping[str, Expectation], citations: Iterable[Citation],
                       given: Mapping[str, Level] | None = None) -> dict[str, Level]:
    """role -> the force of its expectation (docs/spec-notes.md#levels): the strongest force among the sentences that
    require it; where none does, `policy` (this suite's reading: no default to `must`). `given`: levels already
    recorded (a manifest's), kept as they are."""
    cites = list(citations)
    out = {}
    for role in expect:
        forces = [c.level for c in cites if role in c.requires and c.level is not None]
        out[role] = Level((given or {}).get(role) or min(forces, key=LEVELS.index, default=Level.POLICY))
    return out


def level_sentence(citations: Iterable[Citation], role: str, level: Level) -> Citation | None:
    """The sentence a role's level rests on, as the reports quote it beside a verdict: the case's citation that
    requires the role's expectation with that force; else one of that force (the sentence a case states its level
    from); else one that requires it with another force (this suite's reading of it, or a case that states a weaker
    level than its sentence's); for a must, else the first sentence of that force the case rests on. None: no
    sentence (a policy whose reason is the case's notes)."""
    cites = list(citations)
    for fits in (lambda c: role in c.requires and c.level == level, lambda c: c.level == level,
                 lambda c: role in c.requires):
        if found := next((c for c in cites if fits(c)), None):
            return found
    return next((c for c in cites if c.level in (None, Level.MUST)), None) if level == Level.MUST else None


class Kind(StrEnum):
    """What the track's own strict decoder concludes about a case's file."""

    GOLDEN = "golden"  # valid
    NONCONFORMING = "nonconforming"  # decodes, but breaks a rule of the spec
    CORRUPT = "corrupt"  # does not decode
    REGRESSION = "regression"  # a file found in the wild, kept as a permanent case


# A case's `decode`, role -> the metadata form an aware reader must use when it reads: one of the forms its track
# declares (corpus/track.py MetadataForms; build checks), or ANY_FORM.
ANY_FORM = "either"


@dataclass(frozen=True)
class Citation:
    """The sentence a case rests on: `source` names the upstream file at a commit (or seed, or this suite's own
    docs/spec-notes.md), `seed` the copy in shared/seeds. `requires`: the roles whose expectation in this case the
    sentence requires; empty where it only gives context (docs/spec-notes.md#expectations). `level`: the sentence's
    force for what it is cited for (docs/spec-notes.md#levels); None where it has none (a definition of a structure,
    a permission, a description): such a sentence requires nothing."""

    source: str
    section: str
    quote: str
    seed: str | None = None
    requires: tuple[str, ...] = field(default=(), metadata={"schema": {"items": ROLE}})
    level: Level | None = None  # the sentence's force; None: none (context only)

    def __post_init__(self) -> None:
        object.__setattr__(self, "requires", tuple(self.requires))  # JSON gives a list
        if self.level is not None:
            object.__setattr__(self, "level", Level(self.level))
        if bad := [r for r in self.requires if not ROLE_RE.fullmatch(r)]:
            raise ValueError(f"citation requires {bad[0]!r}, which is not a role")
        if self.requires and self.level is None:
            raise ValueError(f"citation {self.quote[:40]!r} requires {self.requires[0]!r} but states no force")

    def requiring(self, *roles: str) -> Citation:
        """The same sentence, as what requires these roles' expectation in the case that cites it."""
        return replace(self, requires=tuple(dict.fromkeys((*self.requires, *roles))))

    def to_json(self) -> dict[str, Any]:
        out = _drop_none(self)
        out["requires"] = list(self.requires)
        if not self.requires:
            del out["requires"]
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self:
        return _construct(cls, obj)


OWN_RULES = "parquet-conformance docs/spec-notes.md"  # the source of this suite's own rules


def own_rule(anchor: str, quote: str) -> Citation:
    """One of this suite's own rules, where no sentence of the spec decides: quoted verbatim from its paragraph of
    docs/spec-notes.md (`anchor`), at the force `policy` ("this suite's reading")."""
    return Citation(OWN_RULES, f"#{anchor}", quote, None, level=Level.POLICY)


@dataclass(frozen=True)
class WriterFinding:
    """A rule of the spec a written file breaks, as a track's strict decoder found it, and the sentence it breaks: the
    reason of a writer's `fail:nonconforming` (conformance/harness/judge.py Judge.writer_cell)."""

    rule: str
    path: str
    message: str
    citation: Citation

    def to_json(self) -> dict[str, Any]:
        return {**_plain(self), "citation": self.citation.to_json()}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self:
        return _construct(cls, {**obj, "citation": Citation.from_json(obj["citation"])})


@dataclass(frozen=True)
class Alternative:
    """Other data a `read` may return and be right, beside the base's: what another reading the text gives yields
    (a VARIANT decoded rather than read as its physical group; a TIMESTAMP on FIXED_LEN_BYTE_ARRAY(12) read as PR
    #601's instants). `data`: canonical data in normal form (what a worker of ours hashes); the manifest records its
    file and hash (AlternativeEntry). Other data than the base's and the alternatives' is still wrong data."""

    label: str  # NAME: names its expected file
    reading: str  # the reading that gives it, in a sentence
    data: Mapping[str, Any]

    def __post_init__(self) -> None:
        if not NAME_RE.fullmatch(self.label):
            raise ValueError(f"alternative label {self.label!r} is not a name")


@dataclass(frozen=True)
class AlternativeEntry:
    """An Alternative as the manifest records it: its data in the corpus (`expected`) and that data's hash."""

    label: str = field(metadata={"schema": NAME})
    reading: str
    expected: str = field(metadata={"schema": {"minLength": 1, "maxLength": 4096}})
    data_hash: str = field(metadata={"schema": SHA256})

    def to_json(self) -> dict[str, Any]:
        return _plain(self)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self:
        return _construct(cls, obj)


class Mutation(Protocol):
    """One step from a base file to a case file; each track defines its own (generators/<track>/mutations)."""

    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Case:
    """A catalog entry: what the file is and what each reader role must do with it."""

    id: str
    title: str
    kind: Kind
    base: str
    mutations: tuple[Mutation, ...]
    expect: Mapping[str, Expectation]
    citations: tuple[Citation, ...]
    notes: str = ""
    large: bool = False
    decode: Mapping[str, str] = field(default_factory=dict)  # role -> a metadata form of the track, or ANY_FORM
    op: str = "read"  # what the worker is asked to do with the file (a track may define more)
    # No reference can state the file's data (a fuzz find on damaged data pages): a read is judged on read versus
    # reject only, never on its data.
    data_unknown: bool = False
    # Other data a read may return and be right (another reading's), each with its label: never with data_unknown.
    alternatives: tuple[Alternative, ...] = ()
    # Sent with the operation: the keys a reader needs (key id -> base64; Parquet's `decrypt`), never for a `read`
    keys: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_case_id(self.id)
        check_keys(self.id, self.op, self.keys)
        object.__setattr__(self, "keys", dict(self.keys))
        if self.alternatives and self.data_unknown:
            raise ValueError(f"case {self.id}: alternatives of data no reference can state")
        if len({a.label for a in self.alternatives}) != len(self.alternatives):
            raise ValueError(f"case {self.id}: two alternatives of one label")
        if bad := [r for r in [*self.expect, *self.decode] if not ROLE_RE.fullmatch(r)]:
            raise ValueError(f"case {self.id}: {bad[0]!r} is not a role")
        if not self.citations:
            raise ValueError(f"case {self.id}: no citation")
        if stray := [r for c in self.citations for r in c.requires if r not in self.expect]:
            raise ValueError(f"case {self.id}: a citation requires the expectation of {stray[0]!r}, which it has not")
        # The catalog may write plain strings; the record holds enums (ValueError on a word that is none).
        object.__setattr__(self, "kind", Kind(self.kind))
        object.__setattr__(self, "expect", {r: Expectation(w) for r, w in self.expect.items()})
        if bad := [w for w in self.decode.values() if not isinstance(w, str) or not NAME_RE.fullmatch(w)]:
            raise ValueError(f"case {self.id}: {bad[0]!r} is not a metadata form")
        object.__setattr__(self, "decode", dict(self.decode))

    def level(self, role: str) -> Level:
        return expectation_levels(self.expect, self.citations)[role]

    @property
    def group(self) -> str:
        return self.id.split("/")[0]


def check_keys(case_id: str, op: str, keys: Mapping[str, str]) -> None:
    """The keys a case sends with its operation (KEYS, which the manifest's schema checks too): at most MAX_KEYS
    names, each with a base64 key of 16, 24 or 32 bytes, and never with a plain read."""
    if len(keys) > MAX_KEYS:
        raise ValueError(f"case {case_id}: {len(keys)} keys, more than {MAX_KEYS}")
    if bad := [k for k, v in keys.items() if not NAME_RE.fullmatch(k) or not KEY_RE.fullmatch(v)]:
        raise ValueError(f"case {case_id}: key {bad[0]!r} is not a name with a base64 key of 16, 24 or 32 bytes")
    if keys and op == "read":
        raise ValueError(f"case {case_id}: keys for a plain read (an operation of the track takes them)")


def check_case_id(case_id: str) -> None:
    if not CASE_ID_RE.fullmatch(case_id):
        raise ValueError(f"bad case id {case_id!r}: use /-separated names of letters, digits, '.', '_', '+', '-'")


@dataclass(frozen=True)
class CaseEntry:
    """A case as the manifest records it: the catalog entry plus its file."""

    id: str = field(metadata={"schema": CASE_ID})
    track: str = field(metadata={"schema": NAME})
    title: str
    group: str = field(metadata={"schema": NAME})
    kind: Kind
    base: str = field(metadata={"schema": NAME})
    file: str = field(metadata={"schema": {"minLength": 1, "maxLength": 4096}})
    size: int = field(metadata={"schema": COUNT})
    sha256: str = field(metadata={"schema": SHA256})
    seed: int
    mutations: list[dict[str, Any]]
    expect: dict[str, Expectation] = field(metadata={"schema": {"propertyNames": ROLE}})
    decode: dict[str, str] = field(metadata={"schema": {"propertyNames": ROLE, "values": NAME}})
    citations: list[Citation]
    notes: str
    extensions: list[dict[str, Any]] | None  # what the mutations wrote (a track's own log; Parquet: extensions)
    large: bool
    op: str = field(default="read", metadata={"schema": NAME})
    data_unknown: bool = False  # as Case.data_unknown: reads are not judged on their data
    # role -> the data hash a read must have in that role instead of the base's data (and the reader's baseline):
    # what the track derives from the case file itself (corpus/track.py Deriving)
    expect_hash: dict[str, str] = field(default_factory=dict,
                                        metadata={"schema": {"propertyNames": ROLE, "values": SHA256}})
    # role -> the force of its expectation, one per role of `expect` (expectation_levels fills in what is not given:
    # the requiring sentences' force, else policy)
    levels: dict[str, Level] = field(default_factory=dict, metadata={"schema": {"propertyNames": ROLE}})
    # other data a read may return and be right (Case.alternatives): in every role not judged on `expect_hash`
    alternatives: list[AlternativeEntry] = field(default_factory=list)
    keys: dict[str, str] = field(default_factory=dict, metadata={"schema": KEYS})  # as Case.keys

    def __post_init__(self) -> None:
        if stray := [r for r in self.levels if r not in self.expect]:
            raise ValueError(f"case {self.id}: a level for {stray[0]!r}, which has no expectation")
        check_keys(self.id, self.op, self.keys)
        object.__setattr__(self, "levels", expectation_levels(self.expect, self.citations, self.levels))

    def to_json(self) -> dict[str, Any]:
        out = _plain(self)
        out["citations"] = [c.to_json() for c in self.citations]
        out["alternatives"] = [a.to_json() for a in self.alternatives]
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self:
        obj = dict(obj)
        obj["alternatives"] = [AlternativeEntry.from_json(a) for a in obj.get("alternatives") or []]
        obj["kind"] = Kind(obj["kind"])
        obj["expect"] = {r: Expectation(w) for r, w in obj["expect"].items()}
        obj["levels"] = {r: Level(w) for r, w in (obj.get("levels") or {}).items()}
        obj["decode"] = dict(obj.get("decode") or {})
        obj["keys"] = dict(obj.get("keys") or {})
        obj["citations"] = [Citation.from_json(c) for c in obj["citations"]]
        return _construct(cls, obj)


@dataclass(frozen=True)
class BaseEntry:
    """A base: the unmodified file cases start from, and the data every `read` must return."""

    track: str = field(metadata={"schema": NAME})
    description: str
    file: str = field(metadata={"schema": {"minLength": 1, "maxLength": 4096}})
    size: int = field(metadata={"schema": COUNT})
    sha256: str = field(metadata={"schema": SHA256})
    expected: str = field(metadata={"schema": {"minLength": 1, "maxLength": 4096}})
    expected_size: int = field(metadata={"schema": COUNT})
    data_hash: str = field(metadata={"schema": SHA256})
    rows: int = field(metadata={"schema": COUNT})
    columns: list[str]
    # the case that is this base unmodified: an adapter's reading of it is its baseline
    baseline_case: str | None = field(metadata={"schema": CASE_ID})

    def to_json(self) -> dict[str, Any]:
        return _plain(self)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self:
        return _construct(cls, obj)


@dataclass(frozen=True)
class Manifest:
    format: str
    manifest_version: int
    # name, version, and the versions of the writers the tracks used
    generator: dict[str, str] = field(metadata={"schema": {"required": ["version"]}})
    seed: int
    only: str | None
    large: bool
    tracks: list[str] = field(metadata={"schema": {"items": NAME}})
    expectations: dict[str, str]
    roles: dict[str, str] = field(metadata={"schema": {"propertyNames": ROLE}})
    bases: dict[str, BaseEntry] = field(metadata={"schema": {"propertyNames": NAME}})
    cases: list[CaseEntry]

    def to_json(self) -> dict[str, Any]:
        out = _plain(self)
        out["bases"] = {k: b.to_json() for k, b in self.bases.items()}
        out["cases"] = [c.to_json() for c in self.cases]
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self:
        if not isinstance(obj, Mapping) or obj.get("format") != MANIFEST_FORMAT:
            raise ValueError("not a parquet-conformance manifest")
        if obj.get("manifest_version") != MANIFEST_VERSION:
            raise ValueError(f"manifest_version {obj.get('manifest_version')!r}; this version reads {MANIFEST_VERSION}")
        obj = dict(obj)
        obj["bases"] = {k: BaseEntry.from_json(b) for k, b in obj["bases"].items()}
        obj["cases"] = [CaseEntry.from_json(c) for c in obj["cases"]]
        manifest = _construct(cls, obj)
        manifest.check()
        return manifest

    def check(self) -> None:
        """What JSON Schema cannot say: unique ids, bases that exist, and a base's baseline case (whose reading excuses
        a reader's representation of the base's data: conformance/harness/judge.py) a case of that base in this
        manifest, or none (a corpus generated with --only names none where it left the baseline case out)."""
        seen: set[str] = set()
        for case in self.cases:
            check_case_id(case.id)
            if case.id in seen:
                raise ValueError(f"case {case.id!r} appears twice")
            seen.add(case.id)
            if case.base not in self.bases:
                raise ValueError(f"case {case.id!r} names base {case.base!r}, which the manifest does not have")
        for name, base in self.bases.items():
            if base.baseline_case is None:
                continue
            if base.baseline_case not in seen:
                raise ValueError(f"base {name!r}: its baseline_case {base.baseline_case!r} is no case of the manifest")
            if (of := self.case(base.baseline_case).base) != name:
                raise ValueError(f"base {name!r}: its baseline_case {base.baseline_case!r} is a case of base {of!r}")

    def case(self, case_id: str) -> CaseEntry:
        return self._by_id[case_id]

    @property
    def _by_id(self) -> dict[str, CaseEntry]:
        cached: dict[str, CaseEntry] | None = self.__dict__.get("_index")
        if cached is None:
            cached = {c.id: c for c in self.cases}
            object.__setattr__(self, "_index", cached)
        return cached


def manifest_schema() -> dict[str, Any]:
    """manifest.json's JSON Schema, derived from the records (corpus/schemas/manifest.schema.json)."""
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.kernel.documents import document_schema

    return document_schema("parquet-conformance manifest.json", Manifest,
                           (CaseEntry, BaseEntry, Citation, AlternativeEntry))


def matches(case_id: str, only: str | None) -> bool:
    """`only`: globs over case ids, comma-separated (`base/*,corrupt/*`); None matches all."""
    return only is None or any(fnmatch.fnmatch(case_id, p.strip()) for p in only.split(","))


def dump_json(obj: object) -> str:
    return json.dumps(obj, indent=1, ensure_ascii=True) + "\n"


def _plain(record: object) -> dict[str, Any]:
    return {f.name: getattr(record, f.name) for f in fields(record)}  # type: ignore[arg-type]


def _drop_none(record: object) -> dict[str, Any]:
    return {k: v for k, v in _plain(record).items() if v is not None}


def _construct(cls: type[T], obj: Mapping[str, Any]) -> T:
    """Builds a record from JSON, ignoring keys a later version may add; a missing key is a ValueError."""
    names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    try:
        return cls(**{k: v for k, v in obj.items() if k in names})
    except TypeError as e:
        raise ValueError(f"{cls.__name__}: {e}") from None
