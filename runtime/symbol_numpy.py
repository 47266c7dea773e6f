"""``mx.sym.np`` / ``mx.sym.npx`` and the np-mode Symbol (MXNet 1.9.1's ``mxnet.symbol.numpy``).

After ``npx.set_np()`` Gluon traces ``hybrid_forward`` with ``F = mx.sym`` on :class:`_Symbol` s:
Symbols with NumPy semantics. ``F.np.X`` / ``F.npx.X`` are built from the same table as the
imperative ``mx.np`` / ``mx.npx`` (:data:`~._numpy_table.TABLE`): a table call binds to one
registered operator (``np.sum(x, axis=1)`` -> a ``_np_sum`` node named ``sum0``) or runs the
entry's composition with ``F`` = these namespaces, so both sides accept the same spellings and the
graph names the operators MXNet 1.9.1 writes into ``-symbol.json``.

What differs from a legacy :class:`~.symbol.Symbol`, as in MXNet 1.9.1's ``_Symbol``:

* ``t[i]``, ``t[a:b]``, ``t[i, :, ::2]`` slice data (``slice`` + ``_npx_reshape``), not outputs;
  other keys (``None``, ``...``, lists, tensors) raise ``IndexError``;
* ``+ - * / % **`` and comparisons are NumPy's broadcasting ufuncs (``_npi_add``,
  ``_npi_multiply_scalar``, ...);
* ``len(t)`` and ``iter(t)`` raise ``TypeError`` for a single output; ``t[k] = v`` raises
  ``NotImplementedError``; ``reshape`` takes dimensions as NumPy does;
* an operator with several outputs returns a list of ``_Symbol`` (``np.split``).
"""
from __future__ import annotations

import builtins
import sys
import types
from typing import Any, Callable

from . import _numpy_table as _table
from . import symbol as _sym
from .ops.registry import get_op

__all__ = ["_Symbol", "as_np", "is_np_symbol", "np", "npx"]

_PREFIXES = ("_npi_", "_npx_", "_np_")


def _hint(op_name: str) -> str:
    """MXNet names a node after the Python function of its operator: the operator's name without
    its np prefix (``_npi_multiply_scalar`` -> ``multiply_scalar0``, ``Cast`` -> ``cast0``)."""
    for p in _PREFIXES:
        if op_name.startswith(p):
            return op_name[len(p):].lower()
    return op_name.lower()


def _is_tensor(v: Any) -> bool:
    return isinstance(v, _sym.Symbol)


def _is_number(v: Any) -> bool:
    import numpy as onp
    return isinstance(v, (int, float, bool, onp.number, onp.bool_))


def as_np(s: _sym.Symbol) -> _Symbol:
    """The np-mode view of a Symbol (same outputs): ``Symbol.as_np_ndarray()``."""
    return s if isinstance(s, _Symbol) else _Symbol(s._outputs)


def is_np_symbol(v: Any) -> bool:
    return isinstance(v, _Symbol)


def _wrap(s: _sym.Symbol) -> Any:
    """An op's result: one ``_Symbol``, or a list of them for several outputs (as MXNet's np ops)."""
    outs = s._outputs
    if len(outs) == 1:
        return _Symbol(outs)
    return [_Symbol([e]) for e in outs]


def invoke(op_name: str, inputs: list, attrs: dict, name: str | None = None) -> Any:
    """One node of ``op_name`` over Symbol ``inputs``; numbers among them become constants."""
    op = get_op(op_name)
    # None is dropped (the default applies) unless it overrides a non-None default: a sampler's
    # parameter given as a tensor is the attribute None plus an input, as MXNet writes it
    given = op.coerce_attrs({k: v for k, v in attrs.items()
                             if v is not None or (k in op._by_name and op._by_name[k].default is not None)})
    tensors = [v if isinstance(v, _sym.Symbol) or v is None else _constant(v) for v in inputs]
    node = _sym.create(op, tensors, given, name, _hint(op_name))
    return _wrap(node)


def _constant(v: Any) -> _Symbol:
    """A number or nested list used where an operator wants a tensor (``np.where(c, x, 0)``)."""
    import numpy as onp
    arr = onp.asarray(v)
    dtype = "float32" if arr.dtype.kind == "f" else arr.dtype.name
    if arr.ndim == 0:
        return invoke("_npi_full", [], {"shape": (), "value": float(arr), "dtype": dtype})
    raise TypeError(f"a list cannot stand for a tensor in a symbolic graph: {v!r} (make it an np array "
                    f"parameter or constant)")


class _Namespace(types.ModuleType):
    """``F.np`` / ``F.npx`` (and their ``linalg``/``random``) while tracing."""


np = _Namespace("hybridize.runtime.symbol.numpy", "MXNet 1.9.1's mx.sym.np, built from the np table.")
npx = _Namespace("hybridize.runtime.symbol.numpy_extension", "MXNet 1.9.1's mx.sym.npx, built from the np table.")
_F = types.SimpleNamespace(np=np, npx=npx)


def build_function(entry: _table.NpFunction) -> Callable[..., Any]:
    """The symbolic function of one table entry (the imperative side has its twin in
    ``runtime/numpy/multiarray.py``)."""
    if entry.compose is not None:
        compose = entry.compose

        def fn(*args: Any, **kwargs: Any) -> Any:
            return compose(_F, *args, **kwargs)
    else:
        def fn(*args: Any, **kwargs: Any) -> Any:
            name = kwargs.pop("name", None)
            call = _table.bind(entry, args, kwargs, _is_tensor)
            if call.out is not None:
                raise TypeError(f"{entry.name}: out= is not supported for Symbols")
            inputs = [v for v in call.inputs if not _table.omitted(v)]
            if any(v is None for v in inputs):
                raise TypeError(f"{entry.name}: a tensor argument is missing")
            attrs = dict(call.attrs)
            if entry.scalar is not None and "is_int" in attrs and args and _is_number(args[0]):
                # MXNet 1.9.1's symbolic _ufunc_helper asks whether the *Symbol* is an int: never
                attrs["is_int"] = False
            if "ctx" in get_op(call.op)._by_name:  # MXNet's symbolic functions write the context
                attrs["ctx"] = str(call.ctx) if call.ctx is not None else "cpu(0)"
            return invoke(call.op, inputs, attrs, name)
    fn.__name__ = fn.__qualname__ = entry.name.rsplit(".", 1)[-1]
    fn.__doc__ = entry.doc or f"mx.sym.{entry.space}.{entry.name}: MXNet 1.9.1's, building a " \
                              f"{entry.op or '(composition)'} node."
    return fn


class _Internal(types.ModuleType):
    """``F.np._internal``: MXNet's np operators by their names without the ``_npi_`` prefix
    (``F.np._internal.rnn_param_concat``, as Gluon's RNN layers call it in np mode)."""

    def __getattr__(self, attr: str) -> Callable[..., Any]:
        from ._frontend import bind_call
        from .ops.registry import find_op
        op = find_op("_npi_" + attr) if not attr.startswith("__") else None
        if op is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r}")
        op_name = "_npi_" + attr

        def fn(*args: Any, **kwargs: Any) -> Any:
            name = kwargs.pop("name", None)
            call = bind_call(op, args, kwargs, _is_tensor)
            return invoke(op_name, [v for v in call.inputs if v is not None], dict(call.given), name)
        fn.__name__ = fn.__qualname__ = attr
        setattr(self, attr, fn)
        return fn


def _install() -> None:
    for entry in _table.TABLE:
        target: types.ModuleType = np if entry.space == "np" else npx
        *subs, public = entry.name.split(".")
        for s in subs:
            inner = getattr(target, s, None)
            if inner is None:
                inner = _Namespace(f"{target.__name__}.{s}")
                setattr(target, s, inner)
            target = inner
        setattr(target, public, build_function(entry))
    np._Symbol = _Symbol  # type: ignore[attr-defined]  # mx.sym.np._Symbol, as MXNet
    np._internal = _Internal(np.__name__ + "._internal")  # type: ignore[attr-defined]
    for mod in (np, npx):
        sys.modules.setdefault(mod.__name__, mod)


def _key_error(key: Any) -> IndexError:
    return IndexError(f"Only integer, slice, or tuple of these types are supported! Received key={key}")


def _is_int(v: Any) -> bool:
    import numpy as onp
    return isinstance(v, (int, onp.integer)) and not isinstance(v, bool)


class _Symbol(_sym.Symbol):
    """A Symbol with NumPy semantics (MXNet 1.9.1's ``mxnet.symbol.numpy._Symbol``)."""

    __slots__ = ()

    # -- structure ---------------------------------------------------------------------------
    def __getitem__(self, key: Any) -> Any:  # type: ignore[override]
        n = len(self._outputs)
        if n > 1:
            if _is_int(key):
                key = int(key)
                if key < -n or key >= n:
                    raise IndexError("list index out of range")
                return _Symbol([self._outputs[key]])
            if isinstance(key, builtins.slice):
                return _Symbol(self._outputs[key])
            raise TypeError(f"indices of symbol group must be integers or slices, not {type(key)}")
        if _is_int(key):
            key = int(key)
            return invoke("_npx_reshape", [invoke("slice", [self], {"begin": [key], "end": [key + 1]})],
                          {"newshape": (-3, -4)})
        if isinstance(key, builtins.slice):
            if key.step is not None and key.step == 0:
                raise ValueError("slice step cannot be zero")
            start = [None] if key.start is None else key.start
            stop = [None] if key.stop is None else key.stop
            return invoke("slice", [self], {"begin": start, "end": stop, "step": key.step})
        if isinstance(key, tuple):
            if len(key) == 0:
                return self
            begin: list = []
            end: list = []
            step: list = []
            new_shape: tuple = ()
            for index in key:
                if isinstance(index, builtins.slice):
                    if index.step is not None and index.step == 0:
                        raise ValueError("slice step cannot be zero")
                    begin.append(index.start)
                    end.append(index.stop)
                    step.append(index.step)
                    new_shape += (-2,)
                elif _is_int(index):
                    index = int(index)
                    begin.append(index)
                    end.append(index + 1 if index >= 0 else index - 1)
                    step.append(1 if index >= 0 else -1)
                    new_shape += (-3,)
                else:
                    raise _key_error(key)
            new_shape += (-4,)
            sliced = invoke("slice", [self], {"begin": begin, "end": end, "step": step})
            return invoke("_npx_reshape", [sliced], {"newshape": new_shape})
        raise _key_error(key)

    def __setitem__(self, key: Any, value: Any) -> None:
        raise NotImplementedError

    def __repr__(self) -> str:
        if len(self._outputs) > 1:
            return "<_Symbol group [" + ", ".join(str(_Symbol([e])) for e in self._outputs) + "]>"
        return f"<_Symbol {self.name}>"

    def __str__(self) -> str:
        return self.name if len(self._outputs) == 1 else repr(self)

    @property
    def name(self) -> str:  # type: ignore[override]
        if len(self._outputs) > 1:
            raise AttributeError(f"This is a Group Symbol that contains {len(self._outputs)} elements and does not "
                                 "have a name. Use str(sym) to print the name of all the elements instead.")
        return self._outputs[0].node.name

    def __len__(self) -> int:
        if len(self._outputs) == 1:
            raise TypeError(f"{self!r} is not a list and does not support len().")
        return len(self._outputs)

    def __iter__(self) -> Any:
        if len(self._outputs) == 1:
            raise TypeError(f"'{self!r}' is not iterable.")
        return iter([_Symbol([e]) for e in self._outputs])

    @property
    def num_outputs(self) -> int:
        return len(self._outputs)

    def __copy__(self) -> _Symbol:
        return _Symbol(list(self._outputs))

    def __deepcopy__(self, memo: dict) -> _Symbol:
        return _Symbol(self.graph().copy().outputs)

    def __hash__(self) -> int:
        return id(self)

    def as_nd_ndarray(self) -> _sym.Symbol:
        """The legacy Symbol of the same outputs (for its fluent methods)."""
        return _sym.Symbol(self._outputs)

    def as_np_ndarray(self) -> _Symbol:
        return self

    def get_internals(self) -> _Symbol:
        return _Symbol(super().get_internals()._outputs)

    # -- arithmetic: NumPy ufuncs ---------------------------------------------------------------
    def __add__(self, other: Any) -> Any:
        return np.add(self, other)

    def __radd__(self, other: Any) -> Any:
        return np.add(other, self)

    def __sub__(self, other: Any) -> Any:
        return np.subtract(self, other)

    def __rsub__(self, other: Any) -> Any:
        return np.subtract(other, self)

    def __mul__(self, other: Any) -> Any:
        return np.multiply(self, other)

    def __rmul__(self, other: Any) -> Any:
        return np.multiply(other, self)

    def __truediv__(self, other: Any) -> Any:
        return np.true_divide(self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return np.true_divide(other, self)

    __div__ = __truediv__
    __rdiv__ = __rtruediv__

    def __mod__(self, other: Any) -> Any:
        return np.mod(self, other)

    def __rmod__(self, other: Any) -> Any:
        return np.mod(other, self)

    def __pow__(self, other: Any) -> Any:
        return np.power(self, other)

    def __rpow__(self, other: Any) -> Any:
        return np.power(other, self)

    def __matmul__(self, other: Any) -> Any:
        return np.matmul(self, other)

    def __neg__(self) -> Any:
        return self.__mul__(-1.0)

    def __eq__(self, other: object) -> Any:  # type: ignore[override]
        return np.equal(self, other)

    def __ne__(self, other: object) -> Any:  # type: ignore[override]
        return np.not_equal(self, other)

    def __gt__(self, other: Any) -> Any:
        return np.greater(self, other)

    def __ge__(self, other: Any) -> Any:
        return np.greater_equal(self, other)

    def __lt__(self, other: Any) -> Any:
        return np.less(self, other)

    def __le__(self, other: Any) -> Any:
        return np.less_equal(self, other)

    def __iadd__(self, other: Any) -> Any:
        raise _sym.NotImplementedForSymbol(self.__iadd__, "+=", other, 1)

    def __isub__(self, other: Any) -> Any:
        raise _sym.NotImplementedForSymbol(self.__isub__, "-=", other, 1)

    def __imul__(self, other: Any) -> Any:
        raise _sym.NotImplementedForSymbol(self.__imul__, "*=", other, 1)

    def __itruediv__(self, other: Any) -> Any:
        raise NotImplementedError

    # -- methods: the np functions with this array first ----------------------------------------
    @property
    def T(self) -> Any:
        return self.transpose()

    def astype(self, dtype: Any, order: str = "K", casting: str = "unsafe", subok: bool = True,
               copy: bool = True) -> Any:
        if order is not None and order not in ("K", "C"):
            raise ValueError("order must be either 'K' or 'C'")
        if casting != "unsafe":
            raise ValueError("casting must be equal to 'unsafe'")
        if not subok:
            raise ValueError("subok must be equal to True")
        import numpy as onp
        return invoke("Cast", [self], {"dtype": onp.dtype(dtype).name if not isinstance(dtype, str) else dtype})

    def reshape(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        order = kwargs.pop("order", "C")
        if kwargs:
            raise TypeError(f"{next(iter(kwargs))} is an invalid keyword argument for this function")
        if order != "C":
            raise NotImplementedError(f"only supports C-order, while received {order}")
        if not args:
            raise TypeError("reshape() takes exactly 1 argument (0 given)")
        shape = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
        return np.reshape(self, tuple(shape), order=order)

    def transpose(self, *axes: Any) -> Any:
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        elif len(axes) == 1 and axes[0] is None:
            axes = ()
        return np.transpose(self, axes=axes if axes else None)

    def flatten(self, order: str = "C") -> Any:
        return np.reshape(self, (-1,), order=order)

    def dot(self, b: Any, out: Any = None) -> Any:
        return np.dot(self, b)

    def squeeze(self, axis: Any = None) -> Any:
        return np.squeeze(self, axis=axis)

    def swapaxes(self, axis1: int, axis2: int) -> Any:
        return np.swapaxes(self, axis1, axis2)

    def clip(self, min: Any = None, max: Any = None, out: Any = None) -> Any:
        return np.clip(self, min, max)

    def take(self, indices: Any, axis: Any = None, mode: str = "raise") -> Any:
        return np.take(self, indices, axis=axis, mode=mode)

    def repeat(self, repeats: Any, axis: Any = None) -> Any:
        return np.repeat(self, repeats, axis=axis)

    def argmax(self, axis: Any = None, out: Any = None) -> Any:
        return np.argmax(self, axis)

    def argmin(self, axis: Any = None, out: Any = None) -> Any:
        return np.argmin(self, axis)

    def sort(self, axis: int = -1, kind: Any = None, order: Any = None) -> Any:
        return np.sort(self, axis=axis)

    def argsort(self, axis: int = -1, kind: Any = None, order: Any = None) -> Any:
        return np.argsort(self, axis=axis)

    def round(self, decimals: int = 0, out: Any = None, **kwargs: Any) -> Any:
        return np.round(self, decimals)

    def sum(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> Any:
        return np.sum(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def prod(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> Any:
        return np.prod(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def mean(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> Any:
        return np.mean(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def std(self, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0, keepdims: bool = False) -> Any:
        return np.std(self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def var(self, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0, keepdims: bool = False) -> Any:
        return np.var(self, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)

    def cumsum(self, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
        return np.cumsum(self, axis=axis, dtype=dtype)

    def max(self, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
        return np.max(self, axis=axis, keepdims=keepdims)

    def min(self, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
        return np.min(self, axis=axis, keepdims=keepdims)

    # MXNet 1.9.1's _Symbol defines these only to refuse them (use the np/npx functions)
    def _refused(name: str):
        def method(self: Any, *args: Any, **kwargs: Any) -> Any:
            raise AttributeError(f"_Symbol object has no attribute {name}")
        method.__name__ = name
        return method

    for _n in ("reshape_like", "zeros_like", "ones_like", "broadcast_axes", "pad", "split", "split_v2", "slice",
               "slice_axis", "slice_like", "one_hot", "pick", "topk", "argmax_channel", "abs", "sign",
               "shape_array", "size_array", "expand_dims", "tile", "flip", "depth_to_space", "space_to_depth",
               "diag", "nansum", "nanprod", "norm", "rint", "fix", "floor", "ceil", "trunc", "sin", "cos", "tan",
               "arcsin", "arccos", "arctan", "degrees", "radians", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
               "arctanh", "exp", "expm1", "log", "log10", "log2", "log1p", "sqrt", "rsqrt", "cbrt", "rcbrt",
               "square", "reciprocal", "relu", "sigmoid", "softmax", "log_softmax", "softmin", "broadcast_to",
               "broadcast_like"):
        locals()[_n] = _refused(_n)
    del _n, _refused


_install()
