"""Helpers for gradient rules and the private ``_backward_X`` kernels they call.

MXNet's backward nodes learn their output shapes from the forward node (``TIsBackward``); the
runtime's graphs infer shapes from inputs only, so a ``_backward_X`` registered here takes the
output gradient(s) first and then the forward inputs it needs, and its result is shaped and typed
like one of those forward inputs (``like``). The rule calls it through ``F._internal`` so the same
rule builds NDArrays (``F = nd``) and graph nodes (``F = sym``).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable

import numpy as np

from .attrs import Param
from .registry import OpDef, register

__all__ = ["backward_op", "internal"]


def internal(F: Any, name: str) -> Callable[..., Any]:
    """A private op as both ``nd`` and ``sym`` expose it: ``_contrib_X`` is ``F.contrib.X``, any
    other ``_``-prefixed name ``F._internal.<name>`` (MXNet's placement)."""
    if name.startswith("_contrib_"):
        return getattr(F.contrib, name[len("_contrib_"):])
    return getattr(F._internal, name)


def backward_op(name: str, compute: Callable[..., Any], inputs: Sequence[str] | Callable[..., Any], *, like: int | Sequence[int] = 1,
                params: Sequence[Param] = (), num_outputs: int = 1, doc: str = "") -> OpDef:
    """Registers a backward kernel whose output ``k`` is shaped and typed like input ``like[k]``."""
    likes = [like] * num_outputs if isinstance(like, int) else list(like)

    def shape(attrs, in_shapes):
        return list(in_shapes), [in_shapes[i] for i in likes]

    def dtype(attrs, in_dtypes):
        return [in_dtypes[i] if in_dtypes[i] is not None else np.float32 for i in likes]

    return register(OpDef(name, compute, params=params, inputs=inputs if callable(inputs) else tuple(inputs), num_outputs=num_outputs,
                          infer_shape=shape, infer_type=dtype, doc=doc or f"backward kernel {name}"))
