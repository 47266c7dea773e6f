"""The seed chapter ("A Hybrid of Imperative and Symbolic Programming") and its exercises.

The chapter's ``HybridNet`` prints inside ``hybrid_forward`` (trace-time only: a warning), and
its exercises add ``x.asnumpy()``, ``a += b``, ``a[:] = a + b`` and ``if``/``for`` on data.
"""
from __future__ import annotations

import re

from transpile_helpers import SEED, codes, findings

CHAPTER_NET = '''from mxnet import nd, sym
from mxnet.gluon import nn


class HybridNet(nn.HybridBlock):
    def __init__(self, **kwargs):
        super(HybridNet, self).__init__(**kwargs)
        self.hidden = nn.Dense(10)
        self.output = nn.Dense(2)

    def hybrid_forward(self, F, x):
{extra}        print('F: ', F)
        print('x: ', x)
        x = F.relu(self.hidden(x))
        print('hidden: ', x)
        return self.output(x)
'''


def net(extra: str = "") -> str:
    return CHAPTER_NET.format(extra="".join(f"        {line}\n" for line in extra.splitlines()))


def test_the_chapter_code_is_quoted_from_the_seed():
    text = SEED.read_text(encoding="utf-8")
    assert "def hybrid_forward(self, F, x):\n        print('F: ', F)" in text
    assert re.search(r"x\.asnumpy\(\)", text) and "a += b" in text and "a[:] = a + b" in text


def test_chapter_net_prints_tensors_which_is_a_trace_time_warning_only():
    found = findings(net())
    assert [(f.start.row, f.code) for f in found] == [(13, "HY008"), (15, "HY008")]
    assert all(f.severity.value == "warning" for f in found)
    assert "`x` is a tensor: it is an input of `hybrid_forward`" in found[0].message
    assert "`x` is a tensor: it is the result of `F.relu(self.hidden(x))` on line 14" in found[1].message


def test_exercise_1_asnumpy_on_the_first_line_is_hy001():
    found = [f for f in findings(net("x.asnumpy()")) if f.code != "HY008"]
    assert [(f.start.row, f.start.column, f.code) for f in found] == [(12, 9, "HY001")]


def test_in_place_operations_of_the_chapter_are_hy002_and_hy003():
    source = net("a = F.relu(x)\nb = F.sigmoid(x)\na += b\na[:] = a + b")
    found = [(f.start.row, f.code) for f in findings(source) if f.code != "HY008"]
    assert found == [(14, "HY002"), (15, "HY003")]


def test_exercise_2_if_and_for_on_data_are_hy004_and_hy005():
    source = net("if x.sum() > 0:\n    x = x * 2\nfor row in x:\n    pass")
    found = [(f.start.row, f.code) for f in findings(source) if f.code != "HY008"]
    assert found == [(12, "HY004"), (14, "HY005")]


def test_if_and_for_on_configuration_are_fine():
    source = net("if self.hidden is not None:\n    pass\nfor _ in range(2):\n    x = x + 1")
    assert set(codes(source)) == {"HY008"}
