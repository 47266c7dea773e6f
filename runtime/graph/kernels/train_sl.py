"""Samples-last kernels of compiled training programs: few-channel layers (LeNet's) on ``(C, H, W, N)``
tensors, the sample axis innermost.

Channel-first, a small layer's every numpy pass runs along image rows of a few floats (LeNet's
24-wide maps, 12-wide pool windows, 8-wide second layer): the per-call overhead of numpy's inner
loops dominates. Samples-last, a tap of a convolution's columns is a copy of whole ``(OW, N)``
blocks (1536 floats at batch 64), a max pool's tap a run of ``N``, a BatchNorm channel one
contiguous row, and the convolution's GEMM lands in the same layout: the layers between the
network's input and its flatten need no transposes (the layout pass keeps them samples-last when
the batch is large, ``_SL_MIN_SAMPLES``; small batches stay channel-first).

They compute what the registry kernels compute: each output the same sum (a convolution's over
``(c, i, j)``, MXNet's im2col order; the data gradient's taps added in row-major order); only the
BatchNorm statistics and the weight gradients sum their terms in another order.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ...ops.nn_norm import bn_param_grads, centered_dot, update_moving_stats
from .common import _internal, _p, apply_act
from .train import _bounds, _pool_attrs

__all__ = ["BN_TRAIN_SL", "BN_TRAIN_BWD_SL", "CONV_SL", "DGRAD_SL", "MAXPOOL_SL", "MAXPOOL_BWD_SL", "WGRAD_SL",
           "POOL_TAPS", "POOL_TAPS_SL", "MAXPOOL_BWD_TAPS", "MAXPOOL_BWD_TAPS_SL", "TO_SL", "FROM_SL"]

# (N, C, H, W) <-> (C, H, W, N): the layout pass's transposes into and out of the samples-last region
TO_SL = (1, 2, 3, 0)
FROM_SL = (3, 0, 1, 2)

# the columns built at once (a block of output rows): in L2 for the GEMM that reads them
_COLS_BYTES = 512 << 10
# The blocks run one after the other: LeNet's convolutions and gradients (5-10M multiply-adds at
# batch 64, 1-1.5 ms each) split over the pool's two threads made the step slower, wall and CPU,
# even with the process at real-time priority (15.1 vs 13.1 ms wall a step, CPU 18.8 vs 13.0 ms).


def _out_size(n: int, k: int, s: int, p: int, d: int) -> int:
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


def _taps(x: np.ndarray, attrs, osp: tuple) -> tuple[np.ndarray, np.ndarray | None]:
    """``(C, kh, kw, OH, OW, N)``: every output position's window of samples-last ``x`` (a view of
    ``x``, or of its zero-padded copy, returned second so it outlives the view)."""
    (kh, kw), (sh, sw), (dh, dw), (ph, pw) = attrs.kernel, attrs.stride, attrs.dilate, attrs.pad
    C, H, W, N = x.shape
    src = None
    if ph or pw:
        src = np.zeros((C, H + 2 * ph, W + 2 * pw, N), x.dtype)
        src[:, ph:ph + H, pw:pw + W] = x
        x = src
    s = x.strides
    return as_strided(x, (C, kh, kw) + tuple(osp) + (N,),
                      (s[0], s[1] * dh, s[2] * dw, s[1] * sh, s[2] * sw, s[3]), writeable=False), src


def _row_blocks(OH: int, per_row: int) -> list[tuple[int, int]]:
    """Blocks of output rows whose columns (``per_row`` bytes a row) fit ``_COLS_BYTES``."""
    r = max(1, _COLS_BYTES // max(per_row, 1))
    return [(r0, min(OH, r0 + r)) for r0 in range(0, OH, r)]


def _block_columns(taps: np.ndarray, blocks: list, dt: np.dtype):
    """Each row block's columns ``(K, rows * OW * N)``, copied into one buffer reused block after
    block (a fresh array per block held two blocks at once while the next was allocated)."""
    K = int(np.prod(taps.shape[:3]))
    rows = max(r1 - r0 for r0, r1 in blocks)
    buf = np.empty(K * rows * int(np.prod(taps.shape[4:])), dt)
    for r0, r1 in blocks:
        cols = buf[:K * (r1 - r0) * int(np.prod(taps.shape[4:]))].reshape(taps.shape[:3] + (r1 - r0,) + taps.shape[4:])
        np.copyto(cols, taps[:, :, :, r0:r1])
        yield r0, r1, cols.reshape(K, -1)


# ------------------------------------------------------------------------------------------
# convolution (one group)
# ------------------------------------------------------------------------------------------
def _conv_sl(attrs, x, w, *b):
    """See :func:`conv_sl_into`."""
    (kh, kw), (sh, sw), (dh, dw), (ph, pw) = attrs.kernel, attrs.stride, attrs.dilate, attrs.pad
    C, H, W, N = x.shape
    out = np.empty((w.shape[0], _out_size(H, kh, sh, ph, dh), _out_size(W, kw, sw, pw, dw), N),
                   np.result_type(x.dtype, w.dtype))
    conv_sl_into(attrs, x, w, *b, out)
    return out


def conv_sl_into(attrs, x, w, *rest):
    """A 2-D convolution (one group) of samples-last data into samples-last ``rest[-1]`` (bias
    ``rest[0]`` when given): per block of output rows, the columns ``(C * kh * kw, rows * OW * N)``
    (one strided copy, runs of ``OW * N``) and one GEMM ``W (F, K) @ columns`` straight into the
    output's rows, each output the sum over ``(c, i, j)`` as MXNet's im2col; the bias added after."""
    out = rest[-1]
    b = rest[0] if len(rest) > 1 else None
    F, OH, OW, N = out.shape
    dt = out.dtype
    taps, _keep = _taps(x, attrs, (OH, OW))
    K = int(np.prod(taps.shape[:3]))
    wm = w.reshape(F, K).astype(dt, copy=False)
    bias = None if b is None else b.astype(dt, copy=False).reshape(F, 1)
    o2 = out.reshape(F, -1)
    row = OW * N
    for r0, r1, cols in _block_columns(taps, _row_blocks(OH, K * row * dt.itemsize), dt):
        o = o2[:, r0 * row:r1 * row]
        np.matmul(wm, cols, out=o)
        if bias is not None:
            np.add(o, bias, out=o)


def _conv_sl_shape(a, s):
    C, H, W, N = s[0]
    (kh, kw), (sh, sw), (dh, dw), (ph, pw) = a.kernel, a.stride, a.dilate, a.pad
    return list(s), [(a.num_filter, _out_size(H, kh, sh, ph, dh), _out_size(W, kw, sw, pw, dw), N)]


CONV_SL = _internal(
    "_hy_conv_sl", _conv_sl,
    (_p("kernel"), _p("stride"), _p("dilate"), _p("pad"), _p("num_filter"), _p("no_bias", False)),
    lambda a: ["data", "weight"] if a.no_bias else ["data", "weight", "bias"],
    _conv_sl_shape, infer_type=lambda a, d: [d[0]])


def _wgrad_sl(attrs, g, x, w):
    """The weight (and bias) gradient of a one-group convolution from samples-last ``g`` and ``x``:
    ``dW (F, K) = sum over row blocks of g_rows (F, rows * OW * N) @ columns^T``, the columns built
    as the forward's; the bias's a sum along each filter's row."""
    F, OH, OW, N = g.shape
    taps, _keep = _taps(x, attrs, (OH, OW))
    K = int(np.prod(taps.shape[:3]))
    dt = np.result_type(g.dtype, x.dtype)
    g2 = g.reshape(F, -1)
    row = OW * N
    dw = None
    for r0, r1, cols in _block_columns(taps, _row_blocks(OH, K * row * dt.itemsize), dt):
        part = np.matmul(g2[:, r0 * row:r1 * row], cols.T)
        if dw is None:
            dw = part
        else:
            dw += part
    dw = dw.reshape(w.shape).astype(w.dtype, copy=False)
    if attrs.no_bias:
        return (dw,)
    return dw, np.add.reduce(g2, axis=1).astype(g.dtype, copy=False)


WGRAD_SL = _internal(
    "_hy_wgrad_sl", _wgrad_sl,
    (_p("kernel"), _p("stride"), _p("dilate"), _p("pad"), _p("no_bias", False)),
    ("ograd", "data", "weight"),
    lambda a, s: (list(s), [tuple(s[2])] + ([] if a.no_bias else [(s[2][0],)])),
    num_outputs=lambda a: 1 if a.no_bias else 2,
    infer_type=lambda a, d: [d[2]] * (1 if a.no_bias else 2))


def _dgrad_sl(attrs, g, w):
    """See :func:`dgrad_sl_into`."""
    dx = np.empty(tuple(attrs.data_shape), np.result_type(g.dtype, w.dtype))
    dgrad_sl_into(attrs, g, w, dx)
    return dx


def dgrad_sl_into(attrs, g, w, dx):
    """The data gradient of a one-group convolution, samples-last (``data_shape``: the data's
    ``(C, H, W, N)``): per chunk of channels and row of taps, one GEMM gives the taps' columns
    ``(kw, c, OH, OW, N)`` (the weight's transpose times the output gradient), added back tap by tap
    in row-major order (col2im, as the registry kernel) into ``dx`` (or a zero-padded buffer cropped
    into it), each tap's add along runs of ``OW * N``."""
    (kh, kw), (sh, sw), (dh, dw_), (ph, pw) = attrs.kernel, attrs.stride, attrs.dilate, attrs.pad
    F, OH, OW, N = g.shape
    C, H, W, _ = dx.shape
    g2 = g.reshape(F, -1)
    dt = np.result_type(g.dtype, w.dtype)
    Hp = max(H + 2 * ph, (OH - 1) * sh + (kh - 1) * dh + 1)
    Wp = max(W + 2 * pw, (OW - 1) * sw + (kw - 1) * dw_ + 1)
    direct = (Hp, Wp) == (H, W) and dx.flags.c_contiguous and dx.dtype == dt
    # per chunk of channels and row of taps, one GEMM gives the row's columns (kw, c, OH, OW, N), in
    # L2 when added back (every tap's at once: 2.4 MB for LeNet's second convolution, 0.61x the time)
    per_channel = kw * OH * OW * N * dt.itemsize
    chunks = _bounds(C, -(-C * per_channel // _COLS_BYTES))
    most = max(c1 - c0 for c0, c1 in chunks)
    cols_buf = np.empty(kw * most * OH * OW * N, dt)
    pad_buf = None if direct else np.empty(most * Hp * Wp * N, dt)
    for c0, c1 in chunks:
        wt = np.ascontiguousarray(w[:, c0:c1].transpose(2, 3, 1, 0)).reshape(kh, -1, F)
        cols = cols_buf[:kw * (c1 - c0) * OH * OW * N].reshape(kw, c1 - c0, OH, OW, N)
        buf = dx[c0:c1] if direct else pad_buf[:(c1 - c0) * Hp * Wp * N].reshape(c1 - c0, Hp, Wp, N)
        buf[...] = 0
        for i in range(kh):
            np.matmul(wt[i], g2, out=cols.reshape(kw * (c1 - c0), -1))
            for j in range(kw):
                buf[:, i * dh:i * dh + sh * (OH - 1) + 1:sh, j * dw_:j * dw_ + sw * (OW - 1) + 1:sw] += cols[j]
        if not direct:
            np.copyto(dx[c0:c1], buf[:, ph:ph + H, pw:pw + W], casting="unsafe")


DGRAD_SL = _internal(
    "_hy_dgrad_sl", _dgrad_sl,
    (_p("kernel"), _p("stride"), _p("dilate"), _p("pad"), _p("data_shape")),
    ("ograd", "weight"),
    lambda a, s: (list(s), [tuple(a.data_shape)]),
    infer_type=lambda a, d: [d[1]])


# ------------------------------------------------------------------------------------------
# BatchNorm, training mode: a channel is one contiguous row
# ------------------------------------------------------------------------------------------
# channels per chunk of a BatchNorm pass: the chunk's temporaries in L2 (LeNet's first layer: a
# channel is 36864 floats at batch 64), the statistics and the pass that uses them over one chunk
_BN_CHUNK_BYTES = 320 << 10


def _channel_chunks(x2: np.ndarray, acc: np.dtype) -> list[tuple[int, int]]:
    C, L = x2.shape
    per = max(1, _BN_CHUNK_BYTES // max(1, L * acc.itemsize))
    return [(c, min(C, c + per)) for c in range(0, C, per)]


def _row_sums(r: np.ndarray, ones: np.ndarray | None, acc: np.dtype) -> np.ndarray:
    """Sum of each row: a BLAS product with a column of ones when the dtypes allow."""
    if ones is not None and r.dtype == acc and r.flags.c_contiguous:
        return np.matmul(r, ones)
    return np.add.reduce(r, axis=1, dtype=acc)


def _row_dots(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``sum(a * b)`` of each row pair: one BLAS dot per row, no temporary."""
    c, L = a.shape
    return np.matmul(a.reshape(c, 1, L), b.reshape(c, L, 1)).reshape(c)


def _ones(L: int, acc: np.dtype) -> np.ndarray | None:
    return np.ones(L, acc) if acc in (np.float32, np.float64) else None


def _bn_train_sl(attrs, x, gamma, beta, moving_mean, moving_var):
    out = np.empty_like(x)
    bn_train_sl_into(attrs, x, gamma, beta, out)
    return out


def bn_train_sl_into(attrs, x, gamma, beta, out):
    """BatchNorm's training forward on samples-last data into ``out`` (may be ``x``), a channel one
    contiguous row: per chunk of channels the batch mean, the biased variance (the mean of the
    squared deviations, as the registry kernel) and the affine pass, the chunk in cache throughout
    (the moving statistics are updated by the backward, as MXNet's CPU kernel does); ``act`` (the
    fuse pass's: a following relu) applied to each chunk in cache."""
    x = np.ascontiguousarray(x)
    if not out.flags.c_contiguous:
        out[...] = _bn_train_sl(attrs, x, gamma, beta, None, None)
        return
    acc = np.dtype(np.float32) if x.dtype == np.float16 else x.dtype
    C = x.shape[0]
    x2, o2 = x.reshape(C, -1), out.reshape(C, -1)
    L = x2.shape[1]
    count, ones = acc.type(L), _ones(L, acc)
    eps = acc.type(attrs.eps)
    chunks = _channel_chunks(x2, acc)
    scratch = np.empty((max(c1 - c0 for c0, c1 in chunks), L), acc)     # a chunk's deviations
    for c0, c1 in chunks:
        r = x2[c0:c1]
        mean = (_row_sums(r, ones, acc) / count).astype(acc)
        d = np.subtract(r, mean[:, None], out=scratch[:c1 - c0], dtype=acc)
        var = (_row_dots(d, d) / count).astype(acc)
        g = np.ones(c1 - c0, acc) if attrs.fix_gamma else gamma[c0:c1].astype(acc, copy=False)
        scale = g * (1 / np.sqrt(var + eps))
        shift = beta[c0:c1].astype(acc, copy=False) - mean * scale
        o = o2[c0:c1]
        np.multiply(r, scale.astype(x.dtype)[:, None], out=o)
        np.add(o, shift.astype(x.dtype)[:, None], out=o)
        apply_act(o, tuple(getattr(attrs, "act", None) or ()))


BN_TRAIN_SL = _internal("_hy_bn_train_sl", _bn_train_sl, (_p("eps", 1e-3), _p("fix_gamma", True), _p("act", ())),
                        ("data", "gamma", "beta", "moving_mean", "moving_var"),
                        lambda a, s: (list(s), [tuple(s[0])]), infer_type=lambda a, d: [d[0]])


def _bn_train_bwd_sl(attrs, g, x, gamma, beta, moving_mean, moving_var):
    dx = np.empty(x.shape, x.dtype)
    return (dx,) + bn_train_bwd_sl_into(attrs, g, x, gamma, beta, moving_mean, moving_var, dx)


def bn_train_bwd_sl_into(attrs, g, x, gamma, beta, moving_mean, moving_var, dx):
    """BatchNorm's training backward on samples-last data, d data into ``dx`` (may be ``g``); returns
    (d gamma, d beta) and updates the moving statistics, as the channel-first kernel: per chunk of
    channels (a channel's every quantity is its own) the mean, the deviations, the variance's and the
    gradient's sums, then d data from the deviations still in cache."""
    x, g = np.ascontiguousarray(x), np.ascontiguousarray(g)
    if not dx.flags.c_contiguous:
        res = _bn_train_bwd_sl(attrs, g, x, gamma, beta, moving_mean, moving_var)
        dx[...] = res[0]
        return res[1:]
    acc = np.dtype(np.float32) if x.dtype == np.float16 else x.dtype
    C = x.shape[0]
    x2, g2, d2 = x.reshape(C, -1), g.reshape(C, -1), dx.reshape(C, -1)
    L = x2.shape[1]
    count, ones = acc.type(L), _ones(L, acc)
    eps = acc.type(attrs.eps)
    mean, var = np.empty(C, acc), np.empty(C, acc)
    sum_g, sum_gxc, invstd = np.empty(C, acc), np.empty(C, acc), np.empty(C, acc)
    chunks = _channel_chunks(x2, acc)
    scratch = np.empty((max(c1 - c0 for c0, c1 in chunks), L), acc)     # a chunk's deviations
    for c0, c1 in chunks:
        r = x2[c0:c1]
        m = (_row_sums(r, ones, acc) / count).astype(acc)
        xc = np.subtract(r, m[:, None], out=scratch[:c1 - c0], dtype=acc)
        ga = g2[c0:c1].astype(acc, copy=False)
        v = (_row_dots(xc, xc) / count).astype(acc)
        sg = _row_sums(ga, ones, acc)
        sgxc = centered_dot(_row_dots(ga, xc), _row_sums(xc, ones, acc), sg, count)
        inv = 1 / np.sqrt(v + eps)
        gam = np.ones_like(inv) if attrs.fix_gamma else gamma[c0:c1].astype(acc, copy=False)
        scale = (gam * inv).astype(acc)[:, None]
        mg = (sg / count).astype(acc)[:, None]
        coef = (inv * inv * sgxc / count).astype(acc)[:, None]
        xc *= coef
        if dx.dtype == acc:          # straight into d data (over g when in place: position by position)
            d = np.subtract(g2[c0:c1], mg, out=d2[c0:c1])
            d -= xc
            d *= scale
        else:
            d = np.subtract(g2[c0:c1], mg, dtype=acc)
            d -= xc
            d *= scale
            d2[c0:c1] = d
        mean[c0:c1], var[c0:c1], sum_g[c0:c1], sum_gxc[c0:c1], invstd[c0:c1] = m, v, sg, sgxc, inv
    update_moving_stats(attrs, mean, var, moving_mean, moving_var, acc)
    return bn_param_grads(attrs, sum_g, sum_gxc, invstd, gamma, beta)


BN_TRAIN_BWD_SL = _internal("_hy_bn_train_bwd_sl", _bn_train_bwd_sl,
                            (_p("eps", 1e-3), _p("momentum", 0.9), _p("fix_gamma", True)),
                            ("ograd", "data", "gamma", "beta", "moving_mean", "moving_var"),
                            lambda a, s: (list(s), [tuple(s[1]), tuple(s[2]), tuple(s[3])]), num_outputs=3,
                            infer_type=lambda a, d: [d[1], d[2], d[3]])


# ------------------------------------------------------------------------------------------
# max pooling over windows that tile the input (kernel == stride, no padding)
# ------------------------------------------------------------------------------------------
def _tap(a: np.ndarray, ti: int, tj: int, kernel: tuple, osp: tuple) -> np.ndarray:
    """Tap ``(ti, tj)`` of every window: ``(C, OH, OW, N)`` strided view of samples-last ``a``."""
    (kh, kw), (OH, OW) = kernel, osp
    return a[:, ti:ti + kh * (OH - 1) + 1:kh, tj:tj + kw * (OW - 1) + 1:kw]


def _maxpool_sl(attrs, x):
    kh, kw = attrs.kernel
    C, H, W, N = x.shape
    out = np.empty((C, H // kh, W // kw, N), x.dtype)
    maxpool_sl_into(attrs, x, out)
    return out


def maxpool_sl_into(attrs, x, out):
    """The maximum over each window's taps, one tap at a time into ``out`` (runs of ``N``; NaN
    propagates as ``np.maximum`` does, the registry kernel's rule)."""
    kernel = tuple(attrs.kernel)
    osp = out.shape[1:3]
    taps = [(i, j) for i in range(kernel[0]) for j in range(kernel[1])]
    if len(taps) == 1:
        out[...] = _tap(x, 0, 0, kernel, osp)
        return
    np.maximum(_tap(x, *taps[0], kernel, osp), _tap(x, *taps[1], kernel, osp), out=out)
    for t in taps[2:]:
        np.maximum(out, _tap(x, *t, kernel, osp), out=out)


MAXPOOL_SL = _internal("_hy_maxpool_sl", _maxpool_sl, (_p("kernel"),), ("data",),
                       lambda a, s: (list(s), [(s[0][0], s[0][1] // a.kernel[0], s[0][2] // a.kernel[1], s[0][3])]),
                       infer_type=lambda a, d: [d[0]])


def _maxpool_bwd_sl(attrs, g, x, y):
    dx = np.empty_like(x)
    maxpool_bwd_sl_into(attrs, g, x, y, dx)
    return dx


def maxpool_bwd_sl_into(attrs, g, x, y, dx):
    """Max pooling's input gradient, samples-last: each output's gradient to the first tap (row-major)
    of its window equal to the window's maximum, as the registry kernel, each tap's share written in
    place (runs of ``N``); relu's gradient fused when ``relu``; NaN maxima take the registry kernel."""
    kernel = tuple(attrs.kernel)
    C, H, W, N = x.shape
    osp = g.shape[1:3]
    if getattr(attrs, "relu", False):    # relu's gradient fused (the layout pass's rewrite)
        g = g * (y > 0)
    if np.isnan(y).any():
        from ...ops.nn_pool import _pool_backward_cf
        t = FROM_SL
        dx.transpose(t)[...] = _pool_backward_cf(_pool_attrs(attrs), x.transpose(t), y.transpose(t), g.transpose(t))
        return
    if osp[0] * kernel[0] != H or osp[1] * kernel[1] != W:     # rows or columns no window reads
        dx[...] = 0
    taps = [(i, j) for i in range(kernel[0]) for j in range(kernel[1])]
    found = np.empty(y.shape, bool)          # a window's maximum already met
    hit = np.empty(y.shape, bool)
    for k, t in enumerate(taps):
        if k == 0:
            np.equal(_tap(x, *t, kernel, osp), y, out=found)
            first = found
        else:
            np.equal(_tap(x, *t, kernel, osp), y, out=hit)
            np.greater(hit, found, out=hit)
            if k < len(taps) - 1:
                found |= hit
            first = hit
        np.multiply(g, first, out=_tap(dx, *t, kernel, osp), dtype=dx.dtype, casting="unsafe")


MAXPOOL_BWD_SL = _internal("_hy_maxpool_bwd_sl", _maxpool_bwd_sl, (_p("kernel"), _p("relu", False)),
                           ("ograd", "data", "output"), lambda a, s: (list(s), [tuple(s[1])]),
                           infer_type=lambda a, d: [d[1]])


# ------------------------------------------------------------------------------------------
# max pooling's backward from the forward's taps: the pool's input is not kept
# ------------------------------------------------------------------------------------------
# A tiling max pool's backward reads its input only to find each window's first maximum. The
# differentiate stage (``passes/differentiate.py``) has the forward record that tap instead, one
# byte a window (``_hy_pool_taps``), so the input (a relu's output: LeNet's 6 x 24 x 24 x 64 floats,
# a third of the step's saved activations) is not saved for the backward.

def _pool_taps_sl(attrs, x, y):
    out = np.empty(y.shape, np.int8)
    pool_taps_sl_into(attrs, x, y, out)
    return out


def pool_taps_sl_into(attrs, x, y, out):
    """The tap (row-major index in the window) of each window's first maximum, samples-last: the
    first tap equal to the window's output ``y`` (as the backward's found mask: a tap's hits are the
    windows it is the first to equal, their sum weighted by the tap's index; a boolean array read as
    int8, no masked writes: 6x faster), for a NaN output the first NaN tap (the registry's argmax)."""
    kernel = tuple(attrs.kernel)
    osp = y.shape[1:3]
    taps = [(i, j) for i in range(kernel[0]) for j in range(kernel[1])]
    found = np.empty(y.shape, bool)          # a window's maximum already met
    hit = np.empty(y.shape, bool)
    part = np.empty(y.shape, np.int8)
    np.equal(_tap(x, *taps[0], kernel, osp), y, out=found)
    out[...] = 0
    for t in range(1, len(taps)):
        np.equal(_tap(x, *taps[t], kernel, osp), y, out=hit)
        np.greater(hit, found, out=hit)
        if t < len(taps) - 1:
            found |= hit
        if t == 1:
            out += hit.view(np.int8)
        else:
            np.multiply(hit.view(np.int8), np.int8(t), out=part)
            out += part
    nan = np.isnan(y)
    if nan.any():
        for t in range(len(taps) - 1, -1, -1):
            np.isnan(_tap(x, *taps[t], kernel, osp), out=hit)
            hit &= nan
            np.copyto(out, np.int8(t), where=hit)


def _taps_shape(a, s):
    return list(s), [tuple(s[1])]


POOL_TAPS_SL = _internal("_hy_pool_taps_sl", _pool_taps_sl, (_p("kernel"),), ("data", "output"), _taps_shape,
                         infer_type=lambda a, d: [np.dtype(np.int8)])


def _pool_taps(attrs, x, y):
    """:func:`_pool_taps_sl` on channel-first ``(N, C, H, W)`` tensors (the reference the layout pass
    lowers from)."""
    out = np.empty(y.shape, np.int8)
    pool_taps_sl_into(attrs, x.transpose(TO_SL), y.transpose(TO_SL), out.transpose(TO_SL))
    return out


POOL_TAPS = _internal("_hy_pool_taps", _pool_taps, (_p("kernel"),), ("data", "output"), _taps_shape,
                      infer_type=lambda a, d: [np.dtype(np.int8)])


def _maxpool_bwd_taps_sl(attrs, g, taps, y):
    C, OH, OW, N = g.shape
    kh, kw = attrs.kernel
    dx = np.empty((C, OH * kh, OW * kw, N), g.dtype)
    maxpool_bwd_taps_sl_into(attrs, g, taps, y, dx)
    return dx


def maxpool_bwd_taps_sl_into(attrs, g, taps, y, dx):
    """Max pooling's input gradient from the forward's taps, samples-last: each output's gradient to
    its window's tap ``taps``, zeros elsewhere (windows tile the input exactly); relu's gradient
    fused when ``relu`` (``y``: the pool's output, the maximum the gradient's tap holds)."""
    kernel = tuple(attrs.kernel)
    osp = g.shape[1:3]
    if getattr(attrs, "relu", False):
        g = g * (y > 0)
    hit = np.empty(g.shape, bool)
    t = 0
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            np.equal(taps, np.int8(t), out=hit)
            np.multiply(g, hit, out=_tap(dx, i, j, kernel, osp), dtype=dx.dtype, casting="unsafe")
            t += 1


def _bwd_taps_shape(a, s):
    C, OH, OW, N = s[0]
    return list(s), [(C, OH * a.kernel[0], OW * a.kernel[1], N)]


MAXPOOL_BWD_TAPS_SL = _internal("_hy_maxpool_bwd_taps_sl", _maxpool_bwd_taps_sl, (_p("kernel"), _p("relu", False)),
                                ("ograd", "taps", "output"), _bwd_taps_shape, infer_type=lambda a, d: [d[0]])


def _maxpool_bwd_taps(attrs, g, taps, y):
    """:func:`_maxpool_bwd_taps_sl` on channel-first tensors (the reference the layout pass lowers from)."""
    N, C, OH, OW = g.shape
    kh, kw = attrs.kernel
    dx = np.empty((N, C, OH * kh, OW * kw), g.dtype)
    t = TO_SL
    maxpool_bwd_taps_sl_into(attrs, g.transpose(t), taps.transpose(t), y.transpose(t), dx.transpose(t))
    return dx


def _bwd_taps_shape_cf(a, s):
    N, C, OH, OW = s[0]
    return list(s), [(N, C, OH * a.kernel[0], OW * a.kernel[1])]


MAXPOOL_BWD_TAPS = _internal("_hy_maxpool_bwd_taps", _maxpool_bwd_taps, (_p("kernel"), _p("relu", False)),
                             ("ograd", "taps", "output"), _bwd_taps_shape_cf, infer_type=lambda a, d: [d[0]])
