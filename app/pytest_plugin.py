"""pytest plugin: the conformance corpus as one test per case, inside an implementer's own CI.

    pytest --parquet-conformance-corpus DIR --parquet-conformance-adapter-cmd './my-reader-worker'

Registered through the `pytest11` entry point; without `--parquet-conformance-corpus` it does
nothing. The reader runs as one persistent worker for the session (docs/adapter-protocol.md),
so a crash or hang of the reader fails one case, not the run. Verdicts are the run's own
(conformance/harness/judge.py, the same Judge), in every role the case names among the reader's: baseline cases
run first, and a `read` also passes when it equals the reader's own reading of the unmodified base.
The corpus is checked against its manifest and digest before anything runs. An expected-failures file is the
gate's (`parquet-conformance check`, conformance/harness/gate.py) and is applied by the gate's own rule per cell:
a listed failure is xfailed, an unexpected failure, a failure other than the pinned verdict, or a listed case
that passes fails the test, as in protobuf's conformance failure lists. See docs/pytest-plugin.md.
"""

from __future__ import annotations

import json
import os
import shlex
from collections import Counter
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest
from _pytest._code.code import TerminalRepr, TracebackStyle

from parquet_conformance.conformance.harness.gate import Entry, GateError, Status, decide, entry_for, load_expected
from parquet_conformance.conformance.harness.judge import Judge
from parquet_conformance.conformance.harness.model import Cell, Outcome, OutcomeRow, Read, outcome_fields
from parquet_conformance.corpus import track
from parquet_conformance.corpus.dist import DistError, open_corpus
from parquet_conformance.corpus.model import LEVELS, ROLE_RE, CaseEntry, Level, matches
from parquet_conformance.kernel.options import seconds


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("parquet-conformance", "Parquet binary protocol extensions conformance "
                                                   "(docs/pytest-plugin.md)")
    group.addoption("--parquet-conformance-corpus", metavar="DIR",
                    help="a corpus directory (with manifest.json, e.g. unpacked by `parquet-conformance corpus "
                         "fetch`): adds one test per case; without it the plugin does nothing")
    group.addoption("--parquet-conformance-adapter-cmd", metavar="COMMAND",
                    help="the reader under test: a worker command speaking the JSON-lines adapter protocol "
                         "(split like a shell would)")
    group.addoption("--parquet-conformance-adapter", metavar="NAME",
                    help="or a built-in adapter of parquet-conformance (pyarrow, duckdb, ...)")
    group.addoption("--parquet-conformance-role", metavar="ROLE",
                    help="judge only as this reader role, legacy or aware:<profile> (default: every role the "
                         "worker announces)")
    group.addoption("--parquet-conformance-expected-failures", metavar="FILE",
                    help="case ids that are known to fail, one per line, '#' comments: they run as "
                         "xfail(strict=True), so a fixed case fails until removed from the file")
    group.addoption("--parquet-conformance-only", metavar="GLOB",
                    help="only the cases whose id matches GLOB (comma-separated globs, e.g. 'base/*,corrupt/*')")
    group.addoption("--parquet-conformance-timeout", type=seconds(), metavar="SECONDS",  # finite, positive: no nan
                    help="per-case timeout; no answer in time is a hang (default 60)")
    group.addoption("--parquet-conformance-level", choices=[str(v) for v in LEVELS], default=str(Level.MUST),
                    help="the weakest level of expectation that fails a test, as `check --level` (default must): "
                         "a read or a refusal against a weaker one is an expected failure (xfail); a crash, hang, "
                         "unhandled error or wrong data fails at every level")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("parquet_conformance_corpus"):
        config.pluginmanager.register(ConformanceRun(config), "parquet-conformance-run")


class CaseFailed(Exception):
    """A verdict other than pass; the message is the whole report."""


class ConformanceRun:
    """The session's corpus, worker and outcomes."""

    def __init__(self, config: pytest.Config) -> None:
        # imported here, not at the top: start-up time (only this path needs it)
        from parquet_conformance.conformance.harness.specs import AdapterSpec, SpecError, representations

        opt = config.getoption
        try:
            self.root, self.manifest, self.digest = open_corpus(Path(opt("parquet_conformance_corpus")).resolve())
        except DistError as e:
            raise pytest.UsageError(f"--parquet-conformance-corpus: {e}") from None
        command, name = opt("parquet_conformance_adapter_cmd"), opt("parquet_conformance_adapter")
        if bool(command) == bool(name):
            raise pytest.UsageError("parquet-conformance: give exactly one of --parquet-conformance-adapter-cmd "
                                    "and --parquet-conformance-adapter")
        timeout = opt("parquet_conformance_timeout")
        if timeout is not None and timeout <= 0:
            raise pytest.UsageError("--parquet-conformance-timeout must be positive")
        try:
            if name:
                spec = AdapterSpec(name, timeout_s=timeout)
            else:
                argv = shlex.split(command) if command.strip() else []
                spec = AdapterSpec(Path(argv[0]).name if argv else "reader", command, timeout_s=timeout)
            self.worker = spec.worker()  # started by the first case, closed at the end of the session
        except (SpecError, ValueError, LookupError) as e:
            raise pytest.UsageError(f"parquet-conformance: {e}") from None
        self.track = track.get(self.worker.adapter.track)
        self.role: str | None = opt("parquet_conformance_role")
        if self.role is not None and not (ROLE_RE.fullmatch(self.role) and track.valid_role(self.track, self.role)):
            raise pytest.UsageError(f"--parquet-conformance-role: {self.role!r} is not a role of the "
                                    f"{self.track.name} track ({', '.join(self.track.roles)})")
        self.expected_file = opt("parquet_conformance_expected_failures")
        self.expected: list[Entry] = []
        if self.expected_file:
            try:  # the same file `parquet-conformance check` reads
                self.expected = load_expected(Path(self.expected_file), {c.id for c in self.manifest.cases})
            except (GateError, OSError) as e:
                raise pytest.UsageError(f"--parquet-conformance-expected-failures: {e}") from None
        self.judging = Judge.of(self.manifest, self.root, representations([spec]))
        self.level = Level(opt("parquet_conformance_level"))
        only = opt("parquet_conformance_only")
        cases = [c for c in self.manifest.cases if matches(c.id, only) and c.track == self.track.name]
        self.known = {c.id for c in self.manifest.cases}  # a partial corpus may lack a base's baseline case
        baselines = {b.baseline_case for b in self.manifest.bases.values()}
        # Baselines first: a case is also judged against the reader's own reading of its base.
        self.cases = sorted(cases, key=lambda c: c.id not in baselines)
        self.rows: dict[str, OutcomeRow] = {}
        self.verdicts: Counter[str] = Counter()

    # -- pytest hooks -----------------------------------------------------------------------

    def pytest_report_header(self) -> str:
        gen = self.manifest.generator
        return (f"parquet-conformance: corpus {self.root} ({gen.get('name')} {gen.get('version')}, digest "
                f"{self.digest[:16]}, {len(self.cases)} of {len(self.manifest.cases)} cases), reader "
                f"{self.worker.adapter.name}")

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector) -> Generator[None, pytest.CollectReport,
                                                                                    pytest.CollectReport]:
        report = yield
        # The corpus joins the session's top-level collectors, so -k, --deselect and -m apply as usual.
        if isinstance(collector, pytest.Session) and report.passed:
            manifest = self.root / "manifest.json"
            rootpath = collector.config.rootpath
            # Node ids are `<manifest, relative to the rootdir>::<case id>`, as for any file, so that --lf
            # and --deselect work; pytest has no id of its own for a file outside the rootdir.
            nodeid = None if manifest.is_relative_to(rootpath) else Path(os.path.relpath(manifest, rootpath)).as_posix()
            report.result.insert(0, CorpusFile.from_parent(collector, path=manifest, nodeid=nodeid))
        return report

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.verdicts:
            return
        info = self.worker.info
        who = f"{info.implementation} {info.version}" if info else self.worker.adapter.name
        counts = ", ".join(f"{v} {k}" for k, v in sorted(self.verdicts.items()))
        terminalreporter.write_sep("-", "parquet-conformance")
        terminalreporter.write_line(f"{who} as {', '.join(self.roles())}: {counts}")

    def pytest_sessionfinish(self) -> None:
        self.worker.close()

    # -- judging: the run's Judge and the gate's rule, one case at a time ----------------------

    def read(self, case: CaseEntry) -> OutcomeRow:
        if case.id not in self.rows:
            timed = self.worker.read(str((self.root / case.file).resolve()), case.id, case.op, keys=case.keys)
            info = self.worker.info
            self.rows[case.id] = OutcomeRow.of(
                case.id, self.worker.adapter.name, info.implementation if info else self.worker.adapter.implementation,
                info.version if info else None, self.roles(), timed.outcome, timed.duration_s)
        return self.rows[case.id]

    def roles(self) -> list[str]:
        if self.role:
            return [self.role]
        info = self.worker.info
        return list(info.roles) if info and info.roles else [self.track.default_role]

    def judge(self, case: CaseEntry) -> list[tuple[Cell, Status]]:
        """The case's cells (one per role judged), each with what the gate makes of it."""
        rows = [self.read(case)]
        baseline = self.manifest.bases[case.base].baseline_case
        if baseline and baseline != case.id and rows[0].outcome == "read" and baseline in self.known:
            rows.append(self.read(self.manifest.case(baseline)))
        out = []
        for cell in (c for c in self.judging.cells(rows) if c.case == case.id):
            self.verdicts[cell.verdict] += 1
            out.append((cell, decide(cell, entry_for(cell, self.expected), self.level)))
        return out

    def explain(self, case: CaseEntry, judged: list[tuple[Cell, Status]]) -> str:
        row = self.rows[case.id]
        outcome: Outcome = row.typed
        worst, status = next(((c, s) for c, s in judged if not s.ok), judged[0])
        lines = [f"parquet-conformance case {case.id}: {worst.verdict} ({status})", f"  title:     {case.title}"]
        for cell, status in judged:
            lines.append(f"  expected:  {cell.expected} (role {cell.role}, {cell.level}): {cell.expected.meaning} -> "
                         f"{cell.verdict}" + (f" [{status}]" if status != Status.PASS else ""))
        got = str(outcome.kind)
        if isinstance(outcome, Read):
            base = self.manifest.bases[case.base]
            got += f", {outcome.rows} rows, data {outcome.data_hash[:16]} (base data {base.data_hash[:16]}"
            own = self.rows.get(base.baseline_case or "")
            if own and own.data_hash and own.data_hash != base.data_hash and case.id != base.baseline_case:
                got += f", the reader's baseline {own.data_hash[:16]}"
            got += ")"
        lines.append(f"  outcome:   {got} in {row.duration_s:.3f}s")
        flat = outcome_fields(outcome)
        if flat["error_class"] or flat["error_message"]:
            message = (flat["error_message"] or "").strip().replace("\n", "\n             ")
            lines.append(f"  error:     {flat['error_class'] or '-'}: {message[:2000]}")
        for cell, status in judged:
            entry = entry_for(cell, self.expected)
            if status == Status.UNEXPECTED_PASS and entry:
                lines.append(f"  listed:    {self.expected_file} line {entry.line}, but it passes: remove it")
            elif status == Status.CHANGED_FAILURE and entry:
                lines.append(f"  listed:    {self.expected_file} line {entry.line} pins {entry.verdict}")
        lines.append(f"  file:      {self.root / case.file}")
        for c in case.citations:
            lines.append(f"  citation:  {c.source}, {c.section}: {json.dumps(c.quote)}")
        if case.notes:
            lines.append(f"  notes:     {case.notes}")
        return "\n".join(lines)


class CorpusFile(pytest.File):
    """The manifest: one item per selected case."""

    def collect(self) -> Iterator[CaseItem]:
        run = _run(self.config)
        for case in run.cases:
            yield CaseItem.from_parent(self, name=case.id, case=case)


def _run(config: pytest.Config) -> ConformanceRun:
    run = config.pluginmanager.get_plugin("parquet-conformance-run")
    assert isinstance(run, ConformanceRun)
    return run


def item_outcome(statuses: set[Status]) -> str:
    """What pytest makes of a case from the gate's statuses of its cells: "fail" exactly where `check` fails or
    cannot judge (exit 1 or 3), "xfail" for a known failure or one below the level enforced (`check` prints it and
    passes), "skip" for an unavailable reader, "flaky" (a skip with the attempts; `check` prints it and passes
    without --fail-on-flaky), "representation" (a skip naming the library's documented form of the data: neither a
    pass nor a failure, as `check` prints it), else "pass". The session reads each case once, so its own cells are
    never flaky; the rule is the gate's all the same (tests/test_one_judge.py)."""
    if any(not s.ok for s in statuses) or Status.UNJUDGED in statuses:
        return "fail"
    if statuses == {Status.SKIPPED}:
        return "skip"
    if Status.FLAKY in statuses:
        return "flaky"
    if Status.REPRESENTATION in statuses and not statuses & {Status.KNOWN, Status.BELOW_LEVEL}:
        return "representation"
    return "xfail" if statuses & {Status.KNOWN, Status.BELOW_LEVEL} else "pass"


class CaseItem(pytest.Item):
    def __init__(self, *, case: CaseEntry, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case

    def runtest(self) -> None:
        run = _run(self.config)
        judged = run.judge(self.case)
        self.user_properties += [("verdict", str(c.verdict)) for c, _ in judged] + [
            ("outcome", str(run.rows[self.case.id].outcome))]
        match item_outcome({s for _, s in judged}):
            case "fail":
                raise CaseFailed(run.explain(self.case, judged))
            case "skip":
                pytest.skip(f"reader unavailable: {run.rows[self.case.id].error_message}")
            case "flaky":
                pytest.skip("flaky: " + "; ".join(c.disagreement or "" for c, s in judged if s == Status.FLAKY))
            case "representation":
                pytest.skip("the data in the form the library documents (" + ", ".join(
                    r for c, s in judged if s == Status.REPRESENTATION for r in c.representations) + ")")
            case "xfail":
                below = [f"{c.verdict} of a {c.level} expectation" for c, s in judged if s == Status.BELOW_LEVEL]
                pytest.xfail(f"below level {run.level}: {', '.join(below)}" if below else
                             f"listed in {run.expected_file}: " + ", ".join(str(c.verdict) for c, _ in judged))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: TracebackStyle | None = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, CaseFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, None, str]:
        return self.path, None, f"parquet-conformance: {self.name}"
