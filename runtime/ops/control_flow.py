"""MXNet's ``_foreach`` subgraph operator: a loop over axis 0 whose body is a graph.

``sym.contrib.foreach(body, data, init_states)`` (a hybridized block's ``F.contrib.foreach``)
traces ``body`` once into a subgraph and builds one ``_foreach`` node, exactly as MXNet 1.9.1
does (``symbol/contrib.py``), so that the same node comes out of our tracing, out of MXNet's
``-symbol.json`` files (the ``subgraphs`` field) and goes back into them:

- the subgraph's inputs are its variable nodes in order (``Subgraph.inputs``); the node's inputs
  are the data arrays, then the initial states, then the *remaining* inputs (parameters and
  values computed outside the loop that the body reads), each remaining one in subgraph order;
- ``in_data_locs`` / ``in_state_locs`` / ``remain_locs`` say where each group sits among the
  subgraph's inputs; ``num_args`` counts the subgraph itself plus the node's inputs;
- the outputs are the body's ``num_out_data`` per-step outputs stacked on a new axis 0, then the
  final states.

Every executor runs the subgraph once per step: the interpreter evaluates it, the compiled
program compiles it once (``prepare``) and calls the compiled body in its loop.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .attrs import AttrType, Int, Param, parse_literal
from .registry import OpDef, register
from ..base import ShapeError

__all__ = ["Subgraph", "FOREACH"]


class Subgraph:
    """A loop body: ``graph`` and its input variables in order (MXNet's ``arg_nodes`` order)."""

    __slots__ = ("graph", "inputs")

    def __init__(self, graph: Any, inputs: list):
        self.graph = graph
        self.inputs = list(inputs)

    def __repr__(self) -> str:
        # unique per object: the registry caches resolved attributes by their repr
        return f"Subgraph@{id(self):x}({len(self.graph.nodes)} nodes, inputs {[n.name for n in self.inputs]})"


def _locs(v: Any) -> tuple:
    if isinstance(v, str):
        v = parse_literal(v)
    if isinstance(v, (int, np.integer)):
        v = (v,)
    return tuple(int(i) for i in v)


def _subgraph(v: Any) -> Subgraph:
    if not isinstance(v, Subgraph):
        raise TypeError(f"expected a Subgraph, got {type(v).__name__}")
    return v


Locs = AttrType("int list", _locs, lambda v: "[" + ", ".join(str(int(i)) for i in v) + "]")
SubgraphAttr = AttrType("subgraph", _subgraph, lambda v: "")   # written as "subgraphs", not an attr


def _groups(a: Any, values: list) -> tuple[list, list, list]:
    nd, ns = len(a.in_data_locs), len(a.in_state_locs)
    return values[:nd], values[nd:nd + ns], values[nd + ns:]


def _sub_values(a: Any, data: list, states: list, remain: list) -> list:
    """The subgraph's input values in its order, from the three groups."""
    vals: list = [None] * len(a.subgraph.inputs)
    for loc, v in zip(a.in_data_locs, data):
        vals[loc] = v
    for loc, v in zip(a.in_state_locs, states):
        vals[loc] = v
    for loc, v in zip(a.remain_locs, remain):
        vals[loc] = v
    return vals


def _check(a: Any, n_inputs: int) -> None:
    k = len(a.subgraph.inputs)
    locs = sorted(a.in_data_locs + a.in_state_locs + a.remain_locs)
    if locs != list(range(k)) or n_inputs != k:
        raise ShapeError(f"_foreach: the locations {a.in_data_locs}/{a.in_state_locs}/{a.remain_locs} do not "
                         f"cover the body's {k} inputs once each ({n_inputs} given)")
    if not a.in_data_locs:
        raise ShapeError("_foreach: no data to loop over")
    ns = len(a.in_state_locs)
    if a.num_outputs != a.num_out_data + ns:
        raise ShapeError(f"_foreach: num_outputs {a.num_outputs} != num_out_data {a.num_out_data} + {ns} states")


def _run(a: Any, body: Any, inputs: tuple) -> list:
    """The loop; ``body(values) -> outputs`` runs the subgraph once."""
    _check(a, len(inputs))
    data, states, remain = _groups(a, list(inputs))
    steps = int(np.shape(data[0])[0])
    if any(int(np.shape(d)[0]) != steps for d in data):
        raise ShapeError(f"_foreach: data arrays of different lengths {[np.shape(d)[0] for d in data]}")
    if steps == 0:
        raise ShapeError("_foreach: data of length 0")
    outs: list[list] = []
    for t in range(steps):
        res = body(_sub_values(a, [d[t] for d in data], states, remain))
        outs.append([np.asarray(r) for r in res[:a.num_out_data]])
        states = [np.asarray(r) for r in res[a.num_out_data:]]
    stacked = [np.stack(col) for col in zip(*outs)] if a.num_out_data else []
    return stacked + states


def _foreach_compute(a: Any, *inputs: np.ndarray) -> list:
    """Runs the body once per slice of the data along axis 0, threading the states through."""
    from ..graph.interpret import evaluate

    names = [n.name for n in a.subgraph.inputs]
    return _run(a, lambda vals: evaluate(a.subgraph.graph, dict(zip(names, vals))), inputs)


def _foreach_prepare(a: Any, in_shapes: list, in_dtypes: list | None):
    """The compiled program's kernel: the body compiled once for its step shapes."""
    from ..graph.codegen import compile_graph

    _check(a, len(in_shapes))
    data, states, remain = _groups(a, list(in_shapes))
    shapes = _sub_values(a, [tuple(s[1:]) for s in data], list(states), list(remain))
    dts = in_dtypes or [np.float32] * len(in_shapes)
    ddt, sdt, rdt = _groups(a, list(dts))
    dtypes = _sub_values(a, list(ddt), list(sdt), list(rdt))
    names = [n.name for n in a.subgraph.inputs]
    prog = compile_graph(a.subgraph.graph, input_names=names, shapes=dict(zip(names, shapes)),
                         dtypes={k: np.dtype(d) for k, d in zip(names, dtypes)})

    def run(*inputs: np.ndarray) -> list:
        return _run(a, lambda vals: prog(*vals), inputs)
    return run


def _sub_shapes(a: Any, in_shapes: list) -> tuple[dict, list]:
    from ..graph.infer import infer_shapes

    data, states, remain = _groups(a, list(in_shapes))
    sub_in = _sub_values(a, [None if s is None else tuple(s[1:]) for s in data], list(states), list(remain))
    known = {n.name: s for n, s in zip(a.subgraph.inputs, sub_in) if s is not None}
    return infer_shapes(a.subgraph.graph, known), sub_in


def _foreach_shape(a: Any, in_shapes: list) -> tuple[list, list]:
    _check(a, len(in_shapes))
    data = in_shapes[:len(a.in_data_locs)]
    steps = next((s[0] for s in data if s is not None and len(s) and s[0]), None)
    shapes, _ = _sub_shapes(a, in_shapes)
    g = a.subgraph.graph
    sub_in = [shapes.get((id(n), 0)) for n in a.subgraph.inputs]
    # what the body's inference learnt about its inputs (a parameter's deferred shape)
    nd, ns = len(a.in_data_locs), len(a.in_state_locs)
    full: list = list(in_shapes)
    for k, loc in enumerate(a.in_data_locs):
        s = sub_in[loc]
        if s is not None and steps:
            full[k] = (steps,) + tuple(s)
    for k, loc in enumerate(a.in_state_locs):
        full[nd + k] = sub_in[loc] if sub_in[loc] is not None else full[nd + k]
    for k, loc in enumerate(a.remain_locs):
        full[nd + ns + k] = sub_in[loc] if sub_in[loc] is not None else full[nd + ns + k]
    heads = [shapes.get((id(e.node), e.index)) for e in g.outputs]
    outs = [None if h is None or not steps else (steps,) + tuple(h) for h in heads[:a.num_out_data]]
    return full, outs + heads[a.num_out_data:]


def _foreach_type(a: Any, in_dtypes: list) -> list:
    from ..graph.infer import infer_dtypes

    ddt, sdt, rdt = _groups(a, list(in_dtypes))
    sub = _sub_values(a, list(ddt), list(sdt), list(rdt))
    known = {n.name: np.dtype(d) for n, d in zip(a.subgraph.inputs, sub) if d is not None}
    dts = infer_dtypes(a.subgraph.graph, known)
    return [dts.get((id(e.node), e.index), np.dtype(np.float32)) for e in a.subgraph.graph.outputs]


FOREACH = register(OpDef(
    "_foreach", _foreach_compute,
    params=(Param("num_args", Int), Param("num_outputs", Int), Param("num_out_data", Int),
            Param("in_state_locs", Locs), Param("in_data_locs", Locs), Param("remain_locs", Locs),
            Param("subgraph", SubgraphAttr, None)),
    inputs=lambda a: tuple(f"data{i}" for i in range(int(a.num_args) - 1)),
    num_outputs=lambda a: int(a.num_outputs),
    infer_shape=_foreach_shape, infer_type=_foreach_type, prepare=_foreach_prepare,
    doc="Runs a subgraph once per slice of the data along axis 0, threading loop states (MXNet's "
        "foreach); the per-step outputs are stacked on a new axis 0, then the final states follow."))
