"""What a new user expects of the runtime: files get the
permissions the umask gives, ``summary()`` before the first forward shows shapes, a GPU context says
(once) that it runs on the CPU, ``hybridize run`` says when it casts an input, the runtime has
MXNet's ``__version__`` and ``python -m hybridize`` is the ``hybridize`` command.
"""
from __future__ import annotations

import contextlib
import io
import os
import stat
import subprocess
import sys
import warnings

import numpy as np
import pytest

import hybridize
import hybridize.runtime as mx
from hybridize.runtime import context, nd
from hybridize.runtime.gluon import nn

PYROOT = os.path.dirname(os.path.dirname(os.path.abspath(hybridize.__file__)))


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=PYROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))


@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_saved_files_get_the_umask_permissions(tmp_path, mask):
    """nd.save of one array and save_parameters (the writers a user names first; every writer of the
    product is covered by tests/test_atomic.py)."""
    old = os.umask(mask)
    try:
        nd.save(str(tmp_path / "one.nd"), nd.ones((2,)))
        net = nn.Dense(2, in_units=3)
        net.initialize()
        net.save_parameters(str(tmp_path / "net.params"))
    finally:
        os.umask(old)
    for f in ("one.nd", "net.params"):
        assert stat.S_IMODE(os.stat(tmp_path / f).st_mode) == 0o666 & ~mask, f


def test_summary_before_the_first_forward_shows_shapes():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3), nn.BatchNorm(), nn.Activation("relu"), nn.Dense(5))
    net.initialize()  # deferred: no forward has run, no parameter has a shape yet
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        net.summary(nd.ones((2, 3, 8, 8)))
    text = out.getvalue()
    assert "Symbol" not in text
    for shape in ("(2, 3, 8, 8)", "(2, 4, 6, 6)", "(2, 5)"):
        assert shape in text
    assert "Total params: 853" in text
    net.hybridize()
    with pytest.raises(AssertionError):  # as MXNet: summary needs the imperative forward
        net.summary(nd.ones((2, 3, 8, 8)))


def test_gpu_context_warns_once_and_runs_on_the_cpu(monkeypatch):
    monkeypatch.setattr(context, "_warned_gpu", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = mx.gpu()
        x = nd.ones((2, 3), ctx=g)
        y = nd.zeros((2,), ctx=mx.gpu(1)).as_in_context(mx.gpu())
        net = nn.Dense(2, in_units=3)
        net.initialize(ctx=mx.gpu())
        out = net(x)
    fallback = [w for w in caught if issubclass(w.category, context.CPUFallbackWarning)]
    assert len(fallback) == 1
    assert "CPU" in str(fallback[0].message) and fallback[0].filename == __file__
    assert x.context == y.context == out.context == mx.cpu()
    assert str(g) == "gpu(0)" and mx.num_gpus() == 0


def test_hybridize_run_says_when_it_casts(tmp_path):
    data = mx.sym.var("data")
    mx.sym.FullyConnected(data, num_hidden=2, name="fc").save(str(tmp_path / "m-symbol.json"))
    nd.save(str(tmp_path / "m-0000.params"), {"arg:fc_weight": nd.ones((2, 3)), "arg:fc_bias": nd.zeros((2,))})
    np.save(tmp_path / "x64.npy", np.ones((1, 3)))
    np.save(tmp_path / "x32.npy", np.ones((1, 3), np.float32))

    def run(name: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "hybridize", "run", "m-symbol.json", "--input", name,
                               "--input", name], cwd=tmp_path, env=_env(), capture_output=True, text=True,
                              timeout=120)

    cast = run("x64.npy")
    assert cast.returncode == 0, cast.stderr
    assert cast.stderr.strip().splitlines() == [
        "hybridize run: note: x64.npy: input 'data' is float64; the model takes float32, so it is cast to float32"]
    assert "dtype float32" in cast.stdout
    same = run("x32.npy")
    assert same.returncode == 0 and same.stderr == ""


def test_versions_and_python_dash_m():
    assert mx.__version__ == "1.9.1"  # the MXNet version whose semantics the runtime follows
    proc = subprocess.run([sys.executable, "-m", "hybridize", "--version"], env=_env(), capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == f"hybridize, version {hybridize.__version__}"
    bad = subprocess.run([sys.executable, "-m", "hybridize", "no-such-command"], env=_env(), capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and "hybridize" in bad.stderr
