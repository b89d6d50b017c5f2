"""Trees we read and trees we write (issue 29, class 2) and writers' outputs (class 3), through kernel/trees.py: no
symbolic link followed out of a tree we read (corpus import, add-regression, a store) or written through in one we
write (pack's SHA256SUMS), an output inside an input (or one of our trees) refused in one line before anything is
written, imported names placed without collisions within the file system's limits, a writer's output that is no
file a per-cell outcome. In process (the fast tier); the command lines are in test_inputs.py and test_atomic.py."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parquet_conformance.app.imports import import_directory
from parquet_conformance.conformance.adapters import CommandAdapter
from parquet_conformance.conformance.adapters.writing import Writer
from parquet_conformance.conformance.harness.workers import Worker
from parquet_conformance.conformance.harness.writing import write_one
from parquet_conformance.corpus import dist, pack, regression_store
from parquet_conformance.corpus.build import generate
from parquet_conformance.corpus.imports import MAX_COMPONENT, Imported, place
from parquet_conformance.corpus.model import MAX_CASE_ID, MAX_NAME, Citation, Kind
from parquet_conformance.corpus.parquet import TRACK
from parquet_conformance.kernel import trees
from tests.hostile import assert_nothing_left, fake_command, token

FAST = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("trees") / "corpus"
    generate(out, only="base/flat,corrupt/tiny/*")
    return out


def flat(small: Path) -> bytes:
    return (small / "cases" / "base" / "flat.parquet").read_bytes()


# -- reading: no link followed -------------------------------------------------------------------------


def test_import_follows_no_link_out_of_the_folder(small: Path, tmp_path: Path) -> None:
    secret = tmp_path / "outside" / "secret.parquet"
    secret.parent.mkdir()
    secret.write_bytes(flat(small) + b"SECRET")
    src = tmp_path / "src"
    (src / "d").mkdir(parents=True)
    (src / "d" / "own.parquet").write_bytes(flat(small))
    (src / "link.parquet").symlink_to(secret)
    (src / "linked-dir").symlink_to(secret.parent, target_is_directory=True)
    result = import_directory(src, tmp_path / "out", "t", [], "parquet")
    assert [c.id for c in result.manifest.cases] == ["import/t/d/own"]
    assert {s.split(" ")[0] for s in result.skipped} == {"link.parquet", "linked-dir"}
    assert not any(b"SECRET" in p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert dist.verify_tree(tmp_path / "out") == []


def test_open_below_refuses_a_link_at_any_component(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "f").write_bytes(b"x")
    (tmp_path / "root" / "a").mkdir(parents=True)
    (tmp_path / "root" / "a" / "b").symlink_to(tmp_path / "outside", target_is_directory=True)
    (tmp_path / "root" / "leaf").symlink_to(tmp_path / "outside" / "f")
    for rel in ("a/b/f", "leaf"):
        with pytest.raises(trees.TreeError, match="symbolic link"):
            trees.open_below(tmp_path / "root", rel)
    os.mkfifo(tmp_path / "root" / "fifo")
    with pytest.raises(trees.TreeError, match="not a regular file"):  # and it does not block
        trees.open_below(tmp_path / "root", "fifo")
    with pytest.raises(trees.TreeError, match="not a relative path"):
        trees.open_below(tmp_path / "root", "../outside/f")


def test_add_regression_follows_no_link(small: Path, tmp_path: Path) -> None:
    cite = [Citation("t", "s", "q")]
    link = tmp_path / "link.parquet"
    link.symlink_to(small / "cases" / "base" / "flat.parquet")
    with pytest.raises(ValueError, match="symbolic link"):
        regression_store.add(link, "regression/t-link", {"legacy": "read"}, cite, root=tmp_path / "store")
    store = tmp_path / "other"  # a store whose file is a link to something outside it
    regression_store.add(small / "cases" / "base" / "flat.parquet", "regression/t-x", {"legacy": "read"}, cite,
                         root=store)
    kept = regression_store.file_path("regression/t-x", ".parquet", store)
    kept.unlink()
    kept.symlink_to(small / "cases" / "corrupt" / "tiny" / "empty.parquet")
    with pytest.raises(ValueError, match="symbolic link"):
        regression_store.add_from(store, "regression/t-x", root=tmp_path / "mine")
    assert not (tmp_path / "mine" / "files").exists()


# -- writing: no link written through, outputs apart ---------------------------------------------------


def test_pack_replaces_a_linked_sha256sums_instead_of_writing_through_it(small: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    out = tmp_path / "dist"
    out.mkdir()
    (out / "SHA256SUMS").symlink_to(victim)
    _archive, digest = pack.pack(small, out)
    assert victim.read_text() == "mine\n"
    assert not (out / "SHA256SUMS").is_symlink() and digest in (out / "SHA256SUMS").read_text()
    with pytest.raises(trees.TreeError, match="is a corpus"):
        pack.pack(small, small)  # into the corpus itself: its own SHA256SUMS would be overwritten
    with pytest.raises(trees.TreeError, match="inside"):
        pack.pack(small, small / "cases" / "dist")


def test_write_below_never_writes_through_a_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"mine")
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    (root / "a" / "f").symlink_to(victim)
    (root / "b").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(trees.TreeError):
        trees.write_below(root, "a/f", b"theirs")
    with pytest.raises(trees.TreeError):
        trees.write_below(root, "b/victim", b"theirs")
    assert victim.read_bytes() == b"mine"


def test_copy_files_copies_every_byte_and_follows_no_link_in_either_tree(small: Path, tmp_path: Path) -> None:
    """The corpus cache's copy into OUT/corpus (corpus/build.py copy_tree): threads, folder fds, the kernel's copy;
    a link in the source (a file or a folder) or in the target is refused, and nothing is written through it."""
    files, _ = trees.files_below(small)
    out = tmp_path / "out"
    out.mkdir()
    trees.copy_files(small, out, files)
    assert trees.files_below(out)[0] == files
    assert all((out / rel).read_bytes() == (small / rel).read_bytes() for rel in files)
    victim, elsewhere = tmp_path / "victim", tmp_path / "elsewhere"
    victim.write_bytes(b"mine")
    elsewhere.mkdir()
    linked = tmp_path / "linked"
    (linked / "a").mkdir(parents=True)
    (linked / "a" / "f").symlink_to(victim)
    (linked / "b").symlink_to(tmp_path, target_is_directory=True)
    for rel in ("a/f", "b/victim"):
        (tmp_path / "copy").mkdir()
        with pytest.raises(trees.TreeError):
            trees.copy_files(linked, tmp_path / "copy", [rel])
        assert not (tmp_path / "copy" / rel).exists()
        shutil.rmtree(tmp_path / "copy")
    target = tmp_path / "target"
    target.mkdir()
    (target / files[0].split("/")[0]).symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(trees.TreeError):
        trees.copy_files(small, target, files)
    assert victim.read_bytes() == b"mine" and not any(elsewhere.iterdir())


@pytest.mark.parametrize("where", ["inside the corpus", "the corpus", "inside results", "inside the source"])
def test_an_output_inside_an_input_or_our_tree_is_refused(where: str, small: Path, tmp_path: Path) -> None:
    results = tmp_path / "run" / "results"
    (results / "run=r1").mkdir(parents=True)
    (results / "run=r1" / "_run.json").write_text("{}")
    src = tmp_path / "src"
    src.mkdir()
    output, inputs = {
        "inside the corpus": (small / "cases" / "out", {}),
        "the corpus": (small, {}),
        "inside results": (results / "site", {"the results dataset": results}),
        "inside the source": (src / "out", {"the imported folder": src}),
    }[where]
    with pytest.raises(trees.TreeError) as e:
        trees.separate(output, inputs)
    assert "\n" not in str(e.value)
    with pytest.raises(trees.TreeError):  # the reverse too: an input inside the output
        trees.separate(tmp_path, {"the input": src})
    trees.separate(tmp_path / "elsewhere", {"the input": src})  # apart: no error


def test_generate_refuses_a_folder_inside_a_corpus_and_one_not_a_corpus(small: Path, tmp_path: Path) -> None:
    with pytest.raises(trees.TreeError, match="inside"):
        generate(small / "nested", only="base/flat")
    stranger = tmp_path / "notes"
    stranger.mkdir()
    (stranger / "todo.txt").write_text("keep me")
    with pytest.raises(trees.TreeError, match="not empty"):
        generate(stranger, only="base/flat")
    assert (stranger / "todo.txt").read_text() == "keep me"


# -- names: collisions and length, before anything is written ------------------------------------------


def imported(rel: str) -> Imported:
    return Imported(Path("/nowhere") / rel, rel, (), Kind.GOLDEN, ())


segments = st.text(st.characters(codec="utf-8", exclude_characters="/\x00"), min_size=1, max_size=300)


@FAST
@given(st.lists(st.lists(segments, min_size=1, max_size=6).map("/".join), min_size=1, max_size=12, unique=True))
def test_imported_names_never_collide_and_fit_every_limit(paths: list[str]) -> None:
    """Any set of distinct relative paths (any characters, names up to 300 characters, 6 deep) gets distinct case ids
    and base names within the manifest's and the file system's limits, or nothing is placed at all."""
    placed = place("src", [imported(p + ".parquet") for p in paths], ".parquet")
    assert len({p.case for p in placed}) == len({p.base for p in placed}) == len(paths)
    for p in placed:
        assert len(p.case) <= MAX_CASE_ID and len(p.base) <= MAX_NAME
        assert all(len(part.encode()) <= MAX_COMPONENT + 17 for part in p.case.split("/"))


def test_two_names_that_clean_alike_keep_their_own_bytes(small: Path, tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "a").mkdir(parents=True)
    (src / "a__b").mkdir()
    files = {"a b.parquet": flat(small), "a_b.parquet": flat(small) + b"", "a/b__c.parquet": flat(small),
             "a__b/c.parquet": (small / "cases" / "corrupt" / "tiny" / "empty.parquet").read_bytes()}
    for rel, data in files.items():
        (src / rel).write_bytes(data)
    result = import_directory(src, tmp_path / "out", "t", [], "parquet")
    assert len(result.manifest.cases) == 4 and len(result.manifest.bases) == 4
    by_title = {c.title.removeprefix("t "): c for c in result.manifest.cases}
    for rel, data in files.items():
        case = by_title[rel]
        assert (tmp_path / "out" / case.file).read_bytes() == data
        assert (tmp_path / "out" / result.manifest.bases[case.base].file).read_bytes() == data
    assert dist.verify_tree(tmp_path / "out") == []


def test_long_nested_names_import_within_the_file_system_limits(small: Path, tmp_path: Path) -> None:
    src = tmp_path / "src"
    deep = src.joinpath(*(["d" * 120] * 3))
    deep.mkdir(parents=True)
    (deep / ("f" * 200 + ".parquet")).write_bytes(flat(small))
    result = import_directory(src, tmp_path / "out", "t", [], "parquet")
    (case,) = result.manifest.cases
    written = [p for p in (tmp_path / "out").rglob("*")]
    assert all(len(p.name.encode()) <= 255 for p in written) and len(case.id) <= MAX_CASE_ID
    assert dist.verify_tree(tmp_path / "out") == []


def test_check_names_refuses_before_anything_is_written() -> None:
    with pytest.raises(trees.TreeError, match="255"):
        trees.check_names(["a/" + "x" * 256])
    with pytest.raises(trees.TreeError, match="twice"):
        trees.check_names(["a/b", "a/b"])
    with pytest.raises(trees.TreeError, match="file and a folder"):
        trees.check_names(["a/b", "a/b/c"])


# -- a writer's output ---------------------------------------------------------------------------------


class FakeWriter(CommandAdapter, Writer):
    """tests/hostile/worker.py as a writer (its --write= mode says what it leaves at the output path) of Parquet files
    (its track gives the output's suffix)."""

    track_name = "parquet"


@pytest.mark.parametrize("mode", ["dir", "link", "vanish", "sparse", "file"])
def test_a_writers_output_that_is_no_file_is_one_cells_outcome(mode: str, tmp_path: Path) -> None:
    mark = token()
    adapter = FakeWriter()
    adapter.name = adapter.implementation = "fake-writer"
    worker = Worker(adapter, [*fake_command("none", mark), f"--write={mode}"], TRACK.normalize)
    table = pa.table({"x": [1, 2]})
    try:
        for _ in range(2):  # and the next write works: nothing the last one left counts
            row, data = write_one(worker, "fake-writer", "default", "t", table, tmp_path / "task", None)
            if mode == "file":
                assert row.outcome == "written" and data is not None and row.size == len(data)
            else:
                assert row.outcome == "harness-error" and data is None, row
                assert "no file to read" in (row.error_message or ""), row.error_message
    finally:
        worker.close()
    assert_nothing_left(mark)
