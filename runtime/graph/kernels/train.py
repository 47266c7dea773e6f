"""NHWC kernels of compiled training programs: the training-mode BatchNorm forward and backward,
max-pooling's backward, the weight gradient of a convolution and the data gradient of a strided
one, all on channels-last tensors, so a training program stays NHWC from the first convolution
to the last gradient (the layout pass lowers onto them; no transposes between).

They compute what the registry kernels compute (``ops/nn_norm.py``, ``ops/nn_pool.py``,
``kernels/grad.py``), element by element in the same order of operations; only the per-channel
sums are taken in another order (two levels: along an image row, then over the rows), and the
weight gradient's products are summed by BLAS over other chunks. BatchNorm's backward takes the
batch mean's rounding out of its ``sum(g * (x - mean))`` (``ops.nn_norm.centered_dot``), so the
two orders of the mean's sum do not show in a gradient that is mathematically 0. Each kernel works in chunks of
samples (or rows) on the thread pool and keeps its temporaries to a chunk: no full-size im2col
columns, no padded copy of a whole activation.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ...ops._nnutil import matmul
from ...ops.nn_norm import bn_param_grads, centered_dot, update_moving_stats
from .common import _internal, _p, _pad_rows, affine_into
from .fastpath import RowTiling
from .parallel import chunks_for, num_threads, run_chunks

__all__ = ["BN_TRAIN", "BN_TRAIN_BWD", "BN_TRAIN_CF", "BN_TRAIN_BWD_CF", "CONV_CF", "MAXPOOL_CF", "MAXPOOL_BWD", "MAXPOOL_BWD_CF", "WGRAD_NHWC", "DGRAD_NHWC"]


def _bounds(n: int, parts: int) -> list[tuple[int, int]]:
    parts = max(1, min(parts, n))
    return [(n * i // parts, n * (i + 1) // parts) for i in range(parts)]


def _row_parts(x: np.ndarray) -> int:
    """Chunks (of image rows) for a memory-bound pass over ``x`` on the pool: at least one per
    ``_CHUNK_BYTES`` of ``x``, as the passes' temporaries are a chunk's (and a chunk stays in cache)."""
    rows = x.shape[0] * x.shape[1]
    return min(rows, max(chunks_for(float(x.size) * 2, rows, min_work=1e6), -(-x.nbytes // _CHUNK_BYTES)))


_CHUNK_BYTES = 1 << 20


# ------------------------------------------------------------------------------------------
# per-channel statistics
# ------------------------------------------------------------------------------------------
def _channel_sum(x4: np.ndarray, acc: np.dtype) -> np.ndarray:
    """``x4.sum(axis=(0, 1, 2))`` of an NHWC block in two levels (along each image row, then over
    the rows), so float32 rounding grows with W + N*H, not N*H*W."""
    N, H, W, C = x4.shape
    rows = np.add.reduce(x4.reshape(N * H, W, C), axis=1, dtype=acc)
    return np.add.reduce(rows, axis=0, dtype=acc)


def _parallel_sum(fn, n_rows: int, parts: int, C: int, acc: np.dtype) -> np.ndarray:
    """Sum over row chunks of ``fn(lo, hi)`` (per-channel partial sums), chunks on the pool."""
    bounds = _bounds(n_rows, parts)
    out = [None] * len(bounds)

    def run(i: int) -> None:
        out[i] = fn(*bounds[i])
    run_chunks(run, len(bounds))
    total = out[0]
    for p in out[1:]:
        total = total + p
    return total.astype(acc, copy=False)


def batch_mean(x: np.ndarray, acc: np.dtype) -> np.ndarray:
    """The per-channel mean of an NHWC tensor (row chunks on the pool, summed in order)."""
    N, H, W, C = x.shape
    rows = x.reshape(N * H, 1, W, C)
    return _parallel_sum(lambda lo, hi: _channel_sum(rows[lo:hi].astype(acc, copy=False), acc),
                         N * H, _row_parts(x), C, acc) / acc.type(N * H * W)


def batch_stats(x: np.ndarray, acc: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """The batch mean and biased variance per channel of an NHWC tensor (BatchNorm's training
    statistics: mean, then the mean of the squared deviations, as the registry kernel)."""
    N, H, W, C = x.shape
    count = acc.type(N * H * W)
    rows = x.reshape(N * H, 1, W, C)
    parts = _row_parts(x)
    mean = batch_mean(x, acc)

    def sq(lo: int, hi: int) -> np.ndarray:
        d = np.subtract(rows[lo:hi], mean, dtype=acc)
        np.square(d, out=d)
        return _channel_sum(d, acc)
    var = _parallel_sum(sq, N * H, parts, C, acc) / count
    return mean.astype(acc, copy=False), var.astype(acc, copy=False)


def _acc(dt: np.dtype) -> np.dtype:
    return np.dtype(np.float32) if dt == np.float16 else np.dtype(dt)


# ------------------------------------------------------------------------------------------
# BatchNorm, training mode
# ------------------------------------------------------------------------------------------
def _bn_train(attrs, x, gamma, beta, moving_mean, moving_var):
    """BatchNorm's training forward on NHWC data (batch statistics; the moving ones are updated by
    the backward, as MXNet's CPU kernel does)."""
    out = np.empty_like(x)
    bn_train_into(attrs, x, gamma, beta, out)
    return out


def bn_train_into(attrs, x, gamma, beta, out):
    """:func:`_bn_train` written into ``out`` (may be ``x``)."""
    acc = _acc(x.dtype)
    m, v = batch_stats(x, acc)
    g = np.ones(x.shape[-1], dtype=acc) if attrs.fix_gamma else gamma.astype(acc, copy=False)
    invstd = 1 / np.sqrt(v + acc.type(attrs.eps))
    scale = g * invstd
    shift = beta.astype(acc, copy=False) - m * scale
    C = x.shape[-1]
    rows = x.reshape(-1, C)
    o2 = out.reshape(-1, C)
    s, t = scale.astype(x.dtype), shift.astype(x.dtype)
    bounds = _bounds(rows.shape[0], _row_parts(x))
    tiling = RowTiling(C, rows.shape[0]) if len(bounds) == 1 else None

    def run(i: int) -> None:
        lo, hi = bounds[i]
        affine_into(o2[lo:hi], rows[lo:hi], s, t, (), tiling)
    run_chunks(run, len(bounds))


BN_TRAIN = _internal("_hy_bn_train", _bn_train, (_p("eps", 1e-3), _p("fix_gamma", True)),
                     ("data", "gamma", "beta", "moving_mean", "moving_var"),
                     lambda a, s: (list(s), [tuple(s[0])]), infer_type=lambda a, d: [d[0]])


def _bn_train_bwd(attrs, g, x, gamma, beta, moving_mean, moving_var):
    """BatchNorm's (d data, d gamma, d beta) in training mode on NHWC data, and the moving
    statistics updated in place (``momentum``, biased batch variance), as ``_backward_BatchNorm``."""
    dx = np.empty(x.shape, x.dtype)
    return (dx,) + bn_train_bwd_into(attrs, g, x, gamma, beta, moving_mean, moving_var, dx)


def bn_train_bwd_into(attrs, g, x, gamma, beta, moving_mean, moving_var, dx):
    """:func:`_bn_train_bwd` with d data written into ``dx`` (may be ``g``); returns (d gamma, d beta)."""
    acc = _acc(x.dtype)
    N, H, W, C = x.shape
    mean = batch_mean(x, acc)
    xr, gr = x.reshape(N * H, 1, W, C), g.reshape(N * H, 1, W, C)
    parts = _row_parts(x)

    def sums(lo: int, hi: int) -> np.ndarray:
        """The variance's sum (as :func:`batch_stats`, chunk for chunk) and the gradient's two,
        from one read of the chunk."""
        ga = gr[lo:hi].astype(acc, copy=False)
        xc = np.subtract(xr[lo:hi], mean, dtype=acc)
        gxc = np.multiply(xc, ga)
        sum_xc = _channel_sum(xc, acc)
        np.square(xc, out=xc)
        return np.stack([_channel_sum(xc, acc), _channel_sum(ga, acc), _channel_sum(gxc, acc), sum_xc])
    sum_sq, sum_g, sum_gxc, sum_xc = _parallel_sum(sums, N * H, parts, C, acc)
    var = (sum_sq / acc.type(N * H * W)).astype(acc, copy=False)
    sum_gxc = centered_dot(sum_gxc, sum_xc, sum_g, acc.type(N * H * W))
    invstd = 1 / np.sqrt(var + acc.type(attrs.eps))
    gam = np.ones_like(invstd) if attrs.fix_gamma else gamma.astype(acc, copy=False)
    count = acc.type(N * H * W)
    scale = (gam * invstd).astype(acc)
    mg = (sum_g / count).astype(acc)
    coef = (invstd * invstd * sum_gxc / count).astype(acc)
    dr = dx.reshape(N * H, 1, W, C)

    direct = dx.dtype == acc      # d data written in place (dx may be g: each element read, then written)

    def grad(i: int) -> None:
        lo, hi = bounds[i]
        xc = np.subtract(xr[lo:hi], mean, dtype=acc)
        xc *= coef
        d = np.subtract(gr[lo:hi], mg, out=dr[lo:hi]) if direct else np.subtract(gr[lo:hi], mg, dtype=acc)
        d -= xc
        d *= scale
        if not direct:
            dr[lo:hi] = d
    bounds = _bounds(N * H, parts)
    run_chunks(grad, len(bounds))
    update_moving_stats(attrs, mean, var, moving_mean, moving_var, acc)
    return bn_param_grads(attrs, sum_g, sum_gxc, invstd, gamma, beta)


BN_TRAIN_BWD = _internal("_hy_bn_train_bwd", _bn_train_bwd,
                         (_p("eps", 1e-3), _p("momentum", 0.9), _p("fix_gamma", True)),
                         ("ograd", "data", "gamma", "beta", "moving_mean", "moving_var"),
                         lambda a, s: (list(s), [tuple(s[1]), tuple(s[2]), tuple(s[3])]), num_outputs=3,
                         infer_type=lambda a, d: [d[1], d[2], d[3]])


# ------------------------------------------------------------------------------------------
# BatchNorm, training mode, channel first (layers of few channels: LeNet's 6)
# ------------------------------------------------------------------------------------------
def _cf_parts(x: np.ndarray) -> list[tuple[int, int]]:
    """Sample chunks of a channel-first pass over ``x`` on the pool: one per thread (these passes
    are short; a chunk more is a wake-up more)."""
    n = min(chunks_for(float(x.size) * 2, x.shape[0], min_work=_CF_MIN_WORK), num_threads())
    return _bounds(x.shape[0], n)


def _cf_sum(fn, bounds: list, acc: np.dtype) -> np.ndarray:
    """Sum over sample chunks of ``fn(lo, hi)`` (per-channel partial sums), chunks on the pool,
    added in chunk order."""
    out = [None] * len(bounds)

    def run(i: int) -> None:
        out[i] = fn(*bounds[i])
    run_chunks(run, len(bounds))
    total = out[0]
    for p in out[1:]:
        total = total + p
    return total.astype(acc, copy=False)


def _rows(a: np.ndarray) -> np.ndarray:
    """``(N, C, H * W)`` view of a contiguous channel-first array."""
    return a.reshape(a.shape[0], a.shape[1], -1)


def _plane_sums(a3: np.ndarray, acc: np.dtype) -> np.ndarray:
    """Per-channel sums of ``(n, C, L)`` rows: along each plane (one BLAS product with a column of
    ones when the dtypes allow, else numpy's pairwise sum), then over the samples."""
    n, C, L = a3.shape
    if a3.dtype == acc and acc in (np.float32, np.float64) and a3.flags.c_contiguous:
        rows = np.matmul(a3.reshape(n * C, L), np.ones(L, acc)).reshape(n, C)
    else:
        rows = np.add.reduce(a3, axis=2, dtype=acc)
    return np.add.reduce(rows, axis=0, dtype=acc)


def _plane_dots(a3: np.ndarray, b3: np.ndarray) -> np.ndarray:
    """Per-channel ``sum(a * b)`` of ``(n, C, L)`` rows: one BLAS dot per plane (no temporary),
    then over the samples."""
    n, C, L = a3.shape
    return np.matmul(a3.reshape(n, C, 1, L), b3.reshape(n, C, L, 1)).reshape(n, C).sum(axis=0)


def _cf_stats(x: np.ndarray, acc: np.dtype, bounds: list) -> tuple[np.ndarray, np.ndarray]:
    """Batch mean and biased variance per channel of a contiguous NCHW tensor: the mean, then the
    mean of the squared deviations (as the registry kernel), sample chunks on the pool."""
    N, C = x.shape[:2]
    count = acc.type(x.size // C)
    xr = _rows(x)
    mean = (_cf_sum(lambda lo, hi: _plane_sums(xr[lo:hi], acc), bounds, acc) / count).astype(acc)
    m3 = mean.reshape(1, C, 1)

    def sq(lo: int, hi: int) -> np.ndarray:
        d = np.subtract(xr[lo:hi], m3, dtype=acc)
        return _plane_dots(d, d)
    var = (_cf_sum(sq, bounds, acc) / count).astype(acc)
    return mean, var


def _bn_train_cf(attrs, x, gamma, beta, moving_mean, moving_var):
    """BatchNorm's training forward on channel-first data (batch statistics; the moving ones are
    updated by the backward, as MXNet's CPU kernel does), as :func:`_bn_train` does channels-last."""
    out = np.empty_like(x)
    bn_train_cf_into(attrs, x, gamma, beta, out)
    return out


def bn_train_cf_into(attrs, x, gamma, beta, out):
    """:func:`_bn_train_cf` written into ``out`` (may be ``x``)."""
    x = np.ascontiguousarray(x)
    if not out.flags.c_contiguous:
        tmp = np.empty_like(x)
        bn_train_cf_into(attrs, x, gamma, beta, tmp)
        out[...] = tmp
        return
    acc = _acc(x.dtype)
    C = x.shape[1]
    bounds = _cf_parts(x)
    m, v = _cf_stats(x, acc, bounds)
    g = np.ones(C, dtype=acc) if attrs.fix_gamma else gamma.astype(acc, copy=False)
    invstd = 1 / np.sqrt(v + acc.type(attrs.eps))
    scale = g * invstd
    shift = beta.astype(acc, copy=False) - m * scale
    s3, t3 = scale.astype(x.dtype).reshape(1, C, 1), shift.astype(x.dtype).reshape(1, C, 1)
    xr, o3 = _rows(x), _rows(out)

    def run(i: int) -> None:
        lo, hi = bounds[i]
        np.multiply(xr[lo:hi], s3, out=o3[lo:hi])
        np.add(o3[lo:hi], t3, out=o3[lo:hi])
    run_chunks(run, len(bounds))


BN_TRAIN_CF = _internal("_hy_bn_train_cf", _bn_train_cf, (_p("eps", 1e-3), _p("fix_gamma", True)),
                        ("data", "gamma", "beta", "moving_mean", "moving_var"),
                        lambda a, s: (list(s), [tuple(s[0])]), infer_type=lambda a, d: [d[0]])


def _bn_train_bwd_cf(attrs, g, x, gamma, beta, moving_mean, moving_var):
    """BatchNorm's (d data, d gamma, d beta) in training mode on channel-first data, the moving
    statistics updated in place, as ``_backward_BatchNorm`` (and :func:`_bn_train_bwd` channels-last)."""
    dx = np.empty(x.shape, x.dtype)
    return (dx,) + bn_train_bwd_cf_into(attrs, g, x, gamma, beta, moving_mean, moving_var, dx)


def bn_train_bwd_cf_into(attrs, g, x, gamma, beta, moving_mean, moving_var, dx):
    """:func:`_bn_train_bwd_cf` with d data written into ``dx`` (may be ``g``); returns (d gamma, d beta)."""
    x, g = np.ascontiguousarray(x), np.ascontiguousarray(g)
    if not dx.flags.c_contiguous:
        tmp = np.empty(x.shape, x.dtype)
        res = bn_train_bwd_cf_into(attrs, g, x, gamma, beta, moving_mean, moving_var, tmp)
        dx[...] = tmp
        return res
    acc = _acc(x.dtype)
    N, C = x.shape[:2]
    count = acc.type(x.size // C)
    bounds = _cf_parts(x)
    xr, gr, dr = _rows(x), _rows(g), _rows(dx)
    mean = (_cf_sum(lambda lo, hi: _plane_sums(xr[lo:hi], acc), bounds, acc) / count).astype(acc)
    m3 = mean.reshape(1, C, 1)

    xcs: list = [None] * len(bounds)      # each chunk's deviations, kept for the gradient's pass

    def sums(lo: int, hi: int) -> np.ndarray:
        """The variance's sum (as :func:`_cf_stats`), the gradient's sum and its dot with the
        deviations, from one read of the chunk."""
        xc = np.subtract(xr[lo:hi], m3, dtype=acc)
        xcs[bounds.index((lo, hi))] = xc
        ga = gr[lo:hi].astype(acc, copy=False)
        return np.stack([_plane_dots(xc, xc), _plane_sums(ga, acc), _plane_dots(ga, xc), _plane_sums(xc, acc)])
    sum_sq, sum_g, sum_gxc, sum_xc = _cf_sum(sums, bounds, acc)
    var = (sum_sq / count).astype(acc, copy=False)
    sum_gxc = centered_dot(sum_gxc, sum_xc, sum_g, count)
    invstd = 1 / np.sqrt(var + acc.type(attrs.eps))
    gam = np.ones_like(invstd) if attrs.fix_gamma else gamma.astype(acc, copy=False)
    scale = (gam * invstd).astype(acc).reshape(1, C, 1)
    mg = (sum_g / count).astype(acc).reshape(1, C, 1)
    coef = (invstd * invstd * sum_gxc / count).astype(acc).reshape(1, C, 1)

    def grad(i: int) -> None:
        lo, hi = bounds[i]
        xc = xcs[i]
        xc *= coef
        if dx.dtype == acc:           # straight into d data (over g when in place: position by position)
            d = np.subtract(gr[lo:hi], mg, out=dr[lo:hi])
            d -= xc
            d *= scale
        else:
            d = np.subtract(gr[lo:hi], mg, dtype=acc)
            d -= xc
            d *= scale
            dr[lo:hi] = d
    run_chunks(grad, len(bounds))
    update_moving_stats(attrs, mean, var, moving_mean, moving_var, acc)
    return bn_param_grads(attrs, sum_g, sum_gxc, invstd, gamma, beta)


BN_TRAIN_BWD_CF = _internal("_hy_bn_train_bwd_cf", _bn_train_bwd_cf,
                            (_p("eps", 1e-3), _p("momentum", 0.9), _p("fix_gamma", True)),
                            ("ograd", "data", "gamma", "beta", "moving_mean", "moving_var"),
                            lambda a, s: (list(s), [tuple(s[1]), tuple(s[2]), tuple(s[3])]), num_outputs=3,
                            infer_type=lambda a, d: [d[1], d[2], d[3]])


# ------------------------------------------------------------------------------------------
# few-filter convolution and tiling max pool, channel first (LeNet's first layer)
# ------------------------------------------------------------------------------------------
# samples per chunk of the channel-first convolution (its columns in cache: 16 x 26 x 576 floats);
# chunks run one after the other: at LeNet's size two threads ran 1.2-1.8x slower (small calls)
_CONV_CF_SAMPLES = 16


def _conv_cf(attrs, x, w, *b):
    """See :func:`conv_cf_into`."""
    (kh, kw), (sh, sw), (dh, dw_), (ph, pw) = attrs.kernel, attrs.stride, attrs.dilate, attrs.pad
    N, C, H, W = x.shape
    OH = (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    OW = (W + 2 * pw - dw_ * (kw - 1) - 1) // sw + 1
    out = np.empty((N, w.shape[0], OH, OW), np.result_type(x.dtype, w.dtype))
    conv_cf_into(attrs, x, w, *b, out)
    return out


def conv_cf_into(attrs, x, w, *rest):
    """A 2-D convolution (one group) of few filters on channel-first data, written channel-first into
    ``rest[-1]`` (bias ``rest[0]`` when given): per chunk of samples, the columns
    ``(n, C * kh * kw [+ 1], OH * OW)`` (one strided copy per tap, along output rows; a row of ones
    carries the bias) and one batched product ``W (F, K) @ columns`` that lands in NCHW order, each
    output the sum over ``(c, i, j)`` as MXNet's im2col. The channels-last GEMM of LeNet's first
    convolution (6 filters of 1x5x5) ran its matmul with 6 columns, then a transpose back to the
    channel-first BatchNorm: 2.0 + 0.2 -> 1.0 ms CPU."""
    out = rest[-1]
    b = rest[0] if len(rest) > 1 else None
    kh, kw = attrs.kernel
    N, C = x.shape[:2]
    F = w.shape[0]
    OH, OW = out.shape[2:]
    K = C * kh * kw
    dt = out.dtype
    wm = w.reshape(F, K).astype(dt, copy=False)   # (c, i, j) columns: the weight's own order
    if b is not None:
        wm = np.concatenate([wm, b.astype(dt).reshape(F, 1)], axis=1)
    o3 = out.reshape(N, F, OH * OW)
    for lo, hi in _bounds(N, -(-N // _CONV_CF_SAMPLES)):
        cols = cf_columns(x[lo:hi], (OH, OW), attrs, ones=b is not None, dtype=dt)
        np.matmul(wm, cols, out=o3[lo:hi])


def cf_columns(x: np.ndarray, osp: tuple, attrs, ones: bool = False, dtype=None) -> np.ndarray:
    """The im2col columns ``(n, C * kh * kw [+ 1], OH * OW)`` of channel-first samples ``x``: rows in
    MXNet's ``(c, i, j)`` order, one strided copy per tap along output rows (zero padding in a padded
    copy first); ``ones``: a last row of ones (a bias rides in the product)."""
    (kh, kw), (sh, sw), (dh, dw_), (ph, pw) = attrs.kernel, attrs.stride, attrs.dilate, attrs.pad
    n, C, H, W = x.shape
    OH, OW = osp
    K = C * kh * kw
    dt = x.dtype if dtype is None else dtype
    if ph or pw:
        src = np.zeros((n, C, H + 2 * ph, W + 2 * pw), dt)
        src[:, :, ph:ph + H, pw:pw + W] = x
    else:
        src = x
    cols = np.empty((n, K + ones, OH, OW), dt)
    if ones:
        cols[:, K] = 1
    taps = cols[:, :K].reshape(n, C, kh, kw, OH, OW)
    for ti in range(kh):
        for tj in range(kw):
            taps[:, :, ti, tj] = src[:, :, ti * dh:ti * dh + sh * (OH - 1) + 1:sh,
                                     tj * dw_:tj * dw_ + sw * (OW - 1) + 1:sw]
    return cols.reshape(n, K + ones, OH * OW)


CONV_CF = _internal(
    "_hy_conv_cf", _conv_cf,
    (_p("kernel"), _p("stride"), _p("dilate"), _p("pad"), _p("num_filter"), _p("no_bias", False)),
    lambda a: ["data", "weight"] if a.no_bias else ["data", "weight", "bias"],
    lambda a, s: (list(s), [(s[0][0], a.num_filter,
                             (s[0][2] + 2 * a.pad[0] - a.dilate[0] * (a.kernel[0] - 1) - 1) // a.stride[0] + 1,
                             (s[0][3] + 2 * a.pad[1] - a.dilate[1] * (a.kernel[1] - 1) - 1) // a.stride[1] + 1)]),
    infer_type=lambda a, d: [d[0]])


def _maxpool_cf(attrs, x):
    """See :func:`maxpool_cf_into`."""
    (kh, kw) = attrs.kernel
    N, C, H, W = x.shape
    out = np.empty((N, C, H // kh, W // kw), x.dtype)
    maxpool_cf_into(attrs, x, out)
    return out


def maxpool_cf_into(attrs, x, out):
    """Max pooling of channel-first data over windows that tile it (kernel == stride, no padding):
    the maximum along each window's rows, then along its columns, as the registry kernel's
    separable passes (NaN propagates as ``np.maximum`` does), in place of a transpose to
    channels-last and back; samples in chunks on the pool."""
    (kh, kw) = attrs.kernel
    N, C, H, W = x.shape
    OH, OW = out.shape[2:]

    def run(i: int) -> None:
        lo, hi = bounds[i]
        xs = x[lo:hi, :, :OH * kh, :OW * kw]
        rows = xs[:, :, 0::kh]
        if kh > 1:
            rows = np.maximum(rows, xs[:, :, 1::kh])
            for t in range(2, kh):
                np.maximum(rows, xs[:, :, t::kh], out=rows)
        o = out[lo:hi]
        if kw == 1:
            o[...] = rows
            return
        np.maximum(rows[..., 0::kw], rows[..., 1::kw], out=o)
        for t in range(2, kw):
            np.maximum(o, rows[..., t::kw], out=o)
    bounds = _bounds(N, min(chunks_for(float(x.size) * 2, N, min_work=_CF_MIN_WORK), num_threads()))
    run_chunks(run, len(bounds))


MAXPOOL_CF = _internal("_hy_maxpool_cf", _maxpool_cf, (_p("kernel"),), ("data",),
                       lambda a, s: (list(s), [(s[0][0], s[0][1], s[0][2] // a.kernel[0], s[0][3] // a.kernel[1])]),
                       infer_type=lambda a, d: [d[0]])


# ------------------------------------------------------------------------------------------
# max pooling's backward
# ------------------------------------------------------------------------------------------
def _maxpool_bwd(attrs, g, x, y):
    """Max pooling's input gradient on NHWC tensors: each output's gradient goes to the first tap
    (row-major) of its window equal to the window's maximum (the forward's output), as the
    registry kernel; samples in chunks on the pool, each with its own padded scratch."""
    dx = np.empty_like(x)
    maxpool_bwd_into(attrs, g, x, y, dx)
    return dx


def maxpool_bwd_into(attrs, g, x, y, dx):
    """:func:`_maxpool_bwd` written into ``dx``: per tap of the window, the outputs whose tap falls
    inside the input (padding never holds a maximum, as MXNet's kernel never looks there), their
    first match accumulated into ``dx`` through a strided view. No padded copies of the input or
    the gradient: per chunk only its masks and one tap's shares (a chunk's outputs)."""
    (kh, kw), (sh, sw), (ph, pw) = attrs.kernel, attrs.stride, attrs.pad
    N, H, W, C = x.shape
    OH, OW = g.shape[1:3]
    dt = np.result_type(g.dtype, x.dtype)
    relu = getattr(attrs, "relu", False)
    rows = [_tap_range(t, sh, ph, H, OH) for t in range(kh)]
    cols = [_tap_range(t, sw, pw, W, OW) for t in range(kw)]

    def run(i: int) -> None:
        lo, hi = bounds[i]
        d = dx[lo:hi]
        d[...] = 0
        yy, gg = y[lo:hi], g[lo:hi]
        if relu:                         # relu's gradient fused (the layout pass's rewrite)
            gg = gg * (yy > 0)
        found = np.zeros(yy.shape, bool)
        hit = np.empty(yy.shape, bool)
        part = np.empty(gg.shape, dt)
        for ti in range(kh):
            a0, a1 = rows[ti]
            if a0 >= a1:
                continue
            i0 = a0 * sh + ti - ph
            ri = slice(i0, i0 + sh * (a1 - a0 - 1) + 1, sh)
            for tj in range(kw):
                b0, b1 = cols[tj]
                if b0 >= b1:
                    continue
                j0 = b0 * sw + tj - pw
                rj = slice(j0, j0 + sw * (b1 - b0 - 1) + 1, sw)
                h, f, p = hit[:, a0:a1, b0:b1], found[:, a0:a1, b0:b1], part[:, a0:a1, b0:b1]
                np.equal(x[lo:hi, ri, rj], yy[:, a0:a1, b0:b1], out=h)
                np.greater(h, f, out=h)
                f |= h
                np.multiply(gg[:, a0:a1, b0:b1], h, out=p)
                d[:, ri, rj] += p
    bounds = _bounds(N, chunks_for(float(g.size) * kh * kw * 5, N, min_work=1e6))
    run_chunks(run, len(bounds))


def _tap_range(t: int, s: int, p: int, n_in: int, n_out: int) -> tuple[int, int]:
    """The outputs ``o`` whose window tap ``t`` reads an input, ``0 <= o * s + t - p < n_in``."""
    return max(0, -(-(p - t) // s)), min(n_out, (n_in - 1 + p - t) // s + 1)


MAXPOOL_BWD = _internal("_hy_maxpool_bwd", _maxpool_bwd, (_p("kernel"), _p("stride"), _p("pad"), _p("relu", False)),
                        ("ograd", "data", "output"), lambda a, s: (list(s), [tuple(s[1])]),
                        infer_type=lambda a, d: [d[1]])


def _maxpool_bwd_cf(attrs, g, x, y):
    """Max pooling's input gradient on channel-first tensors for windows that tile the input
    (kernel == stride, no padding: LeNet's 2x2 pools), as the registry kernel: each output's
    gradient to the first tap (row-major) of its window equal to the window's maximum. A window's
    taps are strided views of the input and the gradient, so each tap's share is written in place
    (no padded copy, no scatter-add, no crop); samples in chunks on the pool. NaN maxima take the
    registry kernel (its argmax rule)."""
    dx = np.empty_like(x)
    maxpool_bwd_cf_into(attrs, g, x, y, dx)
    return dx


def maxpool_bwd_cf_into(attrs, g, x, y, dx):
    """:func:`_maxpool_bwd_cf` written into ``dx``."""
    (kh, kw) = attrs.kernel
    N, C, H, W = x.shape
    OH, OW = g.shape[2:]
    if getattr(attrs, "relu", False):    # relu's gradient fused (the layout pass's rewrite)
        g = g * (y > 0)
    if np.isnan(y).any():
        from ...ops.nn_pool import _pool_backward_cf
        dx[...] = _pool_backward_cf(_pool_attrs(attrs), x, y, g)
        return
    if OH * kh != H or OW * kw != W:     # rows or columns no window reads
        dx[...] = 0
    dt = dx.dtype

    def taps(a: np.ndarray) -> np.ndarray:
        """``(n, C, OH, kh, OW, kw)``: window rows and taps of a channel-first array (a view)."""
        sN, sC, sH, sW = a.strides
        return as_strided(a, (a.shape[0], C, OH, kh, OW, kw), (sN, sC, sH * kh, sH, sW * kw, sW))

    def run(i: int) -> None:
        lo, hi = bounds[i]
        xv, dv = taps(x[lo:hi]), taps(dx[lo:hi])
        yy, gg = y[lo:hi], g[lo:hi]
        found = np.zeros(yy.shape, bool)
        hit = np.empty(yy.shape, bool)
        for ti in range(kh):
            for tj in range(kw):
                np.equal(xv[:, :, :, ti, :, tj], yy, out=hit)
                np.greater(hit, found, out=hit)
                found |= hit
                np.multiply(gg, hit, out=dv[:, :, :, ti, :, tj], dtype=dt, casting="unsafe")
    bounds = _bounds(N, min(chunks_for(float(x.size) * 4, N, min_work=_CF_MIN_WORK), num_threads()))
    run_chunks(run, len(bounds))


def _pool_attrs(attrs):
    """The registry Pooling attributes of a max pool (for the NaN fallback)."""
    from types import SimpleNamespace
    return SimpleNamespace(pool_type="max", global_pool=False, kernel=tuple(attrs.kernel),
                           stride=tuple(attrs.kernel), pad=(0, 0), pooling_convention="valid",
                           p_value=None, count_include_pad=True, layout="NCHW")


# a channel-first training kernel splits its samples over the pool from this many element ops. Its
# passes are numpy calls of one chunk each: two threads gain only when each call runs long without
# the GIL. At LeNet's first layer (6 x 24 x 24 at batch 64: 2.2e5 elements, calls of 10-100 us) the
# split ran 1.7-2x slower than one thread (GIL hand-offs and wake-ups, measured at high priority);
# at 2.2e6 elements a pass split in two ran 1.9x faster
_CF_MIN_WORK = 4e6

MAXPOOL_BWD_CF = _internal("_hy_maxpool_bwd_cf", _maxpool_bwd_cf, (_p("kernel"), _p("relu", False)),
                           ("ograd", "data", "output"), lambda a, s: (list(s), [tuple(s[1])]),
                           infer_type=lambda a, d: [d[1]])


# ------------------------------------------------------------------------------------------
# convolution gradients
# ------------------------------------------------------------------------------------------
_COLS_BYTES = 8 << 20        # im2col columns built per chunk (per thread)


def _wgrad_nhwc(attrs, g, x, w):
    """The weight (and bias) gradient of a 2-D convolution (one group) from the NHWC output
    gradient ``g`` and data ``x``: ``dW[f, (i, j, c)] = sum_rows g[row, f] * x_patch[row, (i, j, c)]``,
    one GEMM per chunk of output rows over that chunk's NHWC patches (built tap by tap, each a
    contiguous channel run), chunks on the pool, partial sums added. ``w`` gives the shape
    ``(F, C, kh, kw)`` of the result."""
    fn, scratch = build_wgrad(attrs, g.shape, x.shape, g.dtype)
    dw = np.empty(w.shape, w.dtype)
    db = None if attrs.no_bias else np.empty((g.shape[-1],), g.dtype)
    fn(g, x, dw, db, *[np.empty(sh, dt) for sh, dt in scratch])
    return (dw,) if db is None else (dw, db)


def build_wgrad(attrs, g_shape: tuple, x_shape: tuple, dtype) -> tuple:
    """``(fn, scratch)``: ``fn(g, x, dw, db, *scratch_buffers)`` writes the weight gradient into
    ``dw`` ``(F, C, kh, kw)`` (and the bias gradient into ``db`` unless None): the parameters'
    gradient buffers when a backward program is given them. Its working arrays (padded copies,
    patch columns, each thread's partial sums) are the listed scratch buffers, which a compiled
    program plans (in its arena, sized once) instead of allocating them on every call."""
    (kh, kw), (sh, sw), (dh, dw_), (ph, pw) = attrs.kernel, attrs.stride, attrs.dilate, attrs.pad
    N, H, W, C = x_shape
    OH, OW, F = g_shape[1:]
    Hp, Wp = H + 2 * ph, W + 2 * pw
    dtype = np.dtype(dtype)
    if (sh, sw) == (1, 1) and OH == Hp - (kh - 1) * dh and OW == Wp - (kw - 1) * dw_ \
            and Hp * Wp <= _SHIFTED_MAX_WASTE * OH * OW:
        fn, scratch = _build_wgrad_shifted(x_shape, g_shape, (kh, kw), (dh, dw_), (ph, pw), dtype)
    else:
        fn, scratch = _build_wgrad_patches(attrs, x_shape, g_shape, dtype)

    def run(g, x, dw, db, *rest):
        fn(g, x, dw, rest)
        if db is not None:
            np.add.reduce(g, axis=(0, 1, 2), out=db)
    return run, scratch


# a stride-1 weight gradient reads the padded images: worth it while they are at most this much
# larger than the output (56x56 pads to 58x58: 1.07). Measured (CPU time, batch 8, C = F): 56x56x64
# 40 ms vs 51 ms by patches; from 28x28x128 on the patches GEMM (wider) is faster
_SHIFTED_MAX_WASTE = 1.1


_SHIFT_CHUNK_BYTES = 1 << 20     # padded rows of the input (or gradient) per chunk of a shifted weight gradient


def _build_wgrad_shifted(x_shape: tuple, g_shape: tuple, kernel: tuple, dil: tuple, pad: tuple,
                         dtype: np.dtype) -> tuple:
    """A stride-1 weight gradient without im2col: with the output gradient laid on the padded
    input's grid (zeros off the outputs) and both flattened to rows of pixels, tap ``(i, j)``'s
    input rows are the padded input's rows shifted by ``i * dh * Wp + j * dw``: one GEMM per tap,
    ``g_rows^T @ x_rows[shift:]``. The padded rows go in chunks of about ``_SHIFT_CHUNK_BYTES``,
    consecutive chunks per thread (summed in order), each chunk's padded input and gridded gradient
    built in the thread's scratch (not the whole padded input and gradient: 14 MiB at resnet18's
    56x56x64, batch 8). Scratch per thread: those two, its ``(taps, C, F)`` sums and one product."""
    (kh, kw), (dh, dw_), (ph, pw) = kernel, dil, pad
    N, H, W, C = x_shape
    OH, OW, F = g_shape[1:]
    Hp, Wp = H + 2 * ph, W + 2 * pw
    R = N * Hp                                        # padded image rows
    tail = (kh - 1) * dh * Wp + (kw - 1) * dw_
    extra = -(-tail // Wp)                            # padded rows past a chunk its shifts read
    cr = max(1, min(R, _SHIFT_CHUNK_BYTES // (Wp * max(C, F) * dtype.itemsize)))
    chunks = _bounds(R, -(-R // cr))
    threads = min(num_threads(), 4, len(chunks))
    blocks = _bounds(len(chunks), threads)
    shifts = [i * dh * Wp + j * dw_ for i in range(kh) for j in range(kw)]
    cr = max(b - a for a, b in chunks)
    scratch = [((threads, (cr + extra) * Wp, C), dtype), ((threads, cr * Wp, F), dtype),
               ((threads, len(shifts), C, F), dtype), ((threads, C, F), dtype)]

    def grid(dst: np.ndarray, src: np.ndarray, r0: int, r1: int, top: int, left: int) -> None:
        """Padded rows ``r0:r1`` (of every image's ``Hp``, in order) of ``src`` laid at (``top``,
        ``left``) on the ``(Hp, Wp)`` grid, zeros elsewhere, into ``dst`` ``((r1 - r0) * Wp, ch)``."""
        d3 = dst[:(r1 - r0) * Wp].reshape(r1 - r0, Wp, dst.shape[-1])
        d3[...] = 0
        n0, n1 = r0 // Hp, min(N, -(-r1 // Hp))
        for n in range(n0, n1):
            a, b = max(r0, n * Hp + top), min(r1, n * Hp + top + src.shape[1])     # rows holding src
            if b > a:
                d3[a - r0:b - r0, left:left + src.shape[2]] = src[n, a - n * Hp - top:b - n * Hp - top]

    def run(g, x, dw, rest) -> None:
        xb_t, gb_t, acc_t, tmp_t = rest

        def block(t: int) -> None:
            xb, gb, acc, tmp = xb_t[t], gb_t[t], acc_t[t], tmp_t[t]
            for c, i in enumerate(range(*blocks[t])):
                r0, r1 = chunks[i]
                grid(xb, x, r0, r1 + extra, ph, pw)
                grid(gb, g, r0, r1, 0, 0)
                rows = (r1 - r0) * Wp
                for k, s in enumerate(shifts):
                    if c == 0:
                        _matmul_into(xb[s:s + rows].T, gb[:rows], acc[k])
                    else:
                        _matmul_into(xb[s:s + rows].T, gb[:rows], tmp)
                        acc[k] += tmp
        run_chunks(block, threads)
        out = acc_t[0]
        for t in range(1, threads):
            out += acc_t[t]
        np.copyto(dw, out.reshape(kh, kw, C, F).transpose(3, 2, 0, 1), casting="unsafe")
    return run, scratch


def _build_wgrad_patches(attrs, x_shape: tuple, g_shape: tuple, dtype: np.dtype) -> tuple:
    """The weight gradient as GEMMs over chunks of im2col patches (any stride). Scratch: each
    thread's patch columns and padded input band (one chunk's), its partial sum ``(F, K)`` (and one
    more for a chunk's product when it runs several)."""
    (kh, kw), (sh, sw), (dh, dw_), (ph, pw) = attrs.kernel, attrs.stride, attrs.dilate, attrs.pad
    N, H, W, C = x_shape
    OH, OW, F = g_shape[1:]
    K = kh * kw * C
    T = num_threads()
    total = N * OH
    per_row = OW * K * dtype.itemsize
    # chunks of output rows (across samples: a long reduction for BLAS), a block of consecutive
    # chunks per thread, each summed in order: the same result whichever thread runs a block
    n_chunks = max(-(-total * per_row // _COLS_BYTES), min(T, total))
    n_chunks = min(total, -(-n_chunks // T) * T)
    bounds = _bounds(total, n_chunks)
    threads = min(T, len(bounds))
    blocks = _bounds(len(bounds), threads)
    Wp = max(W + 2 * pw, (OW - 1) * sw + (kw - 1) * dw_ + 1)
    rows = max(r1 - r0 for r0, r1 in bounds)
    band_rows = (min(rows, OH) - 1) * sh + (kh - 1) * dh + 1
    several = any(b - a > 1 for a, b in blocks)
    scratch = [((threads, rows * OW, K), dtype), ((threads, 1, band_rows, Wp, C), dtype),
               ((threads, F, K), dtype)] + ([((threads, F, K), dtype)] if several else [])

    def run(g, x, dw, rest) -> None:
        cols_t, band_t, acc_t = rest[:3]
        part_t = rest[3] if several else None
        g2 = g.reshape(total, OW * F)

        def patches(t: int, r0: int, r1: int) -> np.ndarray:
            """Columns ``((r1 - r0) * OW, kh * kw * C)`` of the flattened output rows ``r0:r1``: per
            sample, the padded input band they read, then one strided copy per tap."""
            cols = cols_t[t, :(r1 - r0) * OW].reshape(r1 - r0, OW, kh, kw, C)
            r = r0
            while r < r1:
                n, o0 = divmod(r, OH)
                o1 = min(OH, o0 + r1 - r)
                m = o1 - o0
                band = band_t[t, :, :(m - 1) * sh + (kh - 1) * dh + 1]
                _pad_rows(band, x[n:n + 1], o0 * sh, ph, pw)
                dst = cols[r - r0:r - r0 + m]
                for i in range(kh):
                    src = band[0, i * dh:i * dh + sh * (m - 1) + 1:sh]              # (m, Wp, C)
                    if dw_ == 1:     # taps j = 0..kw-1 of one output column: kw * C contiguous values
                        st = src.strides
                        win = as_strided(src, (m, OW, kw * C), (st[0], sw * st[1], st[2]), writeable=False)
                        dst[:, :, i] = win.reshape(m, OW, kw, C)
                    else:
                        for j in range(kw):
                            dst[:, :, i, j] = src[:, j * dw_:j * dw_ + sw * (OW - 1) + 1:sw]
                r += m
            return cols.reshape(-1, K)

        def block(t: int) -> None:
            acc = acc_t[t]
            for k, i in enumerate(range(*blocks[t])):
                r0, r1 = bounds[i]
                gt = g2[r0:r1].reshape(-1, F).T
                if k == 0:
                    _matmul_into(gt, patches(t, r0, r1), acc)
                else:
                    _matmul_into(gt, patches(t, r0, r1), part_t[t])
                    acc += part_t[t]
        run_chunks(block, threads)
        out = acc_t[0]
        for t in range(1, threads):
            out += acc_t[t]
        np.copyto(dw, out.reshape(F, kh, kw, C).transpose(0, 3, 1, 2), casting="unsafe")
    return run, scratch


def _matmul_into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = a @ b`` (half precision multiplied in float32, as ``ops._nnutil.matmul``)."""
    if a.dtype == np.float16 or b.dtype == np.float16:
        out[...] = matmul(a, b)
    else:
        np.matmul(a, b, out=out)


WGRAD_NHWC = _internal(
    "_hy_wgrad_nhwc", _wgrad_nhwc,
    (_p("kernel"), _p("stride"), _p("dilate"), _p("pad"), _p("no_bias", False)),
    ("ograd", "data", "weight"),
    lambda a, s: (list(s), [tuple(s[2])] + ([] if a.no_bias else [(s[2][0],)])),
    num_outputs=lambda a: 1 if a.no_bias else 2,
    infer_type=lambda a, d: [d[2]] * (1 if a.no_bias else 2))


def _dgrad_nhwc(attrs, g, w):
    """See :func:`build_dgrad`."""
    fn, scratch = build_dgrad(attrs, g.shape, w.shape, np.result_type(w.dtype, g.dtype))
    dx = np.empty(tuple(attrs.data_shape), w.dtype)
    fn(g, w, dx, *[np.empty(sh, dt) for sh, dt in scratch])
    return dx


def build_dgrad(attrs, g_shape: tuple, w_shape: tuple, dtype) -> tuple:
    """``(fn, scratch)``: ``fn(g, w, dx, *scratch_buffers)`` writes the data gradient of a strided
    2-D convolution (one group) on NHWC tensors into ``dx``: per chunk of samples,
    ``g (n*OH*OW, F) @ W (F, kh*kw*C)`` gives each output position's patch gradient, added back tap
    by tap into a padded buffer (col2im); consecutive chunks per thread. Scratch (a compiled
    program's, planned): the weight re-laid out ``(F, kh*kw*C)``, each thread's columns and padded
    buffer (one chunk's). ``data_shape``: the data's NHWC shape."""
    (kh, kw), (sh, sw), (dh, dw_), (ph, pw) = attrs.kernel, attrs.stride, attrs.dilate, attrs.pad
    N, H, W, C = attrs.data_shape
    OH, OW, F = g_shape[1:]
    K = kh * kw * C
    Hp = max(H + 2 * ph, (OH - 1) * sh + (kh - 1) * dh + 1)
    Wp = max(W + 2 * pw, (OW - 1) * sw + (kw - 1) * dw_ + 1)
    dt = np.dtype(dtype)
    bounds = _bounds(N, chunks_for(float(N * OH * OW * F) * K, N))
    threads = min(num_threads(), len(bounds))
    blocks = _bounds(len(bounds), threads)
    n = max(hi - lo for lo, hi in bounds)
    scratch = [((F, K), dt), ((threads, n * OH * OW, K), dt), ((threads, n, Hp, Wp, C), dt)]

    def run(g, w, dx, wm, cols_t, buf_t) -> None:
        np.copyto(wm.reshape(F, kh, kw, C), w.transpose(0, 2, 3, 1), casting="unsafe")

        def block(t: int) -> None:
            for lo, hi in bounds[blocks[t][0]:blocks[t][1]]:
                m = hi - lo
                cols = cols_t[t, :m * OH * OW]
                _matmul_into(g[lo:hi].reshape(m * OH * OW, F), wm, cols)
                c6 = cols.reshape(m, OH, OW, kh, kw, C)
                buf = buf_t[t, :m]
                buf[...] = 0
                for ti in range(kh):
                    for tj in range(kw):
                        sl = (slice(None), slice(ti * dh, ti * dh + sh * (OH - 1) + 1, sh),
                              slice(tj * dw_, tj * dw_ + sw * (OW - 1) + 1, sw))
                        buf[sl] += c6[:, :, :, ti, tj]
                dx[lo:hi] = buf[:, ph:ph + H, pw:pw + W]
        run_chunks(block, threads)
    return run, scratch


DGRAD_NHWC = _internal(
    "_hy_dgrad_nhwc", _dgrad_nhwc,
    (_p("kernel"), _p("stride"), _p("dilate"), _p("pad"), _p("data_shape")),
    ("ograd", "weight"),
    lambda a, s: (list(s), [tuple(a.data_shape)]),
    infer_type=lambda a, d: [d[1]])
