"""``@static_graph``: the marker ``hybridize transpile`` puts on every rewritten ``hybrid_forward``.

A marked ``hybrid_forward`` is graph construction only: it runs with ``F = hybridize.runtime.symbol``
(once per input signature, when the block's graph is traced), never with NDArrays. When a marked
block is called imperatively (not hybridized), the call runs the block's compiled graph instead,
as if ``hybridize()`` had been called on it: trace-only side effects have been removed by the
transpiler, so the graph is the whole behaviour.

This module is owned by the transpiler (issue 5); it relies only on ``HybridBlock._call_cached_op``.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from .. import ndarray

__all__ = ["static_graph", "is_static_graph"]


def static_graph(fn: Callable) -> Callable:
    """Mark ``hybrid_forward`` as static graph construction (see the module docstring)."""

    @functools.wraps(fn)
    def hybrid_forward(self: Any, F: Any, *args: Any, **params: Any) -> Any:
        if F is ndarray and type(self).hybrid_forward is hybrid_forward:
            run_graph = getattr(self, "_call_cached_op", None)
            if run_graph is not None:
                return run_graph(*args)
        return fn(self, F, *args, **params)

    hybrid_forward.__static_graph__ = True  # type: ignore[attr-defined]
    return hybrid_forward


def is_static_graph(method: Any) -> bool:
    """Was ``method`` marked by :func:`static_graph`?"""
    return bool(getattr(method, "__static_graph__", False))
