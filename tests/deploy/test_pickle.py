"""Pickling, for shipping models to worker processes: ``Symbol`` (as its JSON, like MXNet),
``HybridBlock`` (hybridized or not), ``SymbolBlock``, compiled programs and ``hybridize run``'s
``Model`` unpickle in a *fresh* Python process and give the outputs they gave before.

Nothing generated travels: a hybridized block or a compiled program compiles again on arrival.
"""
from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime import gluon, nd
from hybridize.runtime.gluon import nn
from support import FIXTURES, package_search_path, require_shared

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import pickle_models  # noqa: E402  (a module a fresh process can import too)

MLP = FIXTURES / "models" / "seed_mlp"


def fresh_process_outputs(cases: dict, tmp_path: Path) -> dict:
    """Pickles ``{name: (object, inputs)}``, unpickles it in a new interpreter and returns the
    outputs computed there, ``{name: [arrays]}``."""
    (tmp_path / "cases.pkl").write_bytes(pickle.dumps(cases))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*package_search_path(), str(HERE), os.environ.get("PYTHONPATH", "")]))
    subprocess.run([sys.executable, str(HERE / "pickle_models.py"), str(tmp_path / "cases.pkl"),
                    str(tmp_path / "out.npz")], check=True, env=env, timeout=120)
    out: dict = {}
    with np.load(tmp_path / "out.npz") as z:
        for key in sorted(z.files, key=lambda k: (k.split("/")[0], int(k.split("/")[1]))):
            out.setdefault(key.split("/")[0], []).append(z[key])
    return out


def _handmade_symbol():
    data = mx.sym.var("data")
    conv = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv")
    parts = mx.sym.split(mx.sym.LeakyReLU(conv, act_type="leaky", slope=0.1), num_outputs=2, axis=1, name="parts")
    return mx.sym.Group([parts[1], mx.sym.sum(parts[0], axis=(2, 3), name="total")])


def test_symbol_pickles_as_its_json() -> None:
    s = _handmade_symbol()
    assert s.__getstate__() == {"handle": s.tojson()}
    back = pickle.loads(pickle.dumps(s))
    assert back.tojson() == s.tojson() and back.list_outputs() == s.list_outputs()
    assert back is not s and back.list_arguments() == ["data", "conv_weight", "conv_bias"]


def test_everything_unpickles_in_a_fresh_process_with_equal_outputs(tmp_path) -> None:
    require_shared()
    rng = np.random.default_rng(0)
    cases: dict = {}
    expected: dict = {}

    def add(name: str, obj, inputs: list) -> None:
        expected[name] = pickle_models.call(obj, inputs)
        cases[name] = (obj, inputs)

    # a symbol, run by its graph
    s = _handmade_symbol()
    add("symbol", s, [{"data": rng.standard_normal((2, 3, 5, 5)).astype(np.float32),
                       "conv_weight": rng.standard_normal((4, 3, 3, 3)).astype(np.float32),
                       "conv_bias": rng.standard_normal(4).astype(np.float32)}])

    # user blocks: imperative, then hybridized after compiled calls (the cache must not travel)
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    conv = pickle_models.SmallConvNet()
    conv.initialize(mx.init.Xavier())
    conv(nd.array(x))
    for p in conv.collect_params().values():  # BatchNorm's running statistics are not the defaults
        if p.name.endswith(("running_mean", "running_var")):
            p.set_data(nd.array(rng.uniform(0.5, 1.5, p.shape).astype(np.float32)))
    add("imperative", conv, [x])
    hybrid = pickle_models.SmallConvNet(prefix="hyb_")
    hybrid.initialize(mx.init.Xavier())
    hybrid.hybridize()
    hybrid(nd.array(x))
    assert hybrid._cached_op is not None and hybrid._cached_op.programs
    add("hybridized", hybrid, [x])

    loop = pickle_models.LoopNet()
    loop.initialize()
    loop.hybridize()
    seq, h0 = rng.standard_normal((3, 2, 5)).astype(np.float32), np.zeros((2, 4), np.float32)
    loop(nd.array(seq), nd.array(h0))
    add("foreach", loop, [seq, h0])

    # MXNet's export of the seed MLP, as a SymbolBlock and as hybridize run's Model
    io = np.load(MLP / "io.npz")
    sb = gluon.SymbolBlock.imports(str(MLP / "model-symbol.json"), ["data"], str(MLP / "model-0000.params"))
    sb.hybridize()
    np.testing.assert_allclose(sb(nd.array(io["x"])).asnumpy(), io["y"], rtol=1e-4, atol=1e-5)
    add("symbolblock", sb, [io["x"]])
    from hybridize.runtime.graph.model import Model
    add("model", Model.load(MLP / "model-symbol.json"), [io["x"]])

    # a compiled program (BatchNorm folded, NHWC convolutions, ...) with its parameters bound
    from hybridize.runtime.graph.codegen import compile_graph
    hybrid.export(str(tmp_path / "conv"))
    params = {k.split(":", 1)[1]: v.asnumpy() for k, v in nd.load(str(tmp_path / "conv-0000.params")).items()}
    prog = compile_graph(mx.sym.load(str(tmp_path / "conv-symbol.json")).graph(), input_names=["data"],
                         shapes={"data": x.shape}, params=params)
    add("program", prog, [x])

    got = fresh_process_outputs(cases, tmp_path)
    assert sorted(got) == sorted(expected)
    for name, ys in expected.items():
        assert len(got[name]) == len(ys), name
        for a, b in zip(got[name], ys):
            # a recompiled program may time and pick another convolution algorithm: rounding only
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=name)
    for name in ("symbol", "imperative", "symbolblock", "model"):
        for a, b in zip(got[name], expected[name]):
            np.testing.assert_array_equal(a, b, err_msg=name)


def test_pickling_drops_what_was_compiled_and_keeps_the_block_working() -> None:
    net = nn.HybridSequential()
    net.add(nn.Dense(5, activation="relu"), nn.Dense(2))
    net.initialize()
    net.hybridize()
    x = nd.ones((3, 4))
    y = net(x).asnumpy()
    state = net[0].__getstate__()
    assert state["_cached_op"] is None and state["_fast"] is None and state["_cached_graph"] == ()
    assert net._cached_op is not None  # the live block keeps its cache
    back = pickle.loads(pickle.dumps(net))
    assert back._active and back._cached_op is None
    np.testing.assert_array_equal(back(x).asnumpy(), y)
    assert back._cached_op is not None  # compiled again on its first call
    # the unpickled copy has its own parameters
    back[1].bias.set_data(nd.ones((2,)))
    np.testing.assert_array_equal(net(x).asnumpy(), y)


def test_a_pickled_program_compiles_again_with_its_parameters() -> None:
    from hybridize.runtime.graph.codegen import CompiledProgram, compile_graph

    g = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc").graph()
    w, b = np.arange(12, dtype=np.float32).reshape(3, 4), np.ones(3, np.float32)
    prog = compile_graph(g, input_names=["data"], shapes={"data": (2, 4)}, params={"fc_weight": w, "fc_bias": b})
    back = pickle.loads(pickle.dumps(prog))
    assert isinstance(back, CompiledProgram) and back is not prog
    assert back.input_names == ["data"] and back.output_shapes == [(2, 3)]
    x = np.ones((2, 4), np.float32)
    np.testing.assert_array_equal(back(x)[0], x @ w.T + b)
    unbound = pickle.loads(pickle.dumps(compile_graph(g, input_names=["data"], shapes={"data": (2, 4)})))
    with pytest.raises(mx.base.HybridizeError, match="not bound"):
        unbound(x)
    np.testing.assert_array_equal(unbound.bind_params({"fc_weight": w, "fc_bias": b})(x)[0], x @ w.T + b)


def test_a_pickled_graph_is_its_json() -> None:
    from hybridize.runtime.graph import mxnet_json

    g = _handmade_symbol().graph()
    back = pickle.loads(pickle.dumps(g))
    assert mxnet_json.dumps(back) == mxnet_json.dumps(g)
    assert json.loads(mxnet_json.dumps(back))["heads"] == [[5, 1, 0], [6, 0, 0]]
