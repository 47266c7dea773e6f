"""The NHWC kernels the layout pass lowers to, against the registry's reference ops (NCHW)."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compiler_helpers import check  # noqa: E402

from hybridize.runtime import symbol as sym

CONVS = [
    # (in shape, attrs, expected algo)
    ((2, 5, 7, 7), dict(kernel=(1, 1), num_filter=6), "gemm"),
    ((2, 5, 7, 7), dict(kernel=(1, 1), num_filter=6, stride=(2, 2)), "gemm"),
    ((1, 4, 9, 8), dict(kernel=(3, 3), num_filter=6, pad=(1, 1), stride=(2, 2)), "gemm"),
    ((1, 4, 9, 8), dict(kernel=(3, 3), num_filter=6, pad=(2, 2), dilate=(2, 2)), "gemm"),
    ((1, 3, 11, 11), dict(kernel=(7, 7), num_filter=4, pad=(3, 3), stride=(2, 2), no_bias=True), "gemm"),
    ((1, 4, 8, 9), dict(kernel=(1, 7), num_filter=5, pad=(0, 3)), "gemm"),
    ((1, 4, 8, 9), dict(kernel=(3, 1), num_filter=5, pad=(1, 0)), "gemm"),
    ((2, 6, 8, 8), dict(kernel=(3, 3), num_filter=6, num_group=6, pad=(1, 1)), "dw"),
    ((2, 6, 9, 9), dict(kernel=(3, 3), num_filter=6, num_group=6, pad=(1, 1), stride=(2, 2)), "dw"),
    ((1, 6, 8, 8), dict(kernel=(3, 3), num_filter=12, num_group=6, pad=(1, 1)), "group"),
    ((1, 8, 8, 8), dict(kernel=(3, 3), num_filter=4, num_group=2, pad=(1, 1)), "group"),
    ((1, 8, 6, 6), dict(kernel=(1, 1), num_filter=4, num_group=2), "group"),
    ((2, 4, 6, 6), dict(kernel=(3, 3), num_filter=5, pad=(1, 1)), "gemm"),
    ((1, 4, 6, 6), dict(kernel=(2, 2), num_filter=3), "gemm"),
]


@pytest.mark.parametrize("shape,attrs,algo", CONVS)
@pytest.mark.parametrize("act", [None, "relu"])
def test_convolution(shape, attrs, algo, act):
    x = sym.var("data")
    y = sym.Convolution(x, name="c", **attrs)
    if act:
        y = sym.Activation(y, act_type=act)
    prog = check(y, {"data": shape}, options={"winograd": False})
    assert prog.stats["layout"] == {"transposes": 2, f"conv_{algo}": 1, **({"activation": 1} if act else {})}


@pytest.mark.parametrize("hw", [(8, 8), (7, 9), (1, 1), (2, 3)])
def test_winograd_matches(hw):
    x = sym.var("data")
    y = sym.Convolution(x, kernel=(3, 3), num_filter=7, pad=(1, 1), name="c")
    prog = check(y, {"data": (2, 5) + hw}, options={"winograd": True})
    assert prog.stats["layout"]["conv_wino"] == 1


@pytest.mark.parametrize("shape,pad", [((2, 5, 8, 8), 1), ((1, 4, 7, 9), 1), ((3, 6, 13, 5), 1), ((1, 4, 1, 1), 1),
                                       ((2, 3, 9, 9), 0), ((1, 4, 5, 6), 2)])
@pytest.mark.parametrize("act", [None, "relu"])
def test_winograd_f4_matches(shape, pad, act):
    """F(4x4, 3x3): exact and ragged tilings (output not a multiple of 4), any padding, fused epilogue."""
    x = sym.var("data")
    y = sym.Convolution(x, kernel=(3, 3), num_filter=7, pad=(pad, pad), name="c")
    if act:
        y = sym.Activation(y, act_type=act)
    prog = check(y, {"data": shape}, options={"winograd": "f4"})
    assert prog.stats["layout"]["conv_wino4"] == 1


@pytest.mark.parametrize("shape,pad", [((2, 5, 16, 16), 1), ((3, 6, 13, 5), 1), ((2, 4, 10, 11), 0), ((1, 3, 9, 9), 2)])
@pytest.mark.parametrize("algo", ["f4", "f2"])
def test_winograd_in_bands_on_the_pool_matches(shape, pad, algo, monkeypatch):
    """Bands of tile rows run in parallel, each with its own padded rows; ragged bottom/right edges,
    several images, a residual and an activation fused."""
    from hybridize.runtime.graph.kernels.conv import _winograd
    monkeypatch.setenv("HYBRIDIZE_THREADS", "3")
    monkeypatch.setattr(_winograd, "WINO_BAND_WORK", 1.0)
    x = sym.var("data")
    c = sym.Convolution(x, kernel=(3, 3), num_filter=7, pad=(pad, pad), name="c")
    if pad <= 1:         # a same-shaped residual: the 1x1 convolution of the (cropped) input
        r = sym.Convolution(x, kernel=(1, 1), num_filter=7, name="r")
        if pad == 0:
            r = sym.slice(r, begin=(None, None, 1, 1), end=(None, None, shape[2] - 1, shape[3] - 1))
        c = c + r
    y = sym.Activation(c, act_type="relu")
    prog = check(y, {"data": shape}, options={"winograd": algo})
    assert prog.stats["layout"]["conv_wino4" if algo == "f4" else "conv_wino"] == 1 and prog.parallel


def test_winograd_f4_weight_transform_is_exact_for_a_delta_filter():
    """U = G g G^T, then the transforms, reproduce a 3x3 filter that picks one tap."""
    from hybridize.runtime.graph.kernels.conv.wino4 import _W4_AT, _W4_BT, weight
    g = np.zeros((1, 1, 3, 3))
    g[0, 0, 1, 2] = 1.0
    d = np.random.default_rng(0).standard_normal((6, 6))
    u = weight(g)[:, 0, 0].reshape(6, 6).T        # stored as (column b, row a)
    y = _W4_AT @ (u * (_W4_BT @ d @ _W4_BT.T)) @ _W4_AT.T
    np.testing.assert_allclose(y, d[1:5, 2:6], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("shape,num_filter,split", [((1, 256, 7, 7), 512, "columns"), ((2, 64, 30, 30), 64, "rows")])
def test_gemm_splits_rows_or_output_channels(shape, num_filter, split, monkeypatch):
    """Deep layers at small batch (fewer output rows than channels) split the matmul by columns,
    so that no thread re-reads the weights; others by rows. Both give the reference result."""
    monkeypatch.setenv("HYBRIDIZE_THREADS", "2")
    from hybridize.runtime.graph.kernels import conv
    built = []
    real = conv.build_conv
    monkeypatch.setattr(conv, "build_conv", lambda *a: built.append(real(*a)[0]) or real(*a))
    x = sym.var("data")
    y = sym.Convolution(x, kernel=(3, 3), num_filter=num_filter, pad=(1, 1), stride=(2, 2), name="c")
    y = sym.relu(y + 1)
    prog = check(y, {"data": shape}, options={"winograd": False}, rtol=1e-3)
    assert prog.stats["layout"]["conv_gemm"] == 1
    assert built and built[-1].split == split


POOLS = [
    dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max"),
    dict(kernel=(2, 2), stride=(2, 2), pool_type="avg"),
    dict(kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type="avg"),
    dict(kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type="avg", count_include_pad=False),
    dict(kernel=(3, 3), stride=(2, 2), pool_type="max", pooling_convention="full"),
    dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg", pooling_convention="full"),
    dict(kernel=(3, 3), stride=(2, 2), pool_type="avg", pooling_convention="full", count_include_pad=False),
    dict(kernel=(1, 1), global_pool=True, pool_type="avg"),
    dict(kernel=(1, 1), global_pool=True, pool_type="max"),
    dict(kernel=(7, 7), pool_type="avg"),
]


@pytest.mark.parametrize("attrs", POOLS)
@pytest.mark.parametrize("hw", [(7, 7), (8, 10)])
def test_pooling(attrs, hw):
    if attrs.get("kernel") == (7, 7) and hw != (7, 7):
        pytest.skip("kernel larger than the input")
    x = sym.var("data")
    y = sym.Pooling(x, **attrs)
    prog = check(y, {"data": (2, 3) + hw})
    assert prog.stats["layout"]["pool"] == 1


@pytest.mark.parametrize("attrs", [a for a in POOLS if not a.get("global_pool") and a["kernel"] != (7, 7)])
def test_pooling_in_bands_on_the_pool(attrs, monkeypatch):
    """Bands of output rows, each padding its own input rows (overlapping windows, full convention)."""
    from hybridize.runtime.graph.kernels import nhwc
    monkeypatch.setenv("HYBRIDIZE_THREADS", "3")
    monkeypatch.setattr(nhwc, "AFFINE_PARALLEL_WORK", 1.0)
    x = sym.var("data")
    prog = check(sym.Pooling(x, **attrs), {"data": (2, 3, 11, 9)})
    assert prog.stats["layout"]["pool"] == 1 and prog.parallel


def test_dense_batchnorm_and_elementwise():
    x = sym.var("data")
    h = sym.FullyConnected(x, num_hidden=7, name="f1")
    h = sym.BatchNorm(sym.sigmoid(h), name="bn")
    h = sym.tanh(sym.FullyConnected(h, num_hidden=3, flatten=False, name="f2"))
    y = sym.clip(h + h, a_min=-0.5, a_max=0.5)
    prog = check(y, {"data": (4, 2, 3)})
    assert "_hy_dense" in [n.op.name for n in prog.graph.nodes if n.op is not None]


def test_concat_mixed_layouts():
    x = sym.var("data")
    a = sym.Convolution(x, kernel=(1, 1), num_filter=3, name="a")
    y = sym.Concat(a, x, sym.relu(x), dim=1)
    y = sym.Pooling(y, kernel=(2, 2), stride=(2, 2), pool_type="max")
    check(y, {"data": (2, 4, 6, 6)})


# -- algorithm choice ----------------------------------------------------------------------------
def test_3x3_algorithm_is_the_fastest_measured_and_measured_once(monkeypatch):
    from hybridize.runtime.graph.kernels.conv import tune
    monkeypatch.setattr(tune, "_TUNED", {})
    timed = []
    fake = {"gemm": 3.0, "wino": 1.0, "wino4": 2.0}
    monkeypatch.setattr(tune, "time_conv", lambda shape, a, dtype: timed.append(a.algo) or fake[a.algo])
    x = sym.var("data")
    y = sym.Convolution(x, kernel=(3, 3), num_filter=6, pad=(1, 1), name="c")
    y = sym.Convolution(sym.relu(y), kernel=(3, 3), num_filter=6, pad=(1, 1), name="d")   # same shape
    prog = check(y, {"data": (1, 6, 9, 9)})
    assert prog.stats["layout"]["conv_wino"] == 2
    assert sorted(timed) == ["gemm", "wino", "wino4"]        # one timing per candidate, cached


def test_time_conv_runs_every_candidate_kernel():
    import types

    from hybridize.runtime.graph.kernels.conv import tune
    for algo in ("gemm", "wino", "wino4"):
        a = types.SimpleNamespace(kernel=(3, 3), stride=(1, 1), pad=(1, 1), dilate=(1, 1), num_filter=4, groups=1,
                                  algo=algo, act=(), has_bias=True, has_res=False)
        t = tune.time_conv((1, 6, 6, 3), a, np.float32, rounds=1)
        assert np.isfinite(t) and t > 0      # a duration, not a speed claim


def test_without_autotuning_a_fixed_rule_decides(monkeypatch):
    from hybridize.runtime.graph.kernels.conv import tune
    monkeypatch.setenv("HYBRIDIZE_AUTOTUNE", "0")
    monkeypatch.setattr(tune, "time_conv", lambda *a: pytest.fail("timed although autotuning is off"))
    x = sym.var("data")
    y = sym.Convolution(x, kernel=(3, 3), num_filter=32, pad=(1, 1), name="c")
    prog = check(y, {"data": (1, 32, 16, 16)})
    assert prog.stats["layout"]["conv_wino4"] == 1


def test_huge_convolutions_are_not_timed(monkeypatch):
    from hybridize.runtime.graph.kernels.conv import tune
    monkeypatch.setattr(tune, "TUNE_MAX_FLOPS", 1.0)
    attrs = dict(kernel=(3, 3), stride=(1, 1), pad=(1, 1), dilate=(1, 1), num_filter=4, groups=1, act=(),
                 has_bias=True, has_res=False)
    assert tune.tune_conv_algo((1, 8, 8, 4), attrs, np.float32, ("gemm", "wino4")) is None


@pytest.mark.parametrize("act", [None, "relu", "sigmoid"])
def test_big_batchnorm_affine_runs_in_row_chunks(act, monkeypatch):
    """A BatchNorm that cannot be folded (pre-activation) over a big tensor runs on the pool."""
    monkeypatch.setenv("HYBRIDIZE_THREADS", "2")
    x = sym.var("data")
    y = sym.BatchNorm(x, fix_gamma=False, name="bn")
    if act:
        y = sym.Activation(y, act_type=act)
    prog = check(y, {"data": (2, 64, 64, 64)})
    assert prog.parallel and "affine" in prog.code


def test_thread_count_follows_the_affinity_mask_and_the_environment(monkeypatch):
    from hybridize.runtime.graph.kernels import parallel
    monkeypatch.delenv("HYBRIDIZE_THREADS", raising=False)
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    assert parallel.num_threads() == 3
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: set(range(128)), raising=False)
    assert parallel.num_threads() == 16
    monkeypatch.setenv("HYBRIDIZE_THREADS", "5")
    assert parallel.num_threads() == 5


def test_autotuning_stops_when_the_compile_budget_is_spent(monkeypatch):
    """Big inputs with many distinct convolutions: timing is bounded per compile, the rest use the rule."""
    from hybridize.runtime.graph.kernels.conv import tune
    monkeypatch.setattr(tune, "_TUNED", {})
    monkeypatch.setattr(tune, "TUNE_BUDGET_SECONDS", 0.0)
    monkeypatch.setattr(tune, "time_conv", lambda *a: pytest.fail("timed past the budget"))
    x = sym.var("data")
    y = sym.Convolution(x, kernel=(3, 3), num_filter=32, pad=(1, 1), name="c")
    prog = check(y, {"data": (1, 32, 16, 16)})
    assert prog.stats["layout"]["conv_wino4"] == 1           # the fixed rule's choice
    budget = [1e-9]
    attrs = dict(kernel=(3, 3), stride=(1, 1), pad=(1, 1), dilate=(1, 1), num_filter=4, groups=1, act=(),
                 has_bias=True, has_res=False)
    monkeypatch.setattr(tune, "time_conv", lambda *a: 1.0)
    assert tune.tune_conv_algo((1, 8, 8, 4), attrs, np.float32, ("gemm", "wino4"), budget) == "gemm"
    assert budget[0] < 0                                       # spent: the next shape is not timed
    assert tune.tune_conv_algo((1, 9, 9, 4), attrs, np.float32, ("gemm", "wino4"), budget) is None
