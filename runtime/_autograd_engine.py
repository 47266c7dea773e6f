"""The backward pass of autograd's tape (MXNet's ``Imperative::Backward``), see ``autograd``.

Kept apart from ``autograd`` (a leaf module the operator kernels import for ``is_training``): it
needs the front end to run the gradient rules with ``F`` = ``nd``. The runtime package installs it
(:func:`install`) once both are loaded, so neither this module nor ``ndarray`` imports the other's
importer.
"""
from __future__ import annotations

import sys
from typing import Any

import numpy as np

from .autograd import _NOT_IN_GRAPH, _entry, _in_graph, _Node, _state
from .base import HybridizeError, NonDifferentiableError
from .ndarray import NDArray, _propagated
from .ops.registry import ZERO_GRAD

__all__ = ["get_symbol", "install", "run_backward"]

#: the imperative front end (``mx.nd``): ``F`` of the gradient rules; set by :func:`install`
nd: Any = None


def _topo(heads: list) -> list:
    """Nodes reachable from the heads' entries, inputs before their users."""
    order: list = []
    seen: set = set()
    stack = [(h._ag[0], False) for h in reversed(heads)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for e in reversed(node.inputs):
            if e is not None and id(e[0]) not in seen:
                stack.append((e[0], False))
    return order


def _sum(nd: Any, parts: list) -> Any:
    return parts[0] if len(parts) == 1 else nd.add_n(*parts)


def _summed(nd: Any, parts: list, monitor: Any) -> Any:
    total = _sum(nd, parts)
    if monitor is not None and len(parts) > 1:
        monitor(None, list(parts) + [total])
    return total


def run_backward(heads: list, head_grads: list | None, variables: list | None, retain_graph: bool,
                  create_graph: bool, train_mode: bool, monitor: Any = None) -> list | None:
    """MXNet's ``Imperative::Backward``: the gradients of ``variables`` (given), or of every marked
    variable with ``grad_req`` other than 'null' written into its buffer (``variables`` None).
    ``monitor(node, values)`` sees each step as it runs: a node's input gradients after its rule
    (``None`` for an input it gives none), and ``node`` None with the one sum of several gradient
    contributions to an entry (values ``[parts..., sum]``)."""
    for h in heads:
        if not _in_graph(h):
            raise HybridizeError(_NOT_IN_GRAPH)
    order = _topo(heads)
    if variables is not None:
        xs = []
        for i, v in enumerate(variables):
            e = _entry(v)
            if e is None or not e[0].is_variable or e[0].grad_req == "null":
                raise HybridizeError(f"Cannot differentiate with respect to the {i + 1}-th variable because it "
                                     "does not require gradient.")
            xs.append(e[0])
    else:
        xs = [n for n in order if n.is_variable and n.grad_req != "null"]
        if not xs:
            raise HybridizeError("There are no inputs in computation graph that require gradients.")
    # nodes on a path from a variable asked for to a head
    needs = {id(n) for n in xs}
    for n in order:
        if id(n) not in needs and any(e is not None and id(e[0]) in needs for e in n.inputs):
            needs.add(id(n))
    grads: dict = {}
    for i, h in enumerate(heads):
        hg = head_grads[i] if head_grads is not None else None
        if hg is None:
            hg = _ones_head(h)
        grads.setdefault((id(h._ag[0]), h._ag[1]), []).append(hg)
    # a rule that takes ``into`` (a hybridized block's compiled backward) writes the gradient of a
    # variable it alone reaches (grad_req 'write') straight into the variable's buffer
    uses: dict | None = None
    if variables is None and not create_graph and any(getattr(n.rule, "into", False) for n in order):
        uses = {}
        for h in heads:
            uses[id(h._ag[0])] = uses.get(id(h._ag[0]), 0) + 1
        for n in order:
            if id(n) in needs and not n.is_variable:
                for e in n.inputs:
                    if e is not None:
                        uses[id(e[0])] = uses.get(id(e[0]), 0) + 1
    prev_r, prev_t = _state.recording, _state.training
    _state.recording, _state.training = bool(create_graph), bool(train_mode)
    try:
        for node in reversed(order):
            if node.op is None and node.rule is None or id(node) not in needs:
                continue
            n_out = len(node.out_data)
            found = [grads.pop((id(node), k), None) for k in range(n_out)]
            if all(f is None for f in found):
                continue
            outputs = [_saved(d, (node, k)) for k, d in enumerate(node.out_data)]
            out_grads = [_summed(nd, f, monitor) if f is not None else nd.zeros_like(outputs[k])
                         for k, f in enumerate(found)]
            inputs = [_saved(d, e) for d, e in zip(node.in_data, node.inputs)]
            rule = node.rule
            if rule is None:
                raise NonDifferentiableError(f"Operator {node.op.name} is non-differentiable because it didn't "
                                             "register FGradient attribute.")
            if rule is ZERO_GRAD:
                continue  # zeros: adds nothing to any input's gradient
            into = None
            if uses is not None and getattr(rule, "into", False):
                into = [e[0].grad if e is not None and e[1] == 0 and e[0].is_variable and e[0].grad_req == "write"
                        and e[0].grad is not None and uses.get(id(e[0])) == 1 else None for e in node.inputs]
            if into is not None and any(d is not None for d in into):
                in_grads = rule(nd, node.attrs, inputs, outputs, out_grads, into=into)
            else:
                in_grads = rule(nd, node.attrs, inputs, outputs, out_grads)
            if monitor is not None:
                monitor(node, list(in_grads))
            for e, g, x in zip(node.inputs, in_grads, inputs):
                if e is None or g is None or id(e[0]) not in needs:
                    continue
                if not isinstance(g, NDArray):
                    g = nd.array(g, dtype=x.dtype)
                if g.shape != x.shape:
                    raise HybridizeError(f"gradient rule of {node.op.name if node.op else node.name} gave shape "
                                         f"{g.shape} for an input of shape {x.shape}")
                grads.setdefault((id(e[0]), e[1]), []).append(g)
        results = []
        for x in xs:
            parts = grads.get((id(x), 0))
            data = x.out_data[0]
            g = _summed(nd, parts, monitor) if parts else None
            if variables is not None:
                if g is None:
                    g = nd.zeros_like(_saved(data, None))
                elif any(g is p for p in (head_grads or ())) or len(parts) == 1 and not create_graph:
                    g = g.copy() if not create_graph else nd._internal._copy(g)
                results.append(g)
                continue
            buf = x.grad
            x.fresh = True
            if x.grad_req == "write":
                if g is None:
                    buf._data[...] = 0
                elif g._data is not buf._data:      # (written there already by an ``into`` rule)
                    buf._data[...] = g._data
            elif g is not None:  # add
                buf._data += g._data.astype(buf._data.dtype, copy=False)
    finally:
        _state.recording, _state.training = prev_r, prev_t
    if not retain_graph:
        for n in order:
            if n.is_variable and n.grad_req != "null":
                continue
            n.alive = False
            n.inputs, n.in_data, n.out_data = [], [], []
    return results if variables is not None else None


def _ones_head(h: Any) -> Any:
    """The default head gradient: ``ones_like(h)`` (``zeros_like`` when empty), made directly for a
    classic NDArray outside ``record()`` (what the operator call returns there, without the call)."""
    if type(h) is NDArray and not _state.recording:
        return NDArray(np.ones_like(h._data), _propagated(h._ctx))
    return nd.ones_like(h) if h.size else nd.zeros_like(h)


def _saved(data: Any, entry: Any) -> Any:
    """An NDArray over a saved value, carrying its graph entry (so create_graph records against it)."""
    if not hasattr(data, "shape"):
        return data
    arr = NDArray(data)
    if entry is not None:
        arr._ag = entry
    return arr


def get_symbol(x: Any) -> Any:
    """The recorded computation history of ``x`` as a Symbol (variables ``var<i>``, constants
    ``null<i>``, operators ``node_<i>``, as MXNet names them)."""
    from . import symbol as sym
    made: dict = {}
    nulls = [0]

    def input_sym(e: Any) -> Any:
        if e is None:
            nulls[0] += 1
            return sym.var(f"null{nulls[0] - 1}")
        return entry_sym(*e)

    def entry_sym(node: _Node, idx: int) -> Any:
        key = id(node)
        if key not in made:
            if node.is_variable:
                made[key] = sym.var(node.name)
            elif node.symbol is not None:  # one tape node, MXNet's view of it
                entries, op_name, name = node.symbol
                ins = [input_sym(e) for e in entries]
                made[key] = op_name(ins, name) if callable(op_name) else _opaque(op_name, ins, len(node.out_data),
                                                                                 name)
            else:
                ins = [input_sym(e) for e in node.inputs]
                if node.op is None:
                    raise HybridizeError(f"get_symbol: the graph holds {node.name}, recorded without a symbol")
                fn = sym._internal.__dict__.get(node.op.name) or getattr(sym, node.op.name, None)
                attrs = {k: v for k, v in node.attrs.as_dict().items()} if node.attrs is not None else {}
                made[key] = _node_sym(node.op, ins, _given(node, attrs), node.name) if fn is None else fn(
                    *ins, name=node.name, **_given(node, attrs))
        s = made[key]
        return s[idx] if len(s.list_outputs()) > 1 else s

    return entry_sym(*x._ag)


def _node_sym(op: Any, ins: list, attrs: dict, name: str) -> Any:
    """One node of a registered operator that has no front-end function (an internal one)."""
    from .graph.ir import Entry, Node
    from .symbol import Symbol
    node = Node(op, name, attrs, [s.outputs[0] for s in ins])
    return Symbol([Entry(node, i) for i in range(node.num_outputs)])


def _opaque(op_name: str, ins: list, n_out: int, name: str) -> Any:
    """One node of an operator the runtime only shows (``_CachedOp``, ``_CustomFunction``): its
    inputs and outputs, no attributes; it cannot run."""
    from .graph.ir import Entry, Node
    from .ops.registry import OpDef
    from .symbol import Symbol

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise HybridizeError(f"{op_name} in a symbol from autograd.get_symbol cannot run")
    op = OpDef(name=op_name, compute=refuse, inputs=tuple(f"data{i}" for i in range(len(ins))),
               num_outputs=n_out)
    node = Node(op, name, {}, [s.outputs[0] for s in ins])
    return Symbol([Entry(node, i) for i in range(n_out)])


def _given(node: _Node, attrs: dict) -> dict:
    """The attributes of a recorded call that differ from the op's defaults (what MXNet keeps)."""
    out = {}
    for k, v in attrs.items():
        if k.startswith("__"):
            continue
        p = node.op.param(k)
        if p is None or p.default != v:
            out[k] = v
    return out


def install(autograd: Any, nd_module: Any) -> None:
    """Makes this module ``autograd``'s backward pass, running the rules with ``F`` = ``nd_module``."""
    global nd
    nd = nd_module
    autograd._engine = sys.modules[__name__]
