"""``sym.contrib.foreach`` / ``while_loop`` / ``cond``: Python bodies traced into subgraph operators.

The construction of MXNet 1.9.1's ``symbol/contrib.py``, so that exported JSON is MXNet's:

- each body is traced once in an ``AttrScope(__subgraph_name__=...)`` (``foreach0``,
  ``while_loop_cond0``, ``cond_then0``...); its loop variables are fresh variables named after
  the outer symbols (``data0-0``);
- a node belongs to the subgraph iff it was created in that scope; whatever else the body reads
  is *cut*: a fresh variable in the subgraph (named ``<node>_output``, or the variable's own name),
  fed by the outer entry as an input of the operator. A parameter first used inside the body
  belongs to it and is also an input of the operator (MXNet copies it);
- outputs that are inputs of the body or were made outside it pass through ``identity``;
- the operator's inputs are ordered as MXNet orders them (see each function).
"""
from __future__ import annotations

from typing import Any, Callable

from .attribute import AttrScope, unique_subgraph_name
from .graph.ir import Entry, Graph, Node, topo_order
from .graph.subgraph import Subgraph
from .ops.control_flow import COND, FOREACH, WHILE_LOOP

__all__ = ["foreach", "while_loop", "cond"]


def _inside(node: Node, name: str) -> bool:
    return node.extra.get("__subgraph_name__") == name


def _identity_if(sym: Any, wrap: bool) -> Any:
    from .symbol import _apply
    return _apply("_copy", [sym], "identity") if wrap else sym


def _build(heads: list[Entry], name: str, fresh: set[int]) -> tuple[Subgraph, dict[int, Entry]]:
    """The subgraph of the nodes made in scope ``name`` that ``heads`` reach, and for each of its
    inputs that is not a fresh loop variable, the outer entry that feeds it."""
    copies: dict[int, Node] = {}
    feeds: dict[Entry, Node] = {}
    outer_of: dict[int, Entry] = {}

    def inner(e: Entry) -> Entry:
        n = e.node
        if id(n) in fresh:
            return e
        if _inside(n, name) and n.op is not None:
            return Entry(copies[id(n)], e.index)
        if e not in feeds:
            if n.op is None and _inside(n, name):          # a parameter first used in the body
                var = Node(None, n.name, extra=dict(n.extra))
            elif n.op is None:
                var = Node(None, n.name)
            else:
                var = Node(None, n.name + ("_output" if n.num_outputs == 1 else f"_output{e.index}"))
            feeds[e] = var
            outer_of[id(var)] = e
        return Entry(feeds[e], 0)

    for n in topo_order(heads):
        if n.op is not None and _inside(n, name):
            copies[id(n)] = Node(n.op, n.name, dict(n.attrs), [inner(e) for e in n.inputs], dict(n.extra))
    graph = Graph([inner(e) for e in heads])
    return Subgraph(graph, graph.variables()), outer_of


def _fresh_vars(outer: list[Entry]) -> list:
    from .symbol import var
    return [var(f"{e.node.name}-{e.index}") for e in outer]


def _node(op: Any, inputs: list[Entry], attrs: dict, hint: str) -> list:
    from .symbol import Symbol, create
    out = create(op, [Symbol([e]) for e in inputs], attrs, None, hint)
    return [Symbol([e]) for e in out.outputs]


def foreach(flatten: Callable, regroup: Callable, is_tensor: Callable, body: Callable, data: Any,
            init_states: Any, name: str = "foreach") -> tuple:
    """Inputs: the data, the initial states, then the body's other inputs in its order."""
    flat_data, data_fmt = flatten(data, "foreach input")
    flat_states, state_fmt = flatten(init_states, "foreach states")
    if not flat_data or not all(is_tensor(d) for d in flat_data):
        raise TypeError("data should be a Symbol or a nested list of Symbols")
    if not all(is_tensor(s) for s in flat_states):
        raise TypeError("init_states should be a Symbol or a nested list of Symbols")
    outer = [d.outputs[0] for d in flat_data] + [s.outputs[0] for s in flat_states]
    sub_name = unique_subgraph_name(name)
    with AttrScope(__subgraph_name__=sub_name):
        fresh_syms = _fresh_vars(outer)
        d_in = fresh_syms[0] if is_tensor(data) else regroup(fresh_syms[:len(flat_data)], data_fmt)[0]
        s_in = regroup(fresh_syms[len(flat_data):], state_fmt)[0] if flat_states else []
        outs, states = body(d_in, s_in)
        flat_outs, out_fmt = flatten(outs if outs is not None else [], "foreach output")
        flat_new, _ = flatten(states if states is not None else [], "foreach states")
        if len(flat_new) != len(flat_states):
            raise ValueError(f"foreach: the body returned {len(flat_new)} states for {len(flat_states)} "
                             "initial states")
        group = [t.outputs[0] for t in flat_outs + flat_new]
        input_names = {n.name for n in Graph(group).variables()}
        out_names = {t.outputs[0].node.name for t in flat_outs}
        heads = [_identity_if(t, t.outputs[0].node.name in input_names
                              or not _inside(t.outputs[0].node, sub_name)).outputs[0] for t in flat_outs]
        heads += [_identity_if(t, t.outputs[0].node.name in input_names or t.outputs[0].node.name in out_names
                               or not _inside(t.outputs[0].node, sub_name)).outputs[0] for t in flat_new]
    fresh = [s.outputs[0].node for s in fresh_syms]
    sub, outer_of = _build(heads, sub_name, {id(v) for v in fresh})
    position = {id(v): i for i, v in enumerate(sub.inputs)}
    for v, what in zip(fresh, ["data"] * len(flat_data) + ["state"] * len(flat_states)):
        if id(v) not in position:
            raise ValueError(f"foreach: the {what} arrays have to be used in the loop body ({v.name!r} is not)")
    if len(set(sub.names)) != len(sub.names):
        raise ValueError(f"foreach: the inputs of the loop body do not have unique names: {sub.names}")
    remain_locs = [i for i, v in enumerate(sub.inputs) if id(v) in outer_of]
    ins = outer + [outer_of[id(sub.inputs[i])] for i in remain_locs]
    attrs = {"num_args": len(ins) + 1, "num_outputs": len(heads), "num_out_data": len(flat_outs),
             "in_state_locs": tuple(position[id(v)] for v in fresh[len(flat_data):]),
             "in_data_locs": tuple(position[id(v)] for v in fresh[:len(flat_data)]),
             "remain_locs": tuple(remain_locs), "subgraphs": (sub,)}
    results = _node(FOREACH, ins, attrs, "_" + name)
    out_res = regroup(results[:len(flat_outs)], out_fmt)[0] if flat_outs else []
    st_res = regroup(results[len(flat_outs):], state_fmt)[0] if flat_states else []
    return out_res, st_res


def _subgraph_of(fn: Callable, loop_outer: list[Entry], var_fmt: Any, regroup: Callable, flatten: Callable,
                 name: str, expect_pred: bool) -> tuple:
    """Traces ``fn`` on fresh loop variables in its own scope: (subgraph, outer feeds, fresh
    variables, number of data outputs, output format)."""
    sub_name = unique_subgraph_name(name)
    with AttrScope(__subgraph_name__=sub_name):
        fresh_syms = _fresh_vars(loop_outer)
        args = regroup(fresh_syms, var_fmt)[0] if loop_outer else []
        res = fn(*args) if loop_outer else fn()
        if expect_pred:
            outs, states, out_fmt = [res], [], None
        elif loop_outer:
            step_out, new_vars = res
            outs, out_fmt = flatten(step_out if step_out is not None else [], "while output")
            states, _ = flatten(new_vars if new_vars is not None else [], "while loop_vars")
            if len(states) != len(loop_outer):
                raise ValueError("The length of loop_vars should be consistent during the loop")
        else:
            outs, out_fmt = flatten(res, "cond outputs")
            states = []
        group = [t.outputs[0] for t in outs + states]
        input_names = {n.name for n in Graph(group).variables()}
        heads = [_identity_if(t, t.outputs[0].node.name in input_names
                              or not _inside(t.outputs[0].node, sub_name)).outputs[0] for t in outs + states]
    fresh = [s.outputs[0].node for s in fresh_syms]
    sub, outer_of = _build(heads, sub_name, {id(v) for v in fresh})
    return sub, outer_of, fresh, len(outs), out_fmt


def _union(subs: list, loop_outer: list[Entry]) -> tuple[list[Entry], list[list[int]], list[int]]:
    """MXNet's ``_union_inputs``: the operator's inputs (loop variables shared by name, every other
    input of every subgraph its own), each subgraph's input locations, and where each loop
    variable sits among the last subgraph's inputs."""
    by_name = {f"{e.node.name}-{e.index}": k for k, e in enumerate(loop_outer)}
    ins: list[Entry] = []
    var_loc: dict[int, int] = {}
    locs_all: list[list[int]] = []
    var_locs = [-1] * len(loop_outer)
    for sub, outer_of, fresh in subs:
        fresh_ids = {id(v) for v in fresh}
        locs = []
        for j, v in enumerate(sub.inputs):
            if id(v) in fresh_ids:
                k = by_name[v.name]
                if k not in var_loc:
                    var_loc[k] = len(ins)
                    ins.append(loop_outer[k])
                locs.append(var_loc[k])
                var_locs[k] = j
            else:
                locs.append(len(ins))
                ins.append(outer_of[id(v)])
        locs_all.append(locs)
    return ins, locs_all, var_locs


def while_loop(flatten: Callable, regroup: Callable, is_tensor: Callable, cond: Callable, func: Callable,
               loop_vars: Any, max_iterations: Any = None, name: str = "while_loop") -> tuple:
    """Inputs: MXNet's union of the cond and func subgraphs' inputs."""
    if max_iterations is None:
        raise ValueError("max_iterations should be specified")
    max_iterations = int(max_iterations)
    flat_vars, var_fmt = flatten(loop_vars, "while loop_vars")
    if not flat_vars or not all(is_tensor(v) for v in flat_vars):
        raise TypeError("loop_vars should be a symbol or a nested list of symbols")
    outer = [v.outputs[0] for v in flat_vars]
    c_sub, c_feed, c_fresh, _, _ = _subgraph_of(cond, outer, var_fmt, regroup, flatten, name + "_cond", True)
    f_sub, f_feed, f_fresh, n_out, out_fmt = _subgraph_of(func, outer, var_fmt, regroup, flatten,
                                                          name + "_func", False)
    ins, (c_locs, f_locs), var_locs = _union([(c_sub, c_feed, c_fresh), (f_sub, f_feed, f_fresh)], outer)
    if -1 in var_locs:
        raise ValueError("every loop variable has to be used in the loop body")
    attrs = {"num_args": len(ins) + 2, "num_outputs": n_out + len(outer), "num_out_data": n_out,
             "max_iterations": max_iterations, "cond_input_locs": tuple(c_locs), "func_input_locs": tuple(f_locs),
             "func_var_locs": tuple(var_locs), "subgraphs": (c_sub, f_sub)}
    results = _node(WHILE_LOOP, ins, attrs, "_" + name)
    outs = regroup(results[:n_out], out_fmt)[0] if n_out else []
    final = regroup(results[n_out:], var_fmt)[0]
    return outs, final


def cond(flatten: Callable, regroup: Callable, is_tensor: Callable, pred: Any, then_func: Callable,
         else_func: Callable, name: str = "cond") -> Any:
    """Inputs: MXNet's union of the pred, then and else subgraphs' inputs."""
    if not is_tensor(pred):
        raise TypeError("pred should be a Symbol")
    p_sub, p_feed, p_fresh, _, _ = _subgraph_of(lambda: pred, [], None, regroup, flatten, name + "_pred", True)
    t_sub, t_feed, t_fresh, n_then, t_fmt = _subgraph_of(then_func, [], None, regroup, flatten, name + "_then",
                                                         False)
    e_sub, e_feed, e_fresh, n_else, _ = _subgraph_of(else_func, [], None, regroup, flatten, name + "_else", False)
    if n_then != n_else:
        raise ValueError(f"cond: the then branch returns {n_then} outputs, the else branch {n_else}")
    ins, (p_locs, t_locs, e_locs), _ = _union([(p_sub, p_feed, p_fresh), (t_sub, t_feed, t_fresh),
                                               (e_sub, e_feed, e_fresh)], [])
    attrs = {"num_args": len(ins) + 3, "num_outputs": n_then, "cond_input_locs": tuple(p_locs),
             "then_input_locs": tuple(t_locs), "else_input_locs": tuple(e_locs),
             "subgraphs": (p_sub, t_sub, e_sub)}
    results = _node(COND, ins, attrs, "_" + name)
    return regroup(results, t_fmt)[0]
