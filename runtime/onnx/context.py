"""The machinery converters work with: an ONNX graph under construction (:class:`Builder`) and
one MXNet node's view of it (:class:`NodeView`).

Shapes come from the runtime's own shape inference (``graph/infer.py``), run twice: once with the
input shapes given, once with every dimension declared dynamic changed. A dimension of any
tensor that differs between the two runs is *dynamic*: converters never bake it into a
constant; a shape they must build (Reshape's target, ...) takes it from a ``Shape`` of an input
with ``Shape``/``Gather``/``Concat`` or leaves it to Reshape's ``-1``.
"""
from __future__ import annotations

from typing import Any, NoReturn, Sequence

import numpy as np

from ..base import HybridizeError

__all__ = ["ExportError", "Names", "Builder", "NodeView", "onnx_dtype"]


class ExportError(HybridizeError):
    """The model cannot be written as ONNX (unsupported operator, bad arguments, ...); ``path``
    names the file at fault when there is one (an unwritable output)."""

    def __init__(self, problem: str, path: str | None = None):
        super().__init__(problem)
        self.problem = problem
        self.path = path


def _onnx():
    try:
        import onnx
    except ImportError:
        raise ExportError("ONNX export needs the onnx package: pip install 'hybridize[onnx]'") from None
    return onnx


def onnx_dtype(dtype: Any) -> int:
    onnx = _onnx()
    return int(onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype)))


class Names:
    """Unique tensor and node names across a model and all its subgraphs (ONNX forbids a
    subgraph to redefine a name its outer scope can see)."""

    def __init__(self) -> None:
        self._used: set[str] = set()
        self._count: dict[str, int] = {}

    def reserve(self, name: str) -> str:
        self._used.add(name)
        return name

    def taken(self, name: str) -> bool:
        return name in self._used

    def fresh(self, hint: str) -> str:
        if hint not in self._used:
            self._used.add(hint)
            return hint
        k = self._count.get(hint, 0)
        while True:
            k += 1
            cand = f"{hint}_{k}"
            if cand not in self._used:
                self._count[hint] = k
                self._used.add(cand)
                return cand


class Builder:
    """The nodes and constants of one ONNX graph (the model's, or a loop body / branch)."""

    def __init__(self, names: Names, opset: int, top: bool = True):
        self.onnx = _onnx()
        self.names = names
        self.opset = opset
        self.top = top
        self.nodes: list = []
        self.initializers: list = []
        self._consts: dict[tuple, str] = {}

    def add(self, op_type: str, inputs: Sequence[str], n_out: int = 1, hint: str = "t", **attrs: Any) -> list[str]:
        outs = [self.names.fresh(hint) for _ in range(n_out)]
        node_name = self.names.fresh(f"{hint}/{op_type}")
        self.nodes.append(self.onnx.helper.make_node(op_type, list(inputs), outs, name=node_name, **attrs))
        return outs

    def tensor(self, name: str, value: np.ndarray):
        return self.onnx.numpy_helper.from_array(np.array(value, order="C", copy=True), name)

    def const(self, value: Any, dtype: Any = None, hint: str = "const") -> str:
        """A constant tensor: an initializer in the model's graph, a Constant node in a body.
        Small constants are shared."""
        arr = np.asarray(value, dtype=dtype)
        key = None
        if arr.size <= 64:
            key = (arr.dtype.str, arr.shape, arr.tobytes())
            hit = self._consts.get(key)
            if hit is not None:
                return hit
        name = self.names.fresh(hint)
        if self.top:
            self.initializers.append(self.tensor(name, arr))
        else:
            self.nodes.append(self.onnx.helper.make_node("Constant", [], [name], name=self.names.fresh(name + "/Constant"),
                                                         value=self.tensor(name, arr)))
        if key is not None:
            self._consts[key] = name
        return name


class NodeView:
    """One MXNet node as its converter sees it: attributes, input names, shapes, dtypes, and the
    builder to add ONNX nodes to."""

    def __init__(self, conv: Any, node: Any, inputs: list[str]):
        self.conv = conv              # the GraphConverter (shapes, dtypes, parameter values)
        self.node = node
        self.b: Builder = conv.builder
        self.attrs = node.resolved
        self.inputs = inputs
        self.name = node.name
        self.opset = self.b.opset

    # -- what is known ---------------------------------------------------------------------
    def _entry(self, i: int):
        e = self.node.inputs[i]
        return (id(e.node), e.index)

    def in_shape(self, i: int = 0) -> tuple:
        return self.conv.shape(self._entry(i))

    def in_dyn(self, i: int = 0) -> tuple:
        return self.conv.dyn(self._entry(i))

    def in_alt(self, i: int = 0) -> tuple:
        return self.conv.alt_shape(self._entry(i))

    def in_dtype(self, i: int = 0) -> np.dtype:
        return self.conv.dtype(self._entry(i))

    def in_value(self, i: int) -> np.ndarray | None:
        """The constant value of input ``i`` when it is a parameter (None otherwise)."""
        return self.conv.value(self._entry(i))

    def out_shape(self, k: int = 0) -> tuple:
        return self.conv.shape((id(self.node), k))

    def out_alt(self, k: int = 0) -> tuple:
        return self.conv.alt_shape((id(self.node), k))

    def out_dyn(self, k: int = 0) -> tuple:
        return self.conv.dyn((id(self.node), k))

    def out_dtype(self, k: int = 0) -> np.dtype:
        return self.conv.dtype((id(self.node), k))

    @property
    def ndim(self) -> int:
        return len(self.in_shape(0))

    def fail(self, why: str) -> NoReturn:
        raise ExportError(f"operator {self.node.op.name} (node {self.name!r}) cannot be exported to ONNX: {why}")

    # -- building --------------------------------------------------------------------------
    def op(self, op_type: str, *inputs: str, **attrs: Any) -> str:
        return self.b.add(op_type, inputs, 1, hint=self.name, **attrs)[0]

    def ops(self, op_type: str, inputs: Sequence[str], n_out: int, **attrs: Any) -> list[str]:
        return self.b.add(op_type, inputs, n_out, hint=self.name, **attrs)

    def const(self, value: Any, dtype: Any = None) -> str:
        return self.b.const(value, dtype, hint=f"{self.name}_const")

    def ints(self, values: Sequence[int]) -> str:
        return self.b.const(np.asarray(list(values), dtype=np.int64), hint=f"{self.name}_ints")

    def scalar(self, value: float, dtype: Any = None) -> str:
        """A 0-d constant of the first input's dtype (MXNet computes scalars in the data's type)."""
        return self.const(np.asarray(value, dtype=dtype or self.in_dtype(0)))

    def cast(self, x: str, dtype: Any) -> str:
        return self.op("Cast", x, to=onnx_dtype(dtype))

    def unsqueeze(self, x: str, axes: Sequence[int]) -> str:
        return self.op("Unsqueeze", x, self.ints(axes))

    def squeeze(self, x: str, axes: Sequence[int]) -> str:
        return self.op("Squeeze", x, self.ints(axes))

    def reshape(self, x: str, shape: Sequence[int]) -> str:
        return self.op("Reshape", x, self.ints(shape))

    def reduce(self, op_type: str, x: str, axes: Sequence[int] | None, keepdims: bool) -> str:
        """ReduceXxx over ``axes`` (None: all); axes are an input from opset 18 on (13 for ReduceSum)."""
        kd = int(bool(keepdims))
        if axes is None:
            return self.op(op_type, x, keepdims=kd)
        if self.opset >= 18 or op_type == "ReduceSum":
            return self.op(op_type, x, self.ints(axes), keepdims=kd)
        return self.op(op_type, x, axes=list(axes), keepdims=kd)

    def dim(self, x: str, axis: int) -> str:
        """The size of ``x`` along ``axis`` as a 1-element int64 tensor."""
        return self.op("Gather", self.op("Shape", x), self.ints([axis]), axis=0)

    def target_shape(self, k: int = 0, sources: Sequence[int] | None = None, infer_ok: bool = True) -> str:
        """Output ``k``'s shape as an int64 tensor for Reshape/Expand: a constant when no
        dimension is dynamic; otherwise each dynamic dimension is taken from an input's
        ``Shape`` where an input dimension equals it in both inference runs, and at most one left
        to Reshape's ``-1`` (``infer_ok``)."""
        shape, dyn, alt = self.out_shape(k), self.out_dyn(k), self.out_alt(k)
        if not any(dyn):
            return self.ints(shape)
        srcs = range(len(self.inputs)) if sources is None else sources
        parts: list[str] = []
        pending: list[int] = []
        inferred = False
        for j, (d, a, is_dyn) in enumerate(zip(shape, alt, dyn)):
            if not is_dyn:
                pending.append(int(d))
                continue
            found = None
            for i in srcs:
                for ax, (d2, a2) in enumerate(zip(self.in_shape(i), self.in_alt(i))):
                    if d2 == d and a2 == a:
                        found = (i, ax)
                        break
                if found:
                    break
            if found is None:       # a graph input of that size (a begin state's batch, ...)
                for name, vshape, valt in self.conv.variable_sources():
                    ax = next((k for k, (d2, a2) in enumerate(zip(vshape, valt)) if d2 == d and a2 == a), None)
                    if ax is not None:
                        found = (name, ax)
                        break
                if found is not None:
                    if pending:
                        parts.append(self.ints(pending))
                        pending = []
                    parts.append(self.dim(found[0], found[1]))
                    continue
                if not infer_ok or inferred:
                    self.fail(f"output dimension {j} depends on dynamic input dimensions in a way "
                              "ONNX shape arithmetic here does not express")
                inferred = True
                pending.append(-1)
                continue
            if pending:
                parts.append(self.ints(pending))
                pending = []
            parts.append(self.dim(self.inputs[found[0]], found[1]))
        if pending:
            parts.append(self.ints(pending))
        return parts[0] if len(parts) == 1 else self.op("Concat", *parts, axis=0)
