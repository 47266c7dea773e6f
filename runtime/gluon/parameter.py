"""Parameters of Blocks, as ``mxnet.gluon.parameter`` (ported from MXNet 1.9.1, Apache-2.0).

A :class:`Parameter` holds one copy of its value per context it was initialized on, as MXNet:
``initialize(ctx=[cpu(0), cpu(1)])`` gives two arrays (``list_data``), each with its own gradient
(``list_grad``); a Block called on data of ``cpu(1)`` uses that context's copy, and the Trainer sums
the copies' gradients through its KVStore. Everything computes on the CPU: a GPU context is
recorded in ``list_ctx`` but its copy lives in host memory. Shapes may contain 0 for "unknown"; such a
parameter initializes lazily (deferred initialization) once the first forward pass has inferred
its shape. ``var()`` is the symbol a traced graph uses for it, annotated as MXNet does
(``__shape__``, ``__dtype__``, ``__init__``, ``__lr_mult__``, ``__wd_mult__``, ``__storage_type__``).
"""
from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import Any

import numpy as np

from .. import autograd, context, initializer, ndarray, symbol
from ..base import HybridizeError, LoadError
from ..context import Context, cpu
from ..ndarray import NDArray, _placed
from ..util import is_np_array, is_np_shape
from .utils import _brief_print_list, _indent, shape_is_known

__all__ = ["DeferredInitializationError", "ParameterNotInitializedError", "Parameter", "Constant",
           "ParameterDict", "tensor_types"]

tensor_types = (symbol.Symbol, ndarray.NDArray)
mx_real_t = np.float32

# Bumped whenever a parameter's value is replaced through this API (initialize, set_data,
# load, cast): hybridized blocks rebind their compiled programs when it changed.
_GENERATION = [0]


def _bump() -> None:
    _GENERATION[0] += 1


def _watched(arr: NDArray) -> NDArray:
    """``arr`` (a parameter's value), its in-place writes (``p.data()[:] = v``, ``+=``, ``copyto``)
    bumping the generation so that compiled programs rebind, as MXNet's in-place updates take effect.
    The array keeps its exact class (NDArray, or mx.np.ndarray in np mode), as MXNet's."""
    return ndarray.watch_writes(arr, _bump)


def _value_class() -> type:
    """The class of a new parameter value: mx.np.ndarray with NumPy array semantics on, else NDArray."""
    if is_np_array():
        from ..numpy import ndarray as np_ndarray
        return np_ndarray
    return NDArray


class DeferredInitializationError(HybridizeError):
    """A parameter whose shape is not known yet: the first forward pass will initialize it."""


class ParameterNotInitializedError(HybridizeError, RuntimeError):
    """A parameter read before ``initialize()`` (or ``load_parameters``) gave it a value."""

    def __init__(self, message: str, param: str = "", block: str | None = None):
        super().__init__(message)
        self.param = param
        self.block = block


def _as_list_ctx(ctx: Any) -> list:
    if ctx is None:
        return [context.current_context()]
    if isinstance(ctx, Context):
        return [ctx]
    return list(ctx)


class Parameter:
    """A container holding the value (and MXNet's training metadata) of one weight."""

    def __init__(self, name: str, grad_req: str = "write", shape: Any = None, dtype: Any = mx_real_t,
                 lr_mult: float = 1.0, wd_mult: float = 1.0, init: Any = None, allow_deferred_init: bool = False,
                 differentiable: bool = True, stype: str = "default", grad_stype: str = "default"):
        self._var = None
        self._data: list | None = None
        self._grad_buf: list | None = None  # allocated on first use, see _grad
        self._ctx_list: list | None = None
        self._ctx_map: list = [[], []]  # [GPU-kind, CPU-kind]: device_id -> index into _data
        self._trainer = None
        self._deferred_init: tuple = ()
        self._differentiable = differentiable
        self._allow_deferred_init = allow_deferred_init
        self._grad_req = None
        if isinstance(shape, int):
            shape = (shape,)
        self._shape = None if shape is None else tuple(shape)
        self.name = name
        self._dtype = dtype
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.grad_req = grad_req
        self.init = init
        valid_stypes = ["default", "row_sparse", "csr"]
        assert grad_stype in valid_stypes, ("grad_stype for Parameter '%s' must be one of 'default', 'row_sparse', "
                                            "or 'csr', but got '%s'" % (name, grad_stype))
        assert stype in valid_stypes, ("stype for Parameter '%s' must be one of 'default', 'row_sparse', or "
                                       "'csr', but got '%s'" % (name, stype))
        self._grad_stype = grad_stype
        self._stype = stype

    def __repr__(self) -> str:
        return "Parameter {name} (shape={shape}, dtype={dtype})".format(name=self.name, shape=self.shape,
                                                                        dtype=self.dtype)

    # -- attributes -----------------------------------------------------------------------
    @property
    def grad_req(self) -> str:
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req: str) -> None:
        assert req in ["write", "add", "null"], \
            "grad_req must be one of 'write', 'add', or 'null', but got '%s'" % req
        if not self._differentiable:
            req = "null"
        if self._grad_req == req:
            return
        self._grad_req = req
        if self._data is not None:
            self._init_grad()  # 'null': no buffer, the data leaves the graph (MXNet detaches it)

    @property
    def dtype(self) -> Any:
        return self._dtype

    @dtype.setter
    def dtype(self, dtype: Any) -> None:
        self.cast(dtype)

    @property
    def shape(self) -> tuple | None:
        """The shape; an unknown dimension is 0, or -1 with NumPy shape semantics on (as MXNet)."""
        if self._shape is not None and is_np_shape():
            return tuple(d if d != 0 else -1 for d in self._shape)
        return self._shape

    @shape.setter
    def shape(self, new_shape: Any) -> None:
        new_shape = None if new_shape is None else tuple(int(d) for d in new_shape)
        if self._shape is None or new_shape is None:
            self._shape = new_shape
            return
        assert len(self._shape) == len(new_shape) and \
            all(j in (-1, 0, i) for i, j in zip(new_shape, self._shape)), \
            "Expected shape %s is incompatible with given shape %s." % (str(new_shape), str(self._shape))
        self._shape = new_shape

    @property
    def stype(self) -> str:
        return self._stype

    def _set_trainer(self, trainer: Any) -> None:
        """The Trainer updating this parameter; a sparse one may have only one (MXNet's rule)."""
        if self._stype != "default" and self._trainer and trainer and self._trainer is not trainer:
            raise RuntimeError("Failed to set the trainer for Parameter '%s' because it was already set. More than "
                               "one trainers for a %s Parameter is not supported." % (self.name, self._stype))
        self._trainer = trainer

    # -- values ---------------------------------------------------------------------------
    def _check_and_get(self, arr_list: list | None, ctx: Any) -> Any:
        if arr_list is not None:
            if ctx is list:
                return arr_list
            if ctx is None:
                if len(arr_list) == 1:
                    return arr_list[0]
                ctx = context.current_context()
            ctx_list = self._ctx_map[ctx.device_typeid & 1]
            if ctx.device_id < len(ctx_list):
                idx = ctx_list[ctx.device_id]
                if idx is not None:
                    return arr_list[idx]
            raise RuntimeError("Parameter '%s' was not initialized on context %s. It was only initialized on %s."
                               % (self.name, str(ctx), str(self._ctx_list)))
        if self._deferred_init:
            raise DeferredInitializationError(
                "Parameter '%s' has not been initialized yet because initialization was "
                "deferred. Actual initialization happens during the first forward pass. "
                "Please pass one batch of data through the network before accessing Parameters. "
                "You can also avoid deferred initialization by specifying in_units, "
                "num_features, etc., for network layers." % (self.name))
        raise ParameterNotInitializedError(
            "Parameter '%s' has not been initialized. Note that you should initialize parameters "
            "and create Trainer with Block.collect_params() instead of Block.params because the "
            "later does not include Parameters of nested child Blocks" % (self.name), self.name)

    def _load_init(self, data: Any, ctx: Any, cast_dtype: bool = False, dtype_source: str = "current") -> None:
        """(Re)initializes by loading from ``data`` (an NDArray or numpy array)."""
        if cast_dtype:
            assert dtype_source in ["current", "saved"]
        if not isinstance(data, NDArray):
            data = NDArray(np.asarray(data))
        if self._shape is None:
            self._shape = tuple(data.shape)
        elif self.shape:
            ok = len(self.shape) == len(data.shape) and all(
                s in (0, d) for s, d in zip(self.shape, data.shape))
            if not ok:
                raise ValueError("Failed loading Parameter '%s' from saved params: shape incompatible "
                                 "expected %s vs saved %s" % (self.name, str(self.shape), str(data.shape)))
            self.shape = tuple(i if i != 0 else j for i, j in zip(self.shape, data.shape))
        if self.dtype:
            if cast_dtype and np.dtype(self.dtype) != np.dtype(data.dtype):
                if dtype_source == "current":
                    data = data.astype(self.dtype, copy=False)
                elif dtype_source == "saved":
                    self._dtype = np.dtype(data.dtype).type
            elif np.dtype(self.dtype) != np.dtype(data.dtype):
                raise ValueError("Failed loading Parameter '%s' from saved params: dtype incompatible "
                                 "expected %s vs saved %s. Set cast_dtype=True to cast the dtype of saved "
                                 "params." % (self.name, np.dtype(self.dtype).name, np.dtype(data.dtype).name))
        if self._data is None:
            if self._deferred_init:
                ctx = self._deferred_init[1]
            elif ctx is None:
                ctx = [cpu()]
            self._init_impl(data, _as_list_ctx(ctx))
        else:
            self.set_data(data)
        self._deferred_init = ()

    def _finish_deferred_init(self) -> None:
        """Initializes a deferred parameter now that its shape is known."""
        if not self._deferred_init:
            return
        init, ctx, default_init, data = self._deferred_init
        self._deferred_init = ()
        if not shape_is_known(self.shape):
            raise ValueError("Cannot initialize Parameter '%s' because it has invalid shape: %s. Please "
                             "specify in_units, in_channels, etc for `Block`s." % (self.name, str(self.shape)))
        with autograd.pause():
            if data is None:
                data = ndarray.zeros(shape=self.shape, dtype=self.dtype)
                initializer.create(default_init)(initializer.InitDesc(self.name, {"__init__": init}), data)
            self._init_impl(data, ctx)

    def _init_impl(self, data: Any, ctx_list: list) -> None:
        """One copy of ``data`` per context (MXNet's ``_init_impl``), and their gradient buffers."""
        self._ctx_list = list(ctx_list)
        self._ctx_map = [[], []]
        for i, ctx in enumerate(self._ctx_list):
            dev_list = self._ctx_map[ctx.device_typeid & 1]
            while len(dev_list) <= ctx.device_id:
                dev_list.append(None)
            dev_list[ctx.device_id] = i
        arr = data._data if isinstance(data, NDArray) else np.asarray(data)
        # NumPy array semantics on (npx.set_np()): the value is an mx.np.ndarray, as in MXNet
        cls = _value_class()
        self._data = [_watched(cls(np.array(arr, dtype=arr.dtype, copy=True), _placed(c))) for c in self._ctx_list]
        self._init_grad()
        _bump()

    def _data_for(self, ctx: Any) -> NDArray:
        """The copy a Block uses for inputs on ``ctx``: the only one when there is one (inputs on a GPU
        context live in cpu(0) here), else the copy of ``ctx`` (MXNet's ``data(ctx)``)."""
        d = self._data
        if d is not None and len(d) == 1:
            return d[0]
        return self.data(ctx)

    def _init_grad(self) -> None:
        """Zero gradient buffers, and the data marked as autograd variables writing into them with
        ``grad_req`` (MXNet's ``_init_grad``: ``autograd.mark_variables``), so a ``backward`` under
        ``autograd.record()`` fills ``grad()``. With 'null': no buffer and the data out of the graph."""
        if self._data is None:
            return
        if self.grad_req == "null":
            self._grad_buf = None
            for d in self._data:
                d._ag = None
            return
        # np-mode parameters get mx.np gradient buffers (MXNet: zeros of the data's array kind)
        self._grad_buf = [type(d)(np.zeros_like(d._data), d._ctx) for d in self._data]
        autograd.mark_variables(list(self._data), self._grad_buf, self.grad_req)

    @property
    def _grad(self) -> list | None:
        """MXNet's gradient buffers: a list once initialized with ``grad_req`` other than 'null', else None."""
        self._ensure_grad()
        return self._grad_buf

    @_grad.setter
    def _grad(self, value: list | None) -> None:
        self._grad_buf = value
        if value is not None and self._data is not None and self.grad_req != "null":
            autograd.mark_variables(list(self._data), list(value), self.grad_req)

    def _ensure_grad(self) -> None:
        if self._grad_buf is None and self._data is not None and self.grad_req != "null":
            self._init_grad()

    def _reduce(self) -> NDArray:
        """The parameter's value (a copy in cpu(0)), as saved by ``save_parameters`` / ``export``: the
        mean of the copies when there are several (MXNet's ``add_n(...) / n``)."""
        block = self.list_data()
        if len(block) == 1:
            return NDArray(block[0]._data.copy())
        total = block[0]._data.copy()
        for w in block[1:]:
            total = total + w._data
        return NDArray((total / total.dtype.type(len(block))).astype(total.dtype, copy=False))

    def initialize(self, init: Any = None, ctx: Any = None, default_init: Any = initializer.Uniform(),
                   force_reinit: bool = False) -> None:
        """Initializes the value (deferred while the shape has unknown dimensions)."""
        if self._data is not None and not force_reinit:
            warnings.warn("Parameter '%s' is already initialized, ignoring. Set force_reinit=True to "
                          "re-initialize." % self.name, stacklevel=2)
            return
        self._data = self._grad_buf = None
        ctx = _as_list_ctx(ctx)
        if init is None:
            init = default_init if self.init is None else self.init
        if not shape_is_known(self.shape):
            if self._allow_deferred_init:
                self._deferred_init = (init, ctx, default_init, None)
                return
            raise ValueError("Cannot initialize Parameter '%s' because it has invalid shape: %s."
                             % (self.name, str(self.shape)))
        self._deferred_init = (init, ctx, default_init, None)
        self._finish_deferred_init()

    def reset_ctx(self, ctx: Any) -> None:
        """Moves the parameter to ``ctx`` (a list: one copy each), from the mean of its copies."""
        ctx = _as_list_ctx(ctx)
        if self._data:
            data = self._reduce()
            with autograd.pause():
                self._init_impl(data, ctx)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, ctx, default_init, data)
        else:
            raise ValueError("Cannot reset context for Parameter '%s' because it has not been initialized."
                             % self.name)

    def set_data(self, data: Any) -> None:
        """Sets the value (in place when initialized, so compiled programs see it)."""
        self.shape = data.shape
        if self._data is None:
            assert self._deferred_init, "Parameter '%s' has not been initialized" % self.name
            self._deferred_init = self._deferred_init[:3] + (data,)
            return
        # updating on a KVStore: its copy of the weight is stale now, so the Trainer makes a new store
        trainer = self._trainer
        if trainer is not None and trainer._kv_initialized and trainer._update_on_kvstore:
            if self not in trainer._params_to_init:
                trainer._reset_kvstore()
        src = data._data if isinstance(data, NDArray) else np.asarray(data)
        reshaped = False
        for arr in self._data:
            dst = arr._data
            if dst.shape != src.shape:
                arr._data = np.array(src, dtype=dst.dtype)
                reshaped = True
            else:
                dst[...] = src
        if reshaped:
            self._init_grad()
        _bump()

    def data(self, ctx: Any = None) -> NDArray:
        """The value on ``ctx`` as an NDArray (the parameter's own storage, not a copy)."""
        d = self._data
        if d is not None:
            if ctx is None and len(d) == 1:
                return d[0]
            return self._check_and_get(d, ctx)
        if self._stype != "default":
            raise RuntimeError("Cannot return a copy of Parameter '%s' via data() because its storage type "
                               "is %s. Please use row_sparse_data() instead." % (self.name, self._stype))
        return self._check_and_get(d, ctx)

    def row_sparse_data(self, row_id: Any) -> NDArray:
        return self._check_and_get(self._data, row_id.context if isinstance(row_id, NDArray) else None)

    def list_data(self) -> list:
        return self._check_and_get(self._data, list)

    def grad(self, ctx: Any = None) -> NDArray:
        self._ensure_grad()
        if self._data is not None and self._grad_buf is None:
            raise RuntimeError("Cannot get gradient array for Parameter '%s' because grad_req='null'" % (self.name))
        return self._check_and_get(self._grad_buf, ctx)

    def list_grad(self) -> list:
        self._ensure_grad()
        if self._data is not None and self._grad_buf is None:
            raise RuntimeError("Cannot get gradient array for Parameter '%s' because grad_req='null'" % (self.name))
        return self._check_and_get(self._grad_buf, list)

    def list_ctx(self) -> list:
        if self._data is None:
            if self._deferred_init:
                return self._deferred_init[1]
            raise RuntimeError("Parameter '%s' has not been initialized" % self.name)
        return self._ctx_list

    def zero_grad(self) -> None:
        if self._grad_buf is None:
            return
        for g in self._grad_buf:
            g._data[...] = 0

    def var(self) -> symbol.Symbol:
        """The variable standing for this parameter in traced graphs (made once, then reused)."""
        if self._var is None:
            # unknown dimensions as the shape semantics write them (-1 with NumPy's on, where a 0 in a
            # variable's shape is a zero-size axis), as MXNet's ``Parameter.var`` (``self.shape``)
            self._var = symbol.var(self.name, shape=self.shape, dtype=self.dtype, lr_mult=self.lr_mult,
                                   wd_mult=self.wd_mult, init=self.init, stype=self._stype)
        return self._var

    def cast(self, dtype: Any) -> None:
        """Casts the value (and gradient) to ``dtype``."""
        self._dtype = dtype
        self._var = None
        if self._data is None:
            return
        self._data = [_watched(type(d)(d._data.astype(np.dtype(dtype)), d._ctx)) for d in self._data]
        _bump()
        self._init_grad()


class Constant(Parameter):
    """A parameter holding a fixed tensor (``grad_req='null'``), e.g. ``params.get_constant('c', [[1, 2]])``."""

    def __init__(self, name: str, value: Any):
        if not isinstance(value, ndarray.NDArray):
            value = ndarray.array(value)
        self.value = value

        class Init(initializer.Initializer):
            def _init_weight(self, _: Any, arr: Any) -> None:
                arr._data[...] = value._data

        init_name = "Constant_{}_{}".format(name, id(self))
        initializer.alias(init_name)(Init)
        super().__init__(name, grad_req="null", shape=value.shape, dtype=value.dtype, init=init_name)

    def __repr__(self) -> str:
        return "Constant {name} (shape={shape}, dtype={dtype})".format(name=self.name, shape=self.shape,
                                                                       dtype=self.dtype)

    @property
    def grad_req(self) -> str:
        return "null"

    @grad_req.setter
    def grad_req(self, req: str) -> None:
        if req != "null":
            warnings.warn('Constant parameter "{}" does not support grad_req other than "null", and new '
                          'value "{}" is ignored.'.format(self.name, req), stacklevel=2)


class ParameterDict:
    """An ordered name -> :class:`Parameter` mapping whose ``get`` creates ``prefix + name`` parameters."""

    def __init__(self, prefix: str = "", shared: "ParameterDict | None" = None):
        self._prefix = prefix
        self._params: "OrderedDict[str, Parameter]" = OrderedDict()
        self._shared = shared

    def __repr__(self) -> str:
        s = "{name}(\n{content}\n)"
        name = self._prefix + " " if self._prefix else ""
        return s.format(name=name, content="\n".join([_indent("  {0}".format(v), 2) for v in self.values()]))

    def __getitem__(self, key: str) -> Parameter:
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def __len__(self) -> int:
        return len(self._params)

    def __contains__(self, key: object) -> bool:
        return key in self._params

    def items(self):
        return self._params.items()

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    @property
    def prefix(self) -> str:
        return self._prefix

    def _get_impl(self, name: str) -> Parameter | None:
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._shared._params[name]
        return None

    def get(self, name: str, **kwargs: Any) -> Parameter:
        """The parameter ``prefix + name`` (from the shared dict if there), created with ``kwargs`` if new."""
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
        else:
            for k, v in kwargs.items():
                if hasattr(param, k) and getattr(param, k) is not None:
                    existing = getattr(param, k)
                    if k == "shape" and v is not None and len(v) == len(existing):
                        inferred_shape = []
                        matched = True
                        for dim1, dim2 in zip(v, existing):
                            if dim1 != dim2 and dim1 > 0 and dim2 > 0:
                                matched = False
                                break
                            elif dim1 == dim2:
                                inferred_shape.append(dim1)
                            elif dim1 in (0, -1):
                                inferred_shape.append(dim2)
                            else:
                                inferred_shape.append(dim1)
                        if matched:
                            param._shape = tuple(inferred_shape)
                            continue
                    elif k == "dtype" and np.dtype(v) == np.dtype(existing):
                        continue
                    assert v is None or v == existing, (
                        "Cannot retrieve Parameter '%s' because desired attribute does not match with stored "
                        "for attribute '%s': desired '%s' vs stored '%s'." % (name, k, str(v), str(getattr(param, k))))
                else:
                    setattr(param, k, v)
        return param

    def get_constant(self, name: str, value: Any = None) -> Constant:
        """The constant ``prefix + name``, created from ``value`` if new."""
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise KeyError("No constant named '{}'. Please specify value if you want to create a new "
                               "constant.".format(name))
            param = Constant(name, value)
            self._params[name] = param
        elif value is not None:
            assert isinstance(param, Constant), "Parameter '{}' already exists but it is not a constant.".format(name)
            if isinstance(value, ndarray.NDArray):
                value = value.asnumpy()
            value = np.asarray(value)
            assert param.shape == value.shape and (param.value.asnumpy() == value).all(), \
                "Constant '{}' already exists but it's value doesn't match new value".format(name)
        return param

    def update(self, other: Any) -> None:
        """Copies all Parameters in ``other`` to self."""
        for k, v in other.items():
            if k in self._params:
                assert self._params[k] is v, ("Cannot update self with other because they have different "
                                              "Parameters with the same name '%s'" % k)
        for k, v in other.items():
            self._params[k] = v

    def initialize(self, init: Any = initializer.Uniform(), ctx: Any = None, verbose: bool = False,
                   force_reinit: bool = False) -> None:
        """Initializes every parameter (``init`` is the default for those without their own)."""
        if verbose:
            init.set_verbosity(verbose=verbose)
        for _, v in self.items():
            v.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self) -> None:
        for p in self.values():
            p.zero_grad()

    def reset_ctx(self, ctx: Any) -> None:
        for i in self.values():
            i.reset_ctx(ctx)

    def list_ctx(self) -> list:
        s: list = []
        for i in self.values():
            for c in i.list_ctx():
                if c not in s:
                    s.append(c)
        return s

    def setattr(self, name: str, value: Any) -> None:
        """Sets an attribute on every parameter (``setattr('grad_req', 'null')``)."""
        for i in self.values():
            setattr(i, name, value)

    def save(self, filename: str, strip_prefix: str = "") -> None:
        """Saves the values in MXNet's ``.params`` format (``.npz`` if the name ends so), by name."""
        arg_dict = {}
        for param in self.values():
            weight = param._reduce()
            if not param.name.startswith(strip_prefix):
                raise ValueError(
                    "Prefix '%s' is to be striped before saving, but Parameter's name '%s' does not start with "
                    "'%s'. this may be due to your Block shares parameters from other Blocks or you forgot to use "
                    "'with name_scope()' when creating child blocks." % (strip_prefix, param.name, strip_prefix))
            arg_dict[param.name[len(strip_prefix):]] = weight
        save_arrays(filename, arg_dict)

    def load(self, filename: str, ctx: Any = None, allow_missing: bool = False, ignore_extra: bool = False,
             restore_prefix: str = "", cast_dtype: bool = False, dtype_source: str = "current") -> None:
        """Loads values saved by :meth:`save` or ``export`` (``arg:``/``aux:`` keys are accepted)."""
        if restore_prefix:
            for name in self.keys():
                assert name.startswith(restore_prefix), (
                    "restore_prefix is '%s' but Parameters name '%s' does not start with '%s'."
                    % (restore_prefix, name, restore_prefix))
        loaded = load_arrays(filename)
        self.load_dict(loaded, ctx, allow_missing, ignore_extra, restore_prefix, filename, cast_dtype, dtype_source)

    def load_dict(self, param_dict: Any, ctx: Any = None, allow_missing: bool = False, ignore_extra: bool = False,
                  restore_prefix: str = "", filename: str | None = None, cast_dtype: bool = False,
                  dtype_source: str = "current") -> None:
        """Loads values from a name -> array dict (``arg:``/``aux:`` prefixes stripped)."""
        lprefix = len(restore_prefix)
        loaded = [(k[4:] if k.startswith("arg:") or k.startswith("aux:") else k, v)
                  for k, v in param_dict.items()] if isinstance(param_dict, dict) else param_dict
        arg_dict = {restore_prefix + k: v for k, v in loaded}
        where = "file '%s'" % filename if filename else "param_dict"
        if not allow_missing:
            for name in self.keys():
                if name not in arg_dict:
                    raise _load_error(filename,
                                      "Parameter '%s' is missing in %s, which contains parameters: %s. "
                                      "Set allow_missing=True to ignore missing parameters."
                                      % (name[lprefix:], where, _brief_print_list(arg_dict.keys())))
        for name in arg_dict:
            if name not in self._params:
                if not ignore_extra:
                    raise _load_error(filename,
                                      "Parameter '%s' loaded from %s is not present in ParameterDict, choices are: "
                                      "%s. Set ignore_extra=True to ignore."
                                      % (name[lprefix:], where, _brief_print_list(self._params.keys())))
                continue
            try:
                self[name]._load_init(arg_dict[name], ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)
            except ValueError as e:
                raise _load_error(filename, str(e)) from None


class ParameterLoadError(LoadError, ValueError):
    """A parameter file that does not fit the block: missing, extra or mis-shaped entries (named)."""


def _load_error(filename: Any, problem: str) -> ParameterLoadError:
    return ParameterLoadError(filename, problem)


def save_arrays(filename: str, arrays: dict) -> None:
    """Writes name -> NDArray in MXNet's ``.params`` format, or ``.npz`` if ``filename`` ends so."""
    if str(filename).endswith(".npz"):
        from ..graph import params as _params  # atomic, like every writer
        _params.save_npz(filename, {k: (v._data if isinstance(v, NDArray) else np.asarray(v)) for k, v in arrays.items()})
        return
    ndarray.save(filename, arrays)


def load_arrays(filename: str) -> dict:
    """Reads name -> NDArray from MXNet's ``.params`` format, or ``.npz`` if ``filename`` ends so."""
    from ..graph import params as _params  # every declared size checked before allocating
    if str(filename).endswith(".npz"):
        return {k: NDArray(v) for k, v in _params.load_npz(filename).items()}
    # Gluon reads parameters saved with or without numpy shape semantics (nd.load insists on one)
    loaded = _params.load(filename)
    if isinstance(loaded, list):
        if loaded:
            raise LoadError(filename, "the file holds an unnamed list of arrays; parameters need names")
        return {}
    return {k: (v if isinstance(v, NDArray) else NDArray(np.asarray(v))) for k, v in loaded.items()}
