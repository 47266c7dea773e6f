"""Facts about MXNet and Python the dataflow needs, kept in one place.

These are facts about *APIs* (``F.split`` returns several outputs, ``list.append`` is a list
method, ``mxnet.ndarray`` is the imperative module), never guesses about user variable names.
"""
from __future__ import annotations

from typing import Optional

#: ``F`` operators (last path component) that return several outputs; indexing, iterating and
#: unpacking their result is fine.
MULTI_OUTPUT_OPS = frozenset({
    "split", "SliceChannel", "split_v2", "array_split", "hsplit", "vsplit", "dsplit",
    "foreach", "while_loop", "gelqf", "syevd", "moments", "slogdet", "svd", "eigh", "qr",
    "MultiBoxTarget", "meshgrid", "broadcast_arrays", "unravel_index", "bipartite_matching",
    "box_encode", "hawkesll", "quantize", "quantize_v2", "requantize", "amp_multicast",
    "dgl_csr_neighbor_uniform_sample", "dgl_csr_neighbor_non_uniform_sample", "dgl_subgraph",
    "dgl_graph_compact", "multi_all_finite", "multi_sum_sq",
})

#: Control-flow operators returning ``(outputs, states)`` whose parts may be lists themselves.
NESTED_OUTPUT_OPS = frozenset({"foreach", "while_loop"})

#: Operators that return several outputs only when a keyword asks for it: name -> (kw, values).
CONDITIONAL_MULTI_OUTPUT = {
    "topk": ("ret_typ", {"'both'", '"both"'}),
    "RNN": ("state_outputs", {"True"}),
    "rnn": ("state_outputs", {"True"}),
    "BatchNorm": ("output_mean_var", {"True"}),
    "LayerNorm": ("output_mean_var", {"True"}),
    "Proposal": ("output_score", {"True"}),
    "MultiProposal": ("output_score", {"True"}),
    "batch_norm": ("output_mean_var", {"True"}),
    "unique": ("return_index", {"True"}),
}

#: ``F`` operators taking Python sequences of tensors or functions: passing a value to them
#: says nothing about whether it is a single tensor.
SEQUENCE_TAKING_OPS = frozenset({
    "Group", "foreach", "while_loop", "cond", "concatenate", "stack", "vstack", "hstack",
    "dstack", "column_stack", "einsum", "Custom", "add_n", "ElementWiseSum", "concat", "append",
})

#: NDArray methods that need the concrete value (HY001).
CONCRETE_METHODS = frozenset({"asnumpy", "asscalar", "item", "tolist", "wait_to_read"})

#: Tensor metadata that a Symbol does not have (HY006).
METADATA_ATTRS = frozenset({"shape", "size", "ndim", "dtype", "context", "ctx", "stype"})

#: Methods of list/tuple/dict: calling one says the receiver is a container, not a tensor.
#: (``sort``/``reverse`` are left out: NDArray and Symbol have a ``sort`` method too.)
CONTAINER_METHODS = frozenset({
    "append", "extend", "insert", "pop", "remove", "index", "count", "clear", "keys", "values",
    "items", "get", "update", "setdefault", "popitem", "discard",
})

#: Methods that put a value into a container (HY008 when the container lives on ``self``).
STORING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "appendleft"})

#: Builtins that iterate over their (first or every) argument.
ITERATING_BUILTINS = frozenset({
    "enumerate", "zip", "list", "tuple", "sorted", "reversed", "map", "filter", "iter", "set",
    "frozenset", "sum", "any", "all", "dict",
})

#: Builtins converting to a Python number or bool (HY009).
NUMERIC_BUILTINS = frozenset({"float", "int", "bool", "complex", "round"})

#: numpy functions that materialise an array (HY001 rather than HY009).
NUMPY_MATERIALISE = frozenset({"asarray", "array", "asanyarray", "ascontiguousarray", "copy"})

#: Logging calls (module functions or logger methods) that format their arguments.
LOGGING_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "fatal"})

#: Builtins whose result is static whatever their arguments.
STATIC_BUILTINS = frozenset({
    "isinstance", "issubclass", "len", "hasattr", "callable", "id", "type", "repr", "str",
    "format", "range", "print", "getattr", "setattr", "super", "object", "NotImplementedError",
    "ValueError", "TypeError", "RuntimeError", "AssertionError", "KeyError", "IndexError",
})


def strip_mxnet(qual: str) -> Optional[list[str]]:
    """Path inside the ``mxnet`` package, or ``None`` if ``qual`` is not from mxnet.

    A relative import (``from ... import ndarray``) only occurs inside a package; it counts as
    mxnet's own when it names one of mxnet's modules, which is how Gluon's sources import them.
    """
    if not qual:
        return None
    if qual.startswith("."):
        return qual.lstrip(".").split(".")
    parts = qual.split(".")
    if parts[0] == "mxnet":
        return parts[1:]
    return None


_IMPERATIVE = {("nd",), ("ndarray",), ("np",), ("numpy",), ("npx",), ("numpy_extension",)}
_SYMBOLIC = {("sym",), ("symbol",)}


def api_family(qual: str) -> Optional[str]:
    """``"ndarray"`` or ``"symbol"`` if ``qual`` is (inside) MXNet's imperative/symbolic API."""
    parts = strip_mxnet(qual)
    if not parts:
        return None
    head = tuple(parts[:1])
    if head in _IMPERATIVE:
        return "ndarray"
    if head in _SYMBOLIC:
        return "symbol"
    return None


def is_ndarray_class(qual: str) -> bool:
    """``mxnet.ndarray.NDArray`` however it was imported."""
    parts = strip_mxnet(qual)
    return bool(parts) and parts[-1] == "NDArray" and api_family(qual) == "ndarray"


def is_symbol_class(qual: str) -> bool:
    parts = strip_mxnet(qual)
    return bool(parts) and parts[-1] == "Symbol" and api_family(qual) == "symbol"


def is_ndarray_module(qual: str) -> bool:
    parts = strip_mxnet(qual)
    return parts in (["nd"], ["ndarray"])


def is_symbol_module(qual: str) -> bool:
    parts = strip_mxnet(qual)
    return parts in (["sym"], ["symbol"])


def op_name(path: str) -> str:
    """Last component of an ``F`` path: ``F.contrib.foreach`` -> ``foreach``."""
    return path.rsplit(".", 1)[-1]
