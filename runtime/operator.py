"""Python-defined operators, as ``mxnet.operator``: ``CustomOp``, ``CustomOpProp``, ``register``.

A ``CustomOpProp`` subclass registered under a name becomes reachable as the ``Custom`` operator
(``F.Custom(x, op_type='name', **kwargs)``, see ``ops/custom.py``) with MXNet 1.9.1's protocol:

* the prop is built with the call's other keyword arguments, each as ``str(value)``;
* ``list_arguments`` / ``list_outputs`` name the inputs and outputs, ``infer_shape`` /
  ``infer_type`` give output shapes and dtypes (2 or 3 lists; dtypes as numpy types);
* ``create_operator(ctx, in_shapes, in_dtypes)`` (shapes as lists, dtypes as MXNet's type ids) makes
  the ``CustomOp``: once per call imperatively, once per graph node in a compiled program;
* ``CustomOp.forward(is_train, req, in_data, out_data, aux)`` writes the preallocated outputs,
  usually through ``self.assign(dst, req, src)``.

There is no autograd in this runtime: ``backward`` is never called. Auxiliary states
(``list_auxiliary_states``) and non-default storage types are not supported.
"""
from __future__ import annotations

import collections
import threading
from typing import Any

from .base import HybridizeError

__all__ = ["CustomOp", "CustomOpProp", "register", "get_registered", "get_all_registered_operators",
           "get_operator_arguments", "OperatorArguments"]


class CustomOp:
    """Base class for operators implemented in Python."""

    def __init__(self) -> None:
        pass

    def forward(self, is_train: bool, req: list, in_data: list, out_data: list, aux: list) -> None:
        """Computes ``out_data`` from ``in_data``; ``req[i]`` says how to write ``out_data[i]``
        (``'null'``, ``'write'``, ``'inplace'`` or ``'add'``): use :meth:`assign`."""
        pass

    def backward(self, req: list, out_grad: list, in_data: list, out_data: list, in_grad: list,
                 aux: list) -> None:
        """Writes ``in_grad`` from ``out_grad`` (and the inputs and outputs) for a backward pass."""
        pass

    def assign(self, dst: Any, req: str, src: Any) -> None:
        """Helper function for assigning into dst depending on requirements."""
        if req == "null":
            return
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst[:] += src


class CustomOpProp:
    """Base class for operator property classes implemented in Python.

    Parameters
    ----------
    need_top_grad : bool
        Used by the default ``declare_backward_dependency``.
    """

    def __init__(self, need_top_grad: bool = True) -> None:
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape: list) -> tuple:
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_type(self, in_type: list) -> tuple:
        return in_type, [in_type[0]] * len(self.list_outputs()), \
            [in_type[0]] * len(self.list_auxiliary_states())

    def infer_storage_type(self, in_stype: list) -> tuple:
        for i, stype in enumerate(in_stype):
            if stype != "default":
                raise HybridizeError(f"Custom: non-default storage type {stype!r} for input {i} is not supported")
        return in_stype, ["default"] * len(self.list_outputs()), ["default"] * len(self.list_auxiliary_states())

    def list_outputs(self) -> list:
        return ["output"]

    def list_arguments(self) -> list:
        return ["data"]

    def list_auxiliary_states(self) -> list:
        return []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list) -> list:
        deps = []
        if self.need_top_grad_:
            deps.extend(out_grad)
        deps.extend(in_data)
        deps.extend(out_data)
        return deps

    def create_operator(self, ctx: Any, in_shapes: list, in_dtypes: list) -> CustomOp:
        return CustomOp()


_REGISTERED: dict[str, type] = {}
_LOCK = threading.Lock()


def register(reg_name: str):
    """Register a subclass of CustomOpProp to the registry with name reg_name."""
    def do_register(prop_cls: type) -> type:
        with _LOCK:
            _REGISTERED[reg_name] = prop_cls
        return prop_cls
    return do_register


class _Host:
    """The front end of ``Custom`` (``ops/custom.py``): prop classes, operator creation, forward on NDArrays."""

    def prop_class(self, op_type: str) -> type:
        return get_registered(op_type)

    def create(self, prop: Any, shapes: list, dtypes: list) -> CustomOp:
        from .context import current_context
        from .symbol import DTYPE_TO_MX
        return prop.create_operator(current_context(), shapes, [DTYPE_TO_MX[d.name] for d in dtypes])

    def forward(self, op_type: str, op: CustomOp, arrays: tuple, out_shapes: list, out_dtypes: list) -> list:
        import numpy as np

        from . import autograd
        from .ndarray import NDArray
        in_data = [NDArray(a) for a in arrays]
        out_data = [NDArray(np.zeros(s, dtype=d)) for s, d in zip(out_shapes, out_dtypes)]
        try:
            op.forward(is_train=autograd.is_training(), req=["write"] * len(out_data), in_data=in_data,
                       out_data=out_data, aux=[])
        except Exception as e:  # noqa: BLE001 - MXNet re-raises anything from a CustomOp as MXNetError
            from .base import CustomOpError
            raise CustomOpError(f"Error in CustomOp.forward of {op_type!r}: {type(e).__name__}: {e}") from e
        return [o.asnumpy() for o in out_data]

    def backward(self, op_type: str, op: CustomOp, out_grads: tuple, arrays: tuple, outputs: tuple) -> list:
        """Runs ``forward`` (so the operator holds the state MXNet's instance has after it), then
        ``backward`` writing zero-initialized input gradients."""
        import numpy as np

        from . import autograd
        from .ndarray import NDArray
        in_data = [NDArray(a) for a in arrays]
        out_data = [NDArray(np.array(o)) for o in outputs]
        in_grad = [NDArray(np.zeros_like(a)) for a in arrays]
        try:
            op.forward(is_train=autograd.is_training(), req=["write"] * len(out_data), in_data=in_data,
                       out_data=[NDArray(np.zeros_like(o)) for o in outputs], aux=[])
            op.backward(req=["write"] * len(in_grad), out_grad=[NDArray(np.asarray(g)) for g in out_grads],
                        in_data=in_data, out_data=out_data, in_grad=in_grad, aux=[])
        except Exception as e:  # noqa: BLE001 - MXNet re-raises anything from a CustomOp as MXNetError
            from .base import CustomOpError
            raise CustomOpError(f"Error in CustomOp.backward of {op_type!r}: {type(e).__name__}: {e}") from e
        return [g.asnumpy() for g in in_grad]


def get_registered(op_type: str) -> type:
    """The ``CustomOpProp`` class registered as ``op_type``."""
    try:
        return _REGISTERED[op_type]
    except KeyError:
        raise HybridizeError(f"Cannot find custom operator {op_type!r}: register its CustomOpProp with "
                             f"@mxnet.operator.register({op_type!r})") from None


# -- the operator registry, as MXNet's C API lists it ---------------------------------------------
def get_all_registered_operators() -> list:
    """Every operator name the runtime knows, aliases included (``MXListAllOpNames``)."""
    from .ops.registry import all_names
    return [name for name, _ in all_names()]


OperatorArguments = collections.namedtuple("OperatorArguments", ["narg", "names", "types"])


def get_operator_arguments(op_name: str) -> OperatorArguments:
    """An operator's arguments as MXNet describes them (``MXSymbolGetAtomicSymbolInfo``): its inputs
    (``'NDArray-or-Symbol'``, a variadic list as ``'NDArray-or-Symbol[]'``), then its attributes in
    declaration order with dmlc's type strings (``"{'relu', 'tanh'}, required"``,
    ``"int, optional, default='1'"``). An unknown name raises MXNetError."""
    from .ops.registry import get_op
    from .ops._describe import argument_types
    names, types = argument_types(get_op(op_name))
    return OperatorArguments(len(names), names, types)


from .ops import custom as _custom  # noqa: E402  (Custom runs through this front end)

_custom.install_host(_Host())
