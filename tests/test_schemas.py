"""Records are defined once: the JSON Schema files are derived from them and committed; real documents
(a manifest, results.json, every kind of protocol message) validate against those files; and the field
tables of the docs name exactly the records' fields, so a doc that disagrees with the code fails."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from parquet_conformance.conformance.harness import protocol
from parquet_conformance.conformance.harness.model import Cell, RunInfo, WriterCell
from parquet_conformance.corpus.model import BaseEntry, CaseEntry, Citation, Manifest
from parquet_conformance.reports.model import (
    AdapterScore,
    CaseSummary,
    CellMark,
    Comparison,
    DataDiff,
    ResultsDocument,
    RowDiff,
    WritersMatrix,
)
from parquet_conformance.reports.schemas import FILES
from tests.helpers import CLI

REPO = Path(__file__).resolve().parent.parent
FAKE = Path(__file__).parent / "hostile" / "worker.py"


def schema(name: str) -> jsonschema.protocols.Validator:
    doc = json.loads(FILES[name].read_text())
    jsonschema.Draft202012Validator.check_schema(doc)
    return jsonschema.Draft202012Validator(doc)


def test_schema_files_are_the_records() -> None:
    proc = subprocess.run([sys.executable, "-m", "parquet_conformance.reports.schemas", "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout


def test_a_manifest_validates(manifest: dict) -> None:
    schema("manifest").validate(manifest)
    broken = {**manifest, "cases": [{k: v for k, v in manifest["cases"][0].items() if k != "file"}]}
    with pytest.raises(jsonschema.ValidationError, match="'file' is a required property"):
        schema("manifest").validate(broken)


def test_results_json_validates(corpus_dir: Path, tmp_path: Path) -> None:
    proc = subprocess.run([*CLI, "run", "--corpus", str(corpus_dir), "--out", str(tmp_path), "--master", "none",
                           "--only", "base/flat,corrupt/tiny/*", "--adapter", "pyarrow"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    schema("results").validate(json.loads((tmp_path / "results.json").read_text()))


def worker_lines(argv: list[str], requests: list[dict]) -> list[dict]:
    """What a worker answers to these requests, line by line."""
    text = "".join(json.dumps(r) + "\n" for r in requests)
    proc = subprocess.run(argv, input=text, capture_output=True, text=True, timeout=120)
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_protocol_messages_validate(tmp_path: Path) -> None:
    (tmp_path / "good.parquet").write_bytes((REPO / "tests" / "__init__.py").read_bytes())
    requests = [protocol.to_json(protocol.StartRequest("1")),
                protocol.to_json(protocol.ReadRequest("2", "/nonexistent/file.parquet", "c")),
                protocol.to_json(protocol.ReadRequest("3", str(tmp_path / "good.parquet"), "c")),
                protocol.to_json(protocol.StopRequest())]
    v = schema("protocol")
    for message in requests:
        v.validate(message)
    ours = worker_lines([sys.executable, "-m", "parquet_conformance.conformance.harness.worker", "pyarrow"], requests)
    fake = worker_lines([sys.executable, str(FAKE), "none"], requests)
    refused = worker_lines([sys.executable, str(FAKE), "refuse"], requests[:1])
    assert [m.get("outcome") or m.get("ok") for m in ours] == [True, "rejected", "rejected"]
    assert [m.get("outcome") or m.get("ok") for m in fake] == [True, "read", "read"]
    for message in ours + fake + refused:
        v.validate(message)
    with pytest.raises(jsonschema.ValidationError):
        v.validate({"id": "2", "outcome": "maybe"})


def doc_table(doc: str, heading: str) -> set[str]:
    """The backticked names in the first column of the table under `heading` in docs/<doc>."""
    text = (REPO / "docs" / doc).read_text()
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return {name for line in section.splitlines() if line.startswith("| `")
            for name in re.findall(r"`([^`]+)`", line.split("|")[1])}


def names(record: type) -> set[str]:
    return {str(f.metadata.get("json", f.name)) for f in dataclasses.fields(record)}


@pytest.mark.parametrize(("doc", "heading", "record", "extra"), [
    ("manifest.md", "Top level", Manifest, set()),
    ("manifest.md", "Base entry", BaseEntry, set()),
    ("manifest.md", "Case entry", CaseEntry, set()),
    ("manifest.md", "Citation", Citation, set()),
    ("results.md", "Cell", Cell, {"run"}),  # `run`: the dataset's partition column
    ("results.md", "Run", RunInfo, set()),
    ("results.md", "Adapter score", AdapterScore, set()),
    ("results.md", "Case summary", CaseSummary, set()),
    ("results.md", "results.json", ResultsDocument, set()),
    ("results.md", "Data diff", DataDiff, set()),
    ("results.md", "Comparison", Comparison, set()),
    ("results.md", "Cell mark", CellMark, set()),
    ("results.md", "Row diff", RowDiff, set()),
    ("results.md", "Writer x reader matrix", WritersMatrix, set()),
    ("results.md", "Writer cell", WriterCell, set()),
    ("adapter-protocol.md", "Start answer", protocol.StartReply, set()),
    ("adapter-protocol.md", "Read request", protocol.ReadRequest, set()),
    ("adapter-protocol.md", "Write request", protocol.WriteRequest, set()),
])
def test_docs_name_exactly_the_fields(doc: str, heading: str, record: type, extra: set[str]) -> None:
    assert doc_table(doc, heading) == names(record) | extra
