"""`parquet-conformance extend` on bad input: one line on stderr, exit 2, no traceback, and nothing written (no OUT,
no temporary file beside it; an OUT that existed keeps its bytes)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from parquet_conformance.generators.parquet.bases import base_bytes
from tests.helpers import CLI
from tests.hostile import cli_here

UUID = "6f1c3a52-8e0d-4b7a-9c55-2d9e4f0a1b3c"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300)


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    (tmp_path / "f.parquet").write_bytes(base_bytes("flat"))
    (tmp_path / "p.bin").write_bytes(b"payload")
    (tmp_path / "out").mkdir()
    return tmp_path


def extend(work: Path, *extra: str, file: str = "f.parquet", out: str | None = "out/g.parquet",
           payload: str = "p.bin", here: bool = False) -> subprocess.CompletedProcess[str]:
    """`extend` in a new process (or, `here`, in this one: each kind of refusal keeps one check in a new process)."""
    args = ["extend", str(work / file), "--payload-file", str(work / payload)]
    args += ["--out", out if out.startswith("/") else str(work / out)] if out is not None else []
    return (cli_here if here else cli)(*args, *extra)


def refused(proc: subprocess.CompletedProcess[str], message: str, work: Path) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert message in proc.stderr, proc.stderr
    assert proc.stdout == ""
    assert sorted(p.name for p in (work / "out").iterdir()) in ([], ["g.parquet"])


BAD_ARGUMENTS = [
    (("--struct", "ColumnMetadata"), "unknown struct 'ColumnMetadata': did you mean ColumnMetaData?"),
    (("--struct", "ColumnMetaData"), "10 ColumnMetaData match"),
    (("--struct", "ColumnMetaData", "--where", "column=99"), "no ColumnMetaData matches --where column=99"),
    (("--struct", "ColumnMetaData", "--where", "colour=1"), "bad --where 'colour=1'"),
    (("--struct", "OffsetIndex"), "this file has no OffsetIndex"),
    (("--struct", "FileMetaData", "--uuid", "xyz"), "bad --uuid 'xyz'"),
    (("--struct", "FileMetaData", "--uuid", "6f1c3a52-8e0d-4b7a-9c55-2d9e4f0a1b3c00"), "bad --uuid"),
    (("--struct", "FileMetaData", "--profile", "par3"), "--profile par3 is the final form's file tail"),
    (("--struct", "FileMetaData", "--profile", "nope"), "unknown --profile 'nope'"),
    (("--struct", "FileMetaData", "--header", "short"), "unknown --header 'short'"),
    (("--struct", "FileMetaData", "--track", "skiff"), "track 'skiff' has no extension mechanism"),
    (("--struct", "FileMetaData", "--track", "nope"), "nope"),
]


@pytest.mark.parametrize(("extra", "message"), BAD_ARGUMENTS)
def test_bad_arguments(work: Path, extra: tuple[str, ...], message: str) -> None:
    refused(extend(work, *extra, here=(extra, message) != BAD_ARGUMENTS[0]), message, work)
    assert not (work / "out" / "g.parquet").exists()


def test_missing_input_and_payload(work: Path) -> None:
    refused(extend(work, "--struct", "FileMetaData", file="absent.parquet"), "absent.parquet: no such file", work)
    refused(extend(work, "--struct", "FileMetaData", payload="absent.bin", here=True), "absent.bin: no such file",
            work)
    refused(extend(work, "--struct", "FileMetaData", file="out", here=True), "is a directory", work)
    refused(extend(work, "--struct", "FileMetaData", out=None, here=True), "extend needs --out OUT (or --dry-run)",
            work)


NOT_PARQUET = [b"", b"hello", b"PAR1" + b"\x00" * 40 + b"PAR1", b"PAR1" + bytes(40) + b"PAR3", b"\xff" * 4096]


@pytest.mark.parametrize("content", NOT_PARQUET)
def test_not_a_parquet_file(work: Path, content: bytes) -> None:
    (work / "bad.parquet").write_bytes(content)
    refused(extend(work, "--struct", "FileMetaData", file="bad.parquet", here=content != NOT_PARQUET[0]),
            "not a Parquet file", work)


def test_a_signed_footer_is_refused(work: Path) -> None:
    (work / "signed.parquet").write_bytes(base_bytes("plaintext-footer"))
    refused(extend(work, "--struct", "FileMetaData", file="signed.parquet"), "the footer is signed", work)


def test_out_exists_without_force(work: Path) -> None:
    (work / "out" / "g.parquet").write_bytes(b"keep me")
    refused(extend(work, "--struct", "FileMetaData", "--uuid", UUID), "exists; --force replaces it", work)
    assert (work / "out" / "g.parquet").read_bytes() == b"keep me"
    ok = extend(work, "--struct", "FileMetaData", "--uuid", UUID, "--force", here=True)
    assert ok.returncode == 0, ok.stderr
    assert (work / "out" / "g.parquet").read_bytes()[-4:] == b"PAR1"


def test_existing_extension_is_refused_and_out_untouched(work: Path) -> None:
    first = extend(work, "--struct", "FileMetaData", "--uuid", UUID, here=True)
    assert first.returncode == 0, first.stderr
    (work / "f.parquet").write_bytes((work / "out" / "g.parquet").read_bytes())
    (work / "out" / "g.parquet").unlink()
    refused(extend(work, "--struct", "FileMetaData", "--uuid", UUID), "has an extension already", work)


UNWRITABLE = ["no-such-dir/g.parquet", "out", "/proc/g.parquet"]


@pytest.mark.parametrize("out", UNWRITABLE)
def test_unwritable_out(work: Path, out: str) -> None:
    proc = extend(work, "--struct", "FileMetaData", "--uuid", UUID, out=out, here=out != UNWRITABLE[0])
    refused(proc, "g.parquet" if out != "out" else "is a directory", work)
    assert not (work / "no-such-dir").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_read_only_out_directory(work: Path) -> None:
    (work / "out").chmod(0o555)
    try:
        refused(extend(work, "--struct", "FileMetaData", "--uuid", UUID), "is not writable", work)
    finally:
        (work / "out").chmod(0o755)


def test_payload_file_too_big(work: Path) -> None:
    """A sparse 2 GiB file: refused from its size, before a byte of it is read."""
    with (work / "huge.bin").open("wb") as fh:
        fh.truncate(2**31)
    refused(extend(work, "--struct", "FileMetaData", payload="huge.bin"), "an extension holds at most 2147483647",
            work)
