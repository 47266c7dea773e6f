"""The wheel installs into a fresh virtual environment as one package, ``hybridize``.

Nothing may claim a generic top-level import name (``runtime``, ``cli``, ``transpile``): the
repository's top-level folders are mapped under ``hybridize`` by ``setup.py``.
"""
from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import pytest

from support import REPO


# what a build leaves in the tree it builds (setuptools builds in place): never the repository's own
BUILD_LEFTOVERS = (".git", "build", "dist", "*.egg-info", "__pycache__", ".hypothesis", ".pytest_cache", "out")


@pytest.fixture(scope="session")
def dists(tmp_path_factory: pytest.TempPathFactory) -> "tuple[Path, Path]":
    """The sdist and the wheel built from it, as a user's ``python -m build`` makes them (isolated:
    the newest setuptools, which the package's metadata must suit, not this environment's), built
    once per run from a copy of the source tree: nothing is written into the repository, and no
    ``*.egg-info`` an editable install left there takes part. pytest-xdist's workers share them
    through the run's common temporary directory (built by the first, under a lock); a serial run
    builds its own."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    out = shared / "hybridize-dists"
    with open(shared / "hybridize-dists.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not list(out.glob("hybridize-*.whl")):
            src = shared / "hybridize-src"
            shutil.rmtree(src, ignore_errors=True)
            shutil.rmtree(shared / "hybridize-sdist", ignore_errors=True)
            shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(*BUILD_LEFTOVERS))
            _build(src, out)
    (sdist,) = out.glob("hybridize-*.tar.gz")
    (whl,) = out.glob("hybridize-*.whl")
    return sdist, whl


def _build(src: Path, out: Path) -> None:
    """``python -m build``'s two steps, the sdist and then the wheel from the unpacked sdist, in one
    isolated environment rather than one each: the same build requirements (the newest setuptools),
    installed once (a fresh environment and pip installing setuptools: 4 s of CPU of the 13)."""
    import tarfile

    from build import ProjectBuilder
    from build.env import DefaultIsolatedEnv
    from pyproject_hooks import quiet_subprocess_runner

    # the backend's warnings (setuptools' deprecations) stay in the build's output, as with `python -m build`
    with DefaultIsolatedEnv() as env, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder = ProjectBuilder.from_isolated_env(env, src, runner=quiet_subprocess_runner)
        env.install(builder.build_system_requires)
        env.install(builder.get_requires_for_build("sdist"))
        sdist = builder.build("sdist", out)
        unpacked = out.parent / "hybridize-sdist"
        with tarfile.open(sdist) as tar:
            tar.extractall(unpacked, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        (root,) = unpacked.iterdir()
        builder = ProjectBuilder.from_isolated_env(env, root, runner=quiet_subprocess_runner)
        env.install(builder.get_requires_for_build("wheel"))
        builder.build("wheel", out)


@pytest.fixture(scope="session")
def wheel(dists: "tuple[Path, Path]") -> Path:
    return dists[1]


def _fresh_venv(python: str, env_dir: Path, wheel: Path) -> Path:
    """A new virtual environment of ``python`` holding the wheel and its dependencies; its bin/.
    Created without pip (ensurepip costs seconds per venv); this pip installs into it, without
    byte-compiling the installed files (numpy's: 40% of the install; the few the test imports
    are compiled when imported)."""
    subprocess.run([python, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "install", "-q",
                    "--disable-pip-version-check", "--no-compile", str(wheel)], check=True, cwd=env_dir.parent)
    return bin_dir


def test_wheel_holds_only_the_hybridize_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/", 1)[0] for n in names}
    assert tops == {"hybridize", f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.dist-info"}
    assert "hybridize/runtime/__init__.py" in names
    assert "hybridize/transpile/__init__.py" in names
    assert "hybridize/cli.py" in names
    assert not any(n.endswith("setup.py") for n in names)
    assert not any(n.startswith("hybridize/tests/") for n in names)


def test_wheel_and_sdist_carry_license_and_notice(dists: "tuple[Path, Path]") -> None:
    # the Apache-2.0 licence of the MXNet code this project ports requires both to travel with it
    import tarfile

    sdist, wheel = dists
    names = zipfile.ZipFile(wheel).namelist()
    info = next(n.split("/")[0] for n in names if ".dist-info/" in n)
    held = {n.rsplit("/", 1)[-1] for n in names if n.startswith(info + "/")}
    assert {"LICENSE", "NOTICE"} <= held
    text = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("/NOTICE"))).decode()
    assert "Apache MXNET (incubating)" in text
    members = {m.split("/", 1)[-1] for m in tarfile.open(sdist).getnames()}
    assert {"LICENSE", "NOTICE"} <= members


def _interpreter(version: str) -> "str | None":
    """An interpreter of ``version`` (``3.9``): on PATH, or one of pyenv's."""
    import glob
    import shutil

    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates = sorted(glob.glob(os.path.join(root, "versions", f"{version}.*", "bin", "python")))
    candidates.append(shutil.which(f"python{version}") or "")
    for candidate in filter(None, candidates):  # pyenv's shims exist even where they cannot run
        if subprocess.run([candidate, "-c", "import venv"], capture_output=True).returncode == 0:
            return candidate
    return None


CONFIGURED_PROJECT = {
    "pyproject.toml": '[tool.hybridize-check]\nignore = ["HY008"]\n',
    "m.py": ("from mxnet.gluon import nn\n\n\nclass Net(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
             "        print(x)\n        y = F.relu(x)\n        y += 1\n        return y\n"),
}


def test_wheel_installs_in_a_fresh_venv_of_the_oldest_python_and_checks_transpiles_and_runs(
        wheel: Path, tmp_path: Path) -> None:
    """requires-python says >= 3.9: in a fresh virtual environment of the oldest supported Python
    (3.9; this interpreter where none is installed) the wheel imports as the one package
    ``hybridize`` (no generic top-level names), its console scripts run, it checks a project
    configured in pyproject.toml (tomli comes along below 3.11), transpiles it and runs a
    hybridized network. One venv stands for the versions between (each costs a venv and an
    install, the suite's slowest test: it runs with ``HYBRIDIZE_SLOW=1``; ``.ci/run`` installs the
    package into a fresh venv and runs the samples job on every CI run)."""
    if os.environ.get("HYBRIDIZE_SLOW") != "1":
        pytest.skip("a fresh venv of the oldest Python: HYBRIDIZE_SLOW=1")
    python = _interpreter("3.9") or sys.executable
    bin_dir = _fresh_venv(python, tmp_path / "venv", wheel)
    probe = ("import importlib.util as u, hybridize, hybridize.runtime as mx, hybridize.transpile, hybridize.cli;"
             "assert all(u.find_spec(n) is None for n in ('runtime', 'cli', 'transpile'));"
             "print(mx.nd.array([1, 2]).asnumpy().sum())")
    res = subprocess.run([str(bin_dir / "python"), "-c", probe], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.strip() == "3.0", res.stderr
    res = subprocess.run([str(bin_dir / "hybridize"), "--version"], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0 and "hybridize" in res.stdout
    project = tmp_path / "project"
    project.mkdir()
    for name, text in CONFIGURED_PROJECT.items():
        (project / name).write_text(text)
    res = subprocess.run([str(bin_dir / "hybridize-check"), "--output-format", "concise", "."], cwd=project,
                         capture_output=True, text=True)
    assert res.returncode == 1, res.stdout + res.stderr
    assert res.stdout.splitlines() == [
        "m.py:8:9: HY002 [*] in-place `+=` on tensor `y`: a `Symbol` cannot be updated in place; "
        "`y` is a tensor: it is the result of `F.relu(x)` on line 7",
        "Found 1 error (1 fixable)."]  # HY008 (the print) ignored by the configuration
    res = subprocess.run([str(bin_dir / "hybridize"), "transpile", "m.py", "-o", "out"], cwd=project,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    probe = ("from hybridize.runtime import nd\nfrom hybridize.runtime.gluon import nn\n"
             "net = nn.HybridSequential(); net.add(nn.Dense(4, activation='relu'), nn.Dense(2)); net.initialize()\n"
             "x = nd.ones((2, 3)); a = net(x).asnumpy(); net.hybridize(); b = net(x).asnumpy()\n"
             "assert abs(a - b).max() == 0 and a.shape == (2, 2)\nprint('ok')\n")
    res = subprocess.run([str(bin_dir / "python"), "-c", probe], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr
