"""Operator attribute types: coercion of Python values, MXNet's string form, and safe parsing.

MXNet stores every operator attribute as a string in symbol JSON (``"(3, 3)"``, ``"True"``,
``"1e-05"``). Each attribute type here knows how to coerce a Python value given to an op
function, how to print it the way MXNet's Python frontend does (``str(value)``), and how to
parse it back from a file. Parsing never evaluates code: it is a tiny literal reader.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

__all__ = ["AttrType", "Param", "REQUIRED", "parse_literal", "format_value", "Int", "PositiveInt", "Float", "Bool",
           "Str", "Shape", "IntOrNone", "FloatOrNone", "ShapeOrNone", "Axis", "Dtype", "DtypeOrNone",
           "Enum", "Raw", "AttrError"]


class AttrError(ValueError):
    """An attribute value that does not fit its declared type."""


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = _Required()


def _scalar(tok: str) -> Any:
    t = tok.strip()
    if t in ("True", "true"):
        return True
    if t in ("False", "false"):
        return False
    if t in ("None", ""):
        return None
    try:
        return int(t)
    except ValueError:
        pass
    try:
        return float(t)
    except ValueError:
        pass
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        return t[1:-1]
    return t


def parse_literal(text: str) -> Any:
    """Reads an MXNet attribute string: a scalar, or a flat tuple/list of scalars.

    ``"(3, 3)"`` -> ``(3, 3)``, ``"[1,2]"`` -> ``(1, 2)``, ``"True"`` -> ``True``,
    ``"1e-05"`` -> ``1e-05``, ``"relu"`` -> ``"relu"``. Never evaluates code.
    """
    s = text.strip()
    if s[:1] in "([" and s[-1:] in ")]":
        inner = s[1:-1].strip()
        if not inner:
            return ()
        if "(" in inner or "[" in inner:
            raise AttrError(f"nested sequence not supported: {text!r}")
        return tuple(_scalar(p) for p in inner.split(",") if p.strip() != "")
    return _scalar(s)


def format_value(value: Any) -> str:
    """MXNet's string form of a Python attribute value (what ``str(value)`` gives in MXNet 1.x)."""
    if isinstance(value, (bool, np.bool_)):
        return "True" if value else "False"
    if value is None:
        return "None"
    if isinstance(value, (list, tuple)):
        items = [format_value(v) for v in value]
        return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return np.dtype(value).name
    if isinstance(value, (np.integer,)):
        return str(int(value))
    if isinstance(value, (np.floating,)):
        return str(float(value))
    return str(value)


@dataclass(frozen=True)
class AttrType:
    """A named attribute type: ``coerce`` checks/normalizes a Python value, ``fmt`` prints it."""

    name: str
    coerce: Callable[[Any], Any]
    fmt: Callable[[Any], str] = format_value

    def parse(self, text: str) -> Any:
        """Value of an attribute string read from a file."""
        return self.coerce(parse_literal(text) if isinstance(text, str) else text)


def _plain(v: Any) -> Any:
    """A numpy array given as an attribute, read as MXNet reads it: its frontend passes
    ``str(value)``, so a 0-d array is its number and a 1-element array ``"[5]"`` a 1-tuple, while
    ``np.array([2, 3])`` prints ``"[2 3]"`` (no commas), which MXNet refuses and so does this."""
    if isinstance(v, np.ndarray):
        return v.item() if v.ndim == 0 else str(v)
    return v


def _int(v: Any) -> int:
    v = _plain(v)
    if isinstance(v, str):
        v = parse_literal(v)
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return int(v)
    raise AttrError(f"expected an integer, got {v!r}")


class WholeFloat(float):
    """A float attribute that was given as an integer: MXNet writes it as given (``clip(x, 0, 6)``
    is ``a_min="0"``, ``a_max="6"`` in symbol JSON), so its string form stays ``"6"``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(int(self))

    __str__ = __repr__


def _float(v: Any) -> float:
    v = _plain(v)
    if isinstance(v, str):
        v = parse_literal(v)
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return WholeFloat(v)
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
        return float(v)
    if isinstance(v, (bool, np.bool_)):
        return float(v)
    raise AttrError(f"expected a number, got {v!r}")


def _bool(v: Any) -> bool:
    v = _plain(v)
    if isinstance(v, str):
        v = parse_literal(v)
    if isinstance(v, (bool, np.bool_, int, np.integer)):
        return bool(v)
    raise AttrError(f"expected a boolean, got {v!r}")


def _str(v: Any) -> str:
    if isinstance(v, str):
        return v
    raise AttrError(f"expected a string, got {v!r}")


def _shape(v: Any) -> tuple:
    v = _plain(v)
    if isinstance(v, str):
        v = parse_literal(v)
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return (int(v),)
    if isinstance(v, (list, tuple)):
        return tuple(_int(x) for x in v)
    raise AttrError(f"expected a shape (tuple of integers), got {v!r}")


def _or_none(inner: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def coerce(v: Any) -> Any:
        if v is None or (isinstance(v, str) and v.strip() == "None"):
            return None
        return inner(v)
    return coerce


def _axis(v: Any) -> Any:
    """Reduction axis: None, an int, or a tuple of ints (MXNet prints ``()`` for 'all')."""
    v = _plain(v)
    if isinstance(v, str):
        v = parse_literal(v)
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return tuple(_int(x) for x in v)
    return _int(v)


_MX_DTYPE_CODES = {0: "float32", 1: "float64", 2: "float16", 3: "uint8", 4: "int32", 5: "int8",
                   6: "int64", 7: "bool", 12: "bfloat16"}


def _dtype(v: Any) -> str:
    if isinstance(v, str):
        s = v.strip()
        if s.isdigit():
            return _MX_DTYPE_CODES[int(s)]
        return np.dtype(s).name
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return _MX_DTYPE_CODES[int(v)]
    try:
        return np.dtype(v).name
    except TypeError as e:
        raise AttrError(f"expected a dtype, got {v!r}") from e


def Enum(*choices: str) -> AttrType:
    """A string attribute restricted to ``choices``."""
    def coerce(v: Any) -> str:
        s = _str(v)
        if s not in choices:
            raise AttrError(f"expected one of {', '.join(choices)}; got {s!r}")
        return s
    return AttrType("enum(" + "|".join(choices) + ")", coerce)


Int = AttrType("int", _int)


def _positive_int(v: Any) -> int:
    n = _int(v)
    if n < 1:
        raise AttrError(f"value {n} should be greater equal to 1")   # dmlc's set_lower_bound(1), as MXNet says it
    return n


PositiveInt = AttrType("int>=1", _positive_int)   # e.g. FullyConnected's num_hidden: MXNet refuses 0 on creation and load
Float = AttrType("float", _float)
Bool = AttrType("bool", _bool)
Str = AttrType("str", _str)
Shape = AttrType("shape", _shape)
IntOrNone = AttrType("int-or-None", _or_none(_int))
FloatOrNone = AttrType("float-or-None", _or_none(_float))
ShapeOrNone = AttrType("shape-or-None", _or_none(_shape))
Axis = AttrType("axis", _axis)
Dtype = AttrType("dtype", _dtype)
DtypeOrNone = AttrType("dtype-or-None", _or_none(_dtype))
Raw = AttrType("raw", lambda v: v if isinstance(v, str) else format_value(v))


@dataclass(frozen=True)
class Param:
    """One operator attribute: name, type and MXNet's default (``REQUIRED`` if it has none)."""

    name: str
    type: AttrType
    default: Any = REQUIRED
    doc: str = ""
