"""``Custom``: operators written in Python (``mxnet.operator.CustomOpProp``, see ``runtime/operator.py``).

Attributes: ``op_type`` plus whatever keyword arguments the call gave, kept as strings (the prop is
built with them, as MXNet does). Inputs and outputs are those the registered prop lists; shapes
and dtypes come from its ``infer_shape`` / ``infer_type``. The kernel runs the prop's
``CustomOp.forward`` on NDArrays: a new operator per imperative call, one per node of a compiled
graph (``prepare``), as MXNet creates one per call / per executor.

The prop classes, the operator's creation and its forward on NDArrays belong to the front end
(``runtime/operator.py``), which installs itself here as the host (:func:`install_host`) when it
is imported: ``ops/`` is the bottom layer and imports nothing above it. Nothing can be registered
before that module is imported, so a missing host is a missing registration.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Protocol

import numpy as np

from ..base import HybridizeError, ShapeError
from ._util import known
from .attrs import Param, Str
from .registry import Attrs, OpDef, defgrad, register

_PROPS: "OrderedDict[Attrs, object]" = OrderedDict()


class CustomHost(Protocol):
    """What the front end provides to run Custom ops."""

    def prop_class(self, op_type: str) -> type: ...
    def create(self, prop: Any, shapes: list, dtypes: list) -> Any: ...
    def forward(self, op_type: str, op: Any, arrays: tuple, out_shapes: list, out_dtypes: list) -> list: ...
    def backward(self, op_type: str, op: Any, out_grads: tuple, arrays: tuple, outputs: tuple) -> list: ...


_HOST: CustomHost | None = None


def install_host(host: CustomHost) -> None:
    """Called by ``runtime/operator.py`` on import."""
    global _HOST
    _HOST = host


def _host(op_type: str) -> CustomHost:
    if _HOST is None:
        raise HybridizeError(f"Cannot find custom operator {op_type!r}: register its CustomOpProp with "
                             f"@mxnet.operator.register({op_type!r})")
    return _HOST


def _prop(attrs: Attrs):
    """The CustomOpProp instance for these attributes (props are built from strings only)."""
    hit = _PROPS.get(attrs)
    if hit is not None:
        return hit
    cls = _host(attrs.op_type).prop_class(attrs.op_type)
    kwargs = {k: v for k, v in attrs.as_dict().items() if k != "op_type"}
    prop = cls(**kwargs)
    if list(prop.list_auxiliary_states()):
        raise HybridizeError(f"Custom {attrs.op_type!r}: auxiliary states are not supported by this runtime")
    _PROPS[attrs] = prop
    if len(_PROPS) > 256:
        _PROPS.popitem(last=False)
    return prop


def _inputs(attrs: Attrs) -> list:
    return list(_prop(attrs).list_arguments())


def _n_outputs(attrs: Attrs) -> int:
    return len(_prop(attrs).list_outputs())


def _infer_shape(attrs: Attrs, in_shapes: list):
    prop = _prop(attrs)
    n_out = len(prop.list_outputs())
    if not all(known(s) for s in in_shapes):
        return list(in_shapes), [None] * n_out
    ret = prop.infer_shape([[int(d) for d in s] for s in in_shapes])
    if len(ret) not in (2, 3):
        raise ShapeError(f"Custom {attrs.op_type!r}: infer_shape must return 2 or 3 lists")
    ins, outs = ret[0], ret[1]
    if len(outs) != n_out or len(ins) != len(in_shapes):
        raise ShapeError(f"Custom {attrs.op_type!r}: infer_shape returned {len(ins)} input and {len(outs)} "
                         f"output shapes, expected {len(in_shapes)} and {n_out}")
    return [tuple(int(d) for d in s) for s in ins], [tuple(int(d) for d in s) for s in outs]


def _infer_type(attrs: Attrs, in_dtypes: list) -> list:
    prop = _prop(attrs)
    types = [np.dtype(d if d is not None else np.float32).type for d in in_dtypes]
    ret = prop.infer_type(types)
    if len(ret) not in (2, 3):
        raise HybridizeError(f"Custom {attrs.op_type!r}: infer_type must return 2 or 3 lists")
    return [np.dtype(t) for t in ret[1]]


def _create(attrs: Attrs, shapes: list, dtypes: list):
    return _host(attrs.op_type).create(_prop(attrs), [[int(d) for d in s] for s in shapes],
                                       [np.dtype(d) for d in dtypes])


def _run(attrs: Attrs, op, arrays: tuple):
    shapes = [a.shape for a in arrays]
    _, out_shapes = _infer_shape(attrs, shapes)
    out_dtypes = _infer_type(attrs, [a.dtype for a in arrays])
    outs = _host(attrs.op_type).forward(attrs.op_type, op, arrays, out_shapes, out_dtypes)
    return outs[0] if len(outs) == 1 else tuple(outs)


def _custom(attrs: Attrs, *arrays):
    """Custom: runs the registered CustomOp's forward (a new operator per call)."""
    return _run(attrs, _create(attrs, [a.shape for a in arrays], [a.dtype for a in arrays]), arrays)


def _custom_prepare(attrs: Attrs, in_shapes: list, in_dtypes: list | None):
    dtypes = in_dtypes or [np.float32] * len(in_shapes)
    op = _create(attrs, in_shapes, dtypes)
    return lambda *arrays: _run(attrs, op, arrays)


class _CustomOpDef(OpDef):
    def output_names(self, attrs: Attrs) -> list[str]:
        return list(_prop(attrs).list_outputs())


register(_CustomOpDef(
    "Custom", _custom, params=(Param("op_type", Str),), inputs=_inputs, num_outputs=_n_outputs,
    infer_shape=_infer_shape, infer_type=_infer_type, prepare=_custom_prepare, mode_dependent=True,
    open_attrs=True,
))


# -- gradient (MXNet 1.9.1: src/operator/custom/custom.cc registers FGradient for every Custom op: its
# backward runs the CustomOp's ``backward`` with the output gradients, the inputs and the outputs) --------
def _backward_custom(attrs: Attrs, *arrays):
    """Custom backward: a new operator runs ``forward`` (its state, as MXNet's instance has it after the
    forward pass) and then ``backward``, which writes the input gradients."""
    n_out, n_in = _n_outputs(attrs), len(_inputs(attrs))
    ogs, ins, outs = arrays[:n_out], arrays[n_out:n_out + n_in], arrays[n_out + n_in:]
    op = _create(attrs, [a.shape for a in ins], [a.dtype for a in ins])
    grads = _host(attrs.op_type).backward(attrs.op_type, op, ogs, ins, outs)
    return grads[0] if n_in == 1 else tuple(grads)


def _backward_inputs(attrs: Attrs) -> list:
    outs = list(_prop(attrs).list_outputs())
    return [f"ograd_{o}" for o in outs] + _inputs(attrs) + [f"out_{o}" for o in outs]


def _backward_shape(attrs: Attrs, in_shapes: list):
    n_out, n_in = _n_outputs(attrs), len(_inputs(attrs))
    return list(in_shapes), list(in_shapes[n_out:n_out + n_in])


def _backward_type(attrs: Attrs, in_dtypes: list) -> list:
    n_out, n_in = _n_outputs(attrs), len(_inputs(attrs))
    return [np.dtype(d if d is not None else np.float32) for d in in_dtypes[n_out:n_out + n_in]]


register(OpDef("_backward_Custom", _backward_custom, params=(Param("op_type", Str),), inputs=_backward_inputs,
               num_outputs=lambda a: len(_inputs(a)), infer_shape=_backward_shape, infer_type=_backward_type,
               mode_dependent=True, open_attrs=True, doc="Custom backward: the CustomOp's backward."))


def _custom_grad(F, attrs, inputs, outputs, out_grads):
    g = F._internal._backward_Custom(*out_grads, *inputs, *outputs, **attrs.as_dict())
    n = len(inputs)
    return [g] if n == 1 and not isinstance(g, (list, tuple)) else [g[i] for i in range(n)]


defgrad("Custom")(_custom_grad)
