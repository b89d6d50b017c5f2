"""Every registered adapter against its real library: identity, exact base data, every type without a harness
error, and a rejection of a file that is not Parquet. An adapter whose runtime is missing is skipped with the
reason, except in CI (CI=true), which installs them all: there an unavailable adapter fails, naming why, so a
Java worker that stops compiling or an npm install that breaks cannot hide as skips."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from parquet_conformance.conformance import adapters
from parquet_conformance.conformance.harness.model import Crash, HarnessError, Read, Rejected, Unavailable, Unhandled
from parquet_conformance.conformance.harness.workers import Worker
from parquet_conformance.corpus.parquet import METADATA, metadata_expectation
from parquet_conformance.generators.parquet.bases import EXTENSION_BASES, base_bytes, base_hash
from tests.helpers import CLI, StartedWorker

FAITHFUL_BASES = ("multi-row-group", "dictionary", "wide")  # every implementation reads these exactly, but:
# what an adapter refuses for a documented reason (docs/adapters.md)
REFUSED = {("parquet-python", "dictionary"): "RLE_DICTIONARY, pyarrow's default encoding, is not in parquet-python"}


@pytest.fixture(scope="module", params=adapters.names("parquet"))
def worker(request: pytest.FixtureRequest, started_worker: StartedWorker) -> Iterator[Worker]:
    with started_worker(request.param) as w:
        if isinstance(w.read("/nonexistent").outcome, Unavailable):
            if os.environ.get("CI") == "true":
                pytest.fail(f"{request.param} is unavailable in CI: {w.unavailable}")
            pytest.skip(f"{request.param}: {w.unavailable}")
        yield w


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("files")
    for name in (*FAITHFUL_BASES, "flat", "all-types", "int96-extremes"):
        (root / f"{name}.parquet").write_bytes(base_bytes(name))
    (root / "not-parquet.parquet").write_bytes(b"PAR1" + b"\x00" * 64 + b"PAR1")
    return root


def test_identity(worker: Worker) -> None:
    info = worker.start()
    assert info.adapter == worker.adapter.name
    assert info.version and info.version != "unknown"
    assert (info.roles or worker.adapter.role_names()) == worker.adapter.role_names()


@pytest.mark.parametrize("base", FAITHFUL_BASES)
def test_reads_base_data_exactly(worker: Worker, files: Path, base: str) -> None:
    """Exactly the base's data; a metadata-only reader (role `metadata`), exactly our decoder's summary of it."""
    outcome = worker.read(str(files / f"{base}.parquet")).outcome
    if (worker.adapter.name, base) in REFUSED:
        assert isinstance(outcome, Rejected), outcome
        return
    assert isinstance(outcome, Read), outcome
    if METADATA in worker.adapter.roles:
        assert outcome.data_hash == metadata_expectation(base_bytes(base), base_bytes(base))[1]
    else:
        assert outcome.data_hash == base_hash(base)


@pytest.mark.parametrize("base", ["all-types", "int96-extremes"])
def test_every_type_without_a_harness_error(worker: Worker, files: Path, base: str) -> None:
    """Whatever a reader makes of every type (read, reject, even crash), our conversion of it never fails. The one
    harness error allowed is a read the adapter declines to judge because its data would be our conversion's
    (parquet-java's Group API on a repeated field: docs/adapters.md#the-data-path)."""
    outcome = worker.read(str(files / f"{base}.parquet")).outcome
    if worker.adapter.name == "parquet-java" and base == "all-types":
        assert isinstance(outcome, HarnessError) and outcome.error.message.startswith("not judged: "), outcome
        return
    assert not isinstance(outcome, HarnessError), outcome


def test_rejects_what_is_not_parquet(worker: Worker, files: Path) -> None:
    """An error with its class and message, never a read: a refusal, or what the error taxonomy calls unhandled
    (fastparquet's, parquet-python's and parquet-pages' `TypeError`, hyparquet's: docs/adapters.md#error-taxonomy)."""
    outcome = worker.read(str(files / "not-parquet.parquet")).outcome
    assert isinstance(outcome, (Rejected, Unhandled, Crash)), outcome
    assert outcome.error.cls and outcome.error.message


def test_read_command_json(files: Path) -> None:
    proc = subprocess.run([*CLI, "read", str(files / "flat.parquet"),
                           "--adapter", "pyarrow", "--json"], capture_output=True, text=True, check=True)
    report = json.loads(proc.stdout)
    assert {k: report[k] for k in ("adapter", "outcome", "error", "rows", "data_hash")} == {
        "adapter": "pyarrow", "outcome": "read", "error": None, "rows": 24, "data_hash": base_hash("flat")}
    assert report["implementation"].startswith("Arrow C++") and report["version"]


def test_adapters_command_lists_every_adapter() -> None:
    proc = subprocess.run([*CLI, "adapters", "--json", "--adapter", "pyarrow",
                           "--adapter-cmd", "ghost=/nonexistent/reader"], capture_output=True, text=True, check=True)
    rows = {r["adapter"]: r for r in json.loads(proc.stdout)}
    assert rows["pyarrow"]["available"] and rows["pyarrow"]["version"]
    assert not rows["ghost"]["available"] and "No such file" in rows["ghost"]["reason"]


def test_adapters_says_which_write_and_with_which_profiles() -> None:
    """Issue 39 item 9: a user picks a `--writer` from `adapters` (text and --json), without reading code: which
    adapters write, with which profiles, which only by name, and what each profile asks."""
    from parquet_conformance.corpus import track

    names = ["--adapter", "pyarrow", "--adapter", "parquet-wasm", "--adapter", "rugo"]
    proc = subprocess.run([*CLI, "adapters", "--json", *names], capture_output=True, text=True, check=True)
    rows = {r["adapter"]: r for r in json.loads(proc.stdout)}
    assert rows["pyarrow"]["writes"] == {"profiles": list(adapters.get("pyarrow").profiles), "default": True}
    assert "zstd" in rows["pyarrow"]["writes"]["profiles"]
    assert rows["parquet-wasm"]["writes"]["default"] is False and rows["rugo"]["writes"] is None
    text = subprocess.run([*CLI, "adapters", *names], capture_output=True, text=True, check=True).stdout
    lines = {line.split()[0]: line for line in text.splitlines() if line.strip()}
    assert "writes 7 profiles" in lines["pyarrow"] and "by name" in lines["parquet-wasm"]
    assert "no writer" in lines["rugo"]
    assert "  pyarrow: default, zstd, v2, no-dictionary, no-statistics, page-index, row-groups" in text
    assert "(only with --writer parquet-wasm)" in text
    for profile, what in track.get("parquet").write_profiles().items():  # type: ignore[attr-defined]
        assert f"  {profile}: {what}" in text


def test_run_with_an_external_adapter(tmp_path: Path) -> None:
    """The Node worker plugged in by command line only, as an implementer would plug theirs."""
    try:
        command = adapters.get("hyparquet").command()
    except Exception as e:
        pytest.skip(f"hyparquet unavailable: {e}")
    cmd = " ".join(f"'{c}'" for c in command)
    only = ",".join(f"base/{b}" for b in (*EXTENSION_BASES, "all-types"))  # pyarrow's: no codec hyparquet lacks
    proc = subprocess.run([*CLI, "run", "--out", str(tmp_path), "--only", only, "--master", "none",
                           "--adapter-cmd", f"my-js-reader={cmd}"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    cells = json.loads((tmp_path / "results.json").read_text())["cells"]
    assert {c["adapter"] for c in cells} == {"my-js-reader"}
    verdicts = {c["case"]: c["verdict"] for c in cells}
    assert len(verdicts) == len(EXTENSION_BASES) + 1
    assert all(v == "pass" for c, v in verdicts.items() if c != "base/all-types")
    assert verdicts["base/all-types"] == "fail:rejected-valid"  # hyparquet: "parquet interval not supported"
