"""The memory of a compiled training step: the backward writes the weight gradients into the
parameters' gradient buffers, runs each as soon as its output gradient exists (so that gradient's
buffer is reused), keeps the kernels' working arrays in its planned arena, and reports the
liveness bound of forward + backward (activations counted only while the backward needs them)."""
from __future__ import annotations

import re
import tracemalloc

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime import autograd, gluon
from hybridize.runtime.gluon import nn


def _convnet(channels: int = 64) -> nn.HybridSequential:
    net = nn.HybridSequential()
    for _ in range(3):
        net.add(nn.Conv2D(channels, 3, padding=1, in_channels=channels), nn.BatchNorm(in_channels=channels),
                nn.Activation("relu"))
    net.add(nn.Flatten(), nn.Dense(3))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    return net


def _loss(net, x, y):
    with autograd.record():
        return gluon.loss.SoftmaxCrossEntropyLoss()(net(x), y)


def _data(channels: int = 64):
    rng = np.random.default_rng(0)
    return mx.nd.array(rng.standard_normal((2, channels, 4, 4)).astype(np.float32)), mx.nd.array([0, 2])


@pytest.fixture(scope="module")
def net():
    """A hybridized convnet after one compiled training step (its programs built)."""
    net = _convnet()
    _loss(net, *_data()).backward()
    return net


def test_convolution_weight_gradients_land_in_the_parameters_buffers(net):
    x, y = _data()
    params = [p for p in net.collect_params().values() if p.grad_req != "null"]
    buffers = [p.grad()._data for p in params]
    loss = _loss(net, x, y)
    tracemalloc.start()
    loss.backward()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert all(p.grad()._data is b for p, b in zip(params, buffers))
    weight = net[0].weight.grad()._data
    assert peak < weight.nbytes        # neither a fresh weight-sized gradient nor its partial sums


def test_each_weight_gradient_runs_as_soon_as_its_output_gradient_exists(net):
    [(tp, _)] = net._cached_op.training_programs.values()
    steps = re.findall(r"^    # (\S+) ", tp.backward.code, flags=re.M)
    wgrads = [i for i, op in enumerate(steps) if op == "_hy_wgrad_nhwc"]
    bn_grads = [i for i, op in enumerate(steps) if op == "_hy_bn_train_bwd"]
    assert len(wgrads) == 3 and len(bn_grads) == 3
    # not all after the data-gradient chain: each before the next (shallower) layer's BatchNorm gradient
    assert wgrads[0] < bn_grads[1] and wgrads[1] < bn_grads[2]


def test_the_reported_bound_counts_activations_only_while_the_backward_reads_them(net):
    [(tp, _)] = net._cached_op.training_programs.values()
    m = tp.memory()
    fwd, bwd = tp.forward.stats["memory"], tp.backward.stats["memory"]
    planned = max(fwd["lower_bound_bytes"], bwd["lower_bound_bytes"])
    # the deepest activations die early in the backward: below every activation alive throughout
    assert planned <= m["lower_bound_bytes"] < m["saved_bytes"] + planned
    assert m["lower_bound_bytes"] <= m["peak_bytes"] == m["saved_bytes"] + max(fwd["peak_bytes"], bwd["peak_bytes"])
    assert len(bwd["live_bytes"]) == len(re.findall(r"^    # ", tp.backward.code, flags=re.M))
