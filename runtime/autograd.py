"""Imperative automatic differentiation, as ``mxnet.autograd`` (MXNet 1.9.1 semantics).

The tape is MXNet's (src/imperative/imperative.cc): while :func:`is_recording`, every operator
call with an input that is a marked variable (``attach_grad``, ``mark_variables``, a Gluon
Parameter) or derived from one is recorded as a :class:`_Node` (op, attributes, input entries,
the input and output values); the outputs remember ``(node, index)`` in their ``_ag`` slot.
:func:`backward` walks the recorded graph from the heads in reverse topological order and calls
each operator's gradient rule (``OpDef.gradient``, written with ``F`` = ``nd``) on the saved values,
summing the gradients that reach one entry (MXNet's ElementWiseSum), then writes (``grad_req``
'write'), adds ('add') or skips ('null') each variable's gradient buffer. Without
``retain_graph`` the graph is freed after the pass, as MXNet's ``AGInfo::Clear``: a second backward
raises MXNet's "not in a computational graph" error. With ``create_graph`` the rules themselves are
recorded, so ``grad`` of a gradient gives second order derivatives.

Ops whose forward depends on the mode (Dropout, BatchNorm) read :func:`is_training`.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from .base import HybridizeError

__all__ = [
    "Function",
    "backward",
    "get_symbol",
    "grad",
    "is_recording",
    "is_training",
    "mark_variables",
    "pause",
    "predict_mode",
    "record",
    "set_recording",
    "set_training",
    "train_mode",
]


class _State(threading.local):
    """Per-thread flags; class-level defaults keep ``_state.recording`` one attribute read (the
    frontend checks it on every operator call)."""

    recording = False
    training = False


_state = _State()

_GRAD_REQS = ("null", "write", "add")
_GRAD_REQ_MAP = {"null": 0, "write": 1, "add": 3}

_NOT_IN_GRAPH = ("Cannot differentiate node because it is not in a computational graph. You need to set "
                 "is_recording to true or use autograd.record() to save computational graphs for backward. "
                 "If you want to differentiate the same graph twice, you need to pass retain_graph=True to "
                 "backward.")
_ASSIGN_IN_GRAPH = ("Assigning to NDArrays that are already in a computational graph will cause undefined "
                    "behavior when evaluating gradients. Please call backward first to clear the graph or do "
                    "this out side of a record section. Also note that you cannot use inplace operations like "
                    "+=, *=, relu(x, out=x), y[idx]=x, etc inside a record section.")


def is_training() -> bool:
    return _state.training


def is_recording() -> bool:
    return _state.recording


def set_training(train_mode: bool) -> bool:
    prev = _state.training
    _state.training = bool(train_mode)
    return prev


def set_recording(is_record: bool) -> bool:
    prev = _state.recording
    _state.recording = bool(is_record)
    return prev


@contextmanager
def _scope(recording: bool | None, training: bool | None) -> Iterator[None]:
    prev_r, prev_t = _state.recording, _state.training
    if recording is not None:
        _state.recording = recording
    if training is not None:
        _state.training = training
    try:
        yield
    finally:
        _state.recording, _state.training = prev_r, prev_t


def record(train_mode: bool = True):
    """Scope in which operator calls on marked variables are recorded (training mode by default)."""
    return _scope(True, train_mode)


def pause(train_mode: bool = False):
    """Scope in which nothing is recorded (prediction mode by default)."""
    return _scope(False, train_mode)


def train_mode():
    return _scope(None, True)


def predict_mode():
    return _scope(None, False)


# -- the tape ------------------------------------------------------------------------------------
class _Node:
    """One recorded operator call, or a marked variable (``op`` None, ``grad`` its buffer).

    ``inputs`` holds one entry ``(node, index)`` per input, ``None`` for an input that is not in the
    graph (a constant); ``in_data``/``out_data`` are the numpy values the gradient rule reads (the
    arrays themselves, as MXNet saves its inputs by reference: an in-place change shows). ``alive``
    turns False when a backward pass without ``retain_graph`` frees the node.
    """

    __slots__ = (
        "__weakref__",
        "alive",
        "attrs",
        "fresh",
        "grad",
        "grad_req",
        "in_data",
        "inputs",
        "name",
        "op",
        "out_data",
        "rule",
        "symbol",
    )

    def __init__(self, op: Any, attrs: Any, inputs: list, in_data: list, out_data: list, rule: Any = None,
                 name: str = ""):
        self.op, self.attrs, self.inputs, self.in_data, self.out_data = op, attrs, inputs, in_data, out_data
        self.rule = rule if rule is not None else (op.gradient if op is not None else None)
        self.alive = True
        self.grad = None
        self.grad_req = "null"
        self.fresh = False
        self.name = name
        # ``get_symbol``'s view of a call MXNet records as an operator the runtime cannot run (a
        # CachedOp, an autograd.Function): (entries of its inputs, that operator's name, node name),
        # or of several MXNet records one by one: (entries, build(input symbols, names), names)
        self.symbol: Any = None

    @property
    def is_variable(self) -> bool:
        return self.op is None and self.rule is None

    def __repr__(self) -> str:
        what = self.op.name if self.op is not None else ("variable" if self.is_variable else self.name)
        return f"<autograd node {what}{'' if self.alive else ' (freed)'}>"


# the backward pass, installed by ``runtime/_autograd_engine.py`` when the runtime package loads: this module
# stays a leaf the operator kernels may import (for ``is_training``)
_engine: Any = None

_counter = [0, 0]  # variables, operator nodes: MXNet's "var<i>" / "node_<i>" names (get_symbol)


def _in_graph(arr: Any) -> bool:
    """MXNet's ``!AGInfo::IsNone(arr)``: the array is a live variable or a recorded output."""
    e = getattr(arr, "_ag", None)
    return e is not None and e[0].alive


def _entry(arr: Any) -> Any:
    e = getattr(arr, "_ag", None)
    return e if e is not None and e[0].alive else None


def _record(op: Any, attrs: Any, inputs: Sequence[Any], outputs: Sequence[Any], rule: Any = None,
            name: str = "", symbol: tuple | None = None) -> None:
    """Records one call if an input is in the graph (MXNet's ``Imperative::RecordOp``). ``inputs``
    are NDArrays or other values (constants); ``outputs`` the NDArrays returned. ``symbol``
    ``(inputs, op_name)``: how :func:`get_symbol` shows the node when MXNet records it as an operator
    the runtime cannot run (``_CachedOp`` over every input of a hybridized block's graph,
    ``_CustomFunction``); ``(inputs, build, n)``: a node standing for ``n`` operators MXNet records one
    by one (a fused loss), ``build(input symbols, their n names)`` their Symbol."""
    entries = [_entry(a) for a in inputs]
    for o in outputs:
        if _in_graph(o) and not any(o is a for a in inputs):
            raise HybridizeError(_ASSIGN_IN_GRAPH)
    if all(e is None for e in entries):
        return
    for o in outputs:
        if any(o is a for a in inputs):  # in-place (out=x): x already in the graph
            raise HybridizeError(_ASSIGN_IN_GRAPH)
    if op is not None and op.mode_dependent and attrs is not None:
        # the forward's mode, for the gradient rule (Dropout's mask, BatchNorm's batch statistics)
        attrs = type(attrs)({**attrs.as_dict(), "__is_train__": _state.training})
    node = _Node(op, attrs, entries, [getattr(a, "_data", a) for a in inputs], [o._data for o in outputs],
                 rule=rule, name=name or f"node_{_counter[1]}")
    if symbol is not None:
        n_names = symbol[2] if len(symbol) > 2 else 1
        names = [f"node_{_counter[1] + i}" for i in range(n_names)]
        node.symbol = ([_entry(a) for a in symbol[0]], symbol[1], names if len(symbol) > 2 else names[0])
        _counter[1] += n_names - 1
    _counter[1] += 1
    for k, o in enumerate(outputs):
        o._ag = (node, k)


def _mark(var: Any, grad: Any, grad_req: str) -> None:
    if grad_req not in _GRAD_REQS:
        raise ValueError(f"grad_req must be one of 'write', 'add', or 'null', but got '{grad_req}'")
    node = _Node(None, None, [], [], [var._data], name=f"var{_counter[0]}")
    _counter[0] += 1
    node.grad = grad
    node.grad_req = grad_req
    var._ag = (node, 0)


def mark_variables(variables: Any, gradients: Any, grad_reqs: Any = "write") -> None:
    """Mark NDArrays as variables to compute gradient for autograd (``attach_grad`` with a given
    gradient buffer)."""
    if _is_array(variables):
        assert _is_array(gradients)
        variables, gradients = [variables], [gradients]
    reqs = [grad_reqs] * len(variables) if isinstance(grad_reqs, str) else list(grad_reqs)
    for v, g, r in zip(variables, gradients, reqs):
        _mark(v, g, r)


def _is_array(v: Any) -> bool:
    return hasattr(v, "_ag")  # an NDArray (this leaf module does not import the front end)


def _parse_head(heads: Any, head_grads: Any) -> tuple[list, list | None]:
    if _is_array(heads):
        heads = [heads]
    if _is_array(head_grads):
        head_grads = [head_grads]
    heads = list(heads)
    if head_grads is not None:
        assert len(heads) == len(head_grads), "heads and head_grads must be lists of the same length"
        head_grads = list(head_grads)
    return heads, head_grads


def backward(heads: Any, head_grads: Any = None, retain_graph: bool = False,
             train_mode: bool = True) -> None:
    """Compute the gradients of heads w.r.t previously marked variables (into their ``.grad``)."""
    heads, head_grads = _parse_head(heads, head_grads)
    _engine.run_backward(heads, head_grads, None, retain_graph, False, train_mode)


def grad(heads: Any, variables: Any, head_grads: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, train_mode: bool = True) -> list:
    """Gradients of heads w.r.t variables, returned as new NDArrays (``.grad`` is untouched);
    ``create_graph`` records them, for higher order gradients. A list even for one variable: MXNet
    1.9.1 rebinds ``variables`` to a list before its single-variable check, so it always returns one."""
    heads, head_grads = _parse_head(heads, head_grads)
    if _is_array(variables):
        variables = [variables]
    else:
        assert len(variables), "variables cannot be an empty list."
    retain_graph = retain_graph if retain_graph is not None else create_graph
    return _engine.run_backward(heads, head_grads, list(variables), retain_graph, create_graph, train_mode)


def get_symbol(x: Any) -> Any:
    """The recorded computation history of ``x`` as a Symbol (variables ``var<i>``, constants
    ``null<i>``, operators ``node_<i>``, as MXNet names them)."""
    assert hasattr(x, "_ag"), f"get_symbol: Invalid argument type, expecting NDArray, got {type(x)}"
    if not _in_graph(x):
        raise HybridizeError(_NOT_IN_GRAPH)
    return _engine.get_symbol(x)


class Function:
    """Customize differentiation in autograd, as ``mxnet.autograd.Function``: ``forward`` runs with
    recording paused; when called while recording, the outputs are recorded as one node whose
    gradient is the user's ``backward`` (given as many NDArrays as forward's outputs, it returns as
    many as forward's inputs)."""

    def __init__(self) -> None:
        self._used = False
        self.saved_tensors: tuple = ()

    def save_for_backward(self, *args) -> None:
        self.saved_tensors = args

    def __call__(self, *inputs):
        assert not self._used, "Each Function instance can only be called once. Please create another instance."
        self._used = True
        prev = set_recording(False)
        try:
            outputs = self.forward(*inputs)
        finally:
            set_recording(prev)
        if not prev:
            return outputs
        ret = outputs
        if _is_array(outputs):
            outputs = (outputs,)
        fn = self

        def rule(F, attrs, ins, outs, out_grads):
            rets = fn.backward(*out_grads)
            if _is_array(rets):
                rets = (rets,)
            assert len(rets) == len(ins), (
                f"{fn.__class__.__name__}.backward must return exactly the same number of NDArrays as the "
                f"number of NDArrays arguments to forward.Expecting {len(ins)} got {len(rets)}")
            for r in rets:
                assert _is_array(r), f"autograd.Function.backward must return NDArrays, not {type(r)}"
            return list(rets)
        _record(None, None, list(inputs), list(outputs), rule=rule, name=type(self).__name__,
                symbol=(list(inputs), "_CustomFunction"))
        return ret

    def forward(self, *inputs):
        """Forward computation."""
        raise NotImplementedError

    def backward(self, *output_grads):
        """Backward computation: as many NDArrays as forward's inputs."""
        raise NotImplementedError
