"""Few-channel layers of a compiled training step at a batch of 16 or more (LeNet's at 64) run
samples-last, ``(C, H, W, N)`` (``kernels/train_sl.py``): a convolution and its weight and data
gradients, BatchNorm's training forward and backward, a max pool whose windows tile the input and
its backward. They compute what the registry's kernels compute; a training step through them has
the op-by-op tape's gradients."""
from __future__ import annotations

import numpy as np
import pytest

from hybridize.runtime import autograd
from hybridize.runtime.graph.kernels import train as T
from hybridize.runtime.graph.kernels import train_sl as S
from hybridize.runtime.ops import nn_pool
from hybridize.runtime.ops.registry import find_op


class _A:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def sl(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a.transpose(S.TO_SL))


def nchw(a: np.ndarray) -> np.ndarray:
    return a.transpose(S.FROM_SL)


@pytest.mark.parametrize("shape,f,k,s,p,d,bias", [((5, 1, 12, 11), 6, 5, 1, 0, 1, True), ((3, 2, 9, 9), 4, 3, 2, 1, 1, False),
                                                  ((2, 3, 10, 10), 5, 3, 1, 2, 2, True)])
def test_samples_last_convolution_and_its_gradients_equal_the_registry_kernels(shape, f, k, s, p, d, bias, monkeypatch):
    """Output and data gradient term for term (the same sums in the same order); the weight and
    bias gradients to rounding. Columns in several row (and channel) blocks (their size limit lowered)."""
    monkeypatch.setattr(S, "_COLS_BYTES", 256)
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((f, shape[1], k, k)).astype(np.float32)
    b = rng.standard_normal(f).astype(np.float32)
    conv, bconv = find_op("Convolution"), find_op("_backward_Convolution")
    attrs = conv.resolve({"kernel": (k, k), "stride": (s, s), "pad": (p, p), "dilate": (d, d), "num_filter": f,
                          "no_bias": not bias})
    args = (x, w, b) if bias else (x, w)
    ref = conv.compute(attrs, *args)
    ref = ref[0] if isinstance(ref, (list, tuple)) else ref
    a = _A(kernel=(k, k), stride=(s, s), pad=(p, p), dilate=(d, d), num_filter=f, no_bias=not bias,
           data_shape=sl(x).shape)
    np.testing.assert_allclose(nchw(S._conv_sl(a, sl(x), *args[1:])), ref, rtol=1e-6, atol=1e-6)
    g = rng.standard_normal(ref.shape).astype(np.float32)
    dx, dw, *db = bconv.compute(attrs, g, *args)
    np.testing.assert_allclose(nchw(S._dgrad_sl(a, sl(g), w)), dx, rtol=1e-6, atol=1e-6)
    got = S._wgrad_sl(a, sl(g), sl(x), w)
    np.testing.assert_allclose(got[0], dw, rtol=1e-5, atol=1e-5 * np.abs(dw).max())
    if bias:
        np.testing.assert_allclose(got[1], db[0], rtol=1e-5, atol=1e-5 * np.abs(db[0]).max())


@pytest.mark.parametrize("shape,kernel", [((3, 2, 8, 6), (2, 2)), ((3, 2, 9, 7), (2, 2)), ((2, 3, 9, 6), (3, 3))])
@pytest.mark.parametrize("relu", [False, True])
def test_samples_last_max_pool_and_its_backward_equal_the_registry_kernels(shape, kernel, relu):
    """Ties (relu's zeros) go to the window's first maximum; rows and columns no window reads get
    zeros; a NaN maximum takes the registry's rule; relu's gradient fused as the two registry kernels."""
    rng = np.random.default_rng(1)
    x = np.maximum(rng.standard_normal(shape), 0).astype(np.float32)
    x[0, 0, 0, 0] = np.nan
    attrs = find_op("Pooling").resolve({"kernel": kernel, "stride": kernel, "pool_type": "max"})
    for data in (x, np.nan_to_num(x)):
        y = nn_pool._pooling(attrs, data)
        np.testing.assert_array_equal(nchw(S._maxpool_sl(_A(kernel=kernel), sl(data))), y)
        g = rng.standard_normal(y.shape).astype(np.float32)
        ref = nn_pool._backward_pooling(attrs, g, data, y)
        if relu:
            ref = ref * (data > 0)
        got = S._maxpool_bwd_sl(_A(kernel=kernel, relu=relu), sl(g), sl(data), sl(y))
        np.testing.assert_array_equal(nchw(got), ref)


@pytest.mark.parametrize("fix_gamma", [False, True])
@pytest.mark.parametrize("chunk", [1 << 20, 1], ids=["one chunk", "a channel a chunk"])
def test_samples_last_batchnorm_training_equals_the_channel_first_kernels(fix_gamma, chunk, monkeypatch):
    monkeypatch.setattr(S, "_BN_CHUNK_BYTES", chunk)
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((5, 3, 6, 7)) * 2 + 1).astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)
    gamma, beta = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    a = _A(eps=1e-5, fix_gamma=fix_gamma, momentum=0.8)
    ref = T._bn_train_cf(a, x, gamma, beta, None, None)
    np.testing.assert_allclose(nchw(S._bn_train_sl(a, sl(x), gamma, beta, None, None)), ref, rtol=1e-5, atol=1e-5)
    relu = _A(eps=1e-5, fix_gamma=fix_gamma, act=("relu",))           # a following relu fused
    np.testing.assert_allclose(nchw(S._bn_train_sl(relu, sl(x), gamma, beta, None, None)), np.maximum(ref, 0),
                               rtol=1e-5, atol=1e-5)
    stats = [rng.standard_normal(3).astype(np.float32), rng.uniform(1, 2, 3).astype(np.float32)]
    stats_cf = [s.copy() for s in stats]
    got = S._bn_train_bwd_sl(a, sl(g), sl(x), gamma, beta, *stats)
    ref = T._bn_train_bwd_cf(a, g, x, gamma, beta, *stats_cf)
    np.testing.assert_allclose(nchw(got[0]), ref[0], rtol=1e-4, atol=1e-5)
    for u, v in zip(list(got[1:]) + stats, list(ref[1:]) + stats_cf):
        np.testing.assert_allclose(u, v, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape,kernel", [((3, 2, 8, 6), (2, 2)), ((2, 3, 9, 6), (3, 3))])
@pytest.mark.parametrize("relu", [False, True])
def test_max_pool_backward_from_the_forwards_taps_equals_the_registry_kernel(shape, kernel, relu):
    """The forward records each window's first maximum (ties: relu's zeros; a NaN window: its first
    NaN, the registry's argmax), the backward scatters by it: the registry kernel's gradient, without
    the pool's input."""
    rng = np.random.default_rng(1)
    x = np.maximum(rng.standard_normal(shape), 0).astype(np.float32)
    x[0, 0, 0, 0] = x[1, 1, 1, 1] = x[1, 1, 0, 0] = np.nan
    attrs = find_op("Pooling").resolve({"kernel": kernel, "stride": kernel, "pool_type": "max"})
    for data in (x, np.nan_to_num(x)):
        y = nn_pool._pooling(attrs, data)
        g = rng.standard_normal(y.shape).astype(np.float32)
        ref = nn_pool._backward_pooling(attrs, g, data, y)
        if relu:
            ref = ref * (data > 0)
        taps = S._pool_taps(_A(kernel=kernel), data, y)
        assert taps.dtype == np.int8
        np.testing.assert_array_equal(S._maxpool_bwd_taps(_A(kernel=kernel, relu=relu), g, taps, y), ref)
        got = S._maxpool_bwd_taps_sl(_A(kernel=kernel, relu=relu), sl(g), S._pool_taps_sl(_A(kernel=kernel), sl(data), sl(y)),
                                     sl(y))
        np.testing.assert_array_equal(nchw(got), ref)


def test_a_lenet_training_step_at_batch_16_runs_samples_last_with_the_tapes_gradients():
    """Both convolutions, BatchNorms and pools and their gradients samples-last (one transpose in, one
    out at the flatten, and their gradients'), relus in the BatchNorms' forward; the pools' backward
    (and the relus') from the taps the forward recorded, so the relus' outputs are not saved; the
    gradients equal the op-by-op tape's."""
    import hybridize.runtime as mx
    from hybridize.runtime import gluon
    from hybridize.runtime.gluon import nn

    rng = np.random.default_rng(6)
    x, y = mx.nd.array(rng.standard_normal((16, 1, 14, 14))), mx.nd.array(rng.integers(0, 3, 16))
    grads = []
    for hybrid in (False, True):
        net = nn.HybridSequential()
        net.add(nn.Conv2D(4, 3, in_channels=1), nn.BatchNorm(in_channels=4), nn.Activation("relu"), nn.MaxPool2D(2),
                nn.Conv2D(8, 3, in_channels=4), nn.BatchNorm(in_channels=8), nn.Activation("relu"), nn.MaxPool2D(2),
                nn.Flatten(), nn.Dense(3, in_units=32))
        net.initialize(mx.init.Xavier())
        prng = np.random.default_rng(5)
        for p in net.collect_params().values():
            if p.name.endswith(("weight", "gamma")):
                p.set_data(mx.nd.array(prng.uniform(-0.5, 0.5, p.shape) + (1 if p.name.endswith("gamma") else 0)))
        if hybrid:
            net.hybridize()
        with autograd.record():
            loss = gluon.loss.SoftmaxCrossEntropyLoss()(net(x), y)
        loss.backward()
        grads.append([p.grad().asnumpy() for p in net.collect_params().values() if p.grad_req != "null"])
    [(tp, _)] = net._cached_op.training_programs.values()
    fwd, bwd = tp.forward.stats["layout"], tp.backward.stats["layout"]
    assert fwd["conv_sl"] == 2 and fwd["batchnorm_train_sl"] == 2 and fwd["maxpool_sl"] == 2
    assert fwd["transposes"] == 2 and tp.forward.stats["fuse"]["activation"] == 2 and fwd["pool_taps_sl"] == 2
    assert bwd["batchnorm_train_backward_sl"] == 2 and bwd["maxpool_backward_taps_sl"] == 2
    assert bwd["conv_wgrad_sl"] == 2 and bwd["conv_dgrad_sl"] == 1
    saved = [tp.spec.shapes[n] for n in tp.spec.saved_names if tp.spec.dtypes[n] == np.float32]
    assert saved.count((16, 4, 12, 12)) == 1 and saved.count((16, 8, 4, 4)) == 1     # the convolutions' outputs
    for a, b in zip(*grads):      # (a convolution's bias before BatchNorm: a zero gradient, rounding: ~1e-6)
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=max(5e-6, 1e-5 * float(np.abs(a).max())))
