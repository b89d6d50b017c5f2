"""The structure docs/architecture.md describes, enforced: the floors (import-linter, contracts in pyproject.toml),
the track folders (no module outside a track's folders imports them), the package list against the folders, no
generic import names, and the map itself (every module path in docs/architecture.md's tree exists, and every module
is in it)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
FOLDERS = ("kernel", "generators", "corpus", "conformance", "reports")


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
    assert "BROKEN" not in proc.stdout and re.search(r"Contracts: [1-9]\d* kept, 0 broken", proc.stdout)


# a package directly below one of these is a track's (reports/<track>/: its own report formats)
TRACK_PARENTS = ("generators", "corpus", "conformance.adapters", "reports")


def track_of(module: str) -> str | None:
    """The track folder a module lies in (`parquet_conformance.corpus.skiff.catalog` -> `corpus.skiff`), if any."""
    parts = module.removeprefix("parquet_conformance.")
    for parent in TRACK_PARENTS:
        rest = parts.removeprefix(parent + ".")
        if rest != parts and (REPO / parent.replace(".", "/") / rest.split(".")[0] / "__init__.py").is_file():
            return f"{parent}.{rest.split('.')[0]}"
    return None


def import_graph(tmp_path: Path) -> Any:
    """grimp's graph of the installed layout (through the shim)."""
    grimp = pytest.importorskip("grimp")
    root = str(shim(tmp_path))
    sys.path.insert(0, root)
    try:
        return grimp.build_graph("parquet_conformance", cache_dir=None)
    finally:
        sys.path.remove(root)


def test_the_adapter_base_imports_no_harness(tmp_path: Path) -> None:
    """The adapter base and its capabilities (conformance/adapters/*.py) say who an adapter is and what it can do; the
    harness (workers, release environments) uses them, never the other way round: no circle through envs.py."""
    graph = import_graph(tmp_path)
    base = [m for m in graph.modules if m.count(".") == 3 and m.startswith("parquet_conformance.conformance.adapters.")
            and track_of(m) is None]
    base.append("parquet_conformance.conformance.adapters")
    wrong = [f"{m} -> {i}" for m in sorted(base) for i in sorted(graph.find_modules_directly_imported_by(m))
             if i.startswith("parquet_conformance.conformance.harness")]
    capabilities = {f"parquet_conformance.conformance.adapters.{m}" for m in ("writing", "reproducing", "taxonomy")}
    assert capabilities <= set(base)
    assert not wrong, wrong


def test_no_module_outside_a_track_imports_one(tmp_path: Path) -> None:
    """The rule over folders: the harness, the application, the reports and the generic modules of generators/ and
    corpus/ reach a track only through the registries, never by import; a track imports no other track. A new
    track's folders are covered without naming them anywhere."""
    graph = import_graph(tmp_path)
    name = lambda t: t.rsplit(".", 1)[-1]  # noqa: E731 - the track's name, from its folder
    wrong = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            target = track_of(imported)
            if target is None:
                continue
            source = track_of(importer)
            if source is None or name(source) != name(target):
                wrong.append(f"{importer} -> {imported}")
    assert not wrong, wrong
    assert track_of("parquet_conformance.corpus.parquet.catalog.golden") == "corpus.parquet"
    assert track_of("parquet_conformance.corpus.model") is None


def test_every_package_folder_is_installed() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {"parquet_conformance." + ".".join(p.parent.relative_to(REPO).parts)
             for folder in FOLDERS for p in (REPO / folder).rglob("__init__.py")}
    assert listed == found


def test_no_generic_top_level_import_name_is_installed() -> None:
    """From outside the checkout, only parquet_conformance is importable: PyPI's `kernel`, `corpus`, `generators`,
    `conformance` and `reports` stay free (tests/test_packaging.py installs them beside a wheel)."""
    code = ("import importlib.util as u, json; print(json.dumps({n: getattr(u.find_spec(n), 'origin', None) "
            "for n in ('parquet_conformance', 'kernel', 'generators', 'corpus', 'conformance', 'reports')}))")
    proc = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True, check=True,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    found = __import__("json").loads(proc.stdout)
    assert {n: o for n, o in found.items() if n != "parquet_conformance"} == dict.fromkeys(FOLDERS), found


def tree_paths() -> set[str]:
    """The paths docs/architecture.md's tree names, each made whole from the folders above it."""
    doc = (REPO / "docs" / "architecture.md").read_text()
    block = doc.split("## The tree", 1)[1].split("```", 2)[1]
    paths: set[str] = set()
    stack: list[tuple[int, str]] = []
    for line in block.splitlines():
        indent = len(line) - len(line.lstrip())
        names = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0] if line.strip() else ""
        if not names or indent >= 36 or not re.fullmatch(r"[\w./<>-]+(, [\w./<>-]+)*", names):
            continue  # a description's continuation
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else ""
        for name in names.split(", "):
            paths.add(parent + name)
            if name.endswith("/"):
                stack.append((indent, parent + name))
    return paths


def plug_ins(named: set[str]) -> set[str]:
    """Modules a new adapter, report format, case family or track adds without touching this page: registered entry
    points, catalog families, and the folders of a track the tree does not draw."""
    groups = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["entry-points"]
    found = set()
    for group in ("parquet_conformance.adapters", "parquet_conformance.reports"):
        for value in groups[group].values():
            found.add("/".join(value.split(":")[0].removeprefix("parquet_conformance.").split(".")) + ".py")
    found |= {str(p.relative_to(REPO)) for p in REPO.glob("corpus/*/catalog/*.py")}
    for parent in TRACK_PARENTS:
        for folder in (REPO / parent.replace(".", "/")).iterdir():
            if (folder / "__init__.py").is_file() and f"{folder.relative_to(REPO)}/" not in named:
                found |= {str(p.relative_to(REPO)) for p in folder.rglob("*.py")}
    return found


def test_the_architecture_tree_is_the_tree() -> None:
    """docs/architecture.md's tree, by path: every path it names exists, and every module of the four folders is in
    it, or is a plug-in (a registered adapter or report format, a catalog family), generated code or an empty
    __init__.py."""
    named = tree_paths()
    assert {"generators/steps.py", "conformance/harness/judge.py", "corpus/parquet/catalog/"} <= named
    assert not [p for p in named if not (REPO / p).exists()], sorted(p for p in named if not (REPO / p).exists())
    missing = []
    for folder in FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            rel = str(path.relative_to(REPO))
            empty = path.name == "__init__.py" and len(path.read_text().splitlines()) < 12
            if rel in named or rel in plug_ins(named) or path.name.endswith("_generated.py") or empty:
                continue
            missing.append(rel)
    assert not missing, f"docs/architecture.md's tree does not name {missing}"


def test_a_report_format_draws_its_document_and_imports_no_other_format() -> None:
    """Formats share reports/text.py and the document; none imports another format or reads a file of the run."""
    import ast
    import tomllib

    formats = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["entry-points"][
        "parquet_conformance.reports"]
    modules = {v.split(":")[0] for v in formats.values()}
    for module in modules:
        path = REPO / Path(*module.removeprefix("parquet_conformance.").split(".")).with_suffix(".py")
        tree = ast.parse(path.read_text())
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        assert not imported & (modules - {module}), (module, imported & modules)
        calls = {n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
        assert not calls & {"read_text", "read_bytes"}, f"{module} reads a file: a format draws the document alone"
