"""Imperative arrays, as ``mxnet.ndarray`` (``mx.nd``): NDArray wraps a numpy array.

Every operator function here (``nd.FullyConnected``, ``nd.relu``, ``nd.contrib.X``,
``nd._internal._plus_scalar``, ``nd.random.normal``) and every fluent method (``x.reshape``)
is generated from the operator registry; nothing is written twice. Arithmetic follows MXNet:
``NDArray + NDArray`` broadcasts (``broadcast_add``), ``NDArray + 1.5`` is ``_plus_scalar``,
comparisons return 0/1 in the input's dtype, and ``a += b`` updates ``a`` in place.
"""
from __future__ import annotations

import sys
from typing import Any, Iterator

import numpy as np

from . import _frontend
from .context import Context, cpu, current_context
from .ops.registry import Attrs, OpDef, get_op

__all__ = ["NDArray", "array", "zeros", "ones", "full", "empty", "arange", "waitall", "save", "load",
           "concatenate"]

_CPU = cpu()


class NDArray:
    """An n-dimensional array on the CPU; the value behind it is a numpy array (``_data``)."""

    __slots__ = ("_data", "_grad", "__weakref__")
    __array_priority__ = 1000.0

    def __init__(self, data: np.ndarray):
        self._data = data
        self._grad = None

    # -- metadata ---------------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return self._data.shape

    @property
    def dtype(self) -> type:
        return self._data.dtype.type

    @property
    def size(self) -> int:
        return self._data.size

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def context(self) -> Context:
        return _CPU

    ctx = context

    @property
    def stype(self) -> str:
        return "default"

    @property
    def grad(self) -> "NDArray | None":
        return self._grad

    @property
    def T(self) -> "NDArray":
        return transpose(self)  # type: ignore[name-defined]  # noqa: F821

    # -- conversion -------------------------------------------------------------------------
    def asnumpy(self) -> np.ndarray:
        """A numpy copy of the values (MXNet copies too)."""
        return np.array(self._data, copy=True)

    def asscalar(self) -> Any:
        if self._data.size != 1:
            raise ValueError("The current array is not a scalar")
        return self._data.reshape(()).item() if False else self._data.reshape(-1)[0]

    def item(self) -> Any:
        return self._data.item()

    def tolist(self) -> list:
        return self._data.tolist()

    def astype(self, dtype: Any, copy: bool = True) -> "NDArray":
        dt = np.dtype(dtype)
        if not copy and dt == self._data.dtype:
            return self
        return NDArray(self._data.astype(dt))

    def copy(self) -> "NDArray":
        return NDArray(self._data.copy())

    def copyto(self, other: "NDArray | Context") -> "NDArray":
        if isinstance(other, NDArray):
            if other.shape != self.shape:
                raise ValueError(f"copyto: shape mismatch {self.shape} vs {other.shape}")
            other._data[...] = self._data
            return other
        return self.copy()

    def as_in_context(self, context: Context) -> "NDArray":
        return self

    as_in_ctx = as_in_context

    def as_nd_ndarray(self) -> "NDArray":
        return self

    def tostype(self, stype: str) -> "NDArray":
        if stype != "default":
            raise ValueError(f"storage type {stype!r} is not supported (dense arrays only)")
        return self

    def wait_to_read(self) -> None:
        """Computation is synchronous here: nothing to wait for."""

    def attach_grad(self, grad_req: str = "write", stype: str | None = None) -> None:
        self._grad = NDArray(np.zeros_like(self._data))

    def detach(self) -> "NDArray":
        return NDArray(self._data)

    def reshape(self, *shape: Any, **kwargs: Any) -> "NDArray":
        """``x.reshape((0, -1))`` or ``x.reshape(0, -1)``, with MXNet's special codes and ``reverse``."""
        if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = tuple(shape[0])
        if shape:
            kwargs["shape"] = shape
        op = get_op("Reshape")
        try:
            attrs = op.resolve(op.coerce_attrs(kwargs))
        except ValueError as e:
            raise TypeError(str(e)) from None
        return NDArray(op.compute(attrs, self._data))  # a view when possible, as MXNet's NDArray.reshape

    # -- Python protocol ---------------------------------------------------------------------
    def __repr__(self) -> str:
        shape = "x".join(str(d) for d in self.shape)
        return f"\n{self._data}\n<NDArray {shape} @{self.context}>"

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of unsized object")
        return self._data.shape[0]

    def __iter__(self) -> Iterator["NDArray"]:
        for i in range(len(self)):
            yield self[i]

    def __bool__(self) -> bool:
        if self._data.size == 1:
            return bool(self._data.reshape(-1)[0])
        if self._data.size == 0:
            return False
        raise ValueError("The truth value of an NDArray with multiple elements is ambiguous.")

    def __float__(self) -> float:
        return float(self.asscalar())

    def __int__(self) -> int:
        return int(self.asscalar())

    def __hash__(self) -> int:
        return id(self)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._data if dtype is None else self._data.astype(dtype)

    def __getitem__(self, key: Any) -> "NDArray":
        out = self._data[_index(key)]
        if not isinstance(out, np.ndarray) or out.ndim == 0:
            out = np.asarray(out, dtype=self._data.dtype).reshape(1)
        return NDArray(out)

    def __setitem__(self, key: Any, value: Any) -> None:
        v = value._data if isinstance(value, NDArray) else value
        idx = _index(key)
        try:
            self._data[idx] = v
        except ValueError:
            # MXNet broadcasts the value to the indexed shape, which also drops leading size-1
            # axes: x[b, k, 0] = nd.array([v]) (imgclsmob's heatmap refinement) or x[0] = ones((1, 4))
            target = np.shape(self._data[idx])
            extra = np.ndim(v) - len(target)
            if not isinstance(v, np.ndarray) or extra <= 0 or any(d != 1 for d in v.shape[:extra]):
                raise
            self._data[idx] = v.reshape(v.shape[extra:])

    def __getstate__(self) -> dict:
        return {"data": self._data}

    def __setstate__(self, state: dict) -> None:
        self._data = state["data"]
        self._grad = None


# names mxnet.ndarray.ndarray exports that user test code imports
_STORAGE_TYPE_STR_TO_ID = {"undefined": -1, "default": 0, "row_sparse": 1, "csr": 2}
_STORAGE_TYPE_ID_TO_STR = {v: k for k, v in _STORAGE_TYPE_STR_TO_ID.items()}
py_slice = slice  # the builtin (``slice`` here is the operator)


def _index(key: Any) -> Any:
    if isinstance(key, NDArray):
        return key._data.astype(np.int64)
    if isinstance(key, tuple):
        return tuple(k._data.astype(np.int64) if isinstance(k, NDArray) else k for k in key)
    return key


def _is_tensor(v: Any) -> bool:
    return isinstance(v, NDArray)


def _wrap(result: Any, out: Any = None) -> Any:
    if isinstance(result, (tuple, list)):
        if out is not None:
            for o, r in zip(out, result):
                o._data[...] = r
            return out
        return [NDArray(r) for r in result]
    if out is not None:
        out._data[...] = result
        return out
    return NDArray(result)


def invoke(op: OpDef, arrays: list, attrs: Attrs, out: Any = None) -> Any:
    """Runs one operator on numpy arrays and wraps the result(s)."""
    return _wrap(op.compute(attrs, *arrays), out)


def _make_function(op: OpDef, called_as: str):
    def fn(*args: Any, **kwargs: Any) -> Any:
        call = _frontend.bind_call(op, args, kwargs, _is_tensor)
        arrays = []
        for nm, v in zip(call.input_names, call.inputs):
            if v is None:
                raise TypeError(f"{op.name}: missing input {nm!r}")
            arrays.append(v._data if isinstance(v, NDArray) else np.asarray(v))
        return _wrap(_own(op.compute(call.attrs, *arrays), arrays), call.out)
    return fn


def _own(result: Any, inputs: list) -> Any:
    """MXNet's imperative ops return new arrays: a kernel result that is a view of an input
    (transpose, slice, broadcast_to, ...) or read-only is copied, so mutating it never changes
    (or fails on) the input."""
    if isinstance(result, (tuple, list)):
        return type(result)(_own(r, inputs) for r in result)
    if isinstance(result, np.ndarray) and (not result.flags.writeable or result.base is not None and any(
            np.may_share_memory(result, a) for a in inputs)):
        return result.copy()
    return result


# -- arithmetic, from the registry's binary ops ------------------------------------------------
def _scalar_call(op: OpDef, data: np.ndarray, scalar: Any) -> np.ndarray:
    return op.compute(Attrs({"scalar": float(scalar)}), data)


def _arith(broadcast: str, scalar: str | None, rscalar: str | None = None, reverse: bool = False):
    b_op = get_op(broadcast)
    s_op = get_op(scalar) if scalar else None
    r_op = get_op(rscalar) if rscalar else None

    def method(self: NDArray, other: Any) -> NDArray:
        if isinstance(other, NDArray):
            a, b = (other._data, self._data) if reverse else (self._data, other._data)
            return NDArray(b_op.compute(None, a, b))
        if isinstance(other, (int, float, np.number, bool)):
            op = r_op if reverse else s_op
            if op is None:
                return NotImplemented
            return NDArray(_scalar_call(op, self._data, other))
        if isinstance(other, np.ndarray):
            return method(self, NDArray(other))
        return NotImplemented
    return method


def _inplace(name: str):
    def method(self: NDArray, other: Any) -> NDArray:
        res = getattr(self, name)(other)
        if res is NotImplemented:
            return res
        self._data[...] = res._data
        return self
    return method


_ARITH = {
    # dunder: (broadcast op, scalar op, reversed-scalar op)
    "add": ("broadcast_add", "_plus_scalar", "_plus_scalar"),
    "sub": ("broadcast_sub", "_minus_scalar", "_rminus_scalar"),
    "mul": ("broadcast_mul", "_mul_scalar", "_mul_scalar"),
    "truediv": ("broadcast_div", "_div_scalar", "_rdiv_scalar"),
    "mod": ("broadcast_mod", "_mod_scalar", "_rmod_scalar"),
    "pow": ("broadcast_power", "_power_scalar", "_rpower_scalar"),
}
_COMPARE = {
    "eq": ("broadcast_equal", "_equal_scalar"), "ne": ("broadcast_not_equal", "_not_equal_scalar"),
    "gt": ("broadcast_greater", "_greater_scalar"), "ge": ("broadcast_greater_equal", "_greater_equal_scalar"),
    "lt": ("broadcast_lesser", "_lesser_scalar"), "le": ("broadcast_lesser_equal", "_lesser_equal_scalar"),
}
_SWAPPED = {"gt": "lt", "ge": "le", "lt": "gt", "le": "ge", "eq": "eq", "ne": "ne"}


def _install_arithmetic() -> None:
    from .ops.registry import find_op

    def have(*names: str | None) -> bool:
        return all(n is None or find_op(n) is not None for n in names)

    for dunder, (b, s, r) in _ARITH.items():
        if have(b, s):
            setattr(NDArray, f"__{dunder}__", _arith(b, s))
            setattr(NDArray, f"__i{dunder}__", _inplace(f"__{dunder}__"))
        if have(b, r):
            setattr(NDArray, f"__r{dunder}__", _arith(b, None, r, reverse=True))
    if have("broadcast_div", "_div_scalar"):
        NDArray.__div__ = NDArray.__truediv__  # type: ignore[attr-defined]
    for dunder, (b, s) in _COMPARE.items():
        if have(b, s):
            meth = _arith(b, s)

            def cmp(self: NDArray, other: Any, _m=meth, _d=dunder) -> Any:
                if other is None and _d in ("eq", "ne"):
                    return _d == "ne"
                return _m(self, other)
            setattr(NDArray, f"__{dunder}__", cmp)
    if have("_mul_scalar"):
        NDArray.__neg__ = lambda self: NDArray(_scalar_call(get_op("_mul_scalar"), self._data, -1.0))  # type: ignore
    NDArray.__pos__ = lambda self: self  # type: ignore[assignment]
    if have("abs"):
        NDArray.__abs__ = lambda self: NDArray(get_op("abs").compute(None, self._data))  # type: ignore


def _install_fluent() -> None:
    from .ops.registry import all_ops
    g = globals()
    for op in all_ops():
        if not op.fluent:
            continue
        for nm in (op.name, *op.aliases):
            space, public = _frontend.placement(nm)
            if space or public == "reshape" or hasattr(NDArray, public):
                continue
            fn = g.get(public)
            if fn is not None:
                setattr(NDArray, public, lambda self, *a, _fn=fn, **k: _fn(self, *a, **k))


# -- creation ----------------------------------------------------------------------------------
def array(source_array: Any, ctx: Context | None = None, dtype: Any = None) -> NDArray:
    """An NDArray holding a copy of ``source_array``; float32 unless ``dtype`` (or an NDArray source) says otherwise."""
    if isinstance(source_array, NDArray):
        return NDArray(np.array(source_array._data, dtype=dtype or source_array._data.dtype))
    return NDArray(np.array(source_array, dtype=np.float32 if dtype is None else np.dtype(dtype)))


def empty(shape: Any, ctx: Context | None = None, dtype: Any = None) -> NDArray:
    return NDArray(np.empty(_shape(shape), dtype=np.dtype(dtype or np.float32)))


def _create(op_name: str, out: "NDArray | None" = None, **attrs: Any) -> NDArray:
    """Runs a no-input creation op of the registry (``_zeros``, ``_full``, ...): one source of truth."""
    op = get_op(op_name)
    for key in [k for k in attrs if k in ("name", "attr", "ctx") or (k.startswith("__") and k.endswith("__"))]:
        attrs.pop(key)  # frontend keywords and __annotations__ MXNet's creation functions accept
    given = op.coerce_attrs({k: v for k, v in attrs.items() if v is not None})
    return _wrap(op.compute(op.resolve(given)), out)


def zeros(shape: Any, ctx: Context | None = None, dtype: Any = None, stype: str | None = None,
          **kwargs: Any) -> NDArray:
    """``_zeros``: an array of zeros (float32 unless ``dtype``)."""
    return _create("_zeros", shape=_shape(shape), dtype=dtype, **kwargs)


def ones(shape: Any, ctx: Context | None = None, dtype: Any = None, **kwargs: Any) -> NDArray:
    """``_ones``: an array of ones (float32 unless ``dtype``)."""
    return _create("_ones", shape=_shape(shape), dtype=dtype, **kwargs)


def full(shape: Any, val: Any, ctx: Context | None = None, dtype: Any = None, out: NDArray | None = None) -> NDArray:
    """``_full``: an array filled with ``val``."""
    return _create("_full", out=out, shape=_shape(shape), value=float(val), dtype=dtype)


def arange(start: float, stop: float | None = None, step: float = 1.0, repeat: int = 1,
           infer_range: bool | None = None, ctx: Context | None = None, dtype: Any = None) -> NDArray:
    """``_arange``: values in [start, stop) (``[0, start)`` when ``stop`` is None), each ``repeat`` times."""
    return _create("_arange", start=start, stop=stop, step=step, repeat=repeat, infer_range=infer_range,
                   dtype=dtype)


def _shape(shape: Any) -> tuple:
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)


def concatenate(arrays: list, axis: int = 0, always_copy: bool = True) -> NDArray:
    return NDArray(np.concatenate([a._data for a in arrays], axis=axis))


def waitall() -> None:
    """Computation is synchronous here: nothing to wait for."""


def save(fname: str, data: Any) -> None:
    """Saves NDArrays (a list or a name->array dict) in MXNet's binary ``.params`` format."""
    from .graph import params as _params
    _params.save(fname, data)


def load(fname: str, max_bytes: Any = None) -> Any:
    """Loads MXNet's binary format (list or dict of NDArrays), or a ``.npz``. Every size the file
    declares is checked before allocating; ``max_bytes`` raises the load limit (default
    ``$HYBRIDIZE_MAX_LOAD_BYTES`` or 2 GiB) for a genuinely huge file."""
    from .graph import params as _params
    loaded = _params.load(fname, max_bytes)
    if isinstance(loaded, dict):
        return {k: v if isinstance(v, NDArray) else NDArray(v) for k, v in loaded.items()}
    return [v if isinstance(v, NDArray) else NDArray(v) for v in loaded]


# -- the generated namespace -------------------------------------------------------------------
_frontend.populate(globals(), _make_function, __name__)
_reshape = globals().get("reshape") or globals().get("Reshape")
_install_arithmetic()
_install_fluent()
from .ops import tensor_random as _tensor_random  # noqa: E402

_tensor_random.install_frontend(random, _internal, _is_tensor)  # type: ignore[name-defined]  # noqa: F821
from .ops import _pyfuncs  # noqa: E402

_pyfuncs.install(globals(), _is_tensor, symbolic=False)  # maximum, power, split_v2, ... (Python-level in MXNet)
from .ops import _contrib_pyfuncs  # noqa: E402

_contrib_pyfuncs.install(contrib, globals(), _is_tensor, symbolic=False)  # type: ignore[name-defined]  # noqa: F821
NDArray.split_v2 = lambda self, *a, **k: split_v2(self, *a, **k)  # type: ignore[attr-defined]  # noqa: F821
_this = sys.modules[__name__]
