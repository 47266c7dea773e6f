"""A compiled training step stays channels-last (NHWC) from the first convolution to the last
gradient: training-mode BatchNorm, its backward, max-pooling's backward and the convolutions'
weight and strided data gradients have NHWC kernels that compute what the registry's channel-first
kernels compute; the forward hands its saved activations to the backward as views of its NHWC
arrays (no transposes between the two programs)."""
from __future__ import annotations

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime import autograd, gluon
from hybridize.runtime.gluon import nn
from hybridize.runtime.graph.kernels import grad as G
from hybridize.runtime.graph.kernels import train as T
from hybridize.runtime.ops import nn_norm, nn_pool
from hybridize.runtime.ops.registry import find_op


def _nhwc(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a.transpose(0, 2, 3, 1))


def _nchw(a: np.ndarray) -> np.ndarray:
    return a.transpose(0, 3, 1, 2)


class _A:
    def __init__(self, **kw):
        self.__dict__.update(kw)


@pytest.mark.parametrize("fix_gamma", [False, True])
def test_batchnorm_training_forward_and_backward_equal_the_registry_kernels(fix_gamma):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((3, 5, 6, 7)) * 2 + 1).astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)
    gamma, beta = rng.standard_normal(5).astype(np.float32), rng.standard_normal(5).astype(np.float32)
    mm, mv = rng.standard_normal(5).astype(np.float32), rng.uniform(1, 2, 5).astype(np.float32)
    with autograd.train_mode():
        ref = nn_norm._batch_norm(find_op("BatchNorm").resolve({"fix_gamma": fix_gamma, "eps": 1e-5}),
                                  x, gamma, beta, mm, mv)
    got = T._bn_train(_A(eps=1e-5, fix_gamma=fix_gamma), _nhwc(x), gamma, beta, mm, mv)
    np.testing.assert_allclose(_nchw(got), ref, rtol=1e-5, atol=1e-6)
    battrs = find_op("_backward_BatchNorm").resolve({"fix_gamma": fix_gamma, "eps": 1e-5, "momentum": 0.8,
                                                     "is_train": True})
    mm1, mv1, mm2, mv2 = mm.copy(), mv.copy(), mm.copy(), mv.copy()
    ref = nn_norm._backward_batch_norm(battrs, g, x, gamma, beta, mm1, mv1)
    got = T._bn_train_bwd(_A(eps=1e-5, fix_gamma=fix_gamma, momentum=0.8), _nhwc(g), _nhwc(x), gamma, beta, mm2, mv2)
    np.testing.assert_allclose(_nchw(got[0]), ref[0], rtol=1e-4, atol=1e-6)
    for a, b in zip(got[1:], ref[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mm2, mm1, rtol=1e-6)        # moving statistics updated in place
    np.testing.assert_allclose(mv2, mv1, rtol=1e-6)


@pytest.mark.parametrize("kernel,stride,pad,convention", [((3, 3), (2, 2), (1, 1), "valid"), ((2, 2), (2, 2), (0, 0), "valid"),
                                                          ((3, 3), (2, 2), (0, 0), "full")])
def test_max_pooling_backward_sends_each_gradient_to_the_first_maximum(kernel, stride, pad, convention):
    rng = np.random.default_rng(1)
    x = np.maximum(rng.standard_normal((2, 3, 9, 8)), 0).astype(np.float32)     # ties: relu's zeros
    attrs = find_op("Pooling").resolve({"kernel": kernel, "stride": stride, "pad": pad, "pool_type": "max",
                                        "pooling_convention": convention})
    y = nn_pool._pooling(attrs, x)
    g = rng.standard_normal(y.shape).astype(np.float32)
    ref = nn_pool._backward_pooling(attrs, g, x, y)
    got = T._maxpool_bwd(_A(kernel=kernel, stride=stride, pad=pad), _nhwc(g), _nhwc(x), _nhwc(y))
    np.testing.assert_array_equal(_nchw(got), ref)


@pytest.mark.parametrize("shape,f,k,s,p,d", [((2, 5, 9, 9), 3, 3, 1, 1, 1), ((2, 4, 8, 7), 6, 3, 2, 1, 1),
                                             ((3, 4, 9, 9), 2, 3, 1, 2, 2), ((2, 6, 7, 7), 4, 1, 2, 0, 1)])
def test_convolution_weight_and_data_gradients_equal_the_channel_first_kernels(shape, f, k, s, p, d):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(np.float32)
    N, C, H, W = shape
    OH, OW = ((n + 2 * p - d * (k - 1) - 1) // s + 1 for n in (H, W))
    g = rng.standard_normal((N, f, OH, OW)).astype(np.float32)
    w = rng.standard_normal((f, C, k, k)).astype(np.float32)
    a = _A(kernel=(k, k), stride=(s, s), dilate=(d, d), pad=(p, p), num_group=1, no_bias=False)
    ref = G._wgrad(a, g, x, w)
    got = T._wgrad_nhwc(a, _nhwc(g), _nhwc(x), w)
    for r, o in zip(ref, got):
        np.testing.assert_allclose(o, r, rtol=1e-5, atol=1e-5)
    ref = G._dgrad(a, g, w, x)
    got = T._dgrad_nhwc(_A(kernel=(k, k), stride=(s, s), dilate=(d, d), pad=(p, p), data_shape=(N, H, W, C)),
                        _nhwc(g), w)
    np.testing.assert_allclose(_nchw(got), ref, rtol=1e-5, atol=1e-5)


def _net() -> nn.HybridSequential:
    net = nn.HybridSequential()
    # no biases before BatchNorm: their gradients are zero up to rounding
    # (32 channels: fewer on maps this small stay channel-first in training, see passes/layout.py)
    net.add(nn.Conv2D(32, 3, padding=1, in_channels=3, use_bias=False), nn.BatchNorm(in_channels=32),
            nn.Activation("relu"), nn.MaxPool2D(3, 2, 1),
            nn.Conv2D(32, 3, strides=2, padding=1, in_channels=32, use_bias=False), nn.BatchNorm(in_channels=32), nn.Activation("relu"), nn.Conv2D(16, 3, padding=1, in_channels=32),
            nn.Flatten(), nn.Dense(3, in_units=256))
    net.initialize(mx.init.Xavier())
    rng = np.random.default_rng(4)
    for p in net.collect_params().values():
        p.set_data(mx.nd.array(rng.uniform(-0.5, 0.5, p.shape)))
    net.hybridize()
    return net


def _step(net) -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    x, y = mx.nd.array(rng.standard_normal((2, 3, 16, 16))), mx.nd.array([0, 2])
    with autograd.record():
        loss = gluon.loss.SoftmaxCrossEntropyLoss()(net(x), y)
    loss.backward()
    return [loss.asnumpy()] + [p.grad().asnumpy() for p in net.collect_params().values() if p.grad_req != "null"] \
        + [p.data().asnumpy() for p in net.collect_params().values() if p.grad_req == "null"]


def test_the_nhwc_training_step_has_the_op_by_op_tapes_numbers(monkeypatch):
    compiled = _step(_net())
    monkeypatch.setenv("HYBRIDIZE_COMPILED_BACKWARD", "0")
    tape = _step(_net())
    for a, b in zip(tape, compiled):     # gradients, then the running statistics the backward updated
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5 * float(np.abs(a).max()))


def test_the_training_programs_pass_nhwc_activations_without_transposes():
    net = _net()
    _step(net)
    [(tp, _)] = net._cached_op.training_programs.values()
    fwd, bwd = tp.forward.stats["layout"], tp.backward.stats["layout"]
    assert fwd["batchnorm_train"] == 2 and bwd["batchnorm_train_backward"] == 2
    assert bwd["maxpool_backward"] == 1 and bwd["conv_wgrad"] == 2 and bwd["conv_dgrad"] == 1
    # forward: the data enters NHWC once, the flatten leaves it; the five saved activations of 32
    # channels are views (the flatten's 16-channel 4x4 input is saved as the NCHW array the flatten
    # reads), and the backward views back those it reads as tensors
    assert fwd["transposes"] == 2 and fwd["views"] == 5 and bwd["views"] == 5
    # backward: the flatten's gradient enters NHWC; the first convolution's weight gradient (3
    # input channels: channel-first columns) reads its output gradient channels-last, untransposed
    assert bwd["transposes"] == 1 and bwd["conv_wgrad_nhwc_ograd"] == 1


@pytest.mark.parametrize("shape,f,k,p,d", [((2, 5, 9, 9), 3, 3, 1, 1), ((2, 4, 9, 8), 6, 3, 2, 2), ((1, 3, 8, 8), 2, 1, 0, 1)])
@pytest.mark.parametrize("chunk_bytes", [None, 200])
def test_a_stride_one_weight_gradient_by_shifted_rows_equals_the_patches(shape, f, k, p, d, chunk_bytes, monkeypatch):
    """Large images take the shifted-rows GEMMs (no im2col), their padded rows a chunk at a time
    (chunks that end inside an image): the same gradient."""
    if chunk_bytes:
        monkeypatch.setattr(T, "_SHIFT_CHUNK_BYTES", chunk_bytes)
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape).astype(np.float32)
    N, C, H, W = shape
    OH, OW = (n + 2 * p - d * (k - 1) for n in (H, W))
    g = rng.standard_normal((N, f, OH, OW)).astype(np.float32)
    a = _A(kernel=(k, k), stride=(1, 1), dilate=(d, d), pad=(p, p), num_group=1, no_bias=True)
    ref = G._wgrad(a, g, x, np.zeros((f, C, k, k), np.float32))[0]
    fn, scratch = T._build_wgrad_shifted(_nhwc(x).shape, _nhwc(g).shape, (k, k), (d, d), (p, p), np.dtype(np.float32))
    got = np.empty((f, C, k, k), np.float32)
    # its scratch is a compiled program's arena, holding what other steps left there
    fn(_nhwc(g), _nhwc(x), got, [np.full(s, np.nan, dt) for s, dt in scratch])
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_a_training_program_rebinds_its_weight_transforms_in_place():
    """After an update the programs rebind: the new constants are written into the previous
    binding's arrays (the compiler's own, never a parameter's), with the values a fresh bind gives."""
    net = _net()
    _step(net)
    [(tp, _)] = net._cached_op.training_programs.values()
    params = {**tp.forward.params, **tp.backward.params}
    before = [id(c) for c in tp.forward._consts]
    for p in params.values():
        p *= np.float32(0.5)                                     # an update, in place
    tp.bind_params(params)
    after = tp.forward._consts
    derived = [c for c in after if not any(c is p for p in params.values())]    # not a parameter itself
    reused = [c for a, c in zip(before, after) if id(c) == a and any(c is d for d in derived)]
    assert len(reused) == 3                                       # the three convolutions' weight re-layouts
    assert all(not np.shares_memory(c, p) for c in reused for p in params.values())
    for a, b in zip(after, tp.forward._prologue(params)):         # a fresh bind's values
        np.testing.assert_array_equal(a, b)
