"""The structure docs/architecture.md describes, enforced: import direction (import-linter, with the
contracts in pyproject.toml), the package list against the folders, and no generic import names."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FOLDERS = ("generators", "corpus", "conformance", "reports")


def shim(tmp_path: Path) -> Path:
    """import-linter reads packages from disk and cannot follow the editable install's import hook: a
    directory where `parquet_conformance` is a real folder of links to the top-level folders."""
    root = tmp_path / "shim" / "parquet_conformance"
    root.mkdir(parents=True)
    for folder in FOLDERS:
        (root / folder).symlink_to(REPO / folder)
    return root.parent


def test_import_contracts_hold(tmp_path: Path) -> None:
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if lint is None:
        pytest.skip("import-linter is not installed (pip install -e '.[dev]')")
    proc = subprocess.run([lint, "--config", str(REPO / "pyproject.toml"), "--no-cache"], cwd=tmp_path,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(shim(tmp_path))})
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "BROKEN" not in proc.stdout and "5 kept, 0 broken" in proc.stdout


def test_every_package_folder_is_installed() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {"parquet_conformance." + ".".join(p.parent.relative_to(REPO).parts)
             for folder in FOLDERS for p in (REPO / folder).rglob("__init__.py")}
    assert listed == found


def test_no_generic_top_level_import_name_is_installed() -> None:
    """From outside the checkout, only parquet_conformance is importable: PyPI's `corpus`, `generators`,
    `conformance` and `reports` stay free (tests/test_packaging.py installs them beside a wheel)."""
    code = ("import importlib.util as u, json; print(json.dumps({n: getattr(u.find_spec(n), 'origin', None) "
            "for n in ('parquet_conformance', 'generators', 'corpus', 'conformance', 'reports')}))")
    proc = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True, check=True,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    found = __import__("json").loads(proc.stdout)
    assert {n: o for n, o in found.items() if n != "parquet_conformance"} == dict.fromkeys(FOLDERS), found


def test_architecture_doc_names_every_module() -> None:
    """docs/architecture.md is the map: every module of the four folders appears in it by name."""
    doc = (REPO / "docs" / "architecture.md").read_text()
    missing = [str(p.relative_to(REPO)) for folder in FOLDERS for p in sorted((REPO / folder).rglob("*.py"))
               if p.name != "__init__.py" or p.parent.name in ("adapters", "mutations", "catalog", "reports")
               if p.name not in doc]
    assert not missing, f"docs/architecture.md does not mention {missing}"
