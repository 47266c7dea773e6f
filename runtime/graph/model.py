"""Running an exported model: symbol JSON + parameters -> outputs (what ``hybridize run`` and
``SymbolBlock``-style callers use).

    model = Model.load("net-symbol.json", "net-0000.params")   # params optional (default: sibling)
    model.input_names             # variables without a parameter value, e.g. ["data"]
    y, = model.run({"data": x})   # or model.run(x) for a sole input; list of numpy arrays

Checks before running, each a typed error that names the culprit:
- a variable that is neither an input nor a parameter: ``LoadError(params file, "missing parameter 'w' ...")``;
- a parameter whose shape does not fit the graph: ``LoadError(params file, ...)``;
- an input whose shape does not fit: ``ShapeError("input 'data': got shape ..., expected ...: <op where it clashes>")``.

Execution goes through the executor registry (``executors.py``, the one place that chooses): the
compiled executor by default, the reference interpreter (``HYBRIDIZE_EXECUTOR=interpret``) or
onnxruntime (``executor="onnxruntime"``). Programs are cached per input signature.
"""
from __future__ import annotations

import glob
import os
import re
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..base import HybridizeError, LoadError, OutOfMemoryError, ShapeError
from . import executors, mxnet_json
from . import params as _params
from .pair import check_pair
from .infer import infer_shapes, var_dtype_hint, var_shape_hint
from .load_limit import fmt_bytes
from .ir import Graph, Node

__all__ = ["Model", "default_params_path"]


def default_params_path(symbol_path: str | os.PathLike) -> str | None:
    """``prefix-symbol.json`` -> ``prefix-0000.params`` (or the highest epoch present), else None."""
    s = os.fspath(symbol_path)
    if not s.endswith("-symbol.json"):
        return None
    prefix = s[: -len("-symbol.json")]
    first = prefix + "-0000.params"
    if os.path.isfile(first):
        return first
    found = sorted(p for p in glob.glob(glob.escape(prefix) + "-*.params")
                   if re.fullmatch(r"\d{4,}", p[len(prefix) + 1:-len(".params")]))
    return found[-1] if found else None


def _physical_memory() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def _fmt_shape(s: Sequence[int] | None) -> str:
    if s is None:
        return "?"
    dims = ["?" if int(d) <= 0 else str(int(d)) for d in s]
    return "(" + dims[0] + ",)" if len(dims) == 1 else "(" + ", ".join(dims) + ")"


class Model:
    """A graph plus parameter values; see the module docstring."""

    def __init__(self, graph: Graph, params: Mapping[str, Any] | None = None, *,
                 symbol_path: str | os.PathLike | None = None,
                 params_path: str | os.PathLike | None = None, executor: str | None = None):
        self.graph = graph
        self.symbol_path = None if symbol_path is None else os.fspath(symbol_path)
        self.params_path = None if params_path is None else os.fspath(params_path)
        self.executor_kind = executor
        values = _params.strip_prefixes(params or {}, self.params_path)
        self.params: dict[str, np.ndarray] = {}
        for k, v in values.items():
            if v is None:
                continue
            arr = v.asnumpy() if hasattr(v, "asnumpy") else np.asarray(v)
            self.params[k] = arr
        self._vars = graph.variables()
        self._by_name = {n.name: n for n in self._vars}
        self._inputs = [n.name for n in self._vars if n.name not in self.params]
        self._dtypes = {n.name: var_dtype_hint(n) or np.dtype(np.float32) for n in self._vars}
        self._programs: dict[tuple, Callable] = {}
        self._param_shapes: dict[int, tuple] | None = None

    def __reduce__(self) -> tuple:
        """Pickled as graph (JSON) + parameter arrays + options; compiled programs are not
        carried along (generated code): the unpickled model compiles on its first run."""
        return (_restore, (self.graph, self.params, self.symbol_path, self.params_path, self.executor_kind))

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def load(cls, symbol_path: str | os.PathLike, params_path: str | os.PathLike | None = None, *,
             executor: str | None = None, max_bytes: Any = None) -> "Model":
        """Reads ``symbol_path`` and ``params_path`` (default: the ``prefix-0000.params`` sibling
        when it exists; a graph without parameters needs none). ``max_bytes``: the load limit
        for the parameter file (:mod:`.load_limit`; default ``$HYBRIDIZE_MAX_LOAD_BYTES`` or 2 GiB)."""
        graph = mxnet_json.load(symbol_path)
        if params_path is None:
            params_path = default_params_path(symbol_path)
        values: Any = {}
        if params_path is not None:
            check_pair(symbol_path, params_path)
            values = _params.load(params_path, max_bytes)
            if isinstance(values, list):
                if values:
                    raise LoadError(params_path, "holds a nameless list of arrays; parameters need names")
                values = {}
        return cls(graph, values, symbol_path=symbol_path, params_path=params_path, executor=executor)

    # -- structure ---------------------------------------------------------------------------
    @property
    def input_names(self) -> list[str]:
        """Variables without a parameter value, in graph order (the data inputs)."""
        return list(self._inputs)

    @property
    def output_names(self) -> list[str]:
        return [e.node.output_names()[e.index] for e in self.graph.outputs]

    def input_dtype(self, name: str) -> np.dtype:
        """The dtype input ``name`` is fed as (its ``__dtype__`` hint, else float32): arrays of
        another dtype are cast to it by :meth:`run`, as MXNet's executors do."""
        return self._dtypes[name]

    def _consumer(self, var: Node) -> str:
        for n in self.graph.nodes:
            if any(e.node is var for e in n.inputs):
                return f"{n.op.name} {n.name!r}"  # type: ignore[union-attr]
        return "nothing"

    def _blame_file(self) -> str | None:
        return self.params_path or self.symbol_path

    # -- checks ------------------------------------------------------------------------------
    def bind_inputs(self, inputs: Any) -> dict[str, np.ndarray]:
        """``inputs`` (a dict by name, a sequence in :attr:`input_names` order, or one array for a
        sole input) -> {name: array}; raises naming a missing parameter or a missing input."""
        names = self._inputs
        if isinstance(inputs, Mapping):
            given = dict(inputs)
        elif isinstance(inputs, (list, tuple)):
            if len(inputs) > len(names):
                raise HybridizeError(f"the model takes {len(names)} input(s) ({', '.join(names)}), "
                                     f"got {len(inputs)}")
            given = dict(zip(names, inputs))
        else:
            given = {names[0]: inputs} if names else {"": inputs}
        for k in given:
            if k not in self._by_name:
                raise HybridizeError(f"the model has no input {k!r} (its inputs: {', '.join(names) or 'none'})")
            if k in self.params:
                raise HybridizeError(f"{k!r} is a parameter of the model, not an input "
                                     f"(its inputs: {', '.join(names) or 'none'})")
        missing = [self._by_name[n] for n in names if n not in given]
        if missing:
            # a variable neither given nor in the parameters: name it, and who needs it
            var = missing[0]
            if len(given) == 0 and len(missing) == 1:
                raise HybridizeError(f"no value for input {var.name!r}")
            hint = ""
            if self.params and not any(n.name in self.params for n in self.graph.variables()):
                some = next(iter(self.params))
                hint = (f"; the file's names (such as {some!r}) match none of the graph's variables"
                        + (": save_parameters' structural names need export's prefix-0000.params"
                           if "." in some else ""))
            raise LoadError(self._blame_file(), f"missing parameter {var.name!r} "
                                                f"(needed by {self._consumer(var)}){hint}")
        out: dict[str, np.ndarray] = {}
        for k, v in given.items():
            arr = v.asnumpy() if hasattr(v, "asnumpy") else np.asarray(v)
            want = self._dtypes[k]
            if arr.dtype != want:
                arr = arr.astype(want)  # MXNet feeds data as the variable's dtype (float32)
            out[k] = arr
        return out

    def _params_only_shapes(self) -> dict[int, tuple]:
        """Variable shapes implied by the parameters alone (for 'expected ...' hints)."""
        if self._param_shapes is None:
            known = {k: v.shape for k, v in self.params.items()}
            try:
                shapes = infer_shapes(self.graph, known)
            except ShapeError:
                shapes = {}
            self._param_shapes = {id(n): shapes.get((id(n), 0)) for n in self.graph.variables()}
        return self._param_shapes

    def check_shapes(self, inputs: Mapping[str, np.ndarray]) -> dict:
        """Shape inference with the inputs and parameters; raises ``ShapeError`` naming the input
        (got vs expected) and the operator where shapes clash."""
        known: dict[str, tuple] = {k: tuple(v.shape) for k, v in self.params.items()}
        known.update({k: tuple(v.shape) for k, v in inputs.items()})
        try:
            return infer_shapes(self.graph, known)
        except ShapeError as e:
            problem = str(e)
        # parameters alone inconsistent? then the parameter file is to blame
        try:
            infer_shapes(self.graph, {k: tuple(v.shape) for k, v in self.params.items()})
        except ShapeError as e:
            if "cannot infer" not in str(e):
                raise LoadError(self._blame_file(), f"parameters do not fit the graph: {e}") from None
        hints = self._params_only_shapes()
        by_name = {n.name: n for n in self.graph.variables()}
        parts = []
        for k, v in inputs.items():
            node = by_name[k]
            exp = var_shape_hint(node) or hints.get(id(node))
            text = f"input {k!r}: got shape {_fmt_shape(v.shape)}"
            if exp is not None:
                text += f", expected {_fmt_shape(exp)}"
            parts.append(text)
        raise ShapeError("; ".join(parts) + f", which does not fit the model at {problem}")

    # -- running -----------------------------------------------------------------------------
    def run(self, inputs: Any) -> list[np.ndarray]:
        """The model's outputs (numpy arrays, in graph output order)."""
        values = self.bind_inputs(inputs)
        key = tuple((k, v.shape, v.dtype.str) for k, v in sorted(values.items()))
        prog = self._programs.get(key)
        if prog is None:
            self._check_sizes(self.check_shapes(values))
            prog = executors.program(self.graph, list(values), {k: v.shape for k, v in values.items()},
                                     {k: v.dtype for k, v in values.items()}, self.params, kind=self.executor_kind)
            self._programs[key] = prog
        try:
            return list(prog(**values))
        except OutOfMemoryError:
            raise
        except MemoryError as e:
            raise HybridizeError(f"out of memory running the model ({e})") from None

    def _check_sizes(self, shapes: Mapping) -> None:
        """A graph may declare outputs no machine holds (``_zeros`` of shape (2**20, 2**20), a
        ``Reshape`` to 2**40 elements): refused before anything runs, naming the node, when one
        output has more elements than this machine has bytes of memory."""
        memory = _physical_memory()
        if memory is None:
            return
        for n in self.graph.nodes:
            if n.op is None:
                continue
            for i in range(n.num_outputs):
                shape = shapes.get((id(n), i))
                if shape is None:
                    continue
                count = 1
                for d in shape:
                    count *= max(int(d), 0)
                if count > memory:
                    raise LoadError(self.symbol_path, f"node {n.name!r} ({n.op.name}) would produce shape "
                                                      f"{_fmt_shape(shape)}: {count} elements, more than this "
                                                      f"machine's {fmt_bytes(memory)} of memory")

    __call__ = run


def _restore(graph: Graph, params: dict, symbol_path: str | None, params_path: str | None,
             executor_kind: str | None) -> Model:
    """Unpickling a :class:`Model` (its parameters are already stripped of arg:/aux: prefixes)."""
    model = Model(graph, params, symbol_path=symbol_path, executor=executor_kind)
    model.params_path = params_path
    return model
