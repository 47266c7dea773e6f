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


def sandwich(G: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``G g G^T`` for every 3x3 filter g of ``w`` (K, C, 3, 3), as (K, C, a, b), in float64: one
    GEMM of the flattened filters by ``kron(G, G)^T`` (an einsum is ~40x slower on big layers)."""
    K, C = w.shape[:2]
    n = G.shape[0]
    u = w.reshape(K * C, 9).astype(np.float64) @ np.kron(G, G).T
    return u.reshape(K, C, n, n)


def weight(w: np.ndarray, groups: int = 1) -> np.ndarray:
    """U = G g G^T for every (K, C) 3x3 filter, as (16, C, K)."""
    K, C = w.shape[:2]
    return np.ascontiguousarray(sandwich(_G, w).transpose(2, 3, 1, 0).reshape(16, C, K).astype(w.dtype))


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
