"""Reverse mode through a body graph on numpy arrays: the backward kernels of the control-flow
operators (``_foreach``, ``_while_loop``, ``_cond``) differentiate their subgraphs with it.

The gradient rules are written against a namespace ``F`` of registered operators; here ``F`` is
:data:`NP`, which runs each operator's kernel directly on numpy arrays (``NP.exp(x)``,
``NP._internal._backward_tile(g, x, reps=...)``, ``NP.contrib.X``, ``NP.linalg.X``), so the same
rules serve a subgraph without any tape. Graph nodes are duck-typed (``op``, ``resolved``,
``inputs`` of ``(node, index)`` entries, ``name``; ``outputs`` and ``nodes`` of the graph): this
module, like all of ``ops/``, imports nothing above the registry.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..base import NonDifferentiableError
from .registry import ZERO_GRAD, find_op

__all__ = ["NP", "graph_vjp"]

_SPACES = {"contrib": "_contrib_", "linalg": "_linalg_", "image": "_image_", "random": "_random_"}


def _call(name: str):
    op = find_op(name)
    if op is None:
        raise AttributeError(name)

    def run(*arrays: Any, **attrs: Any) -> Any:
        attrs.pop("name", None)
        attrs = {k: v for k, v in attrs.items() if v is not None or k in op._by_name}
        a = op.resolve(op.coerce_attrs(attrs))
        out = op.compute(a, *[np.asarray(x) for x in arrays])
        return list(out) if isinstance(out, (tuple, list)) else out
    return run


class _Space:
    def __init__(self, prefix: str = ""):
        self._prefix = prefix

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _call(self._prefix + name)


class _NumpyF(_Space):
    """``F`` for rules evaluated on numpy arrays."""

    def __init__(self) -> None:
        super().__init__("")
        self._internal = _Space("")
        for space, prefix in _SPACES.items():
            setattr(self, space, _Space(prefix))


NP: Any = _NumpyF()


def _add(a: Any, b: Any) -> Any:
    return b if a is None else a + b


def graph_vjp(graph: Any, inputs: Sequence[Any], values: Sequence[np.ndarray],
              cotangents: Sequence[np.ndarray | None]) -> tuple[list, list[np.ndarray | None]]:
    """(outputs, gradient of each input variable) of ``graph`` at ``values`` (in ``inputs`` order) for
    output cotangents ``cotangents`` (``None``: zero). An input no output depends on gets ``None``."""
    env: dict[tuple[int, int], np.ndarray] = {}
    for node, v in zip(inputs, values):
        env[(id(node), 0)] = np.asarray(v)
    for n in graph.nodes:
        if n.op is None:
            if (id(n), 0) not in env:
                raise NonDifferentiableError(f"no value for the body's variable {n.name!r}")
            continue
        out = n.op.compute(n.resolved, *[env[(id(e.node), e.index)] for e in n.inputs])
        for i, o in enumerate(out if isinstance(out, (tuple, list)) else [out]):
            env[(id(n), i)] = np.asarray(o)
    outs = [env[(id(e.node), e.index)] for e in graph.outputs]
    adj: dict[tuple[int, int], Any] = {}
    for e, c in zip(graph.outputs, cotangents):
        if c is not None:
            key = (id(e.node), e.index)
            adj[key] = _add(adj.get(key), np.asarray(c))
    for n in reversed(graph.nodes):
        if n.op is None:
            continue
        k = n.num_outputs
        ogs = [adj.get((id(n), i)) for i in range(k)]
        if all(g is None for g in ogs):
            continue
        rule = n.op.gradient
        if rule is None:
            raise NonDifferentiableError(f"Operator {n.op.name} is non-differentiable because it didn't register "
                                         f"FGradient attribute.")
        if rule is ZERO_GRAD:
            continue
        ins = [env[(id(e.node), e.index)] for e in n.inputs]
        outv = [env[(id(n), i)] for i in range(k)]
        ogs = [np.zeros_like(o) if g is None else g.astype(o.dtype, copy=False) for g, o in zip(ogs, outv)]
        grads = rule(NP, n.resolved, ins, outv, ogs)
        for e, g in zip(n.inputs, grads):
            if g is not None:
                key = (id(e.node), e.index)
                adj[key] = _add(adj.get(key), np.asarray(g))
    return outs, [adj.get((id(node), 0)) for node in inputs]
