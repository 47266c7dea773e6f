"""The compiler's passes, one module each; the pipeline that orders them is ``graph/pipeline.py``
(one list, read there).

A pass is ``Pass(name, fn)`` with ``fn(graph, ctx) -> graph``: it rewrites ``graph`` through the
graph's edit methods (which keep users and metadata current) or returns a new graph, and records
what it did in ``ctx.stats[name]``.

The :class:`PassContext` carries what passes may need: which variables are data inputs (their
shapes and dtypes, the program is specialized on them), which are parameters (rebindable:
passes never read parameter *values*, parameter-dependent folds become graph nodes that the
compiled program evaluates again whenever parameters are bound), literal constants created by
folding, the graph's metadata brought up to date (:meth:`PassContext.infer`), and what later
stages produce (the schedule, the program).

Passes recognize ops by what the registry says about them: traits (``op.has("identity")``,
``op.pure(training)``, see ``ops/registry.py::TRAITS``) or, for op-specific rewrites, the registry's
:class:`OpDef` itself, fetched by :func:`registry_op` under its canonical name (a node carries the
canonical op; an alias such as ``"_plus"`` would never match, so an alias is refused at import).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..infer import annotate
from ..ir import Entry, Graph, Meta, Node

__all__ = ["Pass", "PassContext", "all_passes", "registry_op", "referenced_ops"]

_REFERENCED: set[str] = set()


def registry_op(name: str) -> Any:
    """The registry's op named ``name`` for a pass to match nodes against (``node.op is CONVOLUTION``).
    ``name`` must be the canonical name, the one nodes carry: an alias or an unknown name raises."""
    from ...ops.registry import find_op
    op = find_op(name)
    if op is None or op.name != name:
        raise ValueError(f"graph pass refers to operator {name!r}, which is "
                         + ("not registered" if op is None else f"an alias of {op.name!r} (nodes carry {op.name!r})"))
    _REFERENCED.add(name)
    return op


def referenced_ops() -> set[str]:
    """Canonical names of every op the passes (once imported) match by identity."""
    all_passes()
    return set(_REFERENCED)


@dataclass(frozen=True)
class Pass:
    name: str
    fn: Callable[[Graph, "PassContext"], Graph]
    inference_only: bool = False    # skipped when compiling for training
    optional: bool = True           # an optimization (compile_graph's passes/disable/optimize choose);
                                    # False: the program needs it, it always runs
    default: bool = True            # an optional pass run when compile_graph is not given ``passes``

    def __call__(self, graph: Graph, ctx: "PassContext") -> Graph:
        return self.fn(graph, ctx)


@dataclass
class PassContext:
    input_names: list[str]
    input_shapes: dict[str, tuple]
    input_dtypes: dict[str, np.dtype]
    param_shapes: dict[str, tuple] = field(default_factory=dict)
    param_dtypes: dict[str, np.dtype] = field(default_factory=dict)
    training: bool = False
    constants: dict[str, np.ndarray] = field(default_factory=dict)   # folded literals, by variable name
    options: dict[str, Any] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
    original_params: dict[str, tuple] = field(default_factory=dict)   # the caller's parameters, by name
    steps: list[Node] = field(default_factory=list)      # plan memory: the program's steps, in order
    dynamic_ids: set[int] = field(default_factory=set)   # plan memory: ids of the nodes computed per call
    program: Any = None                                  # emit: the CompiledProgram
    differentiate: list[str] | None = None               # differentiate: the variables to differentiate
    backward: Any = None                                 # differentiate: the backward graph (a ``Backward``)
    _counter: int = 0

    # -- names -----------------------------------------------------------------------------
    def fresh(self, hint: str) -> str:
        self._counter += 1
        return f"{hint}__hy{self._counter}"

    def is_input(self, node: Node) -> bool:
        return node.op is None and node.name in self.input_names

    def is_constant(self, node: Node) -> bool:
        return node.op is None and node.name in self.constants

    def is_param(self, node: Node) -> bool:
        return node.op is None and not self.is_input(node) and not self.is_constant(node)

    def add_constant(self, value: np.ndarray, hint: str = "const") -> Node:
        """A new variable node holding a literal constant (not rebindable)."""
        name = self.fresh(hint)
        self.constants[name] = value
        return Node(None, name)

    # -- inference -------------------------------------------------------------------------
    def known_shapes(self) -> dict[str, tuple]:
        known = dict(self.param_shapes)
        known.update({k: tuple(v.shape) for k, v in self.constants.items()})
        known.update(self.input_shapes)
        return known

    def known_dtypes(self) -> dict[str, Any]:
        known: dict[str, Any] = dict(self.param_dtypes)
        known.update({k: v.dtype for k, v in self.constants.items()})
        known.update(self.input_dtypes)
        return known

    def infer(self, graph: Graph) -> dict[Entry, Meta]:
        """``graph.meta`` brought up to date: the shape and dtype of every entry."""
        return annotate(graph, self.known_shapes(), self.known_dtypes())

    def dynamic(self, graph: Graph) -> set[int]:
        """ids of the nodes whose value depends on a data input or changes from call to call (random
        draws): the rest is foldable, computed once per ``bind_params``."""
        dyn: set[int] = set()
        for n in graph.nodes:
            if n.op is None:
                if self.is_input(n):
                    dyn.add(id(n))
            elif n.op.mode_dependent and self.training or n.op.has("random") \
                    or any(id(e.node) in dyn for e in n.inputs):
                dyn.add(id(n))
        return dyn


def all_passes() -> list[Pass]:
    """The optional passes, in pipeline order (what ``compile_graph(passes=...)`` chooses from)."""
    from ..pipeline import PIPELINE
    return [p for stage in PIPELINE for p in stage.passes if p.optional]


def is_float(dtype: Any) -> bool:
    return np.dtype(dtype) in (np.dtype(np.float32), np.dtype(np.float64))
