"""``group``: grouped convolutions other than depthwise, one im2col matmul per group."""
from __future__ import annotations

from typing import Callable

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..common import _epilogue, _pad_fill
from . import ConvAlgo, ConvSpec, register


def eligible(s: ConvSpec) -> bool:
    return s.groups > 1 and s.C % s.groups == 0 and s.K % s.groups == 0


def _direct(s: ConvSpec) -> bool:
    return tuple(s.kernel) == (1, 1) and tuple(s.stride) == (1, 1) and not s.padded


def weight(w: np.ndarray, groups: int) -> np.ndarray:
    K, Cg, KH, KW = w.shape
    Kg = K // groups
    return np.ascontiguousarray(w.reshape(groups, Kg, Cg, KH, KW).transpose(0, 3, 4, 2, 1)
                                .reshape(groups, KH * KW * Cg, Kg))


def weight_shape(shape: tuple, groups: int) -> tuple:
    K, Cg, KH, KW = shape
    return (groups, KH * KW * Cg, K // groups)


def scratch(s: ConvSpec) -> list:
    """[padded input], [one group's patch matrix], one group's output."""
    kh, kw = s.kernel
    out = [((s.N, s.H + 2 * s.pad[0], s.W + 2 * s.pad[1], s.C), s.dtype)] if s.padded else []
    if not _direct(s):
        out.append(((s.M, kh * kw * (s.C // s.groups)), s.dtype))
    return out + [((s.M, s.K // s.groups), s.dtype)]


def build(s: ConvSpec) -> Callable:
    N, C, K, G, OH, OW, M, act = s.N, s.C, s.K, s.groups, s.OH, s.OW, s.M, s.act
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = s.kernel, s.stride, s.pad, s.dilate
    padded, direct = s.padded, _direct(s)
    Cg, Kg = C // G, K // G

    def patches(src):
        sN, sH, sW, sC = src.strides
        return as_strided(src, (N, OH, OW, kh, kw, src.shape[3]), (sN, sH * sh, sW * sw, sH * dh, sW * dw, sC))

    def run(data, weight, out, *rest, bias=None, residual=None):
        if padded:
            src = rest[0]
            _pad_fill(src, data, ph, pw)
        else:
            src = data
        col = rest[int(padded)] if not direct else None
        tmp = rest[-1]
        o2 = out.reshape(M, K)
        for g in range(G):
            sub = src[..., g * Cg:(g + 1) * Cg]
            if direct:
                A = np.ascontiguousarray(sub).reshape(M, Cg)
            else:
                A = col
                np.copyto(A.reshape(N, OH, OW, kh, kw, Cg), patches(sub))
            np.matmul(A, weight[g], out=tmp)
            o2[:, g * Kg:(g + 1) * Kg] = tmp
        _epilogue(o2, out, bias, residual, act)
    return run


ALGO = register(ConvAlgo("group", 50, eligible, weight, weight_shape, scratch, build, rule=lambda s: 1.0))
