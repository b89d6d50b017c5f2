from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.conformance.harness.workers import Worker
from parquet_conformance.corpus.build import generate_cached
from tests.helpers import StartedWorker

# An environment that sets PYTHONDONTWRITEBYTECODE (this project's machines do) makes every CLI and worker process a
# test starts compile our modules again: about 0.2 CPU-s each, hundreds of times. The tests' processes keep their
# bytecode instead, in a cache outside the source tree (Python checks each file's source before it uses it).
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    os.environ.setdefault("PYTHONPYCACHEPREFIX", str(Path(tempfile.gettempdir()) / "parquet-conformance-pycache"))

# The fast tier is `pytest -m "not integration"`: unit tests, under a minute on 2 cores, with no Spark, JVM, Node or
# browser and no whole corpus. A test is integration when its module is listed here (it starts Spark, a JVM, Node,
# a browser, or runs whole jobs end to end) or when it uses a fixture that generates the whole corpus or a demo run;
# `slow` tests (.ci/run runs them after the default ones) are integration too.
INTEGRATION_MODULES = {
    "test_pipeline", "test_adapters", "test_new_adapters", "test_browser", "test_cluster", "test_releases",
    "test_ci_recipes", "test_corpus_dist", "test_import", "test_one_judge", "test_fuzz_output", "test_tracks",
    "test_writers_matrix",
    "test_pytest_plugin", "test_overhead", "test_pace", "test_prototype_fidelity", "test_inputs", "test_gate",
    "test_upstream_reproduce", "test_every_way", "test_worker_properties", "test_taxonomy", "test_atomic",
    "test_round3", "test_disagreeing_attempts", "test_data_path",
}
INTEGRATION_FIXTURES = {"corpus_dir", "manifest", "demo_run"}


# Modules that share what a test process makes once (a session fixture): under xdist (--dist loadscope, pyproject)
# they run on one worker, so that it is made once, not once per worker.
SHARED_SCOPES = {"tests/test_reports.py": "demo_run", "tests/test_browser.py": "demo_run",
                 "tests/test_adapters.py": "started_worker", "tests/test_taxonomy.py": "started_worker"}


@pytest.hookimpl(optionalhook=True)  # xdist's hook: a run with -p no:xdist has none
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """xdist's loadscope, with SHARED_SCOPES' modules in one scope."""
    from xdist.scheduler import LoadScopeScheduling

    class SharedScopes(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return SHARED_SCOPES.get(scope.split("::")[0], scope)

    return SharedScopes(config, log) if config.getoption("dist") == "loadscope" else None


def _integration_module(path: Path) -> bool:
    return path.stem in INTEGRATION_MODULES or (path.parent.name == "skiff" and path.stem in {"test_pipeline",
                                                                                             "test_adapters"})


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The fast tier does not even import the integration modules (their imports and parameters cost seconds)."""
    if config.option.markexpr.replace(" ", "") == "notintegration" and collection_path.suffix == ".py":
        return _integration_module(collection_path) or None
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        uses = set(getattr(item, "fixturenames", ()))
        if (_integration_module(item.path) or uses & INTEGRATION_FIXTURES
                or item.get_closest_marker("slow") is not None):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(autouse=True, scope="session")
def _no_hypothesis_database() -> None:
    """Hypothesis keeps no example database in the working directory (nothing written into the source tree)."""
    from hypothesis import settings

    settings.register_profile("parquet-conformance", database=None)
    settings.load_profile("parquet-conformance")


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default corpus, generated once for every session of the same code (the cache `run` uses: a copy, keyed by
    the generators' and catalogs' sources; test workers started together wait for one generation).
    tests/test_corpus.py generates afresh where generation itself is the subject."""
    out = tmp_path_factory.mktemp("corpus")
    generate_cached(out)
    return out


@pytest.fixture(scope="session")
def manifest(corpus_dir: Path) -> dict:
    return json.loads((corpus_dir / "manifest.json").read_text())


KEPT_WORKERS = {"spark"}  # a JVM with Spark in it takes seconds to start: started once per test process


@pytest.fixture(scope="session")
def started_worker() -> Iterator[StartedWorker]:
    """`with started_worker(name) as worker`: a reader's real worker, closed when the block ends, but KEPT_WORKERS'
    started once per test process and closed at its end."""
    kept: dict[str, Worker] = {}

    @contextmanager
    def start(name: str) -> Iterator[Worker]:
        if name in KEPT_WORKERS:
            if name not in kept:
                kept[name] = AdapterSpec.parse(name).worker()
            yield kept[name]
            return
        worker = AdapterSpec.parse(name).worker()
        try:
            yield worker
        finally:
            worker.close()

    yield start
    for w in kept.values():
        w.close()


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
