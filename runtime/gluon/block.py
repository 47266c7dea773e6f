"""Base container classes of all models, as ``mxnet.gluon.block`` (ported from MXNet 1.9.1, Apache-2.0).

- :class:`Block`: children registered by attribute assignment, MXNet's prefixes and parameter
  names (``dense0_weight``, ``hybridsequential0_dense0_weight``), ``collect_params``,
  ``save_parameters`` / ``load_parameters`` (structural names such as ``features.0.weight``).
- :class:`HybridBlock`: ``hybrid_forward(self, F, x, *args, **params)`` runs with ``F = nd``
  until :meth:`HybridBlock.hybridize`; then the first call traces it once with ``F = sym``
  (Python side effects run only then, as in MXNet), and the traced graph is compiled by the graph
  compiler (``graph/codegen.py``) into one program per input signature (shapes, dtypes,
  training mode). Later calls run the program without calling ``hybrid_forward``; a new input
  signature compiles the cached graph again (it is not re-traced, as MXNet's CachedOp).
  ``export`` writes ``path-symbol.json`` and ``path-0000.params`` as MXNet does.
- :class:`SymbolBlock`: a block around a symbol (``SymbolBlock.imports`` of an export).
"""
from __future__ import annotations

import json
import linecache
import os
import re
import threading
import traceback
import warnings
from collections import OrderedDict, defaultdict
from typing import Any

import numpy as np

from .. import autograd, initializer, ndarray, symbol
from .. import name as _name
from ..base import HybridizeError, LoadError, NotImplementedForSymbol, ShapeError
from ..graph.infer import infer_dtypes, infer_shapes
from ..graph.ir import Entry, Graph, Node, topo_order
from ..ndarray import NDArray
from ..symbol import Symbol
from ..util import is_np_array
from .parameter import _GENERATION, _load_error
from .parameter import (DeferredInitializationError, Parameter, ParameterDict, ParameterNotInitializedError,
                        load_arrays, save_arrays)
from .static_graph import ImperativeOnlyWarning, describe, imperative_only_block
from .utils import HookHandle, _brief_print_list, _check_all_np_ndarrays, _check_same_symbol_type, _indent

__all__ = ["Block", "HybridBlock", "SymbolBlock", "TraceError"]

mx_real_t = np.float32
_is_training = autograd.is_training
_ag_state = autograd._state
_RUNTIME_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class TraceError(HybridizeError):
    """``hybrid_forward`` raised while being traced with ``F = symbol``; names the block and the line."""

    def __init__(self, message: str, block: str, filename: str | None, lineno: int | None,
                 original: BaseException):
        super().__init__(message)
        self.block = block
        self.filename = filename
        self.lineno = lineno
        self.original = original


# ------------------------------------------------------------------------------------------
# the graph compiler, behind one adapter
# ------------------------------------------------------------------------------------------
def _compile_program(graph: Graph, data_names: list, shapes: dict, dtypes: dict, params: dict,
                     training: bool, flags: dict) -> Any:
    """Compiles ``graph`` for one input signature: ``prog(*data) -> list[np.ndarray]``,
    ``prog.bind_params({name: array})``. The one place Gluon meets the graph compiler, through
    the executor registry (``HYBRIDIZE_EXECUTOR=interpret``: the reference interpreter)."""
    from ..graph import executors
    return executors.program(graph, data_names, shapes, dtypes, params, training=training,
                             kind=executors.choose(supported=("compiled", "interpret")))


# ------------------------------------------------------------------------------------------
# naming scopes
# ------------------------------------------------------------------------------------------
class _BlockScope:
    """Scope for collecting child ``Block`` s (and naming their symbols)."""

    _current = threading.local()

    def __init__(self, block: "Block"):
        self._block = block
        self._counter: dict[str, int] = {}
        self._old_scope = None
        self._name_scope = None

    @staticmethod
    def create(prefix: str | None, params: ParameterDict | None, hint: str) -> tuple:
        """The prefix and the ParameterDict of a new block."""
        current = getattr(_BlockScope._current, "value", None)
        if current is None:
            if prefix is None:
                prefix = _name.current().get(None, hint) + "_"
            if params is None:
                params = ParameterDict(prefix)
            else:
                params = ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = "%s%d_" % (hint, count)
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self) -> "_BlockScope":
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, "value", None)
        _BlockScope._current.value = self
        self._name_scope = _name.Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, ptype: Any, value: Any, trace: Any) -> None:
        if self._block._empty_prefix:
            return
        self._name_scope.__exit__(ptype, value, trace)
        self._name_scope = None
        _BlockScope._current.value = self._old_scope


# ------------------------------------------------------------------------------------------
# nested argument structures
# ------------------------------------------------------------------------------------------
def _gather_type_ctx_info(args: Any) -> tuple:
    """(has_symbol, has_ndarray, contexts, first context) of a nested argument structure."""
    if isinstance(args, NDArray):
        return False, True, {args.ctx}, args.ctx
    if isinstance(args, Symbol):
        return True, False, set(), None
    if isinstance(args, (list, tuple)):
        has_symbol = has_ndarray = False
        ctx_set: set = set()
        first_ctx = None
        for ele in args:
            s, n, c, f = _gather_type_ctx_info(ele)
            has_symbol, has_ndarray = has_symbol or s, has_ndarray or n
            if first_ctx is None and f is not None:
                first_ctx = f
            ctx_set |= c
            if has_symbol and has_ndarray:
                break
        return has_symbol, has_ndarray, ctx_set, first_ctx
    return False, False, set(), None


def _flatten(args: Any, inout_str: str) -> tuple:
    """A flat list of the tensors in ``args`` plus the format to rebuild the structure."""
    if isinstance(args, NDArray):
        return [args], 0
    if isinstance(args, Symbol):
        length = len(args.list_outputs())
        return [args], (length if length > 1 else 0)
    if args is None:
        return [None], -1
    if not isinstance(args, (list, tuple)):
        raise ValueError("When hybridized, the input of HybridBlock {} must be (nested) list of Symbol or "
                         "NDArray, but got {} of type {}".format(inout_str, str(args), str(type(args))))
    flat: list = []
    fmts: list = []
    for i in args:
        arg, fmt = _flatten(i, inout_str)
        flat.extend(arg)
        fmts.append(fmt)
    return flat, fmts


def _regroup(args: list, fmt: Any) -> Any:
    """Rebuilds the structure described by ``fmt`` from a flat list."""
    def _merger(args: Any, fmt: Any) -> tuple:
        if isinstance(fmt, int):
            if fmt < -1:
                raise ValueError("Unsupported encoded format {}.".format(fmt))
            if fmt == 0:
                return args[0], args[1:]
            if fmt == -1:
                if args[0] is not None:
                    raise ValueError("We do not support passing types that are not None when the initial "
                                     "HybridBlock has received NoneType and has been hybridized. "
                                     "Received arg = {}, fmt = {}.".format(args[0], fmt))
                return None, args[1:]
            return args[:fmt], args[fmt:]
        if not isinstance(args, (list, tuple)):
            raise ValueError("When hybridized, the output of HybridBlock must be (nested) list of Symbol or "
                             "NDArray, but got {} of type {}".format(args, type(args)))
        ret = []
        for i in fmt:
            res, args = _merger(args, i)
            ret.append(res)
        return ret, args
    return _merger(args, fmt)[0]


# ------------------------------------------------------------------------------------------
# Block
# ------------------------------------------------------------------------------------------
class Block:
    """Base class for all neural network layers and models (see MXNet's documentation).

    Child blocks assigned as attributes are registered (``self.dense0 = nn.Dense(20)``) and
    their parameters are collected by :meth:`collect_params`.
    """

    def __init__(self, prefix: str | None = None, params: ParameterDict | None = None):
        self._empty_prefix = prefix == ""
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._scope = _BlockScope(self)
        self._children: "OrderedDict[str, Block]" = OrderedDict()
        self._reg_params: dict[str, Parameter] = {}
        self._forward_hooks: "OrderedDict[int, Any]" = OrderedDict()
        self._forward_pre_hooks: "OrderedDict[int, Any]" = OrderedDict()

    def __repr__(self) -> str:
        s = "{name}(\n{modstr}\n)"
        modstr = "\n".join(["  ({key}): {block}".format(key=key, block=_indent(block.__repr__(), 2))
                            for key, block in self.__dict__.items() if isinstance(block, Block)])
        return s.format(name=self.__class__.__name__, modstr=modstr)

    def __setattr__(self, name: str, value: Any) -> None:
        """Registers child blocks and parameters assigned as attributes."""
        if hasattr(self, name):
            existing = getattr(self, name)
            if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
                raise TypeError("Changing attribute type for {name} from {type1} to {type2} is not allowed."
                                .format(name=name, type1=type(existing), type2=type(value)))
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            assert name not in self._reg_params, (
                "Overriding Parameter attribute %s is not allowed. If you want to share parameters between "
                "blocks, please set 'params' at Block construction instead." % name)
            self._reg_params[name] = value
        super().__setattr__(name, value)

    def _check_container_with_block(self) -> None:
        children = set(id(c) for c in self._children.values())

        def _find(data: Any) -> bool:
            if isinstance(data, (list, tuple)):
                return any(_find(e) for e in data)
            if isinstance(data, dict):
                return any(_find(v) for v in data.values())
            if isinstance(data, Block):
                return id(data) not in children
            return False
        for k, v in self.__dict__.items():
            if isinstance(v, (list, tuple, dict)) and not (k.startswith("__") or k == "_children"):
                if _find(v):
                    warnings.warn('"{name}" is an unregistered container with Blocks. Note that Blocks inside the '
                                  "list, tuple or dict will not be registered automatically. Make sure to register "
                                  "them using register_child() or switching to nn.Sequential/nn.HybridSequential "
                                  "instead. ".format(name=self.__class__.__name__ + "." + k), stacklevel=3)

    def _alias(self) -> str:
        return self.__class__.__name__.lower()

    @property
    def prefix(self) -> str:
        """Prefix of this block (``dense0_``)."""
        return self._prefix

    @property
    def name(self) -> str:
        """Name of this block, without the trailing ``_``."""
        return self._name

    def name_scope(self) -> _BlockScope:
        """A scope (``with self.name_scope():``) naming child blocks and parameters under this prefix."""
        return self._scope

    @property
    def params(self) -> ParameterDict:
        """This block's own parameters (not its children's)."""
        return self._params

    def collect_params(self, select: str | None = None) -> ParameterDict:
        """All parameters of this block and its children, optionally those matching regex ``select``."""
        self._check_container_with_block()
        ret = ParameterDict(self._params.prefix)
        if not select:
            ret.update(self.params)
        else:
            pattern = re.compile(select)
            ret.update({name: value for name, value in self.params.items() if pattern.match(name)})
        for cld in self._children.values():
            ret.update(cld.collect_params(select=select))
        return ret

    def _collect_params_with_prefix(self, prefix: str = "") -> dict:
        if prefix:
            prefix += "."
        ret = {prefix + key: val for key, val in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    def _find_owner(self, param: Parameter) -> "Block | None":
        if any(p is param for p in self._reg_params.values()):
            return self
        for c in self._children.values():
            found = c._find_owner(param)
            if found is not None:
                return found
        return None

    def _not_initialized(self, err: ParameterNotInitializedError) -> ParameterNotInitializedError:
        """The error for a parameter used before initialization, naming its block."""
        param = err.param
        owner = self
        for p in self.collect_params().values():
            if p.name == param:
                owner = self._find_owner(p) or self
                break
        msg = (f"Parameter '{param}' of block '{owner.name}' has not been initialized: call "
               f"initialize() (or load_parameters()) on the network before calling it")
        return ParameterNotInitializedError(msg, param, owner.name)

    def save_parameters(self, filename: str, deduplicate: bool = False) -> None:
        """Saves parameters by structural name (``features.0.weight``) in MXNet's ``.params`` format
        (``.npz`` when ``filename`` ends in ``.npz``)."""
        params = self._collect_params_with_prefix()
        if deduplicate:
            reverse_params = {v: k for k, v in params.items()}
            params = {v: k for k, v in reverse_params.items()}
        arg_dict = {key: val._reduce() for key, val in params.items()}
        save_arrays(filename, arg_dict)

    def save_params(self, filename: str) -> None:
        """[Deprecated] Please use save_parameters."""
        warnings.warn("save_params is deprecated. Please use save_parameters.", stacklevel=2)
        self.collect_params().save(filename, strip_prefix=self.prefix)

    def load_parameters(self, filename: str, ctx: Any = None, allow_missing: bool = False,
                        ignore_extra: bool = False, cast_dtype: bool = False, dtype_source: str = "current") -> None:
        """Loads parameters saved by :meth:`save_parameters` (or, with global names, ``save_params``)."""
        loaded = load_arrays(filename)
        params = self._collect_params_with_prefix()
        if not loaded and not params:
            return
        if not any("." in i for i in loaded.keys()):
            # legacy loading: names are full parameter names
            del loaded
            self.collect_params().load(filename, ctx, allow_missing, ignore_extra, self.prefix,
                                       cast_dtype=cast_dtype, dtype_source=dtype_source)
            return
        if not allow_missing:
            params_inv = defaultdict(list)
            for k, v in params.items():
                params_inv[v].append(k)
            for name, param in params.items():
                if not any(p in loaded for p in params_inv[param]):
                    raise _load_error(
                        filename, "Parameter '%s' is missing in file '%s', which contains parameters: %s. "
                        "Set allow_missing=True to ignore missing parameters."
                        % (name, filename, _brief_print_list(loaded.keys())))
        for name in loaded:
            if not ignore_extra and name not in params:
                raise _load_error(
                    filename, "Parameter '%s' loaded from file '%s' is not present in this block, which contains "
                    "parameters %s. Set ignore_extra=True to ignore."
                    % (name, filename, _brief_print_list(params.keys())))
            if name in params:
                try:
                    params[name]._load_init(loaded[name], ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)
                except ValueError as e:
                    raise _load_error(filename, f"{e} (structural name '{name}')") from None

    def load_params(self, filename: str, ctx: Any = None, allow_missing: bool = False,
                    ignore_extra: bool = False) -> None:
        """[Deprecated] Please use load_parameters."""
        warnings.warn("load_params is deprecated. Please use load_parameters.", stacklevel=2)
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    def register_child(self, block: "Block", name: str | None = None) -> None:
        """Registers ``block`` as a child (attribute assignment does this automatically)."""
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_pre_hook(self, hook: Any) -> HookHandle:
        """``hook(block, inputs)`` runs before each forward."""
        handle = HookHandle()
        handle.attach(self._forward_pre_hooks, hook)
        return handle

    def register_forward_hook(self, hook: Any) -> HookHandle:
        """``hook(block, inputs, outputs)`` runs after each forward."""
        handle = HookHandle()
        handle.attach(self._forward_hooks, hook)
        return handle

    def apply(self, fn: Any) -> "Block":
        """Applies ``fn`` to every child block recursively, then to self."""
        for cld in self._children.values():
            cld.apply(fn)
        fn(self)
        return self

    def initialize(self, init: Any = initializer.Uniform(), ctx: Any = None, verbose: bool = False,
                   force_reinit: bool = False) -> None:
        """Initializes the parameters of this block and its children (``collect_params().initialize``)."""
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active: bool = True, **kwargs: Any) -> None:
        """Hybridizes the HybridBlock children (see :meth:`HybridBlock.hybridize`)."""
        for cld in self._children.values():
            cld.hybridize(active, **kwargs)

    def save(self, prefix: str) -> None:
        """Saves the structure (``prefix-model.json``) and parameters (``prefix-model.params``)."""
        model: dict = {}

        def _save_cached_graphs(blk: Block, index: list, structure: dict) -> None:
            mdl: dict = {"orig_name": blk.name}
            name = type(blk).__name__.lower()
            structure[name + str(index[0])] = mdl
            if isinstance(blk, HybridBlock):
                if blk._cached_graph:
                    mdl["in_format"] = blk._in_format
                    mdl["out_format"] = blk._out_format
                    syms, out = blk._cached_graph
                    mdl["inputs"] = [s.tojson() for s in syms]
                    mdl["symbol"] = out.tojson()
                    mdl["hybridized"] = True
                else:
                    mdl["hybridized"] = False
            children: dict = {}
            mdl["children"] = children
            for ch_name, child in blk._children.items():
                index[0] += 1
                children[child.name] = ch_name
                _save_cached_graphs(child, index, mdl)
        _save_cached_graphs(self, [0], model)
        from ...atomic import write_text
        write_text(prefix + "-model.json", json.dumps(model))
        self.save_parameters(prefix + "-model.params")

    def load(self, prefix: str) -> None:
        """Loads what :meth:`save` wrote (the same structure must have been built); a missing or
        garbled ``-model.json`` is a ``LoadError`` naming it."""
        path = prefix + "-model.json"
        try:
            with open(path, "rb") as fp:
                model = json.loads(fp.read().decode("utf-8"))
        except FileNotFoundError:
            raise LoadError(path, "no such file") from None
        except OSError as e:
            raise LoadError(path, f"cannot read: {e.strerror or e}") from None
        except (ValueError, RecursionError) as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            raise LoadError(path, f"not a model file written by Block.save ({e})") from None

        def _load_cached_graphs(blk: Block, index: list, structure: dict) -> None:
            name = type(blk).__name__.lower()
            mdl = structure[name + str(index[0])]
            blk._name = mdl["orig_name"]
            if isinstance(blk, HybridBlock) and mdl["hybridized"]:
                blk._in_format = mdl["in_format"]
                blk._out_format = mdl["out_format"]
                out = symbol.load_json(mdl["symbol"])
                syms = [symbol.load_json(inp) for inp in mdl["inputs"]]
                blk._cached_graph = (syms, out)
                blk._active = True
            # rename parameters (dict keys) after the block's saved name
            for p in list(blk.params.keys()):
                param = blk.params._params.pop(p)
                blk.params._params[blk.name + "_" + p[len(blk.params._prefix):]] = param
            for ch_name, child in blk._children.items():
                index[0] += 1
                _load_cached_graphs(child, index, mdl)
            children = mdl["children"]
            for ch_name in list(blk._children.keys()):
                child = blk._children.pop(ch_name)
                blk._children[children[child.name]] = child
        try:
            _load_cached_graphs(self, [0], model)
        except (KeyError, TypeError, AttributeError, IndexError) as e:
            raise LoadError(path, f"does not describe this block's structure (at {e})") from None
        self.load_parameters(prefix + "-model.params")

    def cast(self, dtype: Any) -> None:
        """Casts the parameters of this block and its children to ``dtype``."""
        for child in self._children.values():
            child.cast(dtype)
        for _, param in self.params.items():
            param.cast(dtype)

    def __call__(self, *args: Any) -> Any:
        """Calls forward (positional arguments only), running the hooks around it."""
        if self._forward_pre_hooks:
            for hook in list(self._forward_pre_hooks.values()):
                hook(self, args)
        out = self.forward(*args)
        if self._forward_hooks:
            for hook in list(self._forward_hooks.values()):
                hook(self, args, out)
        if is_np_array():  # np mode: only mx.np outputs (MXNet's TypeError for a classic one)
            _check_all_np_ndarrays(out)
        return out

    def forward(self, *args: Any) -> Any:
        """Overrides to implement forward computation using NDArray."""
        raise NotImplementedError

    def register_op_hook(self, callback: Any, monitor_all: bool = False) -> None:
        for cld in self._children.values():
            cld.register_op_hook(callback, monitor_all)

    def summary(self, *inputs: Any) -> None:
        """Prints each layer's output shape and parameter count (the network must not be hybridized)."""
        summary: "OrderedDict[str, OrderedDict]" = OrderedDict()
        seen: set = set()
        hooks = []

        def _get_shape_str(args: Any) -> str:
            def flatten(args: Any) -> tuple:
                if not isinstance(args, (list, tuple)):
                    return [args], 0
                flat, fmts = [], []
                for i in args:
                    arg, fmt = flatten(i)
                    flat.extend(arg)
                    fmts.append(fmt)
                return flat, fmts

            def regroup(args: Any, fmt: Any) -> tuple:
                if isinstance(fmt, int):
                    if fmt == 0:
                        return args[0], args[1:]
                    return args[:fmt], args[fmt:]
                ret = []
                for i in fmt:
                    res, args = regroup(args, i)
                    ret.append(res)
                return ret, args
            flat_args, fmts = flatten(args)
            flat_arg_shapes = [x.shape if isinstance(x, NDArray) else x for x in flat_args]
            shapes = regroup(flat_arg_shapes, fmts)[0]
            shape_str = str(shapes)[1:-1] if isinstance(shapes, list) else str(shapes)
            return shape_str.replace("L", "")

        def _register_summary_hook(block: Block) -> None:
            assert not isinstance(block, HybridBlock) or not block._active, \
                '"{}" must not be hybridized to print summary.'.format(block.name)

            def _summary_hook(block: Block, _: Any, outputs: Any) -> None:
                class_name = block.__class__.__name__
                block_idx = len(summary) - 1
                m_key = "%s-%i" % (class_name, block_idx + 1)
                summary[m_key] = OrderedDict()
                summary[m_key]["output_shape"] = _get_shape_str(outputs)
                params = 0
                summary[m_key]["trainable"] = 0
                summary[m_key]["shared"] = 0
                for p in block.params.values():
                    params += p.data().size
                    summary[m_key]["trainable"] += 0 if p.grad_req == "null" else p.data().size
                    if p in seen:
                        summary[m_key]["shared"] += p.data().size
                    else:
                        seen.add(p)
                summary[m_key]["n_params"] = params
            from .nn.basic_layers import HybridSequential, Sequential
            if not isinstance(block, (Sequential, HybridSequential)):
                hooks.append(block.register_forward_hook(_summary_hook))

        summary["Input"] = OrderedDict()
        summary["Input"]["output_shape"] = _get_shape_str(inputs)
        summary["Input"]["n_params"] = 0
        summary["Input"]["trainable"] = 0
        summary["Input"]["shared"] = 0
        try:
            self.apply(_register_summary_hook)
            self(*inputs)
            line_format = "{:>20}  {:>42} {:>15}"
            print("-" * 80)
            print(line_format.format("Layer (type)", "Output Shape", "Param #"))
            print("=" * 80)
            total_params = trainable_params = shared_params = 0
            for layer in summary:
                print(line_format.format(layer, str(summary[layer]["output_shape"]), summary[layer]["n_params"]))
                total_params += summary[layer]["n_params"]
                trainable_params += summary[layer]["trainable"]
                shared_params += summary[layer]["shared"]
            print("=" * 80)
            print("Parameters in forward computation graph, duplicate included")
            print("   Total params: " + str(total_params))
            print("   Trainable params: " + str(trainable_params))
            print("   Non-trainable params: " + str(total_params - trainable_params))
            print("Shared params in forward computation graph: " + str(shared_params))
            print("Unique parameters in model: " + str(total_params - shared_params))
            print("-" * 80)
        finally:
            for h in hooks:
                h.detach()


# ------------------------------------------------------------------------------------------
# tracing errors
# ------------------------------------------------------------------------------------------
#: Depth of nested ``HybridBlock.hybridize`` calls (the recursion into children): only the
#: outermost call warns about imperative-only descendants.
_HYBRIDIZING = [0]


def _imperative_F() -> Any:
    """``F`` of an imperative ``hybrid_forward``: ``mx.nd``, or with NumPy array semantics on
    (``npx.set_np()``) ``mx.nd`` whose ``F.np``/``F.npx`` are ``mx.np``/``mx.npx``."""
    if not is_np_array():
        return ndarray
    from ..numpy_extension import _nd_with_np
    return _nd_with_np


def _symbolic_F() -> Any:
    """``F`` of a traced ``hybrid_forward``: ``mx.sym`` in both modes, as MXNet (whose ``F.np``/``F.npx``
    are the np-mode namespaces, ``runtime/symbol_numpy.py``)."""
    return symbol


def _trace_error(block: "HybridBlock", exc: BaseException) -> TraceError:
    """A :class:`TraceError` naming ``block`` and the user's source line where ``exc`` was raised."""
    frames = traceback.extract_tb(exc.__traceback__)
    user = [f for f in frames if not os.path.abspath(f.filename).startswith(_RUNTIME_DIR + os.sep)]
    pick = None
    if user:
        pick = user[-1]
    else:
        hf = [f for f in frames if f.name == "hybrid_forward"]
        pick = hf[-1] if hf else (frames[-1] if frames else None)
    where = ""
    filename = lineno = None
    if pick is not None:
        filename, lineno = pick.filename, pick.lineno
        line = (pick.line or linecache.getline(pick.filename, pick.lineno) or "").strip()
        where = f" at {filename}:{lineno}" + (f": `{line}`" if line else "")
    hint = ""
    if (isinstance(exc, AttributeError) and "Symbol" in str(exc)) or (
            isinstance(exc, NotImplementedForSymbol) and "truth value" not in str(exc)):
        hint = (" (while tracing, tensors are Symbols without values: NDArray-only operations such as "
                "asnumpy(), item() or in-place updates cannot be hybridized)")
    elif isinstance(exc, NotImplementedError) and "truth value of a Symbol" in str(exc):
        hint = ""
    msg = (f"{type(block).__name__} '{block.name}': hybrid_forward failed while tracing with F=symbol"
           f"{where}: {type(exc).__name__}: {exc}{hint}")
    return TraceError(msg, block.name, filename, lineno, exc)


def _add_block_note(exc: BaseException, block: "HybridBlock", how: str) -> None:
    """Notes (once, innermost block) which block was running when ``exc`` was raised."""
    if getattr(exc, "_hybridize_block_noted", False):
        return
    note = f"while running {type(block).__name__} '{block.name}' {how}"
    try:
        exc._hybridize_block_noted = True  # type: ignore[attr-defined]
        if hasattr(exc, "add_note"):
            exc.add_note(note)
        else:   # Python < 3.11: PEP 678's attribute, kept for handlers (the traceback does not print it)
            exc.__notes__ = [*getattr(exc, "__notes__", []), note]  # type: ignore[attr-defined]
    except (AttributeError, TypeError):
        pass


# ------------------------------------------------------------------------------------------
# HybridBlock
# ------------------------------------------------------------------------------------------
class _CachedOp:
    """A traced graph plus its compiled programs, one per (input shapes, dtypes, training)."""

    __slots__ = ("graph", "data_names", "input_names", "flags", "programs", "training_programs", "owner")

    def __init__(self, graph: Graph, data_names: list, flags: dict, owner: "HybridBlock",
                 input_names: list | None = None):
        self.graph = graph
        self.input_names = list(input_names or [])  # every variable, in _cached_op_args order
        self.data_names = data_names
        self.flags = flags
        self.programs: dict = {}
        # (signature, context, training, differentiated variables) -> (TrainingProgram or None: op by op, generation)
        self.training_programs: dict = {}
        self.owner = owner


def _compiled_backward() -> bool:
    """A recorded call of a hybridized block may run the compiled training step (not turned off by
    ``HYBRIDIZE_COMPILED_BACKWARD=0`` nor another executor chosen)."""
    from ..graph import executors
    return os.environ.get("HYBRIDIZE_COMPILED_BACKWARD") != "0" and \
        executors.choose(supported=("compiled", "interpret")) == "compiled"


def _inlines(cop: _CachedOp) -> bool:
    """MXNet 1.9.1's CachedOp "inlining": a graph of at most ``inline_limit`` operators (and no
    ``static_alloc``) runs, under ``autograd.record()``, each operator as its own recorded call
    (the imperative kernels, one tape node each), instead of as one ``_CachedOp`` node."""
    if cop.flags.get("static_alloc"):
        return False
    return sum(1 for n in cop.graph.nodes if n.op is not None) <= cop.flags.get("inline_limit", 2)


class HybridBlock(Block):
    """A block that runs imperatively (``F = nd``) or, after :meth:`hybridize`, as a compiled graph.

    Subclasses define ``hybrid_forward(self, F, x, *args, **params)``; registered parameters
    (and constants) arrive as keyword arguments named as the attributes they were assigned to.
    """

    def __init__(self, prefix: str | None = None, params: ParameterDict | None = None):
        super().__init__(prefix=prefix, params=params)
        self._cached_graph: tuple = ()
        self._cached_op: _CachedOp | None = None
        self._cached_op_args: list = []
        self._out_format: Any = None
        self._in_format: Any = None
        self._active = False
        self._flags: list = []
        self._callback = None
        self._monitor_all = False
        self._backend = None
        self._backend_opts: dict = {}
        self._simple_in = False
        self._simple_out = False
        # (shape, dtype, parameter generation, training, function, constants) of the last single-input call:
        # lets __call__ skip straight to the compiled program when nothing changed
        self._fast: tuple | None = None
        # the same for a call under ``autograd.record()`` running the compiled training step
        # (:meth:`_call_recorded_fast`): what the general path decides once, checked per call
        self._fast_rec: tuple | None = None

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._clear_cached_op()

    def __getstate__(self) -> dict:
        """Pickled without anything traced or compiled (generated code and the closures over it
        are not picklable): a hybridized block traces and compiles again on its first call."""
        state = dict(self.__dict__)
        state.update(_cached_graph=(), _cached_op=None, _cached_op_args=[], _fast=None, _fast_rec=None)
        return state

    def __call__(self, *args: Any) -> Any:
        fast = self._fast
        if fast is not None and len(args) == 1 and type(args[0]) is NDArray:
            d = args[0]._data
            if (d.shape == fast[0] and d.dtype is fast[1] and _GENERATION[0] == fast[2] and not _ag_state.recording
                    and _is_training() is fast[3] and args[0]._ctx is None and not self._forward_pre_hooks and not self._forward_hooks):
                return NDArray(fast[4](fast[5], d)[0])
        rec = self._fast_rec
        if rec is not None and _ag_state.recording and len(args) == 1 and type(args[0]) is NDArray:
            out = self._call_recorded_fast(rec, args[0])
            if out is not None:
                return out
        if self._forward_pre_hooks or self._forward_hooks:
            return Block.__call__(self, *args)
        out = self.forward(*args)
        if is_np_array():  # np mode: only mx.np outputs (MXNet's TypeError for a classic one)
            _check_all_np_ndarrays(out)
        return out

    # -- tracing ----------------------------------------------------------------------------
    def _trace(self, *args: Any, **params: Any) -> Any:
        """``hybrid_forward`` with ``F = symbol`` inside this block's name scope; errors name block and line."""
        with self.name_scope():
            try:
                return self.hybrid_forward(_symbolic_F(), *args, **params)
            except TraceError:
                raise
            except Exception as e:  # noqa: BLE001 - re-raised with the block and line named
                raise _trace_error(self, e) from e

    def _get_graph(self, *args: Any) -> tuple:
        if not self._cached_graph:
            np_mode = is_np_array()
            flatten_args, self._in_format = _flatten(args, "input")
            flatten_inputs: list = []
            symbol_inputs: list = []
            cnt = 0
            real_arg_num = sum(ele is not None for ele in flatten_args)
            if real_arg_num == 0:
                raise ValueError("All args are None and we do not support such a case. Received args={}".format(args))
            for arg in flatten_args:
                if arg is not None:
                    arg_sym = symbol.var("data{}".format(cnt) if real_arg_num > 1 else "data")
                    if np_mode:
                        arg_sym = arg_sym.as_np_ndarray()
                    cnt += 1
                    flatten_inputs.append(arg_sym)
                    symbol_inputs.append(arg_sym)
                else:
                    flatten_inputs.append(None)
            grouped_inputs = _regroup(flatten_inputs, self._in_format)
            if not isinstance(grouped_inputs, list):
                grouped_inputs = [grouped_inputs]
            params = {i: j.var() for i, j in self._reg_params.items()}
            if np_mode:  # np-mode Symbols in, as MXNet 1.9.1 traces with NumPy array semantics on
                params = {i: v.as_np_ndarray() for i, v in params.items()}
            out = self._trace(*grouped_inputs, **params)
            out, self._out_format = _flatten(out, "output")
            if any(not isinstance(o, Symbol) for o in out):
                bad = next(o for o in out if not isinstance(o, Symbol))
                raise HybridizeError(f"{type(self).__name__} '{self.name}': hybrid_forward returned "
                                     f"{type(bad).__name__}, not Symbols, while tracing")
            _check_same_symbol_type(out)  # np-mode and classic outputs cannot be grouped (MXNet's TypeError)
            self._cached_graph = symbol_inputs, symbol.Group(out)
        return self._cached_graph

    def _build_cache(self, *args: Any) -> None:
        data, out = self._get_graph(*args)
        data_names = {d.name: i for i, d in enumerate(data)}
        graph = out.graph()
        input_names = [n.name for n in graph.variables()]
        expected_names = set(input_names)
        if self._cached_op_args:
            params = {p[1].name: p[1] for p in self._cached_op_args if isinstance(p[1], Parameter)}
        else:
            params = dict(self.collect_params().items())
        for name in expected_names:
            if name not in params and name not in data_names:
                raise HybridizeError(f"{type(self).__name__} '{self.name}': unknown input to HybridBlock: {name!r} "
                                     "(a variable that is neither a data input nor a registered parameter)")
        used_data_names = [i for i in data_names if i in expected_names]
        if len(used_data_names) != len(data_names):
            unused = ", ".join(["%d-th" % i for name, i in data_names.items() if name not in expected_names])
            warnings.warn("The %s input to HybridBlock is not used by any computation. Is this intended?" % unused,
                          stacklevel=4)
        used_param_names = [i for i in params if i in expected_names]
        if len(used_param_names) != len(params):
            unused = ", ".join(sorted(set(params) - set(used_param_names)))
            warnings.warn("Parameter %s is not used by any computation. Is this intended?" % unused, stacklevel=4)
        flat_args, _ = _flatten(args, "input")
        try:
            for name in input_names:
                if name in params:
                    params[name].data()
        except DeferredInitializationError:
            self._deferred_infer_shape(*flat_args)
            for name in input_names:
                if name in params:
                    params[name]._finish_deferred_init()
        except ParameterNotInitializedError as e:
            raise self._not_initialized(e) from None
        self._cached_op_args = []
        for name in input_names:
            if name in data_names:
                self._cached_op_args.append((True, data_names[name]))
            else:
                self._cached_op_args.append((False, params[name]))
        flags = dict(self._flags)
        self._cached_op = _CachedOp(graph, [n for n in input_names if n in data_names], flags, self, input_names)
        self._simple_in = isinstance(self._in_format, list) and all(f == 0 for f in self._in_format)
        self._simple_out = self._out_format == 0 or self._out_format == [0]

    def _deferred_infer_shape(self, *args: Any) -> None:
        try:
            self.infer_shape(*args)
        except (TraceError, ParameterNotInitializedError):
            raise
        except Exception as e:  # noqa: BLE001
            raise ShapeError(f"{type(self).__name__} '{self.name}': deferred initialization failed because "
                             f"shape cannot be inferred. {e}") from e

    def _program(self, cop: _CachedOp, arrays: list, key: tuple) -> Any:
        """The compiled program for one input signature (compiled on first use, rebound on change)."""
        entry = cop.programs.get(key)
        gen = _GENERATION[0]
        if entry is not None:
            prog, bound = entry
            if bound == gen:
                return prog
            prog.bind_params(self._param_arrays(cop, key[-2]))
            cop.programs[key] = (prog, gen)
            return prog
        shapes = {nm: a.shape for nm, a in zip(cop.data_names, self._data_in_order(arrays))}
        dtypes = {nm: a.dtype for nm, a in zip(cop.data_names, self._data_in_order(arrays))}
        prog = _compile_program(cop.graph, cop.data_names, shapes, dtypes, self._param_arrays(cop, key[-2]),
                                bool(key[-1]), cop.flags)
        cop.programs[key] = (prog, gen)
        return prog

    def _data_in_order(self, arrays: list) -> list:
        return [arrays[i] for is_arg, i in self._cached_op_args if is_arg]

    def _param_arrays(self, cop: _CachedOp, ctx: Any = None) -> dict:
        """Name -> the parameters' arrays a program binds: the copies of ``ctx`` (the inputs' context)."""
        out = {}
        for name, (is_arg, p) in zip(cop.input_names, self._cached_op_args):
            if not is_arg:
                try:
                    out[name] = p._data_for(ctx)._data
                except ParameterNotInitializedError as e:
                    raise self._not_initialized(e) from None
        return out

    def _call_cached_op(self, *args: Any) -> Any:
        if self._cached_op is None:
            self._build_cache(*args)
        cop = self._cached_op
        if self._simple_in and len(args) == len(self._in_format):
            try:
                arrays = [a._data for a in args]
            except AttributeError:
                arrays = None
        else:
            arrays = None
        if arrays is None:
            flat, fmt = _flatten(args, "input")
            if fmt != self._in_format:
                valid = False
                if len(self._in_format) > len(fmt):
                    valid = all(self._in_format[i] == -1 for i in range(len(fmt), len(self._in_format)))
                    valid = valid and (fmt == self._in_format[:len(fmt)])
                elif len(self._in_format) < len(fmt):
                    valid = all(fmt[i] == -1 for i in range(len(self._in_format), len(fmt)))
                    valid = valid and (fmt[:len(self._in_format)] == self._in_format)
                if not valid:
                    raise ValueError("The argument structure of HybridBlock does not match the cached version. "
                                     "Stored format = {}, input format = {}".format(self._in_format, fmt))
            arrays = [a._data for a in flat if a is not None]
        if _ag_state.recording:
            return self._call_recorded(cop, args)
        first = args[0] if args and isinstance(args[0], NDArray) else next(
            (a for a in _flatten(args, "input")[0] if isinstance(a, NDArray)), None)
        ctx = first._ctx if first is not None else None  # None: cpu(0); a program per context
        key = (tuple([(a.shape, a.dtype) for a in arrays]), ctx, autograd.is_training())
        try:
            prog = self._program(cop, arrays, key)
            outs = prog(*self._data_in_order(arrays))
        except Exception as e:
            _add_block_note(e, self, "hybridized (compiled program for input shapes "
                            + ", ".join(str(a.shape) for a in arrays) + ")")
            raise
        if self._out_format == 0 and len(arrays) == 1 and self._simple_in and ctx is None:
            # the generated function and its bound constants themselves: a parameter change bumps
            # the generation (so this tuple is dropped before the constants could be stale)
            self._fast = (arrays[0].shape, arrays[0].dtype, _GENERATION[0], bool(key[-1])) + prog.direct()
        cls = NDArray
        if is_np_array():  # np mode: a hybridized block returns mx.np arrays, as imperatively
            from ..numpy import ndarray as cls
        if self._simple_out:
            out = cls(outs[0], ctx)
            return out if self._out_format == 0 else [out]
        return _regroup([cls(o, ctx) for o in outs], self._out_format)

    def _call_recorded(self, cop: _CachedOp, args: tuple) -> Any:
        """The cached graph under ``autograd.record()``: the compiled training step (forward now, the
        backward program as one tape node's rule, shown by ``get_symbol`` as MXNet's ``_CachedOp``)
        or op by op through the tape: graphs MXNet inlines (:func:`_inlines`: its imperative kernels,
        so the numbers are the imperative ones) and those the differentiate stage refuses. Either way
        the parameters' data arrays are the marked variables, so backward fills their gradients."""
        from ..graph.differentiate import run_recorded
        flat, _ = _flatten(args, "input")
        data = [a for a in flat if a is not None]
        ctx = data[0].context if data and isinstance(data[0], NDArray) else None
        values = {}
        for name, (is_arg, p) in zip(cop.input_names, self._cached_op_args):
            values[name] = data[p] if is_arg else p._data_for(ctx)
        one = len(args) == 1 and type(args[0]) is NDArray and args[0]._ctx is None
        outs = None if _inlines(cop) else self._run_compiled_training(cop, values, data, ctx, one)
        if outs is None:
            outs = run_recorded(cop.graph, values)
            if is_np_array():  # np mode: mx.np outputs (the same memory and autograd entries)
                outs = [o.as_np_ndarray() for o in outs]
        if self._simple_out:
            return outs[0] if self._out_format == 0 else [outs[0]]
        return _regroup(list(outs), self._out_format)

    def _run_compiled_training(self, cop: _CachedOp, values: dict, data: list, ctx: Any,
                               one: bool = False) -> list | None:
        """The outputs of the compiled training step (recorded as one tape node), or None when this
        graph runs op by op (refused by the differentiate stage, nothing to differentiate, another
        executor chosen, ``HYBRIDIZE_COMPILED_BACKWARD=0``). ``one``: the call's only argument is
        one classic NDArray in cpu(0): when it is not in the graph either, what was decided here is
        kept for :meth:`_call_recorded_fast`."""
        if not _compiled_backward():
            return None
        if any(not isinstance(values[n], NDArray) for n in cop.data_names):
            return None
        wrt = tuple(n for n in cop.input_names if autograd._entry(values[n]) is not None)
        if not wrt:
            return None
        arrays = [values[n]._data for n in cop.data_names]
        training = autograd.is_training()
        key = (tuple([(a.shape, a.dtype) for a in arrays]), ctx, training, wrt)
        gen = _GENERATION[0]
        entry = cop.training_programs.get(key)
        if entry is None:
            from ..graph.differentiate import compile_training
            from ..graph.passes.differentiate import NotDifferentiable
            try:
                tp = compile_training(cop.graph, cop.data_names, {n: a.shape for n, a in zip(cop.data_names, arrays)},
                                      {n: a.dtype for n, a in zip(cop.data_names, arrays)},
                                      self._param_arrays(cop, ctx), list(wrt), training)
            except NotDifferentiable:
                tp = None
            cop.training_programs[key] = entry = (tp, gen)
        tp, bound = entry
        if tp is None:
            return None
        if bound != gen:
            tp.bind_params(self._param_arrays(cop, ctx))
            cop.training_programs[key] = (tp, gen)
        try:
            outs, saved = tp.run(arrays)
        except Exception as e:
            _add_block_note(e, self, "hybridized (compiled training program for input shapes "
                            + ", ".join(str(a.shape) for a in arrays) + ")")
            raise
        np_mode = is_np_array()
        cls = NDArray
        if np_mode:
            from ..numpy import ndarray as cls
        out_nds = [cls(o, ctx) for o in outs]
        rule = self._training_rule(tp, len(wrt))
        autograd._record(None, None, [values[n] for n in wrt] + saved, out_nds, rule=rule,
                         name=f"{self.name}_backward", symbol=([values[n] for n in cop.input_names], "_CachedOp"))
        if one and not np_mode and len(cop.data_names) == 1 and cop.data_names[0] not in wrt and self._simple_out:
            params = [(p, values[name], values[name]._ag) for name, (is_arg, p) in zip(cop.input_names,
                                                                                       self._cached_op_args)
                      if not is_arg]
            self._fast_rec = (cop, arrays[0].shape, arrays[0].dtype, training, ctx, key, tp, rule, params,
                              cop.input_names.index(cop.data_names[0]))
        return out_nds

    def _call_recorded_fast(self, rec: tuple, x: NDArray) -> Any:
        """A recorded call of the compiled training step with what :meth:`_run_compiled_training`
        decided for the last one (its key, program, gradient rule, the parameters' arrays and their
        autograd entries): the same program run and the same tape node, or None (the general path)
        when anything it depends on changed: the cached graph, the input's shape, dtype, context or
        presence in the graph, the mode, a parameter's array or entry, hooks, the switches."""
        cop, shape, dtype, training, ctx, key, tp, rule, params, at = rec
        d = x._data
        if self._cached_op is not cop or d.shape != shape or d.dtype is not dtype or x._ctx is not None \
                or x._ag is not None or _is_training() is not training or self._forward_pre_hooks \
                or self._forward_hooks or is_np_array() or not _compiled_backward():
            return None
        nds = []
        for p, a, e in params:
            if p._data_for(ctx) is not a or a._ag is not e or e is not None and not e[0].alive:
                return None
            nds.append(a)
        entry = cop.training_programs.get(key)
        if entry is None or entry[0] is not tp:
            return None
        gen = _GENERATION[0]
        if entry[1] != gen:
            tp.bind_params(self._param_arrays(cop, ctx))
            cop.training_programs[key] = (tp, gen)
        try:
            outs, saved = tp.run([d])
        except Exception as e:
            _add_block_note(e, self, f"hybridized (compiled training program for input shapes {d.shape})")
            raise
        out_nds = [NDArray(o, ctx) for o in outs]
        autograd._record(None, None, [a for a in nds if a._ag is not None] + saved, out_nds, rule=rule,
                         name=f"{self.name}_backward", symbol=(nds[:at] + [x] + nds[at:], "_CachedOp"))
        return out_nds[0] if self._out_format == 0 else [out_nds[0]]

    def _training_rule(self, tp: Any, n_in: int) -> Any:
        """The gradient rule of a compiled training step's tape node: the backward program on the
        head gradients and the saved activations, written into the ``n_in`` variables' gradient
        buffers where the tape offers them."""
        def rule(F: Any, attrs: Any, inputs: list, outputs: list, out_grads: list, into: list | None = None) -> list:
            if autograd.is_recording():
                raise HybridizeError(f"{type(self).__name__} '{self.name}': create_graph through a hybridized "
                                     "block's compiled backward is not supported; set HYBRIDIZE_COMPILED_BACKWARD=0 "
                                     "to record it op by op")
            dests = None if into is None else [None if d is None else d._data for d in into[:n_in]]
            grads = tp.gradients(out_grads, [x._data for x in inputs[n_in:]], dests)
            if dests is None:
                return [NDArray(g) for g in grads]
            # a gradient written into its variable's buffer is returned as that buffer
            return [into[k] if dests[k] is not None and g is dests[k] else NDArray(g) for k, g in enumerate(grads)]
        rule.into = True    # type: ignore[attr-defined]   (gradients into the variables' buffers)
        return rule

    def hybridized_code(self, *args: Any) -> str:
        """The generated source of the compiled program(s) of this block (after a hybridized call)."""
        if self._cached_op is None or not self._cached_op.programs:
            raise HybridizeError(f"{type(self).__name__} '{self.name}' has no compiled program yet: call "
                                 "hybridize() and run one forward pass first")
        return "\n\n".join(str(getattr(prog, "code", prog)) for prog, _ in self._cached_op.programs.values())

    def optimize_for(self, x: Any, *args: Any, backend: str | None = None, clear: bool = False,
                     static_alloc: bool = False, static_shape: bool = False, inline_limit: int = 2,
                     forward_bulk_size: int | None = None, backward_bulk_size: int | None = None,
                     **kwargs: Any) -> None:
        """Hybridizes and builds the cache for ``x`` without running it (backends are not supported)."""
        self.hybridize(True, backend, clear, static_alloc, static_shape, inline_limit, forward_bulk_size,
                       backward_bulk_size)
        self._build_cache(x, *args)

    def _clear_cached_op(self) -> None:
        self._fast = None
        self._fast_rec = None
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []

    def register_child(self, block: Block, name: str | None = None) -> None:
        if not isinstance(block, HybridBlock):
            raise ValueError("Children of HybridBlock must also be HybridBlock, but %s has type %s. If you are "
                             "using Sequential, please try HybridSequential instead." % (str(block), str(type(block))))
        super().register_child(block, name)
        self._clear_cached_op()

    def hybridize(self, active: bool = True, backend: str | None = None, clear: bool = True,
                  static_alloc: bool = False, static_shape: bool = False, inline_limit: int = 2,
                  forward_bulk_size: int | None = None, backward_bulk_size: int | None = None,
                  **kwargs: Any) -> None:
        """Activates (or deactivates) compiled execution for this block and its HybridBlock children.

        ``static_alloc``/``static_shape`` are accepted as in MXNet (the compiled program always
        reuses its buffers and is specialized on input shapes).
        """
        if kwargs:
            self._backend_opts = kwargs
        if backend is not None:
            raise HybridizeError(f"hybridize(backend={backend!r}): partitioning backends are not supported")
        self._backend = backend
        blocker = imperative_only_block(self) if active else None
        if blocker is not None and not _HYBRIDIZING[0]:  # (the outermost call speaks, once)
            where = "it" if blocker[0] is self else f"its descendant {describe(blocker[0])}"
            warnings.warn(f"{describe(self)} stays imperative: {where} cannot be hybridized (hybridize transpile "
                          f"left it imperative because of {blocker[1]}); the blocks that can be are hybridized",
                          ImperativeOnlyWarning, stacklevel=2)
        self._active = active and blocker is None
        self._fast = None
        self._fast_rec = None
        self._flags = [("static_alloc", static_alloc), ("static_shape", static_shape),
                       ("inline_limit", inline_limit)]
        if forward_bulk_size is not None:
            self._flags.append(("forward_bulk_size", forward_bulk_size))
        if backward_bulk_size is not None:
            self._flags.append(("backward_bulk_size", backward_bulk_size))
        if clear:
            self._clear_cached_op()
        if active and self._forward_hooks or self._forward_pre_hooks:
            warnings.warn('"{block}" is being hybridized while still having forward hook/pre-hook. If "{block}" '
                          "is a child of HybridBlock, the hooks will not take effect.".format(block=self),
                          stacklevel=2)
        _HYBRIDIZING[0] += 1
        try:
            super().hybridize(active, static_alloc=static_alloc, static_shape=static_shape,
                              inline_limit=inline_limit, forward_bulk_size=forward_bulk_size,
                              backward_bulk_size=backward_bulk_size)
        finally:
            _HYBRIDIZING[0] -= 1

    def cast(self, dtype: Any) -> None:
        self._clear_cached_op()
        super().cast(dtype)

    def _infer_attrs(self, attr: str, *args: Any) -> None:
        inputs, out = self._get_graph(*args)
        flat, _ = _flatten(args, "input")
        given = [a for a in flat if a is not None]
        g = out.graph()
        if attr == "shape":
            known = {i.name: tuple(a.shape) for i, a in zip(inputs, given)}
            res = infer_shapes(g, known)
        else:
            known = {i.name: np.dtype(a.dtype) for i, a in zip(inputs, given)}
            res = infer_dtypes(g, known)
        sdict = {n.name: res.get((id(n), 0)) for n in g.variables()}
        for p in self.collect_params().values():
            v = sdict.get(p.name)
            if v is None:
                continue
            if attr == "shape":
                p.shape = v
            elif np.dtype(p.dtype) != np.dtype(v):
                p.dtype = v

    def infer_shape(self, *args: Any) -> None:
        """Infers the shapes of parameters from the inputs (traces the graph if needed)."""
        self._infer_attrs("shape", *args)

    def infer_type(self, *args: Any) -> None:
        """Infers the dtypes of parameters from the inputs."""
        self._infer_attrs("dtype", *args)

    def export(self, path: str, epoch: int = 0, remove_amp_cast: bool = True) -> tuple:
        """Writes ``path-symbol.json`` and ``path-%04d.params`` (``arg:``/``aux:`` keys), as MXNet, and
        ``path-%04d.pair.json`` first, the digests that let a reader tell an interrupted export from
        a pair (:mod:`..graph.pair`)."""
        if not self._cached_graph:
            blocker = imperative_only_block(self)
            if blocker is not None:
                where = "it" if blocker[0] is self else f"its descendant {describe(blocker[0])}"
                raise HybridizeError(f"{describe(self)} cannot be exported: {where} runs only imperatively "
                                     f"(hybridize transpile left it imperative because of {blocker[1]})")
            raise RuntimeError("Please first call block.hybridize() and then run forward with this block at least "
                               "once before calling export.")
        sym = self._cached_graph[1]
        sym_file = "%s-symbol.json" % path
        from ..graph import mxnet_json
        from ..graph import params as _params
        from ..graph.pair import write_pair
        sym_bytes = mxnet_json.dumps(sym.graph()).encode("utf-8")
        arg_names = set(sym.list_arguments())
        aux_names = set(sym.list_auxiliary_states())
        arg_dict = {}
        op_args = self._cached_op_args
        if not op_args:
            params = self.collect_params()
            op_args = [(False, params[n]) for n in sym.list_inputs() if n in params]
        for is_arg, param in op_args:
            if not is_arg:
                name = param.name
                if name in arg_names:
                    arg_dict["arg:{}".format(name)] = param._reduce()
                elif name in aux_names:
                    arg_dict["aux:%s" % name] = param._reduce()
                else:
                    warnings.warn('Parameter "{name}" is not found in the graph. '.format(name=name), stacklevel=3)
        params_file = "%s-%04d.params" % (path, epoch)
        write_pair(sym_file, sym_bytes, params_file, _params.dumps(arg_dict))
        return sym_file, params_file

    def register_op_hook(self, callback: Any, monitor_all: bool = False) -> None:
        self._callback = callback
        self._monitor_all = monitor_all
        for cld in self._children.values():
            cld._callback = callback
            cld._monitor_all = monitor_all

    def forward(self, x: Any, *args: Any) -> Any:
        """Runs ``hybrid_forward`` with NDArrays (or the compiled program when hybridized), or builds
        the graph when given Symbols."""
        if type(x) is NDArray and (not args or all(type(a) is NDArray or a is None for a in args)):
            if not self._active:
                try:  # the common case: every parameter initialized
                    params = {k: v._data[0] if len(v._data) == 1 else v.data(x.context)
                              for k, v in self._reg_params.items()}
                except TypeError:
                    pass
                else:
                    try:
                        return self.hybrid_forward(_imperative_F(), x, *args, **params)
                    except Exception as e:
                        _add_block_note(e, self, "imperatively (F=ndarray)")
                        raise
            has_symbol, has_ndarray = False, True
            ctx_set, first_ctx = {a.context for a in (x, *args) if a is not None}, x.context
        else:
            has_symbol, has_ndarray, ctx_set, first_ctx = _gather_type_ctx_info([x] + list(args))
        if has_symbol and has_ndarray:
            raise ValueError("In HybridBlock, we do not support mixed NDArrays and Symbols types for the input. "
                             "Please check the type of the args.\n")
        if not has_symbol and not has_ndarray:
            raise ValueError("In HybridBlock, there must be one NDArray or one Symbol in the input. Please check "
                             "the type of the args.\n")
        if has_ndarray:
            if self._active:
                if len(ctx_set) > 1:
                    raise ValueError("Find multiple contexts in the input, After hybridized, the HybridBlock only "
                                     "supports one input context. You can print the ele.ctx in the input arguments "
                                     "to inspect their contexts. Find all contexts = {}".format(ctx_set))
                return self._call_cached_op(x, *args)
            ctx = first_ctx
            try:
                params = {k: v._data_for(ctx) for k, v in self._reg_params.items()}
            except DeferredInitializationError:
                self._deferred_infer_shape(x, *args)
                for _, v in self.params.items():
                    v._finish_deferred_init()
                try:
                    params = {k: v._data_for(ctx) for k, v in self._reg_params.items()}
                except ParameterNotInitializedError as e:
                    raise self._not_initialized(e) from None
            except ParameterNotInitializedError as e:
                raise self._not_initialized(e) from None
            try:
                return self.hybrid_forward(_imperative_F(), x, *args, **params)
            except Exception as e:
                _add_block_note(e, self, "imperatively (F=ndarray)")
                raise
        params = {i: j.var() for i, j in self._reg_params.items()}
        if is_np_array():
            params = {i: v.as_np_ndarray() for i, v in params.items()}
        return self._trace(x, *args, **params)

    def hybrid_forward(self, F: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        """Overrides to construct the computation with ``F`` (``nd`` or ``sym``)."""
        raise NotImplementedError


# ------------------------------------------------------------------------------------------
# SymbolBlock
# ------------------------------------------------------------------------------------------
def _common_prefix(names: list) -> str:
    if not names:
        return ""
    prefix = names[0]
    for name in names:
        i = 0
        while i < len(prefix) and i < len(name) and prefix[i] == name[i]:
            i += 1
        prefix = prefix[:i]
    return prefix


def _compose(sym: Symbol, mapping: dict) -> Symbol:
    """A copy of ``sym`` whose variables named in ``mapping`` are replaced by those symbols."""
    new_nodes: dict[int, Node] = {}
    var_entries: dict[int, Entry] = {}

    def remap(e: Entry) -> Entry:
        if id(e.node) in var_entries:
            return var_entries[id(e.node)]
        return Entry(new_nodes.get(id(e.node), e.node), e.index)

    for n in topo_order(sym._outputs):
        if n.op is None:
            if n.name in mapping:
                target = mapping[n.name]
                if len(target._outputs) != 1:
                    raise HybridizeError(f"cannot compose: the value for {n.name!r} has {len(target._outputs)} outputs")
                var_entries[id(n)] = target._outputs[0]
            continue
        inputs = [remap(e) for e in n.inputs]
        if all(a is b.node and i == b.index for (a, i), b in zip(((e.node, e.index) for e in n.inputs), inputs)):
            continue
        new_nodes[id(n)] = Node(n.op, n.name, n.attrs, inputs, n.extra)
    return Symbol([remap(e) for e in sym._outputs])


class SymbolBlock(HybridBlock):
    """A block computing a given symbol (``outputs``) from its input variables (``inputs``)."""

    @staticmethod
    def imports(symbol_file: str, input_names: Any, param_file: str | None = None, ctx: Any = None,
                allow_missing: bool = False, ignore_extra: bool = False) -> "SymbolBlock":
        """Imports a model written by :meth:`HybridBlock.export` (``prefix-symbol.json`` + ``.params``)."""
        if param_file is not None:
            from ..graph.pair import check_pair
            check_pair(symbol_file, param_file)
        sym = symbol.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        if param_file is None:
            inputs = [symbol.var(i, dtype=mx_real_t) for i in input_names]
        else:
            inputs = [symbol.var(i) for i in input_names]
        ret = SymbolBlock(sym, inputs)
        if param_file is not None:
            ret.collect_params().load(param_file, ctx, allow_missing, ignore_extra, cast_dtype=True,
                                      dtype_source="saved")
        return ret

    def __repr__(self) -> str:
        s = "{name}(\n{modstr}\n)"
        modstr = "{block} : {numinputs} -> {numoutputs}".format(
            block=self._cached_graph[1], numinputs=len(self._cached_graph[0]),
            numoutputs=len(self._cached_graph[1].list_outputs()))
        return s.format(name=self.__class__.__name__, modstr=modstr)

    def __init__(self, outputs: Any, inputs: Any, params: ParameterDict | None = None):
        super().__init__(prefix=None, params=None)
        self._prefix = ""
        self._params = ParameterDict("", params)
        if isinstance(inputs, Symbol) and len(inputs.list_outputs()) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        syms, self._in_format = _flatten(inputs, "input")
        out, self._out_format = _flatten(outputs, "output")
        input_names = set()
        for i in syms:
            if len(i._outputs) != 1 or i._outputs[0].node.op is not None:
                raise HybridizeError("Input symbols must be variable, but %s is an output of operators" % str(i))
            input_names.add(i.name)
        out = symbol.Group(out) if len(out) > 1 else out[0]
        g = out.graph()
        arg_params = [n.name for n in g.arguments()]
        aux_params = [n.name for n in g.aux_variables()]
        try:
            dts = infer_dtypes(g, {nm: np.float32 for nm in input_names})
            types = {n.name: dts[(id(n), 0)] for n in g.variables()}
        except Exception:  # noqa: BLE001 - fall back to float32 as MXNet does
            types = {}
        for arg in arg_params:
            if arg not in input_names:
                self.params.get(arg, allow_deferred_init=True, dtype=types.get(arg, mx_real_t))
        for aux in aux_params:
            if aux not in input_names:
                self.params.get(aux, grad_req="null", allow_deferred_init=True, dtype=types.get(aux, mx_real_t))
        self._cached_graph = syms, out
        len_prefix = len(_common_prefix(list(self._params.keys())))
        self._reg_params = {key[len_prefix:]: val for key, val in self._params.items()}

    def forward(self, x: Any, *args: Any) -> Any:
        if isinstance(x, NDArray):
            return self._call_cached_op(x, *args)
        if not isinstance(x, Symbol):
            raise TypeError("HybridBlock requires the first argument to forward be either Symbol or NDArray, "
                            "but got %s" % type(x))
        flat, in_fmt = _flatten([x] + list(args), "input")
        if in_fmt != self._in_format:
            raise ValueError("Invalid input format")
        ret = _compose(self._cached_graph[1], {k.name: v for k, v in zip(self._cached_graph[0], flat)})
        return _regroup(list(ret), self._out_format)

    def _build_cache(self, *args: Any) -> None:
        super()._build_cache(*args)

    def _clear_cached_op(self) -> None:
        tmp = self._cached_graph
        super()._clear_cached_op()
        self._cached_graph = tmp

    def __getstate__(self) -> dict:
        state = super().__getstate__()
        state["_cached_graph"] = self._cached_graph  # the block's definition (symbols pickle as JSON)
        return state

    def cast(self, dtype: Any) -> None:
        self._clear_cached_op()
        super().cast(dtype)

    def hybrid_forward(self, F: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def reset_ctx(self, ctx: Any) -> None:
        for p in self.collect_params().values():
            p.reset_ctx(ctx)
