"""The command line as a user meets it: exit codes, one-line errors, JSON, and inspect on any bytes."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parquet_conformance.generators.parquet.bases import base_bytes
from parquet_conformance.generators.parquet.footer import read_tail
from parquet_conformance.generators.parquet.inspect import inspect_bytes
from tests.helpers import CLI, cli_here
from tests.test_extensions import append_extension


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True,
                          timeout=300)


def assert_one_line_error(proc: subprocess.CompletedProcess, code: int) -> None:
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_help_explains_every_command() -> None:
    out = cli("--help").stdout
    assert "generate" in out and "inspect" in out
    assert "--large" in cli_here("generate", "--help").stdout
    assert "--json" in cli_here("inspect", "--help").stdout


def test_generate_and_inspect(tmp_path: Path) -> None:
    proc = cli("generate", "--out", str(tmp_path / "c"), "--only", "ext/multi/*")
    assert proc.returncode == 0, proc.stderr
    assert "wrote" in proc.stdout
    manifest = json.loads((tmp_path / "c" / "manifest.json").read_text())
    entry = next(c for c in manifest["cases"] if c["id"] == "ext/multi/four-structs/spec-header")
    proc = cli("inspect", "--json", str(tmp_path / "c" / entry["file"]))
    assert proc.returncode == 0
    report = json.loads(proc.stdout)
    assert report["valid"] and report["magic"] == {"head": "PAR1", "tail": "PAR1"}
    def key(e: dict) -> tuple:
        return e["path"], e["struct"], e["header"], e["length"], e["sha256"]

    assert sorted(map(key, report["extensions"])) == sorted(map(key, entry["extensions"]))
    text = cli_here("inspect", str(tmp_path / "c" / entry["file"])).stdout
    assert "row_groups[1] (RowGroup): header spec" in text


def test_generate_refuses_foreign_directory_and_empty_selection(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    assert_one_line_error(cli("generate", "--out", str(tmp_path)), 2)
    assert (tmp_path / "mine.txt").read_text() == "keep me"
    assert_one_line_error(cli_here("generate", "--out", str(tmp_path / "x"), "--only", "no/such/*"), 2)


def test_inspect_bad_input(tmp_path: Path) -> None:
    assert_one_line_error(cli("inspect", str(tmp_path / "missing.parquet")), 2)
    assert_one_line_error(cli_here("inspect", str(tmp_path)), 2)
    garbage = tmp_path / "garbage.parquet"
    garbage.write_bytes(b"PAR1" + b"\xff" * 100 + b"\x10\x00\x00\x00PAR1")
    proc = cli_here("inspect", "--json", str(garbage))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    report = json.loads(proc.stdout)
    assert report["valid"] is False and report["error"]
    assert_one_line_error(cli("inspect", str(garbage)), 1)


def test_inspect_a_file_extended_by_another_writer(tmp_path: Path) -> None:
    """A pyarrow file extended by the spec's own AppendExtension (ported in the tests), not by our writer."""
    sink = io.BytesIO()
    pq.write_table(pa.table({"x": [1, 2, 3]}), sink, compression="snappy", write_page_index=True)
    data = sink.getvalue()
    offset, length = read_tail(data)
    ext = bytes(range(256)) * 3 + b"\x12" * 16
    footer = append_extension(data[offset:offset + length], ext)
    path = tmp_path / "other.parquet"
    path.write_bytes(data[:offset] + footer + len(footer).to_bytes(4, "little") + b"PAR1")
    report = json.loads(cli("inspect", "--json", str(path)).stdout)
    (e,) = report["extensions"]
    assert (e["struct"], e["header"], e["length"], e["uuid"]) == ("FileMetaData", "spec", len(ext), "12" * 16)
    assert e["offset"] == offset + length - 1 + 4 + 2  # old stop byte, header, 2-byte length
    assert pq.read_table(path).column("x").to_pylist() == [1, 2, 3]


SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.binary(max_size=300))
def test_inspect_never_raises_on_arbitrary_bytes(data: bytes) -> None:
    assert inspect_bytes(data)["valid"] in (True, False)


@SETTINGS
@given(st.binary(max_size=400))
def test_inspect_never_raises_on_random_footers(footer: bytes) -> None:
    data = b"PAR1" + footer + len(footer).to_bytes(4, "little") + b"PAR1"
    assert inspect_bytes(data)["valid"] in (True, False)


@SETTINGS
@given(st.sampled_from(["flat", "nested", "multi-row-group", "dictionary"]), st.data())
def test_inspect_never_raises_on_mutated_files(base: str, draw: st.DataObject) -> None:
    data = bytearray(base_bytes(base))
    offset, _ = read_tail(bytes(data))
    for _ in range(draw.draw(st.integers(1, 4))):
        pos = draw.draw(st.integers(offset, len(data) - 1))
        data[pos] = draw.draw(st.integers(0, 255))
    cut = draw.draw(st.integers(offset, len(data)))
    report = inspect_bytes(bytes(data[:cut]))
    assert report["valid"] in (True, False)
    assert report["valid"] or report["error"]
