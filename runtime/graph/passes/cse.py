"""Common-subexpression elimination: one node per (op, attributes, inputs)."""
from __future__ import annotations

from ..ir import Entry, Graph
from . import Pass, PassContext, substitute

_RANDOM_PREFIXES = ("_random", "_sample", "random_", "sample_", "_npi_random")


def _pure(node, ctx: PassContext) -> bool:
    op = node.op
    if op.name.startswith(_RANDOM_PREFIXES) or op.name in ("Dropout",):
        return False
    return not (op.mode_dependent and ctx.training)


def eliminate_common_subexpressions(graph: Graph, ctx: PassContext) -> Graph:
    seen: dict[tuple, object] = {}
    mapping: dict[Entry, Entry] = {}
    merged = 0
    for n in graph.nodes:
        if n.op is None or not _pure(n, ctx):
            continue
        n.inputs = [mapping.get(e, e) for e in n.inputs]
        key = (id(n.op), n.resolved, tuple((id(e.node), e.index) for e in n.inputs))
        other = seen.get(key)
        if other is None:
            seen[key] = n
            continue
        for i in range(n.num_outputs):
            mapping[Entry(n, i)] = Entry(other, i)
        merged += 1
    ctx.stats["cse"] = {"merged": merged}
    return substitute(graph, mapping)


PASS = Pass("cse", 20, eliminate_common_subexpressions)
