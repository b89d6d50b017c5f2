"""A checkout whose pinned file is not the pinned bytes: `generate --upstream` refuses it in one line, exit 2, and
writes nothing (corpus/upstream.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers import CLI


def test_a_changed_upstream_file_is_refused_in_one_line(tmp_path: Path) -> None:
    checkout = tmp_path / "parquet-testing"
    (checkout / "data").mkdir(parents=True)
    (checkout / "data" / "int32_with_uuid_logical_type.parquet").write_bytes(b"PAR1 not the pinned bytes PAR1")
    out = tmp_path / "corpus"
    proc = subprocess.run([*CLI, "generate", "--out", str(out), "--only", "upstream/*", "--upstream", str(checkout)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert "refused" in proc.stderr and "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists() or not any(out.rglob("*.parquet"))
