"""Gluon parameters are autograd variables: ``loss.backward()`` under ``autograd.record()`` fills
``param.grad()``, the same for a hybridized block (its graph run op by op through the tape)."""
import numpy as np
import pytest
from hybridize.runtime import autograd, gluon
from hybridize.runtime import ndarray as nd


def _mlp(hybridize: bool):
    net = gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(gluon.nn.Dense(5, activation="tanh", in_units=6), gluon.nn.Dense(3, in_units=5))
    net.initialize()
    rng = np.random.RandomState(1)
    for p in net.collect_params().values():
        p.set_data(nd.array(rng.uniform(-1, 1, p.shape)))
    if hybridize:
        net.hybridize()
    return net


def _grads(net, x, y):
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    with autograd.record():
        loss = loss_fn(net(x), y)
    loss.backward()
    return {k: p.grad().asnumpy() for k, p in net.collect_params().items()}


def test_backward_fills_param_grad_and_hybridized_blocks_agree():
    x = nd.array(np.random.RandomState(2).uniform(-1, 1, (4, 6)))
    y = nd.array([0, 2, 1, 2])
    imperative = _grads(_mlp(False), x, y)
    hybrid_net = _mlp(True)
    hybrid_net(x)  # compiled once first: the recorded call must not take the compiled fast path
    hybrid = _grads(hybrid_net, x, y)
    for (ka, a), (kb, b) in zip(imperative.items(), hybrid.items()):
        assert np.abs(a).sum() > 0, ka
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=ka)


def test_grad_req_add_accumulates_and_zero_grad_resets():
    net = _mlp(False)
    x, y = nd.array(np.ones((2, 6))), nd.array([0, 1])
    once = _grads(net, x, y)
    for p in net.collect_params().values():
        p.grad_req = "add"
    _grads(net, x, y)
    twice = _grads(net, x, y)
    for k in once:
        np.testing.assert_allclose(twice[k], 2 * once[k], rtol=1e-5, atol=1e-6)
    net.collect_params().zero_grad()
    assert all(not p.grad().asnumpy().any() for p in net.collect_params().values())


def test_grad_req_null_parameters_get_no_buffer():
    net = _mlp(False)
    p = net[0].weight
    p.grad_req = "null"
    with pytest.raises(RuntimeError, match="grad_req='null'"):
        p.grad()
    x, y = nd.array(np.ones((2, 6))), nd.array([0, 1])
    grads = _grads_some(net, x, y)
    assert net[0].weight.name not in grads


def _grads_some(net, x, y):
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    with autograd.record():
        loss = loss_fn(net(x), y)
    loss.backward()
    return {k: p.grad().asnumpy() for k, p in net.collect_params().items() if p.grad_req != "null"}
