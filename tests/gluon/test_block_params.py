"""Names, parameters, save/load formats, initializers and hybridize() semantics, as MXNet."""
from __future__ import annotations

import json

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime import autograd, init, nd, sym
from hybridize.runtime.gluon import Constant, HybridBlock, Parameter, ParameterDict, nn


def test_prefixes_and_parameter_names():
    with mx.name.NameManager():
        d = nn.Dense(4)
        assert d.name == "dense0" and d.weight.name == "dense0_weight" and d.bias.name == "dense0_bias"
        seq = nn.HybridSequential()
        with seq.name_scope():
            seq.add(nn.Dense(3), nn.Dense(2))
        assert seq.prefix == "hybridsequential0_"
        assert [p for p in seq.collect_params()] == ["hybridsequential0_dense0_weight", "hybridsequential0_dense0_bias",
                                                     "hybridsequential0_dense1_weight", "hybridsequential0_dense1_bias"]
        assert list(seq._collect_params_with_prefix()) == ["0.weight", "0.bias", "1.weight", "1.bias"]
        assert list(seq.collect_params(".*weight")) == ["hybridsequential0_dense0_weight",
                                                        "hybridsequential0_dense1_weight"]
        bn = nn.BatchNorm()
        assert [p for p in bn.params] == ["batchnorm0_gamma", "batchnorm0_beta", "batchnorm0_running_mean",
                                          "batchnorm0_running_var"]
        c = nn.Conv2D(8, 3, prefix="myconv_")
        assert c.weight.name == "myconv_weight" and c.weight.shape == (8, 0, 3, 3)


def test_relu_inside_block_is_named_with_block_prefix():
    class Net(HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.dense = nn.Dense(3)

        def hybrid_forward(self, F, x):
            return F.relu(self.dense(x))
    with mx.name.NameManager():
        net = Net()
        out = net(sym.var("data"))
        assert out.name == "net0_relu0"
        names = [n["name"] for n in json.loads(out.tojson())["nodes"]]
        assert names == ["data", "net0_dense0_weight", "net0_dense0_bias", "net0_dense0_fwd", "net0_relu0"]


def test_parameters_arrive_as_keyword_arguments_and_constants():
    class Scale(HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.w = self.params.get("w", shape=(3,), init=init.One())
                self.c = self.params.get_constant("c", [1.0, 2.0, 3.0])

        def hybrid_forward(self, F, x, w, c):
            return F.broadcast_mul(F.broadcast_add(x, c), w)
    blk = Scale()
    blk.initialize()
    x = nd.array([[1, 1, 1]])
    np.testing.assert_array_equal(blk(x).asnumpy(), [[2, 3, 4]])
    blk.hybridize()
    np.testing.assert_array_equal(blk(x).asnumpy(), [[2, 3, 4]])
    assert isinstance(blk.c, Constant) and blk.c.grad_req == "null"


def test_deferred_initialization_resolved_on_first_call():
    net = nn.HybridSequential()
    net.add(nn.Dense(5), nn.Dense(2))
    net.initialize()
    assert net[0].weight.shape == (5, 0)
    net(nd.ones((3, 7)))
    assert net[0].weight.shape == (5, 7) and net[1].weight.shape == (2, 5)
    assert net[0].bias.data().asnumpy().tolist() == [0.0] * 5      # bias init 'zeros'
    w = net[0].weight.data().asnumpy()
    assert np.all(np.abs(w) <= 0.07) and np.any(w != 0)          # global default Uniform(0.07)


def test_batchnorm_defaults_and_initializer_strings():
    bn = nn.BatchNorm(in_channels=3)
    bn.initialize()
    assert bn.gamma.data().asnumpy().tolist() == [1, 1, 1]
    assert bn.running_var.data().asnumpy().tolist() == [1, 1, 1]
    assert bn.running_mean.data().asnumpy().tolist() == [0, 0, 0]
    assert init.Xavier().dumps() == '["xavier", {"rnd_type": "uniform", "factor_type": "avg", "magnitude": 3}]'
    assert init.Uniform().dumps() == '["uniform", {"scale": 0.07}]'
    assert init.Normal(0.5).dumps() == '["normal", {"sigma": 0.5}]'
    assert init.MSRAPrelu().dumps() == '["msraprelu", {"factor_type": "avg", "slope": 0.25}]'
    assert isinstance(init.create("zeros"), init.Zero) and isinstance(init.create("ones"), init.One)
    assert isinstance(init.create(init.Xavier().dumps()), init.Xavier)
    assert mx.initializer is mx.init


@pytest.mark.parametrize("initializer,check", [
    (init.Zero(), lambda w: np.all(w == 0)),
    (init.One(), lambda w: np.all(w == 1)),
    (init.Constant(0.5), lambda w: np.all(w == 0.5)),
    (init.Uniform(0.2), lambda w: np.all(np.abs(w) <= 0.2) and w.std() > 0),
    (init.Normal(0.1), lambda w: 0.05 < w.std() < 0.2),
    (init.Xavier(), lambda w: np.all(np.abs(w) <= np.sqrt(3 / ((20 + 30) / 2)))),
    (init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2), lambda w: w.std() > 0),
    (init.MSRAPrelu(), lambda w: w.std() > 0),
    (init.Orthogonal(), lambda w: np.allclose((w @ w.T) / 1.414 ** 2, np.eye(20), atol=1e-4)),
    (init.Mixed([".*weight", ".*"], [init.One(), init.Zero()]), lambda w: np.all(w == 1)),
])
def test_initializers(initializer, check):
    d = nn.Dense(20, in_units=30)
    d.initialize(initializer)
    assert check(d.weight.data().asnumpy())


def test_parameter_dict_api(tmp_path):
    pd = ParameterDict("blk_")
    w = pd.get("w", shape=(2, 3))
    assert w.name == "blk_w" and pd.get("w") is w
    pd.get("b", shape=(2,), init="zeros")
    pd.initialize(init=init.One())
    assert pd["blk_w"].data().asnumpy().sum() == 6
    pd.setattr("lr_mult", 0.5)
    assert all(p.lr_mult == 0.5 for p in pd.values())
    pd.setattr("grad_req", "null")
    pd.zero_grad()
    assert pd.list_ctx() == [mx.cpu()]
    path = str(tmp_path / "pd.params")
    pd.save(path, strip_prefix="blk_")
    pd2 = ParameterDict("blk_")
    pd2.get("w", shape=(2, 3))
    pd2.get("b", shape=(2,))
    pd2.load(path, restore_prefix="blk_")
    np.testing.assert_array_equal(pd2["blk_w"].data().asnumpy(), np.ones((2, 3)))
    with pytest.warns(UserWarning, match="already initialized"):
        pd.initialize()
    pd.initialize(init=init.Zero(), force_reinit=True)
    assert pd["blk_w"].data().asnumpy().sum() == 0


def test_parameter_var_annotations():
    p = Parameter("fc_weight", shape=(4, 0), init=init.Xavier(), lr_mult=2.0)
    attrs = json.loads(p.var().tojson())["nodes"][0]["attrs"]
    assert attrs == {"__dtype__": "0", "__init__": init.Xavier().dumps(), "__lr_mult__": "2.0",
                     "__shape__": "(4, 0)", "__storage_type__": "0", "__wd_mult__": "1.0"}


@pytest.mark.parametrize("suffix", [".params", ".npz"])
def test_save_load_parameters_roundtrip(tmp_path, suffix):
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3), nn.BatchNorm(), nn.Dense(2))
    net.initialize(init.Xavier())
    x = nd.array(np.random.default_rng(0).standard_normal((2, 3, 6, 6)).astype(np.float32))
    y = net(x).asnumpy()
    path = str(tmp_path / ("net" + suffix))
    net.save_parameters(path)
    if suffix == ".npz":
        assert sorted(np.load(path).files) == sorted(net._collect_params_with_prefix())
    net2 = nn.HybridSequential()
    net2.add(nn.Conv2D(4, 3), nn.BatchNorm(), nn.Dense(2))
    net2.load_parameters(path)
    np.testing.assert_allclose(net2(x).asnumpy(), y, rtol=1e-6)
    net2.hybridize()
    np.testing.assert_allclose(net2(x).asnumpy(), y, rtol=1e-5, atol=1e-6)


def test_load_parameters_after_hybridize_takes_effect(tmp_path):
    net = nn.HybridSequential()
    net.add(nn.Dense(3, activation="relu"), nn.Dense(2))
    net.initialize()
    x = nd.ones((1, 4))
    net.hybridize()
    y0 = net(x).asnumpy()
    other = nn.HybridSequential()
    other.add(nn.Dense(3, activation="relu"), nn.Dense(2))
    other.initialize(init.Normal(1.0))
    y_other = other(x).asnumpy()
    path = str(tmp_path / "o.params")
    other.save_parameters(path)
    net.load_parameters(path)
    np.testing.assert_allclose(net(x).asnumpy(), y_other, rtol=1e-5)
    assert not np.allclose(y0, y_other)
    net[1].bias.set_data(nd.array([10.0, 20.0]))
    np.testing.assert_allclose(net(x).asnumpy(), y_other - other[1].bias.data().asnumpy() + [10, 20], rtol=1e-5)


def test_hybridized_calls_do_not_run_hybrid_forward_and_new_shapes_do_not_retrace():
    calls = []

    class Net(HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.dense = nn.Dense(3)

        def hybrid_forward(self, F, x):
            calls.append(F.__name__)
            return self.dense(x)
    net = Net()
    net.initialize()
    net.hybridize()
    for _ in range(3):
        net(nd.ones((2, 5)))
    net(nd.ones((4, 5)))
    assert calls == ["hybridize.runtime.symbol"]
    assert len(net._cached_op.programs) == 2
    assert "def " in net.hybridized_code()
    net.hybridize(False)
    net(nd.ones((2, 5)))
    assert calls[-1] == "hybridize.runtime.ndarray"


def test_hybridize_static_flags_and_nested_children_traced_in_parent():
    inner_calls = []

    class Inner(HybridBlock):
        def hybrid_forward(self, F, x):
            inner_calls.append(F.__name__)
            return F.relu(x)
    outer = nn.HybridSequential()
    outer.add(nn.Dense(3), Inner())
    outer.initialize()
    outer.hybridize(static_alloc=True, static_shape=True)
    outer(nd.ones((1, 2)))
    outer(nd.ones((1, 2)))
    assert inner_calls == ["hybridize.runtime.symbol"]
    assert outer[1]._cached_op is None     # traced as part of the parent's graph


def test_hooks_cast_and_multiple_inputs_outputs():
    seen = []

    class Two(HybridBlock):
        def hybrid_forward(self, F, a, b):
            return a + b, a * b
    blk = Two()
    h = blk.register_forward_pre_hook(lambda b, args: seen.append("pre"))
    blk.register_forward_hook(lambda b, args, out: seen.append("post"))
    a, b = nd.array([1.0, 2.0]), nd.array([3.0, 4.0])
    s, p = blk(a, b)
    assert seen == ["pre", "post"]
    h.detach()
    with pytest.warns(UserWarning):
        blk.hybridize()
    s2, p2 = blk(a, b)
    np.testing.assert_array_equal(s2.asnumpy(), [4, 6])
    np.testing.assert_array_equal(p2.asnumpy(), [3, 8])
    assert [n.name for n in blk._cached_graph[0]] == ["data0", "data1"]
    d = nn.Dense(2, in_units=3)
    d.initialize()
    d.cast("float64")
    assert d(nd.ones((1, 3), dtype="float64")).dtype == np.float64


def test_block_and_sequential_repr_and_indexing():
    net = nn.HybridSequential()
    net.add(nn.Dense(3, in_units=2), nn.Dense(1))
    assert isinstance(net[0], nn.Dense) and len(net) == 2
    assert "Dense(2 -> 3, linear)" in repr(net)
    assert isinstance(net[:1], nn.HybridSequential)


def test_summary_runs(capsys):
    net = nn.HybridSequential()
    net.add(nn.Dense(3), nn.Dense(1))
    net.initialize()
    net.summary(nd.ones((2, 4)))
    out = capsys.readouterr().out
    assert "Dense-1" in out and "Total params: 19" in out


def test_infer_shape_and_infer_type():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3), nn.Dense(2))
    net.infer_shape(nd.ones((1, 3, 5, 5)))
    assert net[0].weight.shape == (4, 3, 3, 3) and net[1].weight.shape == (2, 36)


def test_dropout_training_mode_under_autograd_record():
    d = nn.Dropout(0.5)
    x = nd.ones((100, 100))
    with autograd.record():
        y = d(x).asnumpy()
    assert 0.3 < (y == 0).mean() < 0.7
    np.testing.assert_array_equal(d(x).asnumpy(), x.asnumpy())


@pytest.mark.parametrize("np_mode", [False, True])
def test_inplace_parameter_writes_take_effect_after_hybridize(np_mode):
    """``p.data()`` is the parameter's own storage and of the exact class MXNet returns (NDArray, or
    mx.np.ndarray in np mode): writes into it (``[:] =``, ``+=``, ``copyto``) reach the compiled program."""
    from hybridize.runtime import npx
    if np_mode:
        npx.set_np()
    try:
        net = nn.HybridSequential()
        net.add(nn.Conv2D(2, 1, in_channels=1), nn.Flatten(), nn.Dense(2, in_units=2))
        net.initialize(init.Normal(1.0))
        x = nd.ones((1, 1, 1, 1))
        if np_mode:
            x = x.as_np_ndarray()
        net.hybridize()
        net(x)
        cls = mx.np.ndarray if np_mode else nd.NDArray
        assert all(type(p.data()) is cls and type(p.grad()) is cls for p in net.collect_params().values())
        net[2].weight.data()[:] = 0
        np.testing.assert_allclose(net(x).asnumpy(), [[0.0, 0.0]])
        b = net[2].bias.data()
        b += 1.5
        np.testing.assert_allclose(net(x).asnumpy(), [[1.5, 1.5]])
        (net[2].weight.data() * 0 + 1).copyto(net[2].weight.data())
        net[0].weight.data()[:] = 0
        net[0].bias.data()[:] = 2
        np.testing.assert_allclose(net(x).asnumpy(), [[5.5, 5.5]])
    finally:
        npx.reset_np()


def test_symbolblock_feature_extraction_shares_parameters():
    from hybridize.runtime.gluon import SymbolBlock
    net = nn.HybridSequential(prefix="model_")
    with net.name_scope():
        net.add(nn.Dense(8, activation="relu"), nn.Dense(4, activation="relu"), nn.Dense(2))
    net.initialize()
    x = nd.array(np.random.default_rng(3).standard_normal((3, 5)).astype(np.float32))
    net(x)
    inputs = sym.var("data")
    internals = net(inputs).get_internals()
    outputs = [internals["model_dense0_relu_fwd_output"], internals["model_dense1_relu_fwd_output"]]
    feat = SymbolBlock(outputs, inputs, params=net.collect_params())
    h = np.maximum(x.asnumpy() @ net[0].weight.data().asnumpy().T + net[0].bias.data().asnumpy(), 0)
    a, b = feat(x)
    np.testing.assert_allclose(a.asnumpy(), h, rtol=1e-6)
    assert b.shape == (3, 4)
    feat.hybridize()
    np.testing.assert_allclose(feat(x)[0].asnumpy(), h, rtol=1e-5, atol=1e-6)
    net[0].bias.set_data(nd.ones((8,)))    # shared: the feature extractor sees the change
    expected = np.maximum(x.asnumpy() @ net[0].weight.data().asnumpy().T + 1, 0)
    np.testing.assert_allclose(feat(x)[0].asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_block_save_and_load_model_structure(tmp_path):
    net = nn.HybridSequential()
    net.add(nn.Dense(3, activation="relu"), nn.Dense(2))
    net.initialize(init.Normal(1.0))
    x = nd.ones((1, 4))
    net.hybridize()
    y = net(x).asnumpy()
    net.save(str(tmp_path / "blk"))
    assert (tmp_path / "blk-model.json").is_file() and (tmp_path / "blk-model.params").is_file()
    other = nn.HybridSequential()
    other.add(nn.Dense(3, activation="relu"), nn.Dense(2))
    other.load(str(tmp_path / "blk"))
    assert other._active
    np.testing.assert_allclose(other(x).asnumpy(), y, rtol=1e-6)
