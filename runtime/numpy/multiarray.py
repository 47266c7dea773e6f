"""``mx.np.ndarray``: an NDArray with NumPy semantics, and the imperative builder of the np table.

``ndarray`` subclasses :class:`~..ndarray.NDArray` (as MXNet's does), so autograd, Gluon parameters
and every ``nd`` operator accept it. Its operators (``+ - * / % ** @``, comparisons) and methods call
the functions built from :data:`~.._numpy_table.TABLE`, which run registered operators through
:func:`invoke` (the one path: kernel, typed errors, autograd recording) and return ``ndarray``.
"""
from __future__ import annotations

import types
from typing import Any, Callable

import numpy as _np

from .. import _numpy_table as _table
from .. import autograd as _autograd
from .. import ndarray as _nd
from ..base import HybridizeError
from ..context import Context, cpu
from ..ndarray import NDArray
from ..ops.registry import get_op

__all__ = ["array", "asarray", "build_function", "empty", "empty_like", "install", "invoke", "ndarray"]


def _is_tensor(v: Any) -> bool:
    return isinstance(v, NDArray)


def _ctx_of(inputs: list) -> Any:
    for v in inputs:
        if isinstance(v, NDArray):
            return _nd._propagated(v._ctx)
    return None


def invoke(op_name: str, inputs: list, attrs: dict, out: Any = None, ctx: Any = None) -> Any:
    """Runs a registered op on np arrays (numbers and lists become arrays), returns ``ndarray``(s),
    recorded for autograd when recording."""
    op = get_op(op_name)
    try:
        resolved = op.resolve(op.coerce_attrs(attrs))
    except ValueError as e:
        raise TypeError(f"{op_name}: {e}") from None
    tensors = [v if isinstance(v, NDArray) else array(v, dtype=_infer_dtype(v)) for v in inputs]
    arrays = [t._data for t in tensors]
    res = _nd._own(_nd._compute(op, resolved, arrays), arrays)
    place = _nd._placed(ctx) if ctx is not None else _ctx_of(tensors)
    if isinstance(res, (tuple, list)):
        outs = [ndarray(_np.asarray(r), place) for r in res]
    else:
        outs = [ndarray(_np.asarray(res), place)]
    record = getattr(_autograd, "_record", None)
    if record is not None and _autograd.is_recording():
        record(op, resolved, tensors, outs)
    if out is not None:
        targets = out if isinstance(out, (list, tuple)) else [out]
        for t, o in zip(targets, outs):
            if t._data.dtype != o._data.dtype and _np.bool_ in (t._data.dtype, o._data.dtype):
                raise TypeError(f"{op_name}: out has dtype {t._data.dtype}, the result {o._data.dtype}")
            t._data[...] = o._data
        return out
    return outs[0] if not isinstance(res, (tuple, list)) else outs


def _infer_dtype(v: Any) -> Any:
    """A number or list standing for a tensor input: NumPy's dtype for it, floats as float32."""
    dt = _np.asarray(v).dtype
    return _np.float32 if dt.kind == "f" else dt


class _Namespace(types.SimpleNamespace):
    """``F`` for compositions run imperatively: ``F.np`` / ``F.npx``."""


_F = _Namespace()


def build_function(entry: _table.NpFunction) -> Callable[..., Any]:
    """The imperative function of one table entry."""
    if entry.compose is not None:
        compose = entry.compose

        def fn(*args: Any, **kwargs: Any) -> Any:
            return compose(_F, *args, **kwargs)
    else:
        def fn(*args: Any, **kwargs: Any) -> Any:
            call = _table.bind(entry, args, kwargs, _is_tensor)
            inputs = [v for v in call.inputs if not _table.omitted(v)]
            if any(v is None for v in inputs):
                raise TypeError(f"{entry.name}: a tensor argument is missing")
            return invoke(call.op, inputs, call.attrs, out=call.out, ctx=call.ctx if entry.creation else None)
    fn.__name__ = fn.__qualname__ = entry.name.rsplit(".", 1)[-1]
    fn.__doc__ = entry.doc or f"mx.{entry.space}.{entry.name}: MXNet 1.9.1's, on the registered operator " \
                              f"{entry.op or '(a composition)'}."
    return fn


def install(np_module: Any, npx_module: Any) -> None:
    """Fills ``mx.np`` (and its ``linalg``/``random``) and ``mx.npx`` from the table."""
    _F.np, _F.npx = np_module, npx_module
    for entry in _table.TABLE:
        target = np_module if entry.space == "np" else npx_module
        *subs, public = entry.name.split(".")
        for s in subs:
            target = getattr(target, s)
        setattr(target, public, build_function(entry))


# -- the array class --------------------------------------------------------------------------------
class ndarray(NDArray):
    """An array with NumPy semantics (MXNet 1.9.1's ``mxnet.numpy.ndarray``)."""

    __slots__ = ()

    # -- metadata ---------------------------------------------------------------------------
    @property
    def dtype(self) -> _np.dtype:  # type: ignore[override]
        return self._data.dtype

    @property
    def T(self) -> ndarray:  # type: ignore[override]
        return _np_mod.transpose(self)

    @property
    def grad(self) -> ndarray | None:  # type: ignore[override]
        g = NDArray.grad.fget(self)  # type: ignore[attr-defined]
        return None if g is None else ndarray(g._data, g._ctx)

    # -- conversion -------------------------------------------------------------------------
    def as_nd_ndarray(self) -> NDArray:
        """The same memory and autograd entry as a classic NDArray."""
        out = NDArray(self._data, self._ctx)
        out._ag = self._ag
        return out

    def as_np_ndarray(self) -> ndarray:
        return self

    def item(self, *args: Any) -> Any:
        return self._data.item(*args)

    def asscalar(self) -> Any:
        return self.item()

    def astype(self, dtype: Any, order: str = "K", casting: str = "unsafe", subok: bool = True,
               copy: bool = True) -> ndarray:  # type: ignore[override]
        dt = _np.dtype(dtype)
        if not copy and dt == self._data.dtype:
            return self
        return invoke("Cast", [self], {"dtype": dt.name})

    def copy(self, order: str = "C") -> ndarray:  # type: ignore[override]
        if order != "C":
            raise NotImplementedError(f"ndarray.copy does not support order={order!r} (MXNet 1.9.1: 'C' only)")
        return _np_mod.copy(self)

    def copyto(self, other: Any) -> Any:
        if isinstance(other, NDArray):
            other._data[...] = self._data
            _nd._written(other)
            return other
        return ndarray(self._data.copy(), _nd._placed(other))

    def as_in_context(self, context: Context) -> ndarray:
        ctx = _nd._placed(context)
        return self if ctx == self._ctx else ndarray(self._data.copy(), ctx)

    as_in_ctx = as_in_context

    def detach(self) -> ndarray:
        return ndarray(self._data, self._ctx)

    def tolist(self) -> list:
        return self._data.tolist()

    def __array__(self, dtype: Any = None, copy: Any = None) -> _np.ndarray:
        return self._data if dtype is None else self._data.astype(dtype)

    # -- printing ---------------------------------------------------------------------------
    def __repr__(self) -> str:
        s = repr(self._data)
        dt = self._data.dtype
        if "dtype=" in s:
            if dt == _np.float32:
                s = s[:s.rindex(",")] + ")"
        elif dt not in (_np.float32, _np.bool_):
            s = s[:-1] + f", dtype={dt})"
        ctx = self.context
        if ctx.device_type == "cpu":
            return s
        return s[:-1] + f", ctx={ctx})"

    def __str__(self) -> str:
        s = str(self._data)
        ctx = self.context
        return s if ctx.device_type == "cpu" or self.ndim == 0 else f"{s} @{ctx}"

    def __format__(self, fmt: str) -> str:
        if self.ndim == 0:
            return self.item().__format__(fmt)
        if not fmt:
            return str(self).__format__(fmt)
        raise TypeError("Cannot format mxnet.numpy.ndarray with format_spec")

    # -- Python protocol ----------------------------------------------------------------------
    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __bool__(self) -> bool:
        if self.size == 0:
            raise ValueError("The truth value of an empty array is ambiguous.")  # MXNet 1.9.1
        if self.size > 1:
            raise ValueError("The truth value of an ndarray with multiple elements is ambiguous.")
        return bool(self._data.reshape(-1)[0])

    def __float__(self) -> float:
        if self.size != 1:
            raise TypeError("only size-1 arrays can be converted to Python scalars")
        return float(self._data.reshape(-1)[0])

    def __int__(self) -> int:
        if self.size != 1:
            raise TypeError("only size-1 arrays can be converted to Python scalars")
        return int(self._data.reshape(-1)[0])

    def __index__(self) -> int:
        if self.size != 1 or self._data.dtype.kind not in "iu":
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self._data.reshape(-1)[0])

    def __hash__(self) -> int:
        return id(self)

    def __reduce__(self) -> tuple:
        return ndarray, (None,), self.__getstate__()

    # -- indexing ------------------------------------------------------------------------------
    def __getitem__(self, key: Any) -> ndarray:  # type: ignore[override]
        """NumPy indexing: basic indexing is a view where the selection is contiguous (a copy
        otherwise, as MXNet), an integer for every axis gives a zero-dim array; integer and boolean
        arrays index as NumPy's advanced indexing (a copy)."""
        idx = _np_index(key)
        if _nd._is_basic(idx):
            data = self._dense()
            out = data[idx]
            if not isinstance(out, _np.ndarray):
                out = data[(idx if isinstance(idx, tuple) else (idx,)) + (None,)].reshape(())
            elif not out.flags.c_contiguous:
                out = out.copy()
        else:
            out = _np.asarray(self._data[idx])
        res = ndarray(out, self._ctx)
        if _autograd.is_recording():
            rec = getattr(_nd, "_record_indexing", None)
            if rec is not None and _autograd._in_graph(self):  # type: ignore[attr-defined]
                rec(self, idx, res)
        return res

    def __setitem__(self, key: Any, value: Any) -> None:
        """NumPy assignment: the value broadcast to the selection and cast to this array's dtype."""
        in_graph = getattr(_autograd, "_in_graph", None)
        if _autograd.is_recording() and in_graph is not None and in_graph(self):
            raise HybridizeError("Assignment to an array recorded by autograd is not supported (MXNet: "
                                 "Inplace operations (+=, -=, x[:]=, etc) are not supported when recording)")
        if _autograd.is_recording() and isinstance(value, NDArray) and in_graph is not None and in_graph(value):
            # MXNet 1.9.1 refuses it too (its slice assignment writes an output already in the graph)
            raise HybridizeError("Check failed: AGInfo::IsNone(*output): Inplace operations (+=, -=, x[:]=, etc) "
                                 "are not supported when recording with autograd.")
        v = value._data if isinstance(value, NDArray) else value
        self._data[_np_index(key)] = v
        _nd._written(self)

    # -- arithmetic ------------------------------------------------------------------------------
    def __add__(self, other: Any) -> Any:
        return _np_mod.add(self, other)

    def __radd__(self, other: Any) -> Any:
        return _np_mod.add(other, self)

    def __sub__(self, other: Any) -> Any:
        return _np_mod.subtract(self, other)

    def __rsub__(self, other: Any) -> Any:
        return _np_mod.subtract(other, self)

    def __mul__(self, other: Any) -> Any:
        return _np_mod.multiply(self, other)

    def __rmul__(self, other: Any) -> Any:
        return _np_mod.multiply(other, self)

    def __truediv__(self, other: Any) -> Any:
        return _np_mod.true_divide(self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return _np_mod.true_divide(other, self)

    __div__ = __truediv__
    __rdiv__ = __rtruediv__

    def __mod__(self, other: Any) -> Any:
        return _np_mod.mod(self, other)

    def __rmod__(self, other: Any) -> Any:
        return _np_mod.mod(other, self)

    def __pow__(self, other: Any) -> Any:
        return _np_mod.power(self, other)

    def __rpow__(self, other: Any) -> Any:
        return _np_mod.power(other, self)

    def __matmul__(self, other: Any) -> Any:
        return _np_mod.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return _np_mod.matmul(other, self)

    def __neg__(self) -> Any:
        return _np_mod.negative(self)

    def __pos__(self) -> Any:
        return self

    def __abs__(self) -> Any:
        return _np_mod.absolute(self)

    def __invert__(self) -> Any:
        return _np_mod.invert(self)

    def __and__(self, other: Any) -> Any:
        return _np_mod.bitwise_and(self, other)

    def __or__(self, other: Any) -> Any:
        return _np_mod.bitwise_or(self, other)

    def __xor__(self, other: Any) -> Any:
        return _np_mod.bitwise_xor(self, other)

    def __eq__(self, other: object) -> Any:  # type: ignore[override]
        if other is None:
            raise TypeError(f"type {type(other)} not supported")  # as MXNet 1.9.1
        return _np_mod.equal(self, other)

    def __ne__(self, other: object) -> Any:  # type: ignore[override]
        if other is None:
            raise TypeError(f"type {type(other)} not supported")
        return _np_mod.not_equal(self, other)

    def __gt__(self, other: Any) -> Any:
        return _np_mod.greater(self, other)

    def __ge__(self, other: Any) -> Any:
        return _np_mod.greater_equal(self, other)

    def __lt__(self, other: Any) -> Any:
        return _np_mod.less(self, other)

    def __le__(self, other: Any) -> Any:
        return _np_mod.less_equal(self, other)

    def _inplace(self, res: ndarray) -> ndarray:
        in_graph = getattr(_autograd, "_in_graph", None)
        if _autograd.is_recording() and in_graph is not None and in_graph(self):
            raise HybridizeError("In-place operations (+=, -=, ...) on an array recorded by autograd are not "
                                 "supported (as in MXNet)")
        self._data[...] = res._data.astype(self._data.dtype, copy=False)
        _nd._written(self)
        return self

    def __iadd__(self, other: Any) -> ndarray:
        return self._inplace(self + other)

    def __isub__(self, other: Any) -> ndarray:
        return self._inplace(self - other)

    def __imul__(self, other: Any) -> ndarray:
        return self._inplace(self * other)

    def __itruediv__(self, other: Any) -> ndarray:
        return self._inplace(self / other)

    def __imod__(self, other: Any) -> ndarray:
        return self._inplace(self % other)

    def __ipow__(self, other: Any) -> ndarray:
        return self._inplace(self ** other)

    def __floordiv__(self, other: Any) -> Any:
        return NotImplemented  # MXNet 1.9.1's np.ndarray has no ``//``: TypeError

    __rfloordiv__ = __floordiv__

    # -- methods --------------------------------------------------------------------------------
    def reshape(self, *args: Any, **kwargs: Any) -> ndarray:  # type: ignore[override]
        """``x.reshape(2, -1)`` or ``x.reshape((2, -1))`` (NumPy's -1 only)."""
        order = kwargs.pop("order", "C")
        if kwargs:
            raise TypeError(f"reshape() got unexpected keyword arguments {sorted(kwargs)}")
        shape = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
        return _np_mod.reshape(self, tuple(shape), order=order)

    def transpose(self, *axes: Any) -> ndarray:
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (list, tuple))):
            axes = axes[0]
        return _np_mod.transpose(self, axes or None)

    def flatten(self, order: str = "C") -> ndarray:  # type: ignore[override]
        return _np_mod.reshape(self, (-1,))

    def squeeze(self, axis: Any = None) -> ndarray:  # type: ignore[override]
        return _np_mod.squeeze(self, axis=axis)

    def expand_dims(self, axis: int) -> ndarray:  # type: ignore[override]
        return _np_mod.expand_dims(self, axis)

    def broadcast_to(self, shape: Any) -> ndarray:  # type: ignore[override]
        return _np_mod.broadcast_to(self, shape)

    def nonzero(self) -> tuple:
        return _np_mod.nonzero(self)

    def clip(self, min: Any = None, max: Any = None, out: Any = None) -> ndarray:
        return _np_mod.clip(self, min, max, out=out)

    def attach_grad(self, grad_req: str = "write") -> None:  # type: ignore[override]
        NDArray.attach_grad(self, grad_req)

    def wait_to_read(self) -> None:
        """Computation is synchronous here: nothing to wait for."""


def _method(fn_name: str) -> Callable[..., Any]:
    def method(self: ndarray, *args: Any, **kwargs: Any) -> Any:
        return getattr(_np_mod, fn_name)(self, *args, **kwargs)
    method.__name__ = fn_name
    return method


for _m in ("sum", "prod", "mean", "max", "min", "std", "var", "argmax", "argmin", "all", "any", "cumsum",
           "swapaxes", "repeat", "tile", "take", "sort", "argsort", "flip", "diagonal", "trace", "round",
           "dot", "squeeze", "moveaxis", "abs", "sign", "rint", "fix", "floor", "ceil", "trunc", "sin", "cos",
           "tan", "arcsin", "arccos", "arctan", "degrees", "radians", "exp", "expm1", "log", "log10", "log2",
           "log1p", "sqrt", "cbrt", "rsqrt", "square", "reciprocal", "tanh", "sinh", "cosh", "arcsinh",
           "arccosh", "arctanh", "nan_to_num", "ravel"):
    if not hasattr(ndarray, _m) or getattr(ndarray, _m) is getattr(NDArray, _m, None):
        setattr(ndarray, _m, _method(_m))


def _npx_method(fn_name: str) -> Callable[..., Any]:
    def method(self: ndarray, *args: Any, **kwargs: Any) -> Any:
        return getattr(_npx_mod, fn_name)(self, *args, **kwargs)
    method.__name__ = fn_name
    return method


for _m in ("relu", "sigmoid", "softmax", "log_softmax", "one_hot", "pick", "topk", "shape_array"):
    setattr(ndarray, _m, _npx_method(_m))


def _np_index(key: Any) -> Any:
    """An index with np arrays as numpy arrays (bool stays bool: a mask)."""
    def conv(k: Any) -> Any:
        if isinstance(k, NDArray):
            d = k._data
            return d if d.dtype.kind in "biu" else d.astype(_np.int64)
        if isinstance(k, list):
            return _np.asarray(k)
        return k
    if isinstance(key, tuple):
        return tuple(conv(k) for k in key)
    return conv(key)


# -- creation without an operator: from data ------------------------------------------------------------
def array(object: Any, dtype: Any = None, ctx: Context | None = None) -> ndarray:
    """An np array holding a copy of ``object``. MXNet 1.9.1's rule: a NumPy array or an NDArray keeps
    its dtype, anything else (lists, numbers, bools) is float32 unless ``dtype`` says otherwise."""
    if isinstance(object, NDArray):
        data = object._data
    elif isinstance(object, _np.ndarray):
        data = object
    else:
        if isinstance(object, (list, tuple)) and any(isinstance(v, NDArray) for v in object):
            object = [v.asnumpy() if isinstance(v, NDArray) else v for v in object]
        data = _np.asarray(object)
        if dtype is None:
            dtype = _np.float32
    if data.dtype.kind == "f" and data.dtype == _np.float16 and dtype is None:
        dtype = data.dtype
    return ndarray(_np.array(data, dtype=_np.dtype(dtype) if dtype is not None else data.dtype, copy=True),
                   _nd._placed(ctx))


def asarray(a: Any, dtype: Any = None, ctx: Context | None = None) -> ndarray:
    """``a`` itself when it already is an np array of ``dtype``, else :func:`array`."""
    if isinstance(a, ndarray) and (dtype is None or _np.dtype(dtype) == a.dtype):
        return a
    return array(a, dtype=dtype, ctx=ctx)


def empty(shape: Any, dtype: Any = None, order: str = "C", ctx: Context | None = None) -> ndarray:
    """An uninitialized array (zeros here), float32 unless ``dtype``."""
    if order != "C":
        raise NotImplementedError(f"empty does not support order={order!r} (MXNet 1.9.1: 'C' only)")
    shape = (int(shape),) if isinstance(shape, (int, _np.integer)) else tuple(shape)
    return ndarray(_np.zeros(shape, _np.dtype(dtype) if dtype is not None else _np.float32), _nd._placed(ctx))


def empty_like(prototype: Any, dtype: Any = None, order: str = "C", subok: bool = False,
               shape: Any = None) -> ndarray:
    dt = dtype if dtype is not None else prototype.dtype
    return empty(prototype.shape if shape is None else shape, dtype=dt, ctx=getattr(prototype, "_ctx", None))


_CPU = cpu()
_np_mod: Any = None
_npx_mod: Any = None


def _bind_modules(np_module: Any, npx_module: Any) -> None:
    global _np_mod, _npx_mod
    _np_mod, _npx_mod = np_module, npx_module
