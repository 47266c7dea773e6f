"""HY003 conversions: which item assignments become functional updates, and which stay findings."""
from __future__ import annotations

import pytest

from hybridize.transpile.check.checker import check_source, fix_source
from hybridize.transpile.rules.base import example


def _hy003(code: str):
    return [f for f in check_source(code, "m.py") if f.code == "HY003"]


@pytest.mark.parametrize("body", [
    "y = x * 2\ny[0] = F.sigmoid(x)\nreturn y",        # a tensor into part of the array: no differentiable F op
    "y = x * 2\ny[:, 1:] += F.sigmoid(x)\nreturn y",
    "y = x * 2\ny[:, self.k] = 1\nreturn y",          # a name in the key
    "y = x * 2\ny[0] = self.fill\nreturn y",          # a Python value that may be a list or an array
    "y = x * 2\ny[0] **= 2\nreturn y",                # no exact functional twin kept
    "y = x * 2\ny[0] /= 0\nreturn y",
    "y = x * 2\ny[..., 0] = 1\nreturn y",             # needs the number of axes
    "y = x * 2\nz = y[0] = 1\nreturn y + z",          # chained
])
def test_updates_that_cannot_be_shown_equivalent_stay_findings(body):
    code = example(body, init="self.k = 1\nself.fill = 0.5")
    assert all(f.fix is None for f in _hy003(code))
    fixed, _, remaining = fix_source(code, "m.py", unsafe=True)
    assert any(f.code == "HY003" for f in remaining)


def test_an_array_seen_under_another_name_makes_the_fix_unsafe():
    code = example("y = x * 2\nkeep = y\ny[0] = 1\nreturn y + keep")
    [finding] = _hy003(code)
    assert finding.fix.applicability.value == "unsafe" and "`keep` still refer(s) to it" in finding.fix.message
    assert fix_source(code, "m.py")[0] == code


def test_a_view_of_the_input_is_the_callers_array():
    code = example("y = x[0, :]\ny[:] = 1\nreturn y")
    assert "the caller still holds the input" in _hy003(code)[0].fix.message


_GRADIENT = """
import mxnet as mx
from mxnet.gluon import nn
ns = {}
exec(compile(open(__import__("sys").argv[1]).read(), "fixed.py", "exec"), ns)
net = ns["Net"]()
net.initialize()
net.hybridize()
x = mx.nd.ones((2, 3))
x.attach_grad()
with mx.autograd.record():
    out = net(x)
out.backward()
print(out.asnumpy().tolist(), x.grad.asnumpy().tolist())
"""


def test_the_mask_keeps_gradients_of_the_elements_not_overwritten(tmp_path):
    """Hybridized MXNet builds the backward graph: the mask operator sits behind BlockGrad, and the
    converted block trains like the in-place update would (d/dx of the kept elements is 2, of the
    overwritten ones 0). Only where MXNet 1.9.1 is installed."""
    import subprocess

    from both_ways import mxnet_python

    python = mxnet_python()
    if python is None:
        pytest.skip("no MXNet 1.9.1 interpreter (HYBRIDIZE_MXNET_PYTHON)")
    fixed = fix_source(example("y = x * 2\ny[:, 0] = 5\nreturn y"), "m.py")[0]
    (tmp_path / "fixed.py").write_text(fixed)
    (tmp_path / "grad.py").write_text(_GRADIENT)
    proc = subprocess.run([python, str(tmp_path / "grad.py"), str(tmp_path / "fixed.py")], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split("\n")[-2] == "[[5.0, 2.0, 2.0], [5.0, 2.0, 2.0]] [[0.0, 2.0, 2.0], [0.0, 2.0, 2.0]]"
