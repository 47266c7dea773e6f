"""``x[key] = y`` while recording: MXNet 1.9.1 records a part assignment of an array that needs a
gradient as an op whose output is its own input and refuses it; a whole-array assignment is a plain
copy. A one-element sequence assigned to one element is that value. Expected outcomes:
``data/setitem_record_cases.json``, recorded by ``data/make_setitem_record_cases.py``."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import hybridize.runtime as mx

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = json.load(open(os.path.join(HERE, "data", "setitem_record_cases.json")))


@pytest.mark.parametrize("case", CASES["recording"], ids=lambda c: f"{c['key']}-grad{c['needs_grad']:d}")
def test_part_assignment_of_a_recorded_value_is_refused(case):
    key = eval(case["key"])  # noqa: S307  (recorded keys)
    x = mx.nd.ones((3, 4))
    y = mx.nd.random.uniform(shape=x[key].shape)
    if case["needs_grad"]:
        y.attach_grad()
    with mx.autograd.record():
        if case["raises"]:
            with pytest.raises(mx.MXNetError, match=r"Inplace operations \(\+=, -=, x\[:\]=, etc\) are not supported"):
                x[key] = y
        else:
            x[key] = y
            np.testing.assert_array_equal(x[key].asnumpy(), y.asnumpy())


def test_a_sequence_into_one_element():
    x = mx.nd.zeros((2, 3), dtype="int32")
    x[1, 2] = [7]
    assert x.asnumpy().tolist() == CASES["sequence_into_element"]
