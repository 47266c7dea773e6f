"""Convolution and Deconvolution (1-3 spatial axes, groups, dilation; channels-last layouts are
transposed around the channels-first ONNX op)."""
from __future__ import annotations

from .registry import converter


def channels_first(n, x: str, layout: str | None) -> tuple[str, bool]:
    """``x`` in NC... order; True when it was transposed from a channels-last layout."""
    if layout is None or not layout.endswith("C"):
        return x, False
    nd = len(layout)
    return n.op("Transpose", x, perm=[0, nd - 1] + list(range(1, nd - 1))), True


def channels_last(n, y: str, nd: int) -> str:
    return n.op("Transpose", y, perm=[0] + list(range(2, nd)) + [1])


def _geometry(n) -> dict:
    a = n.attrs
    k = len(a.kernel)
    return {"kernel_shape": list(a.kernel),
            "strides": list(a.stride) if len(a.stride) else [1] * k,
            "dilations": list(a.dilate) if len(a.dilate) else [1] * k,
            "pads": (list(a.pad) * 2) if len(a.pad) else [0] * (2 * k),
            "group": int(a.num_group)}


@converter("Convolution")
def convolution(n):
    a = n.attrs
    x, moved = channels_first(n, n.inputs[0], a.layout)
    if moved:
        n.fail(f"layout {a.layout}: the weight layout of a channels-last convolution differs from ONNX's")
    args = [x, n.inputs[1]] + ([] if a.no_bias else [n.inputs[2]])
    return [n.op("Conv", *args, **_geometry(n))]


@converter("Deconvolution")
def deconvolution(n):
    a = n.attrs
    if len(a.target_shape) and any(int(d) for d in a.target_shape):
        n.fail("target_shape is not supported; give pad and adj instead")
    if a.layout is not None and a.layout.endswith("C"):
        n.fail(f"layout {a.layout}: the weight layout of a channels-last deconvolution differs from ONNX's")
    k = len(a.kernel)
    geo = _geometry(n)
    geo["output_padding"] = list(a.adj) if len(a.adj) else [0] * k
    args = [n.inputs[0], n.inputs[1]] + ([] if a.no_bias else [n.inputs[2]])
    return [n.op("ConvTranspose", *args, **geo)]
