"""The CI recipes for implementers, run as plain commands: every step of the composite GitHub Action (action.yml)
and the script of the GitLab job (examples/parquet-conformance.gitlab-ci.yml), with their inputs and variables set as
GitHub and GitLab set them, against the sample external worker (examples/external_worker.py) and a corpus release
packed here. Installing is left to the slow test below; the default tests use the parquet-conformance installed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import CLI, md_text

yaml = pytest.importorskip("yaml")

REPO = Path(__file__).resolve().parent.parent
ONLY = "base/flat,ext/file-metadata/flat/*,corrupt/tiny/*"
WORKER = f"{sys.executable} {REPO / 'examples' / 'external_worker.py'}"


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A corpus release: the archive and its sha256, as `corpus pack` publishes them."""
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run([*CLI, "corpus", "pack", "--out", str(dist), "--only", ONLY], check=True, capture_output=True)
    (archive,) = dist.glob("*.tar.gz")
    sums = dict(reversed(line.split()) for line in (dist / "SHA256SUMS").read_text().splitlines())
    return archive, sums[archive.name]


def environment(extra: dict[str, str], bin_dir: Path) -> dict[str, str]:
    return {**os.environ, **extra, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


BIN = Path(sys.executable).parent


def run_action(inputs: dict[str, str], work: Path, bin_dir: Path = BIN) -> list[tuple[str, int]]:
    """Each step of action.yml as GitHub runs it: `${{ inputs.* }}` from `inputs` and the defaults, bash -eo
    pipefail, later steps skipped after a failure unless `if: always()`. Returns (step name, exit code)."""
    action = yaml.safe_load((REPO / "action.yml").read_text())
    values = {k: str(v.get("default", "")) for k, v in action["inputs"].items()} | inputs
    missing = [k for k, v in action["inputs"].items() if v.get("required") and k not in inputs]
    assert not missing, missing
    context = {**{f"inputs.{k}": v for k, v in values.items()}, "github.action_path": str(REPO)}

    def expand(text: str) -> str:
        return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: context[m.group(1)], text)

    github = {"GITHUB_STEP_SUMMARY": str(work / "step-summary.md"), "GITHUB_OUTPUT": str(work / "output.txt")}
    done: list[tuple[str, int]] = []
    failed = False
    for step in action["runs"]["steps"]:
        if "run" not in step:  # actions/setup-python: the test's own Python stands in for it
            assert step["uses"].startswith("actions/setup-python@")
            continue
        if failed and step.get("if") != "always()":
            continue
        assert step["shell"] == "bash" and "${{" not in step["run"], "inputs reach scripts through env only"
        env = environment({k: expand(str(v)) for k, v in step.get("env", {}).items()} | github, bin_dir)
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=work,
                              env=env, capture_output=True, text=True, timeout=600)
        print(f"--- {step['name']}: exit {proc.returncode}\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")  # on failure
        done.append((step["name"], proc.returncode))
        failed = failed or proc.returncode != 0
    return done


def test_the_action_gates_a_worker_and_posts_the_summary(release: tuple[Path, str], tmp_path: Path) -> None:
    archive, sha = release
    expected = tmp_path / "failures.txt"
    expected.write_text("# the sample worker (pyarrow) is expected to pass every case of the selection\n")
    inputs = {"adapter-name": "sample", "worker-command": WORKER, "corpus-url": str(archive), "corpus-sha256": sha,
              "expected-failures": str(expected), "only": ONLY, "install": "false"}
    steps = run_action(inputs, tmp_path)
    assert [code for _, code in steps] == [0] * 5, steps
    posted = md_text((tmp_path / "step-summary.md").read_text())
    assert "## parquet-conformance run" in posted and "| sample |" in posted
    assert "summary=parquet-conformance-out/summary.md" in (tmp_path / "output.txt").read_text()
    assert (tmp_path / "parquet-conformance-out" / "junit" / "sample.xml").is_file()


def test_the_action_fails_on_an_unexpected_pass_and_still_posts(release: tuple[Path, str], tmp_path: Path) -> None:
    archive, sha = release
    expected = tmp_path / "failures.txt"
    expected.write_text("base/flat legacy fail:rejected-valid\n")  # it passes: a stale entry fails the gate
    inputs = {"adapter-name": "sample", "worker-command": WORKER, "corpus-url": str(archive), "corpus-sha256": sha,
              "expected-failures": str(expected), "only": ONLY, "install": "false"}
    steps = dict(run_action(inputs, tmp_path))
    assert steps["Gate on the expected failures"] == 1 and steps["Post summary.md"] == 0
    posted = md_text((tmp_path / "step-summary.md").read_text())
    assert "| sample |" in posted  # the summary says what the gate says: the listed cell is fixed
    assert "Compared with the expected-failure list failures.txt: 0 new failures**, 0 changed, 1 fixed" in posted
    (tmp_path / "again").mkdir()
    wrong = run_action(inputs | {"corpus-sha256": "0" * 64}, tmp_path / "again")  # another release's digest
    assert dict(wrong)["Fetch the pinned corpus"] == 1 and "Run the worker over the corpus" not in dict(wrong)


def test_the_gitlab_job_runs_the_same_commands(release: tuple[Path, str], tmp_path: Path) -> None:
    archive, sha = release
    config = yaml.safe_load((REPO / "examples" / "parquet-conformance.gitlab-ci.yml").read_text())
    expected = tmp_path / "failures.txt"
    expected.write_text("")
    variables = {k: str(v) for k, v in config["variables"].items()} | {
        "PC_PACKAGE": "", "PC_ADAPTER": "sample", "PC_WORKER": WORKER, "PC_CORPUS_URL": str(archive),
        "PC_CORPUS_SHA256": sha, "PC_EXPECTED": str(expected), "PC_ONLY": ONLY}
    script = "\n".join(config["parquet-conformance"]["script"])
    proc = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=environment(variables, BIN),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "gate ok: sample" in proc.stdout
    for path in config["parquet-conformance"]["artifacts"]["paths"]:
        assert (tmp_path / path.replace("$PC_OUT", variables["PC_OUT"])).exists(), path


@pytest.mark.slow
def test_the_action_installs_parquet_conformance_into_a_fresh_environment(release: tuple[Path, str],
                                                                          tmp_path: Path) -> None:
    """The install step as CI runs it: this checkout, pip-installed into a new virtual environment."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    archive, sha = release
    expected = tmp_path / "failures.txt"
    expected.write_text("")
    inputs = {"adapter-name": "sample", "worker-command": f"{venv / 'bin' / 'python'} "
              f"{REPO / 'examples' / 'external_worker.py'}", "corpus-url": str(archive), "corpus-sha256": sha,
              "expected-failures": str(expected), "only": ONLY}
    steps = run_action(inputs, tmp_path, venv / "bin")
    assert [code for _, code in steps] == [0] * 5, steps
