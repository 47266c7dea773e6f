"""``mx.nd.CachedOp``: a symbol made callable on NDArrays, as MXNet 1.9.1's ``ndarray.CachedOp``.

Inputs are given positionally in ``symbol.list_inputs()`` order; the graph runs op by op through the
imperative path, so under ``autograd.record()`` every operator is on the tape and gradients reach
the inputs (MXNet records the whole cached op as one node: the same gradients).
"""
from __future__ import annotations

from typing import Any

from .base import HybridizeError


class CachedOp:
    """``CachedOp(sym, flags=())``; ``op(*inputs, out=None)`` returns the output (a list when the
    symbol has several)."""

    def __init__(self, sym: Any, flags: Any = ()):
        self._symbol = sym
        self._graph = sym.graph()
        self._input_names = sym.list_inputs()
        self._flags = dict(flags) if flags else {}

    def __call__(self, *args: Any, out: Any = None, default_ctx: Any = None) -> Any:
        from .graph.differentiate import run_recorded
        from .ndarray import NDArray
        if len(args) != len(self._input_names):
            raise HybridizeError(f"CachedOp: expected {len(self._input_names)} inputs "
                                 f"({', '.join(self._input_names)}), got {len(args)}")
        for name, a in zip(self._input_names, args):
            if not isinstance(a, NDArray):
                raise TypeError(f"CachedOp: input {name!r} must be an NDArray, not {type(a).__name__}")
        outs = run_recorded(self._graph, dict(zip(self._input_names, args)))
        if out is not None:
            targets = [out] if isinstance(out, NDArray) else list(out)
            if len(targets) != len(outs):
                raise HybridizeError(f"CachedOp: {len(outs)} outputs, {len(targets)} given in out")
            for t, o in zip(targets, outs):
                t[:] = o
            return out
        return outs[0] if len(outs) == 1 else list(outs)
