"""Weight initializers, as ``mxnet.initializer`` (also reachable as ``mx.init``).

Ported from MXNet 1.9.1's ``python/mxnet/initializer.py`` (Apache-2.0): the same classes,
constructor arguments, registration names (``'xavier'``, ``'zeros'``, ``'ones'``, ...), the same
``dumps()`` string stored in a variable's ``__init__`` attribute
(``'["xavier", {"rnd_type": "uniform", "factor_type": "avg", "magnitude": 3}]'``) and the same
dispatch on parameter names (``*weight``, ``*bias`` -> 0, ``*gamma`` -> 1, ``*beta`` -> 0,
``*running_mean``/``moving_mean`` -> 0, ``*running_var``/``moving_var`` -> 1).

Random draws use numpy's global generator (``np.random.seed`` makes them reproducible); arrays
are filled in place (``arr[:] = ...``), whatever their dtype.
"""
from __future__ import annotations

import json
import logging
import re
import warnings
from typing import Any, Callable

import numpy as np

__all__ = ["InitDesc", "Initializer", "register", "alias", "create", "Load", "Mixed", "Zero", "One",
           "Constant", "Uniform", "Normal", "Orthogonal", "Xavier", "MSRAPrelu", "Bilinear", "LSTMBias",
           "FusedRNN"]

_REGISTRY: dict[str, type] = {}


class InitDesc(str):
    """The name of a parameter plus its attributes (``__init__`` ...) and the global initializer."""

    def __new__(cls, name: str, attrs: dict | None = None, global_init: "Initializer | None" = None):
        ret = super().__new__(cls, name)
        ret.attrs = attrs or {}
        ret.global_init = global_init
        return ret


def _fill(arr: Any, values: Any) -> None:
    """Writes ``values`` into ``arr`` (an NDArray or a numpy array) in place."""
    data = getattr(arr, "_data", arr)
    data[...] = values


def _shape(arr: Any) -> tuple:
    return tuple(arr.shape)


class Initializer:
    """The base class of every initializer."""

    def __init__(self, **kwargs: Any):
        self._kwargs = kwargs
        self._verbose = False
        self._print_func: Callable | None = None

    def set_verbosity(self, verbose: bool = False, print_func: Callable | None = None) -> "Initializer":
        self._verbose = verbose
        if print_func is None:
            def asum_stat(x):
                return str((np.abs(np.asarray(x)).sum() / max(np.asarray(x).size, 1)))
            print_func = asum_stat
        self._print_func = print_func
        return self

    def _verbose_print(self, desc: str, init: Any, arr: Any) -> None:
        if self._verbose and self._print_func:
            logging.info("Initialized %s as %s: %s", desc, init, self._print_func(arr))

    def dumps(self) -> str:
        """The JSON string MXNet stores in a variable's ``__init__`` attribute."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, desc: Any, arr: Any) -> None:
        if not isinstance(desc, InitDesc):
            self._legacy_init(desc, arr)
            return
        if desc.global_init is None:
            desc.global_init = self
        init = desc.attrs.get("__init__", "")
        if isinstance(init, (Mixed, Load)):
            init = ""  # the dispatcher already chose this initializer for the name
        if init:
            create(init)._init_weight(desc, arr)
            self._verbose_print(desc, init, arr)
            return
        if desc.endswith("weight"):
            self._init_weight(desc, arr)
            self._verbose_print(desc, "weight", arr)
        elif desc.endswith("bias"):
            self._init_bias(desc, arr)
            self._verbose_print(desc, "bias", arr)
        elif desc.endswith("gamma"):
            self._init_gamma(desc, arr)
            self._verbose_print(desc, "gamma", arr)
        elif desc.endswith("beta"):
            self._init_beta(desc, arr)
            self._verbose_print(desc, "beta", arr)
        elif desc.endswith("min"):
            self._init_zero(desc, arr)
        elif desc.endswith("max"):
            self._init_one(desc, arr)
        elif desc.endswith("weight_quantize"):
            self._init_quantized_weight(desc, arr)
        elif desc.endswith("bias_quantize"):
            self._init_quantized_bias(desc, arr)
        else:
            self._init_default(desc, arr)

    def _legacy_init(self, name: str, arr: Any) -> None:
        warnings.warn("Calling initializer with init(str, NDArray) has been deprecated. "
                      "Please use init(mx.init.InitDesc(...), NDArray) instead.", DeprecationWarning, stacklevel=3)
        if not isinstance(name, str):
            raise TypeError("name must be string")
        if name.startswith("upsampling"):
            self._init_bilinear(name, arr)
        elif name.startswith("stn_loc") and name.endswith("weight"):
            self._init_zero(name, arr)
        elif name.startswith("stn_loc") and name.endswith("bias"):
            self._init_loc_bias(name, arr)
        elif name.endswith("bias"):
            self._init_bias(name, arr)
        elif name.endswith("gamma"):
            self._init_gamma(name, arr)
        elif name.endswith("beta"):
            self._init_beta(name, arr)
        elif name.endswith("weight"):
            self._init_weight(name, arr)
        elif name.endswith("moving_mean") or name.endswith("running_mean"):
            self._init_zero(name, arr)
        elif name.endswith("moving_var") or name.endswith("running_var"):
            self._init_one(name, arr)
        elif name.endswith("moving_inv_var"):
            self._init_zero(name, arr)
        elif name.endswith("moving_avg"):
            self._init_zero(name, arr)
        elif name.endswith("min"):
            self._init_zero(name, arr)
        elif name.endswith("max"):
            self._init_one(name, arr)
        else:
            self._init_default(name, arr)

    def _init_bilinear(self, _: Any, arr: Any) -> None:
        shape = _shape(arr)
        weight = np.zeros(int(np.prod(shape)), dtype="float32")
        f = np.ceil(shape[3] / 2.)
        c = (2 * f - 1 - f % 2) / (2. * f)
        for i in range(int(np.prod(shape))):
            x = i % shape[3]
            y = (i // shape[3]) % shape[2]
            weight[i] = (1 - abs(x / f - c)) * (1 - abs(y / f - c))
        _fill(arr, weight.reshape(shape))

    def _init_loc_bias(self, _: Any, arr: Any) -> None:
        if _shape(arr)[0] != 6:
            raise ValueError("stn_loc bias must have 6 entries")
        _fill(arr, np.array([1.0, 0, 0, 0, 1.0, 0]))

    def _init_zero(self, _: Any, arr: Any) -> None:
        _fill(arr, 0.0)

    def _init_one(self, _: Any, arr: Any) -> None:
        _fill(arr, 1.0)

    def _init_bias(self, _: Any, arr: Any) -> None:
        _fill(arr, 0.0)

    def _init_quantized_bias(self, _: Any, arr: Any) -> None:
        _fill(arr, 0)

    def _init_gamma(self, _: Any, arr: Any) -> None:
        _fill(arr, 1.0)

    def _init_beta(self, _: Any, arr: Any) -> None:
        _fill(arr, 0.0)

    def _init_weight(self, name: Any, arr: Any) -> None:
        raise NotImplementedError("Must override it")

    def _init_quantized_weight(self, _: Any, arr: Any) -> None:
        _fill(arr, np.random.randint(-127, 127, size=_shape(arr)))

    def _init_default(self, name: Any, _: Any) -> None:
        raise ValueError(
            "Unknown initialization pattern for %s. Default initialization is now limited to "
            '"weight", "bias", "gamma" (1.0), and "beta" (0.0).'
            "Please use mx.sym.Variable(init=mx.init.*) to set initialization pattern" % name)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Initializer):
            return NotImplemented
        return type(self) is type(other) and self._kwargs == other._kwargs

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self._kwargs.items())})"


def register(klass: type) -> type:
    """Registers an initializer class under its lower-cased class name."""
    if not issubclass(klass, Initializer):
        raise TypeError(f"can only register subclasses of Initializer, not {klass!r}")
    name = klass.__name__.lower()
    if name in _REGISTRY and _REGISTRY[name] is not klass:
        warnings.warn(f"New initializer {klass.__module__}.{klass.__name__} is overriding existing initializer {name}",
                      UserWarning, stacklevel=2)
    _REGISTRY[name] = klass
    return klass


def alias(*aliases: str) -> Callable[[type], type]:
    """Registers a class under extra names (``@alias('zeros')``)."""
    def reg(klass: type) -> type:
        for a in aliases:
            _REGISTRY[a.lower()] = klass
        return klass
    return reg


def create(init: Any, *args: Any, **kwargs: Any) -> Initializer:
    """An initializer from an instance, a registered name or a ``dumps()`` string."""
    if isinstance(init, Initializer):
        return init
    if isinstance(init, type) and issubclass(init, Initializer):
        return init(*args, **kwargs)
    if isinstance(init, str):
        text = init.strip()
        if text.startswith("["):
            name, params = json.loads(text)
            klass = _REGISTRY.get(name.lower())
            if klass is None:
                raise ValueError(f"Cannot find initializer {name!r} among the registered ones: "
                                 f"{', '.join(sorted(_REGISTRY))}")
            return klass(**params)
        klass = _REGISTRY.get(text.lower())
        if klass is None:
            raise ValueError(f"Cannot find initializer {init!r} among the registered ones: "
                             f"{', '.join(sorted(_REGISTRY))}")
        return klass(*args, **kwargs)
    if isinstance(init, (Mixed, Load)):
        return init  # callables with the initializer protocol (MXNet's Module API used them directly)
    raise TypeError(f"initializer must be an Initializer, its name or its dumps() string, not {type(init).__name__}")


class Load:
    """Initializes parameters from a dict of arrays (or a ``.params`` file), else ``default_init``."""

    def __init__(self, param: Any, default_init: Initializer | None = None, verbose: bool = False):
        if isinstance(param, str):
            from . import ndarray
            param = ndarray.load(param)
        self.param = {}
        for name, arr in dict(param).items():
            if name.startswith("arg:") or name.startswith("aux:"):
                name = name[4:]
            self.param[name] = arr
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name: Any, arr: Any) -> None:
        if name in self.param:
            src = self.param[name]
            if tuple(src.shape) != _shape(arr):
                raise ValueError(f"Parameter {name} cannot be initialized from loading. Shape mismatch, "
                                 f"target {_shape(arr)} vs loaded {tuple(src.shape)}")
            _fill(arr, np.asarray(getattr(src, "_data", src)))
        else:
            if self.default_init is None:
                raise ValueError(f"Cannot Initialize {name}. Not found in loaded param and no default "
                                 "Initializer is provided.")
            self.default_init(name, arr)


class Mixed:
    """Chooses the initializer of each parameter by the first matching regular expression."""

    def __init__(self, patterns: list, initializers: list):
        if len(patterns) != len(initializers):
            raise ValueError("patterns and initializers must have the same length")
        self.map = list(zip([re.compile(p) for p in patterns], initializers))

    def __call__(self, name: Any, arr: Any) -> None:
        for prog, init in self.map:
            if prog.match(name):
                init(name, arr)
                return
        raise ValueError(f"Parameter name {name} did not match any pattern. Consider adding a "
                         '".*" pattern at the and with default Initializer.')


@register
@alias("zeros")
class Zero(Initializer):
    """Fills with 0."""

    def __init__(self) -> None:
        super().__init__()

    def _init_weight(self, _: Any, arr: Any) -> None:
        _fill(arr, 0)


@register
@alias("ones")
class One(Initializer):
    """Fills with 1."""

    def __init__(self) -> None:
        super().__init__()

    def _init_weight(self, _: Any, arr: Any) -> None:
        _fill(arr, 1)


@register
class Constant(Initializer):
    """Fills with ``value`` (a scalar or an array broadcast to the parameter's shape)."""

    def __init__(self, value: Any):
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, _: Any, arr: Any) -> None:
        _fill(arr, np.asarray(getattr(self.value, "_data", self.value)))

    def dumps(self) -> str:
        val = self._kwargs["value"]
        if not np.isscalar(val):
            self._kwargs["value"] = (val.tolist() if isinstance(val, np.ndarray)
                                     else np.asarray(getattr(val, "_data", val)).tolist())
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])


@register
class Uniform(Initializer):
    """Uniform on ``[-scale, scale]`` (MXNet's global default, scale 0.07)."""

    def __init__(self, scale: float = 0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _: Any, arr: Any) -> None:
        _fill(arr, np.random.uniform(-self.scale, self.scale, size=_shape(arr)))


@register
class Normal(Initializer):
    """Normal with mean 0 and standard deviation ``sigma``."""

    def __init__(self, sigma: float = 0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _: Any, arr: Any) -> None:
        _fill(arr, np.random.normal(0, self.sigma, size=_shape(arr)))


@register
class Orthogonal(Initializer):
    """Orthogonal matrix initialization (Saxe et al. 2013)."""

    def __init__(self, scale: float = 1.414, rand_type: str = "uniform"):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, _: Any, arr: Any) -> None:
        shape = _shape(arr)
        nout = shape[0]
        nin = int(np.prod(shape[1:]))
        if self.rand_type == "uniform":
            tmp = np.random.uniform(-1.0, 1.0, (nout, nin))
        elif self.rand_type == "normal":
            tmp = np.random.normal(0.0, 1.0, (nout, nin))
        else:
            raise ValueError(f"unknown rand_type {self.rand_type!r}")
        u, _s, v = np.linalg.svd(tmp, full_matrices=False)
        q = u if u.shape == tmp.shape else v
        _fill(arr, (self.scale * q).reshape(shape))


@register
class Xavier(Initializer):
    """Xavier/Glorot initialization, with MXNet's ``rnd_type``, ``factor_type`` and ``magnitude``."""

    def __init__(self, rnd_type: str = "uniform", factor_type: str = "avg", magnitude: float = 3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def _init_weight(self, name: Any, arr: Any) -> None:
        shape = _shape(arr)
        hw_scale = 1.
        if len(shape) < 2:
            raise ValueError(f"Xavier initializer cannot be applied to vector {name}. It requires at least 2D.")
        if len(shape) > 2:
            hw_scale = np.prod(shape[2:])
        fan_in, fan_out = shape[1] * hw_scale, shape[0] * hw_scale
        if self.factor_type == "avg":
            factor = (fan_in + fan_out) / 2.0
        elif self.factor_type == "in":
            factor = fan_in
        elif self.factor_type == "out":
            factor = fan_out
        else:
            raise ValueError("Incorrect factor type")
        scale = np.sqrt(self.magnitude / factor)
        if self.rnd_type == "uniform":
            _fill(arr, np.random.uniform(-scale, scale, size=shape))
        elif self.rnd_type == "gaussian":
            _fill(arr, np.random.normal(0, scale, size=shape))
        else:
            raise ValueError("Unknown random type")


@register
class MSRAPrelu(Xavier):
    """He/MSRA initialization for PReLU networks (``slope`` is the PReLU slope)."""

    def __init__(self, factor_type: str = "avg", slope: float = 0.25):
        magnitude = 2. / (1 + slope ** 2)
        super().__init__("gaussian", factor_type, magnitude)
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Bilinear(Initializer):
    """Bilinear upsampling weights (for Deconvolution)."""

    def __init__(self) -> None:
        super().__init__()

    def _init_weight(self, _: Any, arr: Any) -> None:
        self._init_bilinear(_, arr)


@register
class LSTMBias(Initializer):
    """Zero biases except the forget gate's, set to ``forget_bias``."""

    def __init__(self, forget_bias: float = 1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name: Any, arr: Any) -> None:
        data = np.zeros(_shape(arr), dtype=np.float32)
        num_hidden = data.shape[0] // 4
        data[num_hidden:2 * num_hidden] = self.forget_bias
        _fill(arr, data)


@register
class FusedRNN(Initializer):
    """Fused-RNN parameters initialized as the unfused cells' weights would be: the flat vector is
    unpacked into per-gate weights and biases, each initialized by ``init`` (else the global
    initializer), LSTM forget-gate biases set to ``forget_bias``, then packed back."""

    def __init__(self, init: Any, num_hidden: int, num_layers: int, mode: str, bidirectional: bool = False,
                 forget_bias: float = 1.0):
        if isinstance(init, str):
            init = create(init)
        super().__init__(init=init.dumps() if init is not None else None, num_hidden=num_hidden,
                         num_layers=num_layers, mode=mode, bidirectional=bidirectional, forget_bias=forget_bias)
        self._init = init
        self._num_hidden, self._num_layers, self._mode = num_hidden, num_layers, mode
        self._bidirectional, self._forget_bias = bidirectional, forget_bias

    def _init_weight(self, desc: Any, arr: Any) -> None:
        from .rnn import rnn_cell
        cell = rnn_cell.FusedRNNCell(self._num_hidden, self._num_layers, self._mode, self._bidirectional,
                                     forget_bias=self._forget_bias, prefix="")
        # MXNet unpacks copies of the pieces, initializes them and packs them back: initializing the
        # pieces where they lie (views of ``arr``, in the same order) writes the same values
        data = getattr(arr, "_data", None)
        if isinstance(data, np.ndarray) and data.flags.c_contiguous:
            args = cell._slice_weights(arr, _fused_input_size(cell, arr.size), self._num_hidden)
            if all(getattr(v, "_data", None) is not None and np.may_share_memory(v._data, data) for v in args.values()):
                self._init_pieces(args, desc)
                return
        args = cell.unpack_weights({"parameters": arr})
        self._init_pieces(args, desc)
        arr[:] = cell.pack_weights(args)["parameters"]

    def _init_pieces(self, args: dict, desc: Any) -> None:
        for name in args:
            arg_desc = InitDesc(name, global_init=getattr(desc, "global_init", None))
            if self._mode == "lstm" and name.endswith("_f_bias"):
                args[name][:] = self._forget_bias
            elif self._init is None:
                (arg_desc.global_init or Uniform())(arg_desc, args[name])
            else:
                self._init(arg_desc, args[name])


def _fused_input_size(cell: Any, size: int) -> int:
    """The input size of a fused cell's flat parameter vector of ``size`` values (as ``unpack_weights``)."""
    b, m, h = len(cell._directions), cell._num_gates, cell._num_hidden
    return size // b // h // m - (cell._num_layers - 1) * (h + b * h + 2) - h - 2
