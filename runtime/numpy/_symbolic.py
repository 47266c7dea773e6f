"""A symbolic ``F.np``/``F.npx`` built from the same np table, for tracing np-mode ``hybrid_forward``.

Gluon traces a block with ``F = symbol`` for deferred shape inference and ``hybridize``; in np mode
the layers call ``F.npx.fully_connected``, ``F.np.mean``, ... This module builds those functions from
:data:`~.._numpy_table.TABLE` over ``symbol.create`` (each entry one node named as MXNet 1.9.1's np
op, ``_npi_add``, ``_npx_relu``), and :data:`sym_with_np` is ``mx.sym`` with ``.np``/``.npx`` (``mx.sym``'s
own ``np`` attribute is the NumPy it computes with). The symbolic np helper may replace it; both
read the one table.
"""
from __future__ import annotations

import types
from typing import Any, Callable

from .. import _numpy_table as _table
from .. import symbol as _sym
from ..ops.registry import get_op

__all__ = ["build_symbolic", "sym_np", "sym_npx", "sym_with_np"]


def _is_symbol(v: Any) -> bool:
    return isinstance(v, _sym.Symbol)


class _SymF(types.SimpleNamespace):
    """``F`` for compositions traced symbolically: ``F.np`` / ``F.npx``."""


_F = _SymF()


def build_symbolic(entry: _table.NpFunction) -> Callable[..., Any]:
    """The symbolic function of one table entry (tensors are Symbols; numbers as the table binds them)."""
    if entry.compose is not None:
        compose = entry.compose

        def fn(*args: Any, **kwargs: Any) -> Any:
            return compose(_F, *args, **kwargs)
    else:
        hint = entry.name.rsplit(".", 1)[-1].lstrip("_")

        def fn(*args: Any, **kwargs: Any) -> Any:
            name = kwargs.pop("name", None)
            call = _table.bind(entry, args, kwargs, _is_symbol)
            inputs = [v for v in call.inputs if not _table.omitted(v)]
            if any(not _is_symbol(v) for v in inputs):
                raise TypeError(f"{entry.space}.{entry.name}: symbolic inputs must be Symbols, got "
                                f"{[type(v).__name__ for v in inputs]}")
            op = get_op(call.op)
            return _sym.create(op, inputs, op.coerce_attrs(call.attrs), name, hint)
    fn.__name__ = fn.__qualname__ = entry.name.rsplit(".", 1)[-1]
    return fn


def _namespace(space: str) -> types.ModuleType:
    mod = types.ModuleType(f"hybridize.runtime.symbol.{space}")
    for entry in _table.entries(space):
        target = mod
        *subs, public = entry.name.split(".")
        for s in subs:
            if not hasattr(target, s):
                setattr(target, s, types.ModuleType(f"{target.__name__}.{s}"))
            target = getattr(target, s)
        setattr(target, public, build_symbolic(entry))
    return mod


sym_np = _namespace("np")
sym_npx = _namespace("npx")
_F.np, _F.npx = sym_np, sym_npx


class _SymWithNp(types.ModuleType):
    np = sym_np
    npx = sym_npx

    def __getattr__(self, attr: str) -> Any:
        return getattr(_sym, attr)


sym_with_np = _SymWithNp("hybridize.runtime.symbol")
