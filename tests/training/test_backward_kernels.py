"""The compiled backward's own convolution kernels (``_hy_conv_dgrad``, ``_hy_conv_wgrad``) equal the
registry's ``Convolution`` gradient computed in float64 on the tape, for every geometry they are
lowered for: strided, dilated, padded, grouped, 1-D to 3-D, one input channel."""
from __future__ import annotations

import types

import numpy as np
import pytest

from hybridize.runtime import autograd, nd
from hybridize.runtime.graph.kernels import grad as G

GEOMETRIES = [
    # (N, C, spatial, F, kernel, stride, dilate, pad, groups)
    (3, 4, (9, 10), 6, (3, 3), (2, 2), (1, 1), (1, 1), 1),
    (2, 4, (9, 9), 6, (3, 3), (1, 2), (2, 1), (2, 0), 2),
    (4, 6, (12, 12), 4, (5, 5), (1, 1), (1, 1), (0, 0), 1),     # LeNet's second convolution, smaller
    (3, 1, (10, 9), 3, (5, 5), (1, 1), (1, 1), (0, 0), 1),      # one input channel
    (2, 3, (11,), 4, (3,), (2,), (1,), (1,), 1),
    (2, 2, (5, 6, 5), 4, (3, 3, 3), (2, 1, 1), (1, 1, 1), (1, 1, 0), 2),
    # short output rows, many samples: the weight gradient's columns with the sample axis innermost
    (16, 3, (9, 9), 4, (3, 3), (2, 2), (1, 1), (1, 1), 1),
    (16, 2, (10,), 3, (3,), (1,), (2,), (1,), 1),
]


def _reference(x, w, g, kernel, stride, dilate, pad, groups):
    """(data, weight, bias) gradients of ``Convolution`` on the tape, float64."""
    X, W, B = nd.array(x, dtype="float64"), nd.array(w, dtype="float64"), nd.zeros((w.shape[0],), dtype="float64")
    for a in (X, W, B):
        a.attach_grad()
    with autograd.record():
        y = nd.Convolution(X, W, B, kernel=kernel, stride=stride, dilate=dilate, pad=pad, num_group=groups,
                           num_filter=w.shape[0])
    y.backward(nd.array(g, dtype="float64"))
    return X.grad.asnumpy(), W.grad.asnumpy(), B.grad.asnumpy()


@pytest.mark.parametrize("N,C,sp,F,kernel,stride,dilate,pad,groups", GEOMETRIES)
def test_data_and_weight_gradients_equal_the_tapes(N, C, sp, F, kernel, stride, dilate, pad, groups):
    rng = np.random.default_rng(N * C + F)
    x = rng.standard_normal((N, C) + sp).astype(np.float32)
    w = rng.standard_normal((F, C // groups) + kernel).astype(np.float32)
    osp = tuple((n + 2 * p - d * (k - 1) - 1) // s + 1 for n, p, d, k, s in zip(sp, pad, dilate, kernel, stride))
    g = rng.standard_normal((N, F) + osp).astype(np.float32)
    dx, dw, db = _reference(x, w, g, kernel, stride, dilate, pad, groups)
    a = types.SimpleNamespace(kernel=kernel, stride=stride, dilate=dilate, pad=pad, num_group=groups, no_bias=False)
    got_dx = G._dgrad(a, g, w, x)
    assert got_dx.dtype == np.float32 and got_dx.flags.c_contiguous
    np.testing.assert_allclose(got_dx, dx, rtol=1e-5, atol=1e-5 * np.abs(dx).max())
    got_dw, got_db = G._wgrad(a, g, x, w)
    assert got_dw.dtype == got_db.dtype == np.float32
    np.testing.assert_allclose(got_dw, dw, rtol=1e-5, atol=1e-5 * np.abs(dw).max())
    np.testing.assert_allclose(got_db, db, rtol=1e-5, atol=1e-5 * np.abs(db).max())
    # the output gradient handed over with the sample axis innermost (``_hy_samples_last``)
    s = types.SimpleNamespace(**vars(a), g_samples_last=True)
    np.testing.assert_array_equal(G._dgrad(s, G.samples_last(g), w, x), got_dx)
    if G.wgrad_samples_last(a, g.shape):
        got_dw, got_db = G._wgrad(s, G.samples_last(g), x, w)
        np.testing.assert_allclose(got_dw, dw, rtol=1e-5, atol=1e-5 * np.abs(dw).max())
        np.testing.assert_allclose(got_db, db, rtol=1e-5, atol=1e-5 * np.abs(db).max())
    if groups == 1 and len(sp) == 2:
        # the output gradient channels-last (a first convolution's, from an NHWC BatchNorm gradient)
        h = types.SimpleNamespace(**vars(a), g_nhwc=True)
        got_dw, got_db = G._wgrad(h, np.ascontiguousarray(np.moveaxis(g, 1, -1)), x, w)
        np.testing.assert_allclose(got_dw, dw, rtol=1e-5, atol=1e-5 * np.abs(dw).max())
        np.testing.assert_allclose(got_db, db, rtol=1e-5, atol=1e-5 * np.abs(db).max())


def test_few_channel_layers_of_a_training_program_stay_channel_first():
    """LeNet's 6-channel BatchNorm, max pooling and data gradient keep channel-first kernels
    (channels-last rows of 6 floats are slow); 32-channel ones go channels-last; the step's
    gradients equal the op-by-op tape's."""
    import hybridize.runtime as mx
    from hybridize.runtime import gluon
    from hybridize.runtime.gluon import nn

    def build():
        net = nn.HybridSequential()
        net.add(nn.Conv2D(6, 5, in_channels=1), nn.BatchNorm(in_channels=6), nn.Activation("relu"),
                nn.MaxPool2D(2), nn.Conv2D(32, 3, in_channels=6), nn.BatchNorm(in_channels=32),
                nn.Activation("relu"), nn.MaxPool2D(2), nn.Flatten(), nn.Dense(3, in_units=32))
        net.initialize(mx.init.Xavier())
        rng = np.random.default_rng(5)
        for p in net.collect_params().values():
            if p.name.endswith(("weight", "gamma")):
                p.set_data(mx.nd.array(rng.uniform(-0.5, 0.5, p.shape) + (1 if p.name.endswith("gamma") else 0)))
        return net
    rng = np.random.default_rng(6)
    x, y = mx.nd.array(rng.standard_normal((3, 1, 14, 14))), mx.nd.array([0, 2, 1])
    grads = []
    for hybrid in (False, True):
        net = build()
        if hybrid:
            net.hybridize()
        with autograd.record():
            loss = gluon.loss.SoftmaxCrossEntropyLoss()(net(x), y)
        loss.backward()
        grads.append([p.grad().asnumpy() for p in net.collect_params().values() if p.grad_req != "null"])
    [(tp, _)] = net._cached_op.training_programs.values()
    fwd, bwd = tp.forward.stats["layout"], tp.backward.stats["layout"]
    assert fwd["batchnorm_train"] == 1 and bwd["batchnorm_train_backward"] == 1
    assert bwd["maxpool_backward"] == 1 and "conv_dgrad" not in bwd
    # the 6-channel ones on the channel-first training kernels
    assert fwd["batchnorm_train_cf"] == 1 and bwd["batchnorm_train_backward_cf"] == 1
    assert bwd["maxpool_backward_cf"] == 1 and fwd["conv_cf"] == 1 and fwd["maxpool_cf"] == 1
    assert bwd["relu_into_maxpool_backward"] == 2       # relu's gradients in the pools' backward
    # the backward's channel-first kernels get contiguous 6-channel activations, not strided views
    # of channels-last arrays
    outs, saved = tp.run([x.asnumpy()])
    assert all(a.flags.c_contiguous for a in saved if a.ndim == 4 and a.shape[1] == 6)
    for a, b in zip(*grads):      # (a convolution's bias before BatchNorm: a zero gradient, rounding)
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=max(1e-6, 1e-5 * float(np.abs(a).max())))


def test_training_keeps_a_heap_pad_once_per_process(monkeypatch):
    """The first compiled training step asks glibc to keep 64 MiB at the top of the heap (each step
    frees and allocates the same arrays; without it they are page-faulted in again every step);
    ``HYBRIDIZE_HEAP_PAD=0`` leaves the allocator alone; it is asked once."""
    import sys

    from hybridize.runtime.graph import differentiate as D
    monkeypatch.setattr(D, "_heap_pad_done", False)
    monkeypatch.setenv("HYBRIDIZE_HEAP_PAD", "0")
    assert D.retain_heap() == 0
    monkeypatch.setattr(D, "_heap_pad_done", False)
    monkeypatch.delenv("HYBRIDIZE_HEAP_PAD")
    assert D.retain_heap() == (64 << 20 if sys.platform.startswith("linux") else 0)
    assert D.retain_heap() == 0
