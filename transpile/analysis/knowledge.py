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

#: Legacy ``F`` operators whose signature is ``op(*data, ...)``: every positional argument written
#: out (not ``*``-unpacked) is one tensor. (``F.np.concatenate``/``F.np.stack`` take a sequence.)
VARIADIC_TENSOR_OPS = frozenset({"concat", "Concat", "stack", "add_n", "ElementWiseSum", "Custom"})

#: Functions of ``mxnet.ndarray`` that ``mxnet.symbol`` does not have: ``F.array(...)`` works
#: imperatively and raises ``AttributeError`` once the block is hybridized (F is mxnet.symbol).
NDARRAY_ONLY_FUNCTIONS = frozenset({
    "array", "empty", "concatenate", "moveaxis", "onehot_encode", "imdecode", "from_numpy",
    "from_dlpack",
})

#: Methods of NDArray, Symbol and ``mx.np.ndarray`` (MXNet 1.x/2.x): calling one of these on an
#: undecided value says it is a tensor. A call of any other method (``lds.log_prob(...)``,
#: ``distr.sample()``) says nothing: undecided values are often objects built from tensors.
TENSOR_METHODS = frozenset({
    # NDArray/Symbol fluent operators
    "reshape", "reshape_like", "zeros_like", "ones_like", "broadcast_axes", "broadcast_axis",
    "broadcast_to", "broadcast_like", "repeat", "pad", "swapaxes", "split", "split_v2", "slice",
    "slice_axis", "slice_like", "take", "one_hot", "pick", "sort", "topk", "argmax",
    "argmax_channel", "argmin", "argsort", "clip", "abs", "sign", "flatten", "shape_array",
    "size_array", "expand_dims", "tile", "transpose", "flip", "depth_to_space", "space_to_depth",
    "diag", "sum", "nansum", "prod", "nanprod", "mean", "max", "min", "norm", "round", "rint",
    "fix", "floor", "ceil", "trunc", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "degrees",
    "radians", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "exp", "expm1", "log",
    "log10", "log2", "log1p", "log_sigmoid", "sqrt", "rsqrt", "cbrt", "rcbrt", "square",
    "reciprocal", "relu", "sigmoid", "softmax", "log_softmax", "softmin", "mish", "squeeze",
    "erf", "erfinv", "gamma", "gammaln",
    # NDArray/Symbol methods
    "astype", "copy", "copyto", "as_in_context", "as_in_ctx", "to_device", "tostype", "detach",
    "attach_grad", "backward", "asnumpy", "asscalar", "item", "tolist", "wait_to_read",
    "as_np_ndarray", "as_nd_ndarray", "to_dlpack_for_read", "to_dlpack_for_write",
    "list_outputs", "list_arguments", "list_auxiliary_states", "list_inputs", "get_internals",
    "get_children", "infer_shape", "infer_shape_partial", "infer_type", "attr", "list_attr",
    "attr_dict", "tojson", "bind", "simple_bind", "eval", "optimize_for",
    # mx.np.ndarray
    "all", "any", "cumsum", "dot", "nonzero", "ravel", "std", "var", "diagonal",
    "__getitem__", "__setitem__",
})

#: Attributes of NDArray/Symbol (besides :data:`METADATA_ATTRS`): reading one says "tensor".
TENSOR_ATTRS = frozenset({"T", "grad", "handle", "writable"})

#: Methods of a ``Parameter`` that return its NDArray(s): read in ``hybrid_forward`` they bypass
#: the Symbol Gluon passes for the parameter (HY007).
PARAMETER_DATA_METHODS = frozenset({"data", "list_data", "row_sparse_data", "list_row_sparse_data"})

#: Constructors of parameters in ``__init__`` (last path component): ``self.params.get(...)``,
#: ``self.params.get_constant(...)``, ``gluon.Parameter(...)``, ``gluon.Constant(...)``.
PARAMETER_FACTORIES = frozenset({"get", "get_constant", "Parameter", "Constant"})

#: NDArray methods that need the concrete value (HY001).
CONCRETE_METHODS = frozenset({"asnumpy", "asscalar", "item", "tolist", "wait_to_read"})

#: MXNet 1.9.1's recurrent cells (``gluon.rnn``, ``gluon.contrib.rnn``): ``hybrid_forward(self, F,
#: inputs, states, ...)`` receives ``states`` as a *list* of tensors (``RecurrentCell.forward``'s
#: contract), the one documented exception to "inputs of ``hybrid_forward`` are tensors".
RECURRENT_CELLS = frozenset({
    "RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell", "GRUCell", "SequentialRNNCell",
    "HybridSequentialRNNCell", "DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell",
    "BidirectionalCell", "VariationalDropoutCell", "LSTMPCell",
    "Conv1DRNNCell", "Conv2DRNNCell", "Conv3DRNNCell", "Conv1DLSTMCell", "Conv2DLSTMCell",
    "Conv3DLSTMCell", "Conv1DGRUCell", "Conv2DGRUCell", "Conv3DGRUCell",
})

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

#: Python-level random number generators (qualified call prefixes): a draw in ``hybrid_forward``
#: happens once while tracing (HY008). ``mx.random``/``F.random`` are MXNet's and draw per batch.
PYTHON_RANDOM_PREFIXES = ("numpy.random.", "random.")

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


_IMPERATIVE = {("nd",), ("ndarray",), ("np",), ("numpy",), ("npx",), ("numpy_extension",), ("random",)}
_SYMBOLIC = {("sym",), ("symbol",)}


def api_family(qual: str) -> Optional[str]:
    """``"ndarray"`` or ``"symbol"`` if ``qual`` is (inside) MXNet's imperative/symbolic API."""
    parts = strip_mxnet(qual)
    if not parts:
        return None
    head = tuple(parts[:1])
    if head == ("contrib",) and len(parts) > 1:  # mxnet.contrib.ndarray / mxnet.contrib.symbol
        head = tuple(parts[1:2])
        if head not in _IMPERATIVE | _SYMBOLIC or head in {("random",), ("np",), ("numpy",), ("npx",)}:
            return None
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
    """``mxnet.ndarray`` (or its ``ndarray`` submodule, which ``F`` never is: a test ``F is
    nd.ndarray`` is false while tracing, so its branch is imperative-only all the same)."""
    parts = strip_mxnet(qual)
    return parts in (["nd"], ["ndarray"], ["nd", "ndarray"], ["ndarray", "ndarray"])


def is_symbol_module(qual: str) -> bool:
    parts = strip_mxnet(qual)
    return parts in (["sym"], ["symbol"])


def op_name(path: str) -> str:
    """Last component of an ``F`` path: ``F.contrib.foreach`` -> ``foreach``."""
    return path.rsplit(".", 1)[-1]
