"""pytest plugin: the conformance corpus as one test per case, inside an implementer's own CI.

    pytest --parquet-conformance-corpus DIR --parquet-conformance-adapter-cmd './my-reader-worker'

Registered through the `pytest11` entry point; without `--parquet-conformance-corpus` it does
nothing. The reader runs as one persistent worker for the session (docs/adapter-protocol.md),
so a crash or hang of the reader fails one case, not the run. Verdicts are the harness's own
(conformance.verdict): `base/*` cases run first, and a `read` also passes when it equals the
reader's own reading of the unmodified base. Cases listed in an expected-failures file are
`xfail(strict=True)`: they must keep failing, and an unexpected pass fails the run, as in
protobuf's conformance failure lists. See docs/pytest-plugin.md.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.gate import load_expected
from conformance.runner import Outcome, Worker
from conformance.verdict import judge_cell

ROLE_RE = re.compile(r"legacy|aware:[A-Za-z0-9][A-Za-z0-9._-]*")


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
                    help="judge as this reader role, legacy or aware:<profile> (default: the first role the "
                         "worker announces)")
    group.addoption("--parquet-conformance-expected-failures", metavar="FILE",
                    help="case ids that are known to fail, one per line, '#' comments: they run as "
                         "xfail(strict=True), so a fixed case fails until removed from the file")
    group.addoption("--parquet-conformance-only", metavar="GLOB",
                    help="only the cases whose id matches GLOB (comma-separated globs, e.g. 'base/*,corrupt/*')")
    group.addoption("--parquet-conformance-timeout", type=float, metavar="SECONDS",
                    help="per-case timeout; no answer in time is a hang (default 60)")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("parquet_conformance_corpus"):
        config.pluginmanager.register(ConformanceRun(config), "parquet-conformance-run")


class CaseFailed(Exception):
    """A verdict other than pass; the message is the whole report."""


class ConformanceRun:
    """The session's corpus, worker and outcomes."""

    def __init__(self, config: pytest.Config) -> None:
        from conformance import adapters
        from corpus import dist
        from corpus.catalog import matches

        opt = config.getoption
        try:
            self.root = dist.find_root(Path(opt("parquet_conformance_corpus")).resolve())
            self.manifest = dist.load_manifest((self.root / dist.MANIFEST).read_bytes(),
                                               str(self.root / dist.MANIFEST))
        except (dist.DistError, OSError) as e:
            raise pytest.UsageError(f"--parquet-conformance-corpus: {e}") from None
        command, name = opt("parquet_conformance_adapter_cmd"), opt("parquet_conformance_adapter")
        if bool(command) == bool(name):
            raise pytest.UsageError("parquet-conformance: give exactly one of --parquet-conformance-adapter-cmd "
                                    "and --parquet-conformance-adapter")
        if name:
            if name not in adapters.BUILTIN:
                raise pytest.UsageError(f"--parquet-conformance-adapter: unknown adapter {name!r}; known: "
                                        f"{', '.join(adapters.BUILTIN)}")
            adapter = copy.copy(adapters.get(name))  # a copy: the timeout below must not leak into the module
            argv = None
        else:
            try:
                argv = shlex.split(command)
            except ValueError as e:
                raise pytest.UsageError(f"--parquet-conformance-adapter-cmd: {e}") from None
            if not argv:
                raise pytest.UsageError("--parquet-conformance-adapter-cmd is empty")
            adapter = adapters.CommandAdapter()
            adapter.name = adapter.implementation = Path(argv[0]).name
        if (timeout := opt("parquet_conformance_timeout")) is not None:
            if timeout <= 0:
                raise pytest.UsageError("--parquet-conformance-timeout must be positive")
            adapter.timeout_s = timeout
        self.role: str | None = opt("parquet_conformance_role")
        if self.role is not None and not ROLE_RE.fullmatch(self.role):
            raise pytest.UsageError(f"--parquet-conformance-role: {self.role!r} is not legacy or aware:<profile>")
        self.xfail_file = opt("parquet_conformance_expected_failures")
        self.xfail: set[str] = set()
        if self.xfail_file:
            try:  # the same file `parquet-conformance check` reads (a pinned verdict is allowed, not used)
                listed = list(load_expected(Path(self.xfail_file)))
            except ValueError as e:
                raise pytest.UsageError(f"--parquet-conformance-expected-failures: {e}") from None
            except OSError as e:
                raise pytest.UsageError(f"--parquet-conformance-expected-failures: {self.xfail_file}: "
                                        f"{e.strerror or e}") from None
            known = {c["id"] for c in self.manifest["cases"]}
            if unknown := [c for c in listed if c not in known]:
                config.issue_config_time_warning(pytest.PytestConfigWarning(
                    f"{self.xfail_file} lists {len(unknown)} case(s) not in the corpus, e.g. {unknown[0]!r}"), 2)
            self.xfail = set(listed)
        only = opt("parquet_conformance_only")
        cases = [c for c in self.manifest["cases"] if matches(c["id"], only)]
        # Baselines first (conformance.cells.judge compares with the reader's own reading of the base).
        self.cases = sorted(cases, key=lambda c: not c["id"].startswith("base/"))
        self.by_id = {c["id"]: c for c in self.manifest["cases"]}
        self.outcomes: dict[str, Outcome] = {}
        self.verdicts: Counter[str] = Counter()
        self.worker = Worker(adapter, argv)  # started by the first case, closed at the end of the session

    # -- pytest hooks -----------------------------------------------------------------------

    def pytest_report_header(self) -> str:
        gen = self.manifest.get("generator", {})
        return (f"parquet-conformance: corpus {self.root} ({gen.get('name')} {gen.get('version')}, "
                f"{len(self.cases)} of {len(self.manifest['cases'])} cases), reader {self.worker.adapter.name}")

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector) -> Iterator[None]:
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
        info = self.worker.info or {}
        who = f"{info.get('implementation') or self.worker.adapter.name} {info.get('version') or ''}".strip()
        counts = ", ".join(f"{v} {k}" for k, v in sorted(self.verdicts.items()))
        terminalreporter.write_sep("-", "parquet-conformance")
        terminalreporter.write_line(f"{who} as {self.role or 'legacy'}: {counts}")

    def pytest_sessionfinish(self) -> None:
        self.worker.close()

    # -- judging -----------------------------------------------------------------------------

    def read(self, case_id: str, path: Path) -> Outcome:
        if case_id not in self.outcomes:
            self.outcomes[case_id] = self.worker.read(str(path.resolve()), case_id)
        return self.outcomes[case_id]

    def baseline(self, base: str) -> str | None:
        """The reader's data hash for the unmodified base: its `base/<name>` case, or `bases/<name>.parquet`."""
        case = self.by_id.get(f"base/{base}")
        path = self.root / (case["file"] if case else self.manifest["bases"][base]["file"])
        outcome = self.read(f"base/{base}", path)
        return outcome.data_hash if outcome.outcome == "read" else None

    def judge(self, case: dict) -> tuple[str, str, Outcome]:
        """(expectation, verdict, outcome) of one case, as conformance.cells.judge would give it."""
        outcome = self.read(case["id"], self.root / case["file"])
        if outcome.outcome == "unavailable":
            return "", "skip", outcome
        if self.role is None:
            self.role = ((self.worker.info or {}).get("roles") or ["legacy"])[0]
        baseline = self.baseline(case["base"]) if outcome.outcome == "read" else None
        expected, verdict = judge_cell(case, self.manifest, self.role, outcome.outcome, outcome.data_hash,
                                       outcome.metadata, baseline)
        self.verdicts[verdict] += 1
        return expected, verdict, outcome

    def explain(self, case: dict, expected: str, verdict: str, outcome: Outcome) -> str:
        meaning = self.manifest.get("expectations", {}).get(expected, "")
        lines = [f"parquet-conformance case {case['id']}: {verdict}",
                 f"  title:     {case.get('title', '')}",
                 f"  expected:  {expected} (role {self.role}): {meaning}"]
        got = outcome.outcome
        if got == "read":
            base_hash = self.manifest["bases"][case["base"]]["data_hash"]
            got += f", {outcome.rows} rows, data {outcome.data_hash[:16]} (base data {base_hash[:16]}"
            baseline = self.outcomes.get(f"base/{case['base']}")
            own = baseline.data_hash if baseline and case["id"] != f"base/{case['base']}" else None
            if own and own != base_hash:
                got += f", the reader's baseline {own[:16]}"
            got += ")"
        lines.append(f"  outcome:   {got} in {outcome.duration_s:.3f}s")
        if outcome.error_class or outcome.error_message:
            message = (outcome.error_message or "").strip().replace("\n", "\n             ")
            lines.append(f"  error:     {outcome.error_class or '-'}: {message[:2000]}")
        lines.append(f"  file:      {self.root / case['file']}")
        for c in case.get("citations") or []:
            lines.append(f"  citation:  {c.get('source')}, {c.get('section')}: {json.dumps(c.get('quote'))}")
        if case.get("notes"):
            lines.append(f"  notes:     {case['notes']}")
        return "\n".join(lines)


class CorpusFile(pytest.File):
    """The manifest: one item per selected case."""

    def collect(self) -> Iterator[CaseItem]:
        run: ConformanceRun = self.config.pluginmanager.get_plugin("parquet-conformance-run")
        for case in run.cases:
            item = CaseItem.from_parent(self, name=case["id"], case=case)
            if case["id"] in run.xfail:
                item.add_marker(pytest.mark.xfail(strict=True, reason=f"listed in {run.xfail_file}"))
            yield item


class CaseItem(pytest.Item):
    def __init__(self, *, case: dict, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.case = case

    def runtest(self) -> None:
        run: ConformanceRun = self.config.pluginmanager.get_plugin("parquet-conformance-run")
        expected, verdict, outcome = run.judge(self.case)
        self.user_properties += [("verdict", verdict), ("outcome", outcome.outcome)]
        if verdict == "skip":
            pytest.skip(f"reader unavailable: {outcome.error_message}")
        if verdict != "pass":
            raise CaseFailed(run.explain(self.case, expected, verdict, outcome))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: str | None = None) -> str:
        if isinstance(excinfo.value, CaseFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, None, str]:
        return self.path, None, f"parquet-conformance: {self.name}"
