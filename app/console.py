"""What every command shares: progress on stderr, the adapters and tracks an invocation names, Spark `--conf`
pairs, and the errors that are the user's input (one line, exit 2)."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from parquet_conformance.conformance import adapters
from parquet_conformance.conformance.harness.releases import matrix_specs
from parquet_conformance.conformance.harness.specs import AdapterSpec, SpecError
from parquet_conformance.corpus import track as tracks
from parquet_conformance.corpus.dist import DistError
from parquet_conformance.corpus.track import Track
from parquet_conformance.kernel import escape
from parquet_conformance.kernel.documents import DocumentError
from parquet_conformance.kernel.errors import UsageError
from parquet_conformance.kernel.registry import RegistryError


def user_errors() -> tuple[type[Exception], ...]:
    """Errors that are the user's input, reported in one line (exit 2)."""
    # imported here, not at the top: start-up time (only this path needs it)
    from parquet_conformance.conformance.harness.gate import GateError
    from parquet_conformance.conformance.harness.results import ResultsError

    return UsageError, SpecError, GateError, ResultsError, DistError, RegistryError, DocumentError


_LAST = [0.0]  # when the last progress line was printed (time.monotonic)
HEARTBEAT_S = 4.0  # a phase with nothing to say for this long says what it is doing


def progress_line(text: str) -> None:
    """One updating line on a terminal; a line each otherwise (CI logs). One line: a newline in a label (an imported
    file's name) is shown as an escape."""
    _LAST[0] = time.monotonic()
    text = escape.terminal(text)
    if sys.stderr.isatty():
        escape.control("\r")  # ours; the text after it passes through the terminal's escaper like any other
        print(f"{text[:160]:<160}", end="", file=sys.stderr, flush=True)
    else:  # one write: lines of threads (preparations beside the corpus's generation) never run into each other
        print(text + "\n", end="", file=sys.stderr, flush=True)


class Heartbeat:
    """A progress line at least every HEARTBEAT_S seconds while it runs: the current phase's `line()` (a phase
    sets its own: `now`), whenever no other progress line came in that time."""

    def __init__(self, say: Callable[[str], None] | None, every: float = HEARTBEAT_S) -> None:
        self.say, self.every = say, every
        self.line: Callable[[], str] = lambda: ""
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="heartbeat", daemon=True)

    def now(self, what: str | Callable[[], str]) -> None:
        """The phase under way: a fixed text (its seconds are added) or a function that says where it is."""
        if callable(what):
            self.line = what
        else:
            t0 = time.monotonic()
            self.line = lambda: f"{what}, {time.monotonic() - t0:.0f}s"

    def due(self, now: float) -> str | None:
        """The line to print at `now` (time.monotonic), if the run was silent for `every` seconds: silence counts
        from the last progress line or from the heartbeat's start, whichever came later, so that a command refused
        within its first seconds prints its one error line and nothing else."""
        if now - max(_LAST[0], self._started) < self.every:
            return None
        return self.line() or None

    def _beat(self) -> None:
        while not self._stop.wait(0.5):
            if self.say and (text := self.due(time.monotonic())):
                self.say(text)

    def __enter__(self) -> Heartbeat:
        if self.say:
            self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()


def end_progress() -> None:
    if sys.stderr.isatty():
        print(file=sys.stderr)


def every(n: int) -> Callable[[int, int, str], None]:
    """A progress callback (i, total, label) that prints on a terminal always, in a log every n-th step."""
    def tick(i: int, total: int, label: str) -> None:
        if sys.stderr.isatty() or (i + 1) % n == 0 or i + 1 == total:
            progress_line(f"[{i + 1}/{total}] {label}")
    return tick


# -- what an invocation names ----------------------------------------------------------------------


def selected_tracks(args: argparse.Namespace) -> list[Track]:
    """`--track NAME` (repeatable): those tracks; none given: every registered one."""
    return [tracks.get(name) for name in args.track] if getattr(args, "track", None) else tracks.all_tracks()


def one_track(args: argparse.Namespace) -> Track:
    """The one track of a command that reads one format: `--track NAME`, or the first registered track."""
    named = getattr(args, "track", None) or []
    if len(named) > 1:
        raise UsageError(f"{args.command} reads one track; --track was given {len(named)} times")
    return tracks.get(named[0]) if named else tracks.all_tracks()[0]


def specs(args: argparse.Namespace, default: list[str] | None = None, default_run: bool = False) -> list[AdapterSpec]:
    """The adapters an invocation names (`--adapter`, `--adapter-cmd`, a version matrix), each built once so that an
    unknown name fails before anything runs. When it names none: `default`, or every registered adapter of the
    selected tracks (with `default_run`, those a plain `run` runs)."""
    only_tracks = {t.name for t in selected_tracks(args)} if getattr(args, "track", None) else set()
    matrix = matrix_specs(Path(args.versions)) if getattr(args, "versions", None) else []
    if default is None:
        default = [n for n in adapters.names(default_run=default_run)
                   if not only_tracks or adapters.get(n).track in only_tracks]
    external = []
    if args.adapter_cmd:
        external_track = one_track(args).name
        external = [AdapterSpec.parse_external(t, external_track) for t in args.adapter_cmd]
    chosen = [AdapterSpec.parse(n) for n in args.adapter or ([] if external or matrix else default)]
    chosen += external + matrix
    for spec in chosen:
        spec.build()  # an unknown name fails here, before anything runs
    if dupes := sorted({s.name for s in chosen if [x.name for x in chosen].count(s.name) > 1}):
        raise UsageError(f"adapter {dupes[0]!r} is given twice")
    if only_tracks and (other := [s.name for s in chosen if s.build().track not in only_tracks]):
        raise UsageError(f"adapter {other[0]!r} is not of the track(s) {', '.join(sorted(only_tracks))}")
    return chosen


def conf(pairs: list[str] | None) -> dict[str, str]:
    """`--conf KEY=VALUE` pairs (Spark configuration)."""
    out = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--conf wants KEY=VALUE, got {pair!r}")
        out[key] = value
    return out
