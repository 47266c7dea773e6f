"""The Winograd engine shared by ``wino`` (F(2x2, 3x3)) and ``wino4`` (F(4x4, 3x3)): tiles, bands,
transforms as single matrices, the fused output. Not an algorithm itself (a leading underscore
keeps it out of the registry's discovery).

F(m x m, 3x3) with tile size ``t = m + 2`` and ``P = t * t`` points, in bands of tile rows, each band
one pipeline on the thread pool (its own padded input rows, scratch and output rows):

1. its zero-padded input rows (``_pad_rows``), then every ``t x t`` tile (stride ``m``) gathered by one
   strided copy into ``D`` ``(P, tiles * C)``;
2. the input transform ``V = B^T d B`` of every tile and channel as ONE matmul ``KB @ D``, ``KB`` the
   ``(P, P)`` Kronecker product of ``B^T`` with itself: more multiplies than the separable form
   (F(4x4): 3x), but one BLAS call on data in cache instead of strided copies, tiny ``(t, t)``
   matmuls or a numpy pass per row and column of the tile (at 56x56x64, batch 1: 2.85 -> 1.7 ms of
   transforms);
3. ``P`` batched matmuls ``(tiles, C) @ (C, K)`` with the transformed weights ``U``;
4. the bias, added to ONE of the ``P`` products: ``A^T``'s column 1 (interpolation point 1) is all
   ones, so a constant added to ``M[1, 1]`` reaches every output of the tile with weight 1;
5. the output transform ``Y = A^T M A`` as one matmul ``KA @ M`` (``KA``: ``(m*m, P)``);
6. ``Y`` scattered into the NHWC output in at most four rectangles (whole tiles, the partial last
   tile column, row and corner), fused with the residual add or the ReLU (``maximum`` against a
   zeros view); other activations run on the band's output rows after.

Views of the buffers (strided gathers, the rectangles) are built once per buffer set and cached: a
compiled program passes the same per-thread buffers every call, and each view costs 5-20 us to
make. ``out`` (and the residual) may be channel slices of wider buffers: they are only written
through views that keep their strides.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..common import _pad_rows, apply_act
from ..fastpath import RowTiling, zeros_like_view
from ..parallel import num_threads, run_chunks

WINO_BAND_WORK = 5e6   # multiply-adds (of the P matmuls) below which a Winograd convolution is one band


class Transform:
    """The transforms of F(m x m, 3x3) on flattened tiles. ``order``: the order of the ``P`` weight
    matrices ``U`` (and so of ``V`` and ``M``): ``"ab"`` (row transform index first) or ``"ba"``."""

    def __init__(self, m: int, BT: np.ndarray, AT: np.ndarray, order: str):
        assert np.all(AT[:, 1] == 1), "the bias slot needs A^T's column 1 to be all ones"
        self.m, self.t = m, m + 2
        self.P = self.t * self.t
        spec_in, spec_out = ("ai,bj->abij", "qa,pb->qpab") if order == "ab" else ("ai,bj->baij", "qa,pb->qpba")
        self.KB = np.einsum(spec_in, BT, BT).reshape(self.P, self.P)        # rows: U's order; columns (i, j)
        self.KA = np.einsum(spec_out, AT, AT).reshape(m * m, self.P)        # rows (q, p) = (row, column)
        self.bias_slot = self.t + 1                                          # M[1, 1] in either order


def plan(s: Any, tf: Transform) -> tuple:
    """(TH, TW, bands, split): tile rows and columns, the bands of tile rows, and whether the P
    products are split across threads instead of running inside the bands.

    Bands: one per thread (a band's P matmuls are separate BLAS calls: more bands, more calls); four
    per thread for very big convolutions (balance); one below WINO_BAND_WORK multiply-adds. Every band
    multiplies by all the weights, so when a band has fewer tiles than the convolution has output
    channels (deep layers at small batch: 7x7x512 has 4 tiles of 4x4), the weights outweigh the
    tiles and re-reading them per band costs more than it saves: then the transforms still run in
    bands, but the P products are split among the threads (three parallel steps instead of one).
    Measured (CPU time, same process): 7x7x512 at batch 1 0.5x, 14x14x256 0.7-1.0x, 14x14x256 at
    batch 8 0.9x; 28x28x128 F(2x2), with twice the tiles per band as channels, 1.05-1.3x: kept in bands."""
    m = tf.m
    TH, TW = -(-s.OH // m), -(-s.OW // m)
    work, t = float(tf.P) * s.N * TH * TW * s.C * s.K, num_threads()
    nb = 1 if t == 1 or work < WINO_BAND_WORK else t if work < 40 * WINO_BAND_WORK else 4 * t
    nb = min(nb, TH)
    bs = [(TH * i // nb, TH * (i + 1) // nb) for i in range(nb)]
    split = nb > 1 and 2 * s.N * TW * max(b - a for a, b in bs) < s.K
    return TH, TW, bs, split


def slots(s: Any, tf: Transform) -> int:
    """Buffer sets of the bands: one per band that can run at once (bands outnumber the threads four
    to one on very big convolutions; a band takes a free set when it starts, and gives it back when
    done), so the scratch is the threads' working set, not the whole convolution's."""
    bs = plan(s, tf)[2]
    return min(len(bs), num_threads())


def scratch(s: Any, tf: Transform) -> list:
    """Per buffer set (:func:`slots`), for the largest band: the padded input rows, D then M, V then
    Y. Split: per buffer set the padded input rows, D, Y; then V and M of every tile."""
    N, C, K, dt, m, P = s.N, s.C, s.K, s.dtype, tf.m, tf.P
    TH, TW, bs, split = plan(s, tf)
    c = max(th1 - th0 for th0, th1 in bs)
    T = N * c * TW
    if not split:
        return [((N, m * c + 2, m * TW + 2, C), dt), ((T * P * max(C, K),), dt),
                ((T * max(P * C, m * m * K),), dt)] * slots(s, tf)
    out = [((N, m * c + 2, m * TW + 2, C), dt), ((P * T * C,), dt), ((m * m * T * K,), dt)] * slots(s, tf)
    T = N * TH * TW
    out += [((P, T, C), dt), ((P, T, K), dt)]
    return out


def _tiles_view(a: np.ndarray, r0: int, rows: int, cols: int, m: int) -> np.ndarray:
    """``a[:, r0 + m t + q, m u + p]`` as (N, t, q, u, p, K) for t < rows, u < cols (a view)."""
    sN, sH, sW, sC = a.strides
    return as_strided(a[:, r0:], (a.shape[0], rows, m, cols, m, a.shape[3]), (sN, m * sH, sH, m * sW, sW, sC))


def build(s: Any, tf: Transform) -> Callable:
    N, C, K, OH, OW, act, dtype = s.N, s.C, s.K, s.OH, s.OW, tuple(s.act or ()), np.dtype(s.dtype)
    m, t, P = tf.m, tf.t, tf.P
    ph, pw = s.pad
    TH, TW, bs, split = plan(s, tf)
    nb = len(bs)
    nslots = slots(s, tf)
    one_set = scratch(s, tf)[:3]
    KB, KA, slot = tf.KB.astype(dtype), tf.KA.astype(dtype), tf.bias_slot
    tiling = RowTiling(K, OW)
    fc, rc = OW // m, OW % m                 # full tile columns, columns of a last partial one
    relu_direct = not s.has_res and act == ("relu",)
    nt = min(P, num_threads())
    pbounds = [(P * j // nt, P * (j + 1) // nt) for j in range(nt)]

    def views(i: int, x: np.ndarray, out: np.ndarray, r: Any, sc: tuple, k: int, own: tuple = ()) -> tuple:
        # tiles in (tile row, image, tile column) order: a band's tiles are contiguous; its
        # buffers are set k's (``own``, when given: a set of its own)
        th0, th1 = bs[i]
        c = th1 - th0
        T = N * c * TW
        pbc, buf1, buf2 = own or sc[3 * k:3 * k + 3]
        pbc = pbc[:, :m * c + 2]
        sN, sH, sW, sC = pbc.strides
        D = buf1[:P * T * C].reshape(P, T * C)
        # D[(i, j), tr, n, u, ch] = pbc[n, m tr + i, m u + j, ch]
        gather = (D.reshape(t, t, c, N, TW, C), as_strided(pbc, (t, t, c, N, TW, C), (sH, sW, m * sH, sN, m * sW, sC)))
        if split:
            Vg, Mg = sc[3 * nslots], sc[3 * nslots + 1]
            a, b = th0 * N * TW, th1 * N * TW
            V = Vg[:, a:b].reshape(P, T * C)            # strided views of every tile's V and M
            Mm = Mg[:, a:b]
            Y = buf2[:m * m * T * K].reshape(m * m, T * K)
        else:
            V = buf2[:P * T * C].reshape(P, T, C)
            Mm = buf1[:P * T * K].reshape(P, T, K)
            Y = buf2[:m * m * T * K].reshape(m * m, T * K)
        Y6 = Y.reshape(m, m, c, N, TW, K)
        y0, y1 = m * th0, min(m * th1, OH)
        fr, rr = (y1 - y0) // m, (y1 - y0) % m       # full tile rows, rows of a last partial one
        rects = []
        for t0, t1, q1, rbase in ((0, fr, m, y0), (fr, fr + 1, rr, y0 + m * fr)):
            if t1 <= t0 or q1 == 0:
                continue
            for u0, u1, p1 in ((0, fc, m), (fc, fc + 1, rc)):
                if u1 <= u0 or p1 == 0:
                    continue
                src = Y6[:q1, :p1, t0:t1, :, u0:u1].transpose(3, 2, 0, 4, 1, 5)
                dst = _tiles_view(out[:, :, m * u0:], rbase, t1 - t0, u1 - u0, m)[:, :, :q1, :, :p1]
                if r is not None:
                    third = _tiles_view(r[:, :, m * u0:], rbase, t1 - t0, u1 - u0, m)[:, :, :q1, :, :p1]
                else:
                    third = zeros_like_view(src.shape, dtype)
                rects.append((src, dst, third))
        acts = []
        for n in range(N):
            o = out[n, y0:y1]
            acts.append(tiling.rows(o) if o.flags.c_contiguous and o.size % tiling.L == 0 else o)
        return (x, out, r, (own or sc)[3 * k]), (pbc, gather, D, V, Mm, Y, rects, acts, y0)

    cache: dict = {}        # (band, id of its buffer set's padded input) -> views; per thread's buffers

    def views_of(i: int, x: np.ndarray, r: Any, out: np.ndarray, sc: tuple, k: int) -> tuple:
        key = (i, id(sc[3 * k]))
        hit = cache.get(key)
        if hit is None or hit[0][0] is not x or hit[0][1] is not out or hit[0][2] is not r \
                or hit[0][3] is not sc[3 * k]:
            hit = views(i, x, out, r, sc, k)
            if len(cache) >= 16 * nb * nslots:
                cache.clear()
            cache[key] = hit
        return hit[1]

    def transform_in(v: tuple, x: np.ndarray) -> None:
        pbc, gather, D, V, Mm, Y, rects, acts, y0 = v
        _pad_rows(pbc, x, y0, ph, pw)
        np.copyto(*gather)
        np.matmul(KB, D, out=V.reshape(D.shape))

    def transform_out(v: tuple, b: Any, r: Any) -> None:
        pbc, gather, D, V, Mm, Y, rects, acts, y0 = v
        if b is not None:
            np.add(Mm[slot], b, out=Mm[slot])
        np.matmul(KA, Mm.reshape(P, -1), out=Y)
        if r is not None:
            for src, dst, rv in rects:
                np.add(src, rv, out=dst)
        elif relu_direct:
            for src, dst, z in rects:
                np.fmax(src, z, out=dst)   # oneDNN's relu: NaN gives 0
        else:
            for src, dst, _ in rects:
                np.copyto(dst, src)
        if act and not relu_direct:
            for o in acts:
                apply_act(o, act)

    def in_set(i: int, x: np.ndarray, r: Any, out: np.ndarray, sc: tuple, free: list, fn: Callable) -> None:
        """``fn(views)`` of band ``i`` in a buffer set no running band holds (``list.pop`` is atomic)."""
        try:
            k = free.pop()
        except IndexError:      # more threads than sets (the pool outgrew the thread count)
            k = None
        try:
            fn(views(i, x, out, r, sc, 0, tuple(np.empty(sh, d) for sh, d in one_set))[1] if k is None
               else views_of(i, x, r, out, sc, k))
        finally:
            if k is not None:
                free.append(k)

    def band(v: tuple, x: np.ndarray, U: np.ndarray, b: Any, r: Any) -> None:
        transform_in(v, x)
        np.matmul(v[3], U, out=v[4])                  # P batched (tiles, C) @ (C, K)
        transform_out(v, b, r)

    def run(data, weight, out, *sc, bias=None, residual=None):
        free = list(range(nslots))      # this call's (its thread's buffers')
        if not split:
            run_chunks(lambda i: in_set(i, data, residual, out, sc, free,
                                        lambda v: band(v, data, weight, bias, residual)), nb)
            return
        Vg, Mg = sc[3 * nslots], sc[3 * nslots + 1]
        run_chunks(lambda i: in_set(i, data, residual, out, sc, free, lambda v: transform_in(v, data)), nb)
        run_chunks(lambda j: np.matmul(Vg[pbounds[j][0]:pbounds[j][1]], weight[pbounds[j][0]:pbounds[j][1]],
                                       out=Mg[pbounds[j][0]:pbounds[j][1]]), nt)
        run_chunks(lambda i: in_set(i, data, residual, out, sc, free, lambda v: transform_out(v, bias, residual)), nb)
    run.parallel = nb > 1
    return run
