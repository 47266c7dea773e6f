"""Attribute types for MXNet's ``Tuple<float>`` / ``Tuple<int>`` parameters that keep the form they
were given in.

MXNet's Python frontend writes ``str(value)`` into symbol JSON, so ``normalize(x, mean=0.5)`` is
``mean="0.5"`` and ``mean=(0.5,)`` is ``mean="(0.5,)"``; both parse to the same one-element tuple
in C++. ``FloatOrTuple`` keeps a scalar a scalar (printed as given) and a sequence a tuple;
:func:`as_tuple` gives kernels the tuple view. ``IntOrTuple`` is the integer form
(``image.resize(x, size=6)`` writes ``size="6"``).

``FloatTuple`` (a single number becomes a 1-tuple) and ``OptFloatTuple`` (also None) are the plain
``Tuple<float>`` / ``optional<Tuple<double>>`` forms, for parameters whose value is always shown
as a tuple (MultiBoxPrior's ``sizes``, histogram's ``range``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .attrs import AttrError, AttrType, Float, Int, _or_none, format_value, parse_literal

__all__ = ["FloatOrTuple", "IntOrTuple", "FloatTuple", "OptFloatTuple", "as_tuple"]


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


def _float_tuple(v: Any) -> tuple:
    """MXNet's ``tuple of <float>``: ``(0.5, 0.25)``; a single number is a 1-tuple."""
    out = _coerce(v)
    return out if isinstance(out, tuple) else (out,)


def as_tuple(v: Any) -> tuple:
    """The tuple MXNet's C++ sees for a ``FloatOrTuple`` value."""
    if v is None:
        return ()
    return tuple(v) if isinstance(v, tuple) else (v,)


FloatOrTuple = AttrType("float-or-tuple-of-float", _coerce, format_value)
IntOrTuple = AttrType("int-or-tuple-of-int", _int_coerce, format_value)
FloatTuple = AttrType("tuple-of-float", _float_tuple, format_value)
OptFloatTuple = AttrType("tuple-of-float-or-None", _or_none(_float_tuple), format_value)
