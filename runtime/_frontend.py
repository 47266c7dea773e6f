"""How a call such as ``F.Convolution(x, w, kernel=(3, 3), name='conv')`` maps onto an operator.

Shared by the imperative (``nd``) and symbolic (``sym``) namespaces so that both accept exactly
the same spellings MXNet's generated functions accept: tensors positionally in input order,
further positional values as attributes in MXNet's declared order, inputs or attributes by
keyword, and a variadic tensor list for ops such as ``Concat`` and ``add_n``.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .base import OperatorArgumentError
from .ops.attrs import AttrError
from .ops.registry import Attrs, OpDef

__all__ = ["BoundCall", "bind_call"]

# Keywords every op function accepts that are neither inputs nor attributes.
_FRONTEND_KEYS = ("name", "attr", "out", "ctx")


class BoundCall:
    """The inputs (in slot order, ``None`` where absent), attributes and frontend options of a call."""

    __slots__ = ("op", "inputs", "input_names", "given", "attrs", "name", "attr", "out")

    def __init__(self, op: OpDef, inputs: list, input_names: list[str], given: dict[str, Any],
                 attrs: Attrs, name: str | None, attr: dict | None, out: Any):
        self.op, self.inputs, self.input_names = op, inputs, input_names
        self.given, self.attrs, self.name, self.attr, self.out = given, attrs, name, attr, out


# Per-op cache of bindings for the common call shape "tensors (or None) positionally, attributes
# by keyword": key (positional None pattern, keyword items) -> (input slots, given, attrs, names).
# Repeated calls from the same call site (every imperative forward) then skip coercion and
# resolution. Keys hold only hashable non-tensor keyword values; each op keeps at most
# _BIND_CACHE_MAX entries.
_BIND_CACHE: dict[int, dict] = {}
_BIND_CACHE_MAX = 256
_SIMPLE = frozenset((int, float, str, bool, type(None), tuple, type))


def bind_call(op: OpDef, args: tuple, kwargs: dict[str, Any], is_tensor: Callable[[Any], bool]) -> BoundCall:
    """Sorts a call's arguments into inputs and attributes; raises ``OperatorArgumentError`` (an
    MXNetError and a TypeError) naming the op."""
    key = None
    if op.variadic is None and "out" not in kwargs:
        nones = ()
        for i, a in enumerate(args):
            if a is None:
                nones += (i,)
            elif not is_tensor(a):
                break
        else:
            for v in kwargs.values():
                if type(v) not in _SIMPLE:
                    break
            else:
                key = (len(args), nones, tuple(kwargs.items()))
                cache = _BIND_CACHE.get(id(op))
                if cache is None:
                    cache = _BIND_CACHE[id(op)] = {}
                try:
                    hit = cache.get(key)
                except TypeError:  # an unhashable value inside a tuple
                    key = hit = None
                if hit is not None:
                    n, given, attrs, names, name = hit
                    inputs = list(args[:n])
                    if n < len(names):
                        inputs += [None] * (len(names) - n)
                    return BoundCall(op, inputs, names, given, attrs, name, None, None)
    call = _bind_call(op, args, dict(kwargs), is_tensor)
    if key is not None and call.attr is None:
        # cacheable when the inputs are exactly the leading positional tensors (Nones trailing)
        n = len(args) - len(key[1])
        if (key[1] == tuple(range(n, len(args))) and len(call.inputs) >= n
                and all(call.inputs[i] is args[i] for i in range(n)) and all(v is None for v in call.inputs[n:])):
            cache = _BIND_CACHE[id(op)]
            if len(cache) < _BIND_CACHE_MAX:
                cache[key] = (n, call.given, call.attrs, call.input_names, call.name)
    return call


def _bind_call(op: OpDef, args: tuple, kwargs: dict[str, Any], is_tensor: Callable[[Any], bool]) -> BoundCall:
    name = kwargs.pop("name", None)
    attr = kwargs.pop("attr", None)
    out = kwargs.pop("out", None)
    kwargs.pop("ctx", None)
    pos_inputs: list[Any] = []
    given: dict[str, Any] = {}
    i = 0
    if op.variadic is not None:
        while i < len(args) and (is_tensor(args[i]) or isinstance(args[i], (list, tuple)) and args[i]
                                 and all(is_tensor(a) for a in args[i])):
            if isinstance(args[i], (list, tuple)):
                pos_inputs.extend(args[i])
            else:
                pos_inputs.append(args[i])
            i += 1
    else:
        while i < len(args) and (is_tensor(args[i]) or args[i] is None):
            pos_inputs.append(args[i])
            i += 1
    rest = args[i:]
    if rest:
        free = [p for p in op.params if p.name not in kwargs and p.name != op.variadic]
        if len(rest) > len(free):
            raise OperatorArgumentError(f"{op.name}: too many positional arguments")
        for p, v in zip(free, rest):
            given[p.name] = v
    kw_inputs: dict[str, Any] = {}
    for k, v in kwargs.items():
        if op.param(k) is not None and not (is_tensor(v) and k in _maybe_inputs(op)):
            given[k] = v
        elif k.startswith("__") and k.endswith("__"):
            continue
        elif op.open_attrs and not is_tensor(v) and v is not None:
            given[k] = v  # Custom(x, op_type="digitize", epsilon=0.1): the prop's own arguments
        else:
            kw_inputs[k] = v
    if op.variadic is not None:
        if kw_inputs:
            # e.g. Concat(data=[a, b]) or add_n(args=[...])
            for k, v in list(kw_inputs.items()):
                pos_inputs.extend(v if isinstance(v, (list, tuple)) else [v])
                del kw_inputs[k]
        given.setdefault(op.variadic, len(pos_inputs))
    dtype = given.get("dtype")
    if dtype is not None and not isinstance(dtype, str):
        # MXNet's generated functions pass a ``dtype`` argument as ``np.dtype(dtype).name``: numpy
        # types are accepted for every op (gluon-nlp: sample_multinomial(p, dtype=np.int32))
        try:
            given["dtype"] = np.dtype(dtype).name
        except TypeError:
            pass  # not a dtype: the attribute's own check reports it
    try:
        given = op.coerce_attrs(given)
        attrs = op.resolve(given)
    except AttrError as e:
        raise OperatorArgumentError(str(e)) from None
    names = op.input_names(attrs)
    if callable(op.inputs) and op.variadic is None and any(v is None for v in pos_inputs) \
            and any(v is not None for v in pos_inputs[pos_inputs.index(None):]):
        # a None between inputs: MXNet's generated functions name every input an op can take
        # (CTCLoss(data, label, data_lengths, label_lengths)) and skip those given as None, so
        # CTCLoss(pred, label, None, label_lengths, use_label_lengths=True) is label_lengths
        pos_inputs = _by_full_signature(op, pos_inputs, names)
    if len(pos_inputs) > len(names) and all(v is None for v in pos_inputs[len(names):]):
        # MXNet skips None inputs: Dense calls FullyConnected(x, weight, None, no_bias=True)
        pos_inputs = pos_inputs[: len(names)]
    inputs: list[Any] = list(pos_inputs[: len(names)]) + [None] * max(0, len(names) - len(pos_inputs))
    if len(pos_inputs) > len(names):
        raise OperatorArgumentError(f"{op.name}: takes {len(names)} input(s) ({', '.join(names)}), got {len(pos_inputs)}")
    for k, v in kw_inputs.items():
        if v is None and k not in names and k in _possible_inputs(op, given):
            # MXNet's generated functions skip inputs passed as None: octave convolutions call
            # F.Convolution(x, weight=w, bias=None, no_bias=True)
            continue
        if k not in names:
            raise OperatorArgumentError(f"{op.name}: unexpected argument {k!r} (inputs: {', '.join(names) or 'none'};"
                            f" attributes: {', '.join(p.name for p in op.params) or 'none'})")
        inputs[names.index(k)] = v
    return BoundCall(op, inputs, names, given, attrs, name, attr, out)


_FULL_SIGNATURE: dict[int, list] = {}


def _by_full_signature(op: OpDef, pos_inputs: list, names: list) -> list:
    """Positional inputs placed by the op's full input list (every input any attribute setting
    enables, in order), Nones dropped, in the order of this call's ``names``."""
    from .ops._describe import input_slots

    full = _FULL_SIGNATURE.get(id(op))
    if full is None:
        full = _FULL_SIGNATURE[id(op)] = input_slots(op)
    if len(pos_inputs) > len(full):
        return pos_inputs
    placed = [None] * len(names)
    for slot, v in zip(full, pos_inputs):
        if v is None:
            continue
        if slot not in names:
            raise OperatorArgumentError(f"{op.name}: input {slot!r} was given, but the attributes do not enable it "
                                        f"(inputs: {', '.join(names)})")
        placed[names.index(slot)] = v
    while placed and placed[-1] is None:
        placed.pop()
    return placed


def _maybe_inputs(op: OpDef) -> tuple:
    return () if callable(op.inputs) else tuple(op.inputs)


def _possible_inputs(op: OpDef, given: dict[str, Any]) -> set[str]:
    """Every input name the op can have: those of ``given`` and with each Bool attribute flipped
    (the inputs that depend on attributes, ``bias`` of ``no_bias``, ``gamma`` of ``fix_gamma``...,
    are all switched by booleans); MXNet's signatures list them all."""
    from .ops.attrs import Bool

    if not callable(op.inputs):
        return set(op.inputs)
    names: set[str] = set()
    variants = [dict(given)]
    for p in op.params:
        if p.type is Bool:
            for value in (True, False):
                variants.append({**given, p.name: value})
    for g in variants:
        try:
            names.update(op.input_names(op.resolve(g)))
        except Exception:  # noqa: BLE001 - a variant the op refuses names nothing
            continue
    return names


_SUBSPACES = (("_contrib_", "contrib"), ("_random_", "random"), ("_linalg_", "linalg"), ("_image_", "image"))


def placement(name: str) -> tuple[str, str]:
    """Where MXNet exposes an op name: ``_contrib_X`` -> ``contrib.X``, ``_foo`` -> ``_internal._foo``."""
    for prefix, space in _SUBSPACES:
        if name.startswith(prefix):
            return space, name[len(prefix):]
    if name.startswith("_"):
        return "_internal", name
    return "", name


def populate(namespace: dict, make: Callable[[OpDef, str], Callable], module_name: str) -> dict:
    """Fills ``namespace`` (a module's globals) with one function per op name and alias.

    Returns the sub-namespaces (``contrib``, ``random``, ``_internal``, ...) as new module objects.
    """
    import types

    from .ops.registry import all_names

    subs: dict[str, types.ModuleType] = {}
    for name, op in all_names():
        space, public = placement(name)
        fn = make(op, name)
        fn.__name__ = public
        fn.__qualname__ = public
        fn.__doc__ = op.doc or f"MXNet operator {op.name}."
        if space:
            mod = subs.get(space)
            if mod is None:
                mod = subs[space] = types.ModuleType(f"{module_name}.{space}")
            setattr(mod, public, fn)
            if space == "random" and not name.endswith("_like"):
                # MXNet also keeps these in _internal under their own name (_internal._random_pdf_normal)
                internal = subs.get("_internal")
                if internal is None:
                    internal = subs["_internal"] = types.ModuleType(f"{module_name}._internal")
                internal_fn = make(op, name)
                internal_fn.__name__ = internal_fn.__qualname__ = name
                internal_fn.__doc__ = fn.__doc__
                setattr(internal, name, internal_fn)
            if space == "_internal":  # MXNet also reaches these as nd._foo? no; keep internal only
                continue
        else:
            namespace.setdefault(public, fn)
    import sys

    for space, mod in subs.items():
        namespace[space] = mod
        mod.__package__ = module_name
        # importable as MXNet's submodules: from mxnet.symbol.contrib import SyncBatchNorm
        sys.modules.setdefault(f"{module_name}.{space}", mod)
    return subs


def build(namespace: dict, make: Callable[[OpDef, str], Callable], module_name: str,
          is_tensor: Callable[[Any], bool], symbolic: bool) -> None:
    """Builds a front end (``nd``'s or ``sym``'s module globals) in one place: one function per
    operator (:func:`populate`), then MXNet's Python-level functions over them: ``random``'s
    signatures, ``maximum``/``power``/``split_v2``/... and ``contrib``'s loops and checks.

    The front end modules call this once, after defining their tensor type and ``make``; the
    helpers it calls import neither front end, so the imports stay layered."""
    from ._contrib_pyfuncs import install as install_contrib
    from ._pyfuncs import install as install_pyfuncs
    from .ops.tensor_random import install_frontend as install_random

    populate(namespace, make, module_name)
    install_random(namespace["random"], namespace["_internal"], is_tensor, symbolic=symbolic)
    install_pyfuncs(namespace, is_tensor, symbolic=symbolic)  # maximum, power, split_v2, ... (Python-level in MXNet)
    install_contrib(namespace["contrib"], namespace, is_tensor, symbolic=symbolic)
