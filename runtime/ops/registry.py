"""The operator registry: every MXNet operator defined exactly once.

An :class:`OpDef` carries everything the rest of the runtime needs to know about an operator:
its MXNet name and aliases, its attributes with MXNet's defaults and string forms, its input
names (which may depend on attributes, e.g. ``no_bias``), which inputs are auxiliary states,
how many outputs it has, shape and dtype inference, and a vectorized numpy kernel. From that one
definition the runtime derives the imperative namespace (``nd``), the symbolic one (``sym``),
the fluent methods (``x.reshape(...)``), symbol-JSON import/export and the graph compiler.

Kernels have the signature ``compute(attrs, *arrays) -> ndarray | tuple[ndarray, ...]`` where
``attrs`` is an :class:`Attrs` (all parameters, defaults filled, typed). An op may also define
``prepare(attrs, in_shapes, in_dtypes) -> callable(*arrays)`` to hoist per-call work (index
tables, reshaped weights) to compile time; the graph compiler uses it when present.

``traits`` (names from :data:`TRAITS`) say what the graph passes may assume about an op (merge two
equal calls, drop a no-op, run it in any layout); passes match on them, not on op names.

``gradient`` is the operator's vector-Jacobian rule, defined beside it (as JAX defines a VJP beside each
primitive) and written in terms of registered operators, so the one rule drives the imperative tape
(``F`` = ``nd``), the graph's backward pass (``F`` = ``sym``) and the compiled code::

    gradient(F, attrs, inputs, outputs, out_grads) -> [grad of input i, or None]

``inputs``/``outputs``/``out_grads`` are NDArrays (imperative) or Symbols (graph); a ``None`` entry
says "no gradient flows to this input" (an index, an integer input, a shape-only argument).
``gradient=ZERO_GRAD`` is MXNet's ``MakeZeroGradNodes`` (comparisons, ``argmax``, ``round``: the
gradient is zero); ``gradient=None`` is an operator MXNet registers without ``FGradient``: a backward
pass through it raises ``NonDifferentiableError`` as MXNet does. Family modules attach rules with
:func:`defgrad` when their ops are registered compactly in loops.

``same_dtype`` names the inputs MXNet's type inference gives one dtype (``"all"``, or positions):
binary arithmetic, ``where``'s ``x``/``y``, ``concat``, ``dot``, ``FullyConnected``'s data, weight and
bias, ... MXNet never promotes; two dtypes there fail ("Incompatible attr in node ... at 1-th input:
expected float32, got float64"), imperatively and when a graph is bound, and so does the runtime:
the kernel checks its arrays, and :func:`~..graph.infer.infer_dtypes` checks a graph's known dtypes.
"""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ..base import HybridizeError, OperatorTypeError, ShapeError, UnknownOpError
from ._util import known
from .attrs import REQUIRED, AttrError, Param, format_value

__all__ = ["OpDef", "Attrs", "register", "get_op", "find_op", "all_ops", "same_shape", "ShapeFn", "ZERO_GRAD",
           "GradientRule", "defgrad", "add_aliases", "add_twins",
           "checked_same_shape", "same_shape_backward", "all_same_shape_backward", "TRAITS"]

TRAITS: dict[str, str] = {
    "random": "draws random numbers: two calls on equal inputs may differ (never merged, never folded)",
    "elementwise": "output element i depends only on element i of each (same-shaped) input: layout-agnostic",
    "shape_only": "returns its first input's elements, in order, under another shape (a reshape)",
    "identity": "returns its first input unchanged: always, or, with ``identity_if``, when its output has "
                "the input's shape and dtype and ``identity_if(attrs, training, in_shape)`` holds",
}

# (F, attrs, inputs, outputs, out_grads) -> one gradient (or None) per input: see the module docstring
GradientRule = Callable[[Any, "Attrs", Sequence[Any], Sequence[Any], Sequence[Any]], Sequence[Any]]


class _ZeroGrad:
    """Marker for ``OpDef.gradient``: every input's gradient is zero (MXNet's MakeZeroGradNodes)."""

    def __repr__(self) -> str:
        return "ZERO_GRAD"


ZERO_GRAD: Any = _ZeroGrad()

ShapeT = tuple  # tuple of ints; 0 in a dimension (or None for the whole shape) means "unknown"
ShapeFn = Callable[["Attrs", list], tuple]


class Attrs:
    """Resolved attributes of one operator instance: ``attrs.kernel``, hashable, immutable."""

    __slots__ = ("_values", "_hash")

    def __init__(self, values: dict[str, Any]):
        object.__setattr__(self, "_values", values)
        object.__setattr__(self, "_hash", None)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Attrs are immutable")

    def get(self, name: str, default: Any = None) -> Any:
        return self._values.get(name, default)

    def as_dict(self) -> dict[str, Any]:
        return dict(self._values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Attrs) and self._values == other._values

    def __hash__(self) -> int:
        if self._hash is None:
            object.__setattr__(self, "_hash", hash(tuple(sorted((k, repr(v)) for k, v in self._values.items()))))
        return self._hash

    def __repr__(self) -> str:
        return "Attrs(" + ", ".join(f"{k}={v!r}" for k, v in self._values.items()) + ")"


def _check_dtypes(name: str, positions: str | Sequence[int], dtypes: Sequence[Any]) -> None:
    picked = list(enumerate(dtypes)) if positions == "all" else [(i, dtypes[i]) for i in positions
                                                                   if i < len(dtypes)]
    first = None
    for i, d in picked:
        if d is None:
            continue
        d = np.dtype(d)
        if first is None:
            first = d
        elif d != first:
            raise OperatorTypeError(f"{name}: Incompatible attr at {i}-th input: expected {first.name}, got "
                                    f"{d.name} (MXNet gives these inputs one dtype and never promotes: cast first)")


def _checking_dtypes(name: str, positions: str | Sequence[int], compute: Callable[..., Any]) -> Callable[..., Any]:
    """``compute`` that first checks the dtypes of its ``same_dtype`` arrays."""
    @functools.wraps(compute)
    def checked(attrs: Any, *arrays: Any) -> Any:
        _check_dtypes(name, positions, [getattr(a, "dtype", None) for a in arrays])
        return compute(attrs, *arrays)
    return checked


def same_shape(attrs: Attrs, in_shapes: list) -> tuple:
    """Shape rule of elementwise unary ops: one output shaped like the first input."""
    return list(in_shapes), [in_shapes[0]]


def checked_same_shape(check: Callable[[Attrs, tuple], Any]) -> ShapeFn:
    """Shape rule of ops whose output is shaped like the first input once that input passes
    ``check(attrs, shape)`` (which raises ``ShapeError``): the check runs only on a known shape,
    an unknown one (``None`` or ``()``) leaves the output unknown."""
    def infer(attrs: Attrs, in_shapes: list) -> tuple:
        s = in_shapes[0]
        if s is None or len(s) == 0:
            return list(in_shapes), [None]
        check(attrs, s)
        return list(in_shapes), [tuple(s)]
    return infer


def same_shape_backward(attrs: Attrs, in_shapes: list, out_shapes: list) -> list:
    """Backward rule of ``same_shape`` ops: the first input is shaped like the output."""
    return [out_shapes[0]] + list(in_shapes[1:])


def all_same_shape_backward(attrs: Attrs, in_shapes: list, out_shapes: list) -> list:
    """Backward rule of elementwise ops whose inputs all share the output's shape."""
    return [out_shapes[0]] * len(in_shapes)


@dataclass(eq=False)
class OpDef:
    """One MXNet operator. See the module docstring for the meaning of each field."""

    name: str
    compute: Callable[..., Any]
    params: Sequence[Param] = ()
    inputs: Sequence[str] | Callable[[Attrs], Sequence[str]] = ("data",)
    aux: Sequence[str] = ()
    num_outputs: int | Callable[[Attrs], int] = 1
    variadic: str | None = None          # attr holding the count of a variadic input list
    infer_shape: ShapeFn | None = None   # (attrs, in_shapes) -> (in_shapes, out_shapes)
    infer_type: Callable[[Attrs, list], list] | None = None  # (attrs, in_dtypes) -> out_dtypes
    # (attrs, in_shapes, out_shapes) -> in_shapes: what known outputs tell about unknown input
    # dimensions (MXNet's shape functions see both sides: a begin state zeros((0, H)) learns its
    # batch size from FullyConnected's output). Default for ``same_shape`` ops: input 0 = output 0.
    infer_shape_backward: Callable[[Attrs, list, list], list] | None = None
    prepare: Callable[..., Callable[..., Any]] | None = None
    aliases: Sequence[str] = ()
    fluent: bool = False                 # also a method of NDArray and Symbol
    mode_dependent: bool = False         # output depends on autograd.is_training()
    traits: Sequence[str] = ()           # names from TRAITS (frozenset after construction)
    identity_if: Callable[[Attrs, bool, tuple], bool] | None = None   # see TRAITS["identity"]
    # attributes beyond ``params`` are kept as strings instead of refused: MXNet ops without a
    # parameter struct ignore them (``zeros_like(x, dtype='int64')`` stays float32; default for ops
    # without params), Custom hands them to its prop
    open_attrs: bool | None = None
    same_dtype: str | Sequence[int] | None = None  # inputs of one dtype ("all" or positions): module doc
    gradient: GradientRule | _ZeroGrad | None = None  # vector-Jacobian rule: module doc
    doc: str = ""
    _by_name: dict[str, Param] = field(init=False, repr=False)
    _cache: dict = field(init=False, repr=False)
    _unchecked: Callable[..., Any] | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        self._by_name = {p.name: p for p in self.params}
        self._cache = {}
        self.traits = frozenset(self.traits)
        unknown = self.traits - TRAITS.keys()
        if unknown:
            raise ValueError(f"operator {self.name}: unknown traits {sorted(unknown)} (known: {sorted(TRAITS)})")
        if self.identity_if is not None and "identity" not in self.traits:
            raise ValueError(f"operator {self.name}: identity_if without the 'identity' trait")
        if self.open_attrs is None:
            self.open_attrs = not self.params
        if self.infer_shape is same_shape and self.infer_shape_backward is None:
            self.infer_shape_backward = same_shape_backward
        if not self.doc and self.compute.__doc__:
            self.doc = inspect.cleandoc(self.compute.__doc__)
        if self.same_dtype is not None:
            self._unchecked = self.compute
            self.compute = _checking_dtypes(self.name, self.same_dtype, self.compute)

    def check_same_dtype(self, in_dtypes: Sequence[Any]) -> None:
        """Raise ``OperatorTypeError`` as MXNet does if the ``same_dtype`` inputs differ (``None``:
        unknown, not checked)."""
        if self.same_dtype is not None:
            _check_dtypes(self.name, self.same_dtype, in_dtypes)

    # -- traits -------------------------------------------------------------------------
    def has(self, trait: str) -> bool:
        return trait in self.traits

    def pure(self, training: bool) -> bool:
        """Equal inputs give equal outputs (two such nodes may be merged, constant ones folded): not
        random, and not mode dependent when compiled for training."""
        return "random" not in self.traits and not (self.mode_dependent and training)

    # -- attributes ---------------------------------------------------------------------
    def param(self, name: str) -> Param | None:
        return self._by_name.get(name)

    def coerce_attrs(self, given: dict[str, Any]) -> dict[str, Any]:
        """Checks and normalizes user-given attributes (kept as given, for export)."""
        out: dict[str, Any] = {}
        for key, value in given.items():
            p = self._by_name.get(key)
            if p is None:
                if self.open_attrs:  # as MXNet's frontends: str(value)
                    out[key] = value if isinstance(value, str) else str(value)
                    continue
                # Attributes MXNet knows but that do not change results (workspace, cudnn_tune,
                # ...) are still declared per op; anything else is an error, named.
                raise AttrError(f"operator {self.name} has no attribute {key!r}")
            try:
                out[key] = p.type.coerce(value)
            except (AttrError, ValueError, TypeError, KeyError) as e:
                raise AttrError(f"operator {self.name}: attribute {key}={value!r}: {e}") from None
        return out

    def parse_attrs(self, strings: dict[str, str]) -> dict[str, Any]:
        """Attributes read from symbol JSON (strings) -> typed values."""
        out: dict[str, Any] = {}
        for key, text in strings.items():
            p = self._by_name.get(key)
            if p is None:
                if self.open_attrs:
                    out[key] = text
                    continue
                raise AttrError(f"operator {self.name} has no attribute {key!r}")
            try:
                out[key] = p.type.parse(text)
            except (AttrError, ValueError, TypeError, KeyError) as e:
                raise AttrError(f"operator {self.name}: attribute {key}={text!r}: {e}") from None
        return out

    def format_attrs(self, attrs: dict[str, Any]) -> dict[str, str]:
        """MXNet's string form of the given attributes, sorted by name as MXNet writes them."""
        return {k: (self._by_name[k].type.fmt(v) if k in self._by_name else format_value(v))
                for k, v in sorted(attrs.items())}

    def resolve(self, given: dict[str, Any]) -> Attrs:
        """All attributes with defaults filled in; raises if a required one is missing."""
        key = tuple(sorted((k, repr(v)) for k, v in given.items()))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        values: dict[str, Any] = {}
        for p in self.params:
            if p.name in given:
                values[p.name] = given[p.name]
            elif p.default is REQUIRED:
                raise AttrError(f"operator {self.name}: required attribute {p.name!r} is missing")
            else:
                values[p.name] = p.default
        if self.open_attrs:
            values.update((k, v) for k, v in given.items() if k not in self._by_name)
        attrs = Attrs(values)
        if len(self._cache) < 4096:
            self._cache[key] = attrs
        return attrs

    # -- arity ----------------------------------------------------------------------------
    def input_names(self, attrs: Attrs) -> list[str]:
        if self.variadic is not None and not callable(self.inputs):
            # a variadic op names its inputs arg0, arg1, ... unless ``inputs`` is a function of the
            # attributes (UpSampling: arg0..argN for nearest, data/weight for bilinear)
            return [f"arg{i}" for i in range(getattr(attrs, self.variadic))]
        names = self.inputs(attrs) if callable(self.inputs) else self.inputs
        return list(names)

    def n_outputs(self, attrs: Attrs) -> int:
        return self.num_outputs(attrs) if callable(self.num_outputs) else self.num_outputs

    def output_names(self, attrs: Attrs) -> list[str]:
        n = self.n_outputs(attrs)
        return ["output"] if n == 1 else [f"output{i}" for i in range(n)]

    # -- inference ------------------------------------------------------------------------
    def shapes(self, attrs: Attrs, in_shapes: list) -> tuple[list, list]:
        """(completed input shapes, output shapes). Unknown input shapes are ``None`` or have an unknown
        dimension (``_util.known``: 0 in MXNet 1.x, -1 with NumPy shape semantics on)."""
        if self.infer_shape is not None:
            ins, outs = self.infer_shape(attrs, list(in_shapes))
            return [None if s is None else tuple(int(d) for d in s) for s in ins], \
                   [None if s is None else tuple(int(d) for d in s) for s in outs]
        if not all(known(s) for s in in_shapes):
            raise ShapeError(f"operator {self.name}: cannot infer shapes from unknown inputs {in_shapes}")
        try:
            outs = self._run_on_zeros(attrs, in_shapes, None)
        except HybridizeError:
            raise
        except (ValueError, IndexError, TypeError, ZeroDivisionError) as e:
            # inputs the kernel refuses (numpy's AxisError ...): MXNet's shape inference raises MXNetError
            raise ShapeError(f"operator {self.name}: {type(e).__name__}: {e} (input shapes: {in_shapes})") from e
        return list(in_shapes), [o.shape for o in outs]

    def shapes_from_outputs(self, attrs: Attrs, in_shapes: list, out_shapes: list) -> list | None:
        """Input shapes refined from output shapes (``None``: the op has no such rule)."""
        if self.infer_shape_backward is None:
            return None
        ins = self.infer_shape_backward(attrs, list(in_shapes), list(out_shapes))
        return [None if s is None else tuple(int(d) for d in s) for s in ins]

    def dtypes(self, attrs: Attrs, in_dtypes: list, in_shapes: list | None = None) -> list:
        if self.infer_type is not None:
            return [np.dtype(d) for d in self.infer_type(attrs, list(in_dtypes))]
        n = self.n_outputs(attrs)
        if in_dtypes and in_dtypes[0] is not None:
            return [np.dtype(in_dtypes[0])] * n
        return [np.dtype(np.float32)] * n

    def _run_on_zeros(self, attrs: Attrs, in_shapes: list, in_dtypes: list | None) -> list:
        dts = in_dtypes or [np.float32] * len(in_shapes)
        arrays = [np.zeros(s, dtype=d) for s, d in zip(in_shapes, dts)]
        out = self.compute(attrs, *arrays)
        return list(out) if isinstance(out, (tuple, list)) else [out]

    # -- execution ------------------------------------------------------------------------
    def kernel(self, attrs: Attrs, in_shapes: list | None = None, in_dtypes: list | None = None) -> Callable[..., Any]:
        """A callable ``f(*arrays)`` with the attributes bound (prepared once when possible)."""
        if self.prepare is not None and in_shapes is not None:
            return self.prepare(attrs, in_shapes, in_dtypes)
        compute = self.compute
        if self._unchecked is not None and in_dtypes is not None and all(d is not None for d in in_dtypes):
            self.check_same_dtype(in_dtypes)  # once, here: a compiled graph's dtypes are fixed
            compute = self._unchecked
        return lambda *arrays: compute(attrs, *arrays)

    def __repr__(self) -> str:
        return f"<OpDef {self.name}>"


_REGISTRY: dict[str, OpDef] = {}
_CANONICAL: dict[str, OpDef] = {}


def register(op: OpDef) -> OpDef:
    """Adds ``op`` under its name and aliases; a name may be claimed only once."""
    for n in (op.name, *op.aliases):
        if n in _REGISTRY and _REGISTRY[n] is not op:
            raise ValueError(f"operator name {n!r} registered twice")
        _REGISTRY[n] = op
    _CANONICAL[op.name] = op
    return op


def add_aliases(name: str, *aliases: str) -> OpDef:
    """More names for a registered operator: MXNet registers one computation under several names
    (``_npi_inv`` is ``_linalg_inverse``, ``_npx_fully_connected`` is ``FullyConnected``); a name
    already taken by another operator is an error, as in :func:`register`."""
    op = _REGISTRY.get(name)
    if op is None:
        raise ValueError(f"add_aliases: operator {name!r} is not registered (register it first)")
    for n in aliases:
        if n in _REGISTRY and _REGISTRY[n] is not op:
            raise ValueError(f"operator name {n!r} registered twice")
        _REGISTRY[n] = op
    op.aliases = tuple(op.aliases) + tuple(a for a in aliases if a not in op.aliases)
    return op


_TWINS: dict[str, list[OpDef]] = {}


def add_twins(name: str, *twins: str) -> list[OpDef]:
    """Operators MXNet registers *separately* with the computation of ``name`` (``_npi_exp`` computes
    as ``exp`` but is its own operator, written ``_npi_exp`` in symbol JSON, while ``_npx_fully_connected``
    is an alias written ``FullyConnected``): each twin is a copy of the operator under its own name; a
    gradient rule attached to ``name`` later (:func:`defgrad`) reaches the twins too."""
    import dataclasses

    op = _REGISTRY.get(name)
    if op is None:
        raise ValueError(f"add_twins: operator {name!r} is not registered (register it first)")
    made = []
    for n in twins:
        twin = dataclasses.replace(op, name=n, aliases=(), compute=op._unchecked or op.compute)
        made.append(register(twin))
        _TWINS.setdefault(op.name, []).append(twin)
    return made


def defgrad(*names: str) -> Callable[[GradientRule], GradientRule]:
    """Decorator attaching a gradient rule to already registered operators (by canonical name or
    alias), for family modules that register ops in loops; an op gets at most one rule."""
    def attach(rule: GradientRule) -> GradientRule:
        for n in names:
            op = _REGISTRY.get(n)
            if op is None:
                raise ValueError(f"defgrad: operator {n!r} is not registered (register it first)")
            if op.gradient is not None and op.gradient is not rule:
                raise ValueError(f"defgrad: operator {op.name} already has a gradient rule")
            op.gradient = rule
            for twin in _TWINS.get(op.name, ()):
                if twin.gradient is None:
                    twin.gradient = rule
        return rule
    return attach


def find_op(name: str) -> OpDef | None:
    _ensure_loaded()
    return _REGISTRY.get(name)


def get_op(name: str) -> OpDef:
    op = find_op(name)
    if op is None:
        raise UnknownOpError(f"unknown operator {name!r}")
    return op


def all_ops() -> list[OpDef]:
    """Every operator once (canonical names), sorted by name."""
    _ensure_loaded()
    return [_CANONICAL[k] for k in sorted(_CANONICAL)]


def all_names() -> Iterable[tuple[str, OpDef]]:
    _ensure_loaded()
    return sorted(_REGISTRY.items())


_loaded = False


def _ensure_loaded() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        from ._families import import_all

        import_all()
