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

``backward`` runs for gradients (autograd, executors). Auxiliary states (``list_auxiliary_states``)
and non-default storage types are not supported. The legacy ``PythonOp``/``NumpyOp``/``NDArrayOp``
interface runs on the same machinery.
"""
from __future__ import annotations

import collections
import ctypes
import threading
from typing import Any

from .base import HybridizeError, NDArrayHandle, py_str

__all__ = ["CustomOp", "CustomOpProp", "register", "get_registered", "get_all_registered_operators",
           "get_operator_arguments", "OperatorArguments", "PythonOp", "NumpyOp", "NDArrayOp",
           # MXNet's module has no ``__all__``: code written for it gets these by ``import *``
           "ctypes", "NDArrayHandle", "py_str", "NDArray"]


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


# -- the legacy PythonOp interface (deprecated in MXNet 1.9.1, still shipped) --------------------------
class PythonOp:
    """Base class for operators implemented in Python (MXNet's legacy interface, deprecated in favour
    of :class:`CustomOp`). ``get_symbol(*inputs, name=...)`` makes the graph node; here it is a
    ``Custom`` node whose prop and operator call this object's ``forward``/``backward``/
    ``infer_shape``/``list_*`` (MXNet 1.9.1 runs them from its ``_Native``/``_NDArray`` operators).

    The defaults: ``forward`` copies the first input, ``backward`` writes 1.0 into the first input's
    gradient (whatever the output gradient), one input ``data``, one output ``output``."""

    _ref_holder: list = []

    def __init__(self, need_top_grad: bool = True) -> None:
        import warnings
        self.info_ = None
        self.need_top_grad_ = need_top_grad
        warnings.warn("PythonOp has been deprecated. Please use CustomOp")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.get_symbol(*args, **kwargs)

    def get_symbol(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("Must override this")

    def forward(self, in_data: list, out_data: list) -> None:
        out_data[0][:] = in_data[0]

    def backward(self, out_grad: list, in_data: list, out_data: list, in_grad: list) -> None:
        in_grad[0][:] = 1.0

    def infer_shape(self, in_shape: list) -> tuple:
        return in_shape, [in_shape[0]]

    def list_outputs(self) -> list:
        return ["output"]

    def list_arguments(self) -> list:
        return ["data"]

    def need_top_grad(self) -> bool:
        return self.need_top_grad_

    # the Custom node standing for this object
    _ARRAYS = "numpy"

    def _custom_symbol(self, args: tuple, kwargs: dict) -> Any:
        from . import symbol
        op_type = f"_legacy_python_op_{id(self):x}"
        register(op_type)(_legacy_prop(self))
        PythonOp._ref_holder.append(self)       # MXNet keeps the op alive for its C callbacks too
        return symbol.Custom(*args, op_type=op_type, **kwargs)


class NumpyOp(PythonOp):
    """A :class:`PythonOp` whose ``forward``/``backward`` get numpy arrays (``out_data``, ``in_grad``
    written in place)."""

    def __init__(self, need_top_grad: bool = True) -> None:
        import warnings
        super().__init__(need_top_grad)
        warnings.warn("NumpyOp has been deprecated. Please use CustomOp")

    def get_symbol(self, *args: Any, **kwargs: Any) -> Any:
        return self._custom_symbol(args, kwargs)


class NDArrayOp(PythonOp):
    """A :class:`PythonOp` whose ``forward``/``backward`` get NDArrays."""
    _ARRAYS = "ndarray"

    def __init__(self, need_top_grad: bool = True) -> None:
        import warnings
        super().__init__(need_top_grad)
        warnings.warn("NDArrayOp has been deprecated. Please use CustomOp")

    def get_symbol(self, *args: Any, **kwargs: Any) -> Any:
        return self._custom_symbol(args, kwargs)

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list) -> list:
        deps = list(out_grad) if self.need_top_grad() else []
        return deps + list(in_data) + list(out_data)


def _legacy_prop(pyop: PythonOp) -> type:
    """A ``CustomOpProp`` class running ``pyop`` (numpy arrays for a NumpyOp, NDArrays for an NDArrayOp)."""
    import numpy as np

    def as_arrays(arrays: list) -> list:
        return [a.asnumpy() for a in arrays] if pyop._ARRAYS == "numpy" else list(arrays)

    def write_back(dst: list, src: list) -> None:
        if pyop._ARRAYS == "numpy":
            for d, s_ in zip(dst, src):
                d[:] = np.asarray(s_)

    class _Op(CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            outs = as_arrays(out_data)
            pyop.forward(in_data=as_arrays(in_data), out_data=outs)
            write_back(out_data, outs)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            grads = as_arrays(in_grad)
            pyop.backward(out_grad=as_arrays(out_grad), in_data=as_arrays(in_data), out_data=as_arrays(out_data),
                          in_grad=grads)
            write_back(in_grad, grads)

    class _Prop(CustomOpProp):
        def __init__(self, **kwargs):
            super().__init__(need_top_grad=pyop.need_top_grad())

        def list_arguments(self):
            return pyop.list_arguments()

        def list_outputs(self):
            return pyop.list_outputs()

        def infer_shape(self, in_shape):
            ishape, oshape = pyop.infer_shape([list(s) for s in in_shape])
            return list(ishape), list(oshape), []

        def create_operator(self, ctx, in_shapes, in_dtypes):
            return _Op()
    return _Prop


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
from .ndarray import NDArray  # noqa: E402,F401  (exported as MXNet's module does)

_custom.install_host(_Host())
