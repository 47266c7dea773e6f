"""Object-detection contrib operators (MXNet 1.9.1, CPU semantics): ``_contrib_box_nms`` (alias
``_contrib_box_non_maximum_suppression``), ``_contrib_box_iou``, ``_contrib_bipartite_matching``,
``_contrib_box_encode``, ``_contrib_box_decode``, ``_contrib_MultiBoxPrior``,
``_contrib_MultiBoxTarget``, ``_contrib_MultiBoxDetection`` (the last three also as MXNet's
``_npx_multibox_*`` aliases).

Arithmetic follows MXNet's kernels operation by operation in the input dtype (``float32`` stays
``float32``); attribute thresholds are ``float32`` as MXNet parses them. Sorting is stable (MXNet's
CPU ``SortByKey`` and ``std::stable_sort``): equal scores keep their input order.

Greedy non-maximum suppression is sequential by nature; the kernels here loop over the reference
box only (vectorized over batches and over the boxes it may suppress), with IoU rows computed in
vectorized blocks. Matching loops (``bipartite_matching``, ``MultiBoxTarget``) run one step per
match, each step vectorized over the batch.

MXNet behaviours reproduced on purpose (they are what trained models and their tests see):

- ``box_nms``: ``topk=0`` returns the input unchanged; boxes beyond ``topk`` (per batch, after
  sorting) are dropped; output boxes whose first coordinate is negative are not converted when
  ``in_format != out_format``; rows past the kept boxes are all ``-1``.
- ``bipartite_matching`` with ``topk=k > 0`` makes ``k + 1`` matches (MXNet breaks after the
  count exceeds ``topk``).
- ``MultiBoxTarget``: a batch item without ground truth (first label id ``-1``) gets
  ``cls_target = ignore_label`` everywhere (not background); ``minimum_negative_samples`` is
  accepted but unused, as in MXNet.
- ``MultiBoxDetection``: with ``nms_topk`` limiting the sorted detections, rows from ``nms_topk``
  to the number of valid detections keep their pre-sort contents with id ``-1``; suppressed rows
  stay in place with id ``-1`` (``iou >= nms_threshold`` suppresses); with ``nms_threshold`` outside
  ``(0, 1]`` the valid detections are returned unsorted, in anchor order.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..base import HybridizeError, ShapeError
from ._grad import backward_op, internal
from ._nnutil import merge_shape
from ._tuple_attrs import FloatTuple
from ._util import known
from .attrs import REQUIRED, Bool, Enum, Float, Int, Param
from .registry import ZERO_GRAD, OpDef, checked_same_shape, defgrad, register

__all__: list[str] = []


# -- helpers ----------------------------------------------------------------------------------------
_FORMAT = Enum("center", "corner")


@dataclass(eq=False)
class _NamedOutputs(OpDef):
    """An op whose outputs MXNet names (``list_outputs``) other than ``output``/``output<i>``."""

    out_names: Sequence[str] = ()

    def output_names(self, attrs: Any) -> list[str]:
        return list(self.out_names)


def _f32(v: float) -> np.float32:
    """An attribute as MXNet holds it (``float`` fields are C floats)."""
    return np.float32(v)


def _cmp_type(dt: np.dtype) -> np.dtype:
    """The type a ``DType`` value and a C ``float`` are compared in."""
    return np.result_type(dt, np.float32)


def _gt_float(x: np.ndarray, thr: float) -> np.ndarray:
    ct = _cmp_type(x.dtype)
    return x.astype(ct, copy=False) > ct.type(_f32(thr))


def _lt_float(x: np.ndarray, thr: float) -> np.ndarray:
    ct = _cmp_type(x.dtype)
    return x.astype(ct, copy=False) < ct.type(_f32(thr))



def _intersect_1d(a0, a2, b0, b2, center: bool):
    """MXNet's ``Intersect`` along one axis: overlap length, 0 when disjoint (in the input dtype)."""
    if center:
        aw, bw = a2 / 2, b2 / 2
        al, ar = a0 - aw, a0 + aw
        bl, br = b0 - bw, b0 + bw
        w = np.minimum(br, ar) - np.maximum(bl, al)
    else:
        w = np.minimum(a2, b2) - np.maximum(a0, b0)
    return np.where(w > 0, w, np.zeros((), w.dtype))


def _box_area(box: np.ndarray, center: bool) -> np.ndarray:
    """MXNet's ``BoxArea``: width * height, 0 when either is negative."""
    if center:
        w, h = box[..., 2], box[..., 3]
    else:
        w, h = box[..., 2] - box[..., 0], box[..., 3] - box[..., 1]
    return np.where((w < 0) | (h < 0), np.zeros((), w.dtype), w * h)


def _greedy_suppress(alive: np.ndarray, suppress_block: Callable[[int, int], np.ndarray]) -> None:
    """Greedy NMS over sorted candidates, in place: ``alive`` is (B, K); ``suppress_block(s, e)``
    gives (B, e - s, K - s) booleans "row i would suppress column j" for rows s..e-1 and columns
    s..K-1. Live row i suppresses j > i."""
    B, K = alive.shape
    block = max(8, min(K, (1 << 20) // max(1, B * K)))
    for s in range(0, K, block):
        e = min(K, s + block)
        if not alive[:, s:].any():
            return
        sup = None
        for i in range(s, e):
            a = alive[:, i]
            if i + 1 >= K or not a.any():
                continue
            if sup is None:
                sup = suppress_block(s, e)
            hit = sup[:, i - s, i + 1 - s:] & a[:, None]
            alive[:, i + 1:] &= ~hit


# -- box_iou ---------------------------------------------------------------------------------------
def _box_iou(attrs, lhs, rhs):
    """box_iou: pairwise IoU of lhs (..., 4) and rhs (..., 4) -> lhs.shape[:-1] + rhs.shape[:-1]."""
    _iou_check(lhs.shape, rhs.shape)
    center = attrs.format == "center"
    dt = np.result_type(lhs.dtype, rhs.dtype)
    a = lhs.reshape(-1, 4).astype(dt, copy=False)[:, None, :]
    b = rhs.reshape(-1, 4).astype(dt, copy=False)[None, :, :]
    inter = (_intersect_1d(a[..., 0], a[..., 2], b[..., 0], b[..., 2], center)
             * _intersect_1d(a[..., 1], a[..., 3], b[..., 1], b[..., 3], center))
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (_box_area(a, center) + _box_area(b, center) - inter)
    out = np.where(inter <= 0, np.zeros((), dt), iou).astype(dt, copy=False)
    return out.reshape(lhs.shape[:-1] + rhs.shape[:-1])


def _iou_check(ls, rs):
    for what, s in (("lhs", ls), ("rhs", rs)):
        if len(s) < 2:
            raise ShapeError(f"box_iou: {what} must have at least 2 dimensions, got {tuple(s)}")
        if s[-1] and s[-1] != 4:
            raise ShapeError(f"box_iou: the last dimension of {what} must be 4, got {tuple(s)}")


def _box_iou_shape(attrs, in_shapes):
    ls, rs = in_shapes
    if ls is None or rs is None or len(ls) == 0 or len(rs) == 0:
        return list(in_shapes), [None]
    _iou_check(ls, rs)
    return list(in_shapes), [tuple(ls[:-1]) + tuple(rs[:-1])]


register(OpDef("_contrib_box_iou", _box_iou, params=(Param("format", _FORMAT, "corner"),),
               inputs=("lhs", "rhs"), infer_shape=_box_iou_shape))


# -- box_nms ---------------------------------------------------------------------------------------
def _nms_check(attrs, shape):
    if len(shape) < 2:
        raise ShapeError(f"box_nms: input must have at least 2 dimensions (num_box, box_width), got {tuple(shape)}")
    width = int(shape[-1])
    if width == 0:
        return
    expected = 6 if attrs.id_index >= 0 else 5
    if width < expected:
        raise ShapeError(f"box_nms: the last dimension must have at least {expected} elements, got {width}")
    cs, ce, si = attrs.coord_start, attrs.coord_start + 3, attrs.score_index
    if not 0 <= si < width:
        raise ShapeError(f"box_nms: score_index {si} out of range [0, {width})")
    if cs <= si <= ce:
        raise ShapeError(f"box_nms: score_index {si} conflicts with coordinates [{cs}, {ce}]")
    if not (cs >= 0 and ce < width):
        raise ShapeError(f"box_nms: coordinates [{cs}, {ce}] out of range [0, {width})")
    if attrs.id_index >= 0:
        ii = attrs.id_index
        if not 0 <= ii < width:
            raise ShapeError(f"box_nms: id_index {ii} out of range [0, {width})")
        if cs <= ii <= ce:
            raise ShapeError(f"box_nms: id_index {ii} conflicts with coordinates [{cs}, {ce}]")
        if ii == si:
            raise ShapeError(f"box_nms: id_index {ii} conflicts with score_index {si}")


def _convert_format(out: np.ndarray, cs: int, to_center: bool) -> None:
    """MXNet's corner_to_center / center_to_corner on (..., W) rows in place; rows whose first
    coordinate is negative (the -1 padding, but also real boxes left of 0) are left as they are."""
    c = out[..., cs:cs + 4]
    ok = ~(c[..., 0] < 0)
    a, b, p, q = c[..., 0], c[..., 1], c[..., 2], c[..., 3]
    if to_center:
        new = np.stack([(a + p) / 2, (b + q) / 2, p - a, q - b], axis=-1)
    else:
        w, h = p / 2, q / 2
        new = np.stack([a - w, b - h, a + w, b + h], axis=-1)
    c[ok] = new.astype(out.dtype, copy=False)[ok]


def _box_nms(attrs, data):
    """box_nms: greedy non-maximum suppression per batch item; kept boxes sorted by descending
    score at the front, the rest ``-1``. Output shaped like the input."""
    return _box_nms_record(attrs, data)[0]


def _box_nms_record(attrs, data):
    """box_nms and its record (MXNet's hidden output): for each output row, the input row it came
    from within its batch item, ``-1`` for the filler rows."""
    shape = data.shape
    _nms_check(attrs, shape)
    N, W = shape[-2], shape[-1]
    dt = data.dtype
    topk = N if attrs.topk < 0 else min(N, attrs.topk)
    if topk < 1 or data.size == 0:
        return data.copy(), np.broadcast_to(np.arange(N), shape[:-1]).copy()
    x = data.reshape(-1, N, W)
    B = x.shape[0]
    record = np.full((B, N), -1, dtype=np.int64)
    si, cs, ii = attrs.score_index, attrs.coord_start, attrs.id_index
    scores = x[:, :, si]
    valid = scores > dt.type(_f32(attrs.valid_thresh))
    if ii >= 0:
        valid &= x[:, :, ii] != dt.type(attrs.background_id)
    flat = np.flatnonzero(valid)
    out = np.full((B, N, W), -1, dtype=dt)
    if flat.size == 0:
        return out.reshape(shape), record.reshape(shape[:-1])
    # sort the valid boxes by batch, then descending score (stable: ties keep input order)
    s = scores.reshape(-1)[flat]
    b = flat // N
    order = np.lexsort((-s, b))
    flat, b = flat[order], b[order]
    start = np.searchsorted(b, np.arange(B + 1))
    pos = np.arange(flat.size) - start[b]
    keep = pos < topk
    cand = np.full((B, topk), -1, dtype=np.int64)
    cand[b[keep], pos[keep]] = flat[keep] % N
    alive = cand >= 0
    rows = x[np.arange(B)[:, None], np.maximum(cand, 0)]                 # (B, K, W)
    box = rows[..., cs:cs + 4]
    center = attrs.in_format == "center"
    area = _box_area(box, center)
    cls = rows[..., ii].astype(np.int64) if (ii >= 0 and not attrs.force_suppress) else None
    ct = _cmp_type(dt)
    thr = ct.type(_f32(attrs.overlap_thresh))

    def suppress_block(s0, e0):
        a = box[:, s0:e0, None, :]
        c = box[:, None, s0:, :]
        inter = (_intersect_1d(a[..., 0], a[..., 2], c[..., 0], c[..., 2], center)
                 * _intersect_1d(a[..., 1], a[..., 3], c[..., 1], c[..., 3], center))
        with np.errstate(divide="ignore", invalid="ignore"):
            iou = inter / (area[:, s0:e0, None] + area[:, None, s0:] - inter)
        sup = iou.astype(ct, copy=False) > thr
        if cls is not None:
            sup &= cls[:, s0:e0, None] == cls[:, None, s0:]
        return sup

    _greedy_suppress(alive, suppress_block)
    dest = np.cumsum(alive, axis=1) - 1
    bi, ki = np.nonzero(alive)
    out[bi, dest[bi, ki]] = rows[bi, ki]
    record[bi, dest[bi, ki]] = cand[bi, ki]
    if attrs.in_format != attrs.out_format:
        _convert_format(out, cs, to_center=attrs.out_format == "center")
    return out.reshape(shape), record.reshape(shape[:-1])


_NMS_PARAMS = (Param("overlap_thresh", Float, 0.5), Param("valid_thresh", Float, 0.0), Param("topk", Int, -1),
               Param("coord_start", Int, 2), Param("score_index", Int, 1), Param("id_index", Int, -1),
               Param("background_id", Int, -1), Param("force_suppress", Bool, False),
               Param("in_format", _FORMAT, "corner"), Param("out_format", _FORMAT, "corner"))

register(_NamedOutputs(
    "_contrib_box_nms", _box_nms,
    params=_NMS_PARAMS,
    infer_shape=checked_same_shape(_nms_check), aliases=("_contrib_box_non_maximum_suppression",),
    out_names=("output0",),  # MXNet has a hidden second output (the kept-index record)
))


# -- bipartite_matching --------------------------------------------------------------------------------
def _bipartite_matching(attrs, data):
    """bipartite_matching: greedy matching of a (..., rows, cols) score matrix in score order ->
    (row -> matched col or -1, col -> matched row or -1)."""
    if data.ndim < 2:
        raise ShapeError(f"bipartite_matching: score matrix must have at least 2 dimensions, got {data.shape}")
    R, C = data.shape[-2], data.shape[-1]
    dt = data.dtype
    x = data.reshape(-1, R * C)
    B = x.shape[0]
    rowm = np.full((B, R), -1, dtype=np.int64)
    colm = np.full((B, C), -1, dtype=np.int64)
    if x.size:
        order = np.argsort(x if attrs.is_ascend else -x, axis=1, kind="stable")
        sc = np.take_along_axis(x, order, axis=1)
        good = _lt_float(sc, attrs.threshold) if attrs.is_ascend else _gt_float(sc, attrs.threshold)
        rs, cs = order // C, order % C
        bb = np.arange(B)[:, None]
        active = np.ones(B, dtype=bool)
        count = np.zeros(B, dtype=np.int64)
        for _ in range(min(R, C)):
            free = (rowm[bb, rs] < 0) & (colm[bb, cs] < 0)
            p = free.argmax(axis=1)
            ar = np.arange(B)
            ok = active & free[ar, p] & good[ar, p]
            if not ok.any():
                break
            bi = np.flatnonzero(ok)
            r, c = rs[bi, p[bi]], cs[bi, p[bi]]
            rowm[bi, r] = c
            colm[bi, c] = r
            count += ok
            active = ok & ~((attrs.topk > 0) & (count > attrs.topk))
    lead = data.shape[:-2]
    return rowm.astype(dt).reshape(lead + (R,)), colm.astype(dt).reshape(lead + (C,))


def _bipartite_shape(attrs, in_shapes):
    d = in_shapes[0]
    if d is None or len(d) == 0:
        return list(in_shapes), [None, None]
    if len(d) < 2:
        raise ShapeError(f"bipartite_matching: score matrix must have at least 2 dimensions, got {tuple(d)}")
    return list(in_shapes), [tuple(d[:-1]), tuple(d[:-2]) + (d[-1],)]


register(OpDef(
    "_contrib_bipartite_matching", _bipartite_matching,
    params=(Param("is_ascend", Bool, False), Param("threshold", Float, REQUIRED), Param("topk", Int, -1)),
    num_outputs=2, infer_shape=_bipartite_shape,
))


# -- box_encode / box_decode -------------------------------------------------------------------------
def _box_encode(attrs, samples, matches, anchors, refs, means, stds):
    """box_encode: regression targets of matched ``refs`` relative to ``anchors`` (corner boxes),
    ``(target - means) / stds`` for positive samples (> 0.5), 0 elsewhere; and the 0/1 masks."""
    dt = anchors.dtype
    Bn, N = anchors.shape[0], anchors.shape[1]
    M = refs.shape[1]
    a = anchors.reshape(Bn, N, 4)
    r = refs.reshape(Bn, M, 4)
    m = np.trunc(matches.reshape(Bn, N)).astype(np.int64)
    valid = samples.reshape(Bn, N) > 0.5
    g = r[np.arange(Bn)[:, None], np.clip(m, 0, max(M - 1, 0))]              # (B, N, 4)
    half = dt.type(0.5)
    rw, rh = g[..., 2] - g[..., 0], g[..., 3] - g[..., 1]
    rx, ry = g[..., 0] + rw * half, g[..., 1] + rh * half
    aw, ah = a[..., 2] - a[..., 0], a[..., 3] - a[..., 1]
    ax, ay = a[..., 0] + aw * half, a[..., 1] + ah * half
    mu = means.reshape(4).astype(dt, copy=False)
    sd = stds.reshape(4).astype(dt, copy=False)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = np.stack([((rx - ax) / aw - mu[0]) / sd[0], ((ry - ay) / ah - mu[1]) / sd[1],
                      (np.log(rw / aw) - mu[2]) / sd[2], (np.log(rh / ah) - mu[3]) / sd[3]], axis=-1)
    mask = np.broadcast_to(valid[..., None], t.shape)
    targets = np.where(mask, t, np.zeros((), dt)).astype(dt, copy=False)
    return targets.reshape(anchors.shape), mask.astype(dt).reshape(anchors.shape)


def _box_encode_shape(attrs, in_shapes):
    ins = list(in_shapes)
    ins[4] = merge_shape(ins[4], (4,), "box_encode means")
    ins[5] = merge_shape(ins[5], (4,), "box_encode stds")
    a = ins[2]
    if a is None or len(a) == 0:
        return ins, [None, None]
    if len(a) < 3 or (a[-1] and a[-1] != 4):
        raise ShapeError(f"box_encode: anchors must be (B, N, 4), got {tuple(a)}")
    r = ins[3]
    if r is not None and len(r) > 0 and (len(r) < 3 or (r[-1] and r[-1] != 4)):
        raise ShapeError(f"box_encode: refs must be (B, M, 4), got {tuple(r)}")
    return ins, [tuple(a), tuple(a)]


register(OpDef("_contrib_box_encode", _box_encode, inputs=("samples", "matches", "anchors", "refs", "means", "stds"),
               num_outputs=2, infer_shape=_box_encode_shape,
               infer_type=lambda a, d: [np.dtype(d[2] if d[2] is not None else np.float32)] * 2))


def _box_decode(attrs, data, anchors):
    """box_decode: (B, N, 4) offsets decoded against the first N ``anchors`` (``format``: anchor
    encoding) into corner boxes; ``clip > 0`` caps the log-scale offsets before ``exp``."""
    dt = data.dtype
    N = data.shape[1]
    a = anchors.reshape(1, N, 4).astype(dt, copy=False)
    ax, ay, aw, ah = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    half = dt.type(0.5)
    if attrs.format == "corner":
        aw = aw - ax
        ah = ah - ay
        ax = ax + aw * half
        ay = ay + ah * half
    s0, s1, s2, s3 = (dt.type(_f32(attrs.std0)), dt.type(_f32(attrs.std1)), dt.type(_f32(attrs.std2)),
                      dt.type(_f32(attrs.std3)))
    ox = data[..., 0] * s0 * aw + ax
    oy = data[..., 1] * s1 * ah + ay
    dw = data[..., 2] * s2
    dh = data[..., 3] * s3
    if _f32(attrs.clip) > 0:
        c = dt.type(_f32(attrs.clip))
        dw = np.where(dw < c, dw, c)
        dh = np.where(dh < c, dh, c)
    with np.errstate(over="ignore"):
        ow = np.exp(dw) * aw * half
        oh = np.exp(dh) * ah * half
    return np.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1).astype(dt, copy=False)


def _box_decode_shape(attrs, in_shapes):
    d, a = in_shapes
    if d is not None and len(d) > 0 and (len(d) != 3 or (d[-1] and d[-1] != 4)):
        raise ShapeError(f"box_decode: data must be (B, N, 4), got {tuple(d)}")
    if a is not None and len(a) > 0 and (len(a) < 3 or (a[-1] and a[-1] != 4)):
        raise ShapeError(f"box_decode: anchors must be (1, N, 4), got {tuple(a)}")
    return list(in_shapes), [tuple(d) if d is not None and len(d) > 0 else None]


register(OpDef(
    "_contrib_box_decode", _box_decode,
    params=(Param("std0", Float, 1.0), Param("std1", Float, 1.0), Param("std2", Float, 1.0),
            Param("std3", Float, 1.0), Param("clip", Float, -1.0), Param("format", _FORMAT, "center")),
    inputs=("data", "anchors"), infer_shape=_box_decode_shape,
))


# -- MultiBoxPrior ---------------------------------------------------------------------------------------
def _prior_check(attrs):
    if len(attrs.sizes) < 1 or len(attrs.ratios) < 1:
        raise ShapeError("MultiBoxPrior: sizes and ratios must not be empty")
    if len(attrs.steps) != 2:
        raise ShapeError(f"MultiBoxPrior: steps must be (step_y, step_x), got {attrs.steps}")
    if len(attrs.offsets) != 2:
        raise ShapeError(f"MultiBoxPrior: offsets must be (offset_y, offset_x), got {attrs.offsets}")
    if not all(0.0 <= o <= 1.0 for o in attrs.offsets):
        raise ShapeError(f"MultiBoxPrior: offsets must lie in [0, 1], got {attrs.offsets}")
    if _f32(attrs.steps[0]) * _f32(attrs.steps[1]) < 0:
        raise ShapeError("MultiBoxPrior: must specify both step_y and step_x")


def _multibox_prior(attrs, data):
    """MultiBoxPrior: SSD anchor boxes (1, H * W * (len(sizes) + len(ratios) - 1), 4) in corner
    form, per position all sizes at ratio 1, then sizes[0] at ratios[1:]; computed in float32."""
    _prior_check(attrs)
    if data.ndim < 4:
        raise ShapeError(f"MultiBoxPrior: input must be 4-D (batch, channel, y, x), got {data.shape}")
    H, W = int(data.shape[2]), int(data.shape[3])
    f = np.float32
    sy, sx = f(attrs.steps[0]), f(attrs.steps[1])
    if sy <= 0 or sx <= 0:
        sy, sx = f(1) / f(H), f(1) / f(W)
    cy = (np.arange(H, dtype=f) + f(attrs.offsets[0])) * sy                 # (H,)
    cx = (np.arange(W, dtype=f) + f(attrs.offsets[1])) * sx                 # (W,)
    sizes = np.asarray(attrs.sizes, dtype=f)
    ratios = np.sqrt(np.asarray(attrs.ratios[1:], dtype=f))
    fh, fw, two = f(H), f(W), f(2)
    hw = np.concatenate([sizes * fh / fw / two, sizes[0] * fh / fw * ratios / two])     # (A,)
    hh = np.concatenate([sizes / two, sizes[0] / ratios / two])
    A = hw.size
    X = np.broadcast_to(cx[None, :, None], (H, W, A))
    Y = np.broadcast_to(cy[:, None, None], (H, W, A))
    out = np.stack([X - hw, Y - hh, X + hw, Y + hh], axis=-1).reshape(1, H * W * A, 4)
    out = out.astype(data.dtype)
    if attrs.clip:
        out = np.clip(out, 0, 1).astype(data.dtype, copy=False)
    return out


def _multibox_prior_shape(attrs, in_shapes):
    d = in_shapes[0]
    if d is None or len(d) == 0:
        return list(in_shapes), [None]
    if len(d) < 4:
        raise ShapeError(f"MultiBoxPrior: input must be 4-D (batch, channel, y, x), got {tuple(d)}")
    _prior_check(attrs)
    if not d[2] or not d[3]:
        return list(in_shapes), [None]
    return list(in_shapes), [(1, d[2] * d[3] * (len(attrs.sizes) + len(attrs.ratios) - 1), 4)]


register(OpDef(
    "_contrib_MultiBoxPrior", _multibox_prior,
    params=(Param("sizes", FloatTuple, (1.0,)), Param("ratios", FloatTuple, (1.0,)), Param("clip", Bool, False),
            Param("steps", FloatTuple, (-1.0, -1.0)), Param("offsets", FloatTuple, (0.5, 0.5))),
    infer_shape=_multibox_prior_shape, aliases=("_npx_multibox_prior",),
))


# -- MultiBoxTarget ---------------------------------------------------------------------------------------
def _multibox_target(attrs, anchor, label, cls_pred):
    """MultiBoxTarget: SSD training targets (loc_target, loc_mask, cls_target): each ground truth
    greedily takes its best anchor, then anchors with IoU > overlap_threshold are positive; hard
    negative mining by background probability when ``negative_mining_ratio > 0``."""
    if len(attrs.variances) != 4:
        raise ShapeError(f"MultiBoxTarget: variances must have 4 values, got {attrs.variances}")
    dt = anchor.dtype
    N = anchor.shape[1]
    a = anchor.reshape(N, 4)
    B, L, _ = label.shape
    C = cls_pred.shape[1]
    zero = np.zeros((), dt)
    loc_target = np.zeros((B, N, 4), dt)
    loc_mask = np.zeros((B, N, 4), dt)
    cls_target = np.full((B, N), dt.type(_f32(attrs.ignore_label)), dt)
    if B == 0 or N == 0 or L == 0:
        return loc_target.reshape(B, N * 4), loc_mask.reshape(B, N * 4), cls_target
    # IoU in the input dtype (MXNet's temp_space expression), then read as float
    A = a[None, :, None, :]
    G = label[:, None, :, 1:5]
    iw = np.maximum(zero, np.minimum(A[..., 2], G[..., 2]) - np.maximum(A[..., 0], G[..., 0]))
    ih = np.maximum(zero, np.minimum(A[..., 3], G[..., 3]) - np.maximum(A[..., 1], G[..., 1]))
    inter = iw * ih
    union = (A[..., 2] - A[..., 0]) * (A[..., 3] - A[..., 1]) + (G[..., 2] - G[..., 0]) * (G[..., 3] - G[..., 1]) - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = np.where(union == 0, zero, inter / np.where(union == 0, np.ones((), dt), union))
    iou = iou.astype(np.float32)                                              # (B, N, L)
    # valid ground truths: the labels before the first with class id -1
    is_pad = label[:, :, 0].astype(np.float32) == np.float32(-1)
    nvalid = np.where(is_pad.any(axis=1), is_pad.argmax(axis=1), L)
    gt_ok = np.arange(L)[None, :] < nvalid[:, None]                            # (B, L)
    has_gt = nvalid > 0
    flags = np.full((B, N), -1, dtype=np.int8)
    match = np.full((B, N), -1, dtype=np.int64)
    best_iou = np.full((B, N), -1.0, dtype=np.float32)
    gt_done = ~gt_ok
    bidx = np.arange(B)
    # 1. every ground truth takes its best free anchor, best pair first
    active = has_gt.copy()
    eps = np.float32(1e-6)
    for _ in range(L):
        if not active.any():
            break
        cand = np.where((flags[:, :, None] != 1) & ~gt_done[:, None, :], iou, -np.inf).reshape(B, N * L)
        p = cand.argmax(axis=1)
        v = cand[bidx, p]
        ok = active & (v > eps)
        j, k = p // L, p % L
        bi = np.flatnonzero(ok)
        flags[bi, j[bi]] = 1
        match[bi, j[bi]] = k[bi]
        best_iou[bi, j[bi]] = v[bi]
        gt_done[bi, k[bi]] = True
        active = ok & ~gt_done.all(axis=1)
    # best ground truth of every anchor (first maximum above -1), as MXNet computes on demand
    masked = np.where(gt_ok[:, None, :], iou, -np.inf)
    arg = masked.argmax(axis=2)
    mx = np.take_along_axis(masked, arg[..., None], axis=2)[..., 0]
    has_best = mx > np.float32(-1)
    free = flags != 1
    best_iou = np.where(free, np.where(has_best, mx, np.float32(-1)), best_iou)
    match = np.where(free & has_best, arg, match)
    # 2. anchors overlapping some ground truth enough
    if _f32(attrs.overlap_threshold) > 0:
        pos = free & has_best & (best_iou > _f32(attrs.overlap_threshold)) & has_gt[:, None]
        flags[pos] = 1
    n_pos = (flags == 1).sum(axis=1)
    # 3. negatives
    if _f32(attrs.negative_mining_ratio) > 0:
        if not _f32(attrs.negative_mining_thresh) > 0:
            raise HybridizeError("MultiBoxTarget: negative_mining_thresh must be > 0")
        n_neg = (n_pos.astype(np.float32) * _f32(attrs.negative_mining_ratio)).astype(np.int64)
        n_neg = np.minimum(n_neg, N - n_pos)
        cand = (flags == -1) & (best_iou < _f32(attrs.negative_mining_thresh))
        p = cls_pred.reshape(B, C, N)
        mxv = p.max(axis=1)
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(p - mxv[:, None, :])
            prob = (e[:, 0, :] / e.sum(axis=1, dtype=dt)).astype(dt, copy=False)
        key = np.where(cand, prob.astype(np.float32), np.float32(np.inf))
        order = np.argsort(key, axis=1, kind="stable")                         # lowest background prob first
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(N)[None, :].repeat(B, 0), axis=1)
        use = has_gt & (n_neg > 0)
        short = use & (cand.sum(axis=1) < n_neg)
        if short.any():
            raise HybridizeError("MultiBoxTarget: fewer negative candidates than negative_mining_ratio asks for")
        neg = use[:, None] & cand & (rank < n_neg[:, None])
        flags[neg] = 0
    else:
        flags[has_gt[:, None] & (flags != 1)] = 0
    # 4. targets
    posm = flags == 1
    negm = flags == 0
    g = label[bidx[:, None], np.maximum(match, 0)]                              # (B, N, W)
    cls_target = np.where(posm, g[..., 0] + dt.type(1), np.where(negm, zero, cls_target)).astype(dt, copy=False)
    f = np.float32
    af = a.astype(f)[None]
    gf = g[..., 1:5].astype(f)
    aw, ah = af[..., 2] - af[..., 0], af[..., 3] - af[..., 1]
    ax, ay = (af[..., 0] + af[..., 2]) * f(0.5), (af[..., 1] + af[..., 3]) * f(0.5)
    gw, gh = gf[..., 2] - gf[..., 0], gf[..., 3] - gf[..., 1]
    gx, gy = (gf[..., 0] + gf[..., 2]) * f(0.5), (gf[..., 1] + gf[..., 3]) * f(0.5)
    vx, vy, vw, vh = (f(v) for v in attrs.variances)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.stack([(gx - ax) / aw / vx, (gy - ay) / ah / vy, np.log(gw / aw) / vw, np.log(gh / ah) / vh],
                     axis=-1)
    loc_target = np.where(posm[..., None], t.astype(dt), zero).astype(dt, copy=False)
    loc_mask = np.broadcast_to(posm[..., None], (B, N, 4)).astype(dt)
    return loc_target.reshape(B, N * 4), loc_mask.reshape(B, N * 4), cls_target


def _multibox_target_shape(attrs, in_shapes):
    a, lab, p = in_shapes
    if a is not None and len(a) > 0 and (len(a) != 3 or (a[0] and a[0] != 1) or (a[2] and a[2] != 4)):
        raise ShapeError(f"MultiBoxTarget: anchor must be (1, num_anchors, 4), got {tuple(a)}")
    if lab is not None and len(lab) > 0 and (len(lab) != 3 or (lab[2] and lab[2] < 5)):
        raise ShapeError(f"MultiBoxTarget: label must be (batch, num_labels, >= 5), got {tuple(lab)}")
    if p is not None and len(p) > 0 and len(p) != 3:
        raise ShapeError(f"MultiBoxTarget: cls_pred must be (batch, num_classes, num_anchors), got {tuple(p)}")
    if known(a, scalar=False) and p is not None and len(p) == 3 and p[2] and p[2] != a[1]:
        raise ShapeError(f"MultiBoxTarget: number of anchors mismatch: anchor {tuple(a)}, cls_pred {tuple(p)}")
    if not (known(a, scalar=False) and lab is not None and len(lab) == 3 and lab[0]):
        return list(in_shapes), [None, None, None]
    B, N = lab[0], a[1]
    return list(in_shapes), [(B, N * 4), (B, N * 4), (B, N)]


register(_NamedOutputs(
    "_contrib_MultiBoxTarget", _multibox_target,
    params=(Param("overlap_threshold", Float, 0.5), Param("ignore_label", Float, -1.0),
            Param("negative_mining_ratio", Float, -1.0), Param("negative_mining_thresh", Float, 0.5),
            Param("minimum_negative_samples", Int, 0), Param("variances", FloatTuple, (0.1, 0.1, 0.2, 0.2))),
    inputs=("anchor", "label", "cls_pred"), num_outputs=3, infer_shape=_multibox_target_shape,
    aliases=("_npx_multibox_target",), out_names=("loc_target", "loc_mask", "cls_target"),
))


# -- MultiBoxDetection -----------------------------------------------------------------------------------
def _multibox_detection(attrs, cls_prob, loc_pred, anchor):
    """MultiBoxDetection: decoded SSD detections (batch, num_anchors, 6) rows
    ``[class_id, score, xmin, ymin, xmax, ymax]`` after per-class (or forced) NMS; ``-1`` rows
    and ids mark nothing / suppressed."""
    if len(attrs.variances) != 4:
        raise ShapeError(f"MultiBoxDetection: variances must have 4 values, got {attrs.variances}")
    dt = cls_prob.dtype
    B, C, N = cls_prob.shape
    out = np.full((B, N, 6), -1, dtype=dt)
    if B == 0 or N == 0:
        return out
    a = anchor.reshape(N, 4).astype(dt, copy=False)[None]
    lp = loc_pred.reshape(B, N, 4).astype(dt, copy=False)
    # class id and score: first maximum over classes 1.., starting from score -1
    if C > 1:
        P = cls_prob[:, 1:, :]
        arg = P.argmax(axis=1)
        mxv = np.take_along_axis(P, arg[:, None, :], axis=1)[:, 0, :]
        better = mxv > dt.type(-1)
        ids = np.where(better, arg + 1, 0)
        score = np.where(better, mxv, dt.type(-1)).astype(dt, copy=False)
    else:
        ids = np.zeros((B, N), np.int64)
        score = np.full((B, N), -1, dt)
    ids = np.where((ids > 0) & _lt_float(score, attrs.threshold), 0, ids)
    # TransformLocations (input dtype; variances are C floats)
    ct = _cmp_type(dt)
    vx, vy, vw, vh = (ct.type(_f32(v)) for v in attrs.variances)
    al, at, ar, ab = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    aw, ah = ar - al, ab - at
    ax, ay = ((al + ar) / dt.type(2)).astype(dt), ((at + ab) / dt.type(2)).astype(dt)
    ox = ((lp[..., 0] * vx).astype(dt) * aw + ax).astype(dt)
    oy = ((lp[..., 1] * vy).astype(dt) * ah + ay).astype(dt)
    with np.errstate(over="ignore"):
        ow = (np.exp((lp[..., 2] * vw).astype(dt)) * aw / dt.type(2)).astype(dt)
        oh = (np.exp((lp[..., 3] * vh).astype(dt)) * ah / dt.type(2)).astype(dt)
    box = np.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1).astype(dt, copy=False)
    if attrs.clip:
        box = np.maximum(dt.type(0), np.minimum(dt.type(1), box))
    rows = np.concatenate([(ids - 1).astype(dt)[..., None], score[..., None], box], axis=-1)   # (B, N, 6)
    valid = ids > 0
    nvalid = valid.sum(axis=1)
    # compact the valid detections to the front, in anchor order
    comp = np.argsort(~valid, axis=1, kind="stable")
    compact = np.take_along_axis(rows, comp[..., None], axis=1)
    slot = np.arange(N)[None, :]
    out = np.where((slot < nvalid[:, None])[..., None], compact, dt.type(-1)).astype(dt, copy=False)
    nt = _f32(attrs.nms_threshold)
    if not (nt > 0 and nt <= 1):
        return out
    # sort the valid ones by descending score (stable), keep nms_topk
    key = np.where(slot < nvalid[:, None], -out[..., 1].astype(np.float64), np.inf)
    order = np.argsort(key, axis=1, kind="stable")
    srt = np.take_along_axis(out, order[..., None], axis=1)
    nkeep = nvalid.copy()
    if attrs.nms_topk > 0:
        nkeep = np.minimum(nkeep, attrs.nms_topk)
        out[..., 0] = np.where((slot >= nkeep[:, None]) & (slot < nvalid[:, None]), dt.type(-1), out[..., 0])
    head = slot < nkeep[:, None]
    out = np.where(head[..., None], srt, out)
    K = int(nkeep.max(initial=0))
    if K < 2:
        return out
    alive = head[:, :K].copy()
    bx = out[:, :K, 2:6]
    cid = out[:, :K, 0]
    area = (bx[..., 2] - bx[..., 0]) * (bx[..., 3] - bx[..., 1])
    thr = ct.type(nt)

    def suppress_block(s0, e0):
        p, q = bx[:, s0:e0, None, :], bx[:, None, s0:, :]
        w = np.maximum(dt.type(0), np.minimum(p[..., 2], q[..., 2]) - np.maximum(p[..., 0], q[..., 0]))
        h = np.maximum(dt.type(0), np.minimum(p[..., 3], q[..., 3]) - np.maximum(p[..., 1], q[..., 1]))
        i = w * h
        u = area[:, s0:e0, None] + area[:, None, s0:] - i
        with np.errstate(divide="ignore", invalid="ignore"):
            iou = np.where(u <= 0, dt.type(0), i / np.where(u <= 0, dt.type(1), u))
        sup = iou.astype(ct, copy=False) >= thr
        if not attrs.force_suppress:
            sup &= cid[:, s0:e0, None] == cid[:, None, s0:]
        return sup

    _greedy_suppress(alive, suppress_block)
    out[:, :K, 0] = np.where(head[:, :K] & ~alive, dt.type(-1), out[:, :K, 0])
    return out


def _multibox_detection_shape(attrs, in_shapes):
    c, lp, a = in_shapes
    if c is not None and len(c) > 0 and len(c) != 3:
        raise ShapeError(f"MultiBoxDetection: cls_prob must be (batch, num_classes, num_anchors), got {tuple(c)}")
    if lp is not None and len(lp) > 0 and len(lp) != 2:
        raise ShapeError(f"MultiBoxDetection: loc_pred must be (batch, num_anchors * 4), got {tuple(lp)}")
    if a is not None and len(a) > 0 and (len(a) != 3 or (a[2] and a[2] != 4)):
        raise ShapeError(f"MultiBoxDetection: anchor must be (1, num_anchors, 4), got {tuple(a)}")
    if c is not None and len(c) == 3 and a is not None and len(a) == 3 and c[2] and a[1] and c[2] != a[1]:
        raise ShapeError(f"MultiBoxDetection: number of anchors mismatch: cls_prob {tuple(c)}, anchor {tuple(a)}")
    if c is not None and len(c) == 3 and lp is not None and len(lp) == 2 and c[2] and lp[1] and c[2] * 4 != lp[1]:
        raise ShapeError(f"MultiBoxDetection: loc_pred {tuple(lp)} does not hold 4 values per anchor of {tuple(c)}")
    if c is None or len(c) != 3 or not c[0] or a is None or len(a) != 3 or not a[1]:
        return list(in_shapes), [None]
    return list(in_shapes), [(c[0], a[1], 6)]


register(OpDef(
    "_contrib_MultiBoxDetection", _multibox_detection,
    params=(Param("clip", Bool, True), Param("threshold", Float, 0.01), Param("background_id", Int, 0),
            Param("nms_threshold", Float, 0.5), Param("force_suppress", Bool, False),
            Param("variances", FloatTuple, (0.1, 0.1, 0.2, 0.2)), Param("nms_topk", Int, -1)),
    inputs=("cls_prob", "loc_pred", "anchor"), infer_shape=_multibox_detection_shape,
    aliases=("_npx_multibox_detection",),
))


# -- gradients (MXNet 1.9.1: contrib/bounding_box.cc; the legacy MultiBox* operators' Backward writes zeros;
# box_iou's and bipartite_matching's backward kernels write zeros, box_encode/decode are MakeZeroGradNodes) --
def _backward_box_nms(attrs, og, data):
    """box_nms's backward: each kept row's output gradient goes back to the input row it came from
    (format conversion included, as MXNet's nms_backward copies the gradient unchanged)."""
    _, record = _box_nms_record(attrs, data)
    N, W = data.shape[-2], data.shape[-1]
    rec = record.reshape(-1, N)
    g = np.zeros((rec.shape[0], N, W), dtype=data.dtype)
    bi, ki = np.nonzero(rec >= 0)
    g[bi, rec[bi, ki]] = og.reshape(-1, N, W)[bi, ki]
    return g.reshape(data.shape)


backward_op("_backward_contrib_box_nms", _backward_box_nms, ("ograd", "data"), params=_NMS_PARAMS)


@defgrad("_contrib_box_nms")
def _box_nms_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_contrib_box_nms")(out_grads[0], inputs[0], **attrs.as_dict())]


defgrad("_contrib_box_iou", "_contrib_bipartite_matching", "_contrib_box_encode", "_contrib_box_decode",
        "_contrib_MultiBoxPrior", "_contrib_MultiBoxTarget", "_contrib_MultiBoxDetection")(ZERO_GRAD)
