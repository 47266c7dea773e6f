"""The markers ``hybridize transpile`` puts on ``hybrid_forward``: ``@static_graph`` on every rewritten
one, ``@imperative_only(reason)`` on those of a module it could not convert (``--keep-going``).

A marked ``hybrid_forward`` is graph construction only: it runs with ``F = hybridize.runtime.symbol``
(once per input signature, when the block's graph is traced), never with NDArrays. When a marked
block is called imperatively (not hybridized), the call runs the block's compiled graph instead,
as if ``hybridize()`` had been called on it: trace-only side effects have been removed by the
transpiler, so the graph is the whole behaviour.

``unsupported_api("mxnet.gluon.Trainer")`` stands where a transpiled module imported an MXNet name
the runtime does not have (``from mxnet.gluon import Trainer``; HY012): the module (and its
package) still imports, and the first use of the name raises naming it. Attribute chains through an
imported module (``mx.io.DataIter``) become placeholders the same way, so annotations, default
values and base classes that only *name* it still evaluate; a class derived from a placeholder is
defined, and creating an instance of it raises.

An ``@imperative_only`` method runs unchanged with NDArrays; building its graph raises
:class:`~hybridize.runtime.base.HybridizeError` naming the finding that kept the transpiler from
converting it, instead of tracing code known to be wrong.

A block whose subtree holds an ``@imperative_only`` block (a converted ``Net`` holding a refused
``Gate``: ``transpile --keep-going`` converts module by module) cannot be one graph, so:

* called with NDArrays it runs imperatively, its ``@static_graph`` body with ``F = nd`` (the body is
  the graph construction written out, which runs with either ``F``, as MXNet's ``hybrid_forward``
  does), each child running its own way: ``Gate`` imperatively, a converted child its graph;
* ``hybridize()`` hybridizes what can be, as MXNet users do by hybridizing children: every block
  whose subtree holds no imperative-only block is hybridized; the imperative-only blocks and the
  blocks holding them stay imperative, and one :class:`ImperativeOnlyWarning` line names the first
  such descendant and its finding, before the first call. ``export()`` of such a block raises
  naming it (there is no graph to export).

This module belongs to the transpiler's output; it relies only on ``HybridBlock._call_cached_op``
and ``_children``.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Optional

from .. import ndarray, symbol
from ..base import HybridizeError

__all__ = ["static_graph", "is_static_graph", "imperative_only", "unsupported_api", "ImperativeOnlyWarning",
           "imperative_only_block"]


class ImperativeOnlyWarning(UserWarning):
    """``hybridize()`` left a block imperative because its subtree holds an ``@imperative_only`` block."""


def imperative_only_block(block: Any) -> Optional[tuple[Any, str]]:
    """The first block of ``block``'s subtree (``block`` itself first, then its children depth
    first) whose ``hybrid_forward`` is marked ``@imperative_only``, with the marker's reason; or ``None``."""
    stack = [block]
    seen: set = set()
    while stack:
        blk = stack.pop()
        if id(blk) in seen:
            continue
        seen.add(id(blk))
        reason = getattr(getattr(type(blk), "hybrid_forward", None), "__imperative_only__", None)
        if reason is not None:
            return blk, reason
        stack.extend(reversed(list(getattr(blk, "_children", {}).values())))
    return None


def describe(block: Any) -> str:
    """``Gate 'net0_gate0'``: how messages name a block."""
    return f"{type(block).__name__} '{getattr(block, 'name', '')}'"


def static_graph(fn: Callable) -> Callable:
    """Mark ``hybrid_forward`` as static graph construction (see the module docstring)."""

    @functools.wraps(fn)
    def hybrid_forward(self: Any, F: Any, *args: Any, **params: Any) -> Any:
        if F is ndarray and type(self).hybrid_forward is hybrid_forward:
            run_graph = getattr(self, "_call_cached_op", None)
            if run_graph is not None and (getattr(self, "_cached_op", None) is not None
                                          or imperative_only_block(self) is None):
                return run_graph(*args)
        return fn(self, F, *args, **params)  # traced, or imperatively: a descendant is imperative-only

    hybrid_forward.__static_graph__ = True  # type: ignore[attr-defined]
    return hybrid_forward


def is_static_graph(method: Any) -> bool:
    """Was ``method`` marked by :func:`static_graph`?"""
    return bool(getattr(method, "__static_graph__", False))


def imperative_only(reason: str) -> Callable[[Callable], Callable]:
    """Mark ``hybrid_forward`` as imperative only: it runs with ``F = nd``; with ``F = sym`` (the
    block is being hybridized) it raises a ``TraceError`` (a ``HybridizeError``) naming ``reason``
    before tracing anything."""

    def mark(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def hybrid_forward(self: Any, F: Any, *args: Any, **params: Any) -> Any:
            if F is symbol:
                from .block import TraceError  # (block imports this module's users, not this module)

                name = getattr(self, "name", "")
                problem = HybridizeError(reason)
                raise TraceError(f"{describe(self)} cannot be hybridized: hybridize transpile "
                                 f"left it imperative because of {reason}", name, None, None, problem)
            return fn(self, F, *args, **params)

        hybrid_forward.__imperative_only__ = reason  # type: ignore[attr-defined]
        return hybrid_forward

    return mark


class unsupported_api:  # noqa: N801 - used like the name it replaces
    """Placeholder for an MXNet name ``hybridize.runtime`` does not provide (see the module
    docstring). Attributes are placeholders too (``io.NDArrayIter``); calling one, or subclassing
    it, raises ``HybridizeError`` naming the MXNet name."""

    def __init__(self, name: str) -> None:
        self._hybridize_name = name

    def _fail(self) -> HybridizeError:
        return HybridizeError(f"`{self._hybridize_name}` is not provided by hybridize.runtime (HY012: "
                              f"hybridize transpile reported it); keep this code on MXNet")

    def __getattr__(self, attr: str) -> "unsupported_api":
        if attr.startswith("__"):
            raise AttributeError(attr)
        return unsupported_api(f"{self._hybridize_name}.{attr}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise self._fail()

    def __mro_entries__(self, bases: tuple) -> tuple:
        """``class Iter(mx.io.DataIter):`` defines the class (defining it at import is not a use of
        MXNet's behaviour, and the module must import); creating an instance is, so it raises."""
        return (_unsupported_base(self._hybridize_name),)

    def __repr__(self) -> str:
        return f"<unsupported MXNet name {self._hybridize_name}>"


@functools.lru_cache(maxsize=None)
def _unsupported_base(name: str) -> type:
    """The base class a placeholder stands for in a ``class`` statement: one per MXNet name (so two
    classes deriving from ``mx.io.DataIter`` share it); instantiating any subclass raises."""

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        raise HybridizeError(f"{cls.__name__} derives from `{name}`, which is not provided by "
                             f"hybridize.runtime (HY012: hybridize transpile reported it); keep this code on MXNet")

    short = name.rsplit(".", 1)[-1]
    return type(short, (), {"__new__": __new__, "__module__": __name__,
                            "__doc__": f"Placeholder for `{name}` (not provided by hybridize.runtime)."})
