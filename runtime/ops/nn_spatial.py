"""Spatial transformer family: ``GridGenerator``, ``BilinearSampler``, ``SpatialTransformer``
(MXNet 1.9.1, NCHW).

Grids hold normalized source coordinates ``(x, y)`` in ``[-1, 1]`` (channel 0 is x, channel 1 is
y); sampling maps them to ``(x + 1) * (W - 1) / 2`` and interpolates bilinearly, with zeros
outside the input, in one vectorized gather over batch, channels and positions.
"""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from ._grad import backward_op, internal
from ._nnutil import OptBool, merge_shape
from .attrs import Enum, Param, Shape
from .registry import OpDef, defgrad, get_op, register


def _target_grid(H: int, W: int) -> np.ndarray:
    """(3, H*W) homogeneous normalized target coordinates [x; y; 1]."""
    ys, xs = np.meshgrid(np.linspace(-1.0, 1.0, H) if H > 1 else np.array([-1.0]),
                         np.linspace(-1.0, 1.0, W) if W > 1 else np.array([-1.0]), indexing="ij")
    return np.stack([xs.reshape(-1), ys.reshape(-1), np.ones(H * W)])


def _affine_grid(theta, H: int, W: int, dtype) -> np.ndarray:
    N = theta.shape[0]
    g = np.matmul(theta.reshape(N, 2, 3).astype(np.float64), _target_grid(H, W))   # (N, 2, H*W)
    return g.reshape(N, 2, H, W).astype(dtype)


def _sample(data, grid):
    """Bilinear sampling of ``data`` (N, C, H, W) at ``grid`` (N, 2, Ho, Wo), zeros outside."""
    N, C, H, W = data.shape
    Ho, Wo = grid.shape[2:]
    x = (grid[:, 0].astype(np.float64) + 1) * (W - 1) / 2
    y = (grid[:, 1].astype(np.float64) + 1) * (H - 1) / 2
    x0 = np.floor(x).astype(np.int64)
    y0 = np.floor(y).astype(np.int64)
    wx = 1.0 - (x - x0)
    wy = 1.0 - (y - y0)
    flat = data.reshape(N, C, H * W)
    out = np.zeros((N, C, Ho * Wo), dtype=np.float64)
    for dy, dx, wgt in ((0, 0, wy * wx), (0, 1, wy * (1 - wx)), (1, 0, (1 - wy) * wx), (1, 1, (1 - wy) * (1 - wx))):
        yy, xx = y0 + dy, x0 + dx
        ok = (yy >= 0) & (yy <= H - 1) & (xx >= 0) & (xx <= W - 1)
        idx = np.where(ok, yy * W + xx, 0).reshape(N, 1, -1)
        vals = np.take_along_axis(flat, np.broadcast_to(idx, (N, C, Ho * Wo)), axis=2)
        out += vals * np.where(ok, wgt, 0.0).reshape(N, 1, -1)
    return out.reshape(N, C, Ho, Wo).astype(data.dtype)


# -- GridGenerator ---------------------------------------------------------------------------------
def _grid_shape(attrs, in_shapes):
    ins = list(in_shapes)
    d = ins[0]
    if attrs.transform_type == "affine":
        H, W = tuple(attrs.target_shape) + (0, 0)[len(attrs.target_shape):]
        if d is None or len(d) == 0:
            return ins, [None]
        ins[0] = merge_shape(d, (d[0], 6), "GridGenerator data")
        return ins, [(d[0], 2, H, W)]
    if d is None or len(d) == 0:
        return ins, [None]
    if len(d) != 4 or d[1] not in (0, 2):
        raise ShapeError(f"GridGenerator warp needs a (N, 2, H, W) flow, got {tuple(d)}")
    return ins, [tuple(d)]


def _grid_generator(attrs, data):
    """Sampling grid from an affine matrix ``(N, 6)`` or a pixel flow field ``(N, 2, H, W)``."""
    if attrs.transform_type == "affine":
        H, W = attrs.target_shape
        return _affine_grid(data, H, W, data.dtype)
    N, _, H, W = data.shape
    ys, xs = np.meshgrid(np.arange(H, dtype=np.float64), np.arange(W, dtype=np.float64), indexing="ij")
    gx = (data[:, 0] + xs) / ((W - 1) / 2.0) - 1.0
    gy = (data[:, 1] + ys) / ((H - 1) / 2.0) - 1.0
    return np.stack([gx, gy], axis=1).astype(data.dtype)


register(OpDef("GridGenerator", _grid_generator,
               params=(Param("transform_type", Enum("affine", "warp")), Param("target_shape", Shape, (0, 0))),
               infer_shape=_grid_shape))


# -- BilinearSampler ---------------------------------------------------------------------------------
def _sampler_shape(attrs, in_shapes):
    d, g = in_shapes
    if d is None or len(d) == 0 or g is None or len(g) == 0:
        return list(in_shapes), [None]
    return list(in_shapes), [(d[0], d[1], g[2], g[3])]


def _bilinear_sampler(attrs, data, grid):
    """Samples ``data`` bilinearly at the normalized coordinates of ``grid``."""
    return _sample(data, grid)


register(OpDef("BilinearSampler", _bilinear_sampler, params=(Param("cudnn_off", OptBool, None),),
               inputs=("data", "grid"), infer_shape=_sampler_shape))


# -- SpatialTransformer ---------------------------------------------------------------------------------
def _st_shape(attrs, in_shapes):
    ins = list(in_shapes)
    d = ins[0]
    if d is None or len(d) == 0:
        return ins, [None]
    ins[1] = merge_shape(ins[1], (d[0], 6), "SpatialTransformer loc")
    H, W = attrs.target_shape
    return ins, [(d[0], d[1], H, W)]


def _spatial_transformer(attrs, data, loc):
    """Affine spatial transformer: an affine grid of ``target_shape`` from ``loc``, sampled bilinearly."""
    H, W = attrs.target_shape
    return _sample(data, _affine_grid(loc, H, W, np.float64))


register(OpDef("SpatialTransformer", _spatial_transformer,
               params=(Param("target_shape", Shape, (0, 0)), Param("transform_type", Enum("affine")),
                       Param("sampler_type", Enum("bilinear")), Param("cudnn_off", OptBool, None)),
               inputs=("data", "loc"), infer_shape=_st_shape))


# -- gradients (MXNet 1.9.1: the legacy operators bilinear_sampler.cc, grid_generator.cc,
# spatial_transformer.cc, whose Backward computes these) -------------------------------------------------------
def _sample_backward(data, grid, og):
    """(d data, d grid) of ``_sample``: each output's gradient spread onto its four neighbours, and the
    slopes of the bilinear weights along x and y (in normalized coordinates)."""
    N, C, H, W = data.shape
    Ho, Wo = grid.shape[2:]
    x = (grid[:, 0].astype(np.float64) + 1) * (W - 1) / 2
    y = (grid[:, 1].astype(np.float64) + 1) * (H - 1) / 2
    x0 = np.floor(x).astype(np.int64)
    y0 = np.floor(y).astype(np.int64)
    wx = 1.0 - (x - x0)
    wy = 1.0 - (y - y0)
    flat = data.reshape(N, C, H * W).astype(np.float64)
    g = og.reshape(N, C, Ho * Wo).astype(np.float64)
    ddata = np.zeros((N, C, H * W))
    dx = np.zeros((N, Ho * Wo))
    dy = np.zeros((N, Ho * Wo))
    n_idx = np.arange(N)[:, None, None]
    c_idx = np.arange(C)[None, :, None]
    for oy, ox, wgt, sx, sy in ((0, 0, wy * wx, -wy, -wx), (0, 1, wy * (1 - wx), wy, -(1 - wx)),
                                (1, 0, (1 - wy) * wx, -(1 - wy), wx), (1, 1, (1 - wy) * (1 - wx), 1 - wy, 1 - wx)):
        yy, xx = y0 + oy, x0 + ox
        ok = ((yy >= 0) & (yy <= H - 1) & (xx >= 0) & (xx <= W - 1)).reshape(N, 1, -1)
        idx = np.where(ok, (yy * W + xx).reshape(N, 1, -1), 0)
        idx = np.broadcast_to(idx, (N, C, Ho * Wo))
        np.add.at(ddata, (n_idx, c_idx, idx), np.where(ok, g * wgt.reshape(N, 1, -1), 0.0))
        vals = np.where(ok, np.take_along_axis(flat, idx, axis=2), 0.0)
        seen = (g * vals).sum(axis=1)
        dx += seen * sx.reshape(N, -1)
        dy += seen * sy.reshape(N, -1)
    dgrid = np.stack([dx * (W - 1) / 2, dy * (H - 1) / 2], axis=1).reshape(N, 2, Ho, Wo)
    return ddata.reshape(data.shape), dgrid


def _backward_sampler(attrs, og, data, grid):
    ddata, dgrid = _sample_backward(data, grid, og)
    return ddata.astype(data.dtype), dgrid.astype(grid.dtype)


def _affine_backward(dgrid, H: int, W: int):
    """d theta (N, 6) of ``_affine_grid`` from d grid (N, 2, H, W)."""
    N = dgrid.shape[0]
    return np.matmul(dgrid.reshape(N, 2, H * W), _target_grid(H, W).T).reshape(N, 6)


def _backward_grid_generator(attrs, og, data):
    if attrs.transform_type == "affine":
        H, W = attrs.target_shape
        return _affine_backward(og.astype(np.float64), H, W).astype(data.dtype)
    _, _, H, W = data.shape
    scale = np.array([(W - 1) / 2.0, (H - 1) / 2.0]).reshape(1, 2, 1, 1)
    return (og / scale).astype(data.dtype)


def _backward_spatial_transformer(attrs, og, data, loc):
    H, W = attrs.target_shape
    ddata, dgrid = _sample_backward(data, _affine_grid(loc, H, W, np.float64), og)
    return ddata.astype(data.dtype), _affine_backward(dgrid, H, W).astype(loc.dtype)


backward_op("_backward_BilinearSampler", _backward_sampler, ("ograd", "data", "grid"), like=(1, 2), num_outputs=2,
            params=get_op("BilinearSampler").params)
backward_op("_backward_GridGenerator", _backward_grid_generator, ("ograd", "data"),
            params=get_op("GridGenerator").params)
backward_op("_backward_SpatialTransformer", _backward_spatial_transformer, ("ograd", "data", "loc"), like=(1, 2),
            num_outputs=2, params=get_op("SpatialTransformer").params)


@defgrad("BilinearSampler")
def _sampler_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_backward_BilinearSampler")(out_grads[0], *inputs, **attrs.as_dict())
    return [g[0], g[1]]


@defgrad("SpatialTransformer")
def _spatial_transformer_grad(F, attrs, inputs, outputs, out_grads):
    g = internal(F, "_backward_SpatialTransformer")(out_grads[0], *inputs, **attrs.as_dict())
    return [g[0], g[1]]


@defgrad("GridGenerator")
def _grid_generator_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_GridGenerator")(out_grads[0], inputs[0], **attrs.as_dict())]
