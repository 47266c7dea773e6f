"""HY007 conversions: `nd.X` -> `F.X` only for MXNet operators (same signature in both namespaces)."""
from __future__ import annotations

import pytest

from hybridize.transpile.check.checker import check_source, fix_source
from hybridize.transpile.analysis.runtime_facts import F_OPERATORS
from hybridize.transpile.rules.base import example


def test_the_converted_names_are_registered_operators_and_not_hand_written_functions():
    assert {"relu", "Convolution", "contrib.box_nms", "linalg.gemm2"} <= F_OPERATORS
    assert not {"zeros", "array", "concatenate", "maximum"} & F_OPERATORS


@pytest.mark.parametrize("body", [
    "return x + nd.zeros((2, 3, 4))",                        # nd.zeros(shape, ctx, dtype) is hand-written
    "return x * nd.array([1.0])",
    "return x + nd.random.uniform(shape=(2, 3, 4))",         # random: not the same numbers
    "y = F.zeros_like(x)\nnd.relu(x, out=y)\nreturn y",      # out= exists only for NDArray
])
def test_hand_written_and_ndarray_only_calls_keep_the_finding(body):
    code = example(body)
    found = [f for f in check_source(code, "m.py") if f.code == "HY007"]
    assert found and all(f.fix is None for f in found)


def test_a_helper_without_F_keeps_the_finding():
    code = example("return self.act(x)", extra="def act(self, x):\n    return nd.relu(x)")
    found = [f for f in check_source(code, "m.py") if f.code == "HY007"]
    assert found and all(f.fix is None for f in found)


def test_a_helper_taking_F_is_fixed():
    code = example("return self.act(F, x)", extra="def act(self, F, x):\n    return nd.relu(x)")
    assert "return F.relu(x)" in fix_source(code, "m.py")[0]
