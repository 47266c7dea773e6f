"""The wheel installs into a fresh virtual environment as one package, ``hybridize``.

Nothing may claim a generic top-level import name (``runtime``, ``cli``, ``transpile``): the
repository's top-level folders are mapped under ``hybridize`` by ``setup.py``.
"""
from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from support import REPO


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps",
                    "-q", "-w", str(out)], check=True, cwd=out)
    (whl,) = out.glob("hybridize-*.whl")
    return whl


def test_wheel_holds_only_the_hybridize_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/", 1)[0] for n in names}
    assert tops == {"hybridize", f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.dist-info"}
    assert "hybridize/runtime/__init__.py" in names
    assert "hybridize/transpile/__init__.py" in names
    assert "hybridize/cli.py" in names
    assert not any(n.endswith("setup.py") for n in names)
    assert not any(n.startswith("hybridize/tests/") for n in names)


def test_wheel_installs_and_imports_in_a_fresh_venv(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / ("Scripts" if os.name == "nt" else "bin") / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)],
                   check=True, cwd=tmp_path)
    probe = ("import importlib.util as u, hybridize, hybridize.runtime as mx, hybridize.transpile, hybridize.cli;"
             "assert all(u.find_spec(n) is None for n in ('runtime', 'cli', 'transpile'));"
             "print(mx.nd.array([1, 2]).asnumpy().sum())")
    res = subprocess.run([str(py), "-c", probe], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "3.0"
    cli = env_dir / "bin" / "hybridize"
    res = subprocess.run([str(cli), "--version"], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0 and "hybridize" in res.stdout
