"""Region-of-interest pooling: ``ROIPooling`` and ``_contrib_ROIAlign`` (MXNet 1.9.1, NCHW).

``rois`` is ``(R, 5)``: ``[batch_index, x1, y1, x2, y2]`` in input-image coordinates, scaled by
``spatial_scale`` onto the feature map. Output ``(R, C, ph, pw)``.

Both kernels loop over the ``ph * pw`` output bins (a fixed, small count, like kernel taps) and
are vectorized over ROIs and channels inside a bin: each ROI's bin window (whose size differs per
ROI) is gathered into a padded, masked block.
"""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from ._grad import backward_op, internal
from ._nnutil import c_round, merge_shape
from .attrs import Bool, Float, Int, Param, Shape
from .registry import OpDef, defgrad, get_op, register


def _pooled(attrs):
    ps = tuple(attrs.pooled_size)
    if len(ps) == 1:
        return ps[0], ps[0]
    if len(ps) != 2:
        raise ShapeError(f"pooled_size must have 1 or 2 values, got {ps}")
    return ps


def roi_inputs(in_shapes, width: int, what: str) -> tuple:
    """``(in_shapes, data, rois)`` for the shape rule of an ROI operator (here and in
    ``nn_roi_contrib``): the rois' shape merged to ``(R, width)`` (one box a row); ``data`` and
    ``rois`` both ``None`` while either is unknown."""
    ins = list(in_shapes)
    d, r = ins[0], ins[1]
    if r is not None and len(r) > 0:
        ins[1] = r = merge_shape(r, (r[0], width), what)
    if d is None or len(d) == 0 or r is None or len(r) == 0:
        return ins, None, None
    return ins, d, r


def _roi_shape(position_sensitive_attr: bool):
    def infer(attrs, in_shapes):
        ph, pw = _pooled(attrs)
        ins, d, r = roi_inputs(in_shapes, 5, "rois")
        if d is None:
            return ins, [None]
        if len(d) != 4:
            raise ShapeError(f"ROI pooling needs 4-D data, got {tuple(d)}")
        C = d[1]
        if position_sensitive_attr and getattr(attrs, "position_sensitive", False):
            if C % (ph * pw):
                raise ShapeError(f"position-sensitive ROIAlign: {C} channels are not a multiple of {ph * pw}")
            C //= ph * pw
        return ins, [(r[0], C, ph, pw)]
    return infer


def _roi_pooling(attrs, data, rois):
    """Max pooling of every ROI into a ``pooled_size`` grid (MXNet's integer bin rule)."""
    N, C, H, W = data.shape
    R = rois.shape[0]
    ph, pw = _pooled(attrs)
    ss = attrs.spatial_scale
    b = np.clip(rois[:, 0].astype(np.int64), 0, N - 1)
    x1 = c_round(rois[:, 1] * ss).astype(np.int64)
    y1 = c_round(rois[:, 2] * ss).astype(np.int64)
    x2 = c_round(rois[:, 3] * ss).astype(np.int64)
    y2 = c_round(rois[:, 4] * ss).astype(np.int64)
    rh = np.maximum(y2 - y1 + 1, 1).astype(np.float64)
    rw = np.maximum(x2 - x1 + 1, 1).astype(np.float64)
    bh, bw = rh / ph, rw / pw
    out = np.zeros((R, C, ph, pw), dtype=data.dtype)
    lowest = np.finfo(data.dtype).min if data.dtype.kind == "f" else np.iinfo(data.dtype).min
    for i in range(ph):
        hs = np.clip(np.floor(i * bh).astype(np.int64) + y1, 0, H)
        he = np.clip(np.ceil((i + 1) * bh).astype(np.int64) + y1, 0, H)
        for j in range(pw):
            ws = np.clip(np.floor(j * bw).astype(np.int64) + x1, 0, W)
            we = np.clip(np.ceil((j + 1) * bw).astype(np.int64) + x1, 0, W)
            mh = max(int((he - hs).max(initial=0)), 1)
            mw = max(int((we - ws).max(initial=0)), 1)
            hi = hs[:, None] + np.arange(mh)[None, :]                    # (R, mh)
            wi = ws[:, None] + np.arange(mw)[None, :]
            ok = (hi < he[:, None])[:, :, None] & (wi < we[:, None])[:, None, :]   # (R, mh, mw)
            vals = data[b[:, None, None], :, np.minimum(hi, H - 1)[:, :, None], np.minimum(wi, W - 1)[:, None, :]]
            vals = np.where(ok[..., None], vals, lowest)                  # (R, mh, mw, C)
            m = vals.max(axis=(1, 2))
            empty = (he <= hs) | (we <= ws)
            out[:, :, i, j] = np.where(empty[:, None], 0, m)
    return out


register(OpDef("ROIPooling", _roi_pooling,
               params=(Param("pooled_size", Shape), Param("spatial_scale", Float)),
               inputs=("data", "rois"), infer_shape=_roi_shape(False)))


def _bilinear_gather(data, b, y, x):
    """Detectron's bilinear_interpolate for sample points y, x of shape (R, S); returns (R, S, C)."""
    N, C, H, W = data.shape
    out_of = (y < -1.0) | (y > H) | (x < -1.0) | (x > W)
    y = np.maximum(y, 0.0)
    x = np.maximum(x, 0.0)
    y0 = y.astype(np.int64)
    x0 = x.astype(np.int64)
    ytop = y0 >= H - 1
    xtop = x0 >= W - 1
    y0 = np.where(ytop, H - 1, y0)
    x0 = np.where(xtop, W - 1, x0)
    y1 = np.where(ytop, H - 1, y0 + 1)
    x1 = np.where(xtop, W - 1, x0 + 1)
    y = np.where(ytop, y0, y)
    x = np.where(xtop, x0, x)
    ly, lx = y - y0, x - x0
    hy, hx = 1 - ly, 1 - lx
    bb = b[:, None]
    v = (data[bb, :, y0, x0] * (hy * hx)[..., None] + data[bb, :, y0, x1] * (hy * lx)[..., None]
         + data[bb, :, y1, x0] * (ly * hx)[..., None] + data[bb, :, y1, x1] * (ly * lx)[..., None])
    return np.where(out_of[..., None], 0.0, v)


def _roi_align_bins(attrs, shape: tuple, rois):
    """ROIAlign's sampling grid, shared by the forward and its gradient: per output bin ``(i, j)``,
    the batch index of every ROI, the sample points ``Y``/``X`` (R, S), which of them count
    (``ok``), the samples per bin (``count``), and the input channels the bin reads (position
    sensitive) or ``None`` (all channels)."""
    N = shape[0]
    C = shape[1]
    R = rois.shape[0]
    ph, pw = _pooled(attrs)
    ss = attrs.spatial_scale
    off = 0.5 if attrs.aligned else 0.0
    r = rois.astype(np.float64)
    b = np.clip(r[:, 0].astype(np.int64), 0, N - 1)
    x1, y1 = r[:, 1] * ss - off, r[:, 2] * ss - off
    x2, y2 = r[:, 3] * ss - off, r[:, 4] * ss - off
    rw, rh = x2 - x1, y2 - y1
    if not attrs.aligned:
        rw, rh = np.maximum(rw, 1.0), np.maximum(rh, 1.0)
    bh, bw = rh / ph, rw / pw
    if attrs.sample_ratio > 0:
        gh = np.full(R, attrs.sample_ratio, np.int64)
        gw = gh.copy()
    else:
        gh = np.ceil(rh / ph).astype(np.int64)
        gw = np.ceil(rw / pw).astype(np.int64)
    count = np.maximum(gh * gw, 1).astype(np.float64)
    mgh, mgw = max(int(gh.max(initial=1)), 1), max(int(gw.max(initial=1)), 1)
    iy = np.arange(mgh)[None, :]
    ix = np.arange(mgw)[None, :]
    ps = attrs.position_sensitive
    Co = C // (ph * pw) if ps else C
    for i in range(ph):
        ys = y1[:, None] + i * bh[:, None] + (iy + 0.5) * bh[:, None] / np.maximum(gh, 1)[:, None]   # (R, mgh)
        yok = iy < gh[:, None]
        for j in range(pw):
            xs = x1[:, None] + j * bw[:, None] + (ix + 0.5) * bw[:, None] / np.maximum(gw, 1)[:, None]
            xok = ix < gw[:, None]
            Y = np.broadcast_to(ys[:, :, None], (R, mgh, mgw)).reshape(R, -1)
            X = np.broadcast_to(xs[:, None, :], (R, mgh, mgw)).reshape(R, -1)
            ok = (yok[:, :, None] & xok[:, None, :]).reshape(R, -1)
            chans = np.arange(Co) * ph * pw + i * pw + j if ps else None
            yield i, j, b, Y, X, ok, count, chans


def _roi_align(attrs, data, rois):
    """ROIAlign: average of bilinear samples on a regular grid inside every bin (Detectron rule;
    ``sample_ratio <= 0`` takes ``ceil(roi_size / pooled_size)`` samples per bin and axis)."""
    ph, pw = _pooled(attrs)
    Co = data.shape[1] // (ph * pw) if attrs.position_sensitive else data.shape[1]
    out = np.zeros((rois.shape[0], Co, ph, pw), dtype=np.float64)
    data64 = data.astype(np.float64, copy=False)
    for i, j, b, Y, X, ok, count, chans in _roi_align_bins(attrs, data.shape, rois):
        src = data64 if chans is None else data64[:, chans]
        v = _bilinear_gather(src, b, Y, X)                      # (R, S, C')
        v = np.where(ok[..., None], v, 0.0).sum(axis=1)
        out[:, :, i, j] = v / count[:, None]
    return out.astype(data.dtype)


register(OpDef(
    "_contrib_ROIAlign", _roi_align,
    params=(Param("pooled_size", Shape), Param("spatial_scale", Float), Param("sample_ratio", Int, -1),
            Param("position_sensitive", Bool, False), Param("aligned", Bool, False)),
    inputs=("data", "rois"), infer_shape=_roi_shape(True),
))


# -- gradients (MXNet 1.9.1: roi_pooling.cc (legacy: the gradient goes to each bin's argmax, the first
# maximum in scan order), contrib/roi_align.cc (_backward_ROIAlign: bilinear weights scattered back);
# the rois get zero) -------------------------------------------------------------------------------------------
def _backward_roi_pooling(attrs, og, data, rois):
    N, C, H, W = data.shape
    R = rois.shape[0]
    ph, pw = _pooled(attrs)
    ss = attrs.spatial_scale
    b = np.clip(rois[:, 0].astype(np.int64), 0, N - 1)
    x1 = c_round(rois[:, 1] * ss).astype(np.int64)
    y1 = c_round(rois[:, 2] * ss).astype(np.int64)
    x2 = c_round(rois[:, 3] * ss).astype(np.int64)
    y2 = c_round(rois[:, 4] * ss).astype(np.int64)
    rh = np.maximum(y2 - y1 + 1, 1).astype(np.float64)
    rw = np.maximum(x2 - x1 + 1, 1).astype(np.float64)
    bh, bw = rh / ph, rw / pw
    g = np.zeros(data.shape, dtype=np.float64)
    lowest = np.finfo(data.dtype).min
    cc = np.arange(C)[None, :]
    for i in range(ph):
        hs = np.clip(np.floor(i * bh).astype(np.int64) + y1, 0, H)
        he = np.clip(np.ceil((i + 1) * bh).astype(np.int64) + y1, 0, H)
        for j in range(pw):
            ws = np.clip(np.floor(j * bw).astype(np.int64) + x1, 0, W)
            we = np.clip(np.ceil((j + 1) * bw).astype(np.int64) + x1, 0, W)
            mh = max(int((he - hs).max(initial=0)), 1)
            mw = max(int((we - ws).max(initial=0)), 1)
            hi = hs[:, None] + np.arange(mh)[None, :]
            wi = ws[:, None] + np.arange(mw)[None, :]
            ok = (hi < he[:, None])[:, :, None] & (wi < we[:, None])[:, None, :]
            hc, wc = np.minimum(hi, H - 1), np.minimum(wi, W - 1)
            vals = data[b[:, None, None], :, hc[:, :, None], wc[:, None, :]]
            vals = np.where(ok[..., None], vals, lowest).reshape(R, mh * mw, C)
            k = vals.argmax(axis=1)                                     # (R, C): first maximum
            ys = np.take_along_axis(np.broadcast_to(hc[:, :, None], (R, mh, mw)).reshape(R, -1), k, axis=1)
            xs = np.take_along_axis(np.broadcast_to(wc[:, None, :], (R, mh, mw)).reshape(R, -1), k, axis=1)
            empty = ((he <= hs) | (we <= ws))[:, None]
            np.add.at(g, (b[:, None], cc, ys, xs), np.where(empty, 0.0, og[:, :, i, j]))
    return g.astype(data.dtype), np.zeros_like(rois)


def _bilinear_scatter(g, b, y, x, val):
    """``_bilinear_gather``'s adjoint: adds ``val`` (R, S, C) into ``g`` with the same weights."""
    N, C, H, W = g.shape
    out_of = (y < -1.0) | (y > H) | (x < -1.0) | (x > W)
    y = np.maximum(y, 0.0)
    x = np.maximum(x, 0.0)
    y0 = y.astype(np.int64)
    x0 = x.astype(np.int64)
    ytop = y0 >= H - 1
    xtop = x0 >= W - 1
    y0 = np.where(ytop, H - 1, y0)
    x0 = np.where(xtop, W - 1, x0)
    y1 = np.where(ytop, H - 1, y0 + 1)
    x1 = np.where(xtop, W - 1, x0 + 1)
    y = np.where(ytop, y0, y)
    x = np.where(xtop, x0, x)
    ly, lx = y - y0, x - x0
    hy, hx = 1 - ly, 1 - lx
    val = np.where(out_of[..., None], 0.0, val)
    bb = b[:, None, None]
    cc = np.arange(C)[None, None, :]
    for yy, xx, w in ((y0, x0, hy * hx), (y0, x1, hy * lx), (y1, x0, ly * hx), (y1, x1, ly * lx)):
        np.add.at(g, (bb, cc, yy[..., None], xx[..., None]), val * w[..., None])


def _backward_roi_align(attrs, og, data, rois):
    N, C, H, W = data.shape
    g = np.zeros(data.shape, dtype=np.float64)
    for i, j, b, Y, X, ok, count, chans in _roi_align_bins(attrs, data.shape, rois):
        val = np.where(ok[..., None], (og[:, :, i, j] / count[:, None])[:, None, :], 0.0)   # (R, S, Co)
        if chans is not None:
            part = np.zeros((N, len(chans), H, W))
            _bilinear_scatter(part, b, Y, X, val)
            g[:, chans] += part
        else:
            _bilinear_scatter(g, b, Y, X, val)
    return g.astype(data.dtype), np.zeros_like(rois)


backward_op("_backward_ROIPooling", _backward_roi_pooling, ("ograd", "data", "rois"), like=(1, 2), num_outputs=2,
            params=get_op("ROIPooling").params)
backward_op("_backward_ROIAlign", _backward_roi_align, ("ograd", "data", "rois"), like=(1, 2), num_outputs=2,
            params=get_op("_contrib_ROIAlign").params)


@defgrad("ROIPooling")
def _roi_pooling_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_backward_ROIPooling")(out_grads[0], *inputs, **attrs.as_dict())
    return [g[0], g[1]]


@defgrad("_contrib_ROIAlign")
def _roi_align_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_backward_ROIAlign")(out_grads[0], *inputs, **attrs.as_dict())
    return [g[0], g[1]]
