"""Every output is UTF-8 whatever the locale (issue 39, item 10): under an ASCII locale (LC_ALL=C with Python's UTF-8
mode off) the reports keep every non-ASCII character and `report --history` writes its files; a path this locale
cannot name is refused before any work, saying why. The class: no text file of the package is read or written in
the locale's encoding."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from parquet_conformance.corpus.build import generate
from tests.helpers import CLI

ROOT = Path(__file__).resolve().parents[1]
FAKE = Path(__file__).parent / "hostile" / "worker.py"
ASCII = {**{k: v for k, v in os.environ.items() if not k.startswith(("LC_", "PYTHONIOENCODING", "PYTHONUTF8"))},
         "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"}


def test_no_text_file_is_read_or_written_in_the_locales_encoding() -> None:
    found = []
    for folder in ("kernel", "generators", "corpus", "conformance", "reports", "app"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr in ("read_text", "write_text")
                        and not any(k.arg == "encoding" for k in node.keywords)
                        and not (node.args and node.func.attr == "read_text")):  # read_text("ascii"): named
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []


def test_reports_under_an_ascii_locale_keep_every_character(tmp_path: Path) -> None:
    python = subprocess.run([sys.executable, "-c", "import sys; print(sys.getfilesystemencoding())"], env=ASCII,
                            capture_output=True, text=True, check=True).stdout.strip()
    if python == "utf-8":
        pytest.skip("this Python uses UTF-8 under LC_ALL=C whatever PYTHONUTF8 says")
    generate(tmp_path / "corpus", only="base/flat")
    worker = f"""fake={sys.executable} {FAKE} none --real '--implementation-json="Lecteur \\u00e9\\u2014\\u00fc"'"""
    run = [*CLI, "run", "--master", "none", "--corpus", str(tmp_path / "corpus"), "--out", str(tmp_path / "out"),
           "--adapter-cmd", worker]
    for _ in range(2):
        proc = subprocess.run(run, capture_output=True, text=True, env=ASCII, timeout=300)
        assert proc.returncode == 0, proc.stderr
    name = "Lecteur é—ü"
    assert name in (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    assert name in (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))["adapters"][0][
        "implementation"] == name
    if importlib.util.find_spec("matplotlib") is not None:
        proc = subprocess.run([*CLI, "report", "--history", str(tmp_path / "out" / "results")], capture_output=True,
                              text=True, env=ASCII, timeout=300)
        assert proc.returncode == 0, proc.stderr
        (tmp_path / "out" / "history.md").read_text(encoding="utf-8")
    elsewhere = tmp_path / "sortie-é"
    proc = subprocess.run([*CLI, "run", "--master", "none", "--corpus", str(tmp_path / "corpus"), "--out",
                           str(elsewhere), "--adapter-cmd", worker], capture_output=True, text=True, env=ASCII)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "locale" in proc.stderr, proc.stderr
    assert not elsewhere.exists()
