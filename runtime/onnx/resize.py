"""Resampling of (N, C, H, W) data: MXNet's adaptive average pooling and bilinear resize are
separable linear maps, written with the runtime's own interpolation matrices as two MatMuls
(exact for MXNet's index rules, which ONNX Resize's modes do not reproduce); Crop as Slice."""
from __future__ import annotations

import numpy as np

from ..ops.nn_resize import _adaptive_matrix, _adaptive_out, _bilinear_matrix, _crop_geometry
from .registry import converter


def _separable(n, x: str, mh: np.ndarray, mw: np.ndarray) -> str:
    if any(n.in_dyn(0)[2:]):
        n.fail("resampling a dynamic spatial axis")
    dt = n.in_dtype(0)
    t = n.op("MatMul", n.const(mh.astype(dt)), x)                 # (oh, H) @ (N, C, H, W)
    return n.op("MatMul", t, n.const(np.ascontiguousarray(mw.T).astype(dt)))


@converter("_contrib_AdaptiveAvgPooling2D")
def adaptive_avg_pooling(n):
    oh, ow = _adaptive_out(n.attrs)
    _, _, H, W = n.in_shape(0)
    if (oh, ow) == (1, 1):
        return [n.op("GlobalAveragePool", n.inputs[0])]
    return [_separable(n, n.inputs[0], _adaptive_matrix(H, oh), _adaptive_matrix(W, ow))]


@converter("_contrib_BilinearResize2D")
def bilinear_resize(n):
    _, _, oh, ow = n.out_shape(0)
    _, _, H, W = n.in_shape(0)
    if (oh, ow) == (H, W):
        return [n.op("Identity", n.inputs[0])]
    ac = bool(n.attrs.align_corners)
    return [_separable(n, n.inputs[0], _bilinear_matrix(H, oh, ac), _bilinear_matrix(W, ow, ac))]


@converter("Crop")
def crop(n):
    like = n.in_shape(1) if int(n.attrs.num_args) == 2 else None
    oy, ox, h, w = _crop_geometry(n.attrs, n.in_shape(0), like)
    return [n.op("Slice", n.inputs[0], n.ints([oy, ox]), n.ints([oy + h, ox + w]), n.ints([2, 3]))]
