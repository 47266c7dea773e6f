"""An executor's monitor callback over a training forward and backward reports what MXNet 1.9.1's
graph executor does (``fixtures/monitor_backward.json``, recorded by
``tools/record_monitor_backward.py``): after the forward outputs, each gradient node
``<op>_backward`` (one output per input gradient), the head gradient an operator reads
(``_head_grad_<i>_id``; loss outputs read none) and the sum of several contributions (``sum_grad``);
BatchNorm's hidden ``mean``/``var`` outputs too (batch mean and inverse standard deviation in
training, the moving ones in inference)."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import hybridize.runtime as mx

from .monitor_backward_cases import cases

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = json.load(open(os.path.join(HERE, "fixtures", "monitor_backward.json")))


@pytest.fixture(scope="module")
def measured() -> dict:
    return cases(mx)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_monitor_names_as_mxnet(case: str, measured: dict) -> None:
    assert measured[case] == EXPECTED[case]


def test_backward_values_are_the_gradients() -> None:
    x = mx.sym.var("x")
    y = mx.sym.sum(mx.sym.square(x, name="sq"), name="total")
    ex = y.simple_bind(mx.cpu(), x=(3,))
    ex.arg_dict["x"][:] = mx.nd.array([1.0, 2.0, 3.0])
    seen = {}
    ex.set_monitor_callback(lambda name, arr: seen.__setitem__(name, arr.asnumpy().tolist()))
    ex.forward(is_train=True)
    ex.backward(mx.nd.ones((1,)))
    assert seen["sq_backward_output"] == [2.0, 4.0, 6.0]
    assert seen["total_backward_output"] == [1.0, 1.0, 1.0]


def test_dropout_mask_is_the_one_drawn() -> None:
    x = mx.sym.var("x")
    ex = mx.sym.Dropout(x, p=0.25, name="do").simple_bind(mx.cpu(), x=(50, 40))
    ex.arg_dict["x"][:] = mx.nd.ones((50, 40)) * 3
    seen = {}
    ex.set_monitor_callback(lambda name, arr: seen.__setitem__(name, arr.asnumpy()))
    ex.forward(is_train=True)
    mask = seen["do_mask"]
    assert set(mask.ravel().tolist()) == {0.0, float(np.float32(1) / np.float32(0.75))}
    assert (seen["do_output"] == 3 * mask).all()
