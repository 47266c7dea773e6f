"""The seed chapter's programs in samples/ run, and print what the chapter shows."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples"

# Runs an MXNet-style sample with ``mxnet`` aliased to hybridize.runtime (what transpiling its
# imports does), to show the chapter's text itself runs on our Gluon.
_ALIAS_RUNNER = r"""
import runpy, sys
import hybridize.runtime as mx
import hybridize.runtime.gluon, hybridize.runtime.gluon.nn
for name, mod in {"mxnet": mx, "mxnet.nd": mx.nd, "mxnet.ndarray": mx.nd, "mxnet.sym": mx.sym,
                  "mxnet.symbol": mx.sym, "mxnet.gluon": mx.gluon, "mxnet.gluon.nn": mx.gluon.nn}.items():
    sys.modules[name] = mod
sys.argv = [sys.argv[1]]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def _run(args, cwd):
    env = dict(os.environ)
    res = subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.mark.parametrize("path", ["hybrid_net.py", "mxnet_style/hybrid_net.py"])
def test_hybrid_net_sample(tmp_path, path):
    args = [str(SAMPLES / path)] if "mxnet_style" not in path else ["-c", _ALIAS_RUNNER, str(SAMPLES / path)]
    out = _run(args, tmp_path)
    assert out.count("F:  <module 'hybridize.runtime.ndarray'") == 2
    assert out.count("F:  <module 'hybridize.runtime.symbol'") == 1
    assert "x:  <Symbol data>" in out and "_relu0>" in out
    assert out.count("<NDArray 1x2 @cpu(0)>") == 4


@pytest.mark.parametrize("path", ["hybrid_mlp.py", "mxnet_style/hybrid_mlp.py"])
def test_hybrid_mlp_sample(tmp_path, path):
    if "mxnet_style" in path:
        out = _run(["-c", _ALIAS_RUNNER, str(SAMPLES / path)], tmp_path)
        written = tmp_path
    else:
        out = _run([str(SAMPLES / path), str(tmp_path / "out")], tmp_path)
        written = tmp_path / "out"
    assert "before hybridizing:" in out and "after hybridizing:" in out
    assert (written / "my_mlp-symbol.json").is_file() and (written / "my_mlp-0000.params").is_file()
    assert out.rstrip().splitlines()[-1].startswith("<Symbol dense") and out.rstrip().endswith("_fwd>")


@pytest.mark.parametrize("path", ["fancy_func.py", "mxnet_style/fancy_func.py"])
def test_fancy_func_sample(tmp_path, path):
    out = _run([str(SAMPLES / path)], tmp_path)
    lines = out.splitlines()
    assert lines[0] == "10" and lines[-1] == "10" and "def fancy_func(a, b, c, d):" in out
