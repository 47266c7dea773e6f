"""Convolution and Deconvolution (1-D/2-D/3-D, stride, pad, dilate, groups), MXNet 1.9.1 semantics.

Kernels:
- general convolution: im2col through a strided view of the (padded) input, copied once into a
  ``(N, groups, C/g * prod(kernel), out_positions)`` column buffer, then one batched BLAS matmul
  with the weight reshaped to ``(groups, F/g, C/g * prod(kernel))``;
- 1x1 convolution (no padding): a plain matmul on the input reshaped to ``(N, C, H*W)``;
- depthwise (one input channel per group): a sum over kernel taps of shifted multiply-adds
  (a loop over the ``prod(kernel)`` taps, each vectorized over batch, channels and positions);
- deconvolution: one batched matmul ``W^T x`` into columns, then col2im as a scatter-add over
  kernel taps.

Channel-last layouts (NWC/NHWC/NDHWC, GPU-only in MXNet) are accepted and computed by
transposing to channel-first. Shape rules complete deferred parameter shapes from the data
(weight ``(F, C/g, *kernel)``, bias ``(F,)``), also when only some data dimensions are known,
as Gluon's ``_infer_weight_shape`` needs.
"""
from __future__ import annotations

import itertools
import threading

import numpy as np

from ..base import ShapeError
from ._nnutil import (
    OptEnum,
    conv_out_dim,
    matmul,
    merge_shape,
    pad_spatial,
    spatial_params,
    tap_slices,
    windows,
)
from .attrs import Bool, Int, Param, Shape
from .registry import OpDef, register

_LAYOUTS = ("NCW", "NCHW", "NCDHW", "NHWC", "NDHWC", "NWC")
_TUNE = OptEnum("off", "limited_workspace", "fastest")


def _channel_last(attrs) -> bool:
    return attrs.layout is not None and attrs.layout.endswith("C")


def _to_cf(shape, cl: bool):
    """A data-like shape in channel-first order."""
    if shape is None or not cl:
        return shape
    return (shape[0], shape[-1]) + tuple(shape[1:-1])


def _from_cf(shape, cl: bool):
    if shape is None or not cl:
        return shape
    return (shape[0],) + tuple(shape[2:]) + (shape[1],)


def _conv_inputs(attrs):
    return ("data", "weight") if attrs.no_bias else ("data", "weight", "bias")


# -- Convolution ---------------------------------------------------------------------------------
def _conv_shape(attrs, in_shapes):
    ins = list(in_shapes)
    nsp = len(attrs.kernel)
    kernel, stride, dil, pad = spatial_params(attrs, nsp)
    g, F = attrs.num_group, attrs.num_filter
    cl = _channel_last(attrs)
    d = _to_cf(ins[0], cl)
    if d is not None and len(d) != nsp + 2:
        raise ShapeError(f"Convolution with a {nsp}-D kernel needs {nsp + 2}-D data, got shape {tuple(ins[0])}")
    C = d[1] if d is not None else 0
    if C and C % g:
        raise ShapeError(f"input channels {C} are not divisible by num_group {g}")
    if F % g:
        raise ShapeError(f"num_filter {F} is not divisible by num_group {g}")
    wshape = (F, C // g) + tuple(kernel)
    if cl:
        wshape = (F,) + tuple(kernel) + (C // g,)
    ins[1] = merge_shape(ins[1], wshape, "Convolution weight")
    if not attrs.no_bias:
        ins[2] = merge_shape(ins[2], (F,), "Convolution bias")
    if d is None:
        return ins, [None]
    if not C:
        # reverse: the channel count follows from the weight
        wc = ins[1][-1] if cl else ins[1][1]
        if wc:
            d = (d[0], wc * g) + tuple(d[2:])
            ins[0] = _from_cf(d, cl)
    out = (d[0], F) + tuple(conv_out_dim(n, k, s, dl, p) for n, k, s, dl, p in zip(d[2:], kernel, stride, dil, pad))
    return ins, [_from_cf(out, cl)]


def _conv_cf(x, w, b, kernel, stride, dil, pad, g, pad_buf=None):
    """Channel-first convolution. ``w`` is ``(F, C/g, *kernel)``."""
    N, C = x.shape[:2]
    nsp = len(kernel)
    F = w.shape[0]
    osp = tuple(conv_out_dim(n, k, s, d, p) for n, k, s, d, p in zip(x.shape[2:], kernel, stride, dil, pad))
    O = int(np.prod(osp))
    cg, fg = C // g, F // g
    if all(k == 1 for k in kernel) and not any(pad):
        xs = x[(Ellipsis,) + tuple(slice(None, None, s) for s in stride)] if any(s != 1 for s in stride) else x
        if g == 1:
            out = matmul(w.reshape(F, C), xs.reshape(N, C, O))
        else:
            out = matmul(w.reshape(g, fg, cg), xs.reshape(N, g, cg, O))
    elif cg == 1 and g > 1:
        out = _depthwise(x, w, kernel, stride, dil, pad, fg, osp, pad_buf).reshape(N, F, O)
    else:
        xp = _padded(x, pad, pad_buf)
        v = windows(xp, kernel, stride, dil, osp)              # (N, C, *osp, *kernel)
        perm = (0, 1) + tuple(range(2 + nsp, 2 + 2 * nsp)) + tuple(range(2, 2 + nsp))
        K = cg * int(np.prod(kernel))
        per_image = C * int(np.prod(kernel)) * O * x.dtype.itemsize
        step = max(1, _COLS_LIMIT // max(per_image, 1))
        if step < N:
            # bound the column buffer: large batches go through im2col in chunks of images
            out = np.empty((N, F, O), dtype=np.result_type(x.dtype, w.dtype))
            for i in range(0, N, step):
                out[i:i + step] = _im2col_matmul(v[i:i + step], w, perm, g, fg, K, O)
        else:
            out = _im2col_matmul(v, w, perm, g, fg, K, O)
    out = out.reshape((N, F) + osp)
    if b is not None:
        out += b.reshape((F,) + (1,) * nsp)
    return out if out.dtype == x.dtype else out.astype(x.dtype)


_COLS_LIMIT = 256 << 20   # bytes of im2col buffer per matmul before the batch is chunked


def _im2col_matmul(v, w, perm, g, fg, K, O):
    """The one im2col copy of a window view and the one (batched) BLAS matmul with the weight."""
    n = v.shape[0]
    F = w.shape[0]
    if g == 1:
        return matmul(w.reshape(F, K), v.transpose(perm).reshape(n, K, O))
    out = matmul(w.reshape(g, fg, K), v.transpose(perm).reshape(n, g, K, O))
    return out.reshape(n, F, O)


def _depthwise(x, w, kernel, stride, dil, pad, fg, osp, pad_buf=None):
    """Depthwise convolution (one input channel per group, ``fg`` outputs per channel) as a sum
    over kernel taps of shifted multiply-adds, each vectorized over batch, channels and positions.

    Small outputs run channel-last (the channel axis is the long contiguous one); stride-1
    convolutions run on the flattened padded grid (each tap is one contiguous slice, the few
    extra columns are cropped at the end); the rest use strided 2-D slices.
    """
    N, C = x.shape[:2]
    nsp = len(kernel)
    F = w.shape[0]
    wf = w.reshape(F, -1)                                     # (F, taps)
    taps = list(itertools.product(*(range(k) for k in kernel)))
    if int(np.prod(osp)) <= 256:
        Pp = tuple(n + 2 * p for n, p in zip(x.shape[2:], pad))
        xt = np.zeros((N,) + Pp + (C,), dtype=x.dtype)
        xt[(slice(None),) + tuple(slice(p, p + n) for p, n in zip(pad, x.shape[2:]))] = np.moveaxis(x, 1, -1)
        if fg > 1:
            xt = np.repeat(xt, fg, axis=-1)
        wt = np.ascontiguousarray(wf.T)                         # (taps, F)
        out = np.zeros((N,) + tuple(osp) + (F,), dtype=x.dtype)
        tmp = np.empty_like(out)
        for t, tap in enumerate(taps):
            sl = (slice(None),) + tuple(slice(o * d, o * d + s * (n - 1) + 1, s)
                                        for o, d, s, n in zip(tap, dil, stride, osp))
            np.multiply(xt[sl], wt[t], out=tmp)
            out += tmp
        return np.ascontiguousarray(np.moveaxis(out, -1, 1))
    if all(s == 1 for s in stride):
        Pp = tuple(n + 2 * p for n, p in zip(x.shape[2:], pad))
        pstr = [int(np.prod(Pp[k + 1:])) for k in range(nsp)]
        P = int(np.prod(Pp))
        extra = sum((d * (k - 1)) * st for k, d, st in zip(kernel[1:], dil[1:], pstr[1:]))
        flat = np.zeros((N, C, P + extra), dtype=x.dtype)
        flat[:, :, :P].reshape((N, C) + Pp)[(Ellipsis,) + tuple(slice(p, p + n) for p, n in zip(pad, x.shape[2:]))] = x
        if fg > 1:
            flat = np.repeat(flat, fg, axis=1)
        L = osp[0] * pstr[0]
        out = np.zeros((N, F, L), dtype=x.dtype)
        tmp = np.empty_like(out)
        for t, tap in enumerate(taps):
            off = sum(o * d * st for o, d, st in zip(tap, dil, pstr))
            np.multiply(flat[:, :, off:off + L], wf[:, t:t + 1], out=tmp)
            out += tmp
        out = out.reshape((N, F, osp[0]) + Pp[1:])
        return np.ascontiguousarray(out[(Ellipsis,) + tuple(slice(0, o) for o in osp[1:])])
    xp = _padded(x, pad, pad_buf)
    if fg > 1:
        xp = np.repeat(xp, fg, axis=1)
    out = np.zeros((N, F) + tuple(osp), dtype=x.dtype)
    tmp = np.empty_like(out)
    bshape = (F,) + (1,) * nsp
    for t, tap in enumerate(taps):
        sl = tap_slices([o * d for o, d in zip(tap, dil)], stride, osp)
        np.multiply(xp[sl], wf[:, t].reshape(bshape), out=tmp)
        out += tmp
    return out


def _padded(x, pad, buf):
    if not any(pad):
        return x
    if buf is None:
        return pad_spatial(x, pad, pad)
    buf[(Ellipsis,) + tuple(slice(p, p + n) for p, n in zip(pad, x.shape[2:]))] = x
    return buf


def _convolution(attrs, x, w, b=None, _buf=None):
    """Convolution over 1-3 spatial axes with stride, dilation, zero padding and groups."""
    nsp = len(attrs.kernel)
    kernel, stride, dil, pad = spatial_params(attrs, nsp)
    if x.ndim != nsp + 2:
        raise ShapeError(f"Convolution with a {nsp}-D kernel needs {nsp + 2}-D data, got shape {x.shape}")
    if _channel_last(attrs):
        xc = np.moveaxis(x, -1, 1)
        wc = np.moveaxis(w, -1, 1)
        return np.ascontiguousarray(np.moveaxis(_conv_cf(xc, wc, b, kernel, stride, dil, pad, attrs.num_group), 1, -1))
    return _conv_cf(x, w, b, kernel, stride, dil, pad, attrs.num_group, _buf)


def _conv_prepare(attrs, in_shapes, in_dtypes):
    """Hoists the zero-padded input buffer (borders stay zero; the interior is overwritten per call).

    The buffer is per thread, so a prepared kernel may be called from several threads at once.
    """
    nsp = len(attrs.kernel)
    kernel, stride, dil, pad = spatial_params(attrs, nsp)
    dshape = in_shapes[0] if in_shapes else None
    if _channel_last(attrs) or not any(pad) or dshape is None or 0 in dshape:
        return lambda *arrays: _convolution(attrs, *arrays)
    dt = np.dtype(in_dtypes[0]) if in_dtypes and in_dtypes[0] is not None else np.dtype(np.float32)
    bshape = tuple(dshape[:2]) + tuple(n + 2 * p for n, p in zip(dshape[2:], pad))
    g = attrs.num_group
    tls = threading.local()   # one buffer per thread: compiled programs may run concurrently

    def run(x, w, b=None):
        if x.shape != tuple(dshape) or x.dtype != dt:
            return _convolution(attrs, x, w, b)
        buf = getattr(tls, "buf", None)
        if buf is None:
            buf = tls.buf = np.zeros(bshape, dtype=dt)
        return _conv_cf(x, w, b, kernel, stride, dil, pad, g, buf)
    return run


def _batch_backward(attrs, in_shapes, out_shapes):
    """The data's batch size from the output's (MXNet's ConvolutionShape / DeconvolutionShape assign
    it back: a ConvLSTM begin state zeros((0, C, H, W)) learns it)."""
    ins = list(in_shapes)
    d, out = ins[0], out_shapes[0]
    if d is not None and out is not None and len(d) == len(out) and not d[0] and out[0]:
        ins[0] = (out[0],) + tuple(d[1:])
    return ins


_CONV_PARAMS = (
    Param("kernel", Shape), Param("stride", Shape, ()), Param("dilate", Shape, ()), Param("pad", Shape, ()),
    Param("num_filter", Int), Param("num_group", Int, 1), Param("workspace", Int, 1024),
    Param("no_bias", Bool, False), Param("cudnn_tune", _TUNE, None), Param("cudnn_off", Bool, False),
    Param("layout", OptEnum(*_LAYOUTS), None),
)

register(OpDef("Convolution", _convolution, params=_CONV_PARAMS, inputs=_conv_inputs, same_dtype="all",
               infer_shape=_conv_shape, infer_shape_backward=_batch_backward, prepare=_conv_prepare,
               infer_type=lambda attrs, dts: [np.dtype(dts[0] or np.float32)]))


# -- Deconvolution -------------------------------------------------------------------------------
def _deconv_geometry(attrs, in_sp):
    """(kernel, stride, dilate, pad, adj, out spatial) with MXNet's target_shape rule."""
    nsp = len(attrs.kernel)
    kernel, stride, dil, pad = spatial_params(attrs, nsp)
    adj = tuple(attrs.adj) if len(attrs.adj) else (0,) * nsp
    target = tuple(attrs.target_shape)
    use_target = len(target) > 0 and any(t != 0 for t in target)
    pads, adjs, outs = [], [], []
    for i in range(nsp):
        n = in_sp[i]
        dk = dil[i] * (kernel[i] - 1) + 1
        p, a = pad[i], adj[i]
        if use_target and n:
            full = stride[i] * (n - 1) + dk
            if full < target[i]:
                raise ShapeError(f"Deconvolution: target_shape {target} is too big")
            tot = full - target[i]
            a = tot % 2
            p = (tot + 1) // 2
        pads.append(p)
        adjs.append(a)
        if not n:
            outs.append(0)
        elif use_target:
            outs.append(target[i])
        else:
            outs.append(stride[i] * (n - 1) + dk - 2 * p + a)
    return kernel, stride, dil, tuple(pads), tuple(adjs), tuple(outs)


def _deconv_shape(attrs, in_shapes):
    ins = list(in_shapes)
    nsp = len(attrs.kernel)
    g, F = attrs.num_group, attrs.num_filter
    cl = _channel_last(attrs)
    d = _to_cf(ins[0], cl)
    if d is not None and len(d) != nsp + 2:
        raise ShapeError(f"Deconvolution with a {nsp}-D kernel needs {nsp + 2}-D data, got shape {tuple(ins[0])}")
    C = d[1] if d is not None else 0
    if C and C % g:
        raise ShapeError(f"input channels {C} are not divisible by num_group {g}")
    wshape = (C, F // g) + tuple(attrs.kernel)
    if cl:
        wshape = (C,) + tuple(attrs.kernel) + (F // g,)
    ins[1] = merge_shape(ins[1], wshape, "Deconvolution weight")
    if not attrs.no_bias:
        ins[2] = merge_shape(ins[2], (F,), "Deconvolution bias")
    if d is None:
        return ins, [None]
    if not C and ins[1][0]:
        d = (d[0], ins[1][0]) + tuple(d[2:])
        ins[0] = _from_cf(d, cl)
    outs = _deconv_geometry(attrs, d[2:])[-1]
    return ins, [_from_cf((d[0], F) + outs, cl)]


def _deconv_cf(attrs, x, w, b):
    N, C = x.shape[:2]
    nsp = x.ndim - 2
    g = attrs.num_group
    F = attrs.num_filter
    cg, fg = C // g, F // g
    kernel, stride, dil, pad, adj, osp = _deconv_geometry(attrs, x.shape[2:])
    isp = x.shape[2:]
    I = int(np.prod(isp))
    K = int(np.prod(kernel))
    # columns: (N, g, F/g * K, I) = W_g^T @ x_g, W_g: (C/g, F/g * K)
    wg = w.reshape(g, cg, fg * K)
    cols = matmul(wg.transpose(0, 2, 1), x.reshape(N, g, cg, I))
    cols = cols.reshape((N, F) + tuple(kernel) + tuple(isp))
    full = tuple(s * (n - 1) + d * (k - 1) + 1 + a for n, k, s, d, a in zip(isp, kernel, stride, dil, adj))
    full = tuple(max(f, p + o) for f, p, o in zip(full, pad, osp))
    buf = np.zeros((N, F) + full, dtype=x.dtype)
    for tap in itertools.product(*(range(k) for k in kernel)):
        sl = tap_slices([t * d for t, d in zip(tap, dil)], stride, isp)
        buf[sl] += cols[(slice(None), slice(None)) + tap]
    out = buf[(Ellipsis,) + tuple(slice(p, p + o) for p, o in zip(pad, osp))]
    out = np.ascontiguousarray(out)
    if b is not None:
        out += b.reshape((F,) + (1,) * nsp)
    return out


def _deconvolution(attrs, x, w, b=None):
    """Deconvolution (transposed convolution): the gradient of Convolution with respect to its data."""
    nsp = len(attrs.kernel)
    if x.ndim != nsp + 2:
        raise ShapeError(f"Deconvolution with a {nsp}-D kernel needs {nsp + 2}-D data, got shape {x.shape}")
    if _channel_last(attrs):
        out = _deconv_cf(attrs, np.moveaxis(x, -1, 1), np.moveaxis(w, -1, 1), b)
        return np.ascontiguousarray(np.moveaxis(out, 1, -1))
    return _deconv_cf(attrs, x, w, b)


register(OpDef(
    "Deconvolution", _deconvolution, same_dtype="all",
    params=(Param("kernel", Shape), Param("stride", Shape, ()), Param("dilate", Shape, ()),
            Param("pad", Shape, ()), Param("adj", Shape, ()), Param("target_shape", Shape, ()),
            Param("num_filter", Int), Param("num_group", Int, 1), Param("workspace", Int, 512),
            Param("no_bias", Bool, True), Param("cudnn_tune", _TUNE, None), Param("cudnn_off", Bool, False),
            Param("layout", OptEnum(*_LAYOUTS), None)),
    inputs=_conv_inputs, infer_shape=_deconv_shape, infer_shape_backward=_batch_backward,
    infer_type=lambda attrs, dts: [np.dtype(dts[0] or np.float32)],
))


# -- im2col / col2im ------------------------------------------------------------------------------
def _im2col_shape(attrs, in_shapes):
    d = in_shapes[0]
    if d is None or len(d) == 0:
        return list(in_shapes), [None]
    nsp = len(attrs.kernel)
    kernel, stride, dil, pad = spatial_params(attrs, nsp)
    osp = [conv_out_dim(n, k, s, dl, p) for n, k, s, dl, p in zip(d[2:], kernel, stride, dil, pad)]
    return list(in_shapes), [(d[0], d[1] * int(np.prod(kernel)), int(np.prod(osp)))]


def _im2col(attrs, x):
    """Sliding-window columns ``(N, C * prod(kernel), positions)``, channel-major as MXNet."""
    nsp = len(attrs.kernel)
    kernel, stride, dil, pad = spatial_params(attrs, nsp)
    N, C = x.shape[:2]
    osp = tuple(conv_out_dim(n, k, s, d, p) for n, k, s, d, p in zip(x.shape[2:], kernel, stride, dil, pad))
    v = windows(pad_spatial(x, pad, pad), kernel, stride, dil, osp)
    perm = (0, 1) + tuple(range(2 + nsp, 2 + 2 * nsp)) + tuple(range(2, 2 + nsp))
    return v.transpose(perm).reshape(N, C * int(np.prod(kernel)), int(np.prod(osp)))


def _col2im_shape(attrs, in_shapes):
    d = in_shapes[0]
    if d is None or len(d) == 0:
        return list(in_shapes), [None]
    K = int(np.prod(attrs.kernel))
    if d[1] % K:
        raise ShapeError(f"col2im: {d[1]} columns rows are not a multiple of prod(kernel) = {K}")
    return list(in_shapes), [(d[0], d[1] // K) + tuple(attrs.output_size)]


def _col2im(attrs, cols):
    """The adjoint of im2col: every column entry is added back to the position it came from."""
    nsp = len(attrs.kernel)
    kernel, stride, dil, pad = spatial_params(attrs, nsp)
    out_sp = tuple(attrs.output_size)
    N = cols.shape[0]
    K = int(np.prod(kernel))
    C = cols.shape[1] // K
    osp = tuple(conv_out_dim(n, k, s, d, p) for n, k, s, d, p in zip(out_sp, kernel, stride, dil, pad))
    c = cols.reshape((N, C) + tuple(kernel) + osp)
    buf = np.zeros((N, C) + tuple(n + 2 * p for n, p in zip(out_sp, pad)), dtype=cols.dtype)
    for tap in itertools.product(*(range(k) for k in kernel)):
        buf[tap_slices([t * d for t, d in zip(tap, dil)], stride, osp)] += c[(slice(None), slice(None)) + tap]
    return np.ascontiguousarray(buf[(Ellipsis,) + tuple(slice(p, p + n) for p, n in zip(pad, out_sp))])


_WIN_PARAMS = (Param("kernel", Shape), Param("stride", Shape, ()), Param("dilate", Shape, ()), Param("pad", Shape, ()))
register(OpDef("im2col", _im2col, params=_WIN_PARAMS, infer_shape=_im2col_shape))
register(OpDef("col2im", _col2im, params=(Param("output_size", Shape),) + _WIN_PARAMS, infer_shape=_col2im_shape))


# -- gradients ---------------------------------------------------------------------------------------
from ._grad import internal
from .registry import defgrad, get_op


def _scatter_taps(cols, kernel, stride, dil, osp, buf):
    """col2im: adds ``cols`` ``(N, C, *kernel, *osp)`` back onto ``buf`` (a loop over kernel taps)."""
    for tap in itertools.product(*(range(k) for k in kernel)):
        buf[tap_slices([t * d for t, d in zip(tap, dil)], stride, osp)] += cols[(slice(None), slice(None)) + tap]
    return buf


def _conv_backward_cf(x, w, g, kernel, stride, dil, pad, groups):
    """(d data, d weight, d bias) of a channel-first convolution: im2col of the data for the weight,
    the weight's transpose times the output gradient, scattered back (col2im), for the data."""
    N, C = x.shape[:2]
    F = w.shape[0]
    nsp = len(kernel)
    osp = g.shape[2:]
    O = int(np.prod(osp))
    cg, fg = C // groups, F // groups
    K = cg * int(np.prod(kernel))
    xp = pad_spatial(x, pad, pad)
    v = windows(xp, kernel, stride, dil, osp)
    perm = (0, 1) + tuple(range(2 + nsp, 2 + 2 * nsp)) + tuple(range(2, 2 + nsp))
    cols = v.transpose(perm).reshape(N, groups, K, O)
    g4 = g.reshape(N, groups, fg, O)
    dw = matmul(g4, cols.transpose(0, 1, 3, 2)).sum(axis=0).reshape(w.shape)
    dcols = matmul(w.reshape(groups, fg, K).transpose(0, 2, 1), g4)          # (N, groups, K, O)
    buf = np.zeros(xp.shape, dtype=np.result_type(x.dtype, g.dtype))
    _scatter_taps(dcols.reshape((N, C) + tuple(kernel) + tuple(osp)), kernel, stride, dil, osp, buf)
    dx = buf[(Ellipsis,) + tuple(slice(p, p + n) for p, n in zip(pad, x.shape[2:]))]
    db = g.sum(axis=(0,) + tuple(range(2, g.ndim)))
    return np.ascontiguousarray(dx, dtype=x.dtype), dw.astype(w.dtype, copy=False), db.astype(g.dtype, copy=False)


def _backward_convolution(attrs, g, x, w, b=None):
    """Convolution's (d data, d weight[, d bias]), as MXNet's ``_backward_Convolution``."""
    nsp = len(attrs.kernel)
    kernel, stride, dil, pad = spatial_params(attrs, nsp)
    if _channel_last(attrs):
        dx, dw, db = _conv_backward_cf(np.moveaxis(x, -1, 1), np.moveaxis(w, -1, 1), np.moveaxis(g, -1, 1), kernel,
                                       stride, dil, pad, attrs.num_group)
        dx, dw = np.ascontiguousarray(np.moveaxis(dx, 1, -1)), np.ascontiguousarray(np.moveaxis(dw, 1, -1))
    else:
        dx, dw, db = _conv_backward_cf(x, w, g, kernel, stride, dil, pad, attrs.num_group)
    return (dx, dw) if attrs.no_bias else (dx, dw, db)


def _deconv_backward_cf(attrs, x, w, g):
    """(d data, d weight, d bias) of a channel-first deconvolution (the transpose of convolution): the
    data's gradient is the convolution of the output gradient with the same weight; the weight's
    pairs the data with the output gradient's windows."""
    N, C = x.shape[:2]
    groups = attrs.num_group
    F = attrs.num_filter
    cg, fg = C // groups, F // groups
    kernel, stride, dil, pad, _adj, osp = _deconv_geometry(attrs, x.shape[2:])
    isp = x.shape[2:]
    need = tuple(max(s * (n - 1) + d * (k - 1) + 1, p + o) for n, k, s, d, p, o in zip(isp, kernel, stride, dil, pad, osp))
    gp = np.zeros((N, F) + need, dtype=g.dtype)
    gp[(Ellipsis,) + tuple(slice(p, p + o) for p, o in zip(pad, osp))] = g
    v = windows(gp, kernel, stride, dil, isp)                    # (N, F, *isp, *kernel)
    I, Kk = int(np.prod(isp)), int(np.prod(kernel))
    nsp = len(kernel)
    perm = (0, 1) + tuple(range(2 + nsp, 2 + 2 * nsp)) + tuple(range(2, 2 + nsp))
    gcols = v.transpose(perm).reshape(N, groups, fg * Kk, I)     # (N, g, fg*K, I)
    xg = x.reshape(N, groups, cg, I)
    dx = matmul(w.reshape(groups, cg, fg * Kk), gcols).reshape(x.shape)
    dw = matmul(xg, gcols.transpose(0, 1, 3, 2)).sum(axis=0).reshape(w.shape)
    db = g.sum(axis=(0,) + tuple(range(2, g.ndim)))
    return dx.astype(x.dtype, copy=False), dw.astype(w.dtype, copy=False), db.astype(g.dtype, copy=False)


def _backward_deconvolution(attrs, g, x, w, b=None):
    """Deconvolution's (d data, d weight[, d bias])."""
    if _channel_last(attrs):
        dx, dw, db = _deconv_backward_cf(attrs, np.moveaxis(x, -1, 1), np.moveaxis(w, -1, 1), np.moveaxis(g, -1, 1))
        dx, dw = np.ascontiguousarray(np.moveaxis(dx, 1, -1)), np.ascontiguousarray(np.moveaxis(dw, 1, -1))
    else:
        dx, dw, db = _deconv_backward_cf(attrs, x, w, g)
    return (dx, dw) if attrs.no_bias else (dx, dw, db)


def _grad_inputs(attrs):
    return ("ograd", "data", "weight") if attrs.no_bias else ("ograd", "data", "weight", "bias")


def _grad_shapes(attrs, in_shapes):
    return list(in_shapes), list(in_shapes[1:])


def _grad_types(attrs, in_dtypes):
    return [d if d is not None else np.dtype(np.float32) for d in in_dtypes[1:]]


for _name, _fn, _fwd in (("_backward_Convolution", _backward_convolution, "Convolution"),
                         ("_backward_Deconvolution", _backward_deconvolution, "Deconvolution")):
    register(OpDef(_name, _fn, params=get_op(_fwd).params, inputs=_grad_inputs,
                   num_outputs=lambda a: 2 if a.no_bias else 3, infer_shape=_grad_shapes, infer_type=_grad_types))
    defgrad(_fwd)(lambda F, attrs, inputs, outputs, out_grads, _n=_name: list(internal(F, _n)(
        out_grads[0], *inputs, **{k: v for k, v in attrs.as_dict().items() if not k.startswith("__")})))
