"""Installed beside the PyPI distributions that own the generic names (`corpus`, `generators`, `conformance`,
`reports`), parquet-conformance breaks none of them and none of them breaks it: the wheel holds one import
package, parquet_conformance. Slow (a wheel build and a fresh environment): .ci/run runs it."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
GENERIC = ("corpus", "generators", "conformance", "reports")


@pytest.mark.slow
def test_the_wheel_installs_beside_the_generic_names(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(REPO), "-w", str(tmp_path)],
                   check=True, capture_output=True, timeout=600)
    (wheel,) = tmp_path.glob("parquet_conformance-*.whl")
    with zipfile.ZipFile(wheel) as z:
        tops = {name.split("/")[0] for name in z.namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"parquet_conformance"}
    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True, timeout=300)
    pip = [str(env / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps"]
    # --ignore-requires-python: PyPI's `conformance` wants Python 3.12; only its files matter here.
    subprocess.run([*pip, "--ignore-requires-python", str(wheel), *GENERIC], check=True, capture_output=True,
                   timeout=600)
    check = """
import importlib.metadata as md, importlib.util as u, json
import parquet_conformance.corpus.model as ours
names = {}
for dist in DISTS:  # each distribution's own top-level import names, and where they resolve
    tops = {f.parts[0].removesuffix(".py") for f in md.files(dist) if not f.parts[0].endswith((".dist-info", ".pth"))
            and not f.parts[0].startswith("__")}
    names.update({n: u.find_spec(n).origin for n in tops if n.isidentifier()})  # not ../bin and the like
print(json.dumps({"ours": ours.__file__, "theirs": names}))
""".replace("DISTS", repr(GENERIC))
    proc = subprocess.run([str(env / "bin" / "python"), "-c", check], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    found = __import__("json").loads(proc.stdout)
    site = str(env / "lib")
    assert found["ours"].startswith(site) and "/parquet_conformance/corpus/model.py" in found["ours"]
    assert {"generators", "reports"} <= set(found["theirs"])  # the two names that really clash
    for name, origin in found["theirs"].items():  # each resolves to its own project, not to ours
        assert origin.startswith(site) and "parquet_conformance" not in origin, (name, origin)
