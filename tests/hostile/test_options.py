"""Bad input at the command line, checked before anything starts (issue 29, class 6 and the round-3 remainder): a
malformed Spark master or setting, a timeout that is not a finite number, an output folder that cannot be written:
one line on stderr, exit 2, no traceback, nothing written. In process (argparse), so the fast tier holds them all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from parquet_conformance.app.cli import main


def one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as e:
        main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("master", ["spark://", "local[0]", "local[-1]", "k8s://", "mesos://h:5050", "local[*]x",
                                    "spark://h:99999", "", "yarn", "sc://", "local[1,0]", "spark://h:7077,",
                                    "local[\u0661]", "local[1\u0661]", "spark://h:7\u0660"])
def test_a_malformed_master_is_one_line(master: str, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HADOOP_CONF_DIR", raising=False)
    monkeypatch.delenv("YARN_CONF_DIR", raising=False)
    err = one_line(["run", "--out", str(tmp_path / "out"), "--master", master], capsys)
    assert "--master" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("conf", ["spark.executor.memory=lots", "spark.executor.cores=0", "spark.driver.cores=1.5",
                                  "spark.dynamicAllocation.enabled=maybe", "spark.network.timeout=soon", "=x",
                                  "novalue", "spark.master=local[2]", "spark key=1", "spark.task.maxFailures=-1"])
def test_a_bad_conf_is_one_line(conf: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    err = one_line(["run", "--out", str(tmp_path / "out"), "--conf", conf], capsys)
    assert "--conf" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("ok", ["local", "local[*]", "local[4]", "local[2,3]", "local-cluster[2,1,1024]",
                                "spark://a:7077", "spark://a:7077,b:7077", "sc://h:15002", "sc://h:15002/;token=x",
                                "k8s://https://h:6443", "none"])
def test_a_good_master_passes(ok: str) -> None:
    from parquet_conformance.kernel.options import spark_master

    assert spark_master(ok) == ok


def test_the_plugins_timeout_is_a_finite_number(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text("def test_x(): pass\n")
    for bad in ("nan", "inf", "-1", "0"):
        proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                               "--parquet-conformance-corpus", str(tmp_path), "--parquet-conformance-adapter",
                               "pyarrow", "--parquet-conformance-timeout", bad, str(tmp_path / "test_x.py")],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert proc.returncode == 4 and "--parquet-conformance-timeout" in proc.stderr, (bad, proc.stderr)
        assert "Traceback" not in proc.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="chattr +i needs root")
@pytest.mark.parametrize("argv", [["run", "--out", "{ro}/out"], ["generate", "--out", "{ro}/c"],
                                  ["corpus", "pack", "--out", "{ro}/d"], ["report", "--site", "{ro}/s"],
                                  ["corpus", "import", "{ro}", "--source", "x", "--out", "{ro}/i"],
                                  ["report", "--history", "{ro}", "--out", "{ro}/h"]])
def test_an_output_under_an_unwritable_folder_is_one_line(argv: list[str], capsys: pytest.CaptureFixture[str],
                                                           tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    if subprocess.run(["chattr", "+i", str(ro)], capture_output=True).returncode != 0:
        pytest.skip("this file system has no immutable folders")
    try:
        one_line([a.format(ro=ro) for a in argv], capsys)
    finally:
        subprocess.run(["chattr", "-i", str(ro)], check=True)
    assert list(ro.iterdir()) == []
