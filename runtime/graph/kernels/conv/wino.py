"""``wino``: Winograd F(2x2, 3x3) for 3x3 stride-1 convolutions.

16 batched matmuls ``(tiles, C) @ (C, K)`` over the 4x4 input tiles (stride 2): 2.25x fewer
multiplies than direct convolution. Run by the banded engine of :mod:`._winograd` (one parallel step
per convolution: the transforms run in the bands too, not on the calling thread alone). Chosen by
measurement (``tune``) or ``options["winograd"] in (True, "f2")``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from . import ConvAlgo, ConvSpec, _winograd, register

_G = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]], np.float64)


def eligible(s: ConvSpec) -> bool:
    return s.groups == 1 and tuple(s.kernel) == (3, 3) and tuple(s.stride) == (1, 1) and tuple(s.dilate) == (1, 1)


def sandwich(G: np.ndarray, w: np.ndarray, b_major: bool = False) -> np.ndarray:
    """``U = G g G^T`` for every 3x3 filter g of ``w`` (K, C, 3, 3), as ``(n*n, C, K)`` in (row a, column
    b) order, or (b, a) with ``b_major``: the layout the kernels read, written by one GEMM
    ``kron(G, G) @ g`` with the filters read in place (``(K*C, 9)``, BLAS's transposed operand): the
    result is ``(n*n, K, C)``, returned as its ``(n*n, C, K)`` view (the batched matmuls read it as
    well). A data gradient's filters (``w`` the spatially flipped, channel-swapped view of a
    contiguous weight, ``_hy_conv_flip``) are read in place too, the flip moved into the kron's
    columns; the result is then contiguous. Float32 weights are transformed in float32 (at most
    ~3e-8 of the largest entry off the float64 result, rounding included): this runs at every
    ``bind_params`` (a training step rebinds after every update)."""
    K, C = w.shape[:2]
    n = G.shape[0]
    kr = np.kron(G, G)                                   # row a*n + b, column i*3 + j
    if b_major:
        kr = kr.reshape(n, n, 9).transpose(1, 0, 2).reshape(n * n, 9)
    dt = np.result_type(w.dtype, np.float32)
    kr = kr.astype(dt)
    base = w.swapaxes(0, 1)[:, :, ::-1, ::-1]            # (C, K, 3, 3): the weight w was flipped from
    if not w.flags.c_contiguous and base.flags.c_contiguous:
        U = kr[:, ::-1] @ base.reshape(C * K, 9).astype(dt, copy=False).T
        return U.reshape(n * n, C, K).astype(w.dtype, copy=False)
    U = kr @ w.reshape(K * C, 9).astype(dt, copy=False).T
    return U.reshape(n * n, K, C).transpose(0, 2, 1).astype(w.dtype, copy=False)


def weight(w: np.ndarray, groups: int = 1) -> np.ndarray:
    """U = G g G^T for every (K, C) 3x3 filter, as (16, C, K)."""
    return sandwich(_G, w)


def weight_shape(shape: tuple, groups: int) -> tuple:
    K, Cg = shape[:2]
    return (16, Cg, K)


# F(2x2, 3x3): 4x4 input tiles (stride 2); B^T and A^T with entries 0 and +-1
_BT = np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], np.float64)
_AT = np.array([[1, 1, 1, 0], [0, 1, -1, -1]], np.float64)
TRANSFORM = _winograd.Transform(2, _BT, _AT, "ab")


def scratch(s: ConvSpec) -> list:
    return _winograd.scratch(s, TRANSFORM)


def build(s: ConvSpec) -> Callable:
    return _winograd.build(s, TRANSFORM)


ALGO = register(ConvAlgo("wino", 20, eligible, weight, weight_shape, scratch, build, tunable=True,
                         rule=lambda s: None, forced_by=(True, "f2"), winograd=True, version=2,
                         residual_inplace=lambda s: True))
