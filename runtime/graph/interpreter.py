"""The one walk over a graph: nodes in order, each operator applied to its inputs' values.

Shape and dtype inference (``infer``), the reference executor (``interpret``) and the code
emitter (``codegen``) are the same traversal over different values (shapes, arrays, expressions
in the generated source), as an abstract interpreter is: each specialises :class:`Interpreter`
by saying what a variable is and what applying an operator gives.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Generic, TypeVar

from .ir import Entry, Graph, Node

__all__ = ["Interpreter"]

V = TypeVar("V")


class Interpreter(Generic[V]):
    """Walks nodes in order, keeping one value per entry in ``env``.

    Subclasses define :meth:`variable` (a variable's value) and :meth:`apply` (an operator node's
    output values from its input values). :meth:`read` is how an input's value is fetched
    (``env[e]``; an analysis that tolerates unknown values reads ``env.get(e)``).
    """

    def __init__(self, env: dict[Entry, V] | None = None):
        self.env: dict[Entry, V] = {} if env is None else env

    def variable(self, node: Node) -> V:
        raise NotImplementedError

    def apply(self, node: Node, args: list) -> Sequence[V]:
        raise NotImplementedError

    def read(self, e: Entry) -> V:
        return self.env[e]

    def run(self, graph: Graph, nodes: Iterable[Node] | None = None) -> dict[Entry, V]:
        """Interprets ``nodes`` (default: the whole graph, in order); returns ``env``."""
        env, read = self.env, self.read
        for n in graph.nodes if nodes is None else nodes:
            if n.op is None:
                env[Entry(n, 0)] = self.variable(n)
                continue
            for i, v in enumerate(self.apply(n, [read(e) for e in n.inputs])):
                env[Entry(n, i)] = v
        return env

    def results(self, graph: Graph) -> list[V]:
        return [self.env[e] for e in graph.outputs]
