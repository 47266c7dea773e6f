"""Removal of no-op nodes, from the ops' traits (``ops/registry.py::TRAITS``): ``identity`` ops
(``_copy``, ``BlockGrad``, ``make_loss`` always; Dropout at inference, casts to the same dtype,
identity transposes: when their ``identity_if`` holds) and ``shape_only`` ops (reshapes, flattens,
squeeze, expand_dims) whose output has their input's shape."""
from __future__ import annotations

from ..ir import Entry, Graph
from . import Pass, PassContext, substitute


def remove_identities(graph: Graph, ctx: PassContext) -> Graph:
    shapes = dtypes = None
    mapping: dict[Entry, Entry] = {}
    removed = 0
    for n in graph.nodes:
        op = n.op
        if op is None or not n.inputs or n.num_outputs != 1:
            continue
        identity, reshape = op.has("identity"), op.has("shape_only")
        if not (identity or reshape):
            continue
        src = n.inputs[0]
        if not (identity and op.identity_if is None):      # a no-op only when nothing changes
            if shapes is None:
                shapes, dtypes = ctx.infer(graph)
            s_in, s_out = shapes.get((id(src.node), src.index)), shapes.get((id(n), 0))
            if s_in is None or s_out is None or tuple(s_in) != tuple(s_out):
                continue
            if dtypes[(id(src.node), src.index)] != dtypes[(id(n), 0)]:
                continue
            if identity and not op.identity_if(n.resolved, ctx.training, tuple(s_in)):
                continue
        mapping[n.entry()] = src
        removed += 1
    ctx.stats["identity"] = {"removed": removed}
    return substitute(graph, mapping)


PASS = Pass("identity", 10, remove_identities)
