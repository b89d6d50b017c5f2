"""The corpus as a download: reproducible pack, verify, fetch over loopback HTTP with a safe
unpack (malicious archives built here), tampering caught, and regression cases."""

from __future__ import annotations

import dataclasses
import functools
import gzip
import hashlib
import http.server
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from parquet_conformance.app.cli import main
from parquet_conformance.corpus import dist, extract, pack
from parquet_conformance.corpus import regression_store as regressions
from parquet_conformance.corpus.build import generate
from parquet_conformance.corpus.model import CaseEntry, Manifest, matches
from parquet_conformance.corpus.parquet.catalog import all_cases
from tests.helpers import CLI, cli_here, read_cases

SMALL = "base/*,corrupt/tiny/*,corrupt/tail/*"
REPO_REGRESSIONS = Path(regressions.__file__).parent / "regressions"


def cli(*args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True,
                          timeout=300, env={**os.environ, **(env or {})}, cwd=cwd)


def one_line_error(proc: subprocess.CompletedProcess | tuple[int, str], code: int) -> str:
    rc, err = (proc.returncode, proc.stderr) if isinstance(proc, subprocess.CompletedProcess) else proc
    assert rc == code, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    return err


def run_main(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): (b"" if p.is_dir() else p.read_bytes())
            for p in sorted(root.rglob("*"))}


def flip(path: Path, offset: int | None = None) -> None:
    data = bytearray(path.read_bytes())
    i = len(data) // 2 if offset is None else offset
    data[i] ^= 0x01
    path.write_bytes(bytes(data))


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("small") / "corpus"
    generate(out, only=SMALL)
    return out


@pytest.fixture(scope="module")
def packed(small: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    archive, digest = pack.pack(small, tmp_path_factory.mktemp("dist"))
    return archive, digest


@pytest.fixture
def http_server() -> Iterator[Callable[[Path], str]]:
    """Serves a directory on 127.0.0.1 (an ephemeral port) for the duration of a test."""
    servers = []

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    def serve(directory: Path) -> str:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(directory)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


# -- pack ------------------------------------------------------------------------------------


def test_pack_twice_gives_identical_archives(small: Path, tmp_path: Path) -> None:
    a, digest_a = pack.pack(small, tmp_path / "a")
    proc = cli("corpus", "pack", "--corpus", str(small), "--out", str(tmp_path / "b"))
    assert proc.returncode == 0, proc.stderr
    b = tmp_path / "b" / a.name
    assert a.read_bytes() == b.read_bytes()
    assert (tmp_path / "a" / "SHA256SUMS").read_text() == (tmp_path / "b" / "SHA256SUMS").read_text() \
        == f"{digest_a}  {a.name}\n"
    assert hashlib.sha256(a.read_bytes()).hexdigest() == digest_a
    assert digest_a in proc.stdout


def test_archive_layout_and_attributes_are_fixed(small: Path, packed: tuple[Path, str]) -> None:
    archive, _ = packed
    manifest = json.loads((small / "manifest.json").read_text())
    top = f"parquet-conformance-corpus-{manifest['generator']['version']}-only-"
    assert archive.name.startswith(top) and archive.name.endswith(".tar.gz")
    raw = archive.read_bytes()
    assert raw[:3] == b"\x1f\x8b\x08" and raw[3] & 0x08 == 0, "gzip header must hold no file name"
    assert raw[4:8] == bytes(4), "gzip header mtime must be 0"
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    stem = archive.name.removesuffix(".tar.gz")
    assert names == sorted(names) and names[0] == stem
    assert all(n == stem or n.startswith(stem + "/") for n in names)
    for m in members:
        assert (m.mtime, m.uid, m.gid, m.uname, m.gname) == (0, 0, 0, "", ""), m.name
        assert m.isdir() or m.isreg(), m.name
        assert m.mode == (0o755 if m.isdir() else 0o644), m.name
    files = {n.removeprefix(stem + "/") for n, m in zip(names, members, strict=True) if m.isreg()}
    assert files == {"manifest.json", "README", "SHA256SUMS", *dist.corpus_files(Manifest.from_json(manifest))}
    with tarfile.open(archive) as tar:
        readme = tar.extractfile(f"{stem}/README").read().decode()
        assert tar.extractfile(f"{stem}/manifest.json").read() == (small / "manifest.json").read_bytes()
    for word in ("read", "reject", "either", "legacy", "aware:<profile>", "corrupt", "regression", '{"int": "42"}',
                 "sha256sum -c SHA256SUMS", "corpus verify"):
        assert word in readme, word


def test_pack_without_corpus_generates_one(tmp_path: Path) -> None:
    proc = cli("corpus", "pack", "--out", str(tmp_path), "--only", "corrupt/tiny/*")
    assert proc.returncode == 0, proc.stderr
    [archive] = tmp_path.glob("*.tar.gz")
    assert re.fullmatch(r"parquet-conformance-corpus-[0-9.]+-only-corrupt-tiny-[0-9a-f]{8}\.tar\.gz", archive.name)
    assert cli_here("corpus", "verify", str(archive)).returncode == 0
    one_line_error(cli("corpus", "pack", "--out", str(tmp_path), "--corpus", str(tmp_path), "--seed", "3"), 2)
    one_line_error(cli_here("corpus", "pack", "--out", str(tmp_path / "x"), "--corpus", str(tmp_path / "none")), 2)


def small_manifest() -> Manifest:
    return Manifest("parquet-conformance-manifest", 2, {}, 0, None, False, [], {}, {}, {}, [])


def test_archive_names_differ_by_build_options() -> None:
    def name(**kw: object) -> str:
        fields = {"generator": {"version": "1.2.0"}, "seed": 0, "only": None, "large": False, **kw}
        return dist.archive_stem(dataclasses.replace(small_manifest(), **fields))  # type: ignore[arg-type]

    names = [name(), name(seed=1), name(large=True), name(only="ext/size/*"), name(only="ext/size/?"),
             name(seed=1, large=True)]
    assert names[0] == "parquet-conformance-corpus-1.2.0"
    assert names[1] == "parquet-conformance-corpus-1.2.0-seed1"
    assert names[2] == "parquet-conformance-corpus-1.2.0-large"
    assert names[3].startswith("parquet-conformance-corpus-1.2.0-only-ext-size-")
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"[A-Za-z0-9.-]+", n) for n in names)


def test_pack_refuses_a_corpus_that_does_not_match_its_manifest(small: Path, tmp_path: Path) -> None:
    copy = tmp_path / "corpus"
    shutil.copytree(small, copy)
    flip(copy / "cases" / "corrupt" / "tiny" / "magic-only.parquet", 0)
    err = one_line_error(cli("corpus", "pack", "--corpus", str(copy), "--out", str(tmp_path / "dist")), 2)
    assert "magic-only.parquet" in err
    assert not list((tmp_path / "dist").glob("*.tar.gz"))


# -- end to end --------------------------------------------------------------------------------


def test_pack_fetch_verify_and_run_the_plugin_over_loopback_http(small: Path, tmp_path: Path,
                                                                 http_server: Callable[[Path], str]) -> None:
    dist_dir = tmp_path / "dist"
    assert cli("corpus", "pack", "--corpus", str(small), "--out", str(dist_dir)).returncode == 0
    [line] = (dist_dir / "SHA256SUMS").read_text().splitlines()
    digest, name = line.split("  ")
    url = f"{http_server(dist_dir)}/{name}"

    got = tmp_path / "got"
    proc = cli("corpus", "fetch", url, "--sha256", digest, "--into", str(got))
    assert proc.returncode == 0, proc.stderr
    root = got / name.removesuffix(".tar.gz")
    assert str(root) in proc.stdout
    assert sorted(p.name for p in got.iterdir()) == [root.name], "no staging directory left behind"
    assert tree(root / "cases") == tree(small / "cases")
    for target in (root, got):
        proc = (cli if target == root else cli_here)("corpus", "verify", str(target))
        assert proc.returncode == 0, proc.stderr
        assert "OK" in proc.stdout
    proc = cli_here("corpus", "verify", str(dist_dir / name))
    assert proc.returncode == 0 and "matches SHA256SUMS" in proc.stdout, proc.stderr

    # An implementer's CI: pytest with the plugin, in a directory of its own, no conftest.
    manifest = json.loads((root / "manifest.json").read_text())
    expected = judged_by_the_harness(root, manifest)
    ci = tmp_path / "ci"
    ci.mkdir()
    (ci / "pytest.ini").write_text("[pytest]\n")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "parquet_conformance.app.pytest_plugin",
                           "--parquet-conformance-corpus", str(got), "--parquet-conformance-adapter", "pyarrow",
                           "-q", "-p", "no:cacheprovider"], cwd=ci, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    counts = summary(proc.stdout)
    assert counts.get("passed", 0) == expected["pass"], proc.stdout
    assert counts.get("failed", 0) == sum(v for k, v in expected.items() if k != "pass"), proc.stdout
    assert sum(counts.values()) == len(manifest["cases"]) == len([c for c in all_cases() if matches(c.id, SMALL)])
    assert counts["passed"] >= 5  # at least the base cases


def judged_by_the_harness(root: Path, manifest: dict) -> Counter:
    """The verdicts `parquet-conformance run` gives, to compare the plugin with."""
    from parquet_conformance.conformance.harness.judge import Judge
    from parquet_conformance.conformance.harness.specs import AdapterSpec
    from parquet_conformance.corpus.model import Manifest

    typed = Manifest.from_json(manifest)
    rows = read_cases(typed.cases, root, [AdapterSpec("pyarrow")])
    return Counter(c.verdict for c in Judge.of(typed).cells(rows))


def summary(stdout: str) -> dict[str, int]:
    last = stdout.strip().splitlines()[-1]
    return {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|xfailed|xpassed|skipped|error)", last)}


# -- tampering ---------------------------------------------------------------------------------


def test_verify_names_every_tampered_missing_and_extra_file(small: Path, tmp_path: Path) -> None:
    copy = tmp_path / "corpus"
    shutil.copytree(small, copy)
    assert cli_here("corpus", "verify", str(copy)).returncode == 0
    flip(copy / "cases" / "corrupt" / "tail" / "PAR3-on-thrift-footer.parquet")
    (copy / "cases" / "corrupt" / "tiny" / "8-bytes.parquet").unlink()
    (copy / "cases" / "corrupt" / "tiny" / "stray.parquet").write_bytes(b"PAR1")
    expected_json = copy / "expected" / "flat.json"
    data = json.loads(expected_json.read_text())
    data["rows"][0][0] = {"int": "12345"}
    expected_json.write_text(json.dumps(data))
    proc = cli("corpus", "verify", str(copy))
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert any("sha256 mismatch" in x and "cases/corrupt/tail/PAR3-on-thrift-footer.parquet" in x for x in lines)
    assert any("missing: cases/corrupt/tiny/8-bytes.parquet" in x for x in lines)
    assert any("extra: cases/corrupt/tiny/stray.parquet" in x for x in lines)
    assert any("data mismatch: expected/flat.json" in x for x in lines)
    assert len(lines) == 5  # four problems and the count


def test_a_flipped_byte_in_the_archive_is_caught(packed: tuple[Path, str], tmp_path: Path) -> None:
    archive, digest = packed
    dist_dir = tmp_path / "dist"
    dist_dir.mkdir()
    shutil.copy(archive, dist_dir)
    shutil.copy(archive.parent / "SHA256SUMS", dist_dir)
    bad = dist_dir / archive.name
    flip(bad)
    proc = cli("corpus", "verify", str(bad))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"sha256 mismatch: {archive.name}" in proc.stderr

    parent = tmp_path / "parent"
    parent.mkdir()
    before = tree(parent)
    err = one_line_error(cli_here("corpus", "fetch", bad.as_uri(), "--sha256", digest, "--into", str(parent / "into")),
                         1)
    assert "sha256 mismatch" in err and "nothing was unpacked" in err
    assert tree(parent) == before


def test_fetch_errors_are_one_line(packed: tuple[Path, str], tmp_path: Path,
                                   http_server: Callable[[Path], str]) -> None:
    archive, digest = packed
    url = http_server(archive.parent)
    assert "HTTP 404" in one_line_error(
        cli("corpus", "fetch", f"{url}/nope.tar.gz", "--sha256", digest, "--into", str(tmp_path / "a")), 2)
    one_line_error(cli_here("corpus", "fetch", str(archive), "--sha256", "abc", "--into", str(tmp_path / "a")), 2)
    one_line_error(cli_here("corpus", "fetch", "ftp://example.org/x.tar.gz", "--sha256", digest,
                            "--into", str(tmp_path / "a")), 2)
    assert not (tmp_path / "a").exists()
    # A second fetch into the same place does not mix two corpora.
    assert cli_here("corpus", "fetch", f"{url}/{archive.name}", "--sha256", digest, "--into", str(tmp_path / "b")
                    ).returncode == 0
    assert "already exists" in one_line_error(
        cli_here("corpus", "fetch", f"{url}/{archive.name}", "--sha256", digest, "--into", str(tmp_path / "b")), 2)


# -- malicious archives ------------------------------------------------------------------------


def member(name: str, kind: bytes = tarfile.REGTYPE, data: bytes = b"x", linkname: str = "") -> tuple:
    return name, kind, data, linkname


def build_archive(path: Path, members: list[tuple]) -> str:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, kind, data, linkname in members:
            info = tarfile.TarInfo(name)
            info.type, info.linkname = kind, linkname
            if kind == tarfile.REGTYPE:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                info.mode = 0o755 if kind == tarfile.DIRTYPE else 0o644
                tar.addfile(info)
    path.write_bytes(gzip.compress(buf.getvalue(), mtime=0))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def malicious(outside: Path) -> dict[str, list[tuple]]:
    top = member("top", tarfile.DIRTYPE, b"")
    return {
        # Each archive has a single top-level entry, so that only the check named is what refuses it.
        "absolute": [member(str(outside / "abs"), tarfile.DIRTYPE, b""), member(str(outside / "abs" / "evil"))],
        "dotdot": [member("../escape", tarfile.DIRTYPE, b""), member("../escape/evil")],
        "dotdot-inside": [top, member("top/../../escape")],
        "symlink": [top, member("top/link", tarfile.SYMTYPE, b"", str(outside))],
        "symlink-dir-then-file": [top, member("top/d", tarfile.SYMTYPE, b"", str(outside)),
                                  member("top/d/through-link")],
        "relative-symlink": [top, member("top/up", tarfile.SYMTYPE, b"", "../.."), member("top/up/escape")],
        "hardlink": [top, member("top/hard", tarfile.LNKTYPE, b"", "/etc/passwd")],
        "char-device": [top, member("top/dev", tarfile.CHRTYPE, b"")],
        "block-device": [top, member("top/blk", tarfile.BLKTYPE, b"")],
        "fifo": [top, member("top/fifo", tarfile.FIFOTYPE, b"")],
        "two-tops": [top, member("top/ok"), member("other/ok")],
        "duplicate": [top, member("top/a", data=b"1"), member("top/a", data=b"2")],
    }


@pytest.mark.parametrize("case", list(malicious(Path("/x"))))
def test_malicious_archives_are_refused_whole(case: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    archives = tmp_path / "archives"
    archives.mkdir()
    archive = archives / f"{case}.tar.gz"
    digest = build_archive(archive, malicious(outside)[case])
    parent = tmp_path / "parent"
    parent.mkdir()
    before = tree(tmp_path)

    rc, _, err = run_main(capsys, "corpus", "fetch", str(archive), "--sha256", digest, "--into",
                            str(parent / "into"))
    one_line_error((rc, err), 1)
    assert "refus" in err
    assert not (parent / "into").exists(), "nothing may be written, not even DIR"
    assert tree(tmp_path) == before
    assert not (tmp_path / "escape").exists() and not (parent / "escape").exists()


def test_safe_extract_refuses_a_path_through_a_symlink_already_in_dir(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    into = tmp_path / "into"
    into.mkdir()
    (into / "top").symlink_to(outside)
    archive = tmp_path / "a.tar.gz"
    build_archive(archive, [member("top/file")])
    with pytest.raises((dist.Refused, dist.DistError)):
        extract.safe_extract(archive, into)
    assert list(outside.iterdir()) == []


def test_a_corpus_packed_by_another_tool_unpacks(small: Path, tmp_path: Path) -> None:
    """`tar czf a.tar.gz ./top` style: `./` prefixes, no directory entries of its own but the top."""
    archive = tmp_path / "a.tar.gz"
    files = sorted(p for p in small.rglob("*") if p.is_file())
    build_archive(archive, [member("./top", tarfile.DIRTYPE, b"")] +
                  [member(f"./top/{p.relative_to(small).as_posix()}", data=p.read_bytes()) for p in files])
    root = extract.safe_extract(archive, tmp_path / "into")
    assert root == tmp_path / "into" / "top"
    assert (root / "manifest.json").read_bytes() == (small / "manifest.json").read_bytes()
    assert dist.verify_tree(root) == []


# -- regression cases --------------------------------------------------------------------------


@pytest.fixture
def regression_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "regressions"
    monkeypatch.setenv(regressions.ENV, str(root))
    return root


def test_add_regression_becomes_a_case(regression_dir: Path, tmp_path: Path, small: Path,
                                       capsys: pytest.CaptureFixture) -> None:
    found = tmp_path / "crash-1234.parquet"
    found.write_bytes((small / "cases" / "corrupt" / "tiny" / "12-bytes-zero-length.parquet").read_bytes() + b"!")
    proc = cli("corpus", "add-regression", str(found), "--id", "regression/arrow-gh-1234", "--expect",
               "legacy=reject", "--expect", "aware:flatbuf=either",
               "--cite", "apache/arrow GH-1234 | Description | reader crashes | on this file",
               "--notes", "from a fuzzer", env={regressions.ENV: str(regression_dir)})
    assert proc.returncode == 0, proc.stderr
    stored = regression_dir / "files" / "regression" / "arrow-gh-1234.parquet"
    assert stored.read_bytes() == found.read_bytes()
    [entry] = json.loads((regression_dir / "regressions.json").read_text())
    assert entry["citations"] == [{"source": "apache/arrow GH-1234", "section": "Description",
                                   "quote": "reader crashes | on this file"}]

    manifest = generate(tmp_path / "corpus", only="regression/*,base/flat").to_json()
    [case] = [c for c in manifest["cases"] if c["kind"] == "regression"]
    assert CaseEntry.from_json(case).to_json() == case
    assert case == {
        "id": "regression/arrow-gh-1234", "track": "parquet", "title": "found-in-the-wild file crash-1234.parquet",
        "group": "regression", "kind": "regression", "base": "flat",
        "file": "cases/regression/arrow-gh-1234.parquet", "size": found.stat().st_size,
        "sha256": hashlib.sha256(found.read_bytes()).hexdigest(), "seed": 0,
        "mutations": [{"mutation": "copy", "source": "regressions/files/regression/arrow-gh-1234.parquet"}],
        # the metadata role is derived from the file itself (corpus/build.derived): our decoder rejects it too
        "expect": {"legacy": "reject", "aware:flatbuf": "either", "metadata": "reject"}, "decode": {},
        "citations": entry["citations"], "notes": "from a fuzzer", "extensions": None, "large": False, "op": "read",
        "data_unknown": False, "expect_hash": {"metadata": case["expect_hash"]["metadata"]},
        # no sentence requires them (the user's citation states no force): this suite's reading, never a default
        # `must` (spec-notes#levels)
        "levels": {"legacy": "policy", "aware:flatbuf": "policy", "metadata": "policy"}, "alternatives": [], "keys": {}}
    assert re.fullmatch(r"[0-9a-f]{64}", case["expect_hash"]["metadata"])
    assert (tmp_path / "corpus" / case["file"]).read_bytes() == found.read_bytes()
    assert "flat" in manifest["bases"]
    assert cli_here("corpus", "verify", str(tmp_path / "corpus")).returncode == 0
    # --only applies to regressions, and a second one keeps the index sorted.
    assert not any(c.kind == "regression" for c in generate(tmp_path / "c2", only="base/flat").cases)
    second = tmp_path / "a.parquet"
    second.write_bytes(b"PAR1")
    rc, _, err = run_main(capsys, "corpus", "add-regression", str(second), "--id", "regression/aaa",
                          "--expect", "legacy=reject", "--cite", "s | t | q", "--title", "four bytes")
    assert rc == 0, err
    assert [e["id"] for e in regressions.load()] == ["regression/aaa", "regression/arrow-gh-1234"]
    assert [c["id"] for c in generate(tmp_path / "c3", only="regression/*").to_json()["cases"]] == \
        ["regression/aaa", "regression/arrow-gh-1234"]


@pytest.mark.parametrize("args, message", [
    (["--id", "regression/x", "--expect", "legacy=maybe"], "--expect"),
    (["--id", "regression/x", "--expect", "legacy"], "--expect"),
    (["--id", "regression/x", "--expect", "aware:x=read"], "legacy"),
    (["--id", "regression/x", "--expect", "legacy=read", "--expect", "legacy=reject"], "twice"),
    (["--id", "regression/x", "--expect", "reader=read"], "--expect"),
    (["--id", "regression/x", "--expect", "legacy=read", "--base", "nope"], "base"),
    (["--id", "base/flat", "--expect", "legacy=read"], "regression/"),
    (["--id", "regression/../x", "--expect", "legacy=read"], "bad case id"),
    (["--id", "regression/", "--expect", "legacy=read"], "bad case id"),
])
def test_add_regression_refuses_bad_input(args: list[str], message: str, regression_dir: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture) -> None:
    found = tmp_path / "f.parquet"
    found.write_bytes(b"PAR1")
    rc, _, err = run_main(capsys, "corpus", "add-regression", str(found), "--cite", "a | b | c", *args)
    assert message in one_line_error((rc, err), 2)
    assert regressions.load() == []
    assert not (regression_dir / "files").exists()


def test_add_regression_refuses_duplicates_bad_cites_and_missing_files(regression_dir: Path, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture) -> None:
    found = tmp_path / "f.parquet"
    found.write_bytes(b"PAR1")
    ok = ["--id", "regression/dup", "--expect", "legacy=reject", "--cite", "a | b | c"]
    assert run_main(capsys, "corpus", "add-regression", str(found), *ok)[0] == 0
    rc, _, err = run_main(capsys, "corpus", "add-regression", str(found), *ok)
    assert "already exists" in one_line_error((rc, err), 2)
    rc, _, err = run_main(capsys, "corpus", "add-regression", str(found), "--id", "regression/c",
                          "--expect", "legacy=reject", "--cite", "no pipes here")
    assert "--cite" in one_line_error((rc, err), 2)
    rc, _, err = run_main(capsys, "corpus", "add-regression", str(tmp_path / "nope.parquet"), "--id", "regression/m",
                          "--expect", "legacy=reject", "--cite", "a | b | c")
    assert "no such file" in one_line_error((rc, err), 2)
    assert [e["id"] for e in regressions.load()] == ["regression/dup"]
    # A stored file that no longer matches its index entry stops generation before anything is written.
    flip(regression_dir / "files" / "regression" / "dup.parquet", 0)
    with pytest.raises(ValueError, match="sha256"):
        generate(tmp_path / "corpus", only="regression/*")
    assert not (tmp_path / "corpus").exists()


def test_the_repository_index_is_consistent_and_untouched_by_tests() -> None:
    entries = regressions.load(REPO_REGRESSIONS)
    assert [e["id"] for e in entries] == sorted(e["id"] for e in entries)
    assert not {e["id"] for e in entries} & {"regression/arrow-gh-1234", "regression/aaa", "regression/dup"}
    for entry, data in regressions.case_entries(entries, REPO_REGRESSIONS):
        assert entry.sha256 == hashlib.sha256(data).hexdigest()


def test_help_explains_the_corpus_commands() -> None:
    out = cli("corpus", "--help").stdout
    assert all(cmd in out for cmd in ("pack", "verify", "fetch", "add-regression"))
    assert "reproducible" in cli_here("corpus", "pack", "--help").stdout
    assert "SHA256SUMS" in cli_here("corpus", "verify", "--help").stdout
    assert "refused whole" in cli_here("corpus", "fetch", "--help").stdout
    assert "PARQUET_CONFORMANCE_REGRESSIONS" in cli_here("corpus", "add-regression", "--help").stdout
