"""The seed chapter's programs on our Gluon, checked against real MXNet 1.9.1's fixtures."""
from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest
from click.testing import CliRunner

from support import FIXTURES, require_shared

import hybridize.runtime as mx
from hybridize.runtime import nd, sym
from hybridize.runtime.gluon import SymbolBlock, nn

MODELS = FIXTURES / "models"


class PrintingHybridNet(nn.HybridBlock):
    """The chapter's HybridNet, with its three prints."""

    def __init__(self, **kwargs):
        super(PrintingHybridNet, self).__init__(**kwargs)
        self.hidden = nn.Dense(10)
        self.output = nn.Dense(2)

    def hybrid_forward(self, F, x):
        print('F: ', F)
        print('x: ', x)
        x = F.relu(self.hidden(x))
        print('hidden: ', x)
        return self.output(x)


class HybridNet(nn.HybridBlock):
    """The HybridNet of the fixtures (generate.py: the chapter's, without its prints)."""

    def __init__(self, **kwargs):
        super(HybridNet, self).__init__(**kwargs)
        self.hidden = nn.Dense(10)
        self.output = nn.Dense(2)

    def hybrid_forward(self, F, x):
        x = F.relu(self.hidden(x))
        return self.output(x)


def seed_mlp():
    net = nn.HybridSequential()
    net.add(nn.Dense(256, activation='relu'), nn.Dense(128, activation='relu'), nn.Dense(2))
    return net


def _recipe():
    spec = importlib.util.spec_from_file_location("params_recipe", FIXTURES / "params_recipe.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.recipe


def test_hybridnet_prints_every_imperative_call_and_only_first_hybridized(capsys):
    net = PrintingHybridNet()
    net.initialize()
    x = nd.array(np.random.default_rng(0).standard_normal((1, 4)).astype(np.float32))
    y1 = net(x)
    out = capsys.readouterr().out
    assert "F:  <module 'hybridize.runtime.ndarray'" in out and "NDArray 1x4" in out and "NDArray 1x10" in out
    y2 = net(x)
    assert capsys.readouterr().out == out  # prints again, the same
    net.hybridize()
    y3 = net(x)
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("F:  <module 'hybridize.runtime.symbol'")
    assert lines[1] == "x:  <Symbol data>"
    assert lines[2] == f"hidden:  <Symbol {net.name}_relu0>"
    y4 = net(x)
    y5 = net(x)
    assert capsys.readouterr().out == ""
    np.testing.assert_array_equal(y2.asnumpy(), y1.asnumpy())
    for y in (y3, y4, y5):  # the compiled program may sum in another order: equal to float32 rounding
        np.testing.assert_allclose(y.asnumpy(), y1.asnumpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(y4.asnumpy(), y3.asnumpy())


def test_imperative_calls_print_each_time(capsys):
    net = PrintingHybridNet()
    net.initialize()
    x = nd.ones((1, 4))
    net(x)
    first = capsys.readouterr().out
    net(x)
    assert capsys.readouterr().out == first
    assert first.count("F: ") == 1


@pytest.mark.parametrize("hybridize", [False, True])
def test_seed_hybridnet_fixture_params_reproduce_mxnet(hybridize):
    require_shared()
    io = np.load(MODELS / "seed_hybridnet" / "io.npz")
    net = HybridNet()
    net.load_parameters(str(MODELS / "seed_hybridnet" / "model.params"))
    if hybridize:
        net.hybridize()
    y = net(nd.array(io["x"])).asnumpy()
    np.testing.assert_allclose(y, io["y"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(y, io["y_imperative"], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("hybridize", [False, True])
def test_seed_mlp_fixture_params_reproduce_mxnet(hybridize):
    require_shared()
    io = np.load(MODELS / "seed_mlp" / "io.npz")
    net = seed_mlp()
    net.load_parameters(str(MODELS / "seed_mlp" / "model.params"))
    if hybridize:
        net.hybridize()
    np.testing.assert_allclose(net(nd.array(io["x"])).asnumpy(), io["y"], rtol=1e-4, atol=1e-5)


def _build_like_generate(tmp_path):
    """What generate.py did, in a fresh naming scope: seed_mlp first (dense0..2), then HybridNet."""
    recipe = _recipe()
    nets = {}
    with mx.name.NameManager():
        for name, build in (("seed_mlp", seed_mlp), ("seed_hybridnet", HybridNet)):
            io = np.load(MODELS / name / "io.npz")
            net = build()
            net.initialize()
            x = nd.array(io["x"])
            net(x)  # finishes deferred shape inference
            for sname, p in net._collect_params_with_prefix().items():
                p.set_data(nd.array(recipe(sname, p.shape)))
            y_imp = net(x).asnumpy()
            net.hybridize()
            y = net(x).asnumpy()
            prefix = str(tmp_path / name / "model")
            (tmp_path / name).mkdir()
            net.export(prefix)
            nets[name] = (net, prefix, y_imp, y, io)
    return nets


def _op_nodes(doc):
    return [(n["op"], n["name"], n.get("attrs", {}), n["inputs"]) for n in doc["nodes"] if n["op"] != "null"]


def test_export_matches_mxnet_symbol_json(tmp_path):
    require_shared()
    nets = _build_like_generate(tmp_path)
    for name, (net, prefix, y_imp, y, io) in nets.items():
        ours = json.loads(open(prefix + "-symbol.json").read())
        theirs = json.loads((MODELS / name / "model-symbol.json").read_text())
        assert _op_nodes(ours) == _op_nodes(theirs), name
        assert [n["name"] for n in ours["nodes"]] == [n["name"] for n in theirs["nodes"]]
        assert ours["arg_nodes"] == theirs["arg_nodes"] and ours["heads"] == theirs["heads"]
        # variables carry MXNet's annotations too (deferred shapes such as "(10, 0)" included)
        assert ours == theirs, name
        np.testing.assert_allclose(y, io["y"], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(y_imp, io["y_imperative"], rtol=1e-4, atol=1e-5)
        # byte for byte: what MXNet's export and save_parameters wrote
        assert open(prefix + "-symbol.json", "rb").read() == (MODELS / name / "model-symbol.json").read_bytes()
        assert open(prefix + "-0000.params", "rb").read() == (MODELS / name / "model-0000.params").read_bytes()
        net.save_parameters(prefix + ".params")
        assert open(prefix + ".params", "rb").read() == (MODELS / name / "model.params").read_bytes()
        # the exported parameters equal MXNet's export file
        ours_p = nd.load(prefix + "-0000.params")
        theirs_p = nd.load(str(MODELS / name / "model-0000.params"))
        assert list(ours_p) == list(theirs_p)
        for k in theirs_p:
            np.testing.assert_array_equal(ours_p[k].asnumpy(), theirs_p[k].asnumpy())


def test_export_runs_with_hybridize_run_and_symbolblock(tmp_path):
    require_shared()
    from hybridize.runtime.run_cli import run
    nets = _build_like_generate(tmp_path)
    net, prefix, _, y, io = nets["seed_hybridnet"]
    np.save(tmp_path / "x.npy", io["x"])
    res = CliRunner().invoke(run, [prefix + "-symbol.json", "--input", f"data={tmp_path / 'x.npy'}",
                                   "--output", str(tmp_path / "out.npz")])
    assert res.exit_code == 0, res.output
    np.testing.assert_allclose(np.load(tmp_path / "out.npz")["out0"], io["y"], rtol=1e-4, atol=1e-5)
    blk = SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
    np.testing.assert_allclose(blk(nd.array(io["x"])).asnumpy(), io["y"], rtol=1e-4, atol=1e-5)
    blk.hybridize()
    np.testing.assert_allclose(blk(nd.array(io["x"])).asnumpy(), io["y"], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["seed_mlp", "seed_hybridnet", "mobilenet0.25", "mobilenetv2_0.25"])
def test_symbolblock_imports_fixture(name):
    require_shared()
    d = MODELS / name
    io = np.load(d / "io.npz")
    blk = SymbolBlock.imports(str(d / "model-symbol.json"), ["data"], str(d / "model-0000.params"))
    y = blk(nd.array(io["x"]))
    tol = 1e-4 * max(1.0, float(np.abs(io["y"]).max()))
    np.testing.assert_allclose(y.asnumpy(), io["y"], rtol=1e-3, atol=tol)
    # a symbol input composes the imported graph
    out = blk(sym.var("data"))
    assert isinstance(out, sym.Symbol)


@pytest.mark.parametrize("name", ["seed_mlp", "mobilenet0.25"])
def test_symbolblock_reexport_is_byte_identical(tmp_path, name):
    require_shared()
    d = MODELS / name
    blk = SymbolBlock.imports(str(d / "model-symbol.json"), ["data"], str(d / "model-0000.params"))
    blk.hybridize()
    blk(nd.array(np.load(d / "io.npz")["x"]))
    blk.export(str(tmp_path / "re"))
    assert (tmp_path / "re-symbol.json").read_bytes() == (d / "model-symbol.json").read_bytes()
    assert (tmp_path / "re-0000.params").read_bytes() == (d / "model-0000.params").read_bytes()


def test_symbolblock_multiple_outputs_give_a_list():
    data = sym.var("data")
    a = sym.relu(data)
    b = sym.sigmoid(data)
    blk = SymbolBlock([a, b], [data])
    x = nd.array(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    ya, yb = blk(x)
    np.testing.assert_allclose(ya.asnumpy(), np.maximum(x.asnumpy(), 0))
    np.testing.assert_allclose(yb.asnumpy(), 1 / (1 + np.exp(-x.asnumpy())), rtol=1e-6)


def test_symbol_input_returns_symbol_after_hybridize():
    net = seed_mlp()
    net.initialize()
    x = nd.ones((1, 512))
    net(x)
    net.hybridize()
    net(x)
    out = net(sym.var("data"))
    assert isinstance(out, sym.Symbol)
    assert out.name == net[2].name + "_fwd"
