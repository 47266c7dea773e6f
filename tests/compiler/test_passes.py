"""Each graph pass on its own: what it rewrites, and that outputs stay those of the reference."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compiler_helpers import check, random_params  # noqa: E402

from hybridize.runtime import symbol as sym
from hybridize.runtime.graph.codegen import compile_graph
from hybridize.runtime.graph.interpret import evaluate
from hybridize.runtime.graph.passes import all_passes


def op_names(prog):
    return [n.op.name for n in prog.graph.nodes if n.op is not None]


def test_pipeline_is_discovered_in_order():
    names = [p.name for p in all_passes()]
    assert names == ["identity", "cse", "constant_fold", "bn_fold", "pool_first", "layout", "fuse", "dce"]


# -- identity ------------------------------------------------------------------------------------
def test_identity_ops_removed_at_inference():
    x = sym.var("data")
    y = sym.Dropout(sym.BlockGrad(sym.identity(x)), p=0.5)
    y = sym.Reshape(y, shape=(4, 6)) * 2.0
    y = sym.transpose(sym.Flatten(y), axes=(0, 1))
    prog = check(y, {"data": (4, 6)}, passes=["identity"])
    assert op_names(prog) == ["_mul_scalar"]
    assert prog.stats["identity"]["removed"] == 6


def test_dropout_kept_in_training_and_always_mode():
    x = sym.var("data")
    prog = compile_graph(sym.Dropout(x, p=0.5).graph(), input_names=["data"], shapes={"data": (4, 6)},
                         passes=["identity"], training=True)
    assert op_names(prog) == ["Dropout"]
    prog = compile_graph(sym.Dropout(x, p=0.5, mode="always").graph(), input_names=["data"],
                         shapes={"data": (4, 6)}, passes=["identity"])
    assert op_names(prog) == ["Dropout"]


def test_real_reshape_and_transpose_stay():
    x = sym.var("data")
    y = sym.transpose(sym.Reshape(x, shape=(6, 4)))
    prog = check(y, {"data": (4, 6)}, passes=["identity"])
    assert op_names(prog) == ["Reshape", "transpose"]


# -- cse -------------------------------------------------------------------------------------------
def test_cse_merges_equal_subexpressions():
    x = sym.var("data")
    w = sym.var("w")
    a = sym.FullyConnected(x, w, num_hidden=3, no_bias=True, name="fa")
    b = sym.FullyConnected(x, w, num_hidden=3, no_bias=True, name="fb")
    c = sym.FullyConnected(x, w, num_hidden=3, no_bias=True, flatten=False, name="fc")
    y = sym.Group([sym.relu(a) + sym.relu(b), c])
    prog = check(y, {"data": (2, 5)}, passes=["cse"])
    assert prog.stats["cse"]["merged"] == 2        # fb, and the second relu
    assert op_names(prog).count("FullyConnected") == 2


def test_cse_leaves_random_ops_alone():
    x = sym.var("data")
    y = sym.Dropout(x, p=0.5) + sym.Dropout(x, p=0.5)
    prog = compile_graph(y.graph(), input_names=["data"], shapes={"data": (3,)}, passes=["cse"], training=True)
    assert op_names(prog).count("Dropout") == 2


# -- constant folding ------------------------------------------------------------------------------
def test_constant_subgraphs_folded():
    x = sym.var("data")
    k = (sym.ones((2, 3)) * 3.0 + 1.0)
    y = x + k
    prog = check(y, {"data": (2, 3)}, passes=["constant_fold"])
    assert op_names(prog) == ["elemwise_add"]
    assert prog.stats["constant_fold"]["folded"] == 3


def test_parameter_subgraphs_recomputed_on_bind():
    x = sym.var("data")
    w = sym.var("w")
    y = x + (w * 2.0 + 1.0)            # folded per bind in the prologue, not at compile time
    prog = compile_graph(y.graph(), input_names=["data"], shapes={"data": (3,)},
                         params={"w": np.zeros(3, np.float32)})
    assert op_names(prog) != [] and "_mul_scalar" in prog.prologue_code
    np.testing.assert_allclose(prog(np.zeros(3, np.float32))[0], [1, 1, 1])
    prog.bind_params({"w": np.ones(3, np.float32)})
    np.testing.assert_allclose(prog(np.zeros(3, np.float32))[0], [3, 3, 3])


# -- batchnorm folding -------------------------------------------------------------------------------
def _conv_bn(no_bias=False, fix_gamma=False, fc=False):
    x = sym.var("data")
    if fc:
        c = sym.FullyConnected(x, num_hidden=5, no_bias=no_bias, name="c")
    else:
        c = sym.Convolution(x, kernel=(3, 3), num_filter=5, pad=(1, 1), no_bias=no_bias, name="c")
    return sym.BatchNorm(c, fix_gamma=fix_gamma, eps=1e-3, name="bn"), c


@pytest.mark.parametrize("no_bias", [False, True])
@pytest.mark.parametrize("fix_gamma", [False, True])
@pytest.mark.parametrize("fc", [False, True])
def test_batchnorm_folded(no_bias, fix_gamma, fc):
    y, _ = _conv_bn(no_bias, fix_gamma, fc)
    prog = check(y, {"data": (2, 3, 6, 6)}, passes=["bn_fold"])
    assert "BatchNorm" not in op_names(prog)
    assert prog.stats["bn_fold"]["folded"] == 1


def test_batchnorm_not_folded_when_input_has_other_users_or_training():
    y, c = _conv_bn()
    g = sym.Group([y, c])
    prog = check(g, {"data": (2, 3, 6, 6)}, passes=["bn_fold"])
    assert "BatchNorm" in op_names(prog)
    params = random_params(y, {"data": (2, 3, 6, 6)})
    prog = compile_graph(y.graph(), input_names=["data"], shapes={"data": (2, 3, 6, 6)}, params=params,
                         passes=["bn_fold"], training=True)
    assert "BatchNorm" in op_names(prog)


def test_rebinding_refolds_batchnorm():
    y, _ = _conv_bn()
    shapes = {"data": (1, 3, 6, 6)}
    x = np.random.default_rng(5).standard_normal(shapes["data"]).astype(np.float32)
    p1, p2 = random_params(y, shapes, 1), random_params(y, shapes, 2)
    prog = compile_graph(y.graph(), input_names=["data"], shapes=shapes, params=p1)
    prog(x)
    prog.bind_params(p2)
    (ref,) = evaluate(y.graph(), {**p2, "data": x})
    np.testing.assert_allclose(prog(x)[0], ref, rtol=1e-4, atol=1e-4)
    prog.bind_params({"bn_gamma": p1["bn_gamma"]}, partial=True)
    (ref,) = evaluate(y.graph(), {**p2, "bn_gamma": p1["bn_gamma"], "data": x})
    np.testing.assert_allclose(prog(x)[0], ref, rtol=1e-4, atol=1e-4)


# -- layout ------------------------------------------------------------------------------------------
def _convnet():
    x = sym.var("data")
    h = sym.Convolution(x, kernel=(3, 3), num_filter=8, pad=(1, 1), name="c1")
    h = sym.Activation(sym.BatchNorm(h, name="bn1"), act_type="relu")
    h = sym.Pooling(h, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max")
    r = h
    h = sym.Convolution(h, kernel=(1, 1), num_filter=8, no_bias=True, name="c2")
    h = sym.clip(sym.BatchNorm(h, name="bn2"), a_min=0.0, a_max=6.0)
    h = sym.Convolution(h, kernel=(3, 3), num_filter=8, num_group=8, pad=(1, 1), name="dw")
    h = sym.relu(h + r)
    h = sym.Concat(h, sym.Convolution(h, kernel=(3, 3), num_filter=4, pad=(1, 1), name="c3"), dim=1)
    h = sym.Pooling(h, kernel=(1, 1), global_pool=True, pool_type="avg")
    return sym.FullyConnected(sym.Flatten(h), num_hidden=3, name="fc")


def test_layout_one_transpose_in_and_none_between_convs():
    prog = check(_convnet(), {"data": (2, 3, 9, 9)}, passes=["bn_fold", "layout"])
    ops = op_names(prog)
    assert ops.count("_hy_layout") == 1              # NHWC once at the input, 1x1 spatial flatten needs none
    assert "Convolution" not in ops and "Pooling" not in ops and "BatchNorm" not in ops
    assert prog.stats["layout"]["conv_dw"] == 1


@pytest.mark.parametrize("winograd", [True, False])
def test_winograd_and_gemm_agree(winograd):
    x = sym.var("data")
    y = sym.Convolution(x, kernel=(3, 3), num_filter=6, pad=(1, 1), name="c")
    y = sym.Convolution(sym.relu(y), kernel=(3, 3), num_filter=5, pad=(1, 1), name="d")
    for hw in (8, 7):
        prog = check(y, {"data": (2, 4, hw, hw)}, options={"winograd": winograd})
        assert prog.stats["layout"].get("conv_wino", 0) == (2 if winograd else 0)


# -- fusion ------------------------------------------------------------------------------------------
def test_bias_residual_activation_fused():
    x = sym.var("data")
    a = sym.BatchNorm(sym.Convolution(x, kernel=(3, 3), num_filter=4, pad=(1, 1), name="a"), name="bna")
    b = sym.BatchNorm(sym.Convolution(x, kernel=(1, 1), num_filter=4, name="b"), name="bnb")
    y = sym.Activation(b + a, act_type="relu")
    prog = check(y, {"data": (2, 3, 6, 6)})
    assert prog.stats["fuse"] == {"residual": 1, "activation": 1, "prologue": 0, "prologue_scale_folded": 0}
    assert op_names(prog).count("_hy_conv") == 2 and "_hy_add" not in op_names(prog)


# -- pool_first --------------------------------------------------------------------------------------
POOL_CASES = [
    # (pool attrs, conv no_bias, moved?)
    (dict(kernel=(2, 2), stride=(2, 2)), False, True),                       # DenseNet's transition
    (dict(kernel=(3, 3), stride=(2, 2), pooling_convention="full"), False, True),   # partial windows
    (dict(kernel=(1, 1), global_pool=True), False, True),
    (dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1)), True, True),             # zero padding, no bias
    (dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), count_include_pad=False), True, True),
    (dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1)), False, False),           # padding would scale the bias
    (dict(kernel=(3, 3), stride=(1, 1), pad=(1, 1)), True, False),            # same size: nothing to win
]


@pytest.mark.parametrize("pool,no_bias,moved", POOL_CASES)
def test_average_pooling_moves_before_a_1x1_convolution(pool, no_bias, moved):
    x = sym.var("data")
    c = sym.Convolution(x, kernel=(1, 1), num_filter=5, no_bias=no_bias, name="c")
    y = sym.Pooling(c, pool_type="avg", name="p", **pool)
    prog = check(y, {"data": (2, 8, 9, 9)})
    assert prog.stats["pool_first"] == {"moved": int(moved)}


def test_pooling_stays_after_a_convolution_read_twice_or_a_max_pool():
    x = sym.var("data")
    c = sym.Convolution(x, kernel=(1, 1), num_filter=5, name="c")
    y = sym.Pooling(c, kernel=(2, 2), stride=(2, 2), pool_type="avg") + sym.Pooling(c, kernel=(2, 2), stride=(2, 2),
                                                                                   pool_type="max")
    prog = check(y, {"data": (1, 4, 8, 8)})
    assert prog.stats["pool_first"] == {"moved": 0}


# -- dce -----------------------------------------------------------------------------------------------
def test_dead_code_removed():
    from hybridize.runtime.graph.ir import Graph
    x = sym.var("data")
    live = sym.relu(x)
    dead = sym.sigmoid(live)
    g = Graph(live.outputs, live.graph().nodes + [dead.outputs[0].node])
    prog = compile_graph(g, input_names=["data"], shapes={"data": (3,)}, passes=["dce"])
    assert op_names(prog) == ["relu"] and prog.stats["dce"]["removed"] == 1


@pytest.mark.parametrize("shape,num_filter", [((2, 8, 5, 5), 6), ((1, 512, 7, 7), 1024), ((1, 128, 40, 40), 128)])
def test_pre_activation_batchnorm_fuses_into_the_next_1x1_convolution(shape, num_filter, monkeypatch):
    """DenseNet's BN -> ReLU -> 1x1 conv: the affine runs per row chunk inside the convolution
    (single-threaded, split by output channels, split by rows)."""
    monkeypatch.setenv("HYBRIDIZE_THREADS", "2")
    x = sym.var("data")
    y = sym.relu(sym.BatchNorm(x, fix_gamma=False, name="bn"))
    y = sym.Convolution(y, kernel=(1, 1), num_filter=num_filter, name="c")
    prog = check(y, {"data": shape}, rtol=1e-4)
    assert prog.stats["fuse"]["prologue"] == 1
    assert "_hy_affine" not in [n.op.name for n in prog.graph.nodes if n.op is not None]


@pytest.mark.parametrize("shape", [(2, 8, 5, 5), (1, 96, 28, 28)])
@pytest.mark.parametrize("no_bias", [False, True])
def test_prologue_scale_folds_into_the_weights_for_any_sign_of_gamma(shape, no_bias):
    """relu(s x + t) @ W == clip(x + t/s, lo, hi) @ (s W): negative, zero and tiny scales (a zero
    scale's constant relu(t) moves into the bias, which a bias-free convolution gains)."""
    C = shape[1]
    x = sym.var("data")
    y = sym.relu(sym.BatchNorm(x, fix_gamma=False, name="bn"))
    y = sym.Convolution(y, kernel=(1, 1), num_filter=6, no_bias=no_bias, name="c")
    g = y.graph()
    rng = np.random.default_rng(3)
    gamma = rng.standard_normal(C).astype(np.float32)
    gamma[::5] = 0.0
    gamma[1::7] = 1e-35
    params = {"bn_gamma": gamma, "bn_beta": rng.standard_normal(C).astype(np.float32),
              "bn_moving_mean": rng.standard_normal(C).astype(np.float32),
              "bn_moving_var": rng.uniform(0.5, 1.5, C).astype(np.float32),
              "c_weight": rng.standard_normal((6, C, 1, 1)).astype(np.float32)}
    if not no_bias:
        params["c_bias"] = rng.standard_normal(6).astype(np.float32)
    data = rng.standard_normal(shape).astype(np.float32)
    prog = compile_graph(g, input_names=["data"], shapes={"data": shape}, params=params)
    assert prog.stats["fuse"]["prologue_scale_folded"] == 1
    (ref,) = evaluate(g, {**params, "data": data})
    np.testing.assert_allclose(prog(data)[0], ref, rtol=1e-4, atol=1e-4 * float(np.abs(ref).max()))
    params["bn_gamma"] = np.abs(gamma) + 0.1               # all positive: the max-only input pass
    prog.bind_params(params)
    (ref,) = evaluate(g, {**params, "data": data})
    np.testing.assert_allclose(prog(data)[0], ref, rtol=1e-4, atol=1e-4 * float(np.abs(ref).max()))


def test_affine_read_twice_is_not_fused():
    x = sym.var("data")
    a = sym.relu(sym.BatchNorm(x, fix_gamma=False, name="bn"))
    y = sym.Convolution(a, kernel=(1, 1), num_filter=4, name="c") + sym.Convolution(a, kernel=(1, 1), num_filter=4,
                                                                                  name="d")
    prog = check(y, {"data": (1, 4, 6, 6)})
    assert prog.stats["fuse"]["prologue"] == 0
