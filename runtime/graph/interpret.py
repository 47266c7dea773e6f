"""The reference executor: runs a graph node by node through the registry's kernels.

Slow but obviously right; the compiled executor (``codegen``) is tested against it.
"""
from __future__ import annotations

from typing import Callable, Mapping

import numpy as np

from ..base import HybridizeError
from .ir import Graph, Node

__all__ = ["evaluate"]


def evaluate(graph: Graph, values: Mapping[str, np.ndarray],
             monitor: Callable[[Node, list, list], None] | None = None) -> list[np.ndarray]:
    """Outputs of ``graph`` given every variable's value by name. ``monitor(node, inputs, outputs)``
    is called after each op (the executor's monitor callback)."""
    from .infer import complete_shape_attrs, entry_shapes, needs_shape_completion

    if needs_shape_completion(graph):
        # zeros((0, H)) begin states: dimensions inferred from the values given
        graph = graph.copy()
        known = {n.name: tuple(np.shape(values[n.name])) for n in graph.variables() if n.name in values}
        complete_shape_attrs(graph, entry_shapes(graph, known))
    env: dict[tuple[int, int], np.ndarray] = {}
    for n in graph.nodes:
        if n.op is None:
            if n.name not in values:
                raise HybridizeError(f"no value for variable {n.name!r}")
            env[(id(n), 0)] = values[n.name]
            continue
        args = [env[(id(e.node), e.index)] for e in n.inputs]
        out = n.op.compute(n.resolved, *args)
        if isinstance(out, (tuple, list)):
            for i, o in enumerate(out):
                env[(id(n), i)] = o
        else:
            env[(id(n), 0)] = out
        if monitor is not None:
            monitor(n, args, [env[(id(n), i)] for i in range(n.num_outputs)])
    return [env[(id(e.node), e.index)] for e in graph.outputs]
