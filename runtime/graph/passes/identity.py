"""Removal of no-op nodes, from the ops' traits (``ops/registry.py::TRAITS``): ``identity`` ops
(``_copy``, ``BlockGrad``, ``make_loss`` always; Dropout at inference, casts to the same dtype,
identity transposes: when their ``identity_if`` holds) and ``shape_only`` ops (reshapes, flattens,
squeeze, expand_dims) whose output has their input's shape."""
from __future__ import annotations

from ..ir import Entry, Graph
from . import Pass, PassContext


def remove_identities(graph: Graph, ctx: PassContext) -> Graph:
    meta = None
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
            if meta is None:
                meta = ctx.infer(graph)
            m_in, m_out = meta[src], meta[n.entry()]
            s_in = m_in.shape
            if s_in is None or m_out.shape is None or tuple(s_in) != tuple(m_out.shape):
                continue
            if m_in.dtype != m_out.dtype:
                continue
            if identity and not op.identity_if(n.resolved, ctx.training, tuple(s_in)):
                continue
        mapping[n.entry()] = src
        removed += 1
    ctx.stats["identity"] = {"removed": removed}
    return graph.substitute(mapping)


PASS = Pass("identity", remove_identities)
