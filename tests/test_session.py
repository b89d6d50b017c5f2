"""A run as one object (conformance/harness/session.py RunSession) and the executor seam (harness/placement.py): the
session holds the run's lock and closes its executor whatever happens; one place decides local or Spark; every
command that runs tasks spells the executor options alike."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from parquet_conformance.app.cli import build_parser
from parquet_conformance.app.console import Heartbeat
from parquet_conformance.conformance.harness import placement
from parquet_conformance.conformance.harness.executor import LocalExecutor
from parquet_conformance.conformance.harness.results import ResultsError, Store
from parquet_conformance.conformance.harness.session import RunSession
from parquet_conformance.corpus.model import Manifest
from parquet_conformance.kernel.errors import UsageError

NOW = "2026-01-01T00:00:00+00:00"


class Closed(LocalExecutor):
    """The local executor, telling whether it was closed."""

    def __init__(self) -> None:
        super().__init__(1)
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def session(tmp_path: Path, executor: Closed, run_id: str = "r1") -> RunSession:
    store = Store(tmp_path / "out")
    store.begin(run_id, resume=False, now=NOW)
    manifest = Manifest("parquet-conformance-manifest", 2, {}, 0, None, False, [], {}, {}, {}, [])
    return RunSession(store, run_id, executor, [], [], tmp_path, manifest, Heartbeat(None))


def test_a_session_closes_its_executor_when_a_phase_fails(tmp_path: Path) -> None:
    executor = Closed()
    with pytest.raises(RuntimeError, match="a phase failed"), session(tmp_path, executor):
        raise RuntimeError("a phase failed")
    assert executor.closed == 1


def test_a_session_that_cannot_take_its_run_closes_its_executor_and_holds_nothing(tmp_path: Path) -> None:
    first, second = Closed(), Closed()
    with session(tmp_path, first) as run:
        with pytest.raises(ResultsError, match="being written by another process"), RunSession(
                run.store, run.run_id, second, [], [], tmp_path, run.manifest, Heartbeat(None)):
            pass
        assert (second.closed, first.closed) == (1, 0)
    assert first.closed == 1
    with session(tmp_path, Closed(), "r2"):  # the store is free again
        pass


def test_one_place_decides_local_or_spark(monkeypatch: pytest.MonkeyPatch) -> None:
    here = placement.executor_for("none")
    assert isinstance(here, LocalExecutor) and here.started_s == 0.0
    if importlib.util.find_spec("pyspark") is not None:
        spark = placement.executor_for("local[1]")
        assert spark.master == "local[1]" and spark.started_s == 0.0  # started on first use, not here
    real = importlib.util.find_spec
    monkeypatch.setattr(placement.importlib.util, "find_spec", lambda name: None if name == "pyspark" else real(name))
    with pytest.raises(UsageError, match=r"Spark needs pyspark.*--master none"):
        placement.executor_for("sc://127.0.0.1:15002")


@pytest.mark.parametrize("command", [["run"], ["fuzz", "--examples", "1"], ["bisect", "--adapter", "a", "--case", "c"]])
def test_every_command_that_runs_tasks_spells_the_executor_options_alike(command: list[str]) -> None:
    parse = build_parser().parse_args
    args = parse([*command, "--remote", "sc://127.0.0.1:15002", "--conf", "spark.executor.memory=2g"])
    assert (args.master, args.conf) == ("sc://127.0.0.1:15002", ["spark.executor.memory=2g"])
    assert parse([*command, "--master", "none"]).master == "none"
    assert parse(command).master == ("none" if command[0] == "bisect" else "local[*]")


def test_remote_takes_only_a_spark_connect_url(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["run", "--remote", "spark://127.0.0.1:7077"])
    assert exited.value.code == 2
    assert "--remote wants a Spark Connect URL" in capsys.readouterr().err
