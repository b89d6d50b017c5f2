"""Released versions in environments of their own.

`--adapter NAME==VERSION` (PyPI) or `NAME@VERSION` (npm) runs that release; an adapter may also be pinned
to a release that cannot share the main environment (pyvelox 0.2.0 needs pyarrow 19, daft pyarrow<26).
An environment is created on first use, by uv when it is installed (else venv + pip) or by npm into a
private prefix, and cached under ~/.cache/parquet-conformance/envs/<package>-<version>/ behind
`cache_lock` (Spark starts one worker per executor at once). It is reused while its requirements stay
the same; `parquet-conformance envs list|prune` shows and frees them.

A Python environment does not install parquet-conformance: its worker imports the running harness's
own folders through a shim (`harness_path`), so one environment serves every checkout and never runs
stale harness code.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Literal

from parquet_conformance.conformance.adapters import Adapter, AdapterUnavailable, PythonAdapter
from parquet_conformance.kernel.cache import cache_dir, cache_lock

# Nothing a requirement, a marker or a shell could read as more than a version.
VERSION_RE = re.compile(r"[0-9][0-9A-Za-z.+_-]{0,63}")
MARKER = "env.json"
INSTALL_TIMEOUT_S = 1200
HARNESS_FOLDERS = ("kernel", "generators", "corpus", "conformance")  # what a worker imports (never the reports)
# Run the worker from the shim, isolated (-I): no current directory, no user site, no PYTHON* variables.
BOOT = ("import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); "
        "runpy.run_module('parquet_conformance.conformance.harness.worker', run_name='__main__')")

Index = Literal["pypi", "npm"]
Progress = Callable[[str], None]


def say(line: str) -> None:
    """A progress line of a step that prepares an adapter (an environment, a compiled worker)."""
    print(f"parquet-conformance: {line}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Env:
    """One release's environment: `package` at `version` from `index`, installed with `requirements`, in a venv
    made from `interpreter` (None: the harness's own Python; another for a library that needs a newer one)."""

    index: Index
    package: str  # the distribution: "pyarrow", "@dsnp/parquetjs"
    version: str
    requirements: tuple[str, ...]
    interpreter: str | None = None

    def __post_init__(self) -> None:
        check_version(self.version)

    @property
    def name(self) -> str:
        return f"{self.package.lstrip('@').replace('/', '-')}-{self.version}"

    @property
    def path(self) -> Path:
        return root() / self.name

    @property
    def python(self) -> Path:
        return self.path / "venv" / "bin" / "python"


def environment(adapter: Adapter) -> Env:
    """A release's environment (made by `ensure` on first use): its package at the adapter's release, with the pins
    the adapter's `requirements` add, in a venv of the Python it needs."""
    if adapter.release is None:
        raise ValueError(f"adapter {adapter.name!r} runs no release: it has no environment of its own")
    interpreter = find_python(adapter.python) if adapter.python and adapter.index == "pypi" else None
    return Env(adapter.index, adapter.package, adapter.release, tuple(adapter.requirements(adapter.release)),
               interpreter)


def worker_command(adapter: Adapter) -> list[str]:
    """The command line of an adapter's worker: a Python adapter's release runs in its environment (made here, on
    first use), anything else as the adapter says."""
    if isinstance(adapter, PythonAdapter) and adapter.release is not None and adapter.index == "pypi":
        return python_worker(environment(adapter), adapter.name)
    return adapter.command()


def check_version(version: str) -> str:
    if not VERSION_RE.fullmatch(version):
        raise ValueError(f"version {version!r}: use digits, letters, '.', '+', '_', '-', starting with a digit")
    return version


def root() -> Path:
    return cache_dir("envs")


def ensure(env: Env, progress: Progress = say) -> Path:
    """The environment, created now if absent or made with other requirements; AdapterUnavailable with a
    one-line reason when the release cannot be installed."""
    path = cache_dir("envs", env.name)
    try:
        with cache_lock(path):
            marker = path / MARKER
            made = json.loads(marker.read_text(encoding="utf-8")) if marker.is_file() else {}
            held = (made.get("index"), made.get("package"), made.get("version"))
            if made and held != (env.index, env.package, env.version):  # two releases named alike: never one for both
                raise AdapterUnavailable(f"the environment {path} holds {held[1]} {held[2]} from {held[0]}, not "
                                         f"{env.package} {env.version} from {env.index} (their names agree); remove "
                                         "that folder to make this one")
            if made.get("requirements") == list(env.requirements) and made.get("interpreter") == env.interpreter:
                return path
            progress(f"creating environment {env.name} ({' '.join(env.requirements)}) in {path}")
            t0 = time.monotonic()
            _clear(path)
            try:
                (_create_python if env.index == "pypi" else _create_npm)(env, path, progress)
            except AdapterUnavailable:
                progress(f"environment {env.name} could not be created")
                _clear(path)
                raise
            seconds = round(time.monotonic() - t0, 1)
            marker.write_text(json.dumps({"index": env.index, "package": env.package, "version": env.version,
                                          "requirements": list(env.requirements),
                                          **({"interpreter": env.interpreter} if env.interpreter else {}),
                                          "created": time.time(),
                                          "seconds": seconds}) + "\n", encoding="utf-8")
            progress(f"environment {env.name} ready in {seconds}s")
            return path
    finally:
        if not (path / MARKER).exists():  # nothing to keep of a release that cannot be installed
            shutil.rmtree(path, ignore_errors=True)


def _clear(path: Path) -> None:
    for child in path.iterdir():
        if child.name != ".lock":
            _remove(child)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _run(argv: list[str], what: str, cwd: Path | None = None) -> None:
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, cwd=cwd,
                              stdin=subprocess.DEVNULL, encoding="utf-8", errors="replace")  # whatever the locale
    except (OSError, subprocess.TimeoutExpired) as e:
        raise AdapterUnavailable(f"{what}: {e}") from None
    if proc.returncode != 0:
        raise AdapterUnavailable(f"{what} failed: {one_line(proc.stderr or proc.stdout)}")


def one_line(text: str, limit: int = 300) -> str:
    """An installer's error output as one line: its meaningful lines, joined, the pip/uv decorations gone."""
    lines = [re.sub(r"^[\s×╰─▶│|]+", "", line).strip() for line in text.splitlines()]
    lines = [line for line in lines if line.strip("^ ") and "is ignored" not in line and not line.startswith("hint:")]
    joined = " ".join(lines)
    return joined if len(joined) <= limit else joined[:limit - 1] + "…"


def uv_binary() -> str | None:
    """uv from the `versions` extra, or on PATH."""
    try:
        from uv import find_uv_bin

        return str(find_uv_bin())
    except (ImportError, FileNotFoundError):
        return shutil.which("uv")


def _create_python(env: Env, path: Path, progress: Progress) -> None:
    venv, python = path / "venv", str(env.python)
    base = env.interpreter or str(getattr(sys, "_base_executable", sys.executable))  # what this venv is made from
    uv = uv_binary()
    if uv:
        progress(f"  uv venv {venv}")
        _run([uv, "venv", "--quiet", "--python", base, str(venv)], "uv venv")
        progress(f"  uv pip install {' '.join(env.requirements)}")
        _run([uv, "pip", "install", "--quiet", "--python", python, *env.requirements],
             f"installing {' '.join(env.requirements)}")
    else:
        progress(f"  python -m venv {venv} (uv is not installed: pip install 'parquet-conformance[versions]')")
        _run([base, "-m", "venv", str(venv)], "python -m venv")
        progress(f"  pip install {' '.join(env.requirements)}")
        _run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *env.requirements],
             f"installing {' '.join(env.requirements)}")


def find_python(minimum: tuple[int, int]) -> str | None:
    """A CPython of at least `minimum` on this machine, for a library that needs a newer one than the harness's:
    `uv python find`, then python3.N on PATH, then pyenv's versions (newest first). None when the harness's own is
    recent enough; AdapterUnavailable, in one line, when none is found."""
    if sys.version_info >= minimum:
        return None  # the harness's own will do
    wanted = f">={minimum[0]}.{minimum[1]}"
    found: list[str] = []
    if uv := uv_binary():
        try:
            proc = subprocess.run([uv, "python", "find", "--no-python-downloads", wanted], capture_output=True,
                                  text=True, timeout=60, stdin=subprocess.DEVNULL)
            found += proc.stdout.split()[:1] if proc.returncode == 0 else []
        except (OSError, subprocess.TimeoutExpired):
            pass
    found += [p for minor in range(minimum[1] + 10, minimum[1] - 1, -1)
              if (p := shutil.which(f"python{minimum[0]}.{minor}")) is not None]
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    if pyenv.is_dir():
        found += [str(p / "bin" / "python3") for p in sorted(pyenv.iterdir(), key=lambda p: version_key(p.name),
                                                             reverse=True)
                  if re.fullmatch(r"\d+\.\d+\.\d+", p.name) and (p / "bin" / "python3").is_file()]
    for candidate in found:
        try:
            proc = subprocess.run([candidate, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True,
                                  text=True, timeout=30, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if proc.returncode == 0 and tuple(int(x) for x in proc.stdout.split()) >= minimum:
            return candidate
    raise AdapterUnavailable(f"needs Python >= {minimum[0]}.{minimum[1]} (none found: uv python find, PATH, pyenv)")


def _create_npm(env: Env, path: Path, progress: Progress) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise AdapterUnavailable("program 'npm' is not on PATH")
    (path / "package.json").write_text('{"private": true}\n', encoding="utf-8")
    progress(f"  npm install {' '.join(env.requirements)}")
    _run([npm, "install", "--no-audit", "--no-fund", "--silent", "--prefix", str(path), *env.requirements],
         f"npm install {' '.join(env.requirements)}", cwd=path)


def python_worker(env: Env, adapter: str, progress: Progress = say) -> list[str]:
    """The command line of a Python adapter's worker inside the release's environment."""
    ensure(env, progress)
    return [str(env.python), "-I", "-c", BOOT, str(harness_path()), adapter]


def harness_path() -> Path:
    """A folder where `parquet_conformance` holds links to the running harness's folders, beside a
    dist-info with its entry points (the adapter registry): one per harness location and registry."""
    folders = {}
    for name in HARNESS_FOLDERS:
        spec = importlib.util.find_spec(f"parquet_conformance.{name}")
        assert spec is not None and spec.submodule_search_locations, name
        folders[name] = str(Path(next(iter(spec.submodule_search_locations))).resolve())
    dist = metadata.distribution("parquet-conformance")
    entry_points = dist.read_text("entry_points.txt") or ""
    key = hashlib.sha256(json.dumps([folders, entry_points]).encode()).hexdigest()[:16]
    path = cache_dir("harness", key)
    with cache_lock(path):
        info = path / f"parquet_conformance-{dist.version}.dist-info"
        if not (info / "entry_points.txt").is_file():
            package = path / "parquet_conformance"
            package.mkdir(exist_ok=True)
            for name, folder in folders.items():
                _remove(package / name)
                (package / name).symlink_to(folder, target_is_directory=True)
            info.mkdir(exist_ok=True)
            (info / "METADATA").write_text(
                f"Metadata-Version: 2.1\nName: parquet-conformance\nVersion: {dist.version}\n", encoding="utf-8")
            (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")
    return path


# -- release lists ----------------------------------------------------------------------

def version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """Orders release numbers (1.9 < 1.10; 2024.2.0 < 2024.11.0); letters sort before digits."""
    return tuple((1, int(p)) if p.isdigit() else (0, p) for p in re.findall(r"\d+|[A-Za-z]+", version))


def releases(index: Index, package: str) -> list[str]:
    """Every final release the index offers for this platform, oldest first; AdapterUnavailable if it cannot
    be asked."""
    if index == "pypi":
        argv = [sys.executable, "-m", "pip", "index", "versions", "--disable-pip-version-check", package]
    else:
        npm = shutil.which("npm")
        if npm is None:
            raise AdapterUnavailable("program 'npm' is not on PATH")
        argv = [npm, "view", package, "versions", "--json"]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
                              encoding="utf-8", errors="replace")
    except (OSError, subprocess.TimeoutExpired) as e:
        raise AdapterUnavailable(f"listing the releases of {package}: {e}") from None
    if proc.returncode != 0:
        raise AdapterUnavailable(f"listing the releases of {package} failed: {one_line(proc.stderr)}")
    if index == "pypi":
        m = re.search(r"Available versions: (.*)", proc.stdout)
        found = [v.strip() for v in m.group(1).split(",")] if m else []
    else:
        loaded = json.loads(proc.stdout or "[]")
        found = [loaded] if isinstance(loaded, str) else list(loaded)
    final = [v for v in found if VERSION_RE.fullmatch(v) and not re.search(r"[a-z-]", v.lower())]
    return sorted(set(final), key=version_key)


# -- envs list | prune -------------------------------------------------------------------

@dataclass(frozen=True)
class EnvInfo:
    name: str
    package: str
    version: str
    size: int  # bytes
    ready: bool
    seconds: float | None  # how long it took to create


def listing() -> list[EnvInfo]:
    out = []
    for path in sorted(p for p in root().iterdir() if p.is_dir()):
        marker = path / MARKER
        meta = json.loads(marker.read_text(encoding="utf-8")) if marker.is_file() else {}
        out.append(EnvInfo(path.name, meta.get("package", "?"), meta.get("version", "?"), _size(path),
                           bool(meta), meta.get("seconds")))
    return out


def _size(path: Path) -> int:
    total = 0
    for dirpath, _, files in os.walk(path):
        for f in files:
            try:
                total += (Path(dirpath) / f).lstat().st_size
            except OSError:
                pass
    return total


def prune(names: list[str] | None = None) -> list[EnvInfo]:
    """Removes the named environments (None: every one not ready, left by a failed or interrupted creation);
    returns what it removed."""
    removed = []
    for env in listing():
        if (names is None and not env.ready) or (names is not None and env.name in names):
            path = root() / env.name
            with cache_lock(path):
                _clear(path)
            shutil.rmtree(path, ignore_errors=True)
            removed.append(env)
    return removed


def human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"
