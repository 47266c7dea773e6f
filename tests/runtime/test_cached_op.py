"""``mx.nd.CachedOp``: a symbol called on NDArrays in ``list_inputs()`` order, its outputs and the
gradients recorded through it as MXNet 1.9.1 computes them (``data/cached_op_cases.npz``, recorded by
``data/make_cached_op_cases.py``)."""
from __future__ import annotations

import os

import numpy as np
import pytest

import hybridize.runtime as mx

HERE = os.path.dirname(os.path.abspath(__file__))
R = np.load(os.path.join(HERE, "data", "cached_op_cases.npz"))


def conv_op():
    sym = mx.sym.Convolution(kernel=(3, 3), num_filter=4) * 2 + 1
    # (the name's counter depends on what ran before; the order is MXNet's)
    assert [n.rsplit("_", 1)[1] for n in sym.list_inputs()] == [n.rsplit("_", 1)[1] for n in R["inputs"]]
    return mx.nd.CachedOp(sym)


def test_outputs_and_gradients_as_mxnet():
    op = conv_op()
    data, weight, bias = mx.nd.array(R["x"]), mx.nd.array(R["w"]), mx.nd.array(R["b"])
    np.testing.assert_allclose(op(data, weight, bias).asnumpy(), R["y"], rtol=1e-5, atol=1e-5)
    out = mx.nd.zeros(R["y"].shape)
    assert op(data, weight, bias, out=out) is out
    np.testing.assert_allclose(out.asnumpy(), R["y"], rtol=1e-5, atol=1e-5)
    weight.attach_grad()
    bias.attach_grad()
    with mx.autograd.record():
        z = (op(data, weight, bias) ** 2).sum()
    z.backward()
    np.testing.assert_allclose(weight.grad.asnumpy(), R["dweight"], rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(bias.grad.asnumpy(), R["dbias"], rtol=1e-4, atol=1e-3)


def test_several_outputs_come_back_as_a_list():
    a = mx.sym.var("a")
    two = mx.sym.Group([mx.sym.relu(a), a * mx.sym.var("c")])
    assert two.list_inputs() == list(R["inputs2"])
    r, p = mx.nd.CachedOp(two)(mx.nd.array(R["x"][0]), mx.nd.array(R["x"][1]))
    np.testing.assert_allclose(r.asnumpy(), R["relu"])
    np.testing.assert_allclose(p.asnumpy(), R["prod"], rtol=1e-6)


def test_wrong_number_of_inputs_is_one_clear_error():
    with pytest.raises(mx.MXNetError, match="expected 3 inputs"):
        conv_op()(mx.nd.ones((1, 3, 5, 5)))
