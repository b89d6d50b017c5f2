"""apache/parquet-site's implementation-status data, as committed in parquet-site/ (verbatim YAML, provenance.json):
the feature ids by category, the engines and their versions, the legend and every engine's support table, as typed
records. The site's ids are the vocabulary of our parquet-site report and of the features family
(corpus/parquet/catalog/features.py).

The files are read by a loader of the YAML they use (block mappings and sequences, plain, single- and double-quoted
scalars, null and booleans), not by a YAML library: pyyaml is a development dependency only, and the files stay
byte for byte as upstream wrote them, so their sha256 is checked against provenance.json before anything is parsed.
Anything outside that subset (a flow collection, an anchor, a tag, a block scalar, a tab) is refused with its line;
tests/test_parquet_site_data.py holds the loader equal to pyyaml on every stored file."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).parent / "parquet-site"
DATA = "data/implementations"
STATUSES = ("full", "read", "write", "none", "unknown")  # legend.yaml's symbols


class SiteDataError(ValueError):
    """A stored file that is not the one provenance.json pins, or YAML outside the subset the loader reads."""


@dataclass(frozen=True)
class Feature:
    """One row of the site's tables: `implementation_status` False where the site keeps the feature out of the
    status tables (it shows it in the format's version table only)."""

    id: str
    category: str
    display_name: str
    compatibility: str | None = None  # forward_compatible | forward_incompatible
    released_in: str | None = None  # the parquet-format release
    implementation_status: bool = True
    note: str | None = None


@dataclass(frozen=True)
class Status:
    status: str  # one of STATUSES
    note: str | None = None
    since_read: str | None = None
    since_write: str | None = None


@dataclass(frozen=True)
class Support:
    """An engine's support table: feature id -> its status (absent: unknown)."""

    engine: str
    last_updated: str
    support: dict[str, Status] = field(default_factory=dict)


@dataclass(frozen=True)
class Engine:
    id: str
    display_name: str
    language: str
    default_version: str
    releases: tuple[str, ...]


@dataclass(frozen=True)
class SiteData:
    categories: tuple[tuple[str, str], ...]  # (id, name), in the site's order
    features: tuple[Feature, ...]
    engines: tuple[Engine, ...]
    support: dict[str, Support]  # engine id -> its table
    legend: dict[str, str]  # status -> its description
    provenance: tuple[dict[str, Any], ...]

    def feature(self, feature_id: str) -> Feature:
        return next(f for f in self.features if f.id == feature_id)

    def unlisted(self) -> dict[str, list[str]]:
        """engine -> the ids its support table names that no stored feature file lists (a support file updated after
        the feature files we could read: encoding-alp, logical-file, api-external-column-data)."""
        known = {f.id for f in self.features}
        return {e: sorted(set(s.support) - known) for e, s in self.support.items() if set(s.support) - known}


# -- the YAML subset ------------------------------------------------------------------------------

_KEY = re.compile(r'(?:"((?:[^"\\]|\\.)*)"|([A-Za-z0-9_][A-Za-z0-9_.-]*)):(?: (.*))?$')
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
# Plain scalars YAML 1.1 (pyyaml) reads as something else than the text, the null or the booleans handled here:
# refused, so that no file means one thing to us and another to pyyaml (quote them).
_NOT_TEXT = re.compile(r"[-+]?(?:0b[01_]+|0x[0-9a-fA-F_]+|0o?[0-7_]+|[0-9][0-9_]*(?::[0-5]?[0-9])+|\.[0-9_]+"
                       r"|[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[0-9][0-9_]*[eE][-+]?[0-9]+|\.(?:inf|Inf|INF)"
                       r"|[0-9][0-9_]*)|\.(?:nan|NaN|NAN)|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*"
                       r"|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|True|TRUE|False|FALSE|Null|NULL|=|<<")
_REFUSED = ("[", "{", "&", "*", "!", "|", ">", "%", "@", "`", "?", ",")
Line = tuple[int, int, str]  # (line number, indent, text)


def load_yaml(text: str) -> Any:
    """The document's value: nested dicts, lists and scalars, as yaml.safe_load gives them for this subset."""
    lines: list[Line] = []
    for n, raw in enumerate(text.splitlines(), 1):
        body = raw.strip(" ")
        if not body or body.startswith("#"):
            continue
        if "\t" in raw:
            raise SiteDataError(f"line {n}: a tab")
        indent = len(raw) - len(raw.lstrip(" "))
        while body == "-" or body.startswith("- "):  # "- key: value": an item, then its mapping's first key
            lines.append((n, indent, "-"))
            rest = body[1:].lstrip(" ")
            indent, body = indent + len(body) - len(rest), rest
        if body:
            lines.append((n, indent, body))
    if not lines:
        return None
    value, end = _block(lines, 0)
    if end != len(lines):
        raise SiteDataError(f"line {lines[end][0]}: indented where nothing can continue")
    return value


def _block(lines: list[Line], i: int) -> tuple[Any, int]:
    return (_sequence if lines[i][2] == "-" else _mapping)(lines, i, lines[i][1])


def _sequence(lines: list[Line], i: int, indent: int) -> tuple[list[Any], int]:
    out = []
    while i < len(lines) and lines[i][1] == indent and lines[i][2] == "-":
        if i + 1 < len(lines) and lines[i + 1][1] > indent:
            item, i = _block(lines, i + 1)
        else:
            item, i = None, i + 1
        out.append(item)
    return out, i


def _mapping(lines: list[Line], i: int, indent: int) -> tuple[dict[str, Any], int]:
    out: dict[str, Any] = {}
    while i < len(lines) and lines[i][1] == indent and lines[i][2] != "-":
        n, _, body = lines[i]
        m = _KEY.match(body)
        if m is None:
            raise SiteDataError(f"line {n}: not a key of the mapping: {body[:40]!r}")
        key = json.loads(f'"{m[1]}"') if m[1] is not None else m[2]
        if key in out:
            raise SiteDataError(f"line {n}: key {key!r} twice")
        # a value on the next lines: more indented, or a sequence at the key's own indent (YAML allows both)
        nested = i + 1 < len(lines) and (lines[i + 1][1] > indent or lines[i + 1][1:] == (indent, "-"))
        if m[3] is not None and m[3].strip():
            out[key] = _scalar(m[3], n)
            if i + 1 < len(lines) and lines[i + 1][1] > indent:
                raise SiteDataError(f"line {lines[i + 1][0]}: a scalar continued on the next line")
            i += 1
        elif nested:
            out[key], i = _block(lines, i + 1)
        else:
            out[key], i = None, i + 1
    return out, i


def _scalar(text: str, line: int) -> Any:
    text = text.strip(" ")
    if text.startswith('"'):
        if len(text) < 2 or not text.endswith('"'):
            raise SiteDataError(f"line {line}: an unterminated double-quoted scalar")
        try:
            return json.loads(text)  # the escapes the files use (\" \\) are JSON's
        except ValueError:
            raise SiteDataError(f"line {line}: a double-quoted scalar with escapes outside JSON's") from None
    if text.startswith("'"):
        if len(text) < 2 or not text.endswith("'") or "'" in text[1:-1].replace("''", ""):
            raise SiteDataError(f"line {line}: a malformed single-quoted scalar")
        return text[1:-1].replace("''", "'")
    if text.startswith(_REFUSED) or " #" in text or text.endswith(":") or ": " in text:
        raise SiteDataError(f"line {line}: YAML outside the subset this loader reads: {text[:40]!r}")
    if text in ("null", "~"):
        return None
    if text in ("true", "false"):
        return text == "true"
    if _INT.fullmatch(text):
        return int(text)
    if _NOT_TEXT.fullmatch(text):
        raise SiteDataError(f"line {line}: {text[:40]!r} is not text to YAML 1.1 (a number, date or boolean): quote it")
    return text


# -- the stored files -----------------------------------------------------------------------------


def _read(path: str, pins: dict[str, dict[str, Any]]) -> Any:
    pin = pins.get(path)
    if pin is None:
        raise SiteDataError(f"{path}: not in provenance.json")
    data = (FOLDER / path).read_bytes()
    if hashlib.sha256(data).hexdigest() != pin["sha256"]:
        raise SiteDataError(f"{FOLDER / path}: its sha256 is not the one provenance.json pins")
    return load_yaml(data.decode("utf-8"))


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


@cache
def site_data() -> SiteData:
    """Every stored file, checked against provenance.json and read into records."""
    provenance = json.loads((FOLDER / "provenance.json").read_text(encoding="utf-8"))
    pins = {f["path"]: f for f in provenance["files"]}
    categories = tuple((c["id"], c["name"]) for c in _read(f"{DATA}/categories.yaml", pins))
    features = []
    for category, _ in categories:
        doc = _read(f"{DATA}/features/{category}.yaml", pins)
        if doc["category_id"] != category:
            raise SiteDataError(f"features/{category}.yaml: category_id {doc['category_id']!r}")
        features += [Feature(f["id"], category, str(f["display_name"]), _text(f.get("compatibility")),
                             _text(f.get("released_in")), f.get("implementation_status") is not False,
                             _text(f.get("note"))) for f in doc["features"]]
    engines = tuple(Engine(e["id"], e["display_name"], e["language"], e["versions"]["default"],
                           tuple(e["versions"]["releases"])) for e in _read(f"{DATA}/engines.yaml", pins))
    legend = {k: v["description"] for k, v in _read(f"{DATA}/legend.yaml", pins)["symbols"].items()}
    if set(legend) != set(STATUSES):
        raise SiteDataError(f"legend.yaml: symbols {sorted(legend)}, not {list(STATUSES)}")
    support = {}
    for path in sorted(p for p in pins if p.startswith(f"{DATA}/support/")):
        doc = _read(path, pins)
        table = {}
        for fid, s in doc["support"].items():
            if s["status"] not in STATUSES:
                raise SiteDataError(f"{path}: {fid}: status {s['status']!r} is none of the legend's")
            table[fid] = Status(s["status"], _text(s.get("note")), _text(s.get("since_version_read")),
                                _text(s.get("since_version_write")))
        support[doc["engine_id"]] = Support(doc["engine_id"], str(doc["last_updated"]), table)
    return SiteData(categories, tuple(features), engines, support, legend, tuple(provenance["files"]))


def support_path(engine: str) -> str:
    """The site's support file of an engine, as its repository names it."""
    return f"{DATA}/support/{engine}.yaml"


@cache
def support_lines(engine: str) -> dict[str, int]:
    """feature id -> the line (1-based) of its key in the engine's stored support file: where a pull request to
    apache/parquet-site edits its status. Empty for an engine the site has no file for."""
    pins = {f["path"]: f for f in site_data().provenance}
    path = support_path(engine)
    if path not in pins:
        return {}
    _read(path, pins)  # checked against its pin first
    out = {}
    for n, line in enumerate((FOLDER / path).read_text(encoding="utf-8").splitlines(), 1):
        if m := re.fullmatch(r"  ([A-Za-z0-9][A-Za-z0-9_.-]*):\s*", line):
            out[m.group(1)] = n
    return out


def pinned(path: str) -> dict[str, Any]:
    """The provenance of a stored file: repository, path, commit, sha256."""
    return next(f for f in site_data().provenance if f["path"] == path)
