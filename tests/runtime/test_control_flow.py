"""``F.contrib.foreach`` / ``while_loop`` / ``cond`` in hybridized blocks: MXNet's ``_foreach``,
``_while_loop`` and ``_cond`` subgraph operators.

The fixtures in ``data/control_flow/`` were made by real MXNet 1.9.1 (``make_foreach_case.py``,
``make_control_flow_cases.py``): hybridized blocks whose bodies read a child block's parameters,
a parameter of their own and values computed outside; MXNet's exported JSON, params and outputs.
"""
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime.attribute import AttrScope
from hybridize.runtime.gluon import nn
from hybridize.runtime.graph import mxnet_json
from hybridize.runtime.graph import params as P
from hybridize.runtime.graph.codegen import compile_graph
from hybridize.runtime.graph.interpret import evaluate

DATA = Path(__file__).parent / "data" / "control_flow"


def _io():
    return np.load(DATA / "foreach-io.npz")


def _params():
    return {k.split(":", 1)[1]: v for k, v in P.load(DATA / "foreach-0000.params").items()}


class Net(nn.HybridBlock):
    """The block of make_foreach_case.py, line for line."""

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.dense = nn.Dense(4, flatten=False)
            self.extra_bias = self.params.get("extra_bias", shape=(4,), init=mx.init.Normal(0.5))

    def hybrid_forward(self, F, x, h, c, extra_bias):
        outer = F.relu(c) * 0.5                  # computed outside, read inside: a cut input
        def step(data, states):
            h_prev, n = states
            s = F.tanh(F.broadcast_add(self.dense(data) + h_prev + outer, extra_bias))
            return [s * 2, F.broadcast_add(s, n)], [s, n + 1]
        outs, states = F.contrib.foreach(step, x, [h, F.zeros((1,))])
        return outs[0], outs[1], states[0], states[1]


def test_mxnet_exported_foreach_model_runs_in_every_executor_and_round_trips():
    io, params = _io(), _params()
    text = (DATA / "foreach-symbol.json").read_text()
    g = mxnet_json.loads(text)
    values = {**params, "data0": io["x"], "data1": io["h"], "data2": io["c"]}
    prog = compile_graph(g, input_names=["data0", "data1", "data2"],
                         shapes={"data0": io["x"].shape, "data1": io["h"].shape, "data2": io["c"].shape},
                         params=params)
    for ys in (evaluate(g, values), prog(io["x"], io["h"], io["c"])):
        assert len(ys) == 4
        for i, y in enumerate(ys):
            np.testing.assert_allclose(y, io[f"y{i}"], rtol=1e-5, atol=1e-6)
    assert mxnet_json.dumps(g) == text          # the subgraph written back byte for byte


def test_hybridized_foreach_matches_mxnet_and_exports_mxnets_json(tmp_path, monkeypatch):
    monkeypatch.setattr(AttrScope, "_subgraph_names", defaultdict(int))   # "foreach0", as a fresh MXNet
    io, params = _io(), _params()
    net = Net(prefix="fe_")
    net.initialize()
    net.hybridize()
    x, h, c = (mx.nd.array(io[k]) for k in "xhc")
    net(x, h, c)                                  # deferred parameter shapes, inferred through the body
    for name, p in net.collect_params().items():
        p.set_data(mx.nd.array(params[name]))
    ys = net(x, h, c)
    for i, y in enumerate(ys):
        np.testing.assert_allclose(y.asnumpy(), io[f"y{i}"], rtol=1e-5, atol=1e-6)
    net.export(str(tmp_path / "ours"))
    assert (tmp_path / "ours-symbol.json").read_text() == (DATA / "foreach-symbol.json").read_text()


class Nested(nn.HybridBlock):
    def hybrid_forward(self, F, a, b, s0, s1):
        def step(data, states):
            x, y = data
            p, q = states
            p2 = p + x * y
            q2 = F.maximum(q, x)
            return [[p2, q2], p2 * 2], [p2, q2]
        outs, states = F.contrib.foreach(step, [a, b], [s0, s1])
        return outs[0][0], outs[0][1], outs[1], states[0], states[1]


def test_nested_data_and_states_give_the_imperative_results():
    rng = np.random.default_rng(0)
    args = [mx.nd.array(rng.standard_normal(s).astype(np.float32)) for s in [(6, 3), (6, 3), (3,), (3,)]]
    net = Nested()
    net.initialize()
    imperative = [y.asnumpy() for y in net(*args)]
    net.hybridize()
    hybridized = [y.asnumpy() for y in net(*args)]
    assert [y.shape for y in hybridized] == [(6, 3), (6, 3), (6, 3), (3,), (3,)]
    for a, b in zip(imperative, hybridized):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    ops = [n.op.name for n in mxnet_json.loads(net._cached_graph[1].tojson()).nodes if n.op is not None]
    assert ops == ["_foreach"]


def test_a_body_that_ignores_its_data_is_refused_as_mxnet_does():
    x = mx.sym.var("x")
    with pytest.raises(ValueError, match="have to be used in the loop body"):
        mx.sym.contrib.foreach(lambda d, s: ([s[0] * 2], [s[0]]), x, [mx.sym.var("s")])


def test_dynamic_unroll_of_gluon_contrib_rnn_hybridizes():
    """MXNet's own dynamic_unroll (gluon/contrib/rnn/rnn_cell.py, in the corpus) loops with foreach."""
    from hybridize.runtime.gluon import rnn
    from hybridize.runtime.gluon.contrib.rnn.rnn_cell import dynamic_unroll

    class Unroll(nn.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.cell = rnn.GRUCell(5, input_size=3)

        def hybrid_forward(self, F, x, h, valid_length):
            out, states = dynamic_unroll(self.cell, x, [h], valid_length=valid_length, layout="TNC")
            return out, states[0]

    rng = np.random.default_rng(1)
    x = mx.nd.array(rng.standard_normal((4, 2, 3)).astype(np.float32))
    h = mx.nd.zeros((2, 5))
    vl = mx.nd.array(np.array([4, 2], np.float32))
    net = Unroll()
    net.initialize(mx.init.Normal(0.5))
    imperative = [y.asnumpy() for y in net(x, h, vl)]
    net.hybridize()
    hybridized = [y.asnumpy() for y in net(x, h, vl)]
    for a, b in zip(imperative, hybridized):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert not hybridized[0][2:, 1].any()            # masked beyond the valid length


def test_a_foreach_node_without_its_subgraph_is_a_one_line_load_error(tmp_path):
    import json

    from hybridize.runtime.graph.mxnet_json import LoadError

    doc = json.loads((DATA / "foreach-symbol.json").read_text())
    node = next(n for n in doc["nodes"] if n["op"] == "_foreach")
    del node["subgraphs"]
    with pytest.raises(LoadError, match="'fe__foreach0': _foreach needs 1 subgraph"):
        mxnet_json.loads(json.dumps(doc))
    node["subgraphs"] = [{"nodes": [], "heads": [], "arg_nodes": []}]
    with pytest.raises(LoadError):
        mxnet_json.loads(json.dumps(doc))


class Loop(nn.HybridBlock):
    """The while_loop block of make_control_flow_cases.py."""

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.dense = nn.Dense(3, in_units=3, flatten=False)

    def hybrid_forward(self, F, x, limit):
        scale = F.sigmoid(limit)
        def cond(i, s):
            return F.broadcast_lesser(i, limit).sum() > 0
        def func(i, s):
            s2 = F.broadcast_mul(F.tanh(self.dense(s)), scale)
            return [s2, s2.sum(axis=1)], [i + 1, s2]
        outs, (i, s) = F.contrib.while_loop(cond, func, [F.zeros((1,)), x], max_iterations=6)
        return outs[0], outs[1], i, s


class Branch(nn.HybridBlock):
    """The cond block of make_control_flow_cases.py."""

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.dense = nn.Dense(3, in_units=3, flatten=False)

    def hybrid_forward(self, F, x, p):
        y = F.relu(x)
        out = F.contrib.cond(p.sum() > 0, lambda: [self.dense(y) * 2, y + 1], lambda: [F.tanh(x) - y, x * 3])
        return out[0], out[1]


CASES = [("while_loop", Loop, "wl_", "loop", [("a", "limit"), ("b", "limit")]),
         ("cond", Branch, "cd_", "cond", [("then", "p"), ("else", "p")])]


def _expected(io, kind, pre, ys):
    """MXNet's outputs; a while_loop's rows past its last step are undefined (compared up to it)."""
    out = []
    for i, y in enumerate(ys):
        ref = io[f"{pre}_y{i}"]
        if kind == "while_loop" and i < 2:
            steps = int(io[f"{pre}_y2"][0])
            y, ref = y[:steps], ref[:steps]
        out.append((y, ref))
    return out


@pytest.mark.parametrize("kind,block,prefix,tag,runs", CASES)
def test_mxnet_exported_while_loop_and_cond_run_and_round_trip(kind, block, prefix, tag, runs):
    io = np.load(DATA / "control-flow-io.npz")
    params = {k.split(":", 1)[1]: v for k, v in P.load(DATA / f"{kind}-0000.params").items()}
    text = (DATA / f"{kind}-symbol.json").read_text()
    g = mxnet_json.loads(text)
    assert mxnet_json.dumps(g) == text
    prog = compile_graph(g, input_names=["data0", "data1"], shapes={"data0": io["x"].shape, "data1": (1,)},
                         params=params)
    for run, key in runs:
        pre = f"{tag}_{run}"
        second = io[f"{pre}_{key}"]
        for ys in (evaluate(g, {**params, "data0": io["x"], "data1": second}), prog(io["x"], second)):
            for y, ref in _expected(io, kind, pre, [np.asarray(y) for y in ys]):
                np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind,block,prefix,tag,runs", CASES)
def test_hybridized_while_loop_and_cond_match_mxnet_and_export_its_json(kind, block, prefix, tag, runs, tmp_path,
                                                                       monkeypatch):
    monkeypatch.setattr(AttrScope, "_subgraph_names", defaultdict(int))
    io = np.load(DATA / "control-flow-io.npz")
    params = {k.split(":", 1)[1]: v for k, v in P.load(DATA / f"{kind}-0000.params").items()}
    net = block(prefix=prefix)
    net.initialize()
    net.hybridize()
    for name, p in net.collect_params().items():
        p.set_data(mx.nd.array(params[name]))
    for run, key in runs:
        pre = f"{tag}_{run}"
        ys = net(mx.nd.array(io["x"]), mx.nd.array(io[f"{pre}_{key}"]))
        for y, ref in _expected(io, kind, pre, [y.asnumpy() for y in ys]):
            np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)
    net.export(str(tmp_path / kind))
    assert (tmp_path / f"{kind}-symbol.json").read_text() == (DATA / f"{kind}-symbol.json").read_text()


class _NestedForeach(nn.HybridBlock):
    def hybrid_forward(self, F, x, s):
        def outer(row, st):
            o, st2 = F.contrib.foreach(lambda v, st3: (v * 2, [st3[0] + v]), row, [st[0]])
            return o.sum(axis=0), st2
        return F.contrib.foreach(outer, x, [s])


class _OnlyStates(nn.HybridBlock):
    def hybrid_forward(self, F, x, s):
        return F.contrib.foreach(lambda d, st: ([], [st[0] + d]), x, [s])[1][0]


class _ForeachInWhile(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        def func(i, acc):
            o, st = F.contrib.foreach(lambda d, s: (F.broadcast_add(d, i), [s[0] + d]), x, [F.zeros_like(acc)])
            return [o.sum()], [i + 1, acc + st[0]]
        outs, (i, acc) = F.contrib.while_loop(lambda i, acc: (i < 3).sum() > 0, func,
                                              [F.zeros((1,)), F.zeros((4,))], max_iterations=5)
        return F.slice_axis(outs[0], axis=0, begin=0, end=3), i, acc     # rows past the last step: undefined


class _CondInForeach(nn.HybridBlock):
    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.d = nn.Dense(4, in_units=4)

    def hybrid_forward(self, F, x, s):
        def body(d, st):
            h = F.contrib.cond(d.sum() > 0, lambda: F.reshape(self.d(F.expand_dims(d, 0)), shape=(-1,)) + st[0],
                               lambda: st[0] - d)
            return h, [h]
        return F.contrib.foreach(body, x, [s])


def _flat(v):
    return [z for e in v for z in _flat(e)] if isinstance(v, (list, tuple)) else [v.asnumpy()]


@pytest.mark.parametrize("block,shapes,dtype", [
    (_NestedForeach, [(3, 4, 2), (2,)], "float32"), (_OnlyStates, [(5, 3), (3,)], "float32"),
    (_ForeachInWhile, [(6, 4)], "float32"), (_CondInForeach, [(5, 4), (4,)], "float32"),
    (_NestedForeach, [(3, 4, 2), (2,)], "int32")])
def test_nested_control_flow_hybridizes_to_the_imperative_results(block, shapes, dtype):
    rng = np.random.default_rng(0)
    args = [mx.nd.array((rng.standard_normal(s) * 3).astype(dtype), dtype=dtype) for s in shapes]
    net = block()
    net.initialize(mx.init.Normal(0.5))
    imperative = _flat(net(*args))
    net.hybridize()
    hybridized = _flat(net(*args))
    assert len(imperative) == len(hybridized)
    for a, b in zip(imperative, hybridized):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("executor", ["compiled", "interpret"])
def test_hybridize_run_executes_mxnets_foreach_export(executor, tmp_path):
    from click.testing import CliRunner

    from hybridize.cli import main

    io = _io()
    args = ["run", str(DATA / "foreach-symbol.json"), "--executor", executor, "-o", str(tmp_path / "y.npz")]
    for name, key in (("data0", "x"), ("data1", "h"), ("data2", "c")):
        np.save(tmp_path / f"{key}.npy", io[key])
        args += ["-i", f"{name}={tmp_path / f'{key}.npy'}"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    out = np.load(tmp_path / "y.npz")
    for i in range(4):
        np.testing.assert_allclose(out[f"out{i}"], io[f"y{i}"], rtol=1e-5, atol=1e-6)
