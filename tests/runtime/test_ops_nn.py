"""The neural-network operators beyond the MXNet fixture cases: kernels against independent
reference implementations, MXNet's edge cases (pooling 'full'/'same', groups, 3-D), training
mode, and shape inference completing deferred parameter shapes (Gluon's ``in_units=0``)."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from hybridize.runtime import MXNetError, autograd, nd, sym
from hybridize.runtime.ops.registry import get_op

RNG = np.random.default_rng(0)


def rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def close(a, b, rtol=1e-4, atol=1e-5):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), rtol=rtol, atol=atol)


# -- references ----------------------------------------------------------------------------------
def ref_conv(x, w, b, stride, pad, dil, g):
    """Direct convolution: a loop over groups and kernel taps, float64."""
    N, C = x.shape[:2]
    F = w.shape[0]
    kernel = w.shape[2:]
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(p, p) for p in pad])
    osp = [(xp.shape[2 + i] - dil[i] * (k - 1) - 1) // stride[i] + 1 for i, k in enumerate(kernel)]
    out = np.zeros([N, F] + osp)
    cg, fg = C // g, F // g
    for gi in range(g):
        for tap in itertools.product(*(range(k) for k in kernel)):
            sl = tuple(slice(t * d, t * d + s * (o - 1) + 1, s) for t, d, s, o in zip(tap, dil, stride, osp))
            patch = xp[(slice(None), slice(gi * cg, (gi + 1) * cg)) + sl]
            wt = w[(slice(gi * fg, (gi + 1) * fg), slice(None)) + tap].astype(np.float64)
            out[:, gi * fg:(gi + 1) * fg] += np.einsum("nc...,fc->nf...", patch, wt)
    if b is not None:
        out += b.reshape((1, F) + (1,) * len(kernel))
    return out


def ref_pool(x, kernel, stride, pad, pool_type, convention="valid", include_pad=True, p_value=1):
    """MXNet's pool.h, position by position (small inputs only)."""
    sp = x.shape[2:]
    if convention == "valid":
        osp = [1 + (n + 2 * p - k) // s for n, k, s, p in zip(sp, kernel, stride, pad)]
    elif convention == "full":
        osp = [1 + math.ceil((n + 2 * p - k) / s) for n, k, s, p in zip(sp, kernel, stride, pad)]
    else:
        osp = [math.ceil((n + 2 * p) / s) for n, s, p in zip(sp, stride, pad)]
    out = np.zeros(x.shape[:2] + tuple(osp))
    for pos in itertools.product(*(range(o) for o in osp)):
        starts = [o * s - p for o, s, p in zip(pos, stride, pad)]
        if pool_type == "max":
            ends = [min(st + k, n) for st, k, n in zip(starts, kernel, sp)]
        else:
            ends = [min(st + k, n + p) for st, k, n, p in zip(starts, kernel, sp, pad)]
        size = int(np.prod([e - st for e, st in zip(ends, starts)]))
        starts = [max(st, 0) for st in starts]
        ends = [min(e, n) for e, n in zip(ends, sp)]
        if not include_pad:
            size = int(np.prod([e - st for e, st in zip(ends, starts)]))
        win = x[(Ellipsis,) + tuple(slice(a, b) for a, b in zip(starts, ends))].astype(np.float64)
        win = win.reshape(x.shape[:2] + (-1,))
        if pool_type == "max":
            v = win.max(-1)
        elif pool_type == "avg":
            v = win.sum(-1) / size
        elif pool_type == "sum":
            v = win.sum(-1)
        else:
            v = (win ** p_value).sum(-1) ** (1.0 / p_value)
        out[(Ellipsis,) + pos] = v
    return out


# -- convolution ------------------------------------------------------------------------------------
CONV_CASES = [
    # shape, F, kernel, stride, pad, dilate, groups
    ((2, 4, 9, 9), 6, (3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((2, 4, 9, 9), 6, (3, 3), (2, 2), (1, 1), (1, 1), 2),
    ((1, 3, 8, 10), 4, (2, 3), (2, 1), (0, 2), (2, 1), 1),
    ((2, 4, 8, 8), 4, (1, 1), (1, 1), (0, 0), (1, 1), 1),          # 1x1 -> plain matmul
    ((2, 4, 8, 8), 6, (1, 1), (2, 2), (0, 0), (1, 1), 2),          # strided grouped 1x1
    ((1, 4, 20, 20), 4, (3, 3), (1, 1), (1, 1), (1, 1), 4),        # depthwise, flat stride-1 path
    ((1, 4, 20, 20), 4, (3, 3), (2, 2), (1, 1), (1, 1), 4),        # depthwise, strided path
    ((1, 4, 20, 20), 8, (3, 3), (1, 1), (2, 2), (2, 2), 4),        # depthwise multiplier 2, dilated
    ((2, 3, 7, 7), 6, (3, 3), (1, 1), (1, 1), (1, 1), 3),          # depthwise, small (channel-last path)
    ((2, 3, 11), 5, (3,), (2,), (1,), (1,), 1),                    # 1-D
    ((1, 2, 5, 6, 7), 4, (3, 2, 3), (1, 2, 1), (1, 0, 1), (1, 1, 2), 2),  # 3-D grouped
]


@pytest.mark.parametrize("shape,F,kernel,stride,pad,dil,g", CONV_CASES)
def test_convolution_matches_direct_reference(shape, F, kernel, stride, pad, dil, g):
    x = rand(*shape)
    w = rand(F, shape[1] // g, *kernel)
    b = rand(F)
    y = nd.Convolution(nd.array(x), nd.array(w), nd.array(b), kernel=kernel, stride=stride, pad=pad,
                       dilate=dil, num_filter=F, num_group=g)
    assert y.dtype == np.float32
    close(y.asnumpy(), ref_conv(x, w, b, stride, pad, dil, g))


def test_convolution_prepared_kernel_reuses_padding_buffer():
    op = get_op("Convolution")
    attrs = op.resolve(op.coerce_attrs(dict(kernel=(3, 3), pad=(1, 1), num_filter=4, no_bias=True)))
    run = op.kernel(attrs, [(1, 3, 6, 6), (4, 3, 3, 3)], [np.float32, np.float32])
    w = rand(4, 3, 3, 3)
    for _ in range(2):  # the second call must not see the first call's data
        x = rand(1, 3, 6, 6)
        close(run(x, w), ref_conv(x, w, None, (1, 1), (1, 1), (1, 1), 1))


def test_convolution_channel_last_layout():
    x = rand(2, 7, 7, 4)                      # NHWC
    w = rand(6, 3, 3, 4)                      # (F, kh, kw, C)
    y = nd.Convolution(nd.array(x), nd.array(w), kernel=(3, 3), pad=(1, 1), num_filter=6, no_bias=True,
                       layout="NHWC").asnumpy()
    ref = ref_conv(x.transpose(0, 3, 1, 2), w.transpose(0, 3, 1, 2), None, (1, 1), (1, 1), (1, 1), 1)
    close(y, ref.transpose(0, 2, 3, 1))


@pytest.mark.parametrize("shape,C,F,kernel,stride,pad,adj,dil,g", [
    ((1, 4, 5, 5), 4, 6, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), 2),
    ((2, 2, 4, 6), 2, 3, (4, 3), (2, 3), (1, 0), (0, 2), (1, 1), 1),
    ((1, 3, 5, 5), 3, 3, (3, 3), (1, 1), (2, 2), (0, 0), (2, 2), 3),
    ((2, 2, 7), 2, 4, (3,), (2,), (1,), (1,), (1,), 2),
])
def test_deconvolution_is_the_adjoint_of_convolution(shape, C, F, kernel, stride, pad, adj, dil, g):
    x = rand(*shape)
    w = rand(C, F // g, *kernel)
    y = nd.Deconvolution(nd.array(x), nd.array(w), kernel=kernel, stride=stride, pad=pad, adj=adj, dilate=dil,
                         num_filter=F, num_group=g).asnumpy()
    out_sp = [s * (n - 1) + d * (k - 1) + 1 - 2 * p + a
              for n, k, s, p, a, d in zip(shape[2:], kernel, stride, pad, adj, dil)]
    assert y.shape == (shape[0], F) + tuple(out_sp)
    u = rand(*y.shape)
    conv_u = ref_conv(u, w, None, stride, pad, dil, g)        # conv: F -> C channels
    assert conv_u.shape == x.shape
    close(np.sum(conv_u * x), np.sum(u.astype(np.float64) * y), rtol=1e-4, atol=1e-3)


def test_deconvolution_target_shape_and_bias():
    x, w, b = rand(1, 3, 4, 4), rand(3, 2, 3, 3), rand(2)
    y = nd.Deconvolution(nd.array(x), nd.array(w), nd.array(b), kernel=(3, 3), stride=(2, 2),
                         target_shape=(8, 8), num_filter=2, no_bias=False)
    assert y.shape == (1, 2, 8, 8)
    # MXNet's rule: pad = ceil((s*(n-1) + k - target) / 2), adj = (s*(n-1) + k - target) % 2
    z = nd.Deconvolution(nd.array(x), nd.array(w), nd.array(b), kernel=(3, 3), stride=(2, 2), pad=(1, 1),
                         adj=(1, 1), num_filter=2, no_bias=False)
    close(y.asnumpy(), z.asnumpy())


# -- pooling ----------------------------------------------------------------------------------------
POOL_CASES = [
    # shape, kernel, stride, pad, type, convention, include_pad, p
    ((2, 3, 9, 9), (3, 3), (2, 2), (1, 1), "max", "valid", True, 1),
    ((2, 3, 10, 10), (3, 3), (2, 2), (1, 1), "max", "full", True, 1),
    ((2, 3, 10, 10), (3, 3), (2, 2), (1, 1), "avg", "full", True, 1),
    ((2, 3, 10, 10), (3, 3), (2, 2), (1, 1), "avg", "full", False, 1),
    ((1, 2, 7, 8), (2, 3), (2, 2), (1, 1), "sum", "valid", True, 1),
    ((1, 2, 7, 8), (2, 2), (2, 2), (0, 0), "lp", "valid", True, 2),
    # 'same': MXNet 1.9.1 checks pad[0], pad[1] and pad[2] are 0, so a shorter pad fails there
    ((1, 2, 11), (3,), (2,), (0, 0, 0), "max", "same", True, 1),
    ((1, 2, 11), (3,), (2,), (0, 0, 0), "avg", "same", True, 1),
    ((1, 2, 5, 6, 7), (2, 3, 2), (2, 2, 1), (1, 1, 0), "avg", "valid", True, 1),
    ((1, 2, 5, 6, 7), (3, 3, 3), (2, 2, 2), (1, 1, 1), "max", "full", True, 1),
    ((1, 2, 14, 14), (6, 6), (4, 4), (1, 1), "avg", "full", False, 1),   # > 25 taps: window-view path
]


@pytest.mark.parametrize("shape,kernel,stride,pad,ptype,conv,include,p", POOL_CASES)
def test_pooling_matches_mxnet_pool_h(shape, kernel, stride, pad, ptype, conv, include, p):
    x = rand(*shape)
    kw = dict(kernel=kernel, stride=stride, pad=pad, pool_type=ptype, pooling_convention=conv,
              count_include_pad=include)
    if ptype == "lp":
        kw["p_value"] = p
        x = np.abs(x)
    y = nd.Pooling(nd.array(x), **kw)
    ref = ref_pool(x, kernel, stride, pad, ptype, conv, include, p)
    assert y.shape == ref.shape
    close(y.asnumpy(), ref)


def test_pooling_output_sizes_follow_mxnet_formulas():
    s = sym.Pooling(sym.var("x"), kernel=(3, 3), stride=(2, 2), pooling_convention="full", name="p")
    assert s.infer_shape(x=(1, 1, 10, 10))[1] == [(1, 1, 5, 5)]    # 1 + ceil(7/2)
    s = sym.Pooling(sym.var("x"), kernel=(3, 3), stride=(2, 2), name="p")
    assert s.infer_shape(x=(1, 1, 10, 10))[1] == [(1, 1, 4, 4)]    # 1 + 7//2
    s = sym.Pooling(sym.var("x"), kernel=(3,), stride=(2,), pad=(0, 0, 0), pooling_convention="same", name="p")
    assert s.infer_shape(x=(1, 1, 11))[1] == [(1, 1, 6)]           # ceil(11/2)
    s = sym.Pooling(sym.var("x"), kernel=(1, 1), global_pool=True, pool_type="avg", name="p")
    assert s.infer_shape(x=(2, 3, 5, 7))[1] == [(2, 3, 1, 1)]


def test_global_pooling_ignores_kernel_and_pad():
    x = rand(2, 3, 5, 7)
    close(nd.Pooling(nd.array(x), kernel=(3, 3), pad=(1, 1), global_pool=True, pool_type="max").asnumpy(),
          x.max(axis=(2, 3), keepdims=True))
    close(nd.Pooling(nd.array(x), global_pool=True, pool_type="sum", kernel=(1, 1)).asnumpy(),
          x.sum(axis=(2, 3), keepdims=True))


# -- normalization ----------------------------------------------------------------------------------
def test_batchnorm_training_mode_uses_batch_statistics():
    x = rand(4, 3, 5, 5) * 3 + 1
    gamma, beta = rand(3), rand(3)
    mm, mv = rand(3), np.abs(rand(3)) + 0.5
    args = [nd.array(a) for a in (x, gamma, beta, mm, mv)]
    with autograd.train_mode():
        y = nd.BatchNorm(*args, fix_gamma=False, eps=1e-5).asnumpy()
        y_global = nd.BatchNorm(*args, fix_gamma=False, eps=1e-5, use_global_stats=True).asnumpy()
    mean = x.mean(axis=(0, 2, 3), keepdims=True)
    var = x.var(axis=(0, 2, 3), keepdims=True)
    ref = (x - mean) / np.sqrt(var + 1e-5) * gamma.reshape(1, 3, 1, 1) + beta.reshape(1, 3, 1, 1)
    close(y, ref, atol=1e-4)
    ref_g = (x - mm.reshape(1, 3, 1, 1)) / np.sqrt(mv.reshape(1, 3, 1, 1) + 1e-5) * gamma.reshape(1, 3, 1, 1) \
        + beta.reshape(1, 3, 1, 1)
    close(y_global, ref_g, atol=1e-4)
    close(args[3].asnumpy(), mm)      # moving stats are not updated in place (documented)
    y_pred = nd.BatchNorm(*args, fix_gamma=False, eps=1e-5).asnumpy()   # predict mode: moving stats
    close(y_pred, ref_g, atol=1e-4)


def test_batchnorm_output_mean_var_and_relu_variant():
    x, g, b, m, v = rand(2, 3, 4), rand(3), rand(3), rand(3), np.abs(rand(3)) + 0.5
    outs = nd.BatchNorm(*[nd.array(a) for a in (x, g, b, m, v)], output_mean_var=True, fix_gamma=True)
    assert len(outs) == 3
    close(outs[1].asnumpy(), m)
    close(outs[2].asnumpy(), 1 / np.sqrt(v + 1e-3))           # MXNet's "var" output is invstd
    y = nd.contrib.BatchNormWithReLU(*[nd.array(a) for a in (x, g, b, m, v)], fix_gamma=True)
    close(y.asnumpy(), np.maximum(outs[0].asnumpy(), 0))
    s = nd.contrib.SyncBatchNorm(*[nd.array(a) for a in (x, g, b, m, v)], key="k", fix_gamma=True)
    close(s.asnumpy(), outs[0].asnumpy())


def test_layernorm_output_mean_var_and_groupnorm_per_group_params():
    x, g, b = rand(2, 3, 4), rand(3), rand(3)
    out, mean, std = nd.LayerNorm(nd.array(x), nd.array(g), nd.array(b), axis=1, output_mean_var=True)
    assert mean.shape == (2, 1, 4) and std.shape == (2, 1, 4)
    ref = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5) * g.reshape(1, 3, 1) \
        + b.reshape(1, 3, 1)
    close(out.asnumpy(), ref, atol=1e-4)
    s = sym.GroupNorm(sym.var("x"), num_groups=2, name="gn")
    args, _, _ = s.infer_shape(x=(2, 6, 3, 3))
    assert args == [(2, 6, 3, 3), (2,), (2,)]


# -- activations and softmax ------------------------------------------------------------------------
def test_leaky_relu_variants():
    x = rand(3, 4)
    close(nd.LeakyReLU(nd.array(x), act_type="rrelu").asnumpy(), np.where(x > 0, x, x * (0.125 + 0.334) / 2))
    gamma = np.array([0.1, 0.2, 0.3], dtype=np.float32)
    x3 = rand(2, 3, 4)
    close(nd.LeakyReLU(nd.array(x3), nd.array(gamma), act_type="prelu").asnumpy(),
          np.where(x3 > 0, x3, x3 * gamma.reshape(1, 3, 1)))
    for act in ("log_sigmoid", "mish"):  # MXNet 2's act_types: MXNet 1.9.1 refuses them (MXNetError)
        with pytest.raises(MXNetError):
            nd.Activation(nd.array(x), act_type=act)


def test_softmax_options():
    x = rand(2, 5)
    length = np.array([2, 4], dtype=np.float32)
    y = nd.softmax(nd.array(x), nd.array(length), use_length=True, axis=-1).asnumpy()
    for i, n in enumerate([2, 4]):
        e = np.exp(x[i, :n] - x[i, :n].max())
        close(y[i, :n], e / e.sum())
        assert np.all(y[i, n:] == 0)
    y64 = nd.softmax(nd.array(x), dtype="float64")
    assert y64.dtype == np.float64
    e = np.exp(-x / 2.0)
    close(nd.softmin(nd.array(x), temperature=2.0).asnumpy(), e / e.sum(-1, keepdims=True))
    close(nd.log_softmax(nd.array(x), axis=0).asnumpy(),
          x - np.log(np.exp(x).sum(0, keepdims=True)))
    z = rand(2, 3, 4)
    so = nd.SoftmaxOutput(nd.array(z), nd.array(np.zeros((2,), np.float32))).asnumpy()
    flat = z.reshape(2, -1)
    close(so, (np.exp(flat) / np.exp(flat).sum(1, keepdims=True)).reshape(z.shape))


def test_dropout_modes():
    x = np.ones((4, 50), dtype=np.float32)
    close(nd.Dropout(nd.array(x), p=0.5).asnumpy(), x)               # inference: identity
    with autograd.train_mode():
        y = nd.Dropout(nd.array(x), p=0.5).asnumpy()
        assert set(np.unique(y)) <= {0.0, 2.0} and 0 < (y == 0).mean() < 1
        ya = nd.Dropout(nd.array(x), p=0.5, axes=(0,)).asnumpy()     # one mask shared along axis 0
        assert np.all(ya == ya[:1])
    ys = nd.Dropout(nd.array(x), p=0.5, mode="always").asnumpy()
    assert set(np.unique(ys)) <= {0.0, 2.0}


# -- sequences, padding, upsampling -------------------------------------------------------------
def test_sequence_ops_on_both_axes():
    x = rand(4, 2, 3)
    L = np.array([2, 3], dtype=np.float32)
    m = nd.SequenceMask(nd.array(x), nd.array(L), use_sequence_length=True, value=-1.0).asnumpy()
    assert np.all(m[2:, 0] == -1) and np.all(m[3:, 1] == -1) and np.all(m[:2, 0] == x[:2, 0])
    last = nd.SequenceLast(nd.array(x), nd.array(L), use_sequence_length=True).asnumpy()
    close(last, np.stack([x[1, 0], x[2, 1]]))
    rev = nd.SequenceReverse(nd.array(x), nd.array(L), use_sequence_length=True).asnumpy()
    close(rev[:2, 0], x[1::-1, 0])
    close(rev[2:, 0], x[2:, 0])
    close(rev[:3, 1], x[2::-1, 1])
    xb = np.swapaxes(x, 0, 1).copy()                                   # (B, T, ...) with axis=1
    mb = nd.SequenceMask(nd.array(xb), nd.array(L), use_sequence_length=True, value=-1.0, axis=1).asnumpy()
    close(mb, np.swapaxes(m, 0, 1))
    close(nd.SequenceLast(nd.array(xb), nd.array(L), use_sequence_length=True, axis=1).asnumpy(), last)
    close(nd.SequenceLast(nd.array(x)).asnumpy(), x[-1])


def test_pad_modes():
    x = rand(1, 2, 3, 4)
    pw = (0, 0, 0, 0, 1, 2, 2, 1)
    pairs = [(0, 0), (0, 0), (1, 2), (2, 1)]
    close(nd.Pad(nd.array(x), mode="reflect", pad_width=pw).asnumpy(), np.pad(x, pairs, mode="reflect"))
    close(nd.pad(nd.array(x), mode="edge", pad_width=pw).asnumpy(), np.pad(x, pairs, mode="edge"))


def test_upsampling_nearest_multi_input_and_bilinear():
    a, b = rand(1, 2, 3, 3), rand(1, 1, 6, 6)
    y = nd.UpSampling(nd.array(a), nd.array(b), scale=2, sample_type="nearest")
    assert y.shape == (1, 3, 6, 6)
    close(y.asnumpy()[:, :2], a.repeat(2, axis=2).repeat(2, axis=3))
    close(y.asnumpy()[:, 2:], b)
    s = sym.UpSampling(sym.var("x"), scale=2, sample_type="bilinear", num_filter=3, name="up")
    assert s.list_arguments() == ["x", "up_weight"]
    args, outs, _ = s.infer_shape(x=(1, 3, 4, 4))
    assert args[1] == (3, 1, 4, 4) and outs == [(1, 3, 8, 8)]


# -- shape inference: deferred parameter shapes -----------------------------------------------------
def test_convolution_symbol_arguments_and_infer_shape():
    c = sym.Convolution(data=sym.var("x"), kernel=(3, 3), num_filter=8, name="c")
    assert c.list_arguments() == ["x", "c_weight", "c_bias"]
    args, outs, aux = c.infer_shape(x=(2, 3, 10, 10))
    assert args == [(2, 3, 10, 10), (8, 3, 3, 3), (8,)]
    assert outs == [(2, 8, 8, 8)]
    c2 = sym.Convolution(sym.var("x"), kernel=(3, 3), num_filter=8, num_group=2, no_bias=True, name="c2")
    assert c2.list_arguments() == ["x", "c2_weight"]
    assert c2.infer_shape(x=(1, 4, 5, 5))[0][1] == (8, 2, 3, 3)


def test_gluon_style_partial_inference_completes_weights():
    # Gluon's _infer_weight_shape: data (1, in_channels or 0, 0, 0) -> weight/bias shapes
    c = sym.Convolution(sym.var("data", shape=(1, 0, 0, 0)), kernel=(3, 3), num_filter=8, name="c")
    args, _, _ = c.infer_shape_partial()
    assert args[1] == (8, 0, 3, 3) and args[2] == (8,)
    c = sym.Convolution(sym.var("data", shape=(1, 6, 0, 0)), kernel=(3, 3), num_filter=9, num_group=3, name="c")
    assert c.infer_shape_partial()[0][1] == (9, 2, 3, 3)
    d = sym.Deconvolution(sym.var("data", shape=(1, 6, 0, 0)), kernel=(4, 4), num_filter=4, num_group=2, name="d")
    assert d.infer_shape_partial()[0][1] == (6, 2, 4, 4)


def test_fully_connected_completes_deferred_weight():
    w = sym.var("fc_weight", shape=(256, 0))
    fc = sym.FullyConnected(sym.var("x"), w, num_hidden=256, name="fc")
    args, outs, _ = fc.infer_shape(x=(2, 3, 4))
    assert args == [(2, 3, 4), (256, 12), (256,)]
    assert outs == [(2, 256)]
    fc2 = sym.FullyConnected(sym.var("x"), num_hidden=5, flatten=False, no_bias=True, name="f2")
    assert fc2.list_arguments() == ["x", "f2_weight"]
    args, outs, _ = fc2.infer_shape(x=(2, 3, 4))
    assert args[1] == (5, 4) and outs == [(2, 3, 5)]


def test_batchnorm_prelu_embedding_parameter_shapes():
    bn = sym.BatchNorm(sym.var("x"), axis=-1, name="bn")
    assert bn.list_arguments() == ["x", "bn_gamma", "bn_beta"]
    assert bn.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    args, outs, aux = bn.infer_shape(x=(2, 5, 7))
    assert args[1:] == [(7,), (7,)] and aux == [(7,), (7,)] and outs == [(2, 5, 7)]
    pr = sym.LeakyReLU(sym.var("x"), act_type="prelu", name="pr")
    assert pr.list_arguments() == ["x", "pr_gamma"]
    assert pr.infer_shape(x=(2, 6, 3))[0][1] == (6,)
    em = sym.Embedding(sym.var("i"), input_dim=10, output_dim=4, name="em")
    args, outs, _ = em.infer_shape(i=(2, 3))
    assert args[1] == (10, 4) and outs == [(2, 3, 4)]
    ln = sym.LayerNorm(sym.var("x"), name="ln")
    assert ln.infer_shape(x=(2, 3, 8))[0][1:] == [(8,), (8,)]


def test_positional_attributes_bind_in_mxnet_declared_order():
    x = nd.array(rand(1, 2, 6, 6))
    # Pooling(data, kernel, pool_type, global_pool, cudnn_off, pooling_convention, stride, ...)
    a = nd.Pooling(x, (2, 2), "avg", False, False, "valid", (2, 2))
    b = nd.Pooling(x, kernel=(2, 2), pool_type="avg", stride=(2, 2))
    close(a.asnumpy(), b.asnumpy())
    assert [p.name for p in get_op("Convolution").params][:6] == \
        ["kernel", "stride", "dilate", "pad", "num_filter", "num_group"]
    assert [p.name for p in get_op("BatchNorm").params][:6] == \
        ["eps", "momentum", "fix_gamma", "use_global_stats", "output_mean_var", "axis"]


def test_float16_and_float64_keep_their_dtype():
    for dt in (np.float16, np.float64):
        x = rand(1, 2, 5, 5, dtype=dt)
        w = rand(3, 2, 3, 3, dtype=dt)
        assert nd.Convolution(nd.array(x, dtype=dt), nd.array(w, dtype=dt), kernel=(3, 3), num_filter=3,
                              no_bias=True).dtype == dt
        assert nd.Pooling(nd.array(x, dtype=dt), kernel=(2, 2), pool_type="avg").dtype == dt
        assert nd.Activation(nd.array(x, dtype=dt), act_type="sigmoid").dtype == dt


# -- fused RNN ----------------------------------------------------------------------------------------
def _sig(v):
    return 1 / (1 + np.exp(-v))


def _cell(mode, x, h, c, wi, wh, bi, bh):
    """One step of Gluon's unfused cells (rnn_cell.py), float64."""
    a, b = x @ wi.T + bi, h @ wh.T + bh
    if mode == "lstm":
        i, f, g, o = np.split(a + b, 4, axis=1)
        c = _sig(f) * c + _sig(i) * np.tanh(g)
        return _sig(o) * np.tanh(c), c
    if mode == "gru":
        ar, az, an = np.split(a, 3, axis=1)
        br, bz, bn = np.split(b, 3, axis=1)
        r, z = _sig(ar + br), _sig(az + bz)
        n = np.tanh(an + r * bn)
        return (1 - z) * n + z * h, None
    return (np.tanh(a + b) if mode == "rnn_tanh" else np.maximum(a + b, 0)), None


@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
def test_fused_rnn_matches_unfused_cells(mode):
    T, N, I, H, L, D = 4, 2, 3, 5, 2, 2
    G = {"lstm": 4, "gru": 3}.get(mode, 1)
    shapes_w, shapes_b = [], []
    ni = I
    for _ in range(L):
        for _ in range(D):
            shapes_w += [(G * H, ni), (G * H, H)]
            shapes_b += [(G * H,), (G * H,)]
        ni = D * H
    ws = [rand(*s) * 0.5 for s in shapes_w]
    bs = [rand(*s) * 0.5 for s in shapes_b]
    flat = np.concatenate([a.reshape(-1) for a in ws + bs])
    x = rand(T, N, I)
    h0 = rand(L * D, N, H)
    c0 = rand(L * D, N, H)
    ins = [nd.array(x), nd.array(flat), nd.array(h0)] + ([nd.array(c0)] if mode == "lstm" else [])
    res = nd.RNN(*ins, state_size=H, num_layers=L, bidirectional=True, mode=mode, state_outputs=True)
    assert len(res) == (3 if mode == "lstm" else 2)
    # reference
    inp = x.astype(np.float64)
    hT, cT = [], []
    for li in range(L):
        outs = []
        for di in range(D):
            k = li * D + di
            wi, wh = ws[2 * k], ws[2 * k + 1]
            bi, bh = bs[2 * k], bs[2 * k + 1]
            h, c = h0[k].astype(np.float64), c0[k].astype(np.float64)
            o = np.zeros((T, N, H))
            for t in (range(T) if di == 0 else range(T - 1, -1, -1)):
                h, c = _cell(mode, inp[t], h, c, wi, wh, bi, bh)
                o[t] = h
            outs.append(o)
            hT.append(h)
            cT.append(c)
        inp = np.concatenate(outs, axis=2)
    close(res[0].asnumpy(), inp, atol=1e-4)
    close(res[1].asnumpy(), np.stack(hT), atol=1e-4)
    if mode == "lstm":
        close(res[2].asnumpy(), np.stack(cT), atol=1e-4)
    s = sym.RNN(sym.var("x"), state_size=H, num_layers=L, bidirectional=True, mode=mode, state_outputs=True,
                name="rnn")
    args, outs, _ = s.infer_shape(x=(T, N, I))
    assert args[1] == flat.shape and args[2] == (L * D, N, H)
    assert outs[0] == (T, N, D * H)


def test_rnn_sequence_length_equals_running_each_sequence_alone():
    T, N, I, H = 5, 2, 3, 4
    size = 2 * (4 * H * I + 4 * H * H + 8 * H)
    flat = rand(size) * 0.4
    x, h0, c0 = rand(T, N, I), rand(2, N, H), rand(2, N, H)
    lengths = np.array([3, 5], dtype=np.float32)
    kw = dict(state_size=H, num_layers=1, bidirectional=True, mode="lstm", state_outputs=True)
    out, hy, cy = nd.RNN(nd.array(x), nd.array(flat), nd.array(h0), nd.array(c0), nd.array(lengths),
                         use_sequence_length=True, **kw)
    for b, n in enumerate([3, 5]):
        o1, h1, c1 = nd.RNN(nd.array(x[:n, b:b + 1]), nd.array(flat), nd.array(h0[:, b:b + 1]),
                            nd.array(c0[:, b:b + 1]), **kw)
        close(out.asnumpy()[:n, b], o1.asnumpy()[:, 0], atol=1e-5)
        assert np.all(out.asnumpy()[n:, b] == 0)
        close(hy.asnumpy()[:, b], h1.asnumpy()[:, 0], atol=1e-5)
        close(cy.asnumpy()[:, b], c1.asnumpy()[:, 0], atol=1e-5)


# -- CTC ---------------------------------------------------------------------------------------------
def _ctc_brute(logits, label, blank):
    """-log sum over every alignment that collapses to ``label`` (tiny T and alphabet only)."""
    T, A = logits.shape
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    total = 0.0
    for path in itertools.product(range(A), repeat=T):
        collapsed = [k for i, k in enumerate(path) if k != blank and (i == 0 or k != path[i - 1])]
        if collapsed == list(label):
            total += np.prod([p[t, k] for t, k in enumerate(path)])
    return -np.log(total)


@pytest.mark.parametrize("blank_label", ["first", "last"])
def test_ctc_loss_matches_brute_force(blank_label):
    T, N, A = 5, 3, 4
    x = rand(T, N, A)
    blank = 0 if blank_label == "first" else A - 1
    pad = 0 if blank_label == "first" else -1
    seqs = [[1, 2], [2, 2, 1], [1]] if blank_label == "first" else [[0, 1], [1, 1, 0], [2]]
    label = np.full((N, 3), pad, dtype=np.float32)
    for i, s in enumerate(seqs):
        label[i, :len(s)] = s
    loss = nd.CTCLoss(nd.array(x), nd.array(label), blank_label=blank_label).asnumpy()
    assert loss.shape == (N,)
    for i, s in enumerate(seqs):
        close(loss[i], _ctc_brute(x[:, i].astype(np.float64), s, blank), rtol=1e-4)
    # explicit lengths: data length 4 for sequence 0, label lengths as given
    dl = np.array([4, 5, 5], dtype=np.float32)
    lens = np.array([len(s) for s in seqs], dtype=np.float32)
    loss2 = nd.ctc_loss(nd.array(x), nd.array(label), nd.array(dl), nd.array(lens), use_data_lengths=True,
                        use_label_lengths=True, blank_label=blank_label).asnumpy()
    close(loss2[0], _ctc_brute(x[:4, 0].astype(np.float64), seqs[0], blank), rtol=1e-4)
    close(loss2[1:], loss[1:])


# -- deformable convolution ------------------------------------------------------------------------
def _bilinear_ref(img, h, w):
    """MXNet's v1 sampling (deformable_im2col_cpu / im2col_bilinear_cpu): inside [0, H) x [0, W)
    only, the upper neighbour clamped to the last row/column."""
    H, W = img.shape
    if not (0 <= h < H and 0 <= w < W):
        return 0.0
    h0, w0 = math.floor(h), math.floor(w)
    h1, lh = (H - 1, 0.0) if h0 >= H - 1 else (h0 + 1, h - h0)
    w1, lw = (W - 1, 0.0) if w0 >= W - 1 else (w0 + 1, w - w0)
    return ((1 - lh) * (1 - lw) * img[h0, w0] + (1 - lh) * lw * img[h0, w1]
            + lh * (1 - lw) * img[h1, w0] + lh * lw * img[h1, w1])


def test_deformable_convolution():
    x, w, b = rand(2, 4, 6, 7), rand(6, 2, 3, 3), rand(6)
    kw = dict(kernel=(3, 3), pad=(1, 1), stride=(2, 1), num_filter=6, num_group=2)
    Ho, Wo = 3, 7
    zero = np.zeros((2, 2 * 9, Ho, Wo), np.float32)
    y0 = nd.contrib.DeformableConvolution(nd.array(x), nd.array(zero), nd.array(w), nd.array(b), **kw)
    close(y0.asnumpy(), nd.Convolution(nd.array(x), nd.array(w), nd.array(b), **kw).asnumpy())
    ones = np.ones((2, 9, Ho, Wo), np.float32)
    y1 = nd.contrib.ModulatedDeformableConvolution(nd.array(x), nd.array(zero), nd.array(ones), nd.array(w),
                                                   nd.array(b), **kw)
    close(y1.asnumpy(), y0.asnumpy())
    # random fractional offsets, checked at a few output positions by direct bilinear sampling
    off = (rand(2, 2 * 2 * 9, Ho, Wo) * 1.5).astype(np.float32)        # 2 deformable groups
    y = nd.contrib.DeformableConvolution(nd.array(x), nd.array(off), nd.array(w), no_bias=True,
                                         num_deformable_group=2, **kw).asnumpy()
    for n, f, ho, wo in [(0, 0, 1, 3), (1, 5, 0, 0), (1, 3, 2, 6)]:
        gi = f // 3
        acc = 0.0
        for c in range(gi * 2, gi * 2 + 2):
            dgi = c // 2
            for k in range(9):
                i, j = divmod(k, 3)
                dh = off[n, dgi * 18 + 2 * k, ho, wo]
                dw = off[n, dgi * 18 + 2 * k + 1, ho, wo]
                v = _bilinear_ref(x[n, c].astype(np.float64), ho * 2 - 1 + i + dh, wo - 1 + j + dw)
                acc += v * w[f, c - gi * 2, i, j]
        close(y[n, f, ho, wo], acc, atol=1e-4)
    s = sym.contrib.DeformableConvolution(sym.var("x"), sym.var("off"), kernel=(3, 3), num_filter=6, name="dc")
    assert s.list_arguments() == ["x", "off", "dc_weight", "dc_bias"]
    args, outs, _ = s.infer_shape(x=(2, 4, 6, 7))
    assert args[1] == (2, 18, 4, 5) and args[2] == (6, 4, 3, 3) and outs == [(2, 6, 4, 5)]


# -- contrib resampling and output layers ------------------------------------------------------------
def test_adaptive_avg_pooling_and_bilinear_resize():
    x = rand(1, 2, 5, 7)
    y = nd.contrib.AdaptiveAvgPooling2D(nd.array(x), output_size=(2, 3)).asnumpy()
    close(y[0, 1, 0, 0], x[0, 1, 0:3, 0:3].mean())
    close(y[0, 1, 1, 1], x[0, 1, 2:5, 2:5].mean())         # rows [floor(5/2), 5), cols [floor(7/3), ceil(14/3))
    assert nd.contrib.AdaptiveAvgPooling2D(nd.array(x)).shape == (1, 2, 1, 1)
    z = nd.contrib.BilinearResize2D(nd.array(x), height=9, width=13).asnumpy()   # align_corners: exact grid
    close(z[:, :, ::2, ::2], x)
    like = nd.zeros((1, 1, 10, 14))
    zl = nd.contrib.BilinearResize2D(nd.array(x), like, mode="like", align_corners=False).asnumpy()
    assert zl.shape == (1, 2, 10, 14)
    # half-pixel rule: out 1 -> src 0.25
    close(zl[0, 0, 0, 1], 0.75 * x[0, 0, 0, 0] + 0.25 * x[0, 0, 0, 1])
    assert nd.contrib.BilinearResize2D(nd.array(x), mode="to_even_up").shape == (1, 2, 6, 8)
    assert nd.contrib.BilinearResize2D(nd.array(x), scale_height=2.0, scale_width=0.5).shape == (1, 2, 10, 3)


def test_output_layers_forward():
    x = rand(3, 4)
    close(nd.LinearRegressionOutput(nd.array(x), nd.zeros((3, 4))).asnumpy(), x)
    close(nd.LogisticRegressionOutput(nd.array(x), nd.zeros((3, 4))).asnumpy(), 1 / (1 + np.exp(-x)))
    close(nd.SVMOutput(nd.array(x), nd.zeros((3,))).asnumpy(), x)
    close(nd.MakeLoss(nd.array(x)).asnumpy(), x)
    lab = np.array([0, 3, 1], dtype=np.float32)
    lp = x - np.log(np.exp(x).sum(1, keepdims=True))
    close(nd.softmax_cross_entropy(nd.array(x), nd.array(lab)).asnumpy(), [-lp[[0, 1, 2], [0, 3, 1]].sum()])
    s = sym.LogisticRegressionOutput(sym.var("x"), name="out")
    assert s.list_arguments() == ["x", "out_label"]
    assert s.infer_shape(x=(3, 4))[0][1] == (3, 4)


# -- im2col, ROI ops -----------------------------------------------------------------------------
def test_im2col_col2im_are_conv_building_blocks():
    x = rand(2, 3, 6, 7)
    w = rand(4, 3, 3, 3)
    kw = dict(kernel=(3, 3), pad=(1, 1), stride=(2, 1))
    cols = nd.im2col(nd.array(x), **kw).asnumpy()
    assert cols.shape == (2, 27, 21)
    y = nd.Convolution(nd.array(x), nd.array(w), num_filter=4, no_bias=True, **kw).asnumpy()
    close((w.reshape(4, -1) @ cols).reshape(y.shape), y)
    u = rand(*cols.shape)
    back = nd.col2im(nd.array(u), output_size=(6, 7), **kw).asnumpy()
    close(np.sum(u.astype(np.float64) * cols), np.sum(back.astype(np.float64) * x), rtol=1e-4)


def _ref_roi_pool(x, roi, ph, pw, ss):
    b = int(roi[0])
    rnd = lambda v: int(np.sign(v) * np.floor(abs(v) + 0.5))  # noqa: E731
    x1, y1, x2, y2 = (rnd(v * ss) for v in roi[1:])
    H, W = x.shape[2:]
    rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
    out = np.zeros((x.shape[1], ph, pw))
    for i in range(ph):
        for j in range(pw):
            hs = min(max(int(np.floor(i * rh / ph)) + y1, 0), H)
            he = min(max(int(np.ceil((i + 1) * rh / ph)) + y1, 0), H)
            ws = min(max(int(np.floor(j * rw / pw)) + x1, 0), W)
            we = min(max(int(np.ceil((j + 1) * rw / pw)) + x1, 0), W)
            if he > hs and we > ws:
                out[:, i, j] = x[b, :, hs:he, ws:we].max(axis=(1, 2))
    return out


def _ref_roi_align(x, roi, ph, pw, ss, ratio, aligned):
    b = int(roi[0])
    H, W = x.shape[2:]
    off = 0.5 if aligned else 0.0
    x1, y1, x2, y2 = (v * ss - off for v in roi[1:])
    rw, rh = x2 - x1, y2 - y1
    if not aligned:
        rw, rh = max(rw, 1.0), max(rh, 1.0)
    gh = ratio if ratio > 0 else int(np.ceil(rh / ph))
    gw = ratio if ratio > 0 else int(np.ceil(rw / pw))
    out = np.zeros((x.shape[1], ph, pw))
    for i in range(ph):
        for j in range(pw):
            acc = np.zeros(x.shape[1])
            for a in range(gh):
                for c in range(gw):
                    y = y1 + i * rh / ph + (a + 0.5) * rh / ph / gh
                    xx = x1 + j * rw / pw + (c + 0.5) * rw / pw / gw
                    if y < -1 or y > H or xx < -1 or xx > W:
                        continue
                    y, xx = max(y, 0.0), max(xx, 0.0)
                    yl, xl = int(y), int(xx)
                    if yl >= H - 1:
                        yl = yh = H - 1
                        y = yl
                    else:
                        yh = yl + 1
                    if xl >= W - 1:
                        xl = xh = W - 1
                        xx = xl
                    else:
                        xh = xl + 1
                    ly, lx = y - yl, xx - xl
                    acc += ((1 - ly) * (1 - lx) * x[b, :, yl, xl] + (1 - ly) * lx * x[b, :, yl, xh]
                            + ly * (1 - lx) * x[b, :, yh, xl] + ly * lx * x[b, :, yh, xh])
            out[:, i, j] = acc / max(gh * gw, 1)
    return out


def test_roi_pooling_and_roi_align():
    x = rand(2, 3, 12, 14)
    rois = np.array([[0, 1.0, 2.0, 20.0, 18.0], [1, 0.0, 0.0, 27.0, 23.0], [1, 10.0, 6.0, 12.0, 9.0],
                     [0, -4.0, -2.0, 5.0, 30.0]], dtype=np.float32)
    y = nd.ROIPooling(nd.array(x), nd.array(rois), pooled_size=(3, 2), spatial_scale=0.5).asnumpy()
    assert y.shape == (4, 3, 3, 2)
    for r in range(4):
        close(y[r], _ref_roi_pool(x, rois[r], 3, 2, 0.5))
    for ratio, aligned in [(-1, False), (2, True)]:
        z = nd.contrib.ROIAlign(nd.array(x), nd.array(rois), pooled_size=(2, 3), spatial_scale=0.5,
                                sample_ratio=ratio, aligned=aligned).asnumpy()
        for r in range(4):
            close(z[r], _ref_roi_align(x, rois[r], 2, 3, 0.5, ratio, aligned), atol=1e-4)
    xp = rand(1, 2 * 4, 6, 6)                          # position-sensitive: 2 output channels, 2x2 bins
    zp = nd.contrib.ROIAlign(nd.array(xp), nd.array(rois[:1] * [0, 1, 1, 1, 1]), pooled_size=(2, 2),
                             spatial_scale=0.25, sample_ratio=2, position_sensitive=True).asnumpy()
    assert zp.shape == (1, 2, 2, 2)
    full = _ref_roi_align(xp, rois[0] * [0, 1, 1, 1, 1], 2, 2, 0.25, 2, False)   # (8, 2, 2)
    for c in range(2):
        for i in range(2):
            for j in range(2):
                close(zp[0, c, i, j], full[c * 4 + i * 2 + j, i, j], atol=1e-5)


def test_interleaved_attention_matmuls():
    T, B, H, hd = 5, 2, 3, 4
    qkv = rand(T, B, H * 3 * hd)
    r = qkv.reshape(T, B, H, 3, hd).astype(np.float64)
    q, k, v = r[:, :, :, 0], r[:, :, :, 1], r[:, :, :, 2]               # (T, B, H, hd)
    scores = nd.contrib.interleaved_matmul_selfatt_qk(nd.array(qkv), heads=H).asnumpy()
    ref = np.einsum("tbhd,sbhd->bhts", q / np.sqrt(hd), k).reshape(B * H, T, T)
    close(scores, ref, atol=1e-4)
    att = rand(B * H, T, T)
    out = nd.contrib.interleaved_matmul_selfatt_valatt(nd.array(qkv), nd.array(att), heads=H).asnumpy()
    ref_o = np.einsum("bhts,sbhd->tbhd", att.reshape(B, H, T, T).astype(np.float64), v).reshape(T, B, H * hd)
    close(out, ref_o, atol=1e-4)
    S = 6
    queries = rand(T, B, H * hd)
    kv = rand(S, B, H * 2 * hd)
    kvr = kv.reshape(S, B, H, 2, hd).astype(np.float64)
    sc = nd.contrib.interleaved_matmul_encdec_qk(nd.array(queries), nd.array(kv), heads=H).asnumpy()
    ref_sc = np.einsum("tbhd,sbhd->bhts", queries.reshape(T, B, H, hd) / np.sqrt(hd), kvr[:, :, :, 0])
    close(sc, ref_sc.reshape(B * H, T, S), atol=1e-4)
    att2 = rand(B * H, T, S)
    o2 = nd.contrib.interleaved_matmul_encdec_valatt(nd.array(kv), nd.array(att2), heads=H).asnumpy()
    ref_o2 = np.einsum("bhts,sbhd->tbhd", att2.reshape(B, H, T, S).astype(np.float64), kvr[:, :, :, 1])
    close(o2, ref_o2.reshape(T, B, H * hd), atol=1e-4)


def test_spatial_transformer_family():
    x = rand(2, 3, 5, 6)
    ident = np.tile(np.array([1, 0, 0, 0, 1, 0], np.float32), (2, 1))
    grid = nd.GridGenerator(nd.array(ident), transform_type="affine", target_shape=(5, 6))
    assert grid.shape == (2, 2, 5, 6)
    close(nd.BilinearSampler(nd.array(x), grid).asnumpy(), x, atol=1e-5)       # identity transform
    close(nd.SpatialTransformer(nd.array(x), nd.array(ident), target_shape=(5, 6), transform_type="affine",
                                sampler_type="bilinear").asnumpy(), x, atol=1e-5)
    flow = np.zeros((2, 2, 5, 6), np.float32)
    flow[:, 0] = 1.0                                                            # shift one pixel right
    warped = nd.BilinearSampler(nd.array(x), nd.GridGenerator(nd.array(flow), transform_type="warp")).asnumpy()
    close(warped[..., :-1], x[..., 1:], atol=1e-5)
    close(warped[..., -1], 0 * x[..., -1], atol=1e-5)                          # outside -> zeros
    half = np.tile(np.array([0.5, 0, 0, 0, 0.5, 0], np.float32), (2, 1))      # zoom in on the centre
    z = nd.SpatialTransformer(nd.array(x), nd.array(half), target_shape=(3, 3), transform_type="affine",
                              sampler_type="bilinear").asnumpy()
    # target (0, 0) -> source normalized (-0.5, -0.5) -> pixel (1.25, 1.0)
    close(z[:, :, 0, 0], 0.75 * x[:, :, 1, 1] + 0.25 * x[:, :, 1, 2], atol=1e-5)


@pytest.mark.parametrize("shape,kernel,stride,pad,ptype,conv,include,p", POOL_CASES[:4] + POOL_CASES[8:10])
def test_prepared_pooling_kernel_matches_and_reuses_buffer(shape, kernel, stride, pad, ptype, conv, include, p):
    op = get_op("Pooling")
    attrs = op.resolve(op.coerce_attrs(dict(kernel=kernel, stride=stride, pad=pad, pool_type=ptype,
                                            pooling_convention=conv, count_include_pad=include)))
    run = op.kernel(attrs, [shape], [np.float32])
    for _ in range(2):
        x = rand(*shape)
        close(run(x), ref_pool(x, kernel, stride, pad, ptype, conv, include, p))


def test_convolution_chunks_large_batches(monkeypatch):
    import hybridize.runtime.ops.nn_conv as nn_conv
    x, w = rand(5, 4, 9, 9), rand(6, 2, 3, 3)
    kw = dict(kernel=(3, 3), pad=(1, 1), num_filter=6, num_group=2, no_bias=True)
    whole = nd.Convolution(nd.array(x), nd.array(w), **kw).asnumpy()
    monkeypatch.setattr(nn_conv, "_COLS_LIMIT", 4 * 9 * 81 * 4 * 2)     # two images per im2col chunk
    close(nd.Convolution(nd.array(x), nd.array(w), **kw).asnumpy(), whole)


def test_legacy_crop():
    x = np.arange(2 * 6 * 7, dtype=np.float32).reshape(2, 1, 6, 7)
    close(nd.Crop(nd.array(x), h_w=(3, 4), offset=(1, 2)).asnumpy(), x[:, :, 1:4, 2:6])
    close(nd.Crop(nd.array(x), nd.zeros((1, 1, 2, 3)), center_crop=True).asnumpy(), x[:, :, 2:4, 2:5])
    s = sym.Crop(sym.var("a"), sym.var("b"), name="c")
    assert s.list_arguments() == ["a", "b"]
    assert s.infer_shape(a=(2, 1, 6, 7), b=(1, 1, 2, 3))[1] == [(2, 1, 2, 3)]
