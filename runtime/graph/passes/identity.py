"""Removal of identity ops: Dropout at inference, ``_copy``/``identity``, ``BlockGrad``,
reshapes/flattens/transposes that do not change the layout, casts to the same dtype."""
from __future__ import annotations

from ..ir import Entry, Graph
from . import Pass, PassContext, substitute

_ALWAYS = {"_copy", "identity", "BlockGrad", "stop_gradient", "make_loss", "_CrossDeviceCopy"}
_SHAPE_ONLY = {"Reshape", "reshape", "Flatten", "flatten", "reshape_like", "squeeze", "expand_dims"}


def remove_identities(graph: Graph, ctx: PassContext) -> Graph:
    shapes = dtypes = None
    mapping: dict[Entry, Entry] = {}
    removed = 0
    for n in graph.nodes:
        if n.op is None or not n.inputs:
            continue
        name = n.op.name
        src = n.inputs[0]
        if name in _ALWAYS and n.num_outputs == 1:
            mapping[n.entry()] = src
        elif name == "Dropout" and not ctx.training and n.resolved.mode == "training":
            mapping[n.entry()] = src
        elif name in _SHAPE_ONLY or name in ("transpose", "Cast", "cast", "SwapAxis", "swapaxes"):
            if shapes is None:
                shapes, dtypes = ctx.infer(graph)
            s_in, s_out = shapes.get((id(src.node), src.index)), shapes.get((id(n), 0))
            if s_in is None or s_out is None or tuple(s_in) != tuple(s_out):
                continue
            if dtypes[(id(src.node), src.index)] != dtypes[(id(n), 0)]:
                continue
            if name == "transpose":
                axes = tuple(n.resolved.axes or ())
                if axes and axes != tuple(range(len(s_in))):
                    continue
                if not axes and len(s_in) > 1 and len(set(s_in)) > 1:
                    continue
                if not axes and len(s_in) > 1:
                    continue
            if name in ("SwapAxis", "swapaxes"):
                a = n.resolved
                if a.dim1 != a.dim2:
                    continue
            mapping[n.entry()] = src
        else:
            continue
        removed += 1
    ctx.stats["identity"] = {"removed": removed}
    return substitute(graph, mapping)


PASS = Pass("identity", 10, remove_identities)
