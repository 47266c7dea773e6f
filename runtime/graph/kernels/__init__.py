"""Fast, layout-specialized kernels of the compiled executor (internal ops, never registered).

The compiler's lowering passes replace reference ops (NCHW, MXNet semantics, in
``runtime/ops``) by the internal ops defined in :mod:`.nhwc` and :mod:`.conv`. Each internal op is an
:class:`OpDef` that is *not* put in the registry (so ``nd``/``sym`` and symbol JSON never see
it); its ``compute`` is a numpy implementation the reference interpreter can run (tests run
lowered graphs through it), and an *emitter* in :data:`EMITTERS` writes the op's straight-line
code for the compiled program, asking the memory planner for output and scratch buffers.

Emitter contract: ``emit(em: Emit) -> list[str]`` (lines of code). ``em.args`` are the input
expressions, ``em.outs`` the names the outputs must be bound to; ``em.out_buffer(i)`` gives a
buffer to write output ``i`` into (planned and reused across steps, or freshly allocated when the
entry is a graph output), ``em.inplace(i, j)`` the buffer of input ``j`` when it may be
overwritten (dead after this step, same shape/dtype) else ``None``, ``em.scratch(shape, dtype)``
a temporary buffer live during this step only, ``em.alias(i)`` declares that output ``i`` is a
view of the inputs (keeps their buffers alive), ``em.bind(hint, value)`` puts a Python object
(kernel closure, constant) in the generated code's globals and returns its name.
"""
from __future__ import annotations

from typing import Any, Callable

__all__ = ["EMITTERS", "emitter", "blas_threads"]

EMITTERS: dict[Any, Callable[[Any], list[str]]] = {}


def emitter(op: Any) -> Callable:
    def deco(fn: Callable[[Any], list[str]]) -> Callable[[Any], list[str]]:
        EMITTERS[op] = fn
        return fn
    return deco


def blas_threads(n: int) -> bool:
    """Sets the number of threads numpy's BLAS uses (process-wide); False if unknown."""
    from .parallel import _blas_functions
    setter, _ = _blas_functions()
    if setter is None:
        return False
    setter(int(n))
    return True


from . import conv, nhwc  # noqa: E402,F401  (define the internal ops and register their emitters)
