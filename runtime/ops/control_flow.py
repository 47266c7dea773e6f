"""MXNet's subgraph operators ``_foreach``, ``_while_loop`` and ``_cond``: control flow in graphs.

A hybridized block's ``F.contrib.foreach`` / ``while_loop`` / ``cond`` traces its Python
functions once into subgraphs and builds one node, exactly as MXNet 1.9.1 does
(``symbol/contrib.py``), so that the same node comes out of our tracing, out of MXNet's
``-symbol.json`` files (each subgraph in the node's ``subgraphs`` field) and goes back into them.
The node's ``subgraphs`` attribute holds :class:`Subgraph` values: a graph and its input
variables in order (MXNet's ``arg_nodes`` order). Whatever a body reads from outside (parameters,
values computed before the loop) is an input of the node, like the data and the loop state.

- ``_foreach``: inputs are the data arrays, the initial states, then the *remaining* inputs;
  ``in_data_locs`` / ``in_state_locs`` / ``remain_locs`` place each group among the subgraph's
  inputs. Outputs: the body's ``num_out_data`` per-step outputs stacked on a new axis 0, then the
  final states.
- ``_while_loop``: subgraphs ``cond`` and ``func``; ``cond_input_locs`` / ``func_input_locs`` say
  which node input feeds each subgraph input, ``func_var_locs`` which ``func`` input is each loop
  variable. Outputs: per-step outputs stacked and padded to ``max_iterations`` rows (MXNet leaves
  the padding undefined; here it is zeros), then the final loop variables.
- ``_cond``: subgraphs ``cond``, ``then`` and ``else`` with ``*_input_locs`` into the node's
  inputs; the branch the condition picks gives the outputs.

Every executor runs the subgraphs as the loop goes: the interpreter evaluates them, the compiled
program compiles each once (``prepare``) and calls the compiled bodies. Both are the subgraph
values' own methods (``graph/subgraph.py``): this module, like all of ``ops/``, imports nothing
above the registry.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..base import ShapeError
from ._graph_vjp import graph_vjp
from .attrs import AttrType, Int, Param, parse_literal
from .registry import OpDef, defgrad, register

__all__ = ["COND", "FOREACH", "SUBGRAPH_API", "WHILE_LOOP", "subgraph_count"]


SUBGRAPH_API = ("graph", "inputs", "run", "infer", "infer_types", "compile")
"""What a body value provides (``graph/subgraph.py::Subgraph``): this module never imports the graph
package; evaluating, inferring and compiling a body are the graph side's (``sub.run(values)``,
``sub.infer(in_shapes)``, ``sub.infer_types(in_dtypes)``, ``sub.compile(shapes, dtypes)``)."""


def _locs(v: Any) -> tuple:
    if isinstance(v, str):
        v = parse_literal(v)
    if isinstance(v, (int, np.integer)):
        v = (v,)
    return tuple(int(i) for i in v)


def _subgraphs(v: Any) -> tuple:
    v = tuple(v)
    if not all(all(hasattr(s, k) for k in SUBGRAPH_API) for s in v):
        raise TypeError("expected Subgraph values")
    return v


Locs = AttrType("int list", _locs, lambda v: "[" + ", ".join(str(int(i)) for i in v) + "]")
Subgraphs = AttrType("subgraphs", _subgraphs, lambda v: "")   # written as "subgraphs", not an attr
_COUNTS = {"_foreach": 1, "_while_loop": 2, "_cond": 3}


def subgraph_count(op: OpDef) -> int:
    return _COUNTS[op.name]


def _truth(v: Any) -> bool:
    a = np.asarray(v)
    if a.size != 1:
        raise ShapeError(f"the condition of a loop or branch must be a scalar, got shape {a.shape}")
    return bool(a.reshape(()) != 0)


# ---------------------------------------------------------------------------------------------
# _foreach
def _fe_groups(a: Any, values: list) -> tuple[list, list, list]:
    nd, ns = len(a.in_data_locs), len(a.in_state_locs)
    return values[:nd], values[nd:nd + ns], values[nd + ns:]


def _fe_order(a: Any, data: list, states: list, remain: list) -> list:
    """The subgraph's input values in its order, from the three groups."""
    vals: list = [None] * len(a.subgraphs[0].inputs)
    for locs, group in ((a.in_data_locs, data), (a.in_state_locs, states), (a.remain_locs, remain)):
        for loc, v in zip(locs, group):
            vals[loc] = v
    return vals


def _fe_check(a: Any, n_inputs: int) -> None:
    k = len(a.subgraphs[0].inputs)
    if sorted(a.in_data_locs + a.in_state_locs + a.remain_locs) != list(range(k)) or n_inputs != k:
        raise ShapeError(f"_foreach: the locations {a.in_data_locs}/{a.in_state_locs}/{a.remain_locs} do not "
                         f"cover the body's {k} inputs once each ({n_inputs} given)")
    if not a.in_data_locs:
        raise ShapeError("_foreach: no data to loop over")
    if a.num_outputs != a.num_out_data + len(a.in_state_locs):
        raise ShapeError(f"_foreach: num_outputs {a.num_outputs} != num_out_data {a.num_out_data} "
                         f"+ {len(a.in_state_locs)} states")


def _fe_run(a: Any, body: Callable[[list], list], inputs: tuple) -> list:
    _fe_check(a, len(inputs))
    data, states, remain = _fe_groups(a, list(inputs))
    steps = int(np.shape(data[0])[0])
    if any(int(np.shape(d)[0]) != steps for d in data) or steps == 0:
        raise ShapeError(f"_foreach: data arrays of lengths {[np.shape(d)[0] for d in data]}")
    outs: list[list] = []
    for t in range(steps):
        res = body(_fe_order(a, [d[t] for d in data], states, remain))
        outs.append([np.asarray(r) for r in res[:a.num_out_data]])
        states = [np.asarray(r) for r in res[a.num_out_data:]]
    return [np.stack(col) for col in zip(*outs)] + states


def _fe_compute(a: Any, *inputs: np.ndarray) -> list:
    """Runs the body once per slice of the data along axis 0, threading the states through."""
    return _fe_run(a, a.subgraphs[0].run, inputs)


def _fe_prepare(a: Any, in_shapes: list, in_dtypes: list | None):
    _fe_check(a, len(in_shapes))
    data, states, remain = _fe_groups(a, list(in_shapes))
    ddt, sdt, rdt = _fe_groups(a, list(in_dtypes or [np.float32] * len(in_shapes)))
    body = a.subgraphs[0].compile(_fe_order(a, [tuple(s[1:]) for s in data], states, remain),
                                  _fe_order(a, ddt, sdt, rdt))
    return lambda *inputs: _fe_run(a, body, inputs)


def _fe_shape(a: Any, in_shapes: list) -> tuple[list, list]:
    _fe_check(a, len(in_shapes))
    data, states, remain = _fe_groups(a, list(in_shapes))
    steps = next((s[0] for s in data if s is not None and len(s) and s[0]), None)
    sub_in, heads = a.subgraphs[0].infer(_fe_order(a, [None if s is None else tuple(s[1:]) for s in data],
                                                   states, remain))
    # what the body's inference learnt about its inputs (a parameter's deferred shape)
    full = list(in_shapes)
    for k, loc in enumerate(a.in_data_locs + a.in_state_locs + a.remain_locs):
        s = sub_in[loc]
        if s is not None:
            full[k] = ((steps,) + tuple(s) if steps else None) if k < len(a.in_data_locs) else s
    outs = [None if h is None or not steps else (steps,) + tuple(h) for h in heads[:a.num_out_data]]
    return full, outs + heads[a.num_out_data:]


def _fe_type(a: Any, in_dtypes: list) -> list:
    d, s, r = _fe_groups(a, list(in_dtypes))
    return a.subgraphs[0].infer_types(_fe_order(a, d, s, r))


_SUBGRAPHS = Param("subgraphs", Subgraphs, ())

FOREACH = register(OpDef(
    "_foreach", _fe_compute,
    params=(Param("num_args", Int), Param("num_outputs", Int), Param("num_out_data", Int),
            Param("in_state_locs", Locs), Param("in_data_locs", Locs), Param("remain_locs", Locs), _SUBGRAPHS),
    inputs=lambda a: tuple(f"data{i}" for i in range(int(a.num_args) - 1)),
    num_outputs=lambda a: int(a.num_outputs),
    infer_shape=_fe_shape, infer_type=_fe_type, prepare=_fe_prepare,
    doc="Runs a subgraph once per slice of the data along axis 0, threading loop states (MXNet's "
        "foreach); the per-step outputs are stacked on a new axis 0, then the final states follow."))


# ---------------------------------------------------------------------------------------------
# _while_loop
def _wl_var_inputs(a: Any) -> list[int]:
    """The node input that holds each loop variable's initial value."""
    return [a.func_input_locs[k] for k in a.func_var_locs]


def _wl_run(a: Any, cond: Callable, func: Callable, inputs: tuple, out_shapes: Callable[[], list]) -> list:
    vals = list(inputs)
    var_at = _wl_var_inputs(a)
    steps, rows = 0, []
    while steps < a.max_iterations and _truth(cond([vals[i] for i in a.cond_input_locs])[0]):
        res = func([vals[i] for i in a.func_input_locs])
        rows.append([np.asarray(r) for r in res[:a.num_out_data]])
        for k, at in enumerate(var_at):
            vals[at] = np.asarray(res[a.num_out_data + k])
        steps += 1
    outs = []
    for k in range(a.num_out_data):
        if rows:
            first = rows[0][k]
            buf = np.zeros((a.max_iterations,) + first.shape, first.dtype)
            for t, row in enumerate(rows):
                buf[t] = row[k]
        else:                                   # no step ran: shapes from inference
            shape, dtype = out_shapes()[k]
            buf = np.zeros((a.max_iterations,) + tuple(shape), dtype)
        outs.append(buf)
    return outs + [vals[at] for at in var_at]


def _wl_check(a: Any, n_inputs: int) -> None:
    cond, func = a.subgraphs
    if len(a.cond_input_locs) != len(cond.inputs) or len(a.func_input_locs) != len(func.inputs) \
            or any(not 0 <= i < n_inputs for i in a.cond_input_locs + a.func_input_locs) \
            or any(not 0 <= k < len(func.inputs) for k in a.func_var_locs):
        raise ShapeError(f"_while_loop: input locations {a.cond_input_locs}/{a.func_input_locs}/"
                         f"{a.func_var_locs} do not fit {n_inputs} inputs")
    if a.num_outputs != a.num_out_data + len(a.func_var_locs):
        raise ShapeError(f"_while_loop: num_outputs {a.num_outputs} != num_out_data {a.num_out_data} "
                         f"+ {len(a.func_var_locs)} loop variables")


def _wl_shape(a: Any, in_shapes: list) -> tuple[list, list]:
    _wl_check(a, len(in_shapes))
    cond, func = a.subgraphs
    full = list(in_shapes)
    for sub, locs in ((cond, a.cond_input_locs), (func, a.func_input_locs)):
        sub_in, _ = sub.infer([full[i] for i in locs])
        for i, s in zip(locs, sub_in):
            if s is not None:
                full[i] = s
    _, heads = func.infer([full[i] for i in a.func_input_locs])
    outs = [None if h is None else (a.max_iterations,) + tuple(h) for h in heads[:a.num_out_data]]
    return full, outs + [full[i] for i in _wl_var_inputs(a)]


def _wl_type(a: Any, in_dtypes: list) -> list:
    dts = a.subgraphs[1].infer_types([in_dtypes[i] for i in a.func_input_locs])
    return dts[:a.num_out_data] + [np.dtype(in_dtypes[i] or np.float32) for i in _wl_var_inputs(a)]


def _wl_out_shapes(a: Any, inputs: tuple) -> list:
    shapes = _wl_shape(a, [np.shape(v) for v in inputs])[1]
    dts = _wl_type(a, [np.asarray(v).dtype for v in inputs])
    return [(tuple(s[1:]), d) for s, d in zip(shapes[:a.num_out_data], dts)]


def _wl_compute(a: Any, *inputs: np.ndarray) -> list:
    """Runs ``func`` while ``cond`` holds (at most ``max_iterations`` times), threading the loop
    variables through; per-step outputs are stacked and padded to ``max_iterations`` rows."""
    _wl_check(a, len(inputs))
    cond, func = a.subgraphs
    return _wl_run(a, cond.run, func.run, inputs, lambda: _wl_out_shapes(a, inputs))


def _wl_prepare(a: Any, in_shapes: list, in_dtypes: list | None):
    _wl_check(a, len(in_shapes))
    cond, func = a.subgraphs
    dts = list(in_dtypes or [np.float32] * len(in_shapes))
    full, outs = _wl_shape(a, list(in_shapes))
    c = cond.compile([full[i] for i in a.cond_input_locs], [dts[i] for i in a.cond_input_locs])
    f = func.compile([full[i] for i in a.func_input_locs], [dts[i] for i in a.func_input_locs])
    odt = _wl_type(a, dts)
    out_shapes = [(tuple(s[1:]), d) for s, d in zip(outs[:a.num_out_data], odt)]
    return lambda *inputs: _wl_run(a, c, f, inputs, lambda: out_shapes)


WHILE_LOOP = register(OpDef(
    "_while_loop", _wl_compute,
    params=(Param("num_args", Int), Param("num_outputs", Int), Param("num_out_data", Int),
            Param("max_iterations", Int), Param("cond_input_locs", Locs), Param("func_input_locs", Locs),
            Param("func_var_locs", Locs), _SUBGRAPHS),
    inputs=lambda a: tuple(f"data{i}" for i in range(int(a.num_args) - 2)),
    num_outputs=lambda a: int(a.num_outputs),
    infer_shape=_wl_shape, infer_type=_wl_type, prepare=_wl_prepare,
    doc="Runs the func subgraph while the cond subgraph holds, at most max_iterations times (MXNet's "
        "while_loop); per-step outputs are stacked and padded to max_iterations, then the loop variables."))


# ---------------------------------------------------------------------------------------------
# _cond
def _cd_check(a: Any, n_inputs: int) -> None:
    for sub, locs in zip(a.subgraphs, (a.cond_input_locs, a.then_input_locs, a.else_input_locs)):
        if len(locs) != len(sub.inputs) or any(not 0 <= i < n_inputs for i in locs):
            raise ShapeError(f"_cond: input locations {locs} do not fit the subgraph's {len(sub.inputs)} "
                             f"inputs and the node's {n_inputs}")


def _cd_run(a: Any, cond: Callable, then: Callable, other: Callable, inputs: tuple) -> list:
    if _truth(cond([inputs[i] for i in a.cond_input_locs])[0]):
        return list(then([inputs[i] for i in a.then_input_locs]))
    return list(other([inputs[i] for i in a.else_input_locs]))


def _cd_compute(a: Any, *inputs: np.ndarray) -> list:
    """The outputs of the then or the else subgraph, as the cond subgraph's scalar says."""
    _cd_check(a, len(inputs))
    return _cd_run(a, *[s.run for s in a.subgraphs], inputs)


def _cd_prepare(a: Any, in_shapes: list, in_dtypes: list | None):
    _cd_check(a, len(in_shapes))
    dts = list(in_dtypes or [np.float32] * len(in_shapes))
    fns = [s.compile([in_shapes[i] for i in locs], [dts[i] for i in locs])
           for s, locs in zip(a.subgraphs, (a.cond_input_locs, a.then_input_locs, a.else_input_locs))]
    return lambda *inputs: _cd_run(a, *fns, inputs)


def _cd_shape(a: Any, in_shapes: list) -> tuple[list, list]:
    _cd_check(a, len(in_shapes))
    full = list(in_shapes)
    heads: list = []
    for s, locs in zip(a.subgraphs, (a.cond_input_locs, a.then_input_locs, a.else_input_locs)):
        sub_in, outs = s.infer([full[i] for i in locs])
        for i, sh in zip(locs, sub_in):
            if sh is not None:
                full[i] = sh
        heads.append(outs)
    then, other = heads[1], heads[2]
    for k, (x, y) in enumerate(zip(then, other)):
        if x is not None and y is not None and tuple(x) != tuple(y):
            raise ShapeError(f"_cond: output {k} of the then branch has shape {tuple(x)}, of the else branch "
                             f"{tuple(y)}")
    return full, [x if x is not None else y for x, y in zip(then, other)]


def _cd_type(a: Any, in_dtypes: list) -> list:
    return a.subgraphs[1].infer_types([in_dtypes[i] for i in a.then_input_locs])


COND = register(OpDef(
    "_cond", _cd_compute,
    params=(Param("num_args", Int), Param("num_outputs", Int), Param("cond_input_locs", Locs),
            Param("then_input_locs", Locs), Param("else_input_locs", Locs), _SUBGRAPHS),
    inputs=lambda a: tuple(f"data{i}" for i in range(int(a.num_args) - 3)),
    num_outputs=lambda a: int(a.num_outputs),
    infer_shape=_cd_shape, infer_type=_cd_type, prepare=_cd_prepare,
    doc="The outputs of the then or the else subgraph, as the scalar of the cond subgraph says "
        "(MXNet's cond)."))



# ---------------------------------------------------------------------------------------------
# gradients (MXNet 1.9.1: src/operator/control_flow.cc, ForeachGradient / WhileLoopGradient /
# CondGradient): back-propagation through the subgraphs, each body differentiated with the gradient
# rules of its own operators (``_graph_vjp``); the condition subgraphs get no gradient
def _zeros_for(grads: list, inputs: tuple) -> tuple:
    return tuple(np.zeros_like(x) if g is None else np.asarray(g).astype(np.asarray(x).dtype, copy=False)
                 for g, x in zip(grads, inputs))


def _acc(a: Any, b: Any) -> Any:
    if b is None:
        return a
    return b if a is None else a + b


def _fe_backward(a: Any, *arrays: np.ndarray) -> tuple:
    """Runs the loop forward keeping each step's body inputs, then the body's vector-Jacobian
    product step by step in reverse, the state gradients flowing from step to step."""
    n_out = int(a.num_outputs)
    ogs, inputs = arrays[:n_out], arrays[n_out:]
    _fe_check(a, len(inputs))
    sub = a.subgraphs[0]
    data, states, remain = _fe_groups(a, list(inputs))
    steps = int(np.shape(data[0])[0])
    seen = []
    for t in range(steps):
        vals = _fe_order(a, [d[t] for d in data], states, remain)
        seen.append(vals)
        states = [np.asarray(r) for r in sub.run(vals)[a.num_out_data:]]
    d_data = [np.zeros_like(np.asarray(d)) for d in data]
    d_state: list = list(ogs[a.num_out_data:])
    d_remain: list = [None] * len(remain)
    for t in range(steps - 1, -1, -1):
        cot = [ogs[k][t] for k in range(a.num_out_data)] + d_state
        _, g = graph_vjp(sub.graph, sub.inputs, seen[t], cot)
        for k, loc in enumerate(a.in_data_locs):
            if g[loc] is not None:
                d_data[k][t] = g[loc]
        d_state = [g[loc] for loc in a.in_state_locs]
        for k, loc in enumerate(a.remain_locs):
            d_remain[k] = _acc(d_remain[k], g[loc])
    return _zeros_for(d_data + d_state + d_remain, tuple(inputs))


def _wl_backward(a: Any, *arrays: np.ndarray) -> tuple:
    """The loop run forward (keeping each step's func inputs), then back-propagated step by step."""
    n_out = int(a.num_outputs)
    ogs, inputs = arrays[:n_out], arrays[n_out:]
    _wl_check(a, len(inputs))
    cond, func = a.subgraphs
    vals = list(inputs)
    var_at = _wl_var_inputs(a)
    seen = []
    while len(seen) < a.max_iterations and _truth(cond.run([vals[i] for i in a.cond_input_locs])[0]):
        fin = [vals[i] for i in a.func_input_locs]
        seen.append(fin)
        res = func.run(fin)
        for k, at in enumerate(var_at):
            vals[at] = np.asarray(res[a.num_out_data + k])
    grads: list = [None] * len(inputs)
    d_vars: list = list(ogs[a.num_out_data:])
    for t in range(len(seen) - 1, -1, -1):
        cot = [ogs[k][t] for k in range(a.num_out_data)] + d_vars
        _, g = graph_vjp(func.graph, func.inputs, seen[t], cot)
        var_slots = set(a.func_var_locs)
        for j, node_in in enumerate(a.func_input_locs):
            if j not in var_slots:
                grads[node_in] = _acc(grads[node_in], g[j])
        d_vars = [g[j] for j in a.func_var_locs]
    for at, d in zip(var_at, d_vars):
        grads[at] = _acc(grads[at], d)
    return _zeros_for(grads, tuple(inputs))


def _cd_backward(a: Any, *arrays: np.ndarray) -> tuple:
    """The branch the condition picks, back-propagated; inputs it does not read get zero."""
    n_out = int(a.num_outputs)
    ogs, inputs = arrays[:n_out], arrays[n_out:]
    _cd_check(a, len(inputs))
    cond, then, other = a.subgraphs
    pick, locs = ((then, a.then_input_locs) if _truth(cond.run([inputs[i] for i in a.cond_input_locs])[0])
                  else (other, a.else_input_locs))
    _, g = graph_vjp(pick.graph, pick.inputs, [inputs[i] for i in locs], list(ogs))
    grads: list = [None] * len(inputs)
    for j, i in enumerate(locs):
        grads[i] = _acc(grads[i], g[j])
    return _zeros_for(grads, tuple(inputs))


def _register_backward(fwd: OpDef, kernel: Callable, n_sub: int) -> None:
    def names(a: Any) -> list:
        return [f"ograd{k}" for k in range(int(a.num_outputs))] + list(fwd.input_names(a))

    def n_in(a: Any) -> int:
        return int(a.num_args) - n_sub

    register(OpDef(f"_backward{fwd.name}", kernel, params=fwd.params, inputs=names, num_outputs=n_in,
                   infer_shape=lambda a, ss: (list(ss), list(ss[int(a.num_outputs):])),
                   infer_type=lambda a, ds: [d if d is not None else np.float32 for d in ds[int(a.num_outputs):]],
                   doc=f"{fwd.name} backward: back-propagation through its subgraphs."))

    @defgrad(fwd.name)
    def rule(F: Any, attrs: Any, inputs: list, outputs: list, out_grads: list) -> list:
        g = getattr(F._internal, f"_backward{fwd.name}")(*out_grads, *inputs, **attrs.as_dict())
        n = len(inputs)
        return [g] if n == 1 and not isinstance(g, (list, tuple)) else [g[i] for i in range(n)]


_register_backward(FOREACH, _fe_backward, 1)
_register_backward(WHILE_LOOP, _wl_backward, 2)
_register_backward(COND, _cd_backward, 3)
