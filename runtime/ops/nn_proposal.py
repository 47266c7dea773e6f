"""``_contrib_Proposal`` and ``_contrib_MultiProposal``: Faster R-CNN's region proposal layer with
MXNet 1.9.1's CPU semantics (``src/operator/contrib/{proposal,multi_proposal}.cc``).

Inputs: ``cls_prob (N, 2A, H, W)`` (the foreground scores are channels ``A..2A``), ``bbox_pred
(N, 4A, H, W)`` and ``im_info (N, 3)`` rows ``[height, width, scale]``. Per image:

1. Anchors: for each ratio, then each scale, the base box ``[0, 0, stride-1, stride-1]`` reshaped
   as py-faster-rcnn does (``floor(sqrt(floor(area / ratio)) + 0.5) * scale`` ...), shifted by
   ``feature_stride`` over the ``H x W`` grid; proposals are ordered ``(h, w, anchor)``.
2. Decoding (``iou_loss``: corner offsets instead), each box clipped to ``[0, width-1] x
   [0, height-1]``; positions beyond ``int(im_info / feature_stride)`` (padding) get score -1.
3. Boxes narrower or lower than ``rpn_min_size * scale`` get score -1 *and are grown by
   ``min_size / 2`` on every side* (MXNet's FilterBox quirk); they stay in the candidate list.
4. A stable sort by descending score, the first ``rpn_pre_nms_top_n`` (<= 0: all), greedy NMS
   (IoU with the +1 pixel convention, suppress when ``> threshold``) until
   ``min(rpn_post_nms_top_n, pre)`` are kept.
5. Output ``rpn_post_nms_top_n`` rows ``[batch, x1, y1, x2, y2]`` per image (and the scores with
   ``output_score``): when fewer boxes were kept, the kept ones repeat cyclically.

Arithmetic follows MXNet's mix of float and double expressions so that the float32 results agree.
Proposal takes one image only, as MXNet ("multiple images each device is not implemented").
The NMS loop is sequential over kept boxes (MXNet's algorithm), vectorized over candidates.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base import ShapeError
from ._nnutil import merge_shape
from ._tuple_attrs import FloatOrTuple, as_tuple
from .attrs import Bool, Float, Int, Param
from .registry import ZERO_GRAD, OpDef, defgrad, register

_F = np.float32


def _anchors(stride: int, ratios, scales) -> np.ndarray:
    """(len(ratios) * len(scales), 4) base anchors, as MXNet's GenerateAnchors (float math)."""
    base = [_F(0.0), _F(0.0), _F(stride - 1.0), _F(stride - 1.0)]
    out = []
    for ratio in ratios:
        for scale in scales:
            r, s = _F(ratio), _F(scale)
            w = _F(base[2] - base[0] + _F(1.0))
            h = _F(base[3] - base[1] + _F(1.0))
            x_ctr = _F(np.float64(base[0]) + 0.5 * (np.float64(w) - 1.0))
            y_ctr = _F(np.float64(base[1]) + 0.5 * (np.float64(h) - 1.0))
            size = _F(w * h)
            size_ratios = _F(np.floor(_F(size / r)))
            new_w = _F(np.floor(_F(np.sqrt(size_ratios)) + _F(0.5)) * s)
            new_h = _F(np.floor(_F(_F(new_w / s) * r) + _F(0.5)) * s)
            out.append([x_ctr - _F(0.5) * (new_w - _F(1.0)), y_ctr - _F(0.5) * (new_h - _F(1.0)),
                        x_ctr + _F(0.5) * (new_w - _F(1.0)), y_ctr + _F(0.5) * (new_h - _F(1.0))])
    return np.asarray(out, dtype=_F)


def _half_shift(c: np.ndarray, size: np.ndarray, sign: float) -> np.ndarray:
    """``float(c +- 0.5 * (size - 1.0))`` evaluated in double, as the C++ expression is."""
    return (c.astype(np.float64) + sign * 0.5 * (size.astype(np.float64) - 1.0)).astype(_F)


def _decode(attrs, anchors: np.ndarray, deltas: np.ndarray, im_h: float, im_w: float) -> np.ndarray:
    """Predicted boxes (count, 4) from anchors (count, 4) and deltas (count, 4), clipped."""
    x1, y1, x2, y2 = (anchors[:, k] for k in range(4))
    d = [deltas[:, k] for k in range(4)]
    if attrs.iou_loss:
        px1, py1, px2, py2 = x1 + d[0], y1 + d[1], x2 + d[2], y2 + d[3]
    else:
        width = ((x2 - x1).astype(np.float64) + 1.0).astype(_F)
        height = ((y2 - y1).astype(np.float64) + 1.0).astype(_F)
        ctr_x = _half_shift(x1, width, 1.0)
        ctr_y = _half_shift(y1, height, 1.0)
        pcx = d[0] * width + ctr_x
        pcy = d[1] * height + ctr_y
        pw = np.exp(d[2]) * width
        ph = np.exp(d[3]) * height
        px1, py1 = _half_shift(pcx, pw, -1.0), _half_shift(pcy, ph, -1.0)
        px2, py2 = _half_shift(pcx, pw, 1.0), _half_shift(pcy, ph, 1.0)
    wmax, hmax = _F(im_w) - _F(1.0), _F(im_h) - _F(1.0)
    clip = lambda v, hi: np.maximum(np.minimum(v, hi), _F(0.0))  # noqa: E731
    return np.stack([clip(px1, wmax), clip(py1, hmax), clip(px2, wmax), clip(py2, hmax)], axis=1).astype(_F)


def _nms(dets: np.ndarray, thresh: float, post: int) -> list[int]:
    """MXNet's greedy NonMaximumSuppression over score-sorted ``dets`` (n, 5): kept indices."""
    x1, y1, x2, y2 = (dets[:, k] for k in range(4))
    area = (x2 - x1 + _F(1)) * (y2 - y1 + _F(1))
    n = dets.shape[0]
    suppressed = np.zeros(n, dtype=bool)
    keep: list[int] = []
    thr = _F(thresh)
    i = 0
    while i < n and len(keep) < post:
        if suppressed[i]:
            nxt = np.flatnonzero(~suppressed[i:])
            if nxt.size == 0:
                break
            i += int(nxt[0])
            continue
        keep.append(i)
        j = slice(i + 1, n)
        w = np.maximum(_F(0.0), np.minimum(x2[i], x2[j]) - np.maximum(x1[i], x1[j]) + _F(1.0))
        h = np.maximum(_F(0.0), np.minimum(y2[i], y2[j]) - np.maximum(y1[i], y1[j]) + _F(1.0))
        inter = w * h
        with np.errstate(divide="ignore", invalid="ignore"):
            ovr = inter / (area[i] + area[j] - inter)
        suppressed[j] |= ovr > thr
        i += 1
    return keep


def _one_image(attrs, anchors: np.ndarray, fg: np.ndarray, deltas: np.ndarray, info: np.ndarray):
    """(rows (post, 4), scores (post,)) for one image; fg (A, H, W), deltas (4A, H, W)."""
    A, H, W = fg.shape
    fs = attrs.feature_stride
    k = np.arange(W, dtype=np.int64)[None, :, None]
    j = np.arange(H, dtype=np.int64)[:, None, None]
    shifts = [k * fs, j * fs, k * fs, j * fs]
    boxes = np.stack([np.broadcast_to(anchors[None, None, :, c] + np.asarray(shifts[c], dtype=_F), (H, W, A))
                      for c in range(4)], axis=-1).reshape(-1, 4)
    score = np.transpose(fg, (1, 2, 0)).reshape(-1).astype(_F, copy=True)
    dl = np.transpose(deltas.reshape(A, 4, H, W), (2, 3, 0, 1)).reshape(-1, 4)
    im_h, im_w, im_scale = (_F(v) for v in info)
    real_h, real_w = int(im_h / _F(fs)), int(im_w / _F(fs))
    if H < real_h or W < real_w:
        raise ShapeError(f"Proposal: the feature map ({H}, {W}) is smaller than im_info implies ({real_h}, {real_w})")
    dets = _decode(attrs, boxes, dl, im_h, im_w)
    hh = np.repeat(np.arange(H), W * A)
    ww = np.tile(np.repeat(np.arange(W), A), H)
    score[(hh >= real_h) | (ww >= real_w)] = _F(-1.0)
    min_size = _F(_F(attrs.rpn_min_size) * im_scale)
    iw = dets[:, 2] - dets[:, 0] + _F(1.0)
    ih = dets[:, 3] - dets[:, 1] + _F(1.0)
    small = (iw < min_size) | (ih < min_size)
    half = _F(min_size / _F(2))
    dets[small, :2] -= half
    dets[small, 2:] += half
    score[small] = _F(-1.0)
    count = score.size
    pre = attrs.rpn_pre_nms_top_n if attrs.rpn_pre_nms_top_n > 0 else count
    pre = min(pre, count)
    post = min(attrs.rpn_post_nms_top_n, pre)
    order = np.argsort(-score, kind="stable")[:pre]
    ordered = np.concatenate([dets[order], score[order, None]], axis=1)
    keep = _nms(ordered, attrs.threshold, post)
    rows = np.asarray(keep)[np.arange(attrs.rpn_post_nms_top_n) % len(keep)]
    return ordered[rows, :4], ordered[rows, 4]


def _check(attrs, cls_prob, bbox_pred, im_info, multi: bool) -> None:
    name = "MultiProposal" if multi else "Proposal"
    for a in (cls_prob, bbox_pred, im_info):
        if a.dtype != np.float32:
            raise ShapeError(f"{name}: only float32 inputs are supported, got {a.dtype.name}")
    if cls_prob.ndim != 4 or cls_prob.shape[1] % 2:
        raise ShapeError(f"{name}: cls_prob must be (N, 2 * anchors, H, W), got {cls_prob.shape}")
    N, A2, H, W = cls_prob.shape
    if bbox_pred.shape != (N, 2 * A2, H, W) or im_info.shape != (N, 3):
        raise ShapeError(f"{name}: bbox_pred must be {(N, 2 * A2, H, W)} and im_info {(N, 3)}, "
                         f"got {bbox_pred.shape} and {im_info.shape}")
    if not multi and N != 1:
        raise ShapeError("Proposal: Sorry, multiple images each device is not implemented.")
    n_anchors = len(as_tuple(attrs.ratios)) * len(as_tuple(attrs.scales))
    if A2 // 2 != n_anchors:
        raise ShapeError(f"{name}: {A2 // 2} anchors in cls_prob, but ratios x scales make {n_anchors}")
    if attrs.rpn_post_nms_top_n < 1:
        raise ShapeError(f"{name}: rpn_post_nms_top_n must be positive, got {attrs.rpn_post_nms_top_n}")


def _proposal_core(attrs, cls_prob, bbox_pred, im_info, multi: bool):
    _check(attrs, cls_prob, bbox_pred, im_info, multi)
    N, A2 = cls_prob.shape[:2]
    A = A2 // 2
    anchors = _anchors(attrs.feature_stride, as_tuple(attrs.ratios), as_tuple(attrs.scales))
    P = attrs.rpn_post_nms_top_n
    out = np.zeros((N * P, 5), dtype=_F)
    scores = np.zeros((N * P, 1), dtype=_F)
    for b in range(N):     # images are independent; MXNet loops over them too
        rows, sc = _one_image(attrs, anchors, cls_prob[b, A:], bbox_pred[b], im_info[b])
        out[b * P:(b + 1) * P, 0] = b
        out[b * P:(b + 1) * P, 1:] = rows
        scores[b * P:(b + 1) * P, 0] = sc
    return (out, scores) if attrs.output_score else out


def _proposal(attrs, cls_prob, bbox_pred, im_info):
    """_contrib_Proposal: region proposals of one image (see the module docstring)."""
    return _proposal_core(attrs, cls_prob, bbox_pred, im_info, multi=False)


def _multi_proposal(attrs, cls_prob, bbox_pred, im_info):
    """_contrib_MultiProposal: region proposals of every image of the batch."""
    return _proposal_core(attrs, cls_prob, bbox_pred, im_info, multi=True)


def _nout(attrs) -> int:
    return 2 if attrs.output_score else 1


def _shape(multi: bool):
    def infer(attrs, in_shapes):
        c, b, i = in_shapes
        P = attrs.rpn_post_nms_top_n
        ins = list(in_shapes)
        if c is None or len(c) == 0:
            return ins, [None] * _nout(attrs)
        if len(c) != 4:
            raise ShapeError(f"Proposal: cls_prob must be 4-D, got {tuple(c)}")
        ins[1] = merge_shape(b, (c[0], c[1] * 2, c[2], c[3]), "Proposal bbox_pred")
        ins[2] = merge_shape(i, (c[0], 3), "Proposal im_info")
        rows = c[0] * P if multi else P
        return ins, [(rows, 5), (rows, 1)][: _nout(attrs)]
    return infer


def _f32_outputs(attrs, in_dtypes):
    return [np.dtype(np.float32)] * _nout(attrs)


@dataclass(eq=False)
class _ProposalOp(OpDef):
    """Outputs ``output`` and ``score`` (the latter visible with ``output_score`` only)."""

    def output_names(self, attrs: Any) -> list[str]:
        return ["output", "score"][: _nout(attrs)]


_PARAMS = (Param("rpn_pre_nms_top_n", Int, 6000), Param("rpn_post_nms_top_n", Int, 300),
           Param("threshold", Float, 0.7), Param("rpn_min_size", Int, 16),
           Param("scales", FloatOrTuple, (4.0, 8.0, 16.0, 32.0)),
           Param("ratios", FloatOrTuple, (0.5, 1.0, 2.0)),
           Param("feature_stride", Int, 16), Param("output_score", Bool, False), Param("iou_loss", Bool, False))

for _name, _fn, _multi in (("_contrib_Proposal", _proposal, False), ("_contrib_MultiProposal", _multi_proposal, True)):
    register(_ProposalOp(_name, _fn, inputs=("cls_prob", "bbox_pred", "im_info"), params=_PARAMS,
                         num_outputs=_nout, infer_shape=_shape(_multi), infer_type=_f32_outputs))


# legacy operators whose Backward writes zeros into every input gradient (src/operator/contrib/proposal.cc,
# multi_proposal.cc)
defgrad("_contrib_Proposal", "_contrib_MultiProposal")(ZERO_GRAD)
