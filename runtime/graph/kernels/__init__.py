"""Fast, layout-specialized kernels of the compiled executor (internal ops, never registered).

The compiler's lowering passes replace reference ops (NCHW, MXNet semantics, in
``runtime/ops``) by the internal ops defined here. Each internal op is an :class:`OpDef` that is
*not* put in the registry (so ``nd``/``sym`` and symbol JSON never see it); its ``compute`` is
a plain numpy implementation usable by the reference interpreter (tests run lowered graphs
through it), and an *emitter* in :data:`EMITTERS` writes the op's straight-line code for the
compiled program (calls into preallocated buffers with ``out=``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

__all__ = ["EMITTERS", "Emit", "emitter"]


@dataclass
class Emit:
    """What an emitter gets: the node, expressions for its inputs, names for its outputs."""

    node: Any
    args: list[str]
    outs: list[str]
    in_shapes: list[tuple]
    in_dtypes: list[np.dtype]
    out_shapes: list[tuple]
    out_dtypes: list[np.dtype]
    glob: dict[str, Any]
    names: Any
    is_output: list[bool] = field(default_factory=list)
    buffers: dict = field(default_factory=dict)   # out index -> buffer expression (memory plan)

    def bind(self, hint: str, value: Any) -> str:
        """Puts ``value`` in the generated function's globals under a fresh name."""
        nm = self.names.make(hint, "_")
        self.glob[nm] = value
        return nm


EMITTERS: dict[Any, Callable[[Emit], list[str]]] = {}


def emitter(op: Any) -> Callable:
    def deco(fn: Callable[[Emit], list[str]]) -> Callable[[Emit], list[str]]:
        EMITTERS[op] = fn
        return fn
    return deco
