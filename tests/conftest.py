from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from parquet_conformance.corpus.build import generate


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default corpus, generated once per test session."""
    out = tmp_path_factory.mktemp("corpus")
    generate(out)
    return out


@pytest.fixture(scope="session")
def manifest(corpus_dir: Path) -> dict:
    return json.loads((corpus_dir / "manifest.json").read_text())


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/report_demo.py's results (runs r1, r2, r3, with r3's reports), made once per session; in
    $REPORT_DEMO_OUT when set, so that its screenshots stay."""
    from tests import report_demo

    fixed = os.environ.get("REPORT_DEMO_OUT")
    where = Path(fixed) if fixed else tmp_path_factory.mktemp("demo")
    if fixed and where.exists():
        shutil.rmtree(where)
    return report_demo.make(where)
