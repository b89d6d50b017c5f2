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
FOLDERS = ("kernel", "generators", "corpus", "conformance", "reports", "app")


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


def test_the_layers_block_is_the_floors_contract() -> None:
    """docs/architecture.md's Layers block names the floors of the layers contract, top down, folder by folder."""
    doc = (REPO / "docs" / "architecture.md").read_text()
    block = doc.split("## Layers", 1)[1].split("```", 2)[1]
    drawn: list[list[str]] = []
    for line in block.strip().splitlines():
        found = re.fullmatch(r"(floor \d+)?\s*(\S+/)\s.*", line)
        assert found, line
        floor, folder = found.groups()
        module = "parquet_conformance." + folder.strip("/").replace("/", ".")
        if floor:
            drawn.append([module])
        else:  # a sibling on the floor above it
            drawn[-1].append(module)
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["type"] == "layers"]
    assert drawn == [[m.strip() for m in re.split(r"[:|]", layer)] for layer in layers]
    assert {m.split(".")[1] for layer in drawn for m in layer} == set(FOLDERS)  # every top-level folder on a floor


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
    `conformance`, `reports` and `app` stay free (tests/test_packaging.py installs the clashing ones beside a wheel)."""
    code = ("import importlib.util as u, json; print(json.dumps({n: getattr(u.find_spec(n), 'origin', None) "
            f"for n in {('parquet_conformance', *FOLDERS)!r}}}))")
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
    """docs/architecture.md's tree, by path: every path it names exists, and every module of the six folders is in
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


# -- no import circles ----------------------------------------------------------------------------------------------

# Circles allowed, each named and dated with the issue that breaks it: none left (issue 38 broke the last one,
# app/upstream*, by a top module, upstream_folders.py, on 2026-11-28). A circle that is gone leaves this.
CIRCLES_ALLOWED: set[frozenset[str]] = set()


def circles(edges: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.add(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.add(frozenset(part))
    return found


def test_circles_finds_a_loop_through_three_and_none_in_a_chain() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == {frozenset("abc")}
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == set()


def test_no_import_circle(tmp_path: Path) -> None:
    """No two modules import each other, through any chain: grimp's graph holds every import, those inside
    functions and under TYPE_CHECKING included, so a circle cannot hide behind a deferred import."""
    graph = import_graph(tmp_path)
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    found = circles(edges)
    assert len(graph.modules) > 150  # the graph is the package's, not an empty shim's
    assert not found - CIRCLES_ALLOWED, sorted(sorted(c) for c in found - CIRCLES_ALLOWED)
    assert not CIRCLES_ALLOWED - found, "a circle allowed here is gone: remove it from CIRCLES_ALLOWED"


LAZY_REASON = "start-up"  # the one reason a module of ours is imported inside a function
LAZY_EXEMPT: set[str] = set()  # files exempt from the rule below, each with its reason: none


def test_a_function_local_import_of_ours_says_it_saves_start_up_time() -> None:
    """An import of our own modules inside a function is there only to keep a command's start-up short, and says
    so in a comment right above it or its run of imports: never to dodge an import circle."""
    import ast

    silent = []
    for folder in FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            rel = str(path.relative_to(REPO))
            if rel in LAZY_EXEMPT:
                continue
            lines = path.read_text().splitlines()
            for fn in ast.walk(ast.parse("\n".join(lines))):
                if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for node in ast.walk(fn):
                    if not isinstance(node, (ast.Import, ast.ImportFrom)) or not (
                            (isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith(
                                "parquet_conformance"))) or (isinstance(node, ast.Import) and any(
                                a.name.startswith("parquet_conformance") for a in node.names))):
                        continue
                    above = node.lineno - 2  # up its run of imports (blank lines between them), to the comment
                    while above >= 0 and (not lines[above].strip() or lines[above].lstrip().startswith(
                            ("from ", "import ", ")")) or lines[above].rstrip().endswith((",", "("))):
                        above -= 1
                    if above < 0 or (LAZY_REASON not in lines[above] and LAZY_REASON not in lines[node.lineno - 1]):
                        silent.append(f"{rel}:{node.lineno}")
    assert not silent, f"function-local imports of ours without a word on start-up time: {silent}"


# -- a track-neutral core ---------------------------------------------------------------------------------------------

# Words only a track knows: its wire format's names (Thrift, FlatBuffers, the footer, row groups, field 32767, the
# PAR3 and PARX framings, Skiff, YSON) and its file names (`*.parquet`; the package name aside). Outside the track
# folders a module says them only where the allow-list below says why.
TRACK_WORDS = re.compile(r"thrift|flatbuffers?|footer|row[ _-]?groups?|32767|PAR3|PARX|skiff|yson|[\w-]+\.parquet\b",
                         re.IGNORECASE)
TRACK_WORDS_ALLOWED = {
    # Shared: the results dataset is stored as Parquet files, whatever the tracks of its runs.
    "conformance/harness/results.py": ({"cells.parquet", "pyarrow.parquet"}, "the results dataset's own files"),
    "kernel/trees.py": ({"cells.parquet"}, "a results dataset is recognised by its files"),
    "reports/compare.py": ({"cells.parquet"}, "a results dataset is recognised by its files"),
    # Named exceptions, dated 2026-11-28: part 2 of issue 38 moves them behind the track.
    "app/upstream.py": (None, "another branch has open changes here (part 2)"),
    "app/upstream_readme.py": (None, "another branch has open changes here (part 2)"),
    "app/upstream_writers.py": (None, "another branch has open changes here (part 2)"),
}


def track_word_lines() -> dict[str, list[str]]:
    """Module -> its lines that say a track's word outside the allow-list (modules outside the track folders)."""
    found: dict[str, list[str]] = {}
    for folder in FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            rel = str(path.relative_to(REPO))
            module = "parquet_conformance." + ".".join(path.relative_to(REPO).with_suffix("").parts)
            if track_of(module.removesuffix(".__init__")) is not None:
                continue
            allowed, _ = TRACK_WORDS_ALLOWED.get(rel, (set(), ""))
            if allowed is None:
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                words = {w.lower() for w in TRACK_WORDS.findall(line)} - {w.lower() for w in allowed}
                if words:
                    found.setdefault(rel, []).append(f"{n}: {sorted(words)}")
    return found


def test_no_track_word_outside_the_track_folders() -> None:
    """The harness, the application, the reports and the generic modules reach a track through its Track object
    (its suffix, metadata forms, report formats, written variants, archive README): none says its words."""
    assert TRACK_WORDS.search("a Thrift footer") and TRACK_WORDS.search("cases/x.parquet")
    assert not TRACK_WORDS.search("import parquet_conformance.kernel")
    found = track_word_lines()
    assert not found, found
