"""``wino4``: Winograd F(4x4, 3x3) for 3x3 stride-1 convolutions: 6x6 input tiles (stride 4), 36
batched matmuls ``(tiles, C) @ (C, K)``, 4x fewer multiplies than direct convolution. Run by the
banded engine of :mod:`._winograd` (transforms as one matmul each, bias in one of the 36 products,
output scattered with the residual/ReLU fused): one parallel step per convolution.

The fixed rule (no timing) prefers it from 16 tiles of 4x4 on at 32+ channels (measured with
``python benchmarks/bench_compiler.py --kernels``: 1.5-3x faster than im2col + matmul there); with
fewer tiles (7x7 at batch 1) its 36 weight matrices (4x the direct weights) make it memory-bound.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from . import ConvAlgo, ConvSpec, _winograd, register
from ._winograd import WINO_BAND_WORK  # noqa: F401  (re-exported: tests patch it)
from .wino import eligible, sandwich

# Winograd F(4x4, 3x3) (Lavin & Gray, interpolation points 0, +-1, +-2, inf): Y = A^T [U . V] A with
# U = G g G^T (6x6 per filter) and V = B^T d B (6x6 per input tile, tiles overlap by 2).
_W4_BT = np.array([[4, 0, -5, 0, 1, 0], [0, -4, -4, 1, 1, 0], [0, 4, -4, -1, 1, 0],
                   [0, -2, -1, 2, 1, 0], [0, 2, -1, -2, 1, 0], [0, 4, 0, -5, 0, 1]], np.float64)
_W4_G = np.array([[1 / 4, 0, 0], [-1 / 6, -1 / 6, -1 / 6], [-1 / 6, 1 / 6, -1 / 6],
                  [1 / 24, 1 / 12, 1 / 6], [1 / 24, -1 / 12, 1 / 6], [0, 0, 1]], np.float64)
_W4_AT = np.array([[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]], np.float64)


def weight(w: np.ndarray, groups: int = 1) -> np.ndarray:
    """U = G g G^T for every (K, C) 3x3 filter, as (36, C, K) in (column b, row a) order: the order
    in which the kernel's separable input transform leaves the 36 tile matrices."""
    return sandwich(_W4_G, w, b_major=True)


def weight_shape(shape: tuple, groups: int) -> tuple:
    K, Cg = shape[:2]
    return (36, Cg, K)


def rule(s: ConvSpec) -> Optional[float]:
    """Preferred over gemm (0) from 16 tiles on at 32+ channels, never below."""
    tiles = s.N * ((s.H + 3) // 4) * ((s.W + 3) // 4)
    return 1.0 if s.C >= 32 and s.K >= 32 and tiles >= 16 else None


TRANSFORM = _winograd.Transform(4, _W4_BT, _W4_AT, "ba")
_KA, _BIAS_SLOT = TRANSFORM.KA, TRANSFORM.bias_slot


def scratch(s: ConvSpec) -> list:
    return _winograd.scratch(s, TRANSFORM)


def build(s: ConvSpec) -> Callable:
    return _winograd.build(s, TRANSFORM)


ALGO = register(ConvAlgo("wino4", 30, eligible, weight, weight_shape, scratch, build, tunable=True,
                         rule=rule, forced_by=("f4",), winograd=True, version=2,
                         residual_inplace=lambda s: True))
