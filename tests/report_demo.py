"""A results dataset that shows every kind of cell a report must render distinctly, made cheaply: one real run
(`--master none`, a few cases) of real readers (pyarrow, our references) and of fake workers that read with
pyarrow but misbehave on chosen files (tests/hostile/worker.py), then two earlier runs derived from it, so that
a history has three points, newly failing and newly fixed cells, and cells in only one run.

    toy-1.0, toy-2.0   two releases of one implementation (sub-columns), engine "Arrow C++" like pyarrow's
    toy-1.0            a wrong value in row 2 of ext/file-metadata/flat/* (wrong-data, with a data diff)
    toy-2.0            garbage instead of an answer on corrupt/tiny/8-bytes (a harness error)
    moody              carries state between files on base/nested (flaky: it refuses it after another file, reads it
                       right in a fresh worker)
    sparky             refuses ext/column-meta-data/flat/* with a py4j-shaped Java chain (the root cause ~300 frames
                       down, a new object id each time: one cluster)

r3's reports are written again once r1 and r2 are in the dataset (`report --rewrite`), so that they compare r3 with
r2: new, fixed and known failures.

    python -m tests.report_demo OUT      # writes OUT/corpus and OUT/results (runs r1, r2, r3), and the reports of r3
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

from parquet_conformance.conformance.harness.model import Cell, Verdict
from parquet_conformance.conformance.harness.results import RunRecord, Store, read_cells, read_record
from parquet_conformance.corpus.build import generate
from tests.helpers import CLI

WORKER = Path(__file__).parent / "hostile" / "worker.py"
ONLY = ("base/flat,base/nested,base/dictionary,ext/file-metadata/flat/*,ext/column-meta-data/flat/*,corrupt/tiny/*,"
        "corrupt/footer-length/*,skiff/seed/int64-42/*,skiff/corrupt/trailing-byte/*")
ENGINE = "--engine='Arrow C++ (pyarrow, in a fake worker)'"
FAKES = {
    "toy-1.0": f"wrong-value --real --version=1.0 {ENGINE} --bad=ext/file-metadata/flat",
    "toy-2.0": f"garbage --real --version=2.0 {ENGINE} --bad=corrupt/tiny/8-bytes",
    "moody": "fresh-only --real --version=0.1 --bad=base/nested",
    "sparky": "chained --real --version=3.5 --engine='parquet-java (a fake Spark)' --bad=ext/column-meta-data/flat",
}
CHANGED = "ext/column-meta-data/flat/spec-header"  # sparky crashed on it in r2
STARTED = {"r1": "2026-11-01T09:00:00+00:00", "r2": "2026-11-08T09:00:00+00:00"}


def run_command(corpus: Path, out: Path, run_id: str = "r3") -> list[str]:
    args = [*CLI, "run", "--corpus", str(corpus), "--out", str(out), "--run-id", run_id, "--master", "none",
            "--only", ONLY, "--adapter", "pyarrow", "--adapter", "reference", "--adapter", "skiff-reference"]
    for name, options in FAKES.items():
        args += ["--adapter-cmd", f"{name}={sys.executable} {WORKER} {options}"]
    return args


def earlier(cells: list[Cell], run: str) -> list[Cell]:
    """The cells as an earlier run had them: toy 1.0 had no bug yet; pyarrow refused base/flat in r1 and r2 (fixed
    in r3); moody was added in r3 (absent from r2, so its cells are in only one run); sparky failed its cases the
    same way in r2 (known failures) but for one it crashed on (a changed failure)."""
    out = []
    for c in cells:
        if c.adapter == "moody" and run == "r2":
            continue
        if c.adapter == "sparky" and run == "r1":
            continue
        if c.adapter == "sparky" and c.case == CHANGED and c.verdict.is_failure:
            c = dataclasses.replace(c, verdict=Verdict.CRASH, outcome="crash", error_class=None,
                                    error_message="thread 'main' panicked at src/footer.rs:42:9")
        if c.adapter == "toy-1.0" and c.verdict == Verdict.WRONG_DATA:
            c = dataclasses.replace(c, verdict=Verdict.PASS, outcome="read", sample=None)
        if c.adapter == "pyarrow" and (c.case == "base/flat" or (run, c.case) == ("r1", "base/dictionary")):
            c = dataclasses.replace(c, verdict=Verdict.REJECTED_VALID, outcome="rejected", rows=None, data_hash=None,
                                    error_class="OSError", error_message="Couldn't deserialize thrift: at offset 1234")
        out.append(c)
    return out


def make(out: Path) -> Path:
    """OUT with its corpus, the results of r1, r2, r3, and r3's reports. Returns OUT."""
    corpus = out / "corpus"
    if not (corpus / "manifest.json").is_file():
        generate(corpus, only=ONLY)
    proc = subprocess.run(run_command(corpus, out), capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"the demo run failed: {proc.stderr[-3000:]}")
    _, cells = read_cells(out / "results", "r3")
    record = read_record(out / "results", "r3")
    assert record is not None
    store = Store(out)
    for run in ("r1", "r2"):
        info = dataclasses.replace(record.info, id=run, started=STARTED[run])
        store.write(run, earlier(cells, run), RunRecord(info, record.cases, record.corpus_cases))
    proc = subprocess.run([*CLI, "report", "--rewrite", str(out), "--run", "r3"], capture_output=True, text=True,
                          timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"the demo's rewrite failed: {proc.stderr[-3000:]}")
    return out


if __name__ == "__main__":
    print(make(Path(sys.argv[1])))
