"""Emitters: the straight-line code of each internal op in the compiled program (the ``emit``
stage of the pipeline, ``codegen``).

The kernels (``kernels/``: numpy implementations, the internal ops' ``compute`` that the
reference interpreter runs) and the code that calls them from a compiled program live apart:
an emitter, registered for its op in :data:`EMITTERS`, writes the op's lines and asks the memory
planner (:mod:`.planner`) for buffers. An op without an emitter is called through its registry
kernel (``OpDef.kernel``).

Emitter contract: ``emit(em: Emit) -> list[str]`` (lines of code). ``em.args`` are the input
expressions, ``em.outs`` the names the outputs must be bound to; ``em.out_buffer(i)`` gives a
buffer to write output ``i`` into (planned and reused across steps, or freshly allocated when the
entry is a graph output), ``em.inplace(i, j)`` the buffer of input ``j`` when it may be
overwritten (dead after this step, same shape/dtype) else ``None``, ``em.scratch(shape, dtype)``
a temporary buffer live during this step only, ``em.alias(i)`` declares that output ``i`` is a
view of the inputs (keeps their buffers alive), ``em.bind(hint, value)`` puts a Python object
(kernel closure, constant) in the generated code's globals and returns its name, ``em.users(e)``
the nodes reading an entry.
"""
from __future__ import annotations

from .planner import Emit, Planner
from .registry import EMITTERS, emitter

__all__ = ["EMITTERS", "emitter", "Emit", "Planner"]

from . import conv, dense, nhwc, train  # noqa: E402,F401  (register the emitters)
