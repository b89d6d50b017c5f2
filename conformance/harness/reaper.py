"""Runs one worker so that nothing it starts can outlive the harness or hold its pipes.

    python -S -E reaper.py MEMORY_LIMIT_BYTES -- COMMAND ...

Started by conformance/harness/workers.py in place of the worker command (standalone: it imports nothing of
ours, so it starts in milliseconds). It
- asks the kernel for SIGTERM when its parent (the harness) dies, for any reason, SIGKILL included
  (prctl PR_SET_PDEATHSIG); on SIGTERM it kills the worker's whole process group and exits;
- starts the worker in a session of its own, under the address-space limit, with SIGKILL as the
  worker's own parent-death signal;
- when the worker exits, kills whatever is left of its group (a child holding stdout would
  otherwise keep the pipe open) and exits the way the worker did: the same exit code, or the same
  signal re-raised (core dumps off), so the harness sees `killed by SIGSEGV`.
"""

import ctypes
import os
import resource
import signal
import sys

PR_SET_PDEATHSIG = 1


def _parent_death_signal(sig: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        print("usage: reaper.py MEMORY_LIMIT_BYTES -- COMMAND ...", file=sys.stderr)
        return 2
    limit, command = int(argv[1]), argv[3:]
    parent = os.getppid()
    _parent_death_signal(signal.SIGTERM)
    if os.getppid() != parent:  # the harness died before the prctl took effect
        return 1
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            _parent_death_signal(signal.SIGKILL)
            if limit:
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            os.execvp(command[0], command)
        except OSError as e:
            print(f"cannot start {command[0]}: {e.strerror or e}", file=sys.stderr, flush=True)
        os._exit(127)

    def stop(signum: int, _frame: object) -> None:
        _kill_group(pid)
        os._exit(128 + signum)

    for forwarded in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(forwarded, stop)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    _kill_group(pid)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    return os.waitstatus_to_exitcode(status) if not os.WIFSIGNALED(status) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
