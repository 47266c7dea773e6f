"""Internal NHWC ops of the compiled program: layout changes, weight folding, pooling, dense, fused epilogues.

Layouts: image tensors are NHWC inside the compiled program (channels last, so a convolution
is one matmul of a patch matrix by a ``(KH*KW*C, K)`` weight and writes NHWC directly).
Weights are re-laid-out once per ``bind_params`` by static ops (``_hy_conv_weight``,
``_hy_bn_fold``...), which the compiler evaluates in the program's prologue.

Convolutions (``_hy_conv``, ``_hy_conv_weight``) and their algorithms are the registry in
:mod:`.conv` (one module per algorithm). Every kernel builder here returns ``(fn, scratch)``:
``fn(*inputs, out, *scratch_buffers)`` writes into ``out`` (and may use the scratch buffers, shaped
as listed) and applies the fused epilogue (bias, residual add, activation) in place.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .common import _internal, _p, _pad_rows, _run_with_fresh, affine_into, apply_act
from .fastpath import RowTiling
from .parallel import chunks_for, run_chunks


# ------------------------------------------------------------------------------------------
# layout conversion
# ------------------------------------------------------------------------------------------
def _layout_shape(attrs, in_shapes):
    s = in_shapes[0]
    return list(in_shapes), [tuple(s[p] for p in attrs.perm)]


LAYOUT = _internal("_hy_layout", lambda attrs, x: np.ascontiguousarray(x.transpose(attrs.perm)),
                   (_p("perm"), _p("view", 0)), ("data",), _layout_shape)
"""``x.transpose(perm)``: copied into a contiguous buffer (``view=0``); with ``view=1`` a view (a
training forward's saved activation: the NHWC array itself, NCHW-shaped, for the backward program);
with ``view=2`` a view when it is contiguous (the backward reading such an activation), else a copy."""
TO_NHWC = (0, 2, 3, 1)
TO_NCHW = (0, 3, 1, 2)


# ------------------------------------------------------------------------------------------
# static (prologue) ops: weight re-layout and BatchNorm folding
# ------------------------------------------------------------------------------------------
def _bn_scale(gamma, var, eps, fix_gamma):
    g = np.ones_like(gamma) if fix_gamma else gamma
    return (g.astype(np.float64) / np.sqrt(var.astype(np.float64) + eps))


def _bn_fold_compute(attrs, w, gamma, beta, mean, var, *b):
    scale = _bn_scale(gamma, var, attrs.eps, attrs.fix_gamma)
    # the product in float64, rounded once into w's dtype, in the ufunc's buffered chunks (no
    # float64 copy of the weights: this runs at every bind_params, on the first call's path)
    w2 = np.empty(w.shape, w.dtype)
    np.multiply(w, scale.reshape((-1,) + (1,) * (w.ndim - 1)), out=w2, casting="same_kind")
    bias = b[0].astype(np.float64) if b else 0.0
    b2 = ((bias - mean.astype(np.float64)) * scale + beta.astype(np.float64)).astype(w.dtype)
    return w2, b2


def _bn_fold_shape(attrs, in_shapes):
    w = in_shapes[0]
    return list(in_shapes), [w, (w[0],)]


BN_FOLD = _internal("_hy_bn_fold", _bn_fold_compute, (_p("eps", 1e-3), _p("fix_gamma", True), _p("has_bias", False)),
                    lambda a: ("weight", "gamma", "beta", "mean", "var") + (("bias",) if a.has_bias else ()),
                    _bn_fold_shape, num_outputs=2,
                    infer_type=lambda attrs, d: [d[0], d[0]])


def _bn_affine_compute(attrs, gamma, beta, mean, var):
    scale = _bn_scale(gamma, var, attrs.eps, attrs.fix_gamma)
    shift = beta.astype(np.float64) - mean.astype(np.float64) * scale
    shp = attrs.bshape
    return scale.astype(gamma.dtype).reshape(shp), shift.astype(gamma.dtype).reshape(shp)


BN_AFFINE = _internal("_hy_bn_affine", _bn_affine_compute, (_p("eps", 1e-3), _p("fix_gamma", True), _p("bshape")),
                      ("gamma", "beta", "mean", "var"),
                      lambda attrs, s: (list(s), [tuple(attrs.bshape)] * 2), num_outputs=2,
                      infer_type=lambda attrs, d: [d[0], d[0]])


def _pre_fold_compute(attrs, w, scale, shift, *b):
    """Moves a pre-activation BatchNorm's scale into the following 1x1 convolution:
    ``relu(s x + t) @ W == clip(x + t / s, lo, hi) @ (s W)`` per input channel, with
    ``(lo, hi) = (0, inf)`` where ``s > 0`` and ``(-inf, 0)`` where ``s < 0`` (then ``s min(u, 0)`` is
    ``relu(s u)``). A channel with ``s`` ~ 0 is the constant ``relu(t)``: its weight row moves into the
    bias. Returns ``(s W, b', t / s, [lo; hi])``; the kernel's input pass is an add and a max (plus
    a min when some ``s < 0``) instead of multiply, add and max."""
    f8 = np.float64
    s, t = scale.reshape(-1).astype(f8), shift.reshape(-1).astype(f8)
    W = w.astype(f8)
    bias = b[0].astype(f8) if b else np.zeros(W.shape[1], f8)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        u = t / s
    const = (np.abs(s) < 1e-30) | ~np.isfinite(u)         # relu(s x + t) == relu(t): no x
    pos = (s > 0) | const
    shift2 = np.where(const, 0.0, u)
    lo = np.where(pos, 0.0, -np.inf)
    hi = np.where(pos, np.inf, 0.0)
    w2 = W * np.where(const, 0.0, s)[:, None]
    b2 = bias + np.where(const, np.maximum(t, 0.0), 0.0) @ W
    dt = w.dtype
    return w2.astype(dt), b2.astype(dt), shift2.astype(dt), np.stack([lo, hi]).astype(dt)


PRE_FOLD = _internal("_hy_pre_fold", _pre_fold_compute, (_p("has_bias", False),),
                     lambda a: ("weight", "scale", "shift") + (("bias",) if a.has_bias else ()),
                     lambda a, s: (list(s), [tuple(s[0]), (s[0][1],), (s[0][0],), (2, s[0][0])]), num_outputs=4,
                     infer_type=lambda attrs, d: [d[0]] * 4)


def _transpose2d_shape(attrs, in_shapes):
    return list(in_shapes), [tuple(reversed(in_shapes[0]))]


TRANSPOSE2D = _internal("_hy_transpose2d", lambda attrs, w: np.ascontiguousarray(w.T) if attrs.copy else w.T,
                        (_p("copy", True),), ("weight",), _transpose2d_shape)
"""``W^T`` for a dense layer's matmul: contiguous (copied once per bind), or with ``copy=False`` a
view (BLAS multiplies it as well): training programs rebind after every update."""


# ------------------------------------------------------------------------------------------
# pooling
# ------------------------------------------------------------------------------------------
def pool_out_hw(H: int, W: int, a: Any) -> tuple[int, int]:
    if a.global_pool:
        return 1, 1
    (kh, kw), (sh, sw), (ph, pw) = a.kernel, a.stride, a.pad
    if a.full:
        return 1 + (H + 2 * ph - kh + sh - 1) // sh, 1 + (W + 2 * pw - kw + sw - 1) // sw
    return 1 + (H + 2 * ph - kh) // sh, 1 + (W + 2 * pw - kw) // sw


def _avg_divisor(n: int, k: int, s: int, p: int, out: int, include_pad: bool) -> np.ndarray:
    start = np.arange(out) * s - p
    end = np.minimum(start + k, n + p)
    if include_pad:
        return (end - start).astype(np.float64)
    return (np.minimum(end, n) - np.maximum(start, 0)).astype(np.float64)


def build_pool(a: Any, x_shape: tuple, dtype: Any) -> tuple[Callable, list]:
    N, H, W, C = x_shape
    dtype = np.dtype(dtype)
    is_max = a.pool_type == "max"
    if a.global_pool or (tuple(a.kernel) == (H, W) and not any(a.pad)):
        HW = H * W
        inv = dtype.type(1.0 / HW)

        def run_global(x, out):
            o2 = out.reshape(N, C)
            if is_max:
                np.maximum.reduce(x.reshape(N, HW, C), axis=1, out=o2)
            else:
                np.add.reduce(x.reshape(N, HW, C), axis=1, out=o2)
                np.multiply(o2, inv, out=o2)
        return run_global, []
    (kh, kw), (sh, sw), (ph, pw) = a.kernel, a.stride, a.pad
    OH, OW = pool_out_hw(H, W, a)
    Hn, Wn = (OH - 1) * sh + kh, (OW - 1) * sw + kw      # rows/cols the windows touch (padded coords)
    Wq = max(Wn, W + pw)
    need_pad = ph or pw or Hn > H or Wq > W
    fill = -np.inf if is_max else 0.0
    if not is_max:
        dh = _avg_divisor(H, kh, sh, ph, OH, a.count_include_pad)
        dw = _avg_divisor(W, kw, sw, pw, OW, a.count_include_pad)
        recip = (1.0 / (dh[:, None] * dw[None, :]))[:, :, None].astype(dtype)
        if np.all(recip == recip.flat[0]):
            recip = dtype.type(recip.flat[0])
    # bands of output rows on the pool, each with its own padded input rows (windows overlap
    # when kh > sh: a band reads a few rows of its neighbour's input, never its scratch)
    nb = max(1, min(OH, chunks_for(float(N * OH * OW * C * kh * kw), OH, min_work=AFFINE_PARALLEL_WORK)))
    bands = [(OH * i // nb, OH * (i + 1) // nb) for i in range(nb)]
    scratch = [((N, (o1 - o0 - 1) * sh + kh, Wq, C), dtype) for o0, o1 in bands] if need_pad else []

    def band(i: int, x: np.ndarray, out: np.ndarray, rest: tuple) -> None:
        o0, o1 = bands[i]
        if need_pad:
            src = rest[i]
            _pad_rows(src, x, o0 * sh, ph, pw, fill)
            r0 = 0
        else:
            src, r0 = x, o0 * sh
        o = out[:, o0:o1]
        first = True
        for ti in range(kh):
            for tj in range(kw):
                v = src[:, r0 + ti:r0 + ti + sh * (o1 - o0 - 1) + 1:sh, tj:tj + sw * (OW - 1) + 1:sw]
                if first:
                    np.copyto(o, v)
                    first = False
                elif is_max:
                    np.maximum(o, v, out=o)
                else:
                    np.add(o, v, out=o)
        if not is_max:
            np.multiply(o, recip if np.ndim(recip) == 0 else recip[o0:o1], out=o)

    def run(x, out, *rest):
        if nb == 1:
            band(0, x, out, rest)
        else:
            run_chunks(lambda i: band(i, x, out, rest), nb)
    run.parallel = nb > 1
    return run, scratch


def _pool_shape(a, in_shapes):
    N, H, W, C = in_shapes[0]
    OH, OW = pool_out_hw(H, W, a)
    return list(in_shapes), [(N, OH, OW, C)]


def _pool_compute(a, x):
    N, H, W, C = x.shape
    OH, OW = pool_out_hw(H, W, a)
    return _run_with_fresh(build_pool(a, x.shape, x.dtype), (N, OH, OW, C), x.dtype, x)


POOL = _internal("_hy_pool", _pool_compute,
                 (_p("kernel"), _p("stride"), _p("pad"), _p("pool_type", "max"), _p("full", False),
                  _p("count_include_pad", True), _p("global_pool", False)), ("data",), _pool_shape)


# ------------------------------------------------------------------------------------------
# dense, affine, activation, add, concat, reshape
# ------------------------------------------------------------------------------------------
def _dense_compute(a, x, wt, *b):
    x2 = x.reshape(x.shape[0], -1) if a.flatten else x.reshape(-1, x.shape[-1])
    if getattr(a, "aug", False):         # weight_aug = [W^T; bias]
        wt, b = wt[:-1], (wt[-1],)
    out = np.matmul(x2, wt)
    if b:
        out += b[0]
    apply_act(out, tuple(a.act or ()))
    return out.reshape(_dense_shape(a, [x.shape])[1][0])


def _dense_shape(a, in_shapes):
    x = in_shapes[0]
    nh = a.num_hidden
    return list(in_shapes), [(x[0], nh) if a.flatten else tuple(x[:-1]) + (nh,)]


DENSE = _internal("_hy_dense", _dense_compute,
                  (_p("num_hidden"), _p("flatten", True), _p("has_bias", True), _p("act", ()), _p("aug", False)),
                  lambda a: ("data", "weight_aug") if a.aug else ("data", "weight_t") + (("bias",) if a.has_bias else ()),
                  _dense_shape)


def _dense_aug_shape(attrs, in_shapes):
    K, C = in_shapes[0]
    return list(in_shapes), [(C + 1, K)]


DENSE_AUG = _internal("_hy_dense_aug", lambda attrs, w, b: np.ascontiguousarray(np.vstack([w.T, b[None, :]])),
                      (), ("weight", "bias"), _dense_aug_shape, infer_type=lambda attrs, d: [d[0]])
"""``[W^T; b]``: a dense layer's weights with its bias as one more row, for a single-row input that
carries a trailing 1 (see ``_emit_dense``)."""


def _affine_compute(a, x, scale, shift):
    out = x * scale + shift
    apply_act(out, tuple(a.act or ()))
    return out.astype(x.dtype, copy=False)


AFFINE = _internal("_hy_affine", _affine_compute, (_p("act", ()),), ("data", "scale", "shift"),
                   lambda a, s: (list(s), [s[0]]))


AFFINE_PARALLEL_WORK = 1e6        # element-passes below which one thread is faster than the pool


def build_affine(shape: tuple, act: tuple, nch: int) -> Callable:
    """``out = act(x * scale + shift)`` (per-channel scale/shift on the last axis) in ``nch`` row
    chunks run on the thread pool; numpy's ufunc loops release the GIL."""
    C = shape[-1]
    rows = int(np.prod(shape[:-1]))
    tiling = RowTiling(C, rows)
    units = rows // tiling.r                 # chunks are whole tiled rows
    nch = max(1, min(nch, units))
    bounds = [(tiling.r * (units * i // nch), tiling.r * (units * (i + 1) // nch)) for i in range(nch)]

    def run(x: np.ndarray, scale: np.ndarray, shift: np.ndarray, out: np.ndarray) -> None:
        x2, o2 = x.reshape(rows, C), out.reshape(rows, C)
        if nch == 1:
            affine_into(o2, x2, scale, shift, act, tiling)
            return
        run_chunks(lambda i: affine_into(o2[bounds[i][0]:bounds[i][1]], x2[bounds[i][0]:bounds[i][1]], scale, shift,
                                         act, tiling), nch)
    return run


def _act_compute(a, x):
    out = x.copy()
    apply_act(out, tuple(a.act))
    return out


ACT = _internal("_hy_act", _act_compute, (_p("act", ()),), ("data",), lambda a, s: (list(s), [s[0]]))


def _add_compute(a, x, y):
    out = np.add(x, y)
    apply_act(out, tuple(a.act or ()))
    return out.astype(x.dtype, copy=False)


ADD = _internal("_hy_add", _add_compute, (_p("act", ()),), ("lhs", "rhs"), lambda a, s: (list(s), [s[0]]))


def _concat_shape(a, in_shapes):
    s = list(in_shapes[0])
    s[a.axis] = sum(x[a.axis] for x in in_shapes)
    return list(in_shapes), [tuple(s)]


CONCAT = _internal("_hy_concat", lambda a, *xs: np.concatenate(xs, axis=a.axis), (_p("axis", 1), _p("num_args", 1)),
                   None, _concat_shape, variadic="num_args")


def _reshape_shape(a, in_shapes):
    return list(in_shapes), [tuple(a.shape)]


RESHAPE = _internal("_hy_reshape", lambda a, x: x.reshape(a.shape), (_p("shape"),), ("data",), _reshape_shape)

