"""``Custom``: operators written in Python (``mxnet.operator.CustomOpProp``, see ``runtime/operator.py``).

Attributes: ``op_type`` plus whatever keyword arguments the call gave, kept as strings (the prop is
built with them, as MXNet does). Inputs and outputs are those the registered prop lists; shapes
and dtypes come from its ``infer_shape`` / ``infer_type``. The kernel runs the prop's
``CustomOp.forward`` on NDArrays: a new operator per imperative call, one per node of a compiled
graph (``prepare``), as MXNet creates one per call / per executor.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ..base import HybridizeError, ShapeError
from .attrs import Param, Str
from .registry import Attrs, OpDef, register

_PROPS: "OrderedDict[Attrs, object]" = OrderedDict()


def _prop(attrs: Attrs):
    """The CustomOpProp instance for these attributes (props are built from strings only)."""
    hit = _PROPS.get(attrs)
    if hit is not None:
        return hit
    from ..operator import get_registered

    cls = get_registered(attrs.op_type)
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
    if any(s is None or any(int(d) <= 0 for d in s) for s in in_shapes):
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
    from ..context import current_context
    from ..symbol import DTYPE_TO_MX

    return _prop(attrs).create_operator(current_context(), [[int(d) for d in s] for s in shapes],
                                        [DTYPE_TO_MX[np.dtype(d).name] for d in dtypes])


def _run(attrs: Attrs, op, arrays: tuple):
    from .. import autograd
    from ..ndarray import NDArray

    shapes = [a.shape for a in arrays]
    _, out_shapes = _infer_shape(attrs, shapes)
    out_dtypes = _infer_type(attrs, [a.dtype for a in arrays])
    in_data = [NDArray(a) for a in arrays]
    out_data = [NDArray(np.zeros(s, dtype=d)) for s, d in zip(out_shapes, out_dtypes)]
    try:
        op.forward(is_train=autograd.is_training(), req=["write"] * len(out_data), in_data=in_data,
                   out_data=out_data, aux=[])
    except Exception as e:  # noqa: BLE001 - MXNet re-raises anything from a CustomOp as MXNetError
        from ..base import CustomOpError
        raise CustomOpError(f"Error in CustomOp.forward of {attrs.op_type!r}: {type(e).__name__}: {e}") from e
    outs = [o.asnumpy() for o in out_data]
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
