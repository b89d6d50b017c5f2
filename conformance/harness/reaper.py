"""Runs one worker so that nothing it starts can outlive the harness or hold its pipes.

    python -S -E reaper.py MEMORY_LIMIT_BYTES [--cgroup FOLDER] -- COMMAND ...

Started by conformance/harness/transport.py in place of the worker command (standalone: it imports nothing of
ours, so it starts in milliseconds). It
- asks the kernel for SIGTERM when its parent (the harness) dies, for any reason, SIGKILL included
  (prctl PR_SET_PDEATHSIG); on SIGTERM it kills every process below it and exits;
- becomes a child subreaper (prctl PR_SET_CHILD_SUBREAPER, Linux 3.4+): a process the worker starts that
  leaves its session (setsid) or double-forks is reparented here when its parent dies, not to init, so that
  every descendant stays findable (by its parent in /proc) and is killed with the worker;
- starts the worker in a session of its own, under the address-space limit, with SIGKILL as the
  worker's own parent-death signal;
- reaps orphans as they die, and when the worker exits, kills whatever is left below it (a child holding stdout
  would otherwise keep the pipe open) and exits the way the worker did: the same exit code, or the same
  signal re-raised (core dumps off), so the harness sees `killed by SIGSEGV`.
- joins the cgroup the harness made for the worker, when it could make one (`--cgroup`).
None of this is what keeps the worker contained when this process is killed or stopped (by the worker itself): the
harness then kills what is left, by its cgroup, or else by the token in every descendant's environment
(conformance/harness/transport.py Box), and removes the worker's private temporary folder.
"""

import ctypes
import os
import resource
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
KILL_ROUNDS = 200  # rounds of find-freeze-kill; each finds what forked during the last


def _prctl(option: int, value: int) -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    return bool(libc.prctl(option, value, 0, 0, 0) == 0)


def _parent_death_signal(sig: int) -> None:
    _prctl(PR_SET_PDEATHSIG, sig)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _descendants(root: int, seen: set[int]) -> list[int]:
    """The live (not zombie) processes below `root`, by the parent each names in /proc/PID/stat. A process whose
    parent was seen below `root` and is gone now is below it too: it may have been read before the kernel moved it
    to `root` (a pid seen and present again is another process: only absent ones count)."""
    children: dict[int, list[int]] = {}
    zombies = set()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        if fields[0] == b"Z":
            zombies.add(int(entry))
    present = {p for kids in children.values() for p in kids}
    found, stack = [], [root, *(p for p in seen if p not in present)]
    while stack:
        for child in children.get(stack.pop(), ()):
            found.append(child)
            stack.append(child)
    return [p for p in found if p not in zombies]


def _reap() -> None:
    """Collect the exit of every child that has died (orphans come here), without waiting."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _kill_all(worker: int) -> None:
    """Kill the worker's group, then everything below the reaper until nothing is left: each round freezes what it
    finds (a stopped process forks no more), then kills it; what forked in between is found by the next round. Only
    two empty rounds in a row end it: a scan can read a child before its dying parent hands it to the reaper."""
    _kill_group(worker)
    me = os.getpid()
    seen = {worker}
    empty = 0
    for _ in range(KILL_ROUNDS):
        pids = _descendants(me, seen)
        if not pids:
            empty += 1
            if empty == 2:
                break
            _reap()
            time.sleep(0.005)
            continue
        empty = 0
        seen.update(pids)
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            for p in pids:
                try:
                    os.kill(p, sig)
                except (ProcessLookupError, PermissionError):
                    pass
        _reap()
    _reap()


def _join_cgroup(folder: str) -> None:
    """Into the cgroup the harness made for this worker, before the worker starts: everything below it is then in it
    too, and the harness kills it all at once (cgroup.kill) even if this process was killed or stopped meanwhile."""
    try:
        with open(os.path.join(folder, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
    except OSError:
        pass  # the harness's watchdog (its token in every descendant's environment) still finds them


def main(argv: list[str]) -> int:
    args = argv[1:]
    if len(args) >= 3 and args[1] == "--cgroup":
        _join_cgroup(args[2])
        del args[1:3]
    if len(args) < 3 or args[1] != "--":
        print("usage: reaper.py MEMORY_LIMIT_BYTES [--cgroup FOLDER] -- COMMAND ...", file=sys.stderr)
        return 2
    limit, command = int(args[0]), args[2:]
    parent = os.getppid()
    _parent_death_signal(signal.SIGTERM)
    if os.getppid() != parent:  # the harness died before the prctl took effect
        return 1
    _prctl(PR_SET_CHILD_SUBREAPER, 1)  # without it (not Linux), a process that left the group may escape
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
        _kill_all(pid)
        os._exit(128 + signum)

    for forwarded in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(forwarded, stop)
    while True:  # any child: orphans reparented here are reaped as they die, until the worker itself exits
        try:
            got, status = os.waitpid(-1, 0)
        except InterruptedError:
            continue
        except ChildProcessError:  # cannot happen while the worker lives; never wait forever
            status = 0
            break
        if got == pid:
            break
    _kill_all(pid)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # neither can be handled, so neither needs resetting
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    return os.waitstatus_to_exitcode(status) if not os.WIFSIGNALED(status) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
