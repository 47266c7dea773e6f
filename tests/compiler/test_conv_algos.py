"""Every registered convolution algorithm against a float64 direct convolution, called the way the
compiled program calls it: scratch buffers full of garbage, the same buffers again (kernels cache
views of them), a new output buffer, an output that is a channel slice of a wider buffer, and
every fused epilogue (bias, residual, activation). Small shapes: the model fixtures cover scale."""
import types

import numpy as np
import pytest

from hybridize.runtime.graph.kernels import blas
from hybridize.runtime.graph.kernels import conv as CV

GEOMETRIES = [
    # (NHWC input, filters, kernel, pad, dilate)
    ((1, 9, 9, 8), 6, (3, 3), (1, 1), (1, 1)),
    ((2, 7, 10, 5), 7, (3, 3), (1, 1), (1, 1)),       # ragged tiles, two images
    ((1, 6, 5, 4), 3, (3, 3), (0, 0), (1, 1)),        # unpadded
    ((2, 9, 8, 4), 5, (3, 3), (2, 2), (2, 2)),        # dilated
    ((1, 8, 9, 3), 4, (5, 5), (2, 2), (1, 1)),
    ((1, 6, 7, 4), 5, (3, 1), (1, 0), (1, 1)),
    ((3, 13, 13, 16), 8, (3, 3), (1, 1), (1, 1)),     # several bands / chunks on the pool
    ((2, 6, 7, 4), 16, (1, 1), (0, 0), (1, 1)),       # 1x1 expansions: the bias as a weight row
    ((1, 5, 5, 3), 13, (1, 1), (0, 0), (1, 1)),
    ((2, 9, 8, 1), 6, (5, 5), (2, 2), (1, 1)),        # one input channel: gemm's patches tap-major
    ((2, 9, 9, 1), 4, (3, 3), (1, 1), (2, 2)),
]
EPILOGUES = [((), False, False), (("relu",), True, False), (("relu",), True, True), (("clip", 0.0, 6.0), True, True),
             ((), True, True)]


def direct(x, w, pad, dilate, b=None, r=None, act=()):
    """float64 reference: NHWC input, MXNet (K, C, KH, KW) weights, stride 1."""
    N, H, W, C = x.shape
    K, _, kh, kw = w.shape
    (ph, pw), (dh, dw) = pad, dilate
    xp = np.pad(x.astype(np.float64), ((0, 0), (ph, ph), (pw, pw), (0, 0)))
    OH, OW = H + 2 * ph - dh * (kh - 1), W + 2 * pw - dw * (kw - 1)
    out = np.zeros((N, OH, OW, K))
    for i in range(kh):
        for j in range(kw):
            out += xp[:, i * dh:i * dh + OH, j * dw:j * dw + OW] @ w[:, :, i, j].T.astype(np.float64)
    if b is not None:
        out += b
    if r is not None:
        out += r
    if act == ("relu",):
        out = np.maximum(out, 0)
    elif act and act[0] == "clip":
        out = np.clip(out, act[1], act[2])
    return out


def run_algo(algo, x, w, Kf, kern, pad, dil, act, b, r, out=None):
    a = types.SimpleNamespace(kernel=kern, stride=(1, 1), pad=pad, dilate=dil, num_filter=Kf, groups=1, algo=algo,
                              act=act, has_bias=b is not None, has_res=r is not None, has_pre=False, pre_act=(),
                              pre_fold=False)
    fn, scratch = CV.build_conv(a, x.shape, np.float32)
    bufs = [np.full(s, np.nan, d) for s, d in scratch]
    wl = CV.conv_weight(w, algo, 1)
    opt = {**({"bias": b} if b is not None else {}), **({"residual": r} if r is not None else {})}
    spec = CV.ConvSpec.of(a, x.shape, np.float32)
    results = []
    for _ in range(2):                                  # the same buffers twice, then a new output
        o = np.full((x.shape[0], spec.OH, spec.OW, Kf), np.nan, np.float32) if out is None else out
        fn(x, wl, o, *bufs, **opt)
        fn(x, wl, o, *bufs, **opt)
        results.append(o.copy())
    assert np.array_equal(results[0], results[1])
    return results[0], (fn, wl, bufs, opt, spec)


def algos_for(kern, dil):
    spec = CV.ConvSpec(1, 8, 8, 4, 4, kern, (1, 1), (1, 1), dil)
    return [a.name for a in CV.all_algos() if a.eligible(spec) and a.name not in ("dw", "group")]


@pytest.mark.parametrize("xs,Kf,kern,pad,dil", GEOMETRIES)
def test_every_algorithm_equals_a_direct_convolution(xs, Kf, kern, pad, dil):
    rng = np.random.default_rng(sum(xs) + Kf)
    x = rng.standard_normal(xs).astype(np.float32)
    w = (rng.standard_normal((Kf, xs[3]) + kern) * 0.2).astype(np.float32)
    for act, hb, hr in EPILOGUES:
        b = rng.standard_normal(Kf).astype(np.float32) if hb else None
        ref = direct(x, w, pad, dil, b)
        r = rng.standard_normal(ref.shape).astype(np.float32) if hr else None
        ref = direct(x, w, pad, dil, b, r, act)
        for algo in algos_for(kern, dil):
            got, _ = run_algo(algo, x, w, Kf, kern, pad, dil, act, b, r)
            tol = 1e-4 if algo.startswith("wino") else 2e-5
            np.testing.assert_allclose(got, ref, rtol=tol, atol=tol * max(1.0, float(np.abs(ref).max())),
                                       err_msg=f"{algo} {act} bias={hb} residual={hr}")


@pytest.mark.parametrize("C,kern,stride,pad", [(1, (5, 5), (1, 1), (0, 0)), (1, (3, 3), (2, 2), (1, 1)),
                                               (3, (3, 3), (2, 1), (1, 1)), (4, (1, 1), (2, 2), (0, 0))])
def test_gemm_row_chunks_that_split_samples(C, kern, stride, pad, monkeypatch):
    """Row chunks on the pool that start and end inside a sample (the patches of ``(n, oh)`` rows
    are copied without merging the two axes), strided, one or several input channels."""
    from hybridize.runtime.graph.kernels.conv import gemm
    monkeypatch.setenv("HYBRIDIZE_THREADS", "3")
    monkeypatch.setattr(gemm, "GEMM_PARALLEL_WORK", 1.0)
    rng = np.random.default_rng(C)
    x = rng.standard_normal((2, 9, 8, C)).astype(np.float32)
    w = (rng.standard_normal((5, C) + kern) * 0.2).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    a = types.SimpleNamespace(kernel=kern, stride=stride, pad=pad, dilate=(1, 1), num_filter=5, groups=1,
                              algo="gemm", act=("relu",), has_bias=True, has_res=False, has_pre=False, pre_act=(),
                              pre_fold=False)
    spec = CV.ConvSpec.of(a, x.shape, np.float32)
    fn, scratch = CV.build_conv(a, x.shape, np.float32)
    assert fn.split == "rows"
    bufs = [np.full(s_, np.nan, d) for s_, d in scratch]
    o = np.full((2, spec.OH, spec.OW, 5), np.nan, np.float32)
    fn(x, CV.conv_weight(w, "gemm", 1), o, *bufs, bias=b)
    ref = direct(x, w, pad, (1, 1), b, act=("relu",))[:, ::stride[0], ::stride[1]]
    np.testing.assert_allclose(o, ref, rtol=2e-5, atol=2e-5 * max(1.0, float(np.abs(ref).max())))


@pytest.mark.parametrize("C,kern,stride,pad", [(3, (7, 7), (2, 2), (3, 3)), (4, (1, 1), (2, 2), (0, 0))])
def test_gemm_patches_built_a_piece_at_a_time(C, kern, stride, pad, monkeypatch):
    """A row chunk whose patch matrix would be large builds and multiplies it a few rows at a time
    (pieces that start and end inside a sample) in a buffer of one piece per chunk: the same output."""
    from hybridize.runtime.graph.kernels.conv import gemm
    monkeypatch.setenv("HYBRIDIZE_THREADS", "2")
    monkeypatch.setattr(gemm, "GEMM_PARALLEL_WORK", 1.0)
    rng = np.random.default_rng(C)
    x = rng.standard_normal((2, 13, 11, C)).astype(np.float32)
    w = (rng.standard_normal((5, C) + kern) * 0.2).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    a = types.SimpleNamespace(kernel=kern, stride=stride, pad=pad, dilate=(1, 1), num_filter=5, groups=1,
                              algo="gemm", act=("relu",), has_bias=True, has_res=False, has_pre=False, pre_act=(),
                              pre_fold=False)
    spec = CV.ConvSpec.of(a, x.shape, np.float32)
    results, sizes = [], []
    for piece_bytes in (gemm._COL_PIECE_BYTES, 3 * spec.OW * kern[0] * kern[1] * C * 4):
        monkeypatch.setattr(gemm, "_COL_PIECE_BYTES", piece_bytes)
        fn, scratch = CV.build_conv(a, x.shape, np.float32)
        bufs = [np.full(s_, np.nan, d) for s_, d in scratch]
        o = np.full((2, spec.OH, spec.OW, 5), np.nan, np.float32)
        fn(x, CV.conv_weight(w, "gemm", 1), o, *bufs, bias=b)
        results.append(o)
        sizes.append(sum(int(np.prod(s_)) for s_, _ in scratch))
    assert sizes[1] < sizes[0]
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("algo", ["gemm", "wino", "wino4"])
def test_an_output_that_is_a_channel_slice_of_a_wider_buffer(algo):
    """Kernels write ``out`` only through views that keep its strides (and nothing beside it)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 9, 10, 6)).astype(np.float32)
    w = (rng.standard_normal((5, 6, 3, 3)) * 0.2).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    r = rng.standard_normal((2, 9, 10, 5)).astype(np.float32)
    plain, _ = run_algo(algo, x, w, 5, (3, 3), (1, 1), (1, 1), ("relu",), b, r)
    wide = np.full((2, 9, 10, 12), np.nan, np.float32)
    got, _ = run_algo(algo, x, w, 5, (3, 3), (1, 1), (1, 1), ("relu",), b, r, out=wide[..., 4:9])
    np.testing.assert_array_equal(got, plain)
    assert np.isnan(wide[..., :4]).all() and np.isnan(wide[..., 9:]).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_blas_gemm_accumulates_into_strided_outputs(dtype):
    if not blas.available(dtype):
        pytest.skip("numpy's BLAS is not callable here")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((7, 12)).astype(dtype)[:, 2:9]           # leading dimension 12
    b = rng.standard_normal((7, 5)).astype(dtype)
    big = rng.standard_normal((7, 9)).astype(dtype)
    c = big[:, 3:8]
    before = big.copy()
    blas.gemm(a, b, c, 1.0)
    np.testing.assert_allclose(c, before[:, 3:8] + a @ b, rtol=1e-6 if dtype == np.float64 else 1e-5)
    np.testing.assert_array_equal(big[:, :3], before[:, :3])
    np.testing.assert_array_equal(big[:, 8:], before[:, 8:])
    blas.gemm(a, b, c)                                              # beta = 0: overwrite
    np.testing.assert_allclose(c, a @ b, rtol=1e-6 if dtype == np.float64 else 1e-5)
    with pytest.raises(ValueError):
        blas.gemm(a.T, b[:, :2].T, c[:2, :2])                       # a transposed view: no unit stride


def test_the_wino4_bias_slot_adds_a_constant_to_every_output():
    """A^T's column 1 is all ones: M[b=1, a=1] reaches every output of a tile with weight 1."""
    from hybridize.runtime.graph.kernels.conv import wino4
    Mm = np.zeros(36)
    Mm[wino4._BIAS_SLOT] = 1.0
    np.testing.assert_array_equal(wino4._KA @ Mm, np.ones(16))


@pytest.mark.parametrize("xs,Kf", [((2, 9, 10, 6), 5), ((1, 8, 8, 4), 16), ((3, 7, 7, 8), 40), ((1, 13, 11, 3), 24)])
@pytest.mark.parametrize("algo", ["wino", "wino4"])
def test_winograd_bands_and_split_products_on_the_pool(xs, Kf, algo, monkeypatch):
    """Several bands of tile rows; with more output channels than tiles per band, the products are
    split among the threads instead (transforms still in bands): both equal a direct convolution."""
    from hybridize.runtime.graph.kernels.conv import _winograd
    monkeypatch.setenv("HYBRIDIZE_THREADS", "3")
    monkeypatch.setattr(_winograd, "WINO_BAND_WORK", 1.0)
    a = types.SimpleNamespace(OH=xs[1], OW=xs[2], N=xs[0], C=xs[3], K=Kf)
    tf = (_winograd.Transform(2, np.eye(4), np.ones((2, 4)), "ab") if algo == "wino" else
          _winograd.Transform(4, np.eye(6), np.ones((4, 6)), "ba"))
    TH, TW, bands, split = _winograd.plan(a, tf)
    assert len(bands) > 1 and split == (2 * xs[0] * TW * max(b - a_ for a_, b in bands) < Kf)
    rng = np.random.default_rng(7)
    x = rng.standard_normal(xs).astype(np.float32)
    w = (rng.standard_normal((Kf, xs[3], 3, 3)) * 0.2).astype(np.float32)
    b = rng.standard_normal(Kf).astype(np.float32)
    r = rng.standard_normal(xs[:3] + (Kf,)).astype(np.float32)
    for act, bb, rr in ((("relu",), b, r), (("relu",), b, None), ((), None, None)):
        got, _ = run_algo(algo, x, w, Kf, (3, 3), (1, 1), (1, 1), act, bb, rr)
        ref = direct(x, w, (1, 1), (1, 1), bb, rr, act)
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(ref).max())))


@pytest.mark.parametrize("xs,Kf", [((2, 9, 10, 6), 5), ((3, 7, 7, 8), 40)])
def test_winograd_bands_share_buffer_sets_and_borrow_when_all_are_taken(xs, Kf, monkeypatch):
    """Bands take one of a few buffer sets (one per thread) when they start; a band finding them all
    taken (a pool larger than the thread count the kernel was built for) works in arrays of its own:
    the same output either way."""
    from hybridize.runtime.graph.kernels.conv import _winograd
    monkeypatch.setenv("HYBRIDIZE_THREADS", "3")
    monkeypatch.setattr(_winograd, "WINO_BAND_WORK", 1.0)
    rng = np.random.default_rng(8)
    x = rng.standard_normal(xs).astype(np.float32)
    w = (rng.standard_normal((Kf, xs[3], 3, 3)) * 0.2).astype(np.float32)
    ref = direct(x, w, (1, 1), (1, 1), act=("relu",))
    shared, _ = run_algo("wino4", x, w, Kf, (3, 3), (1, 1), (1, 1), ("relu",), None, None)
    monkeypatch.setattr(_winograd, "slots", lambda s, tf: 1)
    borrowed, _ = run_algo("wino4", x, w, Kf, (3, 3), (1, 1), (1, 1), ("relu",), None, None)
    for got in (shared, borrowed):
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(ref).max())))


@pytest.mark.parametrize("winograd,direct_blas", [(False, True), (False, False), ("f2", True), ("f4", True)])
def test_a_residual_whose_buffer_is_free_is_accumulated_in_place(winograd, direct_blas, monkeypatch):
    """The convolution writes into its residual's buffer when nothing reads it later (gemm: one BLAS
    call with beta = 1, or matmul + add without direct BLAS calls), not when the same tensor is also
    its input (conv(y) + y)."""
    import os

    from hybridize.runtime.graph.kernels.conv import gemm
    monkeypatch.setattr(gemm, "INPLACE_MIN_OUTPUT", 0)
    if not direct_blas:
        monkeypatch.setattr(blas, "_gemm", {})
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from compiler_helpers import check

    from hybridize.runtime import symbol as sym
    x = sym.var("data")
    y = sym.relu(sym.Convolution(x, kernel=(1, 1), num_filter=8, name="a"))
    k = dict(kernel=(1, 1)) if winograd is False else dict(kernel=(3, 3), pad=(1, 1))
    z = sym.relu(sym.Convolution(sym.relu(sym.Convolution(y, num_filter=4, name="b", **k)), num_filter=8,
                                 name="c", **k) + y)                         # y's buffer is free at c
    w = sym.relu(sym.Convolution(z, num_filter=8, name="d", **k) + z)        # z is d's input too
    prog = check(w, {"data": (2, 5, 9, 9)}, options={"winograd": winograd})
    lines = prog.code.splitlines()
    calls = {ln.strip()[len("# _hy_conv '"):-1]: lines[i + 1] for i, ln in enumerate(lines) if "# _hy_conv" in ln}
    assert calls["c"].split("(")[1].split(", ")[2] == "a" and "residual=a)" in calls["c"]     # out is a's buffer
    assert calls["d"].split("(")[1].split(", ")[2] != "c" and "residual=c)" in calls["d"]


def direct_depthwise(x, w, stride, pad, dilate, b=None, r=None, act=()):
    """float64 reference of a depthwise convolution: NHWC input, MXNet (C, 1, KH, KW) weights."""
    N, H, W, C = x.shape
    _, _, kh, kw = w.shape
    (sh, sw), (ph, pw), (dh, dw) = stride, pad, dilate
    xp = np.pad(x.astype(np.float64), ((0, 0), (ph, ph), (pw, pw), (0, 0)))
    OH = (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    OW = (W + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((N, OH, OW, C))
    for i in range(kh):
        for j in range(kw):
            out += xp[:, i * dh:i * dh + sh * (OH - 1) + 1:sh, j * dw:j * dw + sw * (OW - 1) + 1:sw] * w[:, 0, i, j]
    out = out + (0 if b is None else b) + (0 if r is None else r)
    if act == ("relu",):
        out = np.maximum(out, 0)
    elif act and act[0] == "clip":
        out = np.clip(out, act[1], act[2])
    return out


@pytest.mark.parametrize("xs,kern,stride,pad,dil", [
    ((1, 9, 9, 8), (3, 3), (1, 1), (1, 1), (1, 1)),
    ((2, 11, 10, 6), (3, 3), (2, 2), (1, 1), (1, 1)),     # stride phases, two images, odd/even sizes
    ((1, 8, 9, 5), (3, 3), (2, 2), (0, 0), (1, 1)),       # unpadded phases
    ((3, 13, 12, 16), (5, 5), (2, 2), (2, 2), (1, 1)),    # several chunks on the pool
    ((1, 10, 11, 4), (3, 3), (3, 2), (2, 1), (1, 1)),     # uneven strides, pad beyond a phase
    ((1, 7, 7, 4), (1, 1), (2, 2), (0, 0), (1, 1)),       # kernel smaller than the stride
    ((2, 9, 8, 4), (3, 3), (2, 2), (2, 2), (2, 2)),       # dilated: strided views
])
def test_depthwise_equals_a_direct_convolution(xs, kern, stride, pad, dil, monkeypatch):
    """Strided layers read stride phases of the input that each row chunk writes for itself (a
    row shared by two chunks written by both); dilated ones strided views of the padded input."""
    from hybridize.runtime.graph.kernels.conv import dw
    monkeypatch.setattr(dw, "chunks_for", lambda work, rows, min_work=0: min(rows, 3))
    monkeypatch.setattr(dw, "num_threads", lambda: 3)
    rng = np.random.default_rng(sum(xs))
    C = xs[3]
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal((C, 1) + kern).astype(np.float32)
    for act, hb, hr in EPILOGUES:
        b = rng.standard_normal(C).astype(np.float32) if hb else None
        ref = direct_depthwise(x, w, stride, pad, dil, b)
        r = rng.standard_normal(ref.shape).astype(np.float32) if hr else None
        ref = direct_depthwise(x, w, stride, pad, dil, b, r, act)
        a = types.SimpleNamespace(kernel=kern, stride=stride, pad=pad, dilate=dil, num_filter=C, groups=C, algo="dw",
                                  act=act, has_bias=hb, has_res=hr, has_pre=False, pre_act=(), pre_fold=False)
        fn, scratch = CV.build_conv(a, x.shape, np.float32)
        bufs = [np.full(s, np.nan, d) for s, d in scratch]
        wl = CV.conv_weight(w, "dw", C)
        opt = {**({"bias": b} if hb else {}), **({"residual": r} if hr else {})}
        for _ in range(2):                                   # scratch shared with other steps: garbage again
            for buf in bufs:
                buf.fill(np.nan)
            out = np.full(ref.shape, np.nan, np.float32)
            fn(x, wl, out, *bufs, **opt)
            np.testing.assert_allclose(out, ref, rtol=2e-5, atol=2e-5 * max(1.0, float(np.abs(ref).max())),
                                       err_msg=f"{act} bias={hb} residual={hr}")
