"""The reference executor: runs a graph node by node through the registry's kernels.

Slow but obviously right; the compiled executor (``codegen``) is tested against it.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Callable

import numpy as np

from ..base import HybridizeError, OutOfMemoryError
from .interpreter import Interpreter
from .ir import Graph, Node

__all__ = ["evaluate"]


class _Evaluator(Interpreter):
    """Values are arrays: a variable's is given by name, an operator's computed by its kernel."""

    def __init__(self, values: Mapping[str, np.ndarray], monitor: Callable[[Node, list, list], None] | None):
        super().__init__()
        self.values, self.monitor = values, monitor

    def variable(self, n: Node) -> np.ndarray:
        if n.name not in self.values:
            raise HybridizeError(f"no value for variable {n.name!r}")
        return self.values[n.name]

    def apply(self, n: Node, args: list) -> list:
        try:
            out = n.op.compute(n.resolved, *args)  # type: ignore[union-attr]
        except OutOfMemoryError:
            raise
        except MemoryError as e:
            raise OutOfMemoryError.at(n.name, n.op.name, e) from None  # type: ignore[union-attr]
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        if self.monitor is not None:
            self.monitor(n, args, outs[:n.num_outputs])
        return outs


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
    ev = _Evaluator(values, monitor)
    ev.run(graph)
    return ev.results(graph)
