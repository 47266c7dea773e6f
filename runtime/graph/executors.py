"""The one place an executor is chosen: a graph specialized on its input shapes becomes a
*program* (``prog(*inputs) -> [outputs]`` in ``input_names`` order, or by keyword;
``prog.bind_params(params, partial=False)``; ``prog.direct()``, Gluon's fast path).

Executors, by name (``HYBRIDIZE_EXECUTOR`` or the caller's choice; default ``compiled``):

- ``compiled``: the graph compiler (``codegen.compile_graph``);
- ``interpret``: the reference interpreter (``interpret.evaluate``), node by node;
- ``onnxruntime``: exported to ONNX in memory and run by onnxruntime; registered by
  ``runtime/onnx/session.py`` (this package never imports the ONNX layer above it: the registry
  names the module that registers it, imported on first use).

Gluon (``HybridBlock``), ``Model`` (``hybridize run``) and the benchmarks ask here.
"""
from __future__ import annotations

import importlib
import os
from collections.abc import Mapping, Sequence
from typing import Any, Callable

import numpy as np

from ..base import HybridizeError
from .ir import Graph

__all__ = ["EXECUTORS", "register", "choose", "program"]

Factory = Callable[..., Any]   # (graph, input_names, shapes, dtypes, params, training) -> program

EXECUTORS: dict[str, Factory] = {}
_REGISTERED_BY = {"onnxruntime": "hybridize.runtime.onnx.session"}


def register(name: str) -> Callable[[Factory], Factory]:
    """Registers the decorated factory as executor ``name``."""
    def deco(factory: Factory) -> Factory:
        EXECUTORS[name] = factory
        return factory
    return deco


def choose(requested: str | None = None, supported: Sequence[str] | None = None) -> str:
    """The executor's name: ``requested``, else ``$HYBRIDIZE_EXECUTOR``, else ``compiled``. A caller
    that runs only some executors (``supported``) gets ``compiled`` for the others."""
    kind = requested or os.environ.get("HYBRIDIZE_EXECUTOR") or "compiled"
    if supported is not None and kind not in supported:
        return "compiled"
    if kind not in EXECUTORS and kind not in _REGISTERED_BY:
        raise HybridizeError(f"unknown executor {kind!r} ({', '.join([*EXECUTORS, *_REGISTERED_BY])})")
    return kind


def program(graph: Graph, input_names: Sequence[str], shapes: Mapping[str, tuple], dtypes: Mapping[str, Any],
            params: Mapping[str, np.ndarray], *, training: bool = False, kind: str | None = None) -> Any:
    """A program running ``graph`` with executor ``kind`` (see :func:`choose`)."""
    kind = choose(kind)
    if kind not in EXECUTORS:
        importlib.import_module(_REGISTERED_BY[kind])
    return EXECUTORS[kind](graph, list(input_names), dict(shapes), dict(dtypes), params, training)


@register("compiled")
def _compiled(graph: Graph, input_names: list, shapes: dict, dtypes: dict, params: Mapping[str, np.ndarray],
              training: bool) -> Any:
    from .codegen import compile_graph
    var_names = {n.name for n in graph.variables()}
    return compile_graph(graph, input_names=input_names, shapes=shapes, dtypes=dtypes,
                         params={k: v for k, v in params.items() if k in var_names}, training=training)


@register("interpret")
class InterpretedProgram:
    """The reference interpreter behind the compiled program's interface."""

    def __init__(self, graph: Graph, input_names: list, shapes: dict, dtypes: dict,
                 params: Mapping[str, np.ndarray], training: bool = False):
        self.graph = graph
        self.input_names = list(input_names)
        self.code = str(graph)
        self._params = dict(params)

    def bind_params(self, params: Mapping[str, Any], partial: bool = False) -> InterpretedProgram:
        self._params = {**self._params, **params} if partial else dict(params)
        return self

    def __call__(self, *arrays: np.ndarray, **by_name: np.ndarray) -> list:
        from .interpret import evaluate
        values = dict(self._params)
        values.update(zip(self.input_names, arrays))
        values.update(by_name)
        return evaluate(self.graph, values)

    def direct(self) -> tuple:
        """``(fn, consts)`` as ``CompiledProgram.direct`` (Gluon's fast path)."""
        return (lambda _consts, *arrays: self(*arrays)), None
