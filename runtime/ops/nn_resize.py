"""Padding and upsampling: ``Pad`` (alias ``pad``) and ``UpSampling`` (MXNet 1.9.1).

``Pad``: ``pad_width`` holds (before, after) pairs for every axis (MXNet requires 4-D or 5-D
data with zero padding on the first two axes); modes constant, edge, reflect (numpy's 'reflect',
which does not repeat the border value, as MXNet).

``UpSampling``: ``nearest`` repeats every input ``scale`` times along both spatial axes (several
inputs are each brought to the first input's size times ``scale`` and concatenated on the
channel axis or summed, ``multi_input_mode``); ``bilinear`` is MXNet's depthwise
Deconvolution with a ``(C, 1, 2s - s%2, 2s - s%2)`` weight input, stride ``s`` and pad
``ceil((s - 1) / 2)``.
"""
from __future__ import annotations

import math

import numpy as np

from ..base import ShapeError
from ._grad import backward_op, internal
from ._nnutil import OptFloat, merge_shape
from .attrs import Bool, Enum, Float, Int, Param, Shape
from .registry import OpDef, defgrad, get_op, register


# -- Pad ---------------------------------------------------------------------------------------
def _pairs(attrs, ndim: int):
    pw = tuple(attrs.pad_width)
    if len(pw) != 2 * ndim:
        raise ShapeError(f"Pad: pad_width {pw} must have 2 entries per axis of the {ndim}-D input")
    return [(pw[2 * i], pw[2 * i + 1]) for i in range(ndim)]


def _pad_shape(attrs, in_shapes):
    d = in_shapes[0]
    if d is None or len(d) == 0:
        return list(in_shapes), [None]
    pairs = _pairs(attrs, len(d))
    return list(in_shapes), [tuple(n + a + b if n else 0 for n, (a, b) in zip(d, pairs))]


def _pad(attrs, x):
    """Pads ``x`` by ``pad_width`` with a constant, the edge values, or a reflection."""
    pairs = _pairs(attrs, x.ndim)
    if attrs.mode == "constant":
        out = np.full(tuple(n + a + b for n, (a, b) in zip(x.shape, pairs)), attrs.constant_value, dtype=x.dtype)
        out[tuple(slice(a, a + n) for n, (a, _) in zip(x.shape, pairs))] = x
        return out
    return np.pad(x, pairs, mode=attrs.mode)


register(OpDef(
    "Pad", _pad,
    params=(Param("mode", Enum("constant", "edge", "reflect"), "constant"), Param("pad_width", Shape),
            Param("constant_value", Float, 0.0)),
    infer_shape=_pad_shape, aliases=("pad",), fluent=True,
))


# -- UpSampling ----------------------------------------------------------------------------------
def _up_kernel(scale: int) -> int:
    return 2 * scale - scale % 2


def _up_inputs(attrs):
    if attrs.sample_type == "bilinear":
        return ("data", "weight")
    return tuple(f"arg{i}" for i in range(attrs.num_args))


def _up_shape(attrs, in_shapes):
    ins = list(in_shapes)
    d = ins[0]
    s = attrs.scale
    if attrs.sample_type == "bilinear":
        C = d[1] if d is not None and len(d) > 1 else 0
        k = _up_kernel(s)
        if len(ins) > 1:
            ins[1] = merge_shape(ins[1], (C, 1, k, k), "UpSampling weight")
        if d is None or len(d) == 0:
            return ins, [None]
        return ins, [(d[0], d[1], d[2] * s, d[3] * s)]
    if d is None or len(d) == 0:
        return ins, [None]
    if len(d) != 4:
        raise ShapeError(f"UpSampling needs 4-D data, got {tuple(d)}")
    oh, ow = d[2] * s, d[3] * s
    if attrs.multi_input_mode == "sum":
        return ins, [(d[0], d[1], oh, ow)]
    chans = 0
    for sh in ins:
        if sh is None or len(sh) != 4 or not sh[1]:
            return ins, [(d[0], 0, oh, ow)]
        chans += sh[1]
    return ins, [(d[0], chans, oh, ow)]


def _nearest(x, fh: int, fw: int):
    N, C, H, W = x.shape
    out = np.empty((N, C, H, fh, W, fw), dtype=x.dtype)
    out[...] = x[:, :, :, None, :, None]
    return out.reshape(N, C, H * fh, W * fw)


def _upsampling(attrs, *arrays):
    """Nearest-neighbour (several inputs: concat or sum) or bilinear (depthwise deconvolution) upsampling."""
    s = attrs.scale
    if attrs.sample_type == "bilinear":
        x, w = arrays[0], arrays[1]
        from .registry import get_op
        deconv = get_op("Deconvolution")
        C = x.shape[1]
        k = _up_kernel(s)
        p = int(math.ceil((s - 1) / 2.0))
        dattrs = deconv.resolve(deconv.coerce_attrs(dict(kernel=(k, k), stride=(s, s), pad=(p, p), num_filter=C,
                                                         num_group=C, no_bias=True)))
        return deconv.compute(dattrs, x, w)
    oh, ow = arrays[0].shape[2] * s, arrays[0].shape[3] * s
    outs = []
    for x in arrays:
        if oh % x.shape[2] or ow % x.shape[3]:
            raise ShapeError(f"UpSampling: input of shape {x.shape} cannot be scaled to {oh}x{ow}")
        outs.append(_nearest(x, oh // x.shape[2], ow // x.shape[3]))
    if len(outs) == 1:
        return outs[0]
    if attrs.multi_input_mode == "sum":
        out = outs[0].copy()
        for o in outs[1:]:
            out += o
        return out
    return np.concatenate(outs, axis=1)


register(OpDef(
    "UpSampling", _upsampling,
    params=(Param("scale", Int), Param("num_filter", Int, 0), Param("sample_type", Enum("nearest", "bilinear")),
            Param("multi_input_mode", Enum("concat", "sum"), "concat"), Param("num_args", Int),
            Param("workspace", Int, 512)),
    inputs=_up_inputs, variadic="num_args", infer_shape=_up_shape,
))


# -- separable resampling (contrib): adaptive average pooling, bilinear resize --------------------
def _apply_separable(x, mh, mw):
    """``out[n, c] = mh @ x[n, c] @ mw.T`` for (N, C, H, W) data, in x's dtype (two matmuls)."""
    dt = x.dtype
    t = np.matmul(mh.astype(dt), x)                      # (N, C, oh, W)
    return np.matmul(t, mw.T.astype(dt))                 # (N, C, oh, ow)


def _adaptive_matrix(isize: int, osize: int) -> np.ndarray:
    o = np.arange(osize)
    start = np.floor(o * isize / osize).astype(np.int64)
    end = np.ceil((o + 1) * isize / osize).astype(np.int64)
    i = np.arange(isize)
    m = ((i[None, :] >= start[:, None]) & (i[None, :] < end[:, None])).astype(np.float64)
    return m / (end - start)[:, None]


def _adaptive_out(attrs):
    os_ = tuple(attrs.output_size)
    if len(os_) == 0:
        return 1, 1
    if len(os_) == 1:
        return os_[0], os_[0]
    return os_[0], os_[1]


def _adaptive_shape(attrs, in_shapes):
    d = in_shapes[0]
    if d is None or len(d) == 0:
        return list(in_shapes), [None]
    if len(d) != 4:
        raise ShapeError(f"AdaptiveAvgPooling2D needs 4-D data, got {tuple(d)}")
    return list(in_shapes), [(d[0], d[1]) + _adaptive_out(attrs)]


def _adaptive_avg_pooling(attrs, x):
    """Adaptive average pooling: output cell ``o`` averages input rows
    ``[floor(o*H/oh), ceil((o+1)*H/oh))`` (likewise for columns)."""
    oh, ow = _adaptive_out(attrs)
    return _apply_separable(x, _adaptive_matrix(x.shape[2], oh), _adaptive_matrix(x.shape[3], ow))


register(OpDef("_contrib_AdaptiveAvgPooling2D", _adaptive_avg_pooling,
               params=(Param("output_size", Shape, ()),), infer_shape=_adaptive_shape))


def _bilinear_taps(isize: int, osize: int, align_corners: bool) -> tuple:
    """MXNet's source index rule (``bilinear_resize-inl.h``) for one axis, in its float32 arithmetic:
    per output index the lower tap ``i0``, the step to the upper tap (0 on the last input row) and
    the weights ``(l0, l1)`` = ``(1 - l1, src - i0)``. The scale is a float32 quotient and, with
    ``align_corners``, ``scale * index`` a float32 product (so 0.2f * 50 is exactly 10, no weight
    on row 11); without, ``scale * (index + 0.5) - 0.5`` is taken in double and rounded once."""
    if osize > 1:
        scale = np.float32(isize - 1) / np.float32(osize - 1) if align_corners else np.float32(isize) / np.float32(osize)
    else:
        scale = np.float32(0.0)
    o = np.arange(osize)
    if align_corners:
        src = scale * o.astype(np.float32)
    else:
        src = (np.float64(scale) * (o + 0.5) - 0.5).astype(np.float32)
        src = np.where(src < 0, np.float32(0), src)
    i0 = src.astype(np.int64)
    step = (i0 < isize - 1).astype(np.int64)
    l1 = (src - i0.astype(np.float32)).astype(np.float32)
    return i0, step, np.float32(1) - l1, l1


def _bilinear_apply(x: np.ndarray, oh: int, ow: int, align_corners: bool) -> np.ndarray:
    """MXNet's CPU forward element by element, in the data's dtype:
    ``h0 * (w0 * x00 + w1 * x01) + h1 * (w0 * x10 + w1 * x11)``; the inner (column) sums are taken
    once per input row when there are fewer input rows than twice the output rows."""
    h0i, hs, h0, h1 = _bilinear_taps(x.shape[2], oh, align_corners)
    w0i, ws, w0, w1 = _bilinear_taps(x.shape[3], ow, align_corners)
    dt = x.dtype
    h0, h1 = h0.astype(dt)[:, None], h1.astype(dt)[:, None]
    w0, w1 = w0.astype(dt), w1.astype(dt)

    def cols(rows: np.ndarray) -> np.ndarray:
        out = w0 * rows[..., w0i]
        out += w1 * rows[..., w0i + ws]
        return out
    if x.shape[2] < 2 * oh:
        c = cols(x)                                              # (N, C, H, ow)
        top, bottom = c[:, :, h0i], c[:, :, h0i + hs]
    else:
        top, bottom = cols(x[:, :, h0i]), cols(x[:, :, h0i + hs])
    out = h0 * top
    out += h1 * bottom
    return out


def _bilinear_matrix(isize: int, osize: int, align_corners: bool, dtype: np.dtype = np.float64) -> np.ndarray:
    """The taps of :func:`_bilinear_taps` as an (osize, isize) matrix of ``dtype`` weights."""
    i0, step, l0, l1 = _bilinear_taps(isize, osize, align_corners)
    m = np.zeros((osize, isize), dtype)
    np.add.at(m, (np.arange(osize), i0), l0.astype(dtype))
    np.add.at(m, (np.arange(osize), i0 + step), l1.astype(dtype))
    return m


def _bilinear_size(attrs, dshape, like_shape=None):
    H, W = dshape[2], dshape[3]
    m = attrs.mode
    if m == "size":
        if attrs.scale_height is not None:
            if attrs.scale_width is None:
                raise ShapeError("BilinearResize2D: scale_height given without scale_width")
            return int(attrs.scale_height * H), int(attrs.scale_width * W)
        return attrs.height, attrs.width
    if m == "odd_scale":
        sh, sw = attrs.scale_height, attrs.scale_width
        return (int(H * sh) if H % 2 == 0 else int((H - 1) * sh) + 1,
                int(W * sw) if W % 2 == 0 else int((W - 1) * sw) + 1)
    if m == "like":
        return like_shape[2], like_shape[3]
    even = m.startswith("to_even")
    up = m.endswith("up")

    def adj(n):
        ok = (n % 2 == 0) if even else (n % 2 == 1)
        return n if ok else (n + 1 if up else n - 1)
    return adj(H), adj(W)


def _bilinear_inputs(attrs):
    return ("data", "like") if attrs.mode == "like" else ("data",)


def _bilinear_shape(attrs, in_shapes):
    d = in_shapes[0]
    if d is None or len(d) == 0:
        return list(in_shapes), [None]
    like = in_shapes[1] if attrs.mode == "like" else None
    if attrs.mode == "like" and (like is None or len(like) != 4):
        return list(in_shapes), [None]
    oh, ow = _bilinear_size(attrs, d, like)
    return list(in_shapes), [(d[0], d[1], oh, ow)]


def _bilinear_resize(attrs, x, like=None):
    """Bilinear resize of (N, C, H, W) data to a size given by ``mode`` (MXNet's index rule,
    ``align_corners`` as in its CPU kernel)."""
    oh, ow = _bilinear_size(attrs, x.shape, None if like is None else like.shape)
    if (oh, ow) == x.shape[2:]:
        return x.copy()
    return _bilinear_apply(x, oh, ow, attrs.align_corners)


register(OpDef(
    "_contrib_BilinearResize2D", _bilinear_resize,
    params=(Param("height", Int, 1), Param("width", Int, 1), Param("scale_height", OptFloat, None),
            Param("scale_width", OptFloat, None),
            Param("mode", Enum("size", "odd_scale", "like", "to_even_down", "to_even_up", "to_odd_down",
                               "to_odd_up"), "size"),
            Param("align_corners", Bool, True)),
    inputs=_bilinear_inputs, infer_shape=_bilinear_shape,
))


# -- Crop (legacy) ---------------------------------------------------------------------------------
def _crop_geometry(attrs, dshape, like_shape):
    H, W = dshape[2], dshape[3]
    if attrs.num_args == 2:
        h, w = like_shape[2], like_shape[3]
    else:
        h, w = attrs.h_w
    if attrs.center_crop:
        oy, ox = (H - h) // 2, (W - w) // 2
    else:
        oy, ox = attrs.offset
    if oy < 0 or ox < 0 or oy + h > H or ox + w > W:
        raise ShapeError(f"Crop: a {h}x{w} window at offset ({oy}, {ox}) does not fit a {H}x{W} input")
    return oy, ox, h, w


def _crop_shape(attrs, in_shapes):
    d = in_shapes[0]
    like = in_shapes[1] if attrs.num_args == 2 else None
    if d is None or len(d) != 4 or (attrs.num_args == 2 and (like is None or len(like) != 4)):
        return list(in_shapes), [None]
    _, _, h, w = _crop_geometry(attrs, d, like)
    return list(in_shapes), [(d[0], d[1], h, w)]


def _crop(attrs, x, like=None):
    """Crops the spatial axes of (N, C, H, W) data to ``h_w`` (or ``crop_like``'s size) at ``offset``
    (or centred with ``center_crop``)."""
    oy, ox, h, w = _crop_geometry(attrs, x.shape, None if like is None else like.shape)
    return np.ascontiguousarray(x[:, :, oy:oy + h, ox:ox + w])


register(OpDef(
    "Crop", _crop,
    params=(Param("num_args", Int), Param("offset", Shape, (0, 0)), Param("h_w", Shape, (0, 0)),
            Param("center_crop", Bool, False)),
    inputs=lambda attrs: ("data", "crop_like")[:attrs.num_args], variadic="num_args", infer_shape=_crop_shape,
))


# -- gradients (MXNet 1.9.1: pad.cc, nn/upsampling.cc, contrib/adaptive_avg_pooling.cc,
# contrib/bilinear_resize.cc, crop.cc) -----------------------------------------------------------------------
def _backward_pad(attrs, og, x):
    """Pad's backward: each output position's gradient added to the input position it copies (the
    constant border copies nothing)."""
    pairs = _pairs(attrs, x.ndim)
    if attrs.mode == "constant":
        return np.ascontiguousarray(og[tuple(slice(a, a + n) for n, (a, _) in zip(x.shape, pairs))])
    maps = [np.pad(np.arange(n), p, mode=attrs.mode) for n, p in zip(x.shape, pairs)]
    g = np.zeros_like(x)
    np.add.at(g, np.ix_(*maps), og)
    return g


backward_op("_backward_Pad", _backward_pad, ("ograd", "data"),
            params=(Param("mode", Enum("constant", "edge", "reflect"), "constant"), Param("pad_width", Shape),
                    Param("constant_value", Float, 0.0)))


@defgrad("Pad")
def _pad_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_Pad")(out_grads[0], inputs[0], mode=attrs.mode, pad_width=attrs.pad_width,
                                         constant_value=attrs.constant_value)]


def _block_sum(g, fh: int, fw: int):
    N, C, H, W = g.shape
    return g.reshape(N, C, H // fh, fh, W // fw, fw).sum(axis=(3, 5))


def _backward_upsampling_nearest(attrs, og, *xs):
    """Nearest upsampling's backward: each input gets its block sums (of its channels with concat)."""
    grads, c0 = [], 0
    for x in xs:
        part = og if attrs.multi_input_mode == "sum" and len(xs) > 1 else og[:, c0:c0 + x.shape[1]]
        c0 += x.shape[1]
        grads.append(_block_sum(part, og.shape[2] // x.shape[2], og.shape[3] // x.shape[3]).astype(x.dtype,
                                                                                                  copy=False))
    return grads[0] if len(grads) == 1 else tuple(grads)


register(OpDef("_backward_UpSampling", _backward_upsampling_nearest, params=get_op("UpSampling").params,
               inputs=lambda a: ["ograd"] + [f"arg{i}" for i in range(a.num_args)], num_outputs=lambda a: a.num_args,
               infer_shape=lambda a, ss: (list(ss), list(ss[1:])),
               infer_type=lambda a, ds: [d if d is not None else np.float32 for d in ds[1:]],
               doc="UpSampling (nearest) backward: block sums of the output gradient."))


def _deconv_attrs(attrs, channels: int):
    deconv = get_op("Deconvolution")
    s = attrs.scale
    k = _up_kernel(s)
    p = math.ceil((s - 1) / 2.0)
    return deconv, deconv.resolve(deconv.coerce_attrs({"kernel": (k, k), "stride": (s, s), "pad": (p, p),
                                                       "num_filter": channels, "num_group": channels,
                                                       "no_bias": True}))


@defgrad("UpSampling")
def _upsampling_grad(F, attrs, inputs, outputs, out_grads):
    if attrs.sample_type == "bilinear":
        # MXNet runs bilinear upsampling as a depthwise Deconvolution: its gradient is Deconvolution's
        deconv, dattrs = _deconv_attrs(attrs, attrs.num_filter)
        if deconv.gradient is None:
            from ..base import NonDifferentiableError
            raise NonDifferentiableError("UpSampling (bilinear) needs Deconvolution's gradient rule")
        return list(deconv.gradient(F, dattrs, inputs, outputs, out_grads))[:2]
    g = internal(F, "_backward_UpSampling")(out_grads[0], *inputs, **attrs.as_dict())
    n = len(inputs)
    return [g] if n == 1 and not isinstance(g, (list, tuple)) else [g[i] for i in range(n)]


def _backward_adaptive(attrs, og, x):
    oh, ow = _adaptive_out(attrs)
    return _apply_separable(og, _adaptive_matrix(x.shape[2], oh).T, _adaptive_matrix(x.shape[3], ow).T)


backward_op("_backward_contrib_AdaptiveAvgPooling2D", _backward_adaptive, ("ograd", "data"),
            params=(Param("output_size", Shape, ()),))


@defgrad("_contrib_AdaptiveAvgPooling2D")
def _adaptive_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_contrib_AdaptiveAvgPooling2D")(out_grads[0], inputs[0],
                                                                  output_size=attrs.output_size)]


def _backward_bilinear(attrs, og, x, like=None):
    if og.shape[2:] == x.shape[2:]:
        g = og.astype(x.dtype, copy=True)
    else:
        # MXNet scatter-adds h * w * g to the four taps; the same float32 weights, summed by two matmuls
        g = _apply_separable(og, _bilinear_matrix(x.shape[2], og.shape[2], attrs.align_corners, og.dtype).T,
                             _bilinear_matrix(x.shape[3], og.shape[3], attrs.align_corners, og.dtype).T)
        g = g.astype(x.dtype, copy=False)
    return g if like is None else (g, np.zeros_like(like))


backward_op("_backward_contrib_BilinearResize2D", _backward_bilinear,
            lambda a: ("ograd",) + _bilinear_inputs(a), like=(1,), params=get_op("_contrib_BilinearResize2D").params)
get_op("_backward_contrib_BilinearResize2D").num_outputs = lambda a: 2 if a.mode == "like" else 1
get_op("_backward_contrib_BilinearResize2D").infer_shape = lambda a, ss: (list(ss), list(ss[1:]))
get_op("_backward_contrib_BilinearResize2D").infer_type = lambda a, ds: [d or np.float32 for d in ds[1:]]


@defgrad("_contrib_BilinearResize2D")
def _bilinear_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_backward_contrib_BilinearResize2D")(out_grads[0], *inputs, **attrs.as_dict())
    return [g[0], g[1]] if len(inputs) == 2 else [g]


def _backward_crop(attrs, og, x, like=None):
    oy, ox, h, w = _crop_geometry(attrs, x.shape, None if like is None else like.shape)
    g = np.zeros_like(x)
    g[:, :, oy:oy + h, ox:ox + w] = og
    return g if like is None else (g, np.zeros_like(like))


backward_op("_backward_Crop", _backward_crop, lambda a: ("ograd", "data", "crop_like")[:a.num_args + 1],
            params=get_op("Crop").params)
get_op("_backward_Crop").num_outputs = lambda a: a.num_args
get_op("_backward_Crop").infer_shape = lambda a, ss: (list(ss), list(ss[1:]))
get_op("_backward_Crop").infer_type = lambda a, ds: [d or np.float32 for d in ds[1:]]


@defgrad("Crop")
def _crop_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_backward_Crop")(out_grads[0], *inputs, **attrs.as_dict())
    return [g[0], g[1]] if len(inputs) == 2 else [g]
