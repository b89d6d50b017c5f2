"""The independent readers of issue 23 (carquet, Hyper, rugo, por-que, parquet-python, and parquet-pages in the
metadata role) against their real libraries: each reads a base and rejects a corrupt case, the behaviours
docs/adapters.md documents, the metadata role from the corpus to the judge, and a Python found for a release that
needs a newer one. An adapter whose library is missing is skipped with the reason, except in CI (CI=true), where
`pip install -e '.[all]'` installs them all (por-que: where a Python >= 3.13 is found)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from parquet_conformance.conformance.adapters import AdapterUnavailable
from parquet_conformance.conformance.harness.envs import Env, environment, find_python
from parquet_conformance.conformance.harness.judge import Judge
from parquet_conformance.conformance.harness.model import (
    Crash,
    Error,
    OutcomeRow,
    Read,
    Rejected,
    Unavailable,
    Unhandled,
    Verdict,
)
from parquet_conformance.conformance.harness.specs import AdapterSpec
from parquet_conformance.conformance.harness.workers import Worker
from parquet_conformance.corpus.build import generate
from parquet_conformance.corpus.model import Expectation, Manifest
from parquet_conformance.corpus.parquet import METADATA, metadata_expectation
from parquet_conformance.generators.parquet.bases import base_bytes, base_hash

DATA_READERS = ("carquet", "hyper", "rugo", "por-que", "parquet-python")
CASES = ("base/multi-row-group,base/flat,corrupt/footer-length/max,corrupt/truncated/footer-50pct,"
         "corrupt/footer-length/at-head-magic,corrupt/extension/length-11-bytes,ext/file-metadata/flat/spec-header,"
         "ext/size/0B/spec-header")


def started(name: str) -> Worker:
    worker = AdapterSpec.parse(name).worker()
    if isinstance(worker.read("/nonexistent").outcome, Unavailable):
        worker.close()
        if os.environ.get("CI") == "true" and not (name == "por-que" and "Python >= 3.13" in str(worker.unavailable)):
            pytest.fail(f"{name} is unavailable in CI: {worker.unavailable}")
        pytest.skip(f"{name}: {worker.unavailable}")
    return worker


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    generate(root, only=CASES)
    return root


@pytest.fixture(scope="module")
def manifest(corpus: Path) -> Manifest:
    return Manifest.from_json(__import__("json").loads((corpus / "manifest.json").read_text()))


def case(corpus: Path, case_id: str) -> str:
    return str(corpus / "cases" / f"{case_id}.parquet")


@pytest.mark.parametrize("name", [*DATA_READERS, "parquet-pages"])
def test_reads_a_base_and_meets_a_corrupt_case(corpus: Path, name: str) -> None:
    worker = started(name)
    try:
        base = worker.read(case(corpus, "base/multi-row-group")).outcome
        corrupt = [worker.read(case(corpus, c)).outcome for c in ("corrupt/footer-length/max",
                                                                   "corrupt/truncated/footer-50pct")]
    finally:
        worker.close()
    expected = (metadata_expectation(base_bytes("multi-row-group"), base_bytes("multi-row-group"))[1]
                if name == "parquet-pages" else base_hash("multi-row-group"))
    assert isinstance(base, Read) and base.data_hash == expected, base  # Hyper: in file order, through ctid
    # parquet-python and parquet-pages never refuse these on purpose: a KeyError, a seek before the file's start, a
    # bare assert on the magic are unhandled errors (docs/adapters.md#error-taxonomy); the others refuse them
    kind = Unhandled if name in ("parquet-python", "parquet-pages") else Rejected
    assert all(isinstance(o, kind) and o.error.cls for o in corrupt), corrupt


def test_hyperd_does_not_outlive_its_worker(corpus: Path) -> None:
    worker = started("hyper")
    try:
        assert isinstance(worker.read(case(corpus, "base/flat")).outcome, Read)
        family, grown = {worker.transport.pid}, True  # the reaper, the worker under it, hyperd under that
        while grown:
            more = {int(p) for p in os.listdir("/proc") if p.isdigit() and _parent(p) in family}
            grown, family = bool(more - family), family | more
        hyperd = [str(p) for p in family if "hyperd" in _cmdline(str(p))]
        assert hyperd, "hyperd runs under the worker"
    finally:
        worker.close()
    deadline = time.monotonic() + 10  # hyperd has a process group of its own: it ends on its callback connection
    while any("hyperd" in _cmdline(p) for p in hyperd) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any("hyperd" in _cmdline(p) for p in hyperd)


def _parent(pid: str) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def test_rugo_reads_a_footer_it_cannot_parse_as_no_rows(corpus: Path) -> None:
    """Its finding: the footer length points at the head magic, and rugo returns an empty table, no error."""
    worker = started("rugo")
    try:
        outcome = worker.read(case(corpus, "corrupt/footer-length/at-head-magic")).outcome
    finally:
        worker.close()
    assert isinstance(outcome, Read) and outcome.rows == 0, outcome


def test_parquet_python_loses_control_on_pyarrow_dates(corpus: Path) -> None:
    """Its finding on base/flat: DATE read as a proleptic ordinal (date.fromordinal), whose check of negative days is
    datetime's, not a refusal of parquet-python's: an unhandled error (docs/adapters.md#error-taxonomy)."""
    worker = started("parquet-python")
    try:
        outcome = worker.read(case(corpus, "base/flat")).outcome
    finally:
        worker.close()
    assert isinstance(outcome, Unhandled) and "ordinal" in outcome.error.message, outcome


# -- the metadata role ------------------------------------------------------------------------------


def test_metadata_expectations_come_from_the_file_itself(manifest: Manifest) -> None:
    flat_summary = metadata_expectation(base_bytes("flat"), base_bytes("flat"))[1]
    expect = {c.id: c.expect[METADATA] for c in manifest.cases}
    hashes = {c.id: c.expect_hash[METADATA] for c in manifest.cases}
    assert expect["ext/file-metadata/flat/spec-header"] == Expectation.READ
    assert hashes["ext/file-metadata/flat/spec-header"] == flat_summary  # the extension changes no summary
    assert expect["corrupt/footer-length/max"] == Expectation.REJECT  # no Thrift reader reads that footer
    # the decoder refuses an 11-byte varint, the catalog knows Thrift Java reads it: they differ, so either
    assert expect["corrupt/extension/length-11-bytes"] == Expectation.EITHER
    assert all(c.expect["legacy"] for c in manifest.cases)  # the catalog's own roles are untouched


def test_the_judge_compares_a_metadata_read_with_the_case_summary(manifest: Manifest) -> None:
    case_entry = manifest.case("ext/file-metadata/flat/spec-header")
    base = manifest.bases["flat"]
    summary = case_entry.expect_hash[METADATA]
    judge = Judge.of(manifest)

    def attempt(case: str, outcome: object) -> OutcomeRow:
        return OutcomeRow.of(case, "r", "r", "1", [METADATA], outcome, 0.0)  # type: ignore[arg-type]

    read = attempt(case_entry.id, Read(data_hash=summary, rows=1))
    assert judge.verdict(case_entry, METADATA, read) == (Expectation.READ, Verdict.PASS)
    data = attempt(case_entry.id, Read(data_hash=base.data_hash, rows=base.rows))  # not what a metadata reader answers
    baseline = attempt("base/flat", Read(data_hash=base.data_hash, rows=base.rows))
    assert judge.verdict(case_entry, METADATA, data, baseline)[1] == Verdict.WRONG_DATA
    refusal = attempt(case_entry.id, Rejected(error=Error("thrift.TException", "no")))
    assert judge.verdict(case_entry, METADATA, refusal)[1] == Verdict.REJECTED_VALID
    assert judge.verdict(case_entry, "legacy", data) == (Expectation.READ, Verdict.PASS)


def test_parquet_pages_reads_an_extension_only_when_it_is_text(corpus: Path, manifest: Manifest) -> None:
    """Apache Thrift's Python skip() reads an unknown binary field as UTF-8: random bytes are an unhandled error (its
    codec's, not a refusal of Thrift's), nothing is read."""
    worker = started("parquet-pages")
    try:
        random = worker.read(case(corpus, "ext/file-metadata/flat/spec-header")).outcome
        empty = worker.read(case(corpus, "ext/size/0B/spec-header")).outcome
    finally:
        worker.close()
    assert isinstance(random, Unhandled) and random.error.cls == "builtins.UnicodeDecodeError", random
    assert isinstance(empty, Read) and empty.data_hash == manifest.case("ext/size/0B/spec-header").expect_hash[METADATA]


# -- a release that needs a newer Python ------------------------------------------------------------


def test_find_python() -> None:
    assert find_python(sys.version_info[:2]) is None  # the harness's own will do
    with pytest.raises(AdapterUnavailable, match=r"needs Python >= 3\.99 \(none found"):
        find_python((3, 99))


def test_por_que_environment_is_made_from_a_newer_python() -> None:
    try:
        env = environment(AdapterSpec("por-que").build())
    except AdapterUnavailable as e:
        assert str(e).startswith("needs Python >= 3.13") and "\n" not in str(e)
        pytest.skip(str(e))
    assert isinstance(env, Env) and env.interpreter and env.requirements == ("por-que==0.5.0", "pyarrow")


def test_a_crash_of_rugo_is_a_crash_cell(tmp_path: Path) -> None:
    """A file rugo 0.5.6 segfaults on (found while adding it: the flat base with its first column chunk's
    data_page_offset pointing into the footer); skipped where that rugo is not the one installed."""
    worker = started("rugo")
    try:
        if worker.start().version != "0.5.6":
            pytest.skip("the crash is rugo 0.5.6's")
        data = _segv_file()
        if data is None:
            pytest.skip("no crashing file for this rugo")
        (tmp_path / "segv.parquet").write_bytes(data)
        outcome = worker.read(str(tmp_path / "segv.parquet")).outcome
    finally:
        worker.close()
    assert isinstance(outcome, Crash) and "SIGSEGV" in (outcome.error.cls or ""), outcome


def _segv_file() -> bytes | None:
    fixture = Path(__file__).parent / "files" / "rugo-0.5.6-segv.parquet"
    return fixture.read_bytes() if fixture.is_file() else None


def test_a_metadata_reader_does_not_vote_on_imported_data(corpus: Path, tmp_path: Path) -> None:
    """`corpus import`: parquet-pages answers no data, so it is no voter; the imported cases still say what a reader
    in the metadata role must do, derived from each file (its own base)."""
    from parquet_conformance.app.imports import import_directory

    src = tmp_path / "found"
    src.mkdir()
    for name in ("base/flat", "corrupt/footer-length/max"):
        (src / f"{name.replace('/', '-')}.parquet").write_bytes(Path(case(corpus, name)).read_bytes())
    readers = [AdapterSpec("pyarrow"), AdapterSpec("parquet-pages")]
    result = import_directory(src, tmp_path / "out", "tests", readers, "parquet")
    assert "parquet-pages" not in result.voters and "parquet-pages" not in result.unavailable
    got = {c.id: (str(c.expect["legacy"]), str(c.expect[METADATA])) for c in result.manifest.cases}
    assert got == {"import/tests/base-flat": ("read", "read"),
                   "import/tests/corrupt-footer-length-max": ("reject", "reject")}
    flat = result.manifest.case("import/tests/base-flat")
    assert flat.expect_hash[METADATA] == metadata_expectation(base_bytes("flat"), base_bytes("flat"))[1]
