"""Dead-code elimination: nodes no output depends on are dropped (order recomputed)."""
from __future__ import annotations

from ..ir import Graph
from . import Pass, PassContext


def eliminate_dead_code(graph: Graph, ctx: PassContext) -> Graph:
    before = len(graph.nodes)
    graph.reorder()
    ctx.stats["dce"] = {"removed": before - len(graph.nodes)}
    return graph


PASS = Pass("dce", eliminate_dead_code)
