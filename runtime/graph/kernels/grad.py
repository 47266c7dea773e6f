"""Internal ops of compiled backward programs (the differentiate stage lowers onto them).

A registry ``_backward_Convolution`` computes the data, weight and bias gradients in one kernel;
the backward of a network's first convolution never needs the data's, and a stride-1 data
gradient is itself a convolution (the output gradient with the weight flipped and transposed),
which the compiler's fast convolution kernels run. So the stage splits it:

- ``_hy_conv_wgrad(ograd, data, weight)``: the weight (and bias) gradients only, as the registry
  kernel does (im2col) but as one GEMM over all the samples, the samples split over the thread
  pool when the work is large; ``weight`` is read for its shape; with ``g_nhwc`` the output
  gradient is channels-last (a training program's first convolution);
- ``_hy_conv_dgrad(ograd, weight, data)``: the data gradient of a strided, dilated or grouped
  convolution: the weight's transpose times the output gradient, scattered back tap by tap
  (col2im), as the registry kernel does; ``data`` is read for its shape;
- ``_hy_conv_flip(weight)``: ``(F, C, kh, kw) -> (C, F, kh, kw)`` flipped in both spatial axes (a view),
  static (evaluated at ``bind_params``), for ``Convolution(ograd, flipped, pad=k-1-pad)``.
"""
from __future__ import annotations

import itertools

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ...ops._nnutil import matmul, pad_spatial, tap_slices, windows
from .common import _internal, _p
from .parallel import chunks_for, num_threads, run_chunks

__all__ = ["CONV_DGRAD", "CONV_FLIP", "CONV_WGRAD", "SAMPLES_LAST"]


def _wgrad(attrs, g, x, w):
    if getattr(attrs, "g_nhwc", False):
        return _wgrad_g_nhwc(attrs, g, x, w)
    N = x.shape[0]
    nsp = x.ndim - 2
    if getattr(attrs, "g_samples_last", False):   # ograd given as (F, *positions, N) by _hy_samples_last
        dw = _wgrad_samples_last(None, x, tuple(attrs.kernel), tuple(attrs.stride), tuple(attrs.dilate),
                                 tuple(attrs.pad), gt=g)
        dw = dw.reshape(w.shape).astype(w.dtype, copy=False)
        if attrs.no_bias:
            return (dw,)
        return dw, g.sum(axis=tuple(range(1, g.ndim))).astype(g.dtype, copy=False)
    kernel, stride, dil, pad, groups = (tuple(attrs.kernel), tuple(attrs.stride), tuple(attrs.dilate),
                                        tuple(attrs.pad), attrs.num_group)
    osp = g.shape[2:]
    O = int(np.prod(osp))
    F = w.shape[0]
    K = (x.shape[1] // groups) * int(np.prod(kernel))
    v = windows(pad_spatial(x, pad, pad), kernel, stride, dil, osp)
    # (groups, C/groups, *kernel, sample, *positions) of the windows split by group
    perm = (1, 2) + tuple(range(3 + nsp, 3 + 2 * nsp)) + (0,) + tuple(range(3, 3 + nsp))

    def part(lo: int, hi: int) -> np.ndarray:
        """The samples ``lo:hi``'s share of the weight gradient: their columns (im2col) laid out
        ``(groups, K, samples * positions)``, one GEMM per group over all the samples at once."""
        n = hi - lo
        vg = v[lo:hi].reshape((n, groups, x.shape[1] // groups) + v.shape[2:])
        cols = vg.transpose(perm).reshape(groups, K, n * O)          # one copy
        gg = g[lo:hi].reshape(n, groups, F // groups, O).transpose(1, 2, 0, 3).reshape(groups, F // groups, n * O)
        return matmul(gg, cols.transpose(0, 2, 1))

    n = min(chunks_for(float(N) * F * K * O, N), N)
    if groups == 1 and osp[-1] < _SHORT_ROWS and N >= _SHORT_ROWS:
        dw = _wgrad_samples_last(g, x, kernel, stride, dil, pad)
    elif n <= 1:
        dw = part(0, N)
    else:                               # samples split over the pool's threads (BLAS is single-threaded)
        bounds = [N * i // n for i in range(n + 1)]
        parts: list = [None] * n

        def run(i: int) -> None:
            parts[i] = part(bounds[i], bounds[i + 1])
        run_chunks(run, n)
        dw = parts[0]
        for p in parts[1:]:
            dw += p
    dw = dw.reshape(w.shape).astype(w.dtype, copy=False)
    if attrs.no_bias:
        return (dw,)
    return dw, g.sum(axis=(0,) + tuple(range(2, g.ndim))).astype(g.dtype, copy=False)


_COLS_BYTES = 2 << 20       # columns of one GEMM of the NHWC-gradient weight gradient


def _wgrad_g_nhwc(attrs, g, x, w):
    """The weight (and bias) gradient of a 2-D one-group convolution from channel-first data and
    an NHWC output gradient (a training program's first convolution: its data has a few channels,
    its output gradient comes channels-last from the BatchNorm backward; no transposed copy of
    it). The columns ``(C * kh * kw, rows * OW)`` of a band of one sample's output rows are copied
    from that band's zero-padded input rows, a few MiB at a time: ``dW += g_band^T @ cols^T``, bands
    in consecutive blocks on the pool, the blocks' sums added in order."""
    (kh, kw), (sh, sw), (dh, dw_), (ph, pw) = (tuple(attrs.kernel), tuple(attrs.stride), tuple(attrs.dilate),
                                               tuple(attrs.pad))
    N, C, H, W = x.shape
    OH, OW, F = g.shape[1:]
    K = C * kh * kw
    per = max(1, min(OH, _COLS_BYTES // max(1, OW * K * x.dtype.itemsize)))
    units = [(n, r0, min(OH, r0 + per)) for n in range(N) for r0 in range(0, OH, per)]
    threads = max(1, min(chunks_for(float(N) * F * K * OH * OW, len(units)), num_threads(), len(units)))
    blocks = [(len(units) * i // threads, len(units) * (i + 1) // threads) for i in range(threads)]
    Wp = max(W + 2 * pw, (OW - 1) * sw + (kw - 1) * dw_ + 1)
    need = (per - 1) * sh + (kh - 1) * dh + 1
    parts: list = [None] * threads

    def run(t: int) -> None:
        band = np.zeros((C, need, Wp), x.dtype)
        cols = np.empty((C, kh, kw, per * OW), x.dtype)
        acc = None
        for n, r0, r1 in units[blocks[t][0]:blocks[t][1]]:
            m = r1 - r0
            rows = (m - 1) * sh + (kh - 1) * dh + 1
            b = band[:, :rows]
            b[...] = 0
            i0, i1 = max(0, r0 * sh - ph), min(H, r0 * sh - ph + rows)
            if i1 > i0:
                b[:, i0 - (r0 * sh - ph):i1 - (r0 * sh - ph), pw:pw + W] = x[n, :, i0:i1]
            sc, sr, sq = b.strides
            v = as_strided(b, (C, kh, kw, m, OW), (sc, sr * dh, sq * dw_, sr * sh, sq * sw), writeable=False)
            c = cols[..., :m * OW].reshape(C, kh, kw, m, OW)
            np.copyto(c, v)
            part = matmul(g[n, r0:r1].reshape(m * OW, F).T, cols[..., :m * OW].reshape(K, m * OW).T)
            if acc is None:
                acc = part
            else:
                acc += part
        parts[t] = acc
    run_chunks(run, threads)
    dw = parts[0]
    for p in parts[1:]:
        dw += p
    dw = dw.reshape(w.shape).astype(w.dtype, copy=False)
    if attrs.no_bias:
        return (dw,)
    return dw, g.sum(axis=(0, 1, 2)).astype(g.dtype, copy=False)


# output rows shorter than this (and at least this many samples): the columns are built with the
# sample axis innermost, copies along (row x samples) instead of rows of a few floats
_SHORT_ROWS = 16


def _wgrad_samples_last(g, x, kernel, stride, dil, pad, gt=None):
    """The weight gradient ``(F, C * prod(kernel))`` of a one-group convolution with the sample axis
    innermost: the data padded as ``(C, *spatial, N)`` and the output gradient as ``(F, *positions, N)``
    (one transposing copy each), the columns ``(C, *kernel, *positions, N)`` one strided copy whose
    inner runs are whole (row x samples) blocks, one GEMM. LeNet's second convolution (8x8 outputs):
    1.4 -> 1.0 ms."""
    N, C = x.shape[:2]
    if gt is None:
        gt = samples_last(g)
    F = gt.shape[0]
    osp = gt.shape[1:-1]
    nsp = len(osp)
    xt = np.zeros((C,) + tuple(n + 2 * p for n, p in zip(x.shape[2:], pad)) + (N,), x.dtype)
    xt[(slice(None),) + tuple(slice(p, p + n) for p, n in zip(pad, x.shape[2:]))] = np.moveaxis(x, 0, -1)
    st = xt.strides
    v = as_strided(xt, (C,) + tuple(kernel) + tuple(osp) + (N,),
                   (st[0],) + tuple(s * d for s, d in zip(st[1:1 + nsp], dil))
                   + tuple(s * t for s, t in zip(st[1:1 + nsp], stride)) + (st[-1],), writeable=False)
    cols = np.empty(v.shape, x.dtype)
    np.copyto(cols, v)
    K = C * int(np.prod(kernel))
    return matmul(gt.reshape(F, -1), cols.reshape(K, -1).T)


def samples_last(g: np.ndarray) -> np.ndarray:
    """``(N, F, *positions) -> (F, *positions, N)``, contiguous: the output gradient as the sample-
    innermost data and weight gradients read it."""
    gt = np.empty(g.shape[1:] + g.shape[:1], g.dtype)
    np.copyto(gt, np.moveaxis(g, 0, -1))
    return gt


def wgrad_samples_last(attrs, g_shape: tuple) -> bool:
    """Does ``_hy_conv_wgrad`` read this output gradient with the sample axis innermost?"""
    return attrs.num_group == 1 and g_shape[-1] < _SHORT_ROWS and g_shape[0] >= _SHORT_ROWS


SAMPLES_LAST = _internal("_hy_samples_last", lambda attrs, g: samples_last(g), (), ("data",),
                         lambda a, s: (list(s), [tuple(s[0][1:]) + (s[0][0],)]), infer_type=lambda a, d: [d[0]])


CONV_WGRAD = _internal(
    "_hy_conv_wgrad", _wgrad,
    (_p("kernel"), _p("stride"), _p("dilate"), _p("pad"), _p("num_group", 1), _p("no_bias", False),
     _p("g_samples_last", False), _p("g_nhwc", False)),
    ("ograd", "data", "weight"),
    lambda a, s: (list(s), [tuple(s[2])] + ([] if a.no_bias else [(s[2][0],)])),
    num_outputs=lambda a: 1 if a.no_bias else 2,
    infer_type=lambda a, d: [d[2]] * (1 if a.no_bias else 2))


def _flip(attrs, w):
    """A view (the weight transforms read it in place: Winograd's moves the flip into its kron)."""
    return w.swapaxes(0, 1)[(slice(None), slice(None)) + (slice(None, None, -1),) * (w.ndim - 2)]


CONV_FLIP = _internal("_hy_conv_flip", _flip, (), ("weight",),
                      lambda a, s: (list(s), [(s[0][1], s[0][0]) + tuple(s[0][2:])]),
                      infer_type=lambda a, d: [d[0]])


def _dgrad(attrs, g, w, x):
    """col2im with the sample axis innermost: the output gradient as ``(F, *positions, N)`` so that one
    GEMM gives every tap's columns as ``(*kernel, C, *positions, N)``, and each tap's scatter-add into
    the padded ``(C, *spatial, N)`` buffer runs along whole rows of samples (sample-major, it ran 8
    floats at a time: LeNet's second convolution 3.0 -> 1.4 ms CPU)."""
    N, C = x.shape[:2]
    kernel, stride, dil, pad, groups = (tuple(attrs.kernel), tuple(attrs.stride), tuple(attrs.dilate),
                                        tuple(attrs.pad), attrs.num_group)
    # (ograd given as (F, *positions, N) by _hy_samples_last, shared with the weight gradient)
    gt = g if getattr(attrs, "g_samples_last", False) else samples_last(g)
    osp = gt.shape[1:-1]
    F = w.shape[0]
    Cg, Fg = C // groups, F // groups
    taps = int(np.prod(kernel))
    # weights as (groups, *kernel, C/groups, F/groups): rows in the columns' order
    wt = np.moveaxis(w.reshape((groups, Fg, Cg) + kernel), (1, 2), (-1, -2)).reshape(groups, taps * Cg, Fg)
    dcols = matmul(wt, gt.reshape(groups, Fg, -1)).reshape((groups, taps, Cg) + osp + (N,))
    dt = np.result_type(x.dtype, g.dtype)
    buf = np.zeros((groups, Cg) + tuple(n + 2 * p for n, p in zip(x.shape[2:], pad)) + (N,), dtype=dt)
    for t, tap in enumerate(itertools.product(*(range(k) for k in kernel))):
        sl = tap_slices([i * d for i, d in zip(tap, dil)], stride, osp)[1:]
        buf[(slice(None), slice(None)) + sl] += dcols[:, t]
    dx = buf.reshape((C,) + buf.shape[2:])[(slice(None),) + tuple(slice(p, p + n) for p, n in zip(pad, x.shape[2:]))]
    out = np.empty(x.shape, dtype=x.dtype)
    np.copyto(out, np.moveaxis(dx, -1, 0), casting="unsafe")
    return out


CONV_DGRAD = _internal(
    "_hy_conv_dgrad", _dgrad,
    (_p("kernel"), _p("stride"), _p("dilate"), _p("pad"), _p("num_group", 1), _p("g_samples_last", False)),
    ("ograd", "weight", "data"),
    lambda a, s: (list(s), [tuple(s[2])]),
    infer_type=lambda a, d: [d[2]])
