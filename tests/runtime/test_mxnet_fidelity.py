"""Behaviours where the runtime differed from MXNet 1.9.1, each checked against values
recorded with real MXNet by ``data/make_fidelity_cases.py`` (``data/fidelity_cases.json/.npz``).

- ``arange`` with an integer dtype truncates ``start`` and ``step`` first; float32 sums in float32.
- ``unravel_index``/``ravel_multi_index`` accept -1 as the leading dimension of ``shape``.
- Shape inference runs backwards through ``transpose`` (and ``sym.ones(shape=(-1, -1))`` is unknown).
- PReLU's gamma may have the data's leading dimensions (``(N, C)``), not only ``(C,)`` or ``(1,)``.
- A fused RNN layer with a deferred input size inside a hybridized ``HybridSequential`` learns it
  (``_rnn_param_concat``'s and ``Reshape``'s reverse shape rules).
- A 224x224-kernel convolution gives the same numbers hybridized and imperative.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime import gluon, nd
from hybridize.runtime.base import ShapeError

DATA = Path(__file__).parent / "data"
CASES = json.loads((DATA / "fidelity_cases.json").read_text())
ARRAYS = np.load(DATA / "fidelity_cases.npz")


# -- arange ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES["arange"], ids=lambda c: "{dtype}-{args}".format(**c))
def test_arange_equals_mxnet(case):
    start, stop, step, repeat = case["args"]
    out = nd.arange(start, stop, step, repeat=repeat, dtype=case["dtype"]).asnumpy()
    ref = ARRAYS[case["key"]]
    assert out.dtype == ref.dtype
    np.testing.assert_array_equal(out, ref)     # bit for bit, float32 included


def test_arange_int32_truncates_start_and_step():
    """MXNet casts start and step to the dtype before stepping: 1, 2, ..., 351 (not 1, 2, 3, 5, ...)."""
    out = nd.arange(1.3, 456.6, 1.3, dtype="int32").asnumpy()
    np.testing.assert_array_equal(out, np.arange(1, 352, dtype=np.int32))


# -- unravel_index / ravel_multi_index ----------------------------------------------------------------
@pytest.mark.parametrize("case", CASES["unravel"], ids=lambda c: str(c["shape"]))
def test_unravel_and_ravel_with_leading_minus_one(case):
    key, shape = case["key"], tuple(case["shape"])
    un = nd.unravel_index(nd.array(ARRAYS[key + "/in"]), shape=shape).asnumpy()
    np.testing.assert_array_equal(un, ARRAYS[key + "/out"])
    back = nd.ravel_multi_index(nd.array(un), shape=shape).asnumpy()
    np.testing.assert_array_equal(back, ARRAYS[key + "/back"])


def test_unravel_index_leading_coordinate_is_not_wrapped():
    """Like MXNet's kernel: the first coordinate is what the others leave (22 in (-1, 4) -> (5, 2))."""
    out = nd.unravel_index(nd.array([5, 7, 22, 3]), shape=(-1, 4)).asnumpy()
    np.testing.assert_array_equal(out, [[1, 1, 5, 0], [1, 3, 2, 3]])
    sym_out = mx.sym.unravel_index(mx.sym.var("a"), shape=(-1, 4)).eval(a=nd.array([22]))[0]
    np.testing.assert_array_equal(sym_out.asnumpy(), [[5], [2]])


# -- transpose: shapes inferred from its output -------------------------------------------------------
@pytest.mark.parametrize("case", CASES["transpose_infer"], ids=lambda c: str(c["unknown"]))
def test_shapes_inferred_backwards_through_transpose(case):
    known = mx.sym.ones(shape=tuple(case["known"]))
    unknown = mx.sym.ones(shape=tuple(case["unknown"]))
    t = mx.sym.transpose(unknown, axes=tuple(case["axes"])) if case["axes"] else mx.sym.transpose(unknown)
    _, out_shapes, _ = (known + t).infer_shape()
    assert list(out_shapes[0]) == case["out"]


def test_unknown_transposed_operand_runs_at_its_inferred_shape():
    out = (mx.sym.ones(shape=(2, 3)) + mx.sym.transpose(mx.sym.zeros(shape=(-1, -1)))).eval()[0]
    np.testing.assert_array_equal(out.asnumpy(), np.ones((2, 3), np.float32))


# -- PReLU gamma shapes -------------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES["prelu"], ids=lambda c: "x{x}-gamma{gamma}".format(**c))
def test_prelu_gamma_shapes_equal_mxnet(case):
    key = case["key"]
    x, g = ARRAYS[key + "/x"], ARRAYS[key + "/gamma"]
    y = nd.LeakyReLU(nd.array(x), nd.array(g), act_type="prelu").asnumpy()
    np.testing.assert_allclose(y, ARRAYS[key + "/y"], rtol=1e-6, atol=1e-7)
    s = mx.sym.LeakyReLU(mx.sym.var("x"), mx.sym.var("gamma"), act_type="prelu")
    arg_shapes, out_shapes, _ = s.infer_shape(x=x.shape, gamma=g.shape)
    assert arg_shapes == [x.shape, g.shape] and out_shapes == [x.shape]


def test_prelu_gamma_that_cannot_broadcast_is_a_shape_error():
    """MXNet: 'Cannot broadcast gamma to data' (gamma only lands on the data's axes 0 and 1)."""
    with pytest.raises(ShapeError, match="cannot broadcast gamma"):
        nd.LeakyReLU(nd.ones((2, 3, 4, 4)), nd.ones((3, 4, 4)), act_type="prelu")


# -- RNN layers with a deferred input size inside a hybridized network -------------------------------
@pytest.mark.parametrize("case", CASES["rnn_deferred"], ids=lambda c: "{mode}-bi{bidirectional}".format(**c))
def test_deferred_rnn_input_size_inside_hybridized_sequential(case):
    layer = {"lstm": gluon.rnn.LSTM, "gru": gluon.rnn.GRU, "rnn_tanh": gluon.rnn.RNN}[case["mode"]]
    net = gluon.nn.HybridSequential()
    net.add(layer(10, bidirectional=case["bidirectional"]), gluon.nn.BatchNorm(axis=2), gluon.nn.Flatten(),
            gluon.nn.Dense(3, activation="relu"))
    net.hybridize()
    net.initialize()
    out = net(nd.ones((2, 3, 6)))
    assert list(out.shape) == case["out"]

    def unprefixed(params):   # block prefixes (lstm0_, dense3_, ...) depend on what was built before
        return {re.sub(r"^[a-z]+\d+_", "", k): tuple(v) for k, v in params.items()}
    ours = unprefixed({k: p.shape for k, p in net.collect_params().items()})
    assert ours == unprefixed(case["params"])


# -- a 224x224 kernel ---------------------------------------------------------------------------------
def test_whole_image_kernel_convolution_hybridized_equals_imperative():
    """Its 150528-term sums are taken in the imperative kernel's order when compiled too (float32 sums
    in another order differed by 1.5e-5); both equal MXNet's recorded output within float32 rounding."""
    crng = np.random.RandomState(224)   # the inputs make_fidelity_cases.py used
    x = crng.uniform(-1, 1, size=(2, 3, 224, 224)).astype(np.float32)
    w = crng.uniform(-0.01, 0.01, size=(8, 3, 224, 224)).astype(np.float32)
    b = crng.uniform(-0.1, 0.1, size=(8,)).astype(np.float32)
    conv = gluon.nn.Conv2D(8, (224, 224), in_channels=3)
    conv.initialize()
    conv.weight.set_data(nd.array(w))
    conv.bias.set_data(nd.array(b))
    y_imp = conv(nd.array(x)).asnumpy()
    conv.hybridize()
    y_hyb = conv(nd.array(x)).asnumpy()
    np.testing.assert_array_equal(y_hyb, y_imp)
    np.testing.assert_allclose(y_imp, ARRAYS["conv224/y_imperative"], rtol=1e-5, atol=1e-5)
    assert CASES["conv224"]["max_abs_imperative_vs_hybrid"] == 0.0     # MXNet: one kernel for both


# -- train mode: BatchNorm, Dropout, autograd flags ---------------------------------------------------
def _bn_scope(scope: str):
    from contextlib import ExitStack
    stack = ExitStack()
    if scope == "record":
        stack.enter_context(mx.autograd.record())
    elif scope == "record_predict":
        stack.enter_context(mx.autograd.record(train_mode=False))
    elif scope == "train_mode":
        stack.enter_context(mx.autograd.train_mode())
    elif scope == "predict_mode_in_record":
        stack.enter_context(mx.autograd.record())
        stack.enter_context(mx.autograd.predict_mode())
    elif scope == "pause_in_record":
        stack.enter_context(mx.autograd.record())
        stack.enter_context(mx.autograd.pause())
    return stack


@pytest.mark.parametrize("case", CASES["batchnorm"], ids=lambda c: c["key"])
def test_batchnorm_forward_in_every_autograd_scope_equals_mxnet(case):
    """Batch statistics (biased variance) whenever ``is_training()``, moving statistics otherwise;
    the forward pass leaves ``running_mean``/``running_var`` as they were: MXNet 1.9.1 updates them
    (``running * momentum + batch * (1 - momentum)``) in BatchNorm's backward pass, which needs
    gradients, imperative and hybridized alike."""
    bn = gluon.nn.BatchNorm(momentum=0.8, in_channels=3, epsilon=1e-5)
    bn.initialize()
    bn.gamma.set_data(nd.array([1.5, 0.5, 2.0]))
    bn.beta.set_data(nd.array([0.1, -0.2, 0.3]))
    bn.running_mean.set_data(nd.array([0.1, 0.2, 0.3]))
    bn.running_var.set_data(nd.array([1.5, 2.0, 3.0]))
    if case["hybrid"]:
        bn.hybridize()
    with _bn_scope(case["scope"]):
        y = bn(nd.array(ARRAYS["bn/x"]))
        flags = [mx.autograd.is_recording(), mx.autograd.is_training()]
    assert flags == case["flags"]
    key = case["key"]
    np.testing.assert_allclose(y.asnumpy(), ARRAYS[key + "/y"], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(bn.running_mean.data().asnumpy(), ARRAYS[key + "/running_mean"])
    np.testing.assert_array_equal(bn.running_var.data().asnumpy(), ARRAYS[key + "/running_var"])


@pytest.mark.parametrize("case", CASES["dropout"], ids=lambda c: "{mode}-{scope}-{h}".format(
    h="hybrid" if c["hybrid"] else "imperative", **c))
def test_dropout_is_active_exactly_where_mxnet_drops(case):
    """mode='training' drops under record()/train_mode() (and pause(train_mode=True)), never under
    record(train_mode=False) or outside; mode='always' drops everywhere; kept values scale by 1/(1-p)."""
    block = gluon.nn.HybridLambda(lambda F, v, mode=case["mode"]: F.Dropout(v, p=0.4, mode=mode))
    if case["hybrid"]:
        block.hybridize()
    ones = nd.ones((200, 50))
    scope = case["scope"]
    if scope == "pause_in_record":
        with mx.autograd.record(), mx.autograd.pause(train_mode=True):
            y = block(ones).asnumpy()
    else:
        with _bn_scope(scope):
            y = block(ones).asnumpy()
    values = sorted(set(np.unique(y).round(6).tolist()))
    np.testing.assert_allclose(values, case["values"], rtol=1e-6)
    if case["zero_fraction"] == 0:
        assert (y == 0).mean() == 0
    else:   # 10000 draws at p = 0.4: a fraction outside [0.37, 0.43] is a 6-sigma event
        assert 0.37 < (y == 0).mean() < 0.43 and 0.37 < case["zero_fraction"] < 0.43


def test_whole_image_kernel_convolution_with_batchnorm_within_mxnet_tolerance():
    """Followed by a BatchNorm, the long sums are not refolded into rescaled weights either: the
    hybridized output stays within MXNet's hybridized-vs-imperative tolerance (rtol 1e-5, atol 1e-6)."""
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Conv2D(16, (224, 224)), gluon.nn.BatchNorm())
    net.initialize(mx.init.Uniform(0.07))
    net[1].gamma.set_data(nd.array(np.linspace(0.3, 3.1, 16)))
    net[1].running_var.set_data(nd.array(np.linspace(0.2, 2.0, 16)))
    x = nd.array(np.random.RandomState(5).uniform(-1, 1, size=(4, 3, 224, 224)).astype(np.float32))
    y_imp = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), y_imp, rtol=1e-5, atol=1e-6)
