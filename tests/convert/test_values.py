"""HY001/HY009 conversions: a concrete value that only scales or shifts a tensor stays a tensor;
a value that leaves the graph keeps its finding."""
from __future__ import annotations

import pytest

from hybridize.transpile.check.checker import check_source, fix_source
from hybridize.transpile.rules.base import example

NP = "import numpy as np\n"


@pytest.mark.parametrize("code", [
    example("s = F.sum(x)\nprint(s.asscalar())\nreturn x"),                       # printed
    example("s = F.sum(x)\nself.last = s.asscalar()\nreturn x"),                  # stored on self
    example("s = F.sum(x)\nreturn x * (s.asscalar() + 1)"),                       # Python arithmetic first
    example("s = F.sum(x)\nk = 2 * s.asscalar()\nreturn x * k"),                  # bound to a name
    example("s = F.sum(x)\nreturn x / float(s)"),                                  # fails on MXNet 1.9.1
    NP + example("s = F.sum(x)\nreturn x - np.mean(s)"),                           # fails on MXNet 1.9.1
    NP + example("s = F.sum(x)\nreturn x * np.exp(s)"),                            # no F twin kept
    example("s = F.sum(x)\nif s.asscalar() > 0:\n    x = x * 2\nreturn x"),      # a control decision
])
def test_a_value_that_leaves_the_graph_keeps_its_finding(code):
    findings = [f for f in check_source(code, "m.py") if f.code in ("HY001", "HY009")]
    assert findings and all(f.fix is None for f in findings)
    assert fix_source(code, "m.py", unsafe=True)[1] == 0 or any(
        f.code in ("HY001", "HY009") for f in fix_source(code, "m.py", unsafe=True)[2])


def test_the_converted_value_carries_no_gradient_like_the_number_it_replaces():
    fixed = fix_source(example("s = F.sum(x)\nreturn x * s.asscalar()"), "m.py")[0]
    assert "return F.broadcast_mul(x, F.BlockGrad(F.reshape(s, shape=(1,))))" in fixed
