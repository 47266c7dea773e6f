"""Few-channel layers of a compiled training step (LeNet's 6-channel ones) run channel-first kernels
(``kernels/train.py``: a convolution of few filters, BatchNorm's training forward and backward, a max
pool whose windows tile the input and its backward), samples in chunks (on the thread pool when
large): they compute what the registry's kernels compute."""
from __future__ import annotations

import numpy as np
import pytest

from hybridize.runtime import autograd
from hybridize.runtime.graph.kernels import parallel
from hybridize.runtime.graph.kernels import train as T
from hybridize.runtime.ops import nn_norm, nn_pool
from hybridize.runtime.ops.registry import find_op


class _A:
    def __init__(self, **kw):
        self.__dict__.update(kw)


@pytest.fixture(params=[1, 2], ids=["one thread", "two threads"])
def threads(request, monkeypatch):
    """Both the one-chunk path and the split one (tiny inputs: the split threshold lowered)."""
    monkeypatch.setattr(parallel, "num_threads", lambda: request.param)
    monkeypatch.setattr(T, "num_threads", lambda: request.param)
    monkeypatch.setattr(T, "_CF_MIN_WORK", 0)
    return request.param


@pytest.mark.parametrize("fix_gamma", [False, True])
def test_channel_first_batchnorm_training_equals_the_registry_kernels(fix_gamma, threads):
    """Against the registry kernels run in float64."""
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((5, 3, 6, 7)) * 2 + 1).astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)
    gamma, beta = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    mm, mv = rng.standard_normal(3).astype(np.float32), rng.uniform(1, 2, 3).astype(np.float32)
    f64 = [a.astype(np.float64) for a in (g, x, gamma, beta, mm, mv)]
    with autograd.train_mode():
        ref = nn_norm._batch_norm(find_op("BatchNorm").resolve({"fix_gamma": fix_gamma, "eps": 1e-5}), *f64[1:])
    got = T._bn_train_cf(_A(eps=1e-5, fix_gamma=fix_gamma), x, gamma, beta, mm, mv)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
    battrs = find_op("_backward_BatchNorm").resolve({"fix_gamma": fix_gamma, "eps": 1e-5, "momentum": 0.8,
                                                     "is_train": True})
    mm2, mv2 = mm.copy(), mv.copy()
    ref = nn_norm._backward_batch_norm(battrs, *f64)
    got = T._bn_train_bwd_cf(_A(eps=1e-5, fix_gamma=fix_gamma, momentum=0.8), g, x, gamma, beta, mm2, mv2)
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-4, atol=1e-6)
    for a, b in zip(got[1:], ref[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mm2, f64[4], rtol=1e-6)      # moving statistics updated in place
    np.testing.assert_allclose(mv2, f64[5], rtol=1e-6)
    dx = g.copy()                                          # d data over the output gradient
    T.bn_train_bwd_cf_into(_A(eps=1e-5, fix_gamma=fix_gamma, momentum=0.8), dx, x, gamma, beta, mm, mv, dx)
    np.testing.assert_allclose(dx, ref[0], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("shape,kernel", [((3, 2, 8, 6), (2, 2)), ((3, 2, 9, 7), (2, 2)), ((2, 3, 9, 6), (3, 3))])
def test_max_pool_backward_over_tiling_windows_equals_the_registry_kernel(shape, kernel, threads):
    """Ties (relu's zeros) go to the window's first maximum; rows and columns no window reads
    (9 rows, 2x2 windows) get zeros; a NaN maximum takes the registry's rule."""
    rng = np.random.default_rng(1)
    x = np.maximum(rng.standard_normal(shape), 0).astype(np.float32)
    x[0, 0, 0, 0] = np.nan
    attrs = find_op("Pooling").resolve({"kernel": kernel, "stride": kernel, "pool_type": "max"})
    for data in (x, np.nan_to_num(x)):
        y = nn_pool._pooling(attrs, data)
        g = rng.standard_normal(y.shape).astype(np.float32)
        ref = nn_pool._backward_pooling(attrs, g, data, y)
        np.testing.assert_array_equal(T._maxpool_bwd_cf(_A(kernel=kernel), g, data, y), ref)


@pytest.mark.parametrize("shape,f,k,s,p,d,bias", [((5, 1, 12, 11), 6, 5, 1, 0, 1, True), ((3, 2, 9, 9), 4, 3, 2, 1, 1, False),
                                                  ((2, 3, 10, 10), 5, 3, 1, 2, 2, True)])
def test_channel_first_convolution_of_few_filters_equals_the_registry_kernel(shape, f, k, s, p, d, bias):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((f, shape[1], k, k)).astype(np.float32)
    b = rng.standard_normal(f).astype(np.float32)
    conv = find_op("Convolution")
    attrs = conv.resolve({"kernel": (k, k), "stride": (s, s), "pad": (p, p), "dilate": (d, d), "num_filter": f,
                          "no_bias": not bias})
    ref = conv.compute(attrs, x, w, b) if bias else conv.compute(attrs, x, w)
    ref = ref[0] if isinstance(ref, (list, tuple)) else ref
    a = _A(kernel=(k, k), stride=(s, s), pad=(p, p), dilate=(d, d), num_filter=f, no_bias=not bias)
    got = T._conv_cf(a, x, w, b) if bias else T._conv_cf(a, x, w)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape,kernel", [((3, 2, 8, 6), (2, 2)), ((3, 2, 9, 7), (2, 2)), ((2, 3, 9, 6), (3, 3))])
def test_channel_first_max_pool_over_tiling_windows_equals_the_registry_kernel(shape, kernel, threads):
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    x[0, 1, 2, 3] = np.nan
    attrs = find_op("Pooling").resolve({"kernel": kernel, "stride": kernel, "pool_type": "max"})
    np.testing.assert_array_equal(T._maxpool_cf(_A(kernel=kernel), x), nn_pool._pooling(attrs, x))


@pytest.mark.parametrize("train_mode", [True, False])
def test_a_few_channel_training_step_has_the_tapes_gradients(train_mode):
    """Hybridized (channel-first kernels) as imperative, in training mode and after an inference-mode
    forward (``record(train_mode=False)``: BatchNorm's backward then reads the moving statistics, so
    it keeps the registry kernel)."""
    import hybridize.runtime as mx
    from hybridize.runtime import gluon
    from hybridize.runtime.gluon import nn

    rng = np.random.default_rng(7)
    x, y = mx.nd.array(rng.standard_normal((4, 1, 10, 10))), mx.nd.array([0, 1, 2, 1])
    grads = []
    for hybrid in (False, True):
        net = nn.HybridSequential()
        net.add(nn.Conv2D(4, 3, in_channels=1, use_bias=False), nn.BatchNorm(in_channels=4), nn.Activation("relu"),
                nn.MaxPool2D(2), nn.Flatten(), nn.Dense(3, in_units=64))
        net.initialize(mx.init.Xavier(), force_reinit=True)
        for p in net.collect_params().values():
            if p.name.endswith(("weight", "gamma", "running_mean")):
                p.set_data(mx.nd.array(np.random.default_rng(8).uniform(-0.5, 0.5, p.shape) + p.name.endswith("gamma")))
        if hybrid:
            net.hybridize()
        with autograd.record(train_mode=train_mode):
            loss = gluon.loss.SoftmaxCrossEntropyLoss()(net(x), y)
        loss.backward()
        grads.append([p.grad().asnumpy() for p in net.collect_params().values() if p.grad_req != "null"])
    for a, b in zip(*grads):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=max(1e-6, 1e-5 * float(np.abs(a).max())))


@pytest.mark.parametrize("layout", ["channel first", "channels last"])
def test_relus_gradient_fused_into_the_max_pools_backward(layout):
    """``relu -> MaxPool``: the pool's backward applies relu's gradient to its output gradient (the tap
    a gradient goes to holds the window's maximum, relu's output), as the two registry kernels."""
    rng = np.random.default_rng(4)
    x = np.maximum(rng.standard_normal((3, 2, 8, 6)), 0).astype(np.float32)       # relu's output
    attrs = find_op("Pooling").resolve({"kernel": (2, 2), "stride": (2, 2), "pool_type": "max"})
    y = nn_pool._pooling(attrs, x)
    g = rng.standard_normal(y.shape).astype(np.float32)
    ref = nn_pool._backward_pooling(attrs, g, x, y) * (x > 0)
    if layout == "channel first":
        got = T._maxpool_bwd_cf(_A(kernel=(2, 2), relu=True), g, x, y)
    else:
        def nhwc(a):
            return np.ascontiguousarray(a.transpose(0, 2, 3, 1))
        got = T._maxpool_bwd(_A(kernel=(2, 2), stride=(2, 2), pad=(0, 0), relu=True), nhwc(g), nhwc(x), nhwc(y))
        got = got.transpose(0, 3, 1, 2)
    np.testing.assert_array_equal(got, ref)
