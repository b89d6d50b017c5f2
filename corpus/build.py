"""Build the corpus: case files, base files, expected data and manifest.json.

Deterministic: the same generator version, pyarrow version and seed give byte-identical
trees. Each case's RNG seed derives from (seed, case id), so `--only` changes nothing in
the cases it keeps.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa

from conformance import __version__
from corpus import regressions
from corpus.catalog import Case, select_cases
from generators import mutations
from generators.bases import BASES, base_bytes, base_expected, base_hash

MANIFEST_VERSION = 1
EXPECTATIONS = {
    "read": "must return exactly the base data",
    "reject": "must fail with an error",
    "either": "may read (exactly the base data) or reject; never wrong data",
}
ROLES = {"legacy": "a reader that knows no extension (any Parquet reader today)"}
OUTPUT_DIRS = ("cases", "bases", "expected")


def case_seed(seed: int, case_id: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}:{case_id}".encode()).digest()[:8], "little")


def build_case(case: Case, seed: int) -> tuple[bytes, list[dict]]:
    return mutations.apply(base_bytes(case.base), list(case.transformations), case_seed(seed, case.id))


def case_file(case_id: str) -> str:
    return f"cases/{case_id}.parquet"


def case_entry(case: Case, seed: int, data: bytes, extensions: list[dict]) -> dict:
    return {
        "id": case.id,
        "title": case.title,
        "group": case.group,
        "kind": case.kind,
        "base": case.base,
        "file": case_file(case.id),
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "seed": case_seed(seed, case.id),
        "transformations": list(case.transformations),
        "expect": case.expect,
        "decode": case.decode,
        "citations": list(case.citations),
        "notes": case.notes,
        "extensions": extensions if case.kind == "golden" else None,
        "large": case.large,
    }


def base_entry(name: str) -> dict:
    data = base_bytes(name)
    expected = base_expected(name)
    return {
        "description": BASES[name].description,
        "file": f"bases/{name}.parquet",
        "sha256": hashlib.sha256(data).hexdigest(),
        "expected": f"expected/{name}.json",
        "data_hash": base_hash(name),
        "rows": len(expected["rows"]),
        "columns": expected["columns"],
    }


def _prepare(out: Path) -> None:
    if out.exists() and any(out.iterdir()):
        if not (out / "manifest.json").is_file():
            raise FileExistsError(f"{out} is not empty and holds no manifest.json; refusing to overwrite it")
        for name in OUTPUT_DIRS:
            shutil.rmtree(out / name, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)


def generate(out: Path, seed: int = 0, only: str | None = None, large: bool = False,
             progress: Callable[[int, int, str], None] | None = None) -> dict:
    cases = select_cases(only, large)
    # Files found in the wild (corpus/regressions.py), after the catalog; read and checked before `out` changes.
    found = list(regressions.case_entries(regressions.selected(only)))
    if not cases and not found:
        raise ValueError(f"no case matches {only!r}")
    _prepare(out)
    entries = []
    for i, case in enumerate(cases):
        if progress:
            progress(i, len(cases) + len(found), case.id)
        data, extensions = build_case(case, seed)
        path = out / case_file(case.id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        entries.append(case_entry(case, seed, data, extensions))
    for i, (entry, data) in enumerate(found, len(cases)):
        if progress:
            progress(i, len(cases) + len(found), entry["id"])
        path = out / entry["file"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        entries.append(entry)
    bases = {}
    for name in sorted({e["base"] for e in entries}):
        bases[name] = base_entry(name)
        (out / "bases").mkdir(exist_ok=True)
        (out / "bases" / f"{name}.parquet").write_bytes(base_bytes(name))
        (out / "expected").mkdir(exist_ok=True)
        (out / "expected" / f"{name}.json").write_text(dump_json(base_expected(name)))
    manifest = {
        "format": "parquet-conformance-manifest",
        "manifest_version": MANIFEST_VERSION,
        "generator": {"name": "parquet-conformance", "version": __version__, "pyarrow": pa.__version__},
        "seed": seed,
        "only": only,
        "large": large,
        "expectations": EXPECTATIONS,
        "roles": ROLES,
        "bases": bases,
        "cases": entries,
    }
    (out / "manifest.json").write_text(dump_json(manifest))
    return manifest


def dump_json(obj: object) -> str:
    return json.dumps(obj, indent=1, ensure_ascii=True) + "\n"
