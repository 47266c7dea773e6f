"""The differentiate stage: the backward graph of a training program (pass ``differentiate``).

Runs first, on compiles that ask for gradients (``PassContext.differentiate``: the names of the
variables to differentiate with respect to). Reverse mode over the IR, as the tape does at run
time (``_autograd_engine.run_backward``) but once, on graph nodes: in reverse order each operator
on a path from a differentiated variable to an output calls its ``OpDef.gradient`` rule with
``F = sym`` (the same rule the tape calls with ``F = nd``), on Symbols over its input and output
entries and the summed gradients of its outputs; gradients reaching one entry are summed with
``add_n`` (MXNet's ElementWiseSum); a variable no gradient reaches gets zeros (what the tape writes).

The result is split in two programs (a training step is two compiled calls):

- the **forward** graph, returned to the pipeline: the original outputs followed by the entries
  the backward reads (*saved* activations: the inputs and outputs of the operators whose rules
  need them), so an activation lives past the forward call only if the backward uses it;
- the **backward** graph (``ctx.backward``, a :class:`Backward`): inputs are one head gradient per
  output that depends on a differentiated variable, then the saved entries (data inputs among
  them, fed by the caller directly); parameters stay parameters (bound, read by reference:
  BatchNorm's rule updates the moving statistics in place, as MXNet's CPU kernel does);
  outputs are the gradients of the differentiated variables, in order.

Graphs the stage cannot differentiate raise :class:`NotDifferentiable` (an operator without a
rule, a random operator whose draw the backward would need, a subgraph operator, a rule that does
not build graph nodes, a gradient of the wrong shape): the caller runs the graph op by op on the
tape instead, never a wrong program.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...base import HybridizeError
from ..ir import Entry, Graph, Meta, Node
from . import Pass, PassContext, registry_op

# run by the host (subgraphs, Python callbacks): the tape differentiates them op by op
_HOST_OPS = tuple(registry_op(n) for n in ("_foreach", "_while_loop", "_cond", "Custom"))

__all__ = ["Backward", "NotDifferentiable", "PASS"]


class NotDifferentiable(HybridizeError):
    """The graph is outside what the differentiate stage handles (the caller falls back)."""


@dataclass
class Backward:
    """The backward half of a training program (see the module docstring)."""

    graph: Graph
    head_outputs: list[int]                          # which forward outputs have a head gradient input
    head_names: list[str]
    saved_names: list[str]                           # backward inputs after the heads
    saved_from: list[tuple[str, int]]                # per saved: ("input", name) / ("output", forward output index)
    shapes: dict[str, tuple] = field(default_factory=dict)
    dtypes: dict[str, np.dtype] = field(default_factory=dict)
    params: list[str] = field(default_factory=list)  # parameters the backward reads
    n_outputs: int = 0                               # the forward graph's own outputs (the saved follow)


def _reject(n: Node) -> str | None:
    op = n.op
    if op.gradient is None:
        return f"{op.name} has no gradient rule"
    if op.has("random"):
        return f"{op.name} draws random numbers"
    if getattr(op, "subgraphs", None) or any(op is host for host in _HOST_OPS):
        return f"{op.name} is a subgraph or custom operator"
    return None


def differentiate(graph: Graph, ctx: PassContext) -> Graph:
    from ... import symbol as sym
    from ...name import NameManager
    from ...ops.registry import ZERO_GRAD

    wrt_names = list(ctx.differentiate or ())
    meta = ctx.infer(graph)
    by_name = {n.name: n for n in graph.variables()}
    missing = [nm for nm in wrt_names if nm not in by_name]
    if missing:
        raise NotDifferentiable(f"no variable {missing[0]!r} to differentiate")
    wrt = [by_name[nm] for nm in wrt_names]
    # nodes on a path from a differentiated variable
    needs = {id(n) for n in wrt}
    for n in graph.nodes:
        if n.op is not None and any(id(e.node) in needs for e in n.inputs):
            needs.add(id(n))
            why = _reject(n)
            if why is not None:
                raise NotDifferentiable(why)
    head_outputs, head_names = [], []
    forward_ids = {id(n) for n in graph.nodes}
    adj: dict[Entry, list[Entry]] = {}
    with NameManager():
        for i, e in enumerate(graph.outputs):
            if id(e.node) in needs:
                name = f"__head{i}"
                head_outputs.append(i)
                head_names.append(name)
                adj.setdefault(e, []).append(sym.var(name)._outputs[0])

        def total(parts: list[Entry]) -> Entry:
            return parts[0] if len(parts) == 1 else sym.add_n(*[sym.Symbol([p]) for p in parts])._outputs[0]

        for n in reversed(graph.nodes):
            if n.op is None or id(n) not in needs:
                continue
            found = [adj.get(Entry(n, k)) for k in range(n.num_outputs)]
            if all(f is None for f in found):
                continue
            rule = n.op.gradient
            if rule is ZERO_GRAD:
                continue
            outs = [sym.Symbol([Entry(n, k)]) for k in range(n.num_outputs)]
            ogs = [sym.Symbol([total(f)]) if f else sym.zeros_like(outs[k]) for k, f in enumerate(found)]
            attrs = n.resolved
            if n.op.mode_dependent:
                attrs = type(attrs)({**attrs.as_dict(), "__is_train__": ctx.training})
            try:
                grads = rule(sym, attrs, [sym.Symbol([e]) for e in n.inputs], outs, ogs)
            except Exception as err:  # noqa: BLE001 - a rule that needs values, not graph nodes
                raise NotDifferentiable(f"the gradient rule of {n.op.name} does not build a graph: {err}") from err
            for e, g in zip(n.inputs, grads):
                if g is None or id(e.node) not in needs:
                    continue
                if not isinstance(g, sym.Symbol) or len(g._outputs) != 1:
                    raise NotDifferentiable(f"the gradient rule of {n.op.name} gave {type(g).__name__}")
                adj.setdefault(e, []).append(g._outputs[0])
        grads_out = []
        for v in wrt:
            parts = adj.get(Entry(v, 0))
            grads_out.append(total(parts) if parts else sym.zeros_like(sym.Symbol([Entry(v, 0)]))._outputs[0])

    # the split: forward entries the backward reads become its inputs (or stay parameters)
    joint = Graph(grads_out)
    saved: dict[Entry, Node] = {}
    params: set[str] = set()
    saved_names, saved_from = [], []
    out_index = {e: i for i, e in enumerate(graph.outputs)}
    fwd_outputs = list(graph.outputs)
    head_vars = set(head_names)
    shapes: dict[str, tuple] = {}
    dtypes: dict[str, np.dtype] = {}

    def saved_var(e: Entry) -> Entry:
        if e.node.op is None and ctx.is_param(e.node):
            params.add(e.node.name)
            return e
        v = saved.get(e)
        if v is None:
            name = f"__saved{len(saved)}"
            v = saved[e] = Node(None, name)
            m = meta[e] if e in meta else extra_meta[e]
            saved_names.append(name)
            if e.node.op is None:
                saved_from.append(("input", e.node.name))
            else:
                if e not in out_index:
                    out_index[e] = len(fwd_outputs)
                    fwd_outputs.append(e)
                saved_from.append(("output", out_index[e]))
            shapes[name], dtypes[name] = tuple(m.shape), np.dtype(m.dtype)
        return Entry(v, 0)

    backward_nodes = [n for n in joint.nodes if id(n) not in forward_ids]
    _read_less(backward_nodes)
    extra_meta: dict[Entry, Meta] = {}
    if ctx.training:
        remap = _pool_taps(backward_nodes, forward_ids, meta, extra_meta, ctx)
        if remap:
            for n in backward_nodes:
                n.inputs = [remap.get(e, e) for e in n.inputs]
            grads_out = [remap.get(e, e) for e in grads_out]
            live = {id(n) for n in Graph(grads_out).nodes}      # the replaced nodes' inputs are not saved
            backward_nodes = [n for n in backward_nodes if id(n) in live]
    for n in backward_nodes:
        if n.op is None:
            continue
        n.inputs = [saved_var(e) if id(e.node) in forward_ids else e for e in n.inputs]
    outputs = [saved_var(e) if id(e.node) in forward_ids else e for e in grads_out]
    split_stats: dict = {}
    bgraph = _split_conv_grads(Graph(outputs), ctx, lambda e: meta[e].shape if e in meta else shapes[e.node.name],
                               split_stats)
    # an output whose gradient the backward never reads (a comparison's is zero) takes no head input
    used = {v.name for v in bgraph.variables()}
    kept = [(i, name) for i, name in zip(head_outputs, head_names) if name in used]
    head_outputs, head_names = [i for i, _ in kept], [name for _, name in kept]
    for i, name in kept:
        e = graph.outputs[i]
        shapes[name], dtypes[name] = tuple(meta[e].shape), np.dtype(meta[e].dtype)
    for v in bgraph.variables():
        if v.op is None and v.name not in shapes and v.name not in head_vars and v.name not in params:
            raise NotDifferentiable(f"backward graph reads an unknown variable {v.name!r}")
    ctx.backward = Backward(bgraph, head_outputs, head_names, saved_names, saved_from, shapes, dtypes,
                            sorted(params), len(graph.outputs))
    ctx.stats["differentiate"] = {"backward_nodes": sum(1 for n in bgraph.nodes if n.op is not None),
                                  "saved": len(saved_names), **split_stats}
    if len(fwd_outputs) == len(graph.outputs):
        return graph
    return Graph(fwd_outputs)


def _read_less(nodes: list[Node]) -> None:
    """Backward kernels given an input they never read get another one of the same shape that is
    saved anyway, so the forward keeps fewer activations: ``_backward_Activation`` reads only the
    output (softsign excepted), not the input (e.g. a BatchNorm's output before ReLU)."""
    from ...ops.registry import find_op
    bact = find_op("_backward_Activation")
    for n in nodes:
        if n.op is bact and n.resolved.act_type != "softsign":
            n.inputs = [n.inputs[0], n.inputs[2], n.inputs[2]]


def _pool_taps(nodes: list[Node], forward_ids: set, meta: dict, extra_meta: dict, ctx: PassContext) -> dict:
    """A max pool whose windows tile its input (kernel == stride, no padding) over samples-last-sized
    activations (``layout._samples_last``: LeNet's) records each window's maximum tap in the forward
    (``_hy_pool_taps``, one byte a window), and its backward (with the following relu's, when the pool
    read a relu's output) scatters the gradient by those taps (``_hy_maxpool_bwd_taps``): the pool's
    input is no longer saved for the backward (LeNet at batch 64: 1.1 of its 2.6 MB of saved
    activations). Appends the new backward nodes to ``nodes``; returns the replaced gradients."""
    from ...ops.registry import find_op
    from ..kernels.train_sl import MAXPOOL_BWD_TAPS, POOL_TAPS
    from .layout import _samples_last
    bpool, bact = find_op("_backward_Pooling"), find_op("_backward_Activation")
    uses: dict[Entry, int] = {}
    for n in nodes:
        for e in n.inputs:
            uses[e] = uses.get(e, 0) + 1
    relu_of = {n.inputs[0]: n for n in nodes if n.op is bact and n.resolved.act_type == "relu"
               and n.inputs[0].node.op is bpool and uses.get(n.inputs[0]) == 1}
    remap: dict[Entry, Entry] = {}
    for n in list(nodes):
        if n.op is not bpool:
            continue
        a = n.resolved
        g, x, y = n.inputs[:3]
        kernel = tuple(a.kernel or ())
        if id(x.node) not in forward_ids or id(y.node) not in forward_ids or a.pool_type != "max" or a.global_pool \
                or len(kernel) != 2 or (a.layout or "NCHW") != "NCHW" or a.pooling_convention not in ("valid", "full"):
            continue
        xs = meta[x].shape if x in meta else None
        if tuple(a.stride or (1, 1)) != kernel or any(a.pad or ()) or not _samples_last(xs) \
                or xs[2] % kernel[0] or xs[3] % kernel[1]:
            continue
        taps = Node(POOL_TAPS, ctx.fresh(n.name + "_taps"), {"kernel": kernel}, [x, y])
        forward_ids.add(id(taps))
        extra_meta[Entry(taps, 0)] = Meta(tuple(meta[y].shape), np.dtype(np.int8))
        r = relu_of.get(Entry(n, 0))
        relu = r is not None and r.inputs[1] == x          # the pool read the relu's output
        b = Node(MAXPOOL_BWD_TAPS, n.name, {"kernel": kernel, "relu": relu}, [g, Entry(taps, 0), y])
        nodes.append(b)
        remap[Entry(r, 0) if relu else Entry(n, 0)] = Entry(b, 0)
    return remap


def _split_conv_grads(g: Graph, ctx: PassContext, shape_of, stats: dict) -> Graph:
    """Each 2-D channel-first ``_backward_Convolution`` becomes ``_hy_conv_wgrad`` (weight and bias
    gradients) plus, when the data's gradient is read, a stride-1 ``Convolution`` of the output
    gradient with the flipped weight (lowered to the fast kernels like any forward convolution),
    or ``_hy_conv_dgrad`` for a strided, dilated or grouped one."""
    from ...ops.registry import find_op
    from ..kernels.grad import CONV_DGRAD, CONV_FLIP, CONV_WGRAD
    bconv, conv = find_op("_backward_Convolution"), find_op("Convolution")
    used: set[Entry] = set(g.outputs)
    for n in g.nodes:
        used.update(n.inputs)
    remap: dict[Entry, Entry] = {}
    split = flipped = 0
    for n in g.nodes:
        if n.op is not bconv:
            continue
        a = n.resolved
        k = tuple(a.kernel)
        if len(k) != 2 or (a.layout or "NCHW") != "NCHW":
            continue
        stride = tuple(a.stride) or (1, 1)
        dil = tuple(a.dilate) or (1, 1)
        pad = tuple(a.pad) or (0, 0)
        need_dx = Entry(n, 0) in used
        gin, x, w = n.inputs[:3]
        # the flipped convolution reads every input position's k*k window of the output gradient:
        # worth it only while the output is about as large as the input (a kernel as large as the
        # image, 224x224 onto 1x1, would build 224^4 columns; col2im scatters 1x1 outputs instead)
        direct = stride == (1, 1) and dil == (1, 1) and a.num_group == 1 and all(p <= kk - 1 for p, kk in zip(pad, k))
        if direct:
            insp = shape_of(x)[2:]
            outsp = [n_ + 2 * p - kk + 1 for n_, p, kk in zip(insp, pad, k)]     # stride 1, no dilation
            direct = int(np.prod(insp)) <= 2 * int(np.prod(outsp))
        wg = Node(CONV_WGRAD, ctx.fresh(n.name + "_wgrad"), {"kernel": k, "stride": stride, "dilate": dil, "pad": pad,
                                                             "num_group": a.num_group, "no_bias": a.no_bias}, [gin, x, w])
        remap[Entry(n, 1)] = Entry(wg, 0)
        if not a.no_bias:
            remap[Entry(n, 2)] = Entry(wg, 1)
        split += 1
        if need_dx and not direct:
            remap[Entry(n, 0)] = Entry(Node(CONV_DGRAD, ctx.fresh(n.name + "_dgrad"),
                                            {"kernel": k, "stride": stride, "dilate": dil, "pad": pad,
                                             "num_group": a.num_group}, [gin, w, x]), 0)
        elif need_dx:
            wt = Node(CONV_FLIP, ctx.fresh(n.name + "_flip"), {}, [w])
            attrs = conv.coerce_attrs({"kernel": k, "num_filter": int(shape_of(w)[1]),
                                       "pad": tuple(kk - 1 - p for kk, p in zip(k, pad)), "no_bias": True})
            remap[Entry(n, 0)] = Entry(Node(conv, ctx.fresh(n.name + "_dgrad"), attrs, [gin, Entry(wt, 0)]), 0)
            flipped += 1
    if not remap:
        return g
    for n in g.nodes:
        n.inputs = [remap.get(e, e) for e in n.inputs]
    stats.update(conv_grads_split=split, conv_dgrad_as_conv=flipped)
    return Graph([remap.get(e, e) for e in g.outputs])


PASS = Pass("differentiate", differentiate, optional=False)
