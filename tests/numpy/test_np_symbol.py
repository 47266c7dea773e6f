"""np-mode Symbols (``mx.sym.np`` / ``mx.sym.npx``, ``_Symbol``) and hybridized np-mode blocks,
held to what MXNet 1.9.1 wrote and computed (``tools/numpy_sym/record.py`` recorded the fixtures).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as onp
import pytest

from hybridize.runtime import name as _name
from hybridize.runtime import np as mnp
from hybridize.runtime import npx, sym
from hybridize.runtime.gluon import SymbolBlock, nn
from hybridize.runtime.ops.registry import find_op
from np_cases import TRACES
from np_models import MODELS, set_params

FIXTURES = Path(__file__).parent / "fixtures"
RECORDED = json.loads((FIXTURES / "traces.json").read_text())["traces"]


@pytest.fixture
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def _trace(expr: str):
    with _name.NameManager():
        x = sym.var("x").as_np_ndarray()
        y = sym.var("y").as_np_ndarray()
        s = eval(expr, {"x": x, "y": y, "sym": sym})  # noqa: S307 - the recorded expressions
        return s, json.loads(s.tojson())["nodes"]


def _same_attrs(op_name: str, ours: dict, theirs: dict) -> bool:
    """Equal once parsed by the operator (MXNet writes ``[1]`` where we write ``(1,)``, and
    spells out some defaults)."""
    op = find_op(op_name)
    return op.resolve(op.parse_attrs(ours)).as_dict() == op.resolve(op.parse_attrs(theirs)).as_dict()


@pytest.mark.parametrize("expr", TRACES)
def test_np_symbol_expression_builds_the_nodes_mxnet_writes(expr):
    s, nodes = _trace(expr)
    want = RECORDED[expr]
    assert type(s).__name__ == want["type"] == "_Symbol"
    got = [[n["op"], n["name"], n.get("attrs", {})] for n in nodes if n["op"] != "null"]
    assert [g[:2] for g in got] == [w[:2] for w in want["nodes"]]
    for (op, name, attrs), (_, _, theirs) in zip(got, want["nodes"]):
        assert _same_attrs(op, attrs, theirs), f"{name}: {attrs} vs MXNet's {theirs}"


def test_np_operators_are_written_under_mxnet_names():
    """Every np operator both sides know is written as MXNet 1.9.1 writes it: its own name
    (``_npx_relu``, ``_npi_add``) or the legacy operator it aliases (``_npx_fully_connected`` ->
    ``FullyConnected``)."""
    names = json.loads((FIXTURES / "np_op_names.json").read_text())["names"]
    known = {n: find_op(n) for n in names if find_op(n) is not None}
    wrong = {n: (op.name, names[n]) for n, op in known.items() if op.name != names[n]}
    # np.linspace's own operator here; MXNet registers it on the legacy _linspace
    assert len(known) >= 250 and set(wrong) <= {"_npi_linspace"}


def test_np_symbol_refuses_what_mxnet_refuses():
    x = sym.var("x").as_np_ndarray()
    with pytest.raises(TypeError, match="does not support len"):
        len(x)
    with pytest.raises(TypeError, match="not iterable"):
        iter(x)
    with pytest.raises(NotImplementedError):
        x[0] = 1
    for key in (None, Ellipsis, [0, 1], (Ellipsis, 0)):
        with pytest.raises(IndexError, match="Only integer, slice"):
            x[key]
    with pytest.raises(AttributeError):
        x.shape  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute exp"):
        x.exp()
    assert repr(x) == "<_Symbol x>"


def test_multi_output_np_ops_give_a_list_and_groups_index_outputs():
    x = sym.var("x").as_np_ndarray()
    parts = sym.np.split(x, 3, axis=1)
    assert isinstance(parts, list) and len(parts) == 3
    group = sym.Group(parts).as_np_ndarray()
    assert len(group) == 3 and [p.name for p in group] == [p.name for p in parts]
    assert group[1].list_outputs() == parts[1].list_outputs()


def _load_np_module(name):
    build, shape = MODELS[name]
    net = build(nn, mnp)
    net.initialize()
    io = onp.load(FIXTURES / "models" / name / "io.npz")
    x = mnp.array(io["x"])
    net(x)
    set_params(net, onp)
    return net, x, io


@pytest.mark.parametrize("name", sorted(MODELS))
def test_hybridized_np_block_equals_mxnet(np_mode, name):
    net, x, io = _load_np_module(name)
    y_imp = net(x)
    assert isinstance(y_imp, mnp.ndarray)
    onp.testing.assert_allclose(y_imp.asnumpy(), io["y_imperative"], rtol=1e-4, atol=1e-5)
    net.hybridize()
    y = net(x)
    assert isinstance(y, mnp.ndarray)
    onp.testing.assert_allclose(y.asnumpy(), io["y"], rtol=1e-4, atol=1e-5)
    onp.testing.assert_allclose(net(x).asnumpy(), io["y"], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_np_block_exports_the_graph_mxnet_exports(np_mode, name, tmp_path):
    with _name.NameManager():  # a fresh name scope: dense0, conv0, ... as in MXNet's fresh process
        net, x, _ = _load_np_module(name)
    net.hybridize()
    net(x)
    net.export(str(tmp_path / "m"))
    ours = json.loads((tmp_path / "m-symbol.json").read_text())
    theirs = json.loads((FIXTURES / "models" / name / "model-symbol.json").read_text())
    strip = lambda g: [(n["op"], n["name"].split("_", 1)[-1]) for n in g["nodes"]]  # noqa: E731 - block prefixes count per process
    assert strip(ours) == strip(theirs)
    assert ours["attrs"] == theirs["attrs"]  # is_np_shape and the version
    for a, b in zip(ours["nodes"], theirs["nodes"]):
        if a["op"] == "null":
            assert a.get("attrs", {}).get("__shape__") == b.get("attrs", {}).get("__shape__")


@pytest.mark.parametrize("name", sorted(MODELS))
def test_graph_exported_by_mxnet_loads_and_runs(np_mode, name):
    folder = FIXTURES / "models" / name
    io = onp.load(folder / "io.npz")
    net = SymbolBlock.imports(str(folder / "model-symbol.json"), ["data"], str(folder / "model-0000.params"))
    y = net(mnp.array(io["x"]))
    onp.testing.assert_allclose(y.asnumpy(), io["y"], rtol=1e-4, atol=1e-5)
