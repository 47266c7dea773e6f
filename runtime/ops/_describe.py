"""An operator's arguments described as MXNet's C API describes them (``get_operator_arguments``).

MXNet's strings come from dmlc's parameter fields: ``"int, optional, default='1'"``,
``"{'avg', 'max'},optional, default='max'"`` (an enum: no space after the comma),
``"Shape(tuple), optional, default=[]"``, ``"boolean, optional, default=0"``. The registry records
an attribute's kind, not its C++ type, so ``long``/``double`` fields read ``int``/``float`` here, lower
bounds (``int (non-negative)``) are not shown, and a dtype enum lists MXNet's usual nine types.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .attrs import REQUIRED, Param
from .registry import OpDef

__all__ = ["argument_types", "input_slots"]

_DTYPES = ("bfloat16", "bool", "float16", "float32", "float64", "int32", "int64", "int8", "uint8")


def input_slots(op: OpDef) -> list[str]:
    """Every input an op can take, in order: with attributes that switch inputs off (``no_bias``,
    ``use_length`` ...) set to add them; a variadic list is one slot."""
    from .attrs import Bool

    if op.variadic is not None:  # one list argument (UpSampling's inputs depend on its attributes)
        return list(op.inputs)[:1] if not callable(op.inputs) else ["data"]
    if not callable(op.inputs):
        return list(op.inputs)
    best: list[str] = []
    others: list[str] = []
    stand_ins = _required_stand_ins(op)
    variants: list[dict] = [{}]
    for p in op.params:  # attributes that can switch inputs: booleans and enums (LeakyReLU's prelu)
        kind = p.type.name
        if p.type is Bool or kind == "bool-or-None":
            variants += [{p.name: True}, {p.name: False}]
        elif "(" in kind and kind.split("(")[0] in ("enum", "enum-or-None"):
            variants += [{p.name: c} for c in kind[kind.index("(") + 1:-1].split("|")]
    for v in variants:
        try:
            names = op.input_names(op.resolve({**stand_ins, **v}))
        except Exception:  # noqa: BLE001 - a variant the op refuses names nothing
            continue
        if len(names) > len(best):
            others.extend(best)
            best = list(names)
        else:
            others.extend(names)
    return best + [n for n in dict.fromkeys(others) if n not in best]


def _required_stand_ins(op: OpDef) -> dict[str, Any]:
    """Values for required attributes so that the input names can be asked for."""
    out: dict[str, Any] = {}
    for p in op.params:
        if p.default is not REQUIRED:
            continue
        kind = p.type.name
        if kind.startswith("enum("):
            out[p.name] = kind[5:-1].split("|")[0]
        elif kind in ("int", "float"):
            out[p.name] = 1
        elif kind == "shape":
            out[p.name] = (1,)
        elif kind == "bool":
            out[p.name] = False
        elif kind == "dtype":
            out[p.name] = "float32"
        else:
            out[p.name] = "1"
    return out


def _float(v: Any) -> str:
    return "%.9g" % float(np.float32(v))


def _type_string(p: Param) -> str:
    kind = p.type.name
    required = p.default is REQUIRED
    d = p.default
    if kind.startswith(("enum(", "enum-or-None(")) or kind in ("dtype", "dtype-or-None"):
        choices = kind[kind.index("(") + 1:-1].split("|") if "(" in kind else list(_DTYPES)
        items = ", ".join(f"'{c}'" for c in sorted(choices))
        if kind in ("dtype-or-None",) or kind.startswith("enum-or-None("):
            items = "None, " + items
        head = "{" + items + "}"
        return head + (", required" if required else f",optional, default='{d}'")
    head, dflt = {
        "int": ("int", lambda v: f"'{v}'"),
        "int>=1": ("int", lambda v: f"'{v}'"),       # dmlc declares it an int with a lower bound
        "int-or-None": ("int or None", lambda v: f"'{v}'"),
        "float": ("float", _float),
        "float-or-None": ("float or None", lambda v: "None" if v is None else _float(v)),
        "bool": ("boolean", lambda v: str(int(bool(v)))),
        "bool-or-None": ("boolean or None", lambda v: "None" if v is None else str(int(bool(v)))),
        "shape": ("Shape(tuple)", lambda v: "[" + ",".join(str(int(x)) for x in v) + "]"),
        "shape-or-None": ("Shape or None", lambda v: "None" if v is None else "[" + ",".join(str(int(x)) for x in v) + "]"),
        "axis": ("Shape or None", lambda v: "None" if v is None else "[" + ",".join(
            str(int(x)) for x in (v if isinstance(v, tuple) else (v,))) + "]"),
        "str": ("string", lambda v: f"'{v}'"),
    }.get(kind, ("string", lambda v: f"'{v}'"))
    if required:
        return f"{head}, required"
    return f"{head}, optional, default={dflt(d)}"


def argument_types(op: OpDef) -> tuple[list[str], list[str]]:
    """(names, type strings): inputs first, then attributes in MXNet's declared order."""
    names: list[str] = []
    types: list[str] = []
    variadic = op.variadic is not None
    for nm in input_slots(op):
        names.append(nm)
        types.append("NDArray-or-Symbol[]" if variadic else "NDArray-or-Symbol")
    for p in op.params:
        names.append(p.name)
        types.append(_type_string(p))
    return names, types
