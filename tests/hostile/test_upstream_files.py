"""Third-party files that crashed `inspect` (tests/data/upstream/PROVENANCE.md): each gets a verdict, from bytes,
from a memory map and through the CLI, and never a traceback. With UPSTREAM_PARQUET_FILES (folders separated by
`:`) every file under those folders is inspected too: CI cannot reach GitHub, a developer can."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from parquet_conformance.generators.parquet.inspect import inspect_bytes, inspect_file
from tests.helpers import CLI

HERE = Path(__file__).resolve().parents[1] / "data" / "upstream"
PROVENANCE = json.loads((HERE / "provenance.json").read_text())
FILES = [(HERE / e["repo"] / e["path"], e) for e in PROVENANCE["files"]]



def _ids(entry: dict) -> str:
    return f"{entry['repo'].split('/')[1]}:{Path(entry['path']).name}"


def test_the_files_are_what_their_provenance_says() -> None:
    committed = {p.relative_to(HERE).as_posix() for p in HERE.rglob("*") if p.is_file()}
    assert committed == {f"{e['repo']}/{e['path']}" for _, e in FILES} | {"provenance.json", "PROVENANCE.md"}
    for path, entry in FILES:
        data = path.read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (entry["size"], entry["sha256"]), path
        assert entry["license"] == "Apache-2.0" and len(entry["commit"]) == 40
    assert sum(e["size"] for _, e in FILES) <= 1_536 * 1024


def _verdict(report: dict, size: int) -> None:
    json.dumps(report)  # the report is JSON as `inspect --json` prints it
    assert isinstance(report["valid"], bool) and report["size"] == size
    assert report["valid"] or report["error"]


@pytest.mark.parametrize(("path", "entry"), FILES, ids=[_ids(e) for _, e in FILES])
def test_inspect_gives_a_verdict(path: Path, entry: dict) -> None:
    data = path.read_bytes()
    from_bytes, mapped = inspect_bytes(data), inspect_file(path)
    _verdict(from_bytes, len(data))
    assert mapped == {"file": str(path), **from_bytes}


def test_the_cli_gives_a_verdict_never_a_traceback() -> None:
    for path, _ in FILES[:3]:
        for extra in ([], ["--json"]):
            proc = subprocess.run([*CLI, "inspect", *extra, str(path)], capture_output=True, text=True, timeout=120)
            assert proc.returncode in (0, 1), proc.stderr
            assert "Traceback" not in proc.stderr


def _checkouts() -> list[Path]:
    folders = [Path(p) for p in os.environ.get("UPSTREAM_PARQUET_FILES", "").split(":") if p]
    return sorted(p for folder in folders for p in folder.rglob("*") if p.is_file() and ".git" not in p.parts)


@pytest.mark.skipif(not os.environ.get("UPSTREAM_PARQUET_FILES"), reason="UPSTREAM_PARQUET_FILES is not set")
def test_every_file_of_a_checkout_gives_a_verdict() -> None:
    files = _checkouts()
    assert files
    for path in files:
        _verdict(inspect_file(path), path.stat().st_size)
        _verdict(inspect_bytes(path.read_bytes()), path.stat().st_size)
