"""Imperative arrays, as ``mxnet.ndarray`` (``mx.nd``): NDArray wraps a numpy array.

Every operator function here (``nd.FullyConnected``, ``nd.relu``, ``nd.contrib.X``,
``nd._internal._plus_scalar``, ``nd.random.normal``) and every fluent method (``x.reshape``)
is generated from the operator registry; nothing is written twice. Arithmetic follows MXNet:
``NDArray + NDArray`` broadcasts (``broadcast_add``), ``NDArray + 1.5`` is ``_plus_scalar``,
comparisons return 0/1 in the input's dtype, and ``a += b`` updates ``a`` in place.
"""
from __future__ import annotations

import builtins

import ctypes
import sys
import weakref
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ._frontend import bind_call as _bind_call, build as _build_frontend, placement as _placement
from .autograd import _ASSIGN_IN_GRAPH, _in_graph, _mark, _record, _state as _ag_state, backward as _backward
from .base import HybridizeError, OperatorArgumentError, OperatorError, operator_error
from .context import Context, cpu, current_context  # noqa: F401  (MXNet's ndarray module exposes current_context)
from .ops import _buffers
from .ops.registry import Attrs, OpDef, get_op

__all__ = ["NDArray", "array", "zeros", "ones", "full", "empty", "arange", "waitall", "save", "load",
           "load_frombuffer", "from_numpy", "to_dlpack_for_read", "to_dlpack_for_write", "from_dlpack",
           "concatenate"]

_CPU = cpu()

# Arrays whose in-place writes (``x[:] = v``, ``x += v``, ``y.copyto(x)``) other state depends on:
# Gluon parameters' values, which compiled programs bind and derive constants from. Keyed by identity
# rather than marked by a subclass, so such an array keeps its exact type (``type(p.data()) is
# NDArray`` or ``mx.np.ndarray``, as in MXNet). id -> callback run after each write.
_WRITE_WATCH: dict[int, Callable[[], None]] = {}


def watch_writes(arr: "NDArray", callback: Callable[[], None]) -> "NDArray":
    """Runs ``callback`` after every in-place write to ``arr`` (until ``arr`` is collected); returns ``arr``."""
    key = id(arr)
    if key not in _WRITE_WATCH:
        weakref.finalize(arr, _WRITE_WATCH.pop, key, None).atexit = False
    _WRITE_WATCH[key] = callback
    return arr


def _written(arr: "NDArray") -> None:
    cb = _WRITE_WATCH.get(id(arr))
    if cb is not None:
        cb()


# id -> array, for the arrays whose ``handle`` was taken (entries vanish with their arrays)
_HANDLES: "weakref.WeakValueDictionary[int, NDArray]" = weakref.WeakValueDictionary()


def _from_handle(handle: ctypes.c_void_p, writable: bool) -> "tuple[np.ndarray, Context | None]":
    """The storage (shared, read-only unless ``writable``) and context of the live array ``handle``
    names (``NDArray.handle``)."""
    src = _HANDLES.get(handle.value or 0)
    if src is None:
        raise HybridizeError(f"NDArray handle {handle.value!r} names no live array")
    data = src._data
    if not writable:
        data = data.view()
        data.flags.writeable = False
    return data, src._ctx


class NDArray:
    """An n-dimensional array on the CPU; the value behind it is a numpy array (``_data``)."""

    # ``_ag``: the autograd entry ``(node, output index)`` when the array is a marked variable or
    # was recorded (see ``autograd``), else None
    __slots__ = ("_data", "_ag", "_ctx", "_fresh", "__weakref__")
    __array_priority__ = 1000.0

    def __init__(self, data: np.ndarray, ctx: Context | None = None, writable: bool = True):
        if data.__class__ is ctypes.c_void_p:  # ``NDArray(handle)``, as MXNet's C callbacks are used
            data, ctx = _from_handle(data, writable)
        self._data = data
        self._ag = None
        # the CPU-kind context asked for (cpu(1), cpu_shared(0), ...); None is cpu(0), the default
        self._ctx = ctx

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
        return self._ctx or _CPU

    ctx = context

    @property
    def writable(self) -> bool:
        """Whether the array can be written to (always: read-only NDArrays are not made here)."""
        return True

    @property
    def handle(self) -> ctypes.c_void_p:
        """A C-pointer-like handle of this array (``mxnet.base.NDArrayHandle``): MXNet's monitor
        callbacks receive handles and turn them back with ``NDArray(ctypes.cast(h, NDArrayHandle))``;
        here the handle is a key into a registry of the live arrays that were asked for one."""
        key = id(self)
        _HANDLES[key] = self
        return ctypes.c_void_p(key)

    _as_parameter_ = handle  # ``ctypes.cast(arr, NDArrayHandle)`` accepts the array itself

    @property
    def stype(self) -> str:
        return "default"

    @property
    def grad(self) -> "NDArray | None":
        """The gradient buffer of a marked variable (``attach_grad``), else None."""
        e = self._ag
        if e is None or not e[0].alive or e[0].grad is None:
            return None
        return e[0].grad

    @property
    def _fresh_grad(self) -> bool:
        """MXNet's ``NDArray._fresh_grad``: True once a backward pass has written this variable's gradient
        (a Parameter's data), False again after ``Trainer.step`` consumed it; ``Trainer`` raises on a
        stale gradient unless told to ignore it. Kept on the variable's autograd node when marked."""
        e = self._ag
        if e is not None:
            return e[0].fresh
        return getattr(self, "_fresh", False)

    @_fresh_grad.setter
    def _fresh_grad(self, state: bool) -> None:
        e = self._ag
        if e is not None:
            e[0].fresh = bool(state)
        self._fresh = bool(state)

    @property
    def T(self) -> "NDArray":
        """The transpose (a copy); ``self`` when it has fewer than two axes, as MXNet."""
        if self._data.ndim < 2:
            return self
        return transpose(self)  # type: ignore[name-defined]  # noqa: F821

    # -- conversion -------------------------------------------------------------------------
    def asnumpy(self) -> np.ndarray:
        """A numpy copy of the values (MXNet copies too)."""
        if _PENDING:
            _raise_pending(self)
        return _buffers.copy_of(self._data)

    def asscalar(self) -> Any:
        if _PENDING:
            _raise_pending(self)
        if self._data.size != 1:
            raise ValueError("The current array is not a scalar")
        return self._data.reshape(-1)[0]

    def item(self) -> Any:
        return self._data.item()

    def tolist(self) -> list:
        return self._data.tolist()

    def astype(self, dtype: Any, copy: bool = True) -> "NDArray":
        """A copy in ``dtype`` (``Cast``, recorded as such); ``self`` when ``copy=False`` and the dtype matches."""
        dt = np.dtype(dtype)
        if not copy and dt == self._data.dtype:
            return self
        out = NDArray(self._data.astype(dt))
        if _ag_state.recording:
            op = get_op("Cast")
            _record(op, op.resolve({"dtype": dt.name}), [self], [out])
        return out

    def copy(self) -> "NDArray":
        """A deep copy (recorded as ``_copy``: gradients flow through it)."""
        out = NDArray(_host_copy(self._data), self._ctx)
        if _ag_state.recording:
            op = get_op("_copy")
            _record(op, op.resolve({}), [self], [out])
        return out

    def copyto(self, other: "NDArray | Context") -> "NDArray":
        if isinstance(other, NDArray):
            if other.shape != self.shape:
                raise ValueError(f"copyto: shape mismatch {self.shape} vs {other.shape}")
            other._data[...] = self._data
            _written(other)
            return other
        return NDArray(_host_copy(self._data), _placed(other))

    def as_in_context(self, context: Context) -> "NDArray":
        """``self`` when it is already in ``context``, else a copy there (as MXNet). A GPU context
        stays on the CPU (``mx.gpu()`` warned once on creation)."""
        ctx = _placed(context)
        if ctx == self._ctx:
            return self
        return NDArray(_host_copy(self._data), ctx)

    as_in_ctx = as_in_context

    def as_nd_ndarray(self) -> "NDArray":
        return self

    def as_np_ndarray(self) -> "NDArray":
        """The same memory as an ``mx.np.ndarray`` (NumPy semantics), and the same autograd entry (MXNet's
        shallow copy shares it: a gradient reaches the variable whichever view was recorded)."""
        from .numpy import ndarray as np_ndarray
        out = np_ndarray(self._data, self._ctx)
        out._ag = self._ag
        return out

    def tostype(self, stype: str) -> "NDArray":
        if stype != "default":
            raise ValueError(f"storage type {stype!r} is not supported (dense arrays only)")
        return self

    def wait_to_read(self) -> None:
        """Computation is synchronous here: nothing to wait for (but an executor's deferred error,
        see :func:`defer_error`, is raised here as MXNet's engine raises it)."""
        if _PENDING:
            _raise_pending(self)

    def attach_grad(self, grad_req: str = "write", stype: str | None = None) -> None:
        """Marks this array as a variable with a zero gradient buffer (``.grad``): operations on it
        inside ``autograd.record()`` are recorded and ``backward`` writes ('write') or adds ('add')
        its gradient there ('null': none)."""
        _mark(self, NDArray(_buffers.zeros(self._data.shape, self._data.dtype), self._ctx), grad_req)

    def detach(self) -> "NDArray":
        """The same values (shared memory), out of the computational graph."""
        return NDArray(self._data, self._ctx)

    def backward(self, out_grad: Any = None, retain_graph: bool = False, train_mode: bool = True) -> None:
        """Gradients of this (recorded) array w.r.t. the marked variables, into their ``.grad``."""
        _backward([self], None if out_grad is None else [out_grad], retain_graph, train_mode)

    def _dense(self) -> np.ndarray:
        """``_data``, made C-contiguous in place first if it is not: MXNet's arrays always are, so
        its reshapes and contiguous slices are views; numpy's would be copies of a strided array."""
        data = self._data
        if not data.flags.c_contiguous:
            data = self._data = np.ascontiguousarray(data)
        return data

    def reshape(self, *shape: Any, **kwargs: Any) -> "NDArray":
        """``x.reshape((0, -1))`` or ``x.reshape(0, -1)``, with MXNet's special codes and ``reverse``.
        The result shares memory with ``self`` (MXNet's ``NDArray.reshape`` is a view)."""
        if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = tuple(shape[0])
        if shape:
            kwargs["shape"] = shape
        op = get_op("Reshape")
        try:
            attrs = op.resolve(op.coerce_attrs(kwargs))
        except ValueError as e:
            raise TypeError(str(e)) from None
        out = NDArray(op.compute(attrs, self._dense()), self._ctx)
        if _ag_state.recording:
            _record(op, attrs, [self], [out])
        return out

    # -- views: MXNet's fluent flatten/expand_dims/squeeze take inplace=True for a view ----------
    def flatten(self, inplace: bool = False) -> "NDArray":
        """Shape ``(d1, d2*...*dk)``: a copy, or with ``inplace=True`` a view sharing memory."""
        return flatten(self) if not inplace else self.reshape((0, -1))  # type: ignore[name-defined]  # noqa: F821

    def expand_dims(self, axis: int, inplace: bool = False) -> "NDArray":
        """A new axis of size 1 at ``axis``: a copy, or with ``inplace=True`` a view sharing memory."""
        if not inplace:
            return expand_dims(self, axis=axis)  # type: ignore[name-defined]  # noqa: F821
        new_shape = list(self.shape)
        assert -len(new_shape) - 1 <= axis <= len(new_shape), \
            "axis {} is out of range for {}d array".format(axis, len(new_shape))
        if axis < 0:
            axis += len(new_shape) + 1
        new_shape.insert(axis, 1)
        return self.reshape(new_shape)

    def squeeze(self, axis: Any = None, inplace: bool = False) -> "NDArray":
        """Size-1 axes removed: a copy, or with ``inplace=True`` a view sharing memory (MXNet's
        checks raise AssertionError there, as in MXNet)."""
        if not inplace:
            return squeeze(self, axis=axis)  # type: ignore[name-defined]  # noqa: F821
        new_shape = list(self.shape)
        axes = [axis] if isinstance(axis, (int, np.integer)) else axis
        if axes:
            assert len(axes) == len(set(axes)), "axis {} contains duplicate which is not allowed.".format(axes)
            resolved = [i if i >= 0 else i + len(self.shape) for i in axes]
            for arg_axis, actual in zip(axes, resolved):
                assert -len(new_shape) <= arg_axis < len(new_shape), \
                    "axis {} is out of range for {}d array".format(arg_axis, len(new_shape))
                assert new_shape[actual] == 1, \
                    "Squeeze target axis {} must be size 1, got {}.".format(arg_axis, new_shape[actual])
            for i in sorted(resolved, reverse=True):
                del new_shape[i]
        else:
            new_shape = [d for d in new_shape if d != 1]
        return self.reshape(new_shape or [1])

    def broadcast_to(self, shape: Any) -> "NDArray":
        """Broadcasts to ``shape`` (MXNet's Python-level method: leading axes of size 1 are added,
        only size-1 axes grow, anything else is a ValueError naming both shapes)."""
        cur_shape = self.shape
        err_str = ("operands could not be broadcast together with remapped shapes[original->remapped]: "
                   "{} and requested shape {}".format(cur_shape, shape))
        if len(shape) < len(cur_shape):
            raise ValueError(err_str)
        cur_shape = (1,) * (len(shape) - len(cur_shape)) + cur_shape
        cur_arr = np.array(cur_shape)
        axes = np.nonzero(cur_arr != np.array(shape))
        if (cur_arr[axes] != 1).any():
            raise ValueError(err_str)
        if cur_shape != self.shape:
            return broadcast_to(self.reshape(cur_shape), shape=shape)  # type: ignore[name-defined]  # noqa: F821
        return broadcast_to(self, shape=tuple(shape))  # type: ignore[name-defined]  # noqa: F821

    def broadcast_like(self, other: "NDArray") -> "NDArray":
        """Broadcasts to ``other``'s shape (``broadcast_to(other.shape)``, as MXNet's method)."""
        return self.broadcast_to(other.shape)

    def slice_assign(self, rhs: "NDArray", begin: Any, end: Any, step: Any) -> "NDArray":
        """Writes ``rhs`` into ``self[begin:end:step]`` in place and returns ``self``."""
        return _internal._slice_assign(self, rhs, begin=begin, end=end, step=step, out=self)  # type: ignore[name-defined]  # noqa: F821

    def slice_assign_scalar(self, value: float, begin: Any, end: Any, step: Any) -> "NDArray":
        """Writes ``value`` into ``self[begin:end:step]`` in place and returns ``self``."""
        return _internal._slice_assign_scalar(self, value, begin=begin, end=end, step=step, out=self)  # type: ignore[name-defined]  # noqa: F821

    # -- interop ---------------------------------------------------------------------------
    def to_dlpack_for_read(self) -> Any:
        """A DLPack capsule (``"dltensor"``) viewing this array's memory."""
        return to_dlpack_for_read(self)

    def to_dlpack_for_write(self) -> Any:
        """A DLPack capsule (``"dltensor"``) viewing this array's memory, for writing."""
        return to_dlpack_for_write(self)

    def __dlpack__(self, **kwargs: Any) -> Any:
        from . import _interop
        if not _interop.NUMPY_DLPACK:   # numpy<1.22: the runtime's own capsule
            return _interop.to_dlpack(self._dense())
        return self._dense().__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple:
        return (1, 0)  # kDLCPU

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
        """MXNet's indexing: basic indexing (ints, slices, ``None``, ``...``) gives a view sharing
        memory when the selected elements are contiguous in memory and a copy otherwise; advanced
        indexing gives a copy; a result with no axes left has shape ``(1,)``."""
        idx = _index(key)
        if _is_basic(idx):
            data = self._dense()
            out = data[idx]
            if not isinstance(out, np.ndarray) or out.ndim == 0:
                # every axis indexed by an integer: one element, still a view in MXNet
                out = data[(idx if isinstance(idx, tuple) else (idx,)) + (None,)].reshape(1)
            elif not out.flags.c_contiguous:
                out = out.copy()
        else:
            out = self._data[idx]
            if not isinstance(out, np.ndarray) or out.ndim == 0:
                out = np.asarray(out, dtype=self._data.dtype).reshape(1)
        res = NDArray(out, self._ctx)
        if _ag_state.recording and _in_graph(self):
            _record_indexing(self, idx, res)
        return res

    @staticmethod
    def _basic_indexing_slice_is_contiguous(slc_key: tuple, shape: tuple) -> bool:
        """Whether slicing ``shape`` with ``slc_key`` (one ``slice`` per axis) selects a contiguous
        block (MXNet's rule: from right to left, once an axis is sliced to a proper subset, every
        axis further left must select at most one element; steps other than 1 break contiguity
        for more than one element)."""
        assert len(slc_key) == len(shape)
        lens = [len(range(*s.indices(n))) for s, n in zip(slc_key, shape)]
        if int(np.prod(lens)) in (0, 1):
            return True
        is_subset = False
        for s, n, k in zip(reversed(slc_key), reversed(shape), reversed(lens)):
            step = s.indices(n)[2]
            if k == 0:
                return True
            if k > 1 and (step > 1 or step < 0):
                return False
            if is_subset:
                if k > 1:
                    return False
            elif k < n:
                is_subset = True
        return True

    def __setitem__(self, key: Any, value: Any) -> None:
        if _ag_state.recording and _in_graph(self):
            raise HybridizeError(_ASSIGN_IN_GRAPH)
        if _ag_state.recording and isinstance(value, NDArray) and _in_graph(value) and not _whole(key):
            # MXNet records a part assignment as an op whose output is its own input: refused
            raise HybridizeError("Inplace operations (+=, -=, x[:]=, etc) are not supported when recording "
                                 "with autograd.")
        v = value._data if isinstance(value, NDArray) else value
        if isinstance(v, (list, tuple)):   # a sequence is an array of the target's dtype (x[0, 1] = [5])
            v = np.asarray(v, dtype=self._data.dtype)
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
        _written(self)

    # -- pickling: MXNet's state, ``{'handle': bytearray}`` holding the array in the format of
    # ``nd.save`` (one array, no list header), so pickles move between MXNet and this runtime
    def __reduce__(self) -> tuple:
        return NDArray, (None,), self.__getstate__()

    def __getstate__(self) -> dict:
        from .graph import params as _params
        try:
            return {"handle": _params.dump_array(self._data)}
        except TypeError:  # a dtype MXNet cannot hold (int16, uint32, complex ...): numpy's own pickle
            return {"handle": None, "data": self._data}

    def __deepcopy__(self, memo: dict) -> "NDArray":
        """What deepcopy through the pickled state gives (MXNet has no other): a C-ordered copy of
        the values on the default context, off the tape; without encoding and decoding the bytes,
        which made ``copy.deepcopy`` of a dict of small arrays cost milliseconds. Subclasses keep
        their own ``__reduce__``."""
        if type(self) is not NDArray:
            import copy
            return copy._reconstruct(self, memo, *self.__reduce_ex__(4))  # the protocol deepcopy would use
        return NDArray(np.array(self._data, order="C"))

    def __setstate__(self, state: dict) -> None:
        from .graph import params as _params
        handle = state.get("handle")
        if handle is None and "data" in state:  # see __getstate__, and the runtime's earlier pickles
            self._data = np.asarray(state["data"])
        else:
            self._data = np.zeros((0,), np.float32) if handle is None else _params.load_array(handle)
        self._ag = None
        self._ctx = None


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


_BASIC = (int, np.integer, slice, type(None), type(Ellipsis))


def _is_basic(idx: Any) -> bool:
    """Whether an index is basic (ints, slices, None, Ellipsis only), as MXNet tells them apart."""
    if isinstance(idx, tuple):
        return all(isinstance(k, _BASIC) and not isinstance(k, bool) for k in idx)
    return isinstance(idx, _BASIC) and not isinstance(idx, bool)


def _placed(ctx: Any) -> "Context | None":
    """The context an array records: a CPU-kind context other than cpu(0) as given; None for
    cpu(0), for no context and for a GPU (which runs on the CPU here, see ``context.gpu``)."""
    if ctx is None or not isinstance(ctx, Context) or ctx.device_type == "gpu" or ctx == _CPU:
        return None
    return ctx


def _is_tensor(v: Any) -> bool:
    return isinstance(v, NDArray)


def _wrap(result: Any, out: Any = None, ctx: "Context | None" = None) -> Any:
    if isinstance(result, (tuple, list)):
        if out is not None:
            for o, r in zip(out, result):
                o._data[...] = r
            return out
        return [NDArray(r, ctx) for r in result]
    if out is not None:
        out._data[...] = result
        return out
    return NDArray(result, ctx)


def invoke(op: OpDef, arrays: list, attrs: Attrs, out: Any = None) -> Any:
    """Runs one operator on NDArrays (or numpy arrays) and wraps the result(s); recorded when
    autograd is recording and an input is in the graph."""
    res = _wrap(op.compute(attrs, *[a._data if isinstance(a, NDArray) else a for a in arrays]), out)
    if _ag_state.recording:
        _record(op, attrs, arrays, list(res) if isinstance(res, (list, tuple)) else [res])
    return res


def _record_indexing(src: NDArray, idx: Any, res: NDArray) -> None:
    """Records ``src[idx]`` for autograd as the gather it is: ``take`` of the flattened array at the
    selected flat positions (one rule covers basic and advanced indexing; MXNet records
    slice/Reshape or gather_nd, whose gradients are the same scatter)."""
    flat_op, take_op = get_op("Reshape"), get_op("take")
    positions = np.arange(src.size, dtype=np.int64).reshape(src.shape)[idx]
    positions = np.asarray(positions).reshape(res.shape)
    flat = NDArray(src._data.reshape(-1), src._ctx)
    _record(flat_op, flat_op.resolve({"shape": (-1,)}), [src], [flat])
    _record(take_op, take_op.resolve({}), [flat, NDArray(positions.astype(np.float32))], [res])


def _make_function(op: OpDef, called_as: str):
    def fn(*args: Any, **kwargs: Any) -> Any:
        call = _bind_call(op, args, kwargs, _is_tensor)
        arrays = []
        ctx = None
        for nm, v in zip(call.input_names, call.inputs):
            if v is None:
                raise OperatorArgumentError(f"{op.name}: missing input {nm!r}")
            if isinstance(v, NDArray):
                arrays.append(v._data)
                if ctx is None:
                    ctx = _propagated(v._ctx)  # results live where the inputs live
            else:
                arrays.append(np.asarray(v))
        if not arrays:
            if "ctx" in kwargs:
                ctx = _placed(kwargs["ctx"])  # creation ops: nd.random.uniform(shape=..., ctx=...)
            _require_known_shape(op, call.attrs.get("shape"))
        elif op.name in _NO_ZERO_SIZE and any(a.size == 0 for a in arrays):
            _refuse_zero_size(op, call.attrs, arrays)
        res = _wrap(_own(_compute(op, call.attrs, arrays), arrays), call.out, ctx)
        if _ag_state.recording:
            _record(op, call.attrs, call.inputs, list(res) if isinstance(res, (list, tuple)) else [res])
        return res
    return fn


# what a kernel raises when its inputs do not fit: MXNet's operators raise MXNetError for these
_KERNEL_FAILURES = (ValueError, IndexError, TypeError, ZeroDivisionError, AssertionError, KeyError, OverflowError)


def _compute(op: OpDef, attrs: Any, arrays: list) -> Any:
    """``op.compute``, with a kernel's failure on inputs that do not fit (numpy's ValueError on a
    shape mismatch, a ZeroDivisionError on a zero size ...) raised as MXNet raises it: an
    ``OperatorError`` (an MXNetError) naming the operator and the input shapes."""
    try:
        return op.compute(attrs, *arrays)
    except HybridizeError:
        raise
    except _KERNEL_FAILURES as e:
        shapes = ", ".join(str(tuple(a.shape)) for a in arrays)
        raise operator_error(e, f"{op.name}: {type(e).__name__}: {e} (input shapes: {shapes or 'none'})") from e


def _require_known_shape(op: OpDef, shape: Any) -> None:
    """MXNet's default (legacy) shape semantics read a 0 in a shape as "unknown": an imperative
    creation operator (``zeros((5, 0))``, ``random.uniform(shape=(0, 2))``) fails shape inference."""
    from .ops._util import known
    if isinstance(shape, tuple) and not known(shape, scalar=False):
        raise OperatorError(f"Operator {op.name} inferring shapes failed: shape {shape} has a 0 dimension or "
                            "none, which MXNet's default shape semantics read as unknown (zero-size and 0-d "
                            "arrays need nd.empty / nd.array, or numpy shape semantics)")


# Reductions and orderings MXNet refuses on a zero-size input (its default shape semantics read the
# 0 as unknown, so shape inference fails); sum/mean/prod/nansum/nanprod over all axes still work.
_NO_ZERO_SIZE = frozenset(("min", "max", "min_axis", "max_axis", "argmax", "argmin", "norm", "topk", "sort",
                           "argsort", "softmax", "log_softmax", "softmin", "sum", "sum_axis", "mean", "prod",
                           "nansum", "nanprod"))
_IDENTITY_REDUCTIONS = frozenset(("sum", "sum_axis", "mean", "prod", "nansum", "nanprod"))


_NO_EMPTY_REDUCTION = frozenset(("min", "max", "min_axis", "max_axis"))


def _refuse_zero_size(op: OpDef, attrs: Any, arrays: list) -> None:
    from .util import is_np_shape
    if op.name in _NO_EMPTY_REDUCTION:   # no identity: refused with numpy shape semantics too
        shapes = ", ".join(str(tuple(a.shape)) for a in arrays)
        raise OperatorError(f"Operator {op.name}: Reduction input's size should > 0, got {shapes}")
    if is_np_shape():
        return
    if op.name in _IDENTITY_REDUCTIONS and attrs.get("axis") in (None, ()) and not attrs.get("exclude"):
        return
    shapes = ", ".join(str(tuple(a.shape)) for a in arrays)
    raise OperatorError(f"Operator {op.name} inferring shapes failed: a zero-size input ({shapes}) has an unknown "
                        "dimension in MXNet's default shape semantics")


def _whole(key: Any) -> bool:
    """Does ``x[key] = v`` write the whole array (``x[:]``, ``x[...]``, ``x[None]``: a plain copy)?"""
    parts = key if isinstance(key, tuple) else (key,)
    whole = builtins.slice(None)   # (``slice`` here is the operator)
    return all(k is None or k is Ellipsis or (isinstance(k, builtins.slice) and k == whole) for k in parts)


def _propagated(ctx: "Context | None") -> "Context | None":
    """The context of an operator's result from its first input's: cpu(n) propagates, the
    pinned and shared host memories do not (results land in cpu(0)), as in MXNet."""
    return ctx if ctx is not None and ctx.device_typeid == 1 else None


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
_NO_ATTRS = Attrs({})

def _scalar_call(op: OpDef, data: np.ndarray, scalar: Any) -> np.ndarray:
    return op.compute(Attrs({"scalar": float(scalar)}), data)


def _arith(broadcast: str, scalar: str | None, rscalar: str | None = None, reverse: bool = False):
    b_op = get_op(broadcast)
    s_op = get_op(scalar) if scalar else None
    r_op = get_op(rscalar) if rscalar else None

    def method(self: NDArray, other: Any) -> NDArray:
        if isinstance(other, NDArray):
            a, b = (other, self) if reverse else (self, other)
            out = NDArray(_compute(b_op, None, [a._data, b._data]), _propagated(self._ctx))
            if _ag_state.recording:
                _record(b_op, _NO_ATTRS, [a, b], [out])
            return out
        if isinstance(other, (int, float, np.number, bool)):
            op = r_op if reverse else s_op
            if op is None:
                return NotImplemented
            out = NDArray(_scalar_call(op, self._data, other), _propagated(self._ctx))
            if _ag_state.recording:
                _record(op, Attrs({"scalar": float(other), "is_int": True}), [self], [out])
            return out
        if isinstance(other, np.ndarray):
            return method(self, NDArray(other))
        return NotImplemented
    return method


def _inplace(name: str):
    def method(self: NDArray, other: Any) -> NDArray:
        if _ag_state.recording and _in_graph(self):
            raise HybridizeError(_ASSIGN_IN_GRAPH)  # MXNet: no in-place op on a recorded array
        res = getattr(self, name)(other)
        if res is NotImplemented:
            return res
        self._data[...] = res._data
        if res._ag is not None:  # recorded: the node's output is this array now (MXNet's out=self)
            node, k = res._ag
            node.out_data[k] = self._data
            self._ag = res._ag
        _written(self)
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
        NDArray.__neg__ = lambda self: self.__mul__(-1.0)  # type: ignore
    NDArray.__pos__ = lambda self: self  # type: ignore[assignment]
    if have("abs"):
        NDArray.__abs__ = lambda self: invoke(get_op("abs"), [self], _NO_ATTRS)  # type: ignore


def _install_fluent() -> None:
    from .ops.registry import all_ops
    g = globals()
    for op in all_ops():
        if not op.fluent:
            continue
        for nm in (op.name, *op.aliases):
            space, public = _placement(nm)
            if space or public == "reshape" or hasattr(NDArray, public):
                continue
            fn = g.get(public)
            if fn is not None:
                setattr(NDArray, public, lambda self, *a, _fn=fn, **k: _fn(self, *a, **k))


def _host_copy(a: np.ndarray) -> np.ndarray:
    """``a.copy()`` (C order), a large one into a reused block (``ops/_buffers.py``)."""
    return _buffers.copy_of(a) if a.flags.c_contiguous else a.copy()


# -- creation ----------------------------------------------------------------------------------
def array(source_array: Any, ctx: Context | None = None, dtype: Any = None) -> NDArray:
    """An NDArray holding a copy of ``source_array``; float32 unless ``dtype`` (or an NDArray source) says otherwise."""
    if isinstance(source_array, NDArray):
        return NDArray(np.array(source_array._data, dtype=dtype or source_array._data.dtype), _placed(ctx))
    return NDArray(np.array(source_array, dtype=np.float32 if dtype is None else np.dtype(dtype)), _placed(ctx))


def empty(shape: Any, ctx: Context | None = None, dtype: Any = None) -> NDArray:
    return NDArray(np.empty(_shape(shape), dtype=np.dtype(dtype or np.float32)), _placed(ctx))


def _create(op_name: str, out: "NDArray | None" = None, **attrs: Any) -> NDArray:
    """Runs a no-input creation op of the registry (``_zeros``, ``_full``, ...): one source of truth."""
    op = get_op(op_name)
    ctx = _placed(attrs.get("ctx"))
    for key in [k for k in attrs if k in ("name", "attr", "ctx") or (k.startswith("__") and k.endswith("__"))]:
        attrs.pop(key)  # frontend keywords and __annotations__ MXNet's creation functions accept
    given = op.coerce_attrs({k: v for k, v in attrs.items() if v is not None})
    return _wrap(op.compute(op.resolve(given)), out, ctx)


def zeros(shape: Any, ctx: Context | None = None, dtype: Any = None, stype: str | None = None,
          **kwargs: Any) -> NDArray:
    """``_zeros``: an array of zeros (float32 unless ``dtype``)."""
    _require_known_shape(get_op("_zeros"), _shape(shape))
    return _create("_zeros", shape=_shape(shape), dtype=dtype, ctx=ctx, **kwargs)


def ones(shape: Any, ctx: Context | None = None, dtype: Any = None, **kwargs: Any) -> NDArray:
    """``_ones``: an array of ones (float32 unless ``dtype``)."""
    _require_known_shape(get_op("_ones"), _shape(shape))
    return _create("_ones", shape=_shape(shape), dtype=dtype, ctx=ctx, **kwargs)


def full(shape: Any, val: Any, ctx: Context | None = None, dtype: Any = None, out: NDArray | None = None) -> NDArray:
    """``_full``: an array filled with ``val``."""
    return _create("_full", out=out, shape=_shape(shape), value=float(val), dtype=dtype, ctx=ctx)


def arange(start: float, stop: float | None = None, step: float = 1.0, repeat: int = 1,
           infer_range: bool | None = None, ctx: Context | None = None, dtype: Any = None) -> NDArray:
    """``_arange``: values in [start, stop) (``[0, start)`` when ``stop`` is None), each ``repeat`` times.
    ``infer_range`` is deprecated and ignored, as in MXNet 1.9.1 (only a graph can infer a length)."""
    if infer_range is not None:
        import warnings
        warnings.warn("`infer_range` argument has been deprecated", DeprecationWarning, stacklevel=2)
    return _create("_arange", start=start, stop=stop, step=step, repeat=repeat, infer_range=False,
                   dtype=dtype, ctx=ctx)


def _shape(shape: Any) -> tuple:
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)


def concatenate(arrays: list, axis: int = 0, always_copy: bool = True) -> NDArray:
    return NDArray(np.concatenate([a._data for a in arrays], axis=axis))


def waitall() -> None:
    """Computation is synchronous here: nothing to wait for (an executor's deferred error is raised)."""
    if _PENDING:
        _, (_, exc) = _PENDING.popitem()
        _PENDING.clear()
        raise exc


# An executor's forward that failed in an operator's kernel leaves the error on its outputs, raised
# when they are read (asnumpy, asscalar, wait_to_read, waitall) and then forgotten: MXNet's engine
# runs the operators asynchronously and raises their errors at the next wait on their outputs
# (``take(mode='raise')`` with an index out of range fails at ``asnumpy``, not at ``forward``).
_PENDING: dict = {}    # id(NDArray) -> (weak reference to it, exception)


def defer_error(arrays: Sequence[NDArray], exc: BaseException) -> None:
    """Leaves ``exc`` on ``arrays`` until one of them is read."""
    for a in arrays:
        _PENDING[id(a)] = (weakref.ref(a), exc)


def clear_deferred(arrays: Sequence[NDArray]) -> None:
    """Forgets the deferred errors of ``arrays`` (their values were written again)."""
    if _PENDING:
        for a in arrays:
            _PENDING.pop(id(a), None)


def _raise_pending(a: NDArray) -> None:
    entry = _PENDING.get(id(a))
    if entry is not None and entry[0]() is a:
        exc = entry[1]
        for k in [k for k, (_, e) in _PENDING.items() if e is exc]:
            del _PENDING[k]
        raise exc


# -- files, buffers and other libraries' arrays ------------------------------------------------
def save(fname: str, data: Any) -> None:
    """Saves an NDArray, a list of NDArrays or a dict of str -> NDArray in MXNet's binary format
    (``.npz`` when ``fname`` ends so). One array is saved as a list of one, as MXNet does; other
    values raise MXNet's errors (TypeError for non-NDArray items, ValueError for other containers)."""
    from .graph import params as _params
    if isinstance(data, NDArray):
        data = [data]
    if isinstance(data, dict):
        if any(not isinstance(k, str) for k in data) or any(not isinstance(v, NDArray) for v in data.values()):
            raise TypeError("save only accept dict str->NDArray or list of NDArray")
    elif isinstance(data, list):
        if any(not isinstance(v, NDArray) for v in data):
            raise TypeError("save only accept dict str->NDArray or list of NDArray")
    else:
        raise ValueError("data needs to either be a NDArray, dict of str, NDArray pairs or a list of NDarrays.")
    _params.save(fname, data)


def _wrap_loaded(loaded: Any) -> Any:
    if isinstance(loaded, dict):
        return {k: v if isinstance(v, NDArray) else NDArray(v) for k, v in loaded.items()}
    return [v if isinstance(v, NDArray) else NDArray(v) for v in loaded]


def load(fname: str, max_bytes: Any = None) -> Any:
    """Loads MXNet's binary format (list or dict of NDArrays), or a ``.npz``. Every size the file
    declares is checked before allocating; ``max_bytes`` raises the load limit (default
    ``$HYBRIDIZE_MAX_LOAD_BYTES`` or 2 GiB) for a genuinely huge file."""
    from .graph import params as _params
    from .util import is_np_shape
    return _wrap_loaded(_params.load(fname, max_bytes, np_shape=is_np_shape()))


def load_frombuffer(buf: "bytes | bytearray | str") -> Any:
    """``load`` from the bytes of a file written by ``save`` (list or dict of NDArrays). Garbled or
    truncated bytes raise MXNetError (``LoadError``), as MXNet's loader does."""
    from .graph import params as _params
    if isinstance(buf, str):
        buf = buf.encode("latin-1")
    if not isinstance(buf, (bytes, bytearray, memoryview)):
        raise TypeError("buf required to be a string or bytes")
    from .util import is_np_shape
    return _wrap_loaded(_params.loads(bytearray(buf), np_shape=is_np_shape()))  # a private copy: the arrays are writable views of it


def from_numpy(ndarray: np.ndarray, zero_copy: bool = True, array_cls: type = NDArray) -> NDArray:
    """An NDArray backed by a numpy array. With ``zero_copy`` (the default, as MXNet) it shares the
    numpy array's memory and marks the numpy array read-only (MXNet's rule: the NDArray owns the
    memory now); that needs a C-contiguous array of a DLPack dtype, else ValueError. Without it, a copy
    keeping the dtype."""
    from . import _interop
    if not zero_copy:
        return array(ndarray, dtype=ndarray.dtype)
    return array_cls(_interop.take_numpy(ndarray))


def to_dlpack_for_read(data: NDArray) -> Any:
    """A DLPack capsule (``"dltensor"``, consumable once) viewing ``data``'s memory."""
    from . import _interop
    return _interop.to_dlpack(data._dense())


def to_dlpack_for_write(data: NDArray) -> Any:
    """A DLPack capsule (``"dltensor"``, consumable once) viewing ``data``'s memory, for writing."""
    from . import _interop
    return _interop.to_dlpack(data._dense())


def from_dlpack(dlpack: Any) -> NDArray:
    """An NDArray sharing the memory of a DLPack capsule (MXNet's, this runtime's, PyTorch's ...) or
    of an object with ``__dlpack__``. A capsule can be consumed once (MXNet: ValueError after)."""
    from . import _interop
    return NDArray(_interop.from_dlpack(dlpack))


# -- the generated namespace -------------------------------------------------------------------
_build_frontend(globals(), _make_function, __name__, _is_tensor, symbolic=False)
_reshape = globals().get("reshape") or globals().get("Reshape")
_install_arithmetic()
_install_fluent()
NDArray.split_v2 = lambda self, *a, **k: split_v2(self, *a, **k)  # type: ignore[attr-defined]  # noqa: F821
_this = sys.modules[__name__]


def __getattr__(attr: str) -> Any:
    # ``nd.np`` / ``nd.npx`` are ``mx.np`` / ``mx.npx`` (imperative ``F.np.*`` in np-mode hybrid_forward)
    if attr in ("np", "npx"):
        import importlib
        return importlib.import_module(".numpy" if attr == "np" else ".numpy_extension", __package__)
    if attr == "CachedOp":
        from .cached_op import CachedOp
        return CachedOp
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


# MXNet's ``mxnet.ndarray.ndarray`` submodule (``NDArray``, ``array``, ``zeros``, ...: code writes
# ``mx.nd.ndarray.NDArray`` and ``from mxnet.ndarray.ndarray import NDArray``) is this module.
ndarray = _this
sys.modules.setdefault(__name__ + ".ndarray", _this)
