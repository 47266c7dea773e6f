"""Attribute types for MXNet's ``Tuple<float>`` / ``Tuple<int>`` parameters that keep the form they
were given in.

MXNet's Python frontend writes ``str(value)`` into symbol JSON, so ``normalize(x, mean=0.5)`` is
``mean="0.5"`` and ``mean=(0.5,)`` is ``mean="(0.5,)"``; both parse to the same one-element tuple
in C++. ``FloatOrTuple`` keeps a scalar a scalar (printed as given) and a sequence a tuple;
:func:`as_tuple` gives kernels the tuple view. ``OptFloatOrTuple`` also accepts None;
``IntOrTuple`` is the integer form (``image.resize(x, size=6)`` writes ``size="6"``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .attrs import AttrError, AttrType, Float, Int, format_value, parse_literal

__all__ = ["FloatOrTuple", "OptFloatOrTuple", "IntOrTuple", "as_tuple"]


def _coerce(v: Any) -> Any:
    if isinstance(v, str):
        v = parse_literal(v)
    if isinstance(v, (list, tuple)):
        return tuple(Float.coerce(x) for x in v)
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)):
        return Float.coerce(v)
    raise AttrError(f"expected a number or a tuple of numbers, got {v!r}")


def _int_coerce(v: Any) -> Any:
    if isinstance(v, str):
        v = parse_literal(v)
    if isinstance(v, (list, tuple)):
        return tuple(Int.coerce(x) for x in v)
    return Int.coerce(v)


def _opt_coerce(v: Any) -> Any:
    if v is None or (isinstance(v, str) and v.strip() == "None"):
        return None
    return _coerce(v)


def as_tuple(v: Any) -> tuple:
    """The tuple MXNet's C++ sees for a ``FloatOrTuple`` value."""
    if v is None:
        return ()
    return tuple(v) if isinstance(v, tuple) else (v,)


FloatOrTuple = AttrType("float-or-tuple-of-float", _coerce, format_value)
IntOrTuple = AttrType("int-or-tuple-of-int", _int_coerce, format_value)
OptFloatOrTuple = AttrType("float-or-tuple-of-float-or-None", _opt_coerce, format_value)
