"""``mx.onnx``: export to ONNX with MXNet 1.9.1's ``export_model`` signature and meaning.

    from hybridize.runtime import onnx as onnx_mxnet        # or mx.onnx after `import ... as mx`
    onnx_mxnet.export_model("net-symbol.json", "net-0000.params", in_shapes=[(1, 3, 224, 224)],
                            in_types=np.float32, onnx_file_path="net.onnx")

The numpy runtime needs neither onnx nor onnxruntime: this package imports ``onnx`` only when a
model is exported (``pip install 'hybridize[onnx]'``). One converter per operator family, each
registered against the operator registry (``registry.py``); :func:`get_operator_support` lists
the exportable operators. The file is written atomically (``hybridize.atomic``), so a failed
export never leaves a file behind.
"""
from __future__ import annotations

import logging
import os
from typing import Any, Mapping, Sequence

import numpy as np

from .context import ExportError

__all__ = ["export_model", "get_operator_support", "ExportError", "export_graph", "load_graph_and_params"]

_LOG = logging.getLogger("hybridize.onnx")


def get_operator_support(opset_version: int | None = None) -> list[str]:
    """The MXNet operators this exporter converts (canonical names, sorted)."""
    from .registry import supported_ops
    return supported_ops()


def load_graph_and_params(sym: Any, params: Any):
    """(Graph, {name: numpy array}) from paths or objects, as ``export_model`` accepts them:
    ``sym`` a ``-symbol.json`` path, a Symbol or a Graph; ``params`` a ``.params`` path, a dict
    (``arg:``/``aux:`` prefixes allowed) or ``[arg_params, aux_params]``."""
    from ..graph import mxnet_json
    from ..graph import params as _params
    from ..graph.ir import Graph

    if isinstance(sym, (str, os.PathLike)):
        graph = mxnet_json.load(sym)
    elif isinstance(sym, Graph):
        graph = sym
    elif hasattr(sym, "graph") and callable(sym.graph):
        graph = sym.graph()
    else:
        raise ExportError(f"sym must be a symbol file path or a Symbol, not {type(sym).__name__}")
    path = None
    if isinstance(params, (str, os.PathLike)):
        path = params
        if isinstance(sym, (str, os.PathLike)):
            from ..graph.pair import check_pair
            check_pair(sym, params)
        values = _params.load(params)
        if isinstance(values, list):
            if values:
                from ..base import LoadError
                raise LoadError(params, "holds a nameless list of arrays; parameters need names")
            values = {}
    elif params is None:
        values = {}
    elif isinstance(params, Mapping):
        values = dict(params)
    elif isinstance(params, (list, tuple)) and len(params) == 2:
        values = {**dict(params[0] or {}), **dict(params[1] or {})}
    else:
        raise ExportError("params must be a .params file path, a dict, or [arg_params, aux_params]")
    values = _params.strip_prefixes(values, path)
    arrays = {k: (v.asnumpy() if hasattr(v, "asnumpy") else np.asarray(v)) for k, v in values.items()
              if v is not None}
    return graph, arrays


def _per_input(value: Any, n: int, what: str) -> list:
    if isinstance(value, list):
        if len(value) != n:
            raise ExportError(f"{what}: {len(value)} given for {n} input(s)")
        return value
    return [value] * n


def export_graph(sym: Any, params: Any, in_shapes: Any = None, in_types: Any = np.float32,
                 dynamic: bool = False, dynamic_input_shapes: Any = None, opset_version: int | None = None,
                 verbose: bool = False):
    """The ONNX ``ModelProto`` that :func:`export_model` writes (nothing written)."""
    from .export import graph_inputs, graph_to_onnx
    from ..graph.infer import var_shape_hint

    graph, arrays = load_graph_and_params(sym, params)
    inputs = graph_inputs(graph, arrays)
    names = [v.name for v in inputs]
    if isinstance(in_shapes, Mapping):
        shapes = {k: tuple(v) for k, v in in_shapes.items()}
    else:
        if in_shapes is None:
            in_shapes = []
            for v in inputs:
                hint = var_shape_hint(v)
                if hint is None or any(d <= 0 for d in hint):
                    raise ExportError(f"in_shapes is required: input {v.name!r} has no declared shape")
                in_shapes.append(hint)
        in_shapes = list(in_shapes)
        if len(in_shapes) != len(names):
            raise ExportError(f"in_shapes gives {len(in_shapes)} shape(s) for the model's {len(names)} "
                              f"input(s) ({', '.join(names)})")
        shapes = dict(zip(names, (tuple(s) for s in in_shapes)))
    types = _per_input(in_types, len(names), "in_types")
    dtypes = {k: np.dtype(t) for k, t in zip(names, types)}
    dyn_axes: dict[str, tuple] = {}
    if dynamic:
        if dynamic_input_shapes is None:   # MXNet: every dimension dynamic
            dyn_axes = {k: tuple(range(len(shapes.get(k, ())))) for k in names}
        else:
            dis = list(dynamic_input_shapes)
            if len(dis) != len(names):
                raise ExportError("dynamic_input_shapes must give one shape per input")
            for k, ds in zip(names, dis):
                if len(ds) != len(shapes.get(k, ())):
                    raise ExportError(f"dynamic_input_shapes for {k!r}: {tuple(ds)} has a different rank "
                                      f"than its shape {shapes.get(k)}")
                dyn_axes[k] = tuple(i for i, d in enumerate(ds) if d is None)
    elif dynamic_input_shapes is not None:
        raise ExportError("dynamic_input_shapes is given; set dynamic=True to enable dynamic input shapes")
    lenient = dynamic and dynamic_input_shapes is None
    return graph_to_onnx(graph, arrays, shapes, dtypes, dyn_axes, opset_version, verbose, lenient=lenient)


def save_model(model: Any, path: str | os.PathLike) -> str:
    """Writes ``model`` to ``path`` atomically (``hybridize.atomic``: a temporary file beside it,
    renamed into place), so a failed export leaves no file behind."""
    from ...atomic import write_bytes

    path = os.fspath(path)
    data = model.SerializeToString()
    try:
        write_bytes(path, data)
    except OSError as e:
        raise ExportError(f"{path}: cannot write: {e.strerror or e}", path) from None
    return path


def export_model(sym: Any, params: Any, in_shapes: Sequence | None = None, in_types: Any = np.float32,
                 onnx_file_path: str = "model.onnx", verbose: bool = False, dynamic: bool = False,
                 dynamic_input_shapes: Sequence | None = None, run_shape_inference: bool = False,
                 input_type: Any = None, input_shape: Sequence | None = None, *,
                 opset_version: int | None = None) -> str:
    """Exports a model to ONNX, as MXNet 1.9.1's ``mx.onnx.export_model``.

    ``sym``: ``-symbol.json`` path or Symbol. ``params``: ``.params`` path, dict (arg and aux
    together) or ``[arg_params, aux_params]``. ``in_shapes``: one shape per data input (the
    variables without a parameter, labels of loss outputs left out), ``in_types`` one dtype or
    one per input. ``dynamic=True`` makes every input dimension symbolic, or those that are None
    in ``dynamic_input_shapes``. ``input_type`` / ``input_shape``: old names of ``in_types`` /
    ``in_shapes``. ``opset_version`` (not in MXNet) picks the ONNX opset (default 17).
    Returns ``onnx_file_path``."""
    if input_type is not None:
        in_types = input_type
    if input_shape is not None:
        in_shapes = input_shape
    model = export_graph(sym, params, in_shapes, in_types, dynamic, dynamic_input_shapes, opset_version, verbose)
    if run_shape_inference:
        import onnx
        try:
            model = onnx.shape_inference.infer_shapes(model)
        except Exception:  # as MXNet: keep the model as exported
            _LOG.info("Shape inference failed, original export is kept.")
    save_model(model, onnx_file_path)
    _LOG.info("Exported ONNX file %s saved to disk", onnx_file_path)
    return onnx_file_path
