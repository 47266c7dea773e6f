"""MXNet graph + parameters -> ONNX ``ModelProto``: the converter loop behind ``export_model``,
``hybridize export-onnx`` and the onnxruntime backend of ``hybridize run``.

Graph inputs are the variables without a parameter value (named as in MXNet), parameters become
initializers under their own names, and outputs are named as MXNet 1.9.1's exporter names them
(``dense2_fwd_output`` -> ``dense2_fwd``; ``split0_output1`` -> ``split01``). Each operator node is
handed to the converter registered for its OpDef (``registry.py``); an operator without one, or
attributes a converter cannot express, stop the export with one :class:`ExportError` naming the
operator and the node.
"""
from __future__ import annotations

import logging
import re
from typing import Any, Mapping, Sequence

import numpy as np

from ..base import ShapeError
from ..graph.infer import infer_dtypes, infer_shapes
from ..graph.ir import Graph, Node
from .context import Builder, ExportError, Names, NodeView, onnx_dtype
from .registry import lookup

__all__ = ["DEFAULT_OPSET", "MIN_OPSET", "graph_to_onnx", "GraphConverter", "mxnet_output_names",
           "graph_inputs", "check_convertible"]

DEFAULT_OPSET = 17
MIN_OPSET = 13
_LOG = logging.getLogger("hybridize.onnx")


def mxnet_output_names(graph: Graph) -> list[str]:
    """The output names MXNet 1.9.1's exporter gives (``_output`` suffix dropped)."""
    out = []
    for e in graph.outputs:
        name = e.node.output_names()[e.index]
        if name.endswith("_output"):
            name = name[: -len("_output")]
        elif re.search(r"_output[0-9]$", name):
            name = name[: -len("_output0")] + name[-1]
        out.append(name)
    return out


def check_convertible(graph: Graph) -> dict[int, set[int]]:
    """Raises for the first operator without a converter; returns, per node, the input positions
    its converter ignores (labels of loss outputs)."""
    ignored: dict[int, set[int]] = {}
    for n in graph.nodes:
        if n.op is None:
            continue
        conv = lookup(n.op)
        if conv is None:
            raise ExportError(f"operator {n.op.name} (node {n.name!r}) has no ONNX equivalent in this exporter")
        if conv.ignore_inputs:
            names = n.input_names
            ignored[id(n)] = {i for i, nm in enumerate(names) if nm in conv.ignore_inputs}
    return ignored


def graph_inputs(graph: Graph, params: Mapping[str, Any]) -> list[Node]:
    """Variables the exported model takes as inputs: neither a parameter nor only a label."""
    ignored = check_convertible(graph)
    needed: set[int] = set()
    for n in graph.nodes:
        for i, e in enumerate(n.inputs):
            if i not in ignored.get(id(n), ()):
                needed.add(id(e.node))
    needed.update(id(e.node) for e in graph.outputs)
    return [v for v in graph.variables() if v.name not in params and id(v) in needed]


class GraphConverter:
    """Converts the nodes of one graph (the model's, or a subgraph's) into a :class:`Builder`."""

    def __init__(self, graph: Graph, builder: Builder, shapes: dict, alt: dict, dtypes: dict,
                 values: dict, consts: Mapping[tuple, np.ndarray] | None = None, verbose: bool = False):
        self.graph = graph
        self.builder = builder
        self._shapes = shapes
        self._alt = alt
        self._dtypes = dtypes
        self.values = values          # (id(node), index) -> ONNX tensor name
        self._consts: dict = dict(consts or {})
        self._by_id: dict | None = None
        self.verbose = verbose

    def shape(self, key: tuple) -> tuple:
        s = self._shapes.get(key)
        if s is None:
            raise ExportError("shape inference left a tensor without a shape")
        return tuple(int(d) for d in s)

    def alt_shape(self, key: tuple) -> tuple:
        s = self._alt.get(key)
        return self.shape(key) if s is None else tuple(int(d) for d in s)

    def dyn(self, key: tuple) -> tuple:
        return tuple(a != b for a, b in zip(self.shape(key), self.alt_shape(key)))

    def dtype(self, key: tuple) -> np.dtype:
        return np.dtype(self._dtypes.get(key, np.float32))

    def value(self, key: tuple) -> np.ndarray | None:
        """The constant value of an entry: a parameter, or an op of constants folded with the
        registry's kernel (Gluon's fused RNN layers concatenate their weights in the graph);
        None when it depends on an input or on randomness/mode."""
        if key in self._consts:
            return self._consts[key]
        node = self._nodes_by_id().get(key[0])
        if node is None or node.op is None or node.op.mode_dependent or node.op.name.startswith(("_random", "_sample")):
            return None
        args = []
        for e in node.inputs:
            v = self.value((id(e.node), e.index))
            if v is None:
                self._consts[key] = None
                return None
            args.append(v)
        out = node.op.compute(node.resolved, *args)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        for k, o in enumerate(outs):
            self._consts[(id(node), k)] = np.asarray(o)
        return self._consts[key]

    def variable_sources(self) -> list[tuple[str, tuple, tuple]]:
        """(ONNX name, shape, perturbed shape) of this graph's bound non-constant variables."""
        out = []
        for n in self.graph.nodes:
            key = (id(n), 0)
            if n.op is None and key in self.values and self._consts.get(key) is None and key in self._shapes:
                out.append((self.values[key], self.shape(key), self.alt_shape(key)))
        return out

    def _nodes_by_id(self) -> dict:
        if self._by_id is None:
            self._by_id = {id(n): n for n in self.graph.nodes}
        return self._by_id

    def run(self) -> None:
        for n in self.graph.nodes:
            if n.op is None:     # bound by the caller (inputs, parameters, a body's inputs) or unused
                continue
            conv = lookup(n.op)
            if conv is None:
                raise ExportError(f"operator {n.op.name} (node {n.name!r}) has no ONNX equivalent in this exporter")
            skip = {i for i, nm in enumerate(n.input_names) if nm in conv.ignore_inputs}
            ins = []
            for i, e in enumerate(n.inputs):
                if i in skip:
                    ins.append("")
                elif (id(e.node), e.index) in self.values:
                    ins.append(self.values[(id(e.node), e.index)])
                else:
                    raise ExportError(f"variable {e.node.name!r} (read by {n.op.name} {n.name!r}) has no value "
                                      "in the exported graph")
            if self.verbose:
                _LOG.info("converting %s %s", n.op.name, n.name)
            outs = conv.fn(NodeView(self, n, ins))
            if len(outs) != n.num_outputs:
                raise ExportError(f"operator {n.op.name} (node {n.name!r}): converter gave {len(outs)} "
                                  f"outputs for {n.num_outputs}")
            for k, o in enumerate(outs):
                self.values[(id(n), k)] = o


def _value_info(onnx: Any, name: str, dtype: Any, shape: Sequence[int], dyn: Sequence[bool]):
    dims = [None if d else int(s) for s, d in zip(shape, dyn)]
    return onnx.helper.make_tensor_value_info(name, onnx_dtype(dtype), dims)


def _node_inputs(node) -> set[str]:
    """Every tensor name a node reads, its subgraphs' outer-scope references included."""
    names = set(node.input)
    for attr in node.attribute:
        graphs = list(attr.graphs) + ([attr.g] if attr.HasField("g") else [])
        for g in graphs:
            for sub in g.node:
                names |= _node_inputs(sub)
    return names


def _alt_dim(d: int) -> int:
    return 2 * int(d) + 3


def _alt_shapes(graph: Graph, known: dict, dynamic_axes: dict, lenient: bool) -> tuple[dict, dict]:
    """Shape inference with every dynamic axis changed (see ``context.py``), and the axes that
    were changed; ``lenient`` drops the axes that cannot change on their own."""
    def attempt(axes: dict) -> dict:
        alt_known = dict(known)
        for name, ax in axes.items():
            alt_known[name] = tuple(_alt_dim(d) if i in ax else d for i, d in enumerate(known[name]))
        return infer_shapes(graph, alt_known)

    try:
        return attempt(dynamic_axes), dynamic_axes
    except ShapeError as e:
        if not lenient:
            raise ExportError(f"the model's shapes do not allow the dynamic axes {dynamic_axes} to vary "
                              f"({e}); declare only the axes that may change") from None
    free: dict[str, tuple] = {}
    for name, axes in dynamic_axes.items():
        ok = []
        for a in axes:
            try:
                attempt({name: (a,)})
                ok.append(a)
            except ShapeError:
                pass
        free[name] = tuple(ok)
    try:
        return attempt(free), free
    except ShapeError as e:
        raise ExportError(f"the model's shapes do not allow the dynamic axes {free} to vary together "
                          f"({e})") from None


def graph_to_onnx(graph: Graph, params: Mapping[str, np.ndarray], in_shapes: Mapping[str, Sequence[int]],
                  in_dtypes: Mapping[str, Any] | None = None, dynamic_axes: Mapping[str, Sequence[int]] | None = None,
                  opset: int | None = None, verbose: bool = False, graph_name: str = "hybridize",
                  lenient: bool = False, drop_fixed: bool = False):
    """The ONNX model of ``graph``: inputs shaped ``in_shapes`` (concrete sizes, used for shape
    inference), ``dynamic_axes`` {input: axes} declared symbolic, parameters as initializers.
    ``lenient``: declared axes the model's shapes do not let vary (MXNet's ``dynamic=True``
    declares every axis) stay declared but are treated as fixed inside the graph;
    ``drop_fixed``: such axes are left static (``--dynamic-batch`` on an input without a batch)."""
    from .context import _onnx
    onnx = _onnx()
    opset = DEFAULT_OPSET if opset is None else int(opset)
    top = onnx.defs.onnx_opset_version()
    if not MIN_OPSET <= opset <= top:
        raise ExportError(f"opset {opset} is not supported (this exporter writes opsets {MIN_OPSET} to {top})")
    inputs = graph_inputs(graph, params)
    var_names = {v.name for v in graph.variables()}
    params = {k: np.asarray(v) for k, v in params.items() if k in var_names}
    dynamic_axes = {k: tuple(int(a) for a in v) for k, v in (dynamic_axes or {}).items()}
    known: dict[str, tuple] = {k: v.shape for k, v in params.items()}
    for v in inputs:
        s = in_shapes.get(v.name)
        if s is None:
            raise ExportError(f"no shape given for input {v.name!r} (the model's inputs: "
                              f"{', '.join(x.name for x in inputs)})")
        known[v.name] = tuple(int(d) for d in s)
    for name, axes in dynamic_axes.items():
        if name not in known or name in params:
            raise ExportError(f"dynamic axes given for {name!r}, which is not an input of the model")
        if any(not 0 <= a < len(known[name]) for a in axes):
            raise ExportError(f"input {name!r}: dynamic axes {axes} out of range for shape {known[name]}")
    try:
        shapes = infer_shapes(graph, known)
    except ShapeError as e:
        raise ExportError(f"shape inference failed: {e}") from None
    alt = shapes
    if any(dynamic_axes.values()):
        alt, free = _alt_shapes(graph, known, dynamic_axes, lenient or drop_fixed)
        if drop_fixed:
            dynamic_axes = free
    dts = {k: v.dtype for k, v in params.items()}
    dts.update({v.name: np.dtype((in_dtypes or {}).get(v.name, np.float32)) for v in inputs})
    dtypes = infer_dtypes(graph, dts)

    names = Names()
    for v in graph.variables():
        names.reserve(v.name)
    out_names = [names.fresh(n) for n in mxnet_output_names(graph)]
    b = Builder(names, opset, top=True)
    values: dict[tuple, str] = {}
    consts: dict[tuple, np.ndarray] = {}
    input_infos = []
    for v in inputs:
        axes = dynamic_axes.get(v.name, ())
        s = known[v.name]
        input_infos.append(_value_info(onnx, v.name, dtypes[(id(v), 0)], s, [i in axes for i in range(len(s))]))
        values[(id(v), 0)] = v.name
    for v in graph.variables():
        if v.name in params:
            b.initializers.append(b.tensor(v.name, params[v.name]))
            values[(id(v), 0)] = v.name
            consts[(id(v), 0)] = params[v.name]
    conv = GraphConverter(graph, b, shapes, alt, dtypes, values, consts, verbose)
    conv.run()
    output_infos = []
    for e, name in zip(graph.outputs, out_names):
        key = (id(e.node), e.index)
        b.nodes.append(onnx.helper.make_node("Identity", [values[key]], [name], name=names.fresh(name + "/Identity")))
        output_infos.append(_value_info(onnx, name, conv.dtype(key), conv.shape(key), conv.dyn(key)))
    used = {i for node in b.nodes for i in _node_inputs(node)}
    inits = [t for t in b.initializers if t.name in used]   # e.g. a gamma that fix_gamma ignores
    g = onnx.helper.make_graph(b.nodes, graph_name, input_infos, output_infos, initializer=inits)
    opsets = [onnx.helper.make_opsetid("", opset)]
    from .. import __version__
    model = onnx.helper.make_model(g, opset_imports=opsets, producer_name="hybridize",
                                   producer_version=__version__)
    model.ir_version = onnx.helper.find_min_ir_version_for(opsets)
    return model
