"""ONNX converters, registered against the operator registry (one per MXNet op family).

A converter is attached to the :class:`~hybridize.runtime.ops.registry.OpDef` that
:func:`~hybridize.runtime.ops.registry.get_op` returns for a name, so aliases (``Softmax`` for
``SoftmaxOutput``, ``_add`` for ``elemwise_add``, ...) resolve to the same converter and there is
no second list of operator names to keep in sync: an op is exportable exactly when its OpDef has
a converter. Family modules in this package (every module whose name does not start with ``_``
register with :func:`converter`; :func:`lookup` loads them on first use.

A converter is ``fn(n: NodeView) -> list[str]``: it reads the node's resolved attributes, input
names, shapes and dtypes from the view, adds ONNX nodes through it and returns the ONNX names of
the node's outputs, in MXNet's output order.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable, Sequence

from ..ops.registry import OpDef, all_ops, get_op

__all__ = ["converter", "lookup", "supported_ops", "Converter"]

_FAMILIES = ("activation", "attention", "control_flow", "conv", "dense", "elemwise", "extra", "index", "init",
             "misc", "norm", "numpy", "pool", "reduce", "resize", "rnn", "sequence", "shape")


@dataclass(frozen=True)
class Converter:
    fn: Callable
    # inputs (by MXNet input name) the exported graph does not need: a SoftmaxOutput's label
    ignore_inputs: Sequence[str] = ()


_CONVERTERS: dict[OpDef, Converter] = {}
_loaded = False


def converter(*names: str, ignore_inputs: Sequence[str] = ()) -> Callable:
    """Registers the decorated function as the ONNX converter of the ops ``names``."""
    def deco(fn: Callable) -> Callable:
        for name in names:
            op = get_op(name)
            if op in _CONVERTERS and _CONVERTERS[op].fn is not fn:
                raise ValueError(f"ONNX converter for operator {op.name!r} registered twice")
            _CONVERTERS[op] = Converter(fn, tuple(ignore_inputs))
        return fn
    return deco


def _ensure_loaded() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for fam in _FAMILIES:
            importlib.import_module(f".{fam}", __package__)


def lookup(op: OpDef) -> Converter | None:
    _ensure_loaded()
    return _CONVERTERS.get(op)


def supported_ops() -> list[str]:
    """Canonical names of every operator that has an ONNX converter, sorted."""
    _ensure_loaded()
    return [op.name for op in all_ops() if op in _CONVERTERS]
