"""Fast-path operands (kernels/fastpath.py): same values as the plain numpy calls, other loop shapes."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compiler_helpers import check  # noqa: E402

from hybridize.runtime import symbol as sym
from hybridize.runtime.graph.codegen import compile_graph
from hybridize.runtime.graph.kernels import fastpath


@pytest.mark.parametrize("shape", [(3, 5), (1, 56, 56, 24), (2, 7, 7, 1024)])
def test_relu_and_clip_equal_numpy(shape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    x.flat[::97] = np.nan                       # oneDNN's relu (the default) gives 0 at NaN, np.fmax(x, 0)
    a = x.copy()
    fastpath.relu_(a)
    np.testing.assert_array_equal(a, np.fmax(x, 0))
    a = x.copy()
    fastpath.relu_(a, keep_nan=True)            # the native relu keeps NaN, as np.maximum(x, 0)
    np.testing.assert_array_equal(a, np.maximum(x, 0))
    b = x.copy()
    fastpath.clip_(b, 0.0, 6.0)
    np.testing.assert_array_equal(b, np.minimum(np.maximum(x, 0), 6))
    c = x.copy()
    fastpath.clip_(c, -1.5, 0.25)
    np.testing.assert_array_equal(c, np.minimum(np.maximum(x, np.float32(-1.5)), np.float32(0.25)))


def test_relu_of_a_strided_view_writes_only_the_view():
    x = np.random.default_rng(1).standard_normal((64, 128)).astype(np.float32)
    ref = x.copy()
    ref[:, ::2] = np.maximum(ref[:, ::2], 0)
    fastpath.relu_(x[:, ::2])
    np.testing.assert_array_equal(x, ref)


def test_zeros_views_are_read_only_zeros_of_one_shared_buffer():
    a = fastpath.zeros_like_view((4, 5), np.float32)
    b = fastpath.zeros_like_view((2, 3, 2), np.float32)
    assert a.shape == (4, 5) and not a.any() and not a.flags.writeable
    assert np.shares_memory(a, b)
    with pytest.raises(ValueError):
        a[0, 0] = 1


@pytest.mark.parametrize("K,unit", [(32, 56), (128, 56), (1024, 7), (3, 13), (5000, 4)])
def test_row_tiling_fits_every_chunk_of_whole_units(K, unit):
    t = fastpath.RowTiling(K, unit)
    assert unit % t.r == 0 and t.L == t.r * K
    assert t.L <= max(K, fastpath.ROW_TARGET)
    v = np.arange(K, dtype=np.float32)
    buf = np.zeros((unit * 2, K), np.float32)
    rows = t.rows(buf)
    rows += t.tile(v)
    np.testing.assert_array_equal(buf, np.broadcast_to(v, buf.shape))


def test_tiles_are_recomputed_after_a_new_binding():
    """bind_params may refill a parameter in place: the cached tile must not outlive it."""
    t = fastpath.RowTiling(8, 16)
    v = np.ones(8, np.float32)
    assert t.tile(v)[0] == 1
    v[:] = 2
    fastpath.new_binding()
    assert (t.tile(v) == 2).all()


@pytest.mark.parametrize("num_group", [1, 32])
def test_rebinding_in_place_refilled_parameters_takes_effect(num_group):
    """A convolution's bias (and a depthwise weight) passed straight through to its kernel,
    refilled in place and re-bound: the next call uses the new values."""
    x = sym.var("data")
    y = sym.Activation(sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=32, num_group=num_group, name="c"),
                       act_type="relu")
    g = y.graph()
    rng = np.random.default_rng(0)
    params = {"c_weight": rng.standard_normal((32, 32 // num_group, 3, 3)).astype(np.float32),
              "c_bias": rng.standard_normal(32).astype(np.float32)}
    data = rng.standard_normal((1, 32, 16, 16)).astype(np.float32)
    prog = compile_graph(g, input_names=["data"], shapes={"data": data.shape}, params=params)
    prog(data)
    params["c_bias"][:] += 1.0
    params["c_weight"][:] *= -1.0
    prog.bind_params(params)
    from hybridize.runtime.graph.interpret import evaluate
    np.testing.assert_allclose(prog(data)[0], evaluate(g, {**params, "data": data})[0], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("act", ["relu", "clip"])
def test_big_epilogues_use_the_fast_paths_and_match(act):
    """Shapes above FAST_MIN_SIZE: bias + residual + activation on tiled rows, relu on a zeros view."""
    x = sym.var("data")
    c = sym.Convolution(x, kernel=(1, 1), num_filter=48, name="c")
    r = sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=48, name="r")
    y = c + r
    y = sym.Activation(y, act_type="relu") if act == "relu" else sym.clip(y, a_min=0.0, a_max=0.5)
    check(y, {"data": (2, 16, 20, 20)})
