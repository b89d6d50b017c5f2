"""`report --upstream` without running anything: plain values, the scripts the adapters give (every slot filled,
nothing of ours imported, the Python one's conversions agreeing with ours), and which columns a script compares.
The scripts themselves run against real readers in tests/test_upstream_reproduce.py."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import hashlib
import json
import math
import os
import subprocess
import sys
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest

from parquet_conformance.app import upstream, upstream_folders
from parquet_conformance.conformance.adapters import get, names
from parquet_conformance.conformance.adapters.reproducing import reproducer_of
from parquet_conformance.conformance.adapters.taxonomy import Refusals, classify
from parquet_conformance.conformance.harness.model import Cell, Verdict
from parquet_conformance.conformance.harness.sample import column_digests
from parquet_conformance.corpus.model import CaseEntry
from parquet_conformance.generators.canonical import canonical_value
from parquet_conformance.kernel.errors import UsageError
from parquet_conformance.reports.model import DataDiff, RowDiff

COLUMNS = ["a", "b"]
ROWS = [[{"int": "1"}, "x"], [None, "y"]]


def cell(case: str, verdict: Verdict, expected: str = "read", sample: str | None = None,
         adapter: str = "pyarrow") -> Cell:
    return Cell.from_row(dict(case=case, track="parquet", group=case.split("/")[0], kind="golden", adapter=adapter,
                              implementation="Arrow C++ (parquet-cpp)", version="1.0", role="legacy",
                              expected=expected, outcome="read", verdict=verdict, error_class=None,
                              error_message=None, rows=2, data_hash=None, duration_s=0.1, metadata=None, attempts=2,
                              previous_case=None, disagreement=None, sample=sample))


def case_entry(case: str, expected: str = "read") -> CaseEntry:
    return CaseEntry.from_json(dict(
        id=case, track="parquet", title="a title", group=case.split("/")[0], kind="golden", base="b", file="f",
        size=10, sha256="0" * 64, seed=0, mutations=[], expect={"legacy": expected}, decode={},
        citations=[{"source": "spec", "section": "s", "quote": "q / r"}], notes="see docs/spec-notes.md#x",
        extensions=None, large=False))


def sample(rows: list[list[object]]) -> str:
    return json.dumps({"columns": COLUMNS, "rows": rows, "total": len(rows), "digests": column_digests(COLUMNS, rows)})


def test_plain_values() -> None:
    assert [upstream.plain(t) for t in (None, True, "t", {"int": "7"}, {"int": str(2**60)}, {"float": "nan"},
                                        {"float": "-inf"}, {"float": "-0.0"}, {"dec": "1E-10"}, {"bin": "00ff"},
                                        {"date": "+10000-01-01"}, {"uuid": "u"}, {"time_ns": "1500000000"})] == [
        None, True, "t", 7, str(2**60), "NaN", "-Infinity", -0.0, "0.0000000001", {"$hex": "00ff"}, "+10000-01-01",
        "u", "00:00:01.5"]
    assert upstream.plain({"ts_ns": "-1"}) == "1969-12-31T23:59:59.999999999"
    assert upstream.plain({"ts_ns": "981173106000001000"}) == "2001-02-03T04:05:06.000001"
    assert upstream.plain([{"struct": {"k": [["a", {"int": "1"}]]}}]) == [{"k": [["a", 1]]}]


@pytest.mark.parametrize("name", [n for n in names() if reproducer_of(get(n)) is not None])
def test_every_script_is_whole_and_stands_alone(name: str) -> None:
    repro = reproducer_of(get(name))
    assert repro is not None
    assert "@@" not in repro.text and "parquet_conformance" not in repro.text and "finding.json" in repro.text
    if repro.language == "Python":
        compile(repro.text, repro.script, "exec")
    assert repro.install.format(version="1.0") and repro.run


def python_script(tmp_path: Path, finding: dict[str, object], name: str = "pyarrow") -> dict[str, object]:
    """The Python script of an adapter, loaded as a module beside a finding.json (its main() not run)."""
    repro = reproducer_of(get(name))
    assert repro is not None
    (tmp_path / "finding.json").write_text(json.dumps(finding))
    ns: dict[str, object] = {"__name__": "repro", "__file__": str(tmp_path / "repro.py")}
    exec(compile(repro.text, "repro.py", "exec"), ns)
    return ns


def finding_json(name: str, expect: str = "read") -> dict[str, object]:
    doc = upstream.finding_data(
        upstream.Finding(name, Verdict.CRASH, "s", cell("c/d", Verdict.CRASH), case_entry("c/d"), []),
        upstream.Comparison([], None, False, "", {}), "case.parquet", get(name), reproducer_of(get(name)))
    return {**doc, "expect": expect}


def test_the_python_script_writes_plain_values_as_we_do(tmp_path: Path) -> None:
    ns = python_script(tmp_path, finding_json("pyarrow"))
    script_plain, instant, days = ns["plain"], ns["Instant"], ns["Days"]
    values = [None, True, 5, 2**60, -(2**60), 1.5, -0.0, math.inf, "Grüße", decimal.Decimal("1E-10"),
              decimal.Decimal("-123.45"), dt.date(1, 1, 1), dt.date(9999, 12, 31),
              dt.datetime(2001, 2, 3, 4, 5, 6, 789),
              dt.datetime(2001, 2, 3, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=-5))),
              dt.time(23, 59, 59, 999999), uuid.UUID(int=12345), b"\x00\xff", {"a": [1, None]}, [("k", 1.0)]]
    for v in values:
        assert script_plain(v) == upstream.plain(canonical_value(v)), v  # type: ignore[operator]
    assert script_plain(math.nan) == "NaN"  # type: ignore[operator]
    for ns_ in (-1, 0, 86_400 * 10**9 - 1, 253402214400000001000, -62135596800000000001, 864000086399999999000):
        assert script_plain(instant(ns_)) == upstream.timestamp_text(ns_)  # type: ignore[operator]
    for d in (-719_163, -800_000, 0, 2_932_896, 3_000_000):
        assert script_plain(days(d)) == upstream.plain({"date": upstream.date_text(d)})  # type: ignore[operator]


class Wrapped(Exception):
    """A library's refusal class raised `from` another error."""


ERRORS: list[BaseException] = [ValueError("x"), TypeError("t"), KeyError(1), IndexError(2), MemoryError(),
                               RecursionError(), OSError(22, "Invalid argument"), RuntimeError("Code: 49. boom"),
                               RuntimeError("Code: 36. DB::Exception: bad"), RuntimeError("Error Source: USER"),
                               NotImplementedError("Encoding 9"), AssertionError(), Exception("DataFusion error: x"),
                               Exception("Internal error: y")]


@pytest.mark.parametrize("name", [n for n in names() if (r := reproducer_of(get(n))) and r.language == "Python"])
def test_the_python_script_sorts_errors_as_the_taxonomy_does(tmp_path: Path, name: str) -> None:
    """One rule: what the script calls losing control is what the worker called unhandled, oom or a crash."""
    ns = python_script(tmp_path, finding_json(name))  # the rule is the skeleton's; the data is the adapter's
    lost = ns["lost_control"]
    chained = Wrapped("refused")
    chained.__cause__ = TypeError("inside")
    for error in [*ERRORS, chained]:
        rule = get(name).refusals if not isinstance(error, Wrapped) else Refusals(classes=(f"{__name__}.Wrapped",))
        if isinstance(error, Wrapped):
            ns["RULE"]["classes"] = [f"{__name__}.Wrapped"]  # type: ignore[index]
        assert (lost(error) is None) == (classify(rule, error) == "rejected"), (name, error)  # type: ignore[operator]


def run_of(*cells: Cell) -> SimpleNamespace:
    return SimpleNamespace(cells=list(cells))


MANIFEST = SimpleNamespace(bases={"b": SimpleNamespace(baseline_case="base/b")})


def test_a_script_compares_what_the_adapter_reads_right_in_the_base() -> None:
    finding = upstream.Finding("pyarrow", Verdict.REJECTED_VALID, "s", cell("c/d", Verdict.REJECTED_VALID),
                               case_entry("c/d"), [])
    compare = upstream.comparison
    got = compare(finding, run_of(cell("base/b", Verdict.PASS)), MANIFEST, (COLUMNS, ROWS))  # type: ignore[arg-type]
    assert (got.columns, got.rows, got.control) == (COLUMNS, 2, True)
    base_off = cell("base/b", Verdict.WRONG_DATA, sample=sample([[{"int": "1"}, "x"], [None, "z"]]))
    got = compare(finding, run_of(base_off), MANIFEST, (COLUMNS, ROWS))  # type: ignore[arg-type]
    assert (got.columns, got.control) == (["a"], True) and "reads b of the unmodified base" in got.note
    got = compare(finding, run_of(), MANIFEST, (COLUMNS, ROWS))  # type: ignore[arg-type]
    assert (got.columns, got.control) == (COLUMNS, False) and "did not read the unmodified base" in got.note
    # a column the script cannot read is never compared, and says why
    got = compare(finding, run_of(), MANIFEST, (COLUMNS, ROWS), {"b": "no way", "z": "absent"})  # type: ignore[arg-type]
    assert (got.columns, got.not_compared) == (["a"], {"b": "no way"})
    # wrong data: the columns this case changed, not those the adapter gets wrong on every file of the base
    wrong = upstream.Finding("pyarrow", Verdict.WRONG_DATA, "s", cell("c/d", Verdict.WRONG_DATA,
                             sample=sample([[{"int": "2"}, "z"], [None, "z"]])), case_entry("c/d"), [])
    got = compare(wrong, run_of(base_off), MANIFEST, (COLUMNS, ROWS))  # type: ignore[arg-type]
    assert (got.columns, got.control) == (["a"], True)
    only_b = upstream.Finding("pyarrow", Verdict.WRONG_DATA, "s", cell("c/d", Verdict.WRONG_DATA,
                              sample=sample([[{"int": "1"}, "q"], [None, "q"]])), case_entry("c/d"), [])
    got = compare(only_b, run_of(base_off), MANIFEST, (COLUMNS, ROWS))  # type: ignore[arg-type]
    assert (got.columns, got.control) == (["b"], False)
    reject = upstream.Finding("pyarrow", Verdict.ACCEPTED_INVALID, "s", cell("c/d", Verdict.ACCEPTED_INVALID,
                              expected="reject"), case_entry("c/d", "reject"), [])
    assert compare(reject, run_of(), MANIFEST, (COLUMNS, ROWS)).columns == []  # type: ignore[arg-type]
    assert compare(finding, run_of(), MANIFEST, None).rows is None  # type: ignore[arg-type]
    only_interval = upstream.Comparison([], 2, False, "", {"interval": "unreadable"})
    assert "cannot read" in (upstream.script_judges(wrong, only_interval) or "")
    assert upstream.script_judges(wrong, got) is None


def test_one_cause_whatever_the_columns() -> None:
    """Column names, numbers and a wrapper's second line are not part of a cause; the kind of data change is."""
    names = ["amount", "i32", "date"]
    for a, b in [("row group 3, column 'amount': Invalid string length", "row group 0, column 'i32': Invalid string "
                  "length"), ("java.lang.ClassCastException: optional group i32 {", "java.lang.ClassCastException: "
                  "optional group amount {")]:
        ca = upstream.cause(err_cell(a), DOC, case_entry("c/d"), names)  # type: ignore[arg-type]
        assert ca == upstream.cause(err_cell(b), DOC, case_entry("c/d"), names) and "<column>" in ca  # type: ignore[arg-type]
    assert "date" in upstream.without_names("a date out of range", names)  # a word, not a column's place
    diff = DataDiff("c/d", "x", "legacy", 2, 2, COLUMNS, COLUMNS, ["a"],
                    [RowDiff(0, ["a"], ["null"], ['{"float": "nan"}']), RowDiff(1, ["b"], ['{"int": "1"}'],
                                                                                ['{"int": "2"}'])], "")
    assert upstream.data_cause(diff) == "returned other data: null -> NaN, other integer"
    hang = cell("c/d", Verdict.HANG)
    assert upstream.cause(hang, DOC, case_entry("c/d"), names) == "no answer within the hang limit"  # type: ignore[arg-type]


def err_cell(message: str) -> Cell:
    c = cell("c/d", Verdict.UNHANDLED)
    cls, _, text = message.partition(": ")
    return dataclasses.replace(c, error_class=cls, error_message=text)


DOC = SimpleNamespace(diff_of=lambda c: None)


def test_names_and_corpus() -> None:
    doc = SimpleNamespace(adapters=[SimpleNamespace(adapter="polars", implementation="polars (Rust)")],
                          run=SimpleNamespace(id="r1"), writers=None)
    assert upstream.resolve(doc, "polars") == upstream.resolve(doc, "POLARS (rust)") == "polars"  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="not in run r1; its adapters: polars"):
        upstream.resolve(doc, "duckdb")  # type: ignore[arg-type]
    assert upstream.safe_word("1.2.3", "V") == "1.2.3" and upstream.safe_word("1`$(x)", "V") == "V"


def test_the_corpus_is_found_from_anywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run records its corpus relative to its own folder (`corpus`): found there from any folder; a run recorded
    before that (relative to where it started: out/latest/corpus) is found from a folder above its results, never
    from the current folder, even one that holds another run's out/latest/corpus (README's first command)."""
    corpus = tmp_path / "out" / "latest" / "corpus"
    corpus.mkdir(parents=True)
    (corpus / "manifest.json").write_text("{}")
    results = tmp_path / "out" / "latest" / "results"
    results.mkdir()
    here = tmp_path / "here"  # another run's folder, the current one
    (here / "out" / "latest" / "corpus").mkdir(parents=True)
    (here / "out" / "latest" / "corpus" / "manifest.json").write_text("{}")
    monkeypatch.chdir(here)
    assert upstream.locate_corpus("corpus", results, None) == corpus.resolve()
    assert upstream.locate_corpus("out/latest/corpus", results, None) == corpus.resolve()
    assert upstream.locate_corpus("anything", results, tmp_path) == tmp_path
    copy = tmp_path / "copy"  # a copy of the run (out/latest) recorded so: its corpus is the copy's
    (copy / "corpus").mkdir(parents=True)
    (copy / "corpus" / "manifest.json").write_text("{}")
    (copy / "results").mkdir()
    assert upstream.locate_corpus("out/latest/corpus", copy / "results", None) == (copy / "corpus").resolve()
    with pytest.raises(UsageError, match="give it with --corpus"):
        upstream.locate_corpus("elsewhere/gone", results, None)
    with pytest.raises(UsageError, match="records no corpus"):
        upstream.locate_corpus("", results, None)


def test_refusals_write_nothing(tmp_path: Path) -> None:
    doc = SimpleNamespace(adapters=[SimpleNamespace(adapter="polars", implementation="polars", version="1")],
                          run=SimpleNamespace(id="r1", corpus="", corpus_digest=""), writers=None)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    with pytest.raises(UsageError, match="not an empty directory"):
        upstream_folders.write_upstream(doc, "polars", tmp_path / "full", tmp_path)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="records no corpus"):
        upstream_folders.write_upstream(doc, "polars", tmp_path / "out", tmp_path)  # type: ignore[arg-type]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full"]


def test_every_script_is_the_same_in_every_process() -> None:
    """A script is made from the adapter's skeleton and its own code (sets' members sorted): no hash seed changes a
    byte, so two runs' folders hold the same script."""
    code = ("import hashlib; from parquet_conformance.conformance.adapters import get, names; "
            "from parquet_conformance.conformance.adapters.reproducing import reproducer_of; "
            "print({n: hashlib.sha256(reproducer_of(get(n)).text.encode()).hexdigest() for n in names() "
            "if reproducer_of(get(n)) is not None})")
    seen = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    assert len(seen) == 1
    here = {n: hashlib.sha256(r.text.encode()).hexdigest() for n in names() if (r := reproducer_of(get(n)))}
    assert str(here) == seen.pop().strip()


# -- issue 39 item 3: scripts whose exit status is their contract, READMEs that name only files their folder has ----


def script_folder(tmp_path: Path, name: str) -> Path:
    """A folder with an adapter's script (and the files it runs) and a finding.json, as report --upstream writes."""
    repro = reproducer_of(get(name))
    assert repro is not None
    folder = tmp_path / name
    folder.mkdir()
    for file, text in [(repro.script, repro.text), *getattr(repro, "companions", {}).items()]:
        (folder / file).write_text(text, encoding="utf-8")
    (folder / "finding.json").write_text(json.dumps({**finding_json(name), "version": "1.0"}))
    return folder


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with nothing installed."""
    where = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    return where / "bin" / "python"


def cannot_judge(proc: subprocess.CompletedProcess, *says: str) -> None:
    """Exit 2 and one line that says what to install; no traceback."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr[-2000:])
    [line] = proc.stdout.splitlines()
    assert line.startswith("CANNOT JUDGE: ") and all(s in line for s in says), line
    assert "Traceback" not in proc.stderr and "Error:" not in proc.stderr, proc.stderr[-2000:]


@pytest.mark.parametrize("name", [n for n in names() if (r := reproducer_of(get(n))) and r.language == "Python"])
def test_a_python_script_without_its_library_cannot_judge(tmp_path: Path, name: str, bare_python: Path) -> None:
    """In a bare venv a script stops at its first import: that is no verdict on the reader (exit 1 would say the
    finding reproduces), so it exits 2 and names what to install, as its README's Reproduce section does."""
    folder = script_folder(tmp_path, name)
    repro = reproducer_of(get(name))
    assert repro is not None
    proc = subprocess.run([str(bare_python), "-I", repro.script], cwd=folder, capture_output=True, text=True,
                          timeout=120, env={"PATH": os.defpath})
    cannot_judge(proc, "the Python module ", repro.install.format(version="1.0").splitlines()[0])


def test_the_polars_script_with_polars_alone_names_pyarrow(tmp_path: Path) -> None:
    """Issue 39's case: a venv with only polars==2.1.0 installed (its package and runtime linked into a bare venv)
    stopped the polars scripts at ModuleNotFoundError: pyarrow, exit 1, "reproduces"."""
    import polars

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    [site] = venv.glob("lib/python*/site-packages")
    installed = Path(polars.__file__).parent.parent
    for entry in installed.iterdir():
        if "polars" in entry.name.lower():
            (site / entry.name).symlink_to(entry)
    python = venv / "bin" / "python"
    assert subprocess.run([str(python), "-I", "-c", "import polars"], capture_output=True).returncode == 0
    folder = script_folder(tmp_path, "polars")
    proc = subprocess.run([str(python), "-I", "repro.py"], cwd=folder, capture_output=True, text=True, timeout=120,
                          env={"PATH": os.defpath})
    cannot_judge(proc, "the Python module pyarrow is missing here", "pip install polars==1.0 pyarrow")


@pytest.mark.integration
@pytest.mark.parametrize("name", [n for n in names() if (r := reproducer_of(get(n))) and r.language != "Python"])
def test_a_node_or_java_script_without_its_library_cannot_judge(tmp_path: Path, name: str) -> None:
    """Node with no node_modules, Java without the jars: exit 2 and what to install, not a verdict (Java's source
    launcher fails to compile a program whose imports are missing, exit 1: Repro.java checks the classpath first)."""
    import shutil

    folder = script_folder(tmp_path, name)
    repro = reproducer_of(get(name))
    assert repro is not None
    runtime = "node" if repro.language == "JavaScript" else "java"
    if shutil.which(runtime) is None:
        pytest.skip(f"no {runtime}")
    proc = subprocess.run([runtime, repro.script], cwd=folder, capture_output=True, text=True, timeout=300,
                          env={"PATH": os.defpath})
    install = repro.install.format(version="1.0").splitlines()[0].split("  #")[0]
    cannot_judge(proc, "not installed here" if runtime == "node" else "the classpath lacks ", install)


def readme_files(folder: Path) -> set[str]:
    """The file names a README names (in code spans: `expected.json`)."""
    import re

    return set(re.findall(r"`([\w-]+\.(?:json|parquet|py|mjs|java))`", (folder / "README.md").read_text()))


FINDINGS = [(Verdict.CRASH, e) for e in ("read", "either", "reject")] + [
    (v, e) for v in (Verdict.UNHANDLED, Verdict.REJECTED_VALID, Verdict.WRONG_DATA) for e in ("read", "either")] + [
    (Verdict.ACCEPTED_INVALID, "reject")]


def folder_of(tmp_path: Path, name: str, verdict: Verdict, expected: str, stated: bool = True,
              error_class: str | None = None) -> Path:
    """The folder report --upstream writes for one finding of an adapter (a case of a corpus made here, its base's
    data stated or not)."""
    root = tmp_path / name / "corpus"
    (root / "cases").mkdir(parents=True)
    (root / "expected").mkdir()
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"a": [1, None]}), root / "cases" / "c.parquet")
    (root / "expected" / "b.json").write_text(json.dumps({"columns": ["a"], "rows": [[{"int": "1"}], [None]]}))
    case = CaseEntry.from_json({**case_entry("c/d", expected).to_json(), "file": "cases/c.parquet",
                                "data_unknown": not stated})
    base = SimpleNamespace(expected="expected/b.json", baseline_case="base/b", file="cases/c.parquet", columns=["a"])
    the_cell = dataclasses.replace(cell("c/d", verdict, expected, sample=sample([[{"int": "2"}, "x"]])),
                                   outcome="read" if verdict in (Verdict.WRONG_DATA, Verdict.ACCEPTED_INVALID) else
                                   "crash" if verdict == Verdict.CRASH else "rejected")
    doc = SimpleNamespace(cases=[], roles={"legacy": "a reader"}, reproduce={}, diff_of=lambda c: None, cells=[],
                          run=SimpleNamespace(id="r1", generator_version="0.2.0", seed=0, corpus_digest="ab" * 32))
    manifest = SimpleNamespace(bases={"b": base}, case=lambda _: case)
    folder = tmp_path / name / f"{verdict.value.removeprefix('fail:')}-{expected}"
    the_cell = dataclasses.replace(the_cell, adapter=name, error_class=error_class or the_cell.error_class)
    upstream_folders.write_finding(folder, upstream.Finding(name, verdict, "cause", the_cell, case, []), doc,
                           manifest, root, get(name), reproducer_of(get(name)))  # type: ignore[arg-type]
    return folder


@pytest.mark.parametrize(("verdict", "expected"), FINDINGS)
@pytest.mark.parametrize("stated", [True, False])
def test_a_readme_names_only_files_its_folder_has(tmp_path: Path, verdict: Verdict, expected: str,
                                                  stated: bool) -> None:
    """The polars READMEs of regression/fuzz/polars/crash-4d833257bbb3 and evolution/geography/pyarrow said
    "compare with expected.json", which their folders did not have: a case whose data no reference states (a
    fuzzed file, data_unknown) gets no expected.json, and then its README names none."""
    for name in ("polars", "hyparquet", "parquet-java", "rugo"):
        folder = folder_of(tmp_path, name, verdict, expected, stated)
        has = {p.name for p in folder.iterdir()}
        assert readme_files(folder) <= has, (name, readme_files(folder) - has)
        assert ("expected.json" in has) <= stated


def test_a_crash_at_the_address_space_limit_says_how_to_read_under_it(tmp_path: Path) -> None:
    """Issue 39 item 7: the run's workers read under an 8 GiB address-space limit, the scripts without one: a
    finding killed at the limit says so, and how to read the file under the same limit."""
    at = "killed by SIGABRT at the 8 GiB address-space limit"
    readme = (folder_of(tmp_path, "polars", Verdict.CRASH, "either", error_class=at) / "README.md").read_text()
    assert "under the 8 GiB address-space limit" in readme and "(ulimit -v 8388608; python repro.py)" in readme
    readme = (folder_of(tmp_path / "r", "rugo", Verdict.CRASH, "either", error_class=at) / "README.md").read_text()
    assert "`parquet-conformance read` reads it under the same limit" in readme
    readme = (folder_of(tmp_path / "s", "polars", Verdict.CRASH, "either", error_class="killed by SIGABRT") /
              "README.md").read_text()
    assert "ulimit" not in readme and "address-space limit" not in readme
    from parquet_conformance.reports.text import failure_text

    crashed = dataclasses.replace(cell("c/d", Verdict.CRASH), outcome="crash", error_class=at)
    assert failure_text(crashed).startswith(f"{at} (an abort: it stopped itself on a failed check, a failed "
                                            "allocation or a panic): the limit the harness sets on each worker's "
                                            "memory, where the kernel refused an allocation")


def test_titles_are_cut_at_a_word() -> None:
    """A fuzz finding's case title names its signature cut at a word with "…" (one was "…memory allocation of H
    bytes failed / sta)"), and so do the regression store's."""
    import re

    from parquet_conformance.app.fuzz import regression_title
    from parquet_conformance.conformance.harness.judge import normalise
    from parquet_conformance.conformance.harness.model import Finding, OutcomeKind
    from parquet_conformance.corpus import regression_store

    signature = "killed by SIGABRT: memory allocation of H bytes failed / stack backtrace:"
    finding = Finding("polars", "polars (polars-parquet, Rust)", "2.1.0", "legacy", "either", Verdict.CRASH,
                      OutcomeKind.CRASH, signature, signature, "flat", {}, 0, 0, 0)  # type: ignore[arg-type]
    assert regression_title(finding) == ("fuzz: polars (polars-parquet, Rust) fail:crash (killed by SIGABRT: memory "
                                         "allocation of H bytes failed…)")
    for entry in regression_store.load():
        said = re.fullmatch(r"fuzz: .* \((.*)\)", entry["title"])
        if said:
            message = re.search(r": fail:[a-z-]+ \((.*)\)$", entry["citations"][0]["quote"])
            assert message is not None
            full = normalise(message.group(1))
            kept = said.group(1).removesuffix("…")
            assert said.group(1) == full or (said.group(1).endswith("…") and full.startswith(kept)
                                             and not full[len(kept)].isalnum()), entry["title"]  # at a word's end
