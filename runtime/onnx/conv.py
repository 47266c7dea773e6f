"""Convolution and Deconvolution (1-3 spatial axes, groups, dilation, Deconvolution's adj and
target_shape with MXNet's padding rule). Channels-last layouts (NWC, NHWC, NDHWC; weights
``(first, *kernel, last)``) are transposed around the channels-first ONNX op."""
from __future__ import annotations

import numpy as np

from ..ops.nn_conv import _deconv_geometry
from .registry import converter


def channels_first(n, x: str, layout: str | None) -> tuple[str, bool]:
    """``x`` in NC... order; True when it was transposed from a channels-last layout."""
    if layout is None or not layout.endswith("C"):
        return x, False
    nd = len(layout)
    return n.op("Transpose", x, perm=[0, nd - 1] + list(range(1, nd - 1))), True


def channels_last(n, y: str, nd: int) -> str:
    return n.op("Transpose", y, perm=[0] + list(range(2, nd)) + [1])


def _weight(n, moved: bool) -> str:
    """The weight in ONNX's (first, second, *kernel) layout."""
    if not moved:
        return n.inputs[1]
    nd = len(n.in_shape(1))
    perm = [0, nd - 1] + list(range(1, nd - 1))
    w = n.in_value(1)
    if w is not None:
        return n.b.const(np.ascontiguousarray(np.transpose(w, perm)), hint=f"{n.inputs[1]}_cf")
    return n.op("Transpose", n.inputs[1], perm=perm)


def _geometry(n) -> dict:
    a = n.attrs
    k = len(a.kernel)
    return {"kernel_shape": list(a.kernel),
            "strides": list(a.stride) if len(a.stride) else [1] * k,
            "dilations": list(a.dilate) if len(a.dilate) else [1] * k,
            "pads": (list(a.pad) * 2) if len(a.pad) else [0] * (2 * k),
            "group": int(a.num_group)}


def _spatial(n, moved: bool) -> tuple[tuple, tuple]:
    s, d = n.in_shape(0), n.in_dyn(0)
    return (tuple(s[1:-1]), tuple(d[1:-1])) if moved else (tuple(s[2:]), tuple(d[2:]))


@converter("Convolution")
def convolution(n):
    a = n.attrs
    x, moved = channels_first(n, n.inputs[0], a.layout)
    args = [x, _weight(n, moved)] + ([] if a.no_bias else [n.inputs[2]])
    y = n.op("Conv", *args, **_geometry(n))
    return [channels_last(n, y, n.ndim) if moved else y]


@converter("Deconvolution")
def deconvolution(n):
    a = n.attrs
    x, moved = channels_first(n, n.inputs[0], a.layout)
    sp, dyn = _spatial(n, moved)
    uses_target = len(a.target_shape) and any(int(t) for t in a.target_shape)
    if uses_target and any(dyn):
        n.fail("target_shape with a dynamic spatial axis")
    _, _, _, pads, adjs, _ = _deconv_geometry(a, sp)
    geo = _geometry(n)
    geo["pads"] = list(pads) * 2
    geo["output_padding"] = list(adjs)
    args = [x, _weight(n, moved)] + ([] if a.no_bias else [n.inputs[2]])
    y = n.op("ConvTranspose", *args, **geo)
    return [channels_last(n, y, n.ndim) if moved else y]
