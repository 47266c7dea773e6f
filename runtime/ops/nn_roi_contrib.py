"""``_contrib_PSROIPooling`` (R-FCN's position-sensitive ROI pooling) and ``_contrib_RROIAlign``
(ROIAlign over rotated boxes) with MXNet 1.9.1's CPU semantics.

PSROIPooling (``src/operator/contrib/psroi_pooling.cc``): ``rois`` rows are ``[batch, x1, y1, x2,
y2]``; corners are rounded (half away from zero), the end corner gets +1, both are scaled by
``spatial_scale`` and the box is at least 0.1 wide. Output bin ``(ph, pw)`` of output channel
``c`` averages input channel ``(c * group_size + gh) * group_size + gw`` (``gh, gw`` the bin's
group) over the integer window ``[floor(start), ceil(end))`` clipped to the map; an empty window
gives 0. ``group_size`` 0 means ``pooled_size``. Arithmetic is in the data's dtype, as MXNet's.

RROIAlign (``src/operator/contrib/rroi_align.cc``): ``rois`` rows are ``[batch, cx, cy, w, h,
theta_degrees]``; each bin averages ``grid_h * grid_w`` bilinear samples (``sampling_ratio`` per
axis, or ``ceil(roi_size / pooled_size)`` when it is not positive) taken on the box rotated by
theta around its centre; samples beyond one pixel outside the map count as 0.

DeformablePSROIPooling (``deformable_psroi_pooling.cc``): as PSROIPooling, with the box shifted by
half a pixel, each bin moved by ``trans * trans_std`` times the box size (``trans`` per ROI, class
and part) and averaged over ``sample_per_part**2`` bilinear samples inside the map (0 if none).

All three loop over the output bins (a small fixed count) and are vectorized over ROIs and channels.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..base import ShapeError
from ._grad import backward_op, internal
from ._nnutil import c_round
from .attrs import Bool, Float, Int, Param, Shape
from .nn_roi import roi_inputs
from .registry import OpDef, defgrad, get_op, register


def _batch_index(name: str, rois: np.ndarray, n: int) -> np.ndarray:
    """The rois' batch column as indices; MXNet reads outside the batch silently, this refuses."""
    b = rois[:, 0].astype(np.int64)
    if b.size and (b.min() < 0 or b.max() >= n):
        raise ShapeError(f"{name}: rois refer to batch index {int(b.max() if b.max() >= n else b.min())}, "
                         f"the data has {n} image(s)")
    return b


def _check_scale(name: str, ss: float) -> None:
    if not 0.0 <= ss <= 1.0:
        raise ShapeError(f"{name}: spatial_scale must be in [0, 1], got {ss}")


# -- PSROIPooling ---------------------------------------------------------------------------------------
def _group(attrs) -> int:
    return attrs.group_size if attrs.group_size > 0 else attrs.pooled_size


def _psroi_check(attrs, dshape, rshape) -> None:
    _check_scale("PSROIPooling", attrs.spatial_scale)
    if len(dshape) != 4:
        raise ShapeError(f"PSROIPooling: data should be a 4D tensor, got shape {tuple(dshape)}")
    if len(rshape) != 2 or rshape[1] != 5:
        raise ShapeError(f"PSROIPooling: bbox should be a 2D tensor of shape [batch, 5], got {tuple(rshape)}")
    if attrs.pooled_size < 1 or attrs.output_dim < 1:
        raise ShapeError("PSROIPooling: pooled_size and output_dim must be positive")
    g = _group(attrs)
    if dshape[1] and dshape[1] < attrs.output_dim * g * g:
        raise ShapeError(f"PSROIPooling: data has {dshape[1]} channels, output_dim * group_size**2 = "
                         f"{attrs.output_dim * g * g} are needed")


def _psroi_pooling(attrs, data, rois):
    """PSROIPooling: average of each bin over its own group of input channels."""
    _psroi_check(attrs, data.shape, rois.shape)
    N, C, H, W = data.shape
    R = rois.shape[0]
    dt = data.dtype.type
    P, OD, G = attrs.pooled_size, attrs.output_dim, _group(attrs)
    ss = dt(attrs.spatial_scale)
    r = rois.astype(data.dtype, copy=False)
    b = _batch_index("PSROIPooling", r, N)
    x1 = c_round(r[:, 1]).astype(data.dtype) * ss
    y1 = c_round(r[:, 2]).astype(data.dtype) * ss
    x2 = (c_round(r[:, 3].astype(np.float64)) + 1.0).astype(data.dtype) * ss
    y2 = (c_round(r[:, 4].astype(np.float64)) + 1.0).astype(data.dtype) * ss
    rw = np.maximum(x2 - x1, dt(0.1))
    rh = np.maximum(y2 - y1, dt(0.1))
    bh, bw = rh / dt(P), rw / dt(P)
    out = np.zeros((R, OD, P, P), dtype=data.dtype)
    ctop = np.arange(OD)
    for i in range(P):
        hs = np.clip(np.floor(dt(i) * bh + y1).astype(np.int64), 0, H)
        he = np.clip(np.ceil(dt(i + 1) * bh + y1).astype(np.int64), 0, H)
        gh = min(max(int(np.floor(dt(i) * dt(G) / dt(P))), 0), G - 1)
        for j in range(P):
            ws = np.clip(np.floor(dt(j) * bw + x1).astype(np.int64), 0, W)
            we = np.clip(np.ceil(dt(j + 1) * bw + x1).astype(np.int64), 0, W)
            gw = min(max(int(np.floor(dt(j) * dt(G) / dt(P))), 0), G - 1)
            chans = (ctop * G + gh) * G + gw                                     # (OD,)
            mh = max(int((he - hs).max(initial=0)), 1)
            mw = max(int((we - ws).max(initial=0)), 1)
            hi = hs[:, None] + np.arange(mh)[None, :]                            # (R, mh)
            wi = ws[:, None] + np.arange(mw)[None, :]
            ok = (hi < he[:, None])[:, :, None] & (wi < we[:, None])[:, None, :]  # (R, mh, mw)
            vals = data[b[:, None, None, None], chans[None, :, None, None],
                        np.minimum(hi, H - 1)[:, None, :, None], np.minimum(wi, W - 1)[:, None, None, :]]
            total = np.where(ok[:, None], vals, dt(0)).sum(axis=(2, 3), dtype=data.dtype)   # (R, OD)
            area = ((he - hs) * (we - ws)).astype(data.dtype)
            empty = (he <= hs) | (we <= ws)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[:, :, i, j] = np.where(empty[:, None], dt(0), total / area[:, None])
    return out


def _psroi_shape(attrs, in_shapes):
    ins, d, r = roi_inputs(in_shapes, 5, "PSROIPooling rois")
    if d is None:
        return ins, [None]
    _psroi_check(attrs, d, r)
    return ins, [(r[0], attrs.output_dim, attrs.pooled_size, attrs.pooled_size)]


register(OpDef(
    "_contrib_PSROIPooling", _psroi_pooling, inputs=("data", "rois"),
    params=(Param("spatial_scale", Float), Param("output_dim", Int), Param("pooled_size", Int),
            Param("group_size", Int, 0)),
    infer_shape=_psroi_shape,
))


# -- RROIAlign ---------------------------------------------------------------------------------------------
def _rroi_pooled(attrs) -> tuple[int, int]:
    ps = tuple(attrs.pooled_size)
    if len(ps) != 2 or min(ps) <= 0:
        raise ShapeError(f"RROIAlign: pooled_size must be two positive integers (h, w), got {ps}")
    return ps


def _rroi_check(attrs, dshape, rshape) -> None:
    _check_scale("RROIAlign", attrs.spatial_scale)
    _rroi_pooled(attrs)
    if len(dshape) != 4:
        raise ShapeError(f"RROIAlign: data should be a 4D tensor, got shape {tuple(dshape)}")
    if len(rshape) != 2 or rshape[1] != 6:
        raise ShapeError(f"RROIAlign: bbox should be a 2D tensor of shape [batch, 6], got {tuple(rshape)}")


def _rroi_align(attrs, data, rois):
    """RROIAlign: ROIAlign over boxes rotated by theta degrees around their centres."""
    _rroi_check(attrs, data.shape, rois.shape)
    N, C, H, W = data.shape
    R = rois.shape[0]
    PH, PW = _rroi_pooled(attrs)
    dt = data.dtype.type
    ss = dt(attrs.spatial_scale)
    r = rois.astype(data.dtype, copy=False)
    b = _batch_index("RROIAlign", r, N)
    cw, ch = r[:, 1] * ss, r[:, 2] * ss
    rw = np.maximum(r[:, 3] * ss, dt(1.0))
    rh = np.maximum(r[:, 4] * ss, dt(1.0))
    theta = (r[:, 5].astype(np.float64) * np.pi / 180.0).astype(data.dtype)
    cos_t, sin_t = np.cos(theta), np.sin(theta)
    start_h, start_w = -rh / dt(2.0), -rw / dt(2.0)
    bh, bw = rh / dt(PH), rw / dt(PW)
    if attrs.sampling_ratio > 0:
        gh = np.full(R, attrs.sampling_ratio, np.int64)
        gw = gh.copy()
    else:
        gh = np.ceil(rh / dt(PH)).astype(np.int64)
        gw = np.ceil(rw / dt(PW)).astype(np.int64)
    count = (gh * gw).astype(data.dtype)
    mgh, mgw = max(int(gh.max(initial=1)), 1), max(int(gw.max(initial=1)), 1)
    iy = np.arange(mgh, dtype=data.dtype)[None, :, None]        # (1, mgh, 1)
    ix = np.arange(mgw, dtype=data.dtype)[None, None, :]        # (1, 1, mgw)
    ok = (np.arange(mgh)[None, :, None] < gh[:, None, None]) & (np.arange(mgw)[None, None, :] < gw[:, None, None])
    col = lambda v: v[:, None, None]  # noqa: E731 - per-ROI value against the (R, mgh, mgw) grid
    out = np.zeros((R, C, PH, PW), dtype=data.dtype)
    flat = data.reshape(N, C, H * W)
    for ph in range(PH):
        yy = col(start_h) + dt(ph) * col(bh) + (iy + dt(0.5)) * col(bh) / col(gh.astype(data.dtype))
        for pw in range(PW):
            xx = col(start_w) + dt(pw) * col(bw) + (ix + dt(0.5)) * col(bw) / col(gw.astype(data.dtype))
            x = xx * col(cos_t) + yy * col(sin_t) + col(cw)
            y = yy * col(cos_t) - xx * col(sin_t) + col(ch)
            outside = (y < -1.0) | (y > H) | (x < -1.0) | (x > W)
            y = np.maximum(y, dt(0))
            x = np.maximum(x, dt(0))
            y_low, x_low = y.astype(np.int64), x.astype(np.int64)
            ytop, xtop = y_low >= H - 1, x_low >= W - 1
            y_low = np.where(ytop, H - 1, y_low)
            x_low = np.where(xtop, W - 1, x_low)
            y_high = np.where(ytop, H - 1, y_low + 1)
            x_high = np.where(xtop, W - 1, x_low + 1)
            y = np.where(ytop, y_low.astype(data.dtype), y)
            x = np.where(xtop, x_low.astype(data.dtype), x)
            ly, lx = y - y_low.astype(data.dtype), x - x_low.astype(data.dtype)
            hy, hx = dt(1.0) - ly, dt(1.0) - lx
            keep = ok & ~outside
            acc = np.zeros((R, C), dtype=data.dtype)
            for yi, xi, wgt in ((y_low, x_low, hy * hx), (y_low, x_high, hy * lx),
                                (y_high, x_low, ly * hx), (y_high, x_high, ly * lx)):
                pos = (yi * W + xi).reshape(R, -1)                               # (R, S)
                v = np.take_along_axis(flat[b], pos[:, None, :], axis=2)          # (R, C, S)
                wv = np.where(keep, wgt, dt(0)).reshape(R, 1, -1)
                acc += (v * wv).sum(axis=2, dtype=data.dtype)
            out[:, :, ph, pw] = acc / count[:, None]
    return out


def _rroi_shape(attrs, in_shapes):
    ins, d, r = roi_inputs(in_shapes, 6, "RROIAlign rois")
    if d is None:
        return ins, [None]
    _rroi_check(attrs, d, r)
    PH, PW = _rroi_pooled(attrs)
    return ins, [(r[0], d[1], PH, PW)]


register(OpDef(
    "_contrib_RROIAlign", _rroi_align, inputs=("data", "rois"),
    params=(Param("pooled_size", Shape), Param("spatial_scale", Float), Param("sampling_ratio", Int, -1)),
    infer_shape=_rroi_shape,
))


# -- DeformablePSROIPooling ----------------------------------------------------------------------------------
def _dpsroi_inputs(attrs) -> list:
    return ["data", "rois"] if attrs.no_trans else ["data", "rois", "trans"]


def _dpsroi_check(attrs, dshape, rshape, tshape) -> None:
    _check_scale("DeformablePSROIPooling", attrs.spatial_scale)
    if not 0.0 <= attrs.trans_std <= 1.0:
        raise ShapeError(f"DeformablePSROIPooling: trans_std must be in [0, 1], got {attrs.trans_std}")
    if len(dshape) != 4:
        raise ShapeError(f"DeformablePSROIPooling: data should be a 4D tensor, got shape {tuple(dshape)}")
    if len(rshape) != 2 or rshape[1] != 5:
        raise ShapeError(f"DeformablePSROIPooling: bbox should be a 2D tensor of shape [batch, 5], got {tuple(rshape)}")
    if tshape is not None and len(tshape) != 4:
        raise ShapeError(f"DeformablePSROIPooling: trans should be a 4D tensor, got shape {tuple(tshape)}")
    g = attrs.group_size
    if min(g, attrs.pooled_size, attrs.output_dim, attrs.sample_per_part) < 1:
        raise ShapeError("DeformablePSROIPooling: group_size, pooled_size, output_dim and sample_per_part must be positive")
    if dshape[1] and dshape[1] < attrs.output_dim * g * g:
        raise ShapeError(f"DeformablePSROIPooling: data has {dshape[1]} channels, output_dim * group_size**2 = "
                         f"{attrs.output_dim * g * g} are needed")


def _dpsroi_bins(attrs, data, rois, trans):
    """The sampling grid DeformablePSROIPooling's forward and backward both walk (MXNet's kernels
    compute it the same way in both): per output bin ``(ph, pw)``, the data channels it pools
    (``chans``, per output channel), where its samples start (``wstart``/``hstart``, ``(R, OD)``,
    shifted by ``trans``) and the offset part it reads. Yields one ``SimpleNamespace`` per bin;
    the first carries the per-roi geometry too (``b``, ``rw``, ``rh``, ``sbw``, ``sbh``, ``class_id``)."""
    N = data.shape[0]
    R = rois.shape[0]
    dt = data.dtype.type
    P, OD, G = attrs.pooled_size, attrs.output_dim, attrs.group_size
    PS = attrs.part_size if attrs.part_size > 0 else P
    S = attrs.sample_per_part
    ss = dt(attrs.spatial_scale)
    r = rois.astype(data.dtype, copy=False)
    b = _batch_index("DeformablePSROIPooling", r, N)
    half = lambda v: (v.astype(np.float64) - 0.5).astype(data.dtype)  # noqa: E731 - "DType - 0.5"
    x1 = half(c_round(r[:, 1]).astype(data.dtype) * ss)
    y1 = half(c_round(r[:, 2]).astype(data.dtype) * ss)
    x2 = half((c_round(r[:, 3].astype(np.float64)) + 1.0).astype(data.dtype) * ss)
    y2 = half((c_round(r[:, 4].astype(np.float64)) + 1.0).astype(data.dtype) * ss)
    rw = np.maximum(x2 - x1, dt(0.1))
    rh = np.maximum(y2 - y1, dt(0.1))
    bh, bw = rh / dt(P), rw / dt(P)
    sbh, sbw = bh / dt(S), bw / dt(S)
    ctop = np.arange(OD)
    per_class = OD if attrs.no_trans else OD // (trans.shape[1] // 2)
    class_id = ctop // per_class                                                  # (OD,)
    for ph in range(P):
        part_h = int(np.floor(dt(ph) / dt(P) * dt(PS)))
        gh = min(max(int(np.floor(dt(ph) * dt(G) / dt(P))), 0), G - 1)
        for pw in range(P):
            part_w = int(np.floor(dt(pw) / dt(P) * dt(PS)))
            gw = min(max(int(np.floor(dt(pw) * dt(G) / dt(P))), 0), G - 1)
            if attrs.no_trans:
                tx = ty = np.zeros((R, OD), dtype=data.dtype)
            else:
                tx = trans[:, class_id * 2, part_h, part_w] * dt(attrs.trans_std)       # (R, OD)
                ty = trans[:, class_id * 2 + 1, part_h, part_w] * dt(attrs.trans_std)
            yield SimpleNamespace(
                ph=ph, pw=pw, part_h=part_h, part_w=part_w, chans=(ctop * G + gh) * G + gw,
                wstart=(dt(pw) * bw + x1)[:, None] + tx * rw[:, None],
                hstart=(dt(ph) * bh + y1)[:, None] + ty * rh[:, None],
                b=b, rw=rw, rh=rh, sbw=sbw, sbh=sbh, class_id=class_id, S=S)


def _deformable_psroi_pooling(attrs, data, rois, trans=None):
    """DeformablePSROIPooling: position-sensitive pooling of bins shifted by learned offsets
    (``trans``), each bin the mean of ``sample_per_part**2`` bilinear samples inside the map."""
    _dpsroi_check(attrs, data.shape, rois.shape, None if attrs.no_trans else trans.shape)
    N, C, H, W = data.shape
    R = rois.shape[0]
    dt = data.dtype.type
    OD, P = attrs.output_dim, attrs.pooled_size
    flat = data.reshape(N, C, H * W)
    out = np.zeros((R, OD, P, P), dtype=data.dtype)
    for bin_ in _dpsroi_bins(attrs, data, rois, trans):
        ph, pw, chans, wstart, hstart = bin_.ph, bin_.pw, bin_.chans, bin_.wstart, bin_.hstart
        b, S, sbw, sbh = bin_.b, bin_.S, bin_.sbw, bin_.sbh
        src = flat[b[:, None], chans[None, :]]                                   # (R, OD, H*W)
        total = np.zeros((R, OD), dtype=data.dtype)
        count = np.zeros((R, OD), dtype=np.int64)
        for ih in range(S):
            for iw in range(S):
                w = wstart + dt(iw) * sbw[:, None]
                h = hstart + dt(ih) * sbh[:, None]
                ok = ~((w < -0.5) | (w > W - 0.5) | (h < -0.5) | (h > H - 0.5))
                w = np.minimum(np.maximum(w, dt(0)), dt(W - 1))
                h = np.minimum(np.maximum(h, dt(0)), dt(H - 1))
                xa, xb = np.floor(w).astype(np.int64), np.ceil(w).astype(np.int64)
                ya, yb = np.floor(h).astype(np.int64), np.ceil(h).astype(np.int64)
                dx, dy = w - xa.astype(data.dtype), h - ya.astype(data.dtype)
                pick = lambda yy, xx: np.take_along_axis(src, (yy * W + xx)[..., None], axis=2)[..., 0]  # noqa: E731
                val = ((dt(1) - dx) * (dt(1) - dy) * pick(ya, xa) + (dt(1) - dx) * dy * pick(yb, xa)
                       + dx * (dt(1) - dy) * pick(ya, xb) + dx * dy * pick(yb, xb))
                total += np.where(ok, val, dt(0))
                count += ok
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, :, ph, pw] = np.where(count == 0, dt(0), total / count.astype(data.dtype))
    return out


def _dpsroi_shape(attrs, in_shapes):
    ins, d, r = roi_inputs(in_shapes, 5, "DeformablePSROIPooling rois")
    if d is None:
        return ins, [None]
    t = None if attrs.no_trans else ins[2]
    _dpsroi_check(attrs, d, r, t if t else None)
    return ins, [(r[0], attrs.output_dim, attrs.pooled_size, attrs.pooled_size)]


register(OpDef(
    "_contrib_DeformablePSROIPooling", _deformable_psroi_pooling, inputs=_dpsroi_inputs,
    params=(Param("spatial_scale", Float), Param("output_dim", Int), Param("group_size", Int),
            Param("pooled_size", Int), Param("part_size", Int, 0), Param("sample_per_part", Int, 1),
            Param("trans_std", Float, 0.0), Param("no_trans", Bool, False)),
    infer_shape=_dpsroi_shape,
))


# -- gradients (MXNet 1.9.1: contrib/psroi_pooling.cc (legacy: each bin's average spread back over its
# window of its channel group; rois get zero); RROIAlign has no gradient) ------------------------------------
def _backward_psroi_pooling(attrs, og, data, rois):
    N, C, H, W = data.shape
    dt = data.dtype.type
    P, OD, G = attrs.pooled_size, attrs.output_dim, _group(attrs)
    ss = dt(attrs.spatial_scale)
    r = rois.astype(data.dtype, copy=False)
    b = _batch_index("PSROIPooling", r, N)
    x1 = c_round(r[:, 1]).astype(data.dtype) * ss
    y1 = c_round(r[:, 2]).astype(data.dtype) * ss
    x2 = (c_round(r[:, 3].astype(np.float64)) + 1.0).astype(data.dtype) * ss
    y2 = (c_round(r[:, 4].astype(np.float64)) + 1.0).astype(data.dtype) * ss
    rw = np.maximum(x2 - x1, dt(0.1))
    rh = np.maximum(y2 - y1, dt(0.1))
    bh, bw = rh / dt(P), rw / dt(P)
    g = np.zeros(data.shape, dtype=np.float64)
    ctop = np.arange(OD)
    for i in range(P):
        hs = np.clip(np.floor(dt(i) * bh + y1).astype(np.int64), 0, H)
        he = np.clip(np.ceil(dt(i + 1) * bh + y1).astype(np.int64), 0, H)
        gh = min(max(int(np.floor(dt(i) * dt(G) / dt(P))), 0), G - 1)
        for j in range(P):
            ws = np.clip(np.floor(dt(j) * bw + x1).astype(np.int64), 0, W)
            we = np.clip(np.ceil(dt(j + 1) * bw + x1).astype(np.int64), 0, W)
            gw = min(max(int(np.floor(dt(j) * dt(G) / dt(P))), 0), G - 1)
            chans = (ctop * G + gh) * G + gw
            mh = max(int((he - hs).max(initial=0)), 1)
            mw = max(int((we - ws).max(initial=0)), 1)
            hi = hs[:, None] + np.arange(mh)[None, :]
            wi = ws[:, None] + np.arange(mw)[None, :]
            ok = (hi < he[:, None])[:, :, None] & (wi < we[:, None])[:, None, :]          # (R, mh, mw)
            area = np.maximum((he - hs) * (we - ws), 1).astype(np.float64)
            share = og[:, :, i, j].astype(np.float64) / area[:, None]                     # (R, OD)
            val = np.where(ok[:, None], share[:, :, None, None], 0.0)                     # (R, OD, mh, mw)
            np.add.at(g, (b[:, None, None, None], chans[None, :, None, None],
                          np.minimum(hi, H - 1)[:, None, :, None], np.minimum(wi, W - 1)[:, None, None, :]), val)
    return g.astype(data.dtype), np.zeros_like(rois)


backward_op("_backward__contrib_PSROIPooling", _backward_psroi_pooling, ("ograd", "data", "rois"), like=(1, 2),
            num_outputs=2, params=get_op("_contrib_PSROIPooling").params)


@defgrad("_contrib_PSROIPooling")
def _psroi_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_backward__contrib_PSROIPooling")(out_grads[0], *inputs, **attrs.as_dict())
    return [g[0], g[1]]



def _backward_dpsroi_pooling(attrs, og, data, rois, trans=None):
    """DeformablePSROIPooling's backward (MXNet's DeformablePSROIPoolBackwardAccKernel): each sample's
    share of its bin's gradient goes to its four neighbours; ``trans`` gets the bilinear slope along x
    (y) times ``trans_std`` and the box width (height); rois get zero."""
    N, C, H, W = data.shape
    R = rois.shape[0]
    dt = data.dtype.type
    OD = attrs.output_dim
    gdata = np.zeros((N, C, H * W))
    gtrans = None if trans is None else np.zeros(trans.shape)
    flat = data.reshape(N, C, H * W).astype(np.float64)
    rr = np.arange(R)[:, None]
    for bin_ in _dpsroi_bins(attrs, data, rois, trans):
        ph, pw, chans, wstart, hstart = bin_.ph, bin_.pw, bin_.chans, bin_.wstart, bin_.hstart
        part_h, part_w, class_id, rw, rh = bin_.part_h, bin_.part_w, bin_.class_id, bin_.rw, bin_.rh
        b, S, sbw, sbh = bin_.b, bin_.S, bin_.sbw, bin_.sbh
        src = flat[b[:, None], chans[None, :]]
        count = np.zeros((R, OD), dtype=np.int64)
        samples = []
        for ih in range(S):
            for iw in range(S):
                w = wstart + dt(iw) * sbw[:, None]
                h = hstart + dt(ih) * sbh[:, None]
                ok = ~((w < -0.5) | (w > W - 0.5) | (h < -0.5) | (h > H - 0.5))
                count += ok
                samples.append((ok, np.minimum(np.maximum(h, dt(0)), dt(H - 1)).astype(np.float64),
                                np.minimum(np.maximum(w, dt(0)), dt(W - 1)).astype(np.float64)))
        share = np.where(count > 0, og[:, :, ph, pw].astype(np.float64) / np.maximum(count, 1), 0.0)
        for ok, h, w in samples:
            xa, xb = np.floor(w).astype(np.int64), np.ceil(w).astype(np.int64)
            ya, yb = np.floor(h).astype(np.int64), np.ceil(h).astype(np.int64)
            dx, dy = w - xa, h - ya
            g = np.where(ok, share, 0.0)
            for yy, xx, wgt in ((ya, xa, (1 - dx) * (1 - dy)), (yb, xa, (1 - dx) * dy), (ya, xb, dx * (1 - dy)),
                                (yb, xb, dx * dy)):
                np.add.at(gdata, (b[:, None], chans[None, :], yy * W + xx), g * wgt)
            if gtrans is not None:
                pick = lambda yy, xx: np.take_along_axis(src, (yy * W + xx)[..., None], axis=2)[..., 0]  # noqa: E731
                u00, u01, u10, u11 = pick(ya, xa), pick(yb, xa), pick(ya, xb), pick(yb, xb)
                slope_x = (u11 * dy + u10 * (1 - dy) - u01 * dy - u00 * (1 - dy)) * attrs.trans_std * g
                slope_y = (u11 * dx + u01 * (1 - dx) - u10 * dx - u00 * (1 - dx)) * attrs.trans_std * g
                np.add.at(gtrans, (rr, class_id[None, :] * 2, part_h, part_w), slope_x * rw[:, None])
                np.add.at(gtrans, (rr, class_id[None, :] * 2 + 1, part_h, part_w), slope_y * rh[:, None])
    grads = [gdata.reshape(data.shape).astype(data.dtype), np.zeros_like(rois)]
    if gtrans is not None:
        grads.append(gtrans.astype(trans.dtype))
    return tuple(grads)


register(OpDef("_backward__contrib_DeformablePSROIPooling", _backward_dpsroi_pooling,
               params=get_op("_contrib_DeformablePSROIPooling").params,
               inputs=lambda a: ["ograd"] + _dpsroi_inputs(a), num_outputs=lambda a: len(_dpsroi_inputs(a)),
               infer_shape=lambda a, ss: (list(ss), list(ss[1:])),
               infer_type=lambda a, ds: [d or np.float32 for d in ds[1:]],
               doc="DeformablePSROIPooling backward: data, rois (zero) and trans."))


@defgrad("_contrib_DeformablePSROIPooling")
def _dpsroi_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_backward__contrib_DeformablePSROIPooling")(out_grads[0], *inputs, **attrs.as_dict())
    return [g[i] for i in range(len(inputs))]
