"""``dw``: depthwise convolutions (``groups == C == K``) as KH*KW multiply-adds of views of the
(padded) input, no patch matrix; rows of output pixels in chunks on the thread pool.

Strided layers (stride > 1, no dilation) first split the padded input into its stride phases
(``phase[a][c][r, q] = padded[r * sh + a, q * sw + c]``), written by each chunk straight from the
input for the rows it reads: every tap is then a view with contiguous output rows, so numpy runs
one inner loop per row instead of one per pixel, and the padded copy is not needed (MobileNetV2's
stride-2 layers: 0.72-0.78x the CPU time of strided views, same process)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..common import _epilogue, _pad_fill
from ..fastpath import RowTiling, generation
from ..parallel import chunks_for, num_threads, run_chunks
from . import ConvAlgo, ConvSpec, register


def eligible(s: ConvSpec) -> bool:
    return s.groups > 1 and s.groups == s.C == s.K


def weight(w: np.ndarray, groups: int) -> np.ndarray:
    K, Cg, KH, KW = w.shape
    return np.ascontiguousarray(w.reshape(K, KH, KW).transpose(1, 2, 0))


def weight_shape(shape: tuple, groups: int) -> tuple:
    K, Cg, KH, KW = shape
    return (KH, KW, K)


def _phased(s: ConvSpec) -> bool:
    """Taps read stride phases written per chunk. (At stride 1 the padded input is the one phase:
    filled per chunk, it measured the same as one serial fill, so stride 1 keeps the padded copy.)"""
    return s.dilate == (1, 1) and s.stride != (1, 1)


def _phases(s: ConvSpec) -> list[tuple[int, int, int, int]]:
    """(a, c, rows, cols) of every stride phase a tap reads: phase ``(a, c)`` serves the taps
    ``(i, j)`` with ``i % sh == a`` and ``j % sw == c``, shifted by ``(i // sh, j // sw)``."""
    (kh, kw), (sh, sw) = s.kernel, s.stride
    return [(a, c, s.OH + (kh - 1 - a) // sh, s.OW + (kw - 1 - c) // sw)
            for a in range(min(sh, kh)) for c in range(min(sw, kw))]


def scratch(s: ConvSpec) -> list:
    """[stride phases of the padded input | padded input], one tap's products."""
    if _phased(s):
        out = [((s.N, rows, cols, s.C), s.dtype) for _, _, rows, cols in _phases(s)]
    else:
        out = [((s.N, s.H + 2 * s.pad[0], s.W + 2 * s.pad[1], s.C), s.dtype)] if s.padded else []
    return out + [((s.N, s.OH, s.OW, s.C), s.dtype)]


def _phase_filler(s: ConvSpec, a: int, c: int, rows: int, cols: int) -> Callable:
    """``fill(P, x, n, r0, r1)``: rows ``r0:r1`` of image ``n`` of phase ``(a, c)`` from the input
    (zeros where the padded input is padding; every call: the scratch memory is shared)."""
    H, W = s.H, s.W
    (sh, sw), (ph, pw) = s.stride, s.pad
    rlo, rhi = max(0, -((a - ph) // sh)), min(rows, (H - 1 + ph - a) // sh + 1)   # rows holding input
    qlo, qhi = max(0, -((c - pw) // sw)), min(cols, (W - 1 + pw - c) // sw + 1)
    x0 = qlo * sw + c - pw

    def fill(P, x, n, r0, r1):
        v0, v1 = max(r0, rlo), min(r1, rhi)
        if v1 <= v0 or qhi <= qlo:
            P[n, r0:r1] = 0
            return
        if v0 > r0:
            P[n, r0:v0] = 0
        if v1 < r1:
            P[n, v1:r1] = 0
        mid = P[n, v0:v1]
        if qlo:
            mid[:, :qlo] = 0
        if qhi < cols:
            mid[:, qhi:] = 0
        y0 = v0 * sh + a - ph
        mid[:, qlo:qhi] = x[n, y0:y0 + (v1 - v0 - 1) * sh + 1:sh, x0:x0 + (qhi - qlo - 1) * sw + 1:sw]
    return fill


def build(s: ConvSpec) -> Callable:
    N, C, K, OH, OW, M, act = s.N, s.C, s.K, s.OH, s.OW, s.M, s.act
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = s.kernel, s.stride, s.pad, s.dilate
    padded, phased = s.padded, _phased(s)
    phases = _phases(s) if phased else []
    fillers = [_phase_filler(s, a, c, rows, cols) for a, c, rows, cols in phases]
    extra = [(rows - OH) for _, _, rows, _ in phases]          # phase rows beyond a chunk's output rows
    slot = {(a, c): k for k, (a, c, _, _) in enumerate(phases)}
    R = N * OH
    # one row chunk per thread: each chunk is ~20 numpy calls per image (taps, epilogue), so more
    # chunks cost more Python than their balancing gains (MobileNetV2's depthwise layers: 0.95x the
    # time of two per thread, same process)
    nch = min(chunks_for(M * C * kh * kw, R, min_work=1e6), num_threads())
    bounds = [(R * i // nch, R * (i + 1) // nch) for i in range(nch)]
    tiling = RowTiling(K, OW)
    wtiled: list = [None]             # (weight array, generation, its taps tiled to (OW, C))

    def run(data, weight, out, *rest, bias=None, residual=None):
        x, w, b, r = data, weight, bias, residual
        if phased:
            P, tmp = rest[:len(phases)], rest[len(phases)]
            # tap (i, j): phase (i % sh, j % sw), rows shifted by i // sh, columns by j // sw
            taps = [(P[slot[i % sh, j % sw]], i // sh, j // sw) for i in range(kh) for j in range(kw)]
        else:
            if padded:
                pb, tmp = rest[0], rest[1]
                _pad_fill(pb, x, ph, pw)
            else:
                pb, tmp = x, rest[0]
            taps = [(pb[:, i * dh:i * dh + sh * (OH - 1) + 1:sh, j * dw:j * dw + sw * (OW - 1) + 1:sw], 0, 0)
                    for i in range(kh) for j in range(kw)]
        # per-tap weights as (OW, C) rows: an output row (OW, C) is contiguous, so numpy runs
        # one inner loop per row instead of one per pixel (a (C,) vector broadcast)
        cached = wtiled[0]
        if cached is None or cached[0] is not w or cached[1] != generation():
            cached = (w, generation(), [np.ascontiguousarray(np.broadcast_to(w[i, j], (OW, C)))
                                        for i in range(kh) for j in range(kw)])
            wtiled[0] = cached          # one store: threads never see a half-updated cache
        wt = cached[2]

        def chunk(ci):
            r0, r1 = bounds[ci]
            # rows r0..r1 of (N*OH) as (n, oh) ranges: split at image boundaries
            n0, n1 = r0 // OH, (r1 - 1) // OH
            for n in range(n0, n1 + 1):
                a0 = max(r0, n * OH) - n * OH
                a1 = min(r1, (n + 1) * OH) - n * OH
                # the phase rows this chunk reads; a row shared with the next chunk is written by
                # both, with the same values, before either reads it
                for fill, Pk, e in zip(fillers, P if phased else (), extra):
                    fill(Pk, x, n, a0, a1 + e)
                o = out[n, a0:a1]
                t = tmp[n, a0:a1]
                src, di, dj = taps[0]
                np.multiply(src[n, a0 + di:a1 + di, dj:dj + OW], wt[0], out=o)
                for tap in range(1, len(taps)):
                    src, di, dj = taps[tap]
                    np.multiply(src[n, a0 + di:a1 + di, dj:dj + OW], wt[tap], out=t)
                    np.add(o, t, out=o)
                _epilogue(o, o, b, None if r is None else r[n, a0:a1], act, tiling)
        run_chunks(chunk, nch)
    run.parallel = nch > 1
    return run


ALGO = register(ConvAlgo("dw", 40, eligible, weight, weight_shape, scratch, build, rule=lambda s: 3.0, version=2))
