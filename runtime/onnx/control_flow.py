"""MXNet's subgraph operators as ONNX control flow: ``_foreach`` -> ``Scan``, ``_while_loop`` ->
``Loop``, ``_cond`` -> ``If``.

Each MXNet subgraph is converted by the same converters into an ONNX body graph. What a body
reads from outside the loop (parameters, values computed before it: MXNet's "remaining" inputs)
is referenced by its outer name, as ONNX lets subgraphs do; loop states and per-step slices
become the body's inputs. Shapes inside a body come from the runtime's shape inference on the
subgraph, run for the concrete and the perturbed input shapes as for the main graph, so dynamic
axes stay dynamic inside loops too.

``_while_loop``: MXNet checks the condition before every step; ONNX ``Loop`` takes the first
condition as an input and each next one from its body, so the cond subgraph is converted twice:
before the loop on the initial values, and at the end of the body on the new ones. MXNet pads the
stacked per-step outputs to ``max_iterations`` rows (their values undefined; ours are zeros, as
the numpy runtime's): the exported graph pads with zeros too.
"""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from ..graph.infer import infer_dtypes, infer_shapes
from .context import Builder, onnx_dtype
from .registry import converter


class _Body:
    """One MXNet subgraph converted into a :class:`Builder` with its inputs bound."""

    def __init__(self, n, sub, bound: dict, outer_consts: dict | None = None, top_builder: Builder | None = None):
        """``bound``: {position of a subgraph input: (ONNX name, shape, alt shape, dtype)}."""
        from .export import GraphConverter

        known, alt_known, dts, values, consts = {}, {}, {}, {}, {}
        for k, var in enumerate(sub.inputs):
            name, shape, alt, dt = bound[k]
            known[var.name], alt_known[var.name], dts[var.name] = tuple(shape), tuple(alt), dt
            values[(id(var), 0)] = name
            if outer_consts and k in outer_consts:
                consts[(id(var), 0)] = outer_consts[k]
        try:
            shapes = infer_shapes(sub.graph, known)
            alt = infer_shapes(sub.graph, alt_known)
        except ShapeError as e:
            n.fail(f"shape inference in a subgraph: {e}")
        self.builder = top_builder or Builder(n.b.names, n.opset, top=False)
        self.conv = GraphConverter(sub.graph, self.builder, shapes, alt, infer_dtypes(sub.graph, dts), values, consts)
        self.conv.run()
        self.sub = sub

    def outputs(self) -> list[str]:
        return [self.conv.values[(id(e.node), e.index)] for e in self.sub.graph.outputs]

    def output_info(self, k: int) -> tuple:
        key = (id(self.sub.graph.outputs[k].node), self.sub.graph.outputs[k].index)
        return self.conv.shape(key), self.conv.dyn(key), self.conv.dtype(key)


def _info(n, name: str, shape, dyn, dtype):
    dims = [None if d else int(s) for s, d in zip(shape, dyn)]
    return n.b.onnx.helper.make_tensor_value_info(name, onnx_dtype(dtype), dims)


def _outer(n, i: int) -> tuple:
    return (n.inputs[i], n.in_shape(i), n.in_alt(i), n.in_dtype(i))


def _outer_consts(n, locs) -> dict:
    out = {}
    for k, i in enumerate(locs):
        v = n.in_value(i)
        if v is not None:
            out[k] = v
    return out


def _graph(n, body: _Body, inputs: list, outputs: list[str], out_infos: list, label: str):
    """The body's GraphProto; every output an Identity of a fresh name (outputs must be unique
    and may not be the body's own inputs)."""
    h = n.b.onnx.helper
    nodes = list(body.builder.nodes)
    infos = []
    for src, info in zip(outputs, out_infos):
        name = n.b.names.fresh(f"{n.name}_{label}_out")
        nodes.append(h.make_node("Identity", [src], [name], name=n.b.names.fresh(name + "/Identity")))
        infos.append(_info(n, name, *info))
    return h.make_graph(nodes, n.b.names.fresh(f"{n.name}_{label}"), inputs, infos)


def _scalar_bool(n, b: Builder, x: str, dtype) -> str:
    """An MXNet condition (any dtype, one element) as ONNX's bool scalar."""
    zero = b.const(np.zeros((), dtype=dtype), hint=f"{n.name}_zero")
    nz = b.add("Not", b.add("Equal", [x, zero], hint=n.name), hint=n.name)[0]
    return b.add("Reshape", [nz, b.const(np.zeros((0,), np.int64), hint=f"{n.name}_scalar")], hint=n.name)[0]


# -- _foreach -> Scan ------------------------------------------------------------------------------
@converter("_foreach")
def foreach(n):
    a = n.attrs
    sub = a.subgraphs[0]
    nd, ns = len(a.in_data_locs), len(a.in_state_locs)
    bound, inputs = {}, []
    for k, loc in enumerate(a.in_state_locs):         # Scan body inputs: states first
        i = nd + k
        name = n.b.names.fresh(f"{n.name}_state{k}")
        bound[loc] = (name, n.in_shape(i), n.in_alt(i), n.in_dtype(i))
        inputs.append(_info(n, name, n.in_shape(i), n.in_dyn(i), n.in_dtype(i)))
    for k, loc in enumerate(a.in_data_locs):          # then one slice of each data array
        name = n.b.names.fresh(f"{n.name}_slice{k}")
        shape, alt, dyn = n.in_shape(k)[1:], n.in_alt(k)[1:], n.in_dyn(k)[1:]
        bound[loc] = (name, shape, alt, n.in_dtype(k))
        inputs.append(_info(n, name, shape, dyn, n.in_dtype(k)))
    remain = {loc: nd + ns + k for k, loc in enumerate(a.remain_locs)}
    for loc, i in remain.items():
        bound[loc] = _outer(n, i)
    body = _Body(n, sub, bound, {loc: v for loc, i in remain.items() if (v := n.in_value(i)) is not None})
    outs = body.outputs()
    nod = int(a.num_out_data)
    order = list(range(nod, len(outs))) + list(range(nod))     # Scan: states, then scan outputs
    g = _graph(n, body, inputs, [outs[k] for k in order], [body.output_info(k) for k in order], "body")
    res = n.ops("Scan", [n.inputs[nd + k] for k in range(ns)] + [n.inputs[k] for k in range(nd)],
                len(outs), body=g, num_scan_inputs=nd)
    states, scans = res[:ns], res[ns:]
    return scans + states


# -- _while_loop -> Loop ---------------------------------------------------------------------------
@converter("_while_loop")
def while_loop(n):
    a = n.attrs
    cond_sub, func_sub = a.subgraphs
    var_at = [a.func_input_locs[k] for k in a.func_var_locs]       # node input of each loop variable
    nvars, nod = len(var_at), int(a.num_out_data)
    h = n.b.onnx.helper
    # the first condition, on the initial values, before the loop
    first = _Body(n, cond_sub, {j: _outer(n, i) for j, i in enumerate(a.cond_input_locs)},
                  _outer_consts(n, a.cond_input_locs), top_builder=n.b)
    cond0 = _scalar_bool(n, n.b, first.outputs()[0], first.output_info(0)[2])
    # the body: func on the current loop variables, then cond on the new ones
    it = n.b.names.fresh(f"{n.name}_iter")
    cin = n.b.names.fresh(f"{n.name}_cond_in")
    inputs = [h.make_tensor_value_info(it, onnx_dtype(np.int64), []),
              h.make_tensor_value_info(cin, onnx_dtype(np.bool_), [])]
    var_names = []
    for k, i in enumerate(var_at):
        name = n.b.names.fresh(f"{n.name}_var{k}")
        var_names.append(name)
        inputs.append(_info(n, name, n.in_shape(i), n.in_dyn(i), n.in_dtype(i)))
    fbound = {}
    for j, i in enumerate(a.func_input_locs):
        if j in a.func_var_locs:
            k = list(a.func_var_locs).index(j)
            fbound[j] = (var_names[k], n.in_shape(i), n.in_alt(i), n.in_dtype(i))
        else:
            fbound[j] = _outer(n, i)
    func = _Body(n, func_sub, fbound, {j: v for j, i in enumerate(a.func_input_locs)
                                      if j not in a.func_var_locs and (v := n.in_value(i)) is not None})
    fouts = func.outputs()
    new_vars = fouts[nod:]
    cbound = {}
    for j, i in enumerate(a.cond_input_locs):
        if i in var_at:
            k = var_at.index(i)
            shape, dyn, dt = func.output_info(nod + k)
            cbound[j] = (new_vars[k], shape, n.in_alt(i), dt)
        else:
            cbound[j] = _outer(n, i)
    nxt = _Body(n, cond_sub, cbound, top_builder=func.builder)
    cond_out = _scalar_bool(n, func.builder, nxt.outputs()[0], nxt.output_info(0)[2])
    outs = [cond_out] + new_vars + fouts[:nod]
    infos = [((), (), np.bool_)] + [func.output_info(nod + k) for k in range(nvars)] + \
            [func.output_info(k) for k in range(nod)]
    g = _graph(n, func, inputs, outs, infos, "body")
    trip = n.const(np.asarray(int(a.max_iterations), np.int64))
    res = n.ops("Loop", [trip, cond0] + [n.inputs[i] for i in var_at], nvars + nod, body=g)
    finals, stacked = res[:nvars], res[nvars:]
    padded = []
    for k, s in enumerate(stacked):      # pad the steps taken to max_iterations rows of zeros
        rank = len(func.output_info(k)[0]) + 1
        steps = n.dim(s, 0)
        extra = n.op("Sub", n.ints([int(a.max_iterations)]), steps)
        pads = n.op("Concat", n.ints([0] * rank), extra, n.ints([0] * (rank - 1)), axis=0)
        padded.append(n.op("Pad", s, pads, n.const(np.zeros((), func.output_info(k)[2])), mode="constant"))
    return padded + finals


# -- _cond -> If -----------------------------------------------------------------------------------
@converter("_cond")
def cond(n):
    a = n.attrs
    cond_sub, then_sub, else_sub = a.subgraphs
    c = _Body(n, cond_sub, {j: _outer(n, i) for j, i in enumerate(a.cond_input_locs)},
              _outer_consts(n, a.cond_input_locs), top_builder=n.b)
    flag = _scalar_bool(n, n.b, c.outputs()[0], c.output_info(0)[2])
    branches = []
    for sub, locs, label in ((then_sub, a.then_input_locs, "then"), (else_sub, a.else_input_locs, "else")):
        body = _Body(n, sub, {j: _outer(n, i) for j, i in enumerate(locs)}, _outer_consts(n, locs))
        k = len(sub.graph.outputs)
        branches.append(_graph(n, body, [], body.outputs(), [body.output_info(j) for j in range(k)], label))
    return n.ops("If", [flag], int(a.num_outputs), then_branch=branches[0], else_branch=branches[1])
