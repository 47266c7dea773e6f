"""``Correlation``: FlowNet's correlation layer with MXNet 1.9.1's CPU semantics
(``src/operator/correlation{-inl.h,.cc}``).

Both inputs ``(N, C, H, W)`` are zero-padded by ``pad_size``. For an output position ``(i, j)``
the window of ``data1`` starts at ``(i * stride1 + max_displacement, j * stride1 +
max_displacement)`` (MXNet's CPU kernel starts the ``kernel_size`` window there, not centred),
and each of the ``(2 * (max_displacement // stride2) + 1)**2`` output channels compares it with
the window of ``data2`` displaced by ``stride2`` steps: the sum over the window and the channels of
``a * b`` (``is_multiply``) or ``|a - b|``, divided by ``kernel_size**2 * C``. The output size is
``ceil((H + 2 pad - 2 (max_displacement + kernel_size // 2)) / stride1)`` per axis.

The kernel loops over displacements and kernel taps (small fixed counts) and is vectorized over
batch, channels and output positions.
"""
from __future__ import annotations

import math

import numpy as np

from ..base import ShapeError
from ._grad import backward_op, internal
from .attrs import Bool, Int, Param
from .registry import OpDef, defgrad, get_op, register


def _geometry(attrs, h: int, w: int) -> tuple[int, int, int, int]:
    """(top_height, top_width, grid_radius, grid_width) as MXNet's CorrelationProp computes them."""
    if attrs.kernel_size % 2 == 0:
        raise ShapeError("Correlation: kernel size should be odd number")
    for name in ("kernel_size", "stride1", "stride2"):
        if getattr(attrs, name) < 1:
            raise ShapeError(f"Correlation: {name} must be positive, got {getattr(attrs, name)}")
    if attrs.max_displacement < 0 or attrs.pad_size < 0:
        raise ShapeError("Correlation: max_displacement and pad_size must not be negative")
    border = attrs.max_displacement + (attrs.kernel_size - 1) // 2
    ph, pw = h + 2 * attrs.pad_size, w + 2 * attrs.pad_size
    th = math.ceil((ph - 2 * border) / attrs.stride1)
    tw = math.ceil((pw - 2 * border) / attrs.stride1)
    if th < 1 or tw < 1:
        raise ShapeError("Correlation cannot be done with current settings.Neighborhood and kernel don't fit in blob")
    radius = attrs.max_displacement // attrs.stride2
    return th, tw, radius, 2 * radius + 1


def _correlation(attrs, data1, data2):
    """Correlation: FlowNet correlation of two feature maps (see the module docstring)."""
    if data1.ndim != 4 or data2.shape != data1.shape:
        raise ShapeError(f"Correlation: data1 and data2 must be 4-D of one shape, got {data1.shape} and {data2.shape}")
    N, C, H, W = data1.shape
    th, tw, radius, gw = _geometry(attrs, H, W)
    p, k, s1, s2, md = attrs.pad_size, attrs.kernel_size, attrs.stride1, attrs.stride2, attrs.max_displacement
    pads = ((0, 0), (0, 0), (p, p), (p, p))
    a = np.pad(data1, pads)
    b = np.pad(data2, pads)
    out = np.zeros((N, gw * gw, th, tw), dtype=data1.dtype)
    for tc in range(gw * gw):
        dx = (tc % gw - radius) * s2
        dy = (tc // gw - radius) * s2
        acc = np.zeros((N, th, tw), dtype=data1.dtype)
        for h in range(k):
            for w in range(k):
                wa = a[:, :, md + h: md + h + s1 * (th - 1) + 1: s1, md + w: md + w + s1 * (tw - 1) + 1: s1]
                y0, x0 = md + dy + h, md + dx + w
                wb = b[:, :, y0: y0 + s1 * (th - 1) + 1: s1, x0: x0 + s1 * (tw - 1) + 1: s1]
                acc += (wa * wb).sum(axis=1) if attrs.is_multiply else np.abs(wa - wb).sum(axis=1)
        out[:, tc] = acc / data1.dtype.type(k * k * C)
    return out


def _correlation_shape(attrs, in_shapes):
    d1, d2 = in_shapes
    if d1 is None or len(d1) == 0:
        return list(in_shapes), [None]
    if len(d1) != 4 or (d2 is not None and len(d2) not in (0, 4)):
        raise ShapeError(f"Correlation: data should be a 4D tensor, got {tuple(d1)} and {d2 and tuple(d2)}")
    if not all(d1):
        return list(in_shapes), [None]
    th, tw, _, gw = _geometry(attrs, d1[2], d1[3])
    return [tuple(d1), tuple(d1) if not d2 else tuple(d2)], [(d1[0], gw * gw, th, tw)]


register(OpDef(
    "Correlation", _correlation, inputs=("data1", "data2"),
    params=(Param("kernel_size", Int, 1), Param("max_displacement", Int, 1), Param("stride1", Int, 1),
            Param("stride2", Int, 1), Param("pad_size", Int, 0), Param("is_multiply", Bool, True)),
    infer_shape=_correlation_shape,
))


# -- gradient (MXNet 1.9.1: correlation.cc CorrelationBackward; for |a - b| the slope is +1 where a >= b) -----
def _backward_correlation(attrs, og, data1, data2):
    N, C, H, W = data1.shape
    th, tw, radius, gw = _geometry(attrs, H, W)
    p, k, s1, s2, md = attrs.pad_size, attrs.kernel_size, attrs.stride1, attrs.stride2, attrs.max_displacement
    pads = ((0, 0), (0, 0), (p, p), (p, p))
    a = np.pad(data1.astype(np.float64), pads)
    b = np.pad(data2.astype(np.float64), pads)
    ga, gb = np.zeros_like(a), np.zeros_like(b)
    norm = float(k * k * C)
    for tc in range(gw * gw):
        dx = (tc % gw - radius) * s2
        dy = (tc // gw - radius) * s2
        g = (og[:, tc].astype(np.float64) / norm)[:, None]                  # (N, 1, th, tw)
        for h in range(k):
            for w in range(k):
                sa = (slice(None), slice(None), slice(md + h, md + h + s1 * (th - 1) + 1, s1),
                      slice(md + w, md + w + s1 * (tw - 1) + 1, s1))
                y0, x0 = md + dy + h, md + dx + w
                sb = (slice(None), slice(None), slice(y0, y0 + s1 * (th - 1) + 1, s1),
                      slice(x0, x0 + s1 * (tw - 1) + 1, s1))
                if attrs.is_multiply:
                    ga[sa] += g * b[sb]
                    gb[sb] += g * a[sa]
                else:
                    sign = np.where(a[sa] >= b[sb], 1.0, -1.0)
                    ga[sa] += g * sign
                    gb[sb] -= g * sign
    crop = (slice(None), slice(None), slice(p, p + H), slice(p, p + W))
    return ga[crop].astype(data1.dtype), gb[crop].astype(data2.dtype)


backward_op("_backward_Correlation", _backward_correlation, ("ograd", "data1", "data2"), like=(1, 2), num_outputs=2,
            params=get_op("Correlation").params)


@defgrad("Correlation")
def _correlation_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_backward_Correlation")(out_grads[0], *inputs, **attrs.as_dict())
    return [g[0], g[1]]
