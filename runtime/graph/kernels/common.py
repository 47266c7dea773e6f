"""Helpers shared by the internal ops of the compiled program (``nhwc``) and the convolution
algorithms (``conv/``): the internal-op constructor, in-place activations, the fused epilogue
(bias, residual add, activation) and padded row bands of an NHWC input.

Kept apart from :mod:`.nhwc` so that the convolution package and the other internal ops both
build on it without importing each other.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...ops.attrs import AttrType, Param
from ...ops.registry import OpDef
from .fastpath import RowTiling, clip_, relu_

_ANY = AttrType("any", lambda v: v, repr)


def _p(name: str, default: Any = None) -> Param:
    return Param(name, _ANY, default)


def _internal(name: str, compute: Callable, params: tuple, inputs: Any, infer_shape: Callable,
              num_outputs: Any = 1, variadic: str | None = None, infer_type: Callable | None = None) -> OpDef:
    return OpDef(name, compute, params=params, inputs=inputs, infer_shape=infer_shape,
                 num_outputs=num_outputs, variadic=variadic, infer_type=infer_type,
                 doc=f"internal op of the graph compiler ({name})")


# ------------------------------------------------------------------------------------------
# activations (applied in place)
# ------------------------------------------------------------------------------------------
def apply_act(buf: np.ndarray, act: tuple) -> None:
    if not act:
        return
    kind = act[0]
    if kind == "relu":
        relu_(buf, len(act) > 1)
    elif kind == "clip":
        clip_(buf, act[1], act[2])
    elif kind == "sigmoid":
        np.negative(buf, out=buf)
        np.exp(buf, out=buf)
        np.add(buf, 1, out=buf)
        np.reciprocal(buf, out=buf)
    elif kind == "tanh":
        np.tanh(buf, out=buf)
    else:  # pragma: no cover - the lowering only produces the kinds above
        raise ValueError(f"unknown activation {act!r}")


def _tileable(buf: np.ndarray, tiling: RowTiling | None) -> bool:
    return tiling is not None and buf.flags.c_contiguous and buf.size % tiling.L == 0


def affine_into(out: np.ndarray, x: np.ndarray, scale: np.ndarray, shift: np.ndarray, act: tuple,
                tiling: RowTiling | None = None) -> None:
    """``out = act(x * scale + shift)`` in place (per-channel scale/shift broadcast on the last axis),
    on tiled rows when ``tiling`` fits (see :mod:`.fastpath`)."""
    if _tileable(out, tiling) and _tileable(x, tiling):
        out, x, scale, shift = tiling.rows(out), tiling.rows(x), tiling.tile(scale), tiling.tile(shift)
    elif scale.ndim != 1:
        scale, shift = scale.reshape(-1), shift.reshape(-1)
    np.multiply(x, scale, out=out)
    np.add(out, shift, out=out)
    apply_act(out, act)


def _run_with_fresh(build: Callable, out_shape: tuple, dtype: Any, *arrays: np.ndarray) -> np.ndarray:
    fn, scratch = build
    out = np.empty(out_shape, dtype)
    fn(*arrays, out, *[np.empty(s, d) for s, d in scratch])
    return out


def _pad_fill(pb: np.ndarray, x: np.ndarray, ph: int, pw: int, value: float = 0.0) -> None:
    """Writes ``x`` into the interior of ``pb`` and ``value`` into its border (every call: the
    buffer's memory is shared with other steps)."""
    _pad_rows(pb, x, 0, ph, pw, value)


def _epilogue(out2d: np.ndarray, out: np.ndarray, b: Any, r: Any, act: tuple,
              tiling: RowTiling | None = None) -> None:
    """Bias, residual add and activation in place on ``out`` (``out2d``: its ``(rows, K)`` view);
    on tiled rows when ``tiling`` fits the (contiguous) chunk."""
    if out2d is out and _tileable(out, tiling) and (r is None or _tileable(r, tiling)):
        out = out2d = tiling.rows(out)
        b = None if b is None else tiling.tile(b)
        r = None if r is None else tiling.rows(r)
    if b is not None:
        np.add(out2d, b, out=out2d)
    if r is not None:
        np.add(out, r, out=out)
    if act:
        apply_act(out, act)


def _pad_rows(dst: np.ndarray, x: np.ndarray, p0: int, ph: int, pw: int, value: float = 0.0) -> None:
    """``dst[:, i] = `` row ``p0 + i`` of ``x`` padded by (ph, pw) with ``value``: a horizontal band
    of the padded input, written without materializing the rest."""
    rows, H, W = dst.shape[1], x.shape[1], x.shape[2]
    a, b = max(p0, ph), min(p0 + rows, ph + H)          # padded rows that hold input rows
    if b <= a:
        dst[...] = value
        return
    if a > p0:
        dst[:, :a - p0] = value
    if b < p0 + rows:
        dst[:, b - p0:] = value
    mid = dst[:, a - p0:b - p0]
    if pw:
        mid[:, :, :pw] = value
    if dst.shape[2] > pw + W:
        mid[:, :, pw + W:] = value
    mid[:, :, pw:pw + W] = x[:, a - ph:b - ph]

