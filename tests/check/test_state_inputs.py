"""HY014: computed tensors as inputs an operator updates in place (MXNet: "Mutation target can
only be Variable"); the operator table is the runtime registry's."""
from __future__ import annotations

import pytest

from hybridize.transpile.check.checker import check_source
from hybridize.transpile.rules.base import example


def _rows(body: str, signature: str = "self, F, x, g, b, m, v") -> list[int]:
    text = example(body, signature=signature, extra="def _helper(self, F, t):\n    return t")
    return [f.start.row for f in check_source(text, "example.py") if f.code == "HY014"]


@pytest.mark.parametrize("body,count", [
    ("return F.BatchNorm(x, g, b, F.zeros_like(m), v)", 1),
    ("return F.BatchNorm(x, g, b, m * 0.9, v + 1)", 2),
    ("s = F.ones((4,))\nreturn F.BatchNorm(x, g, b, moving_var=s, moving_mean=m)", 1),
    ("kw = {'eps': 1e-5}\nreturn F.BatchNorm(x, g, b, F.zeros((4,)), v, **kw)", 1),
    ("return F.contrib.SyncBatchNorm(x, g, b, F.zeros((4,)), F.ones((4,)))", 2),
])
def test_computed_states_are_reported(body, count):
    assert len(_rows(body)) == count


@pytest.mark.parametrize("body", [
    "return F.BatchNorm(x, F.ones_like(g), F.zeros_like(b), m, v)",   # gamma/beta are plain inputs
    "return F.BatchNorm(x, g, b, m, v, fix_gamma=False)",
    "args = [m, v]\nreturn F.BatchNorm(x, g, b, *args)",             # positions unknown: not guessed
    "return F.BatchNorm(x, g, b, self._helper(F, m), v)",            # the helper passes its input through
])
def test_variables_and_unknowns_are_not(body):
    assert _rows(body) == []
