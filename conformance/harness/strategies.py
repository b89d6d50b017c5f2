"""Hypothesis strategies for the harness's records, one per model (as Bowtie's bowtie/hypothesis.py): outcomes,
outcome rows, cells and fuzz findings, for property tests of the judge and the reports (tests/test_fuzz.py).
The Parquet track's mutations have theirs in corpus/parquet/strategies.py."""

from __future__ import annotations

from hypothesis import strategies as st

from parquet_conformance.conformance.harness.model import (
    Cell,
    Crash,
    Error,
    Finding,
    HarnessError,
    Outcome,
    OutcomeKind,
    OutcomeRow,
    OutOfMemory,
    Read,
    Rejected,
    Timeout,
    Unavailable,
    Verdict,
    outcome_fields,
)
from parquet_conformance.corpus.model import Expectation, Kind

names = st.from_regex(r"[a-z][a-z0-9-]{0,11}", fullmatch=True)
hashes = st.sampled_from(["a" * 64, "b" * 64, "c" * 64])
texts = st.text(max_size=80)
expectations = st.sampled_from(list(Expectation))
verdicts = st.sampled_from(list(Verdict))


def errors() -> st.SearchStrategy[Error]:
    return st.builds(Error, cls=st.none() | names, message=texts)


def outcomes() -> st.SearchStrategy[Outcome]:
    return st.one_of(
        st.builds(Read, data_hash=hashes, rows=st.integers(0, 10 ** 6), metadata=st.sampled_from([None, "form-a"])),
        st.builds(Rejected, error=errors()), st.builds(Crash, error=errors()),
        st.builds(Timeout, after_s=st.floats(0.5, 600).map(lambda s: round(s, 1))),
        st.builds(OutOfMemory, error=errors()), st.builds(Unavailable, reason=texts),
        st.builds(HarnessError, error=errors()))


@st.composite
def outcome_rows(draw: st.DrawFn) -> OutcomeRow:
    return OutcomeRow.of(case=draw(names), adapter=draw(names), implementation=draw(names),
                         version=draw(st.none() | names), roles=["legacy"], outcome=draw(outcomes()),
                         duration_s=draw(st.floats(0, 60)), fresh=draw(st.booleans()))


@st.composite
def cells(draw: st.DrawFn) -> Cell:
    outcome = draw(outcomes())
    return Cell(case=draw(names), track="parquet", group=draw(names), kind=draw(st.sampled_from(list(Kind))),
                adapter=draw(names), implementation=draw(names), version=draw(st.none() | names), role="legacy",
                expected=draw(expectations), verdict=draw(verdicts), duration_s=draw(st.floats(0, 60)),
                attempts=draw(st.integers(1, 3)), previous_case=None, disagreement=None,
                **{k: v for k, v in outcome_fields(outcome).items() if k != "sample"})


def findings() -> st.SearchStrategy[Finding]:
    return st.builds(Finding, adapter=names, implementation=names, version=st.none() | names, role=st.just("legacy"),
                     expected=expectations, verdict=verdicts.filter(lambda v: v.is_failure),
                     outcome=st.sampled_from(list(OutcomeKind)), signature=texts, message=texts, base=names,
                     chain=st.just({"base": "flat", "steps": []}), batch=st.integers(0, 100),
                     batch_seed=st.integers(0, 2 ** 63 - 1), example=st.integers(0, 24),
                     window_offset=st.none(), window_hex=st.none())
