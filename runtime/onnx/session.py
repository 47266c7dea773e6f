"""The onnxruntime backend: a graph exported in memory and run by an ``InferenceSession``
(``hybridize run --backend onnxruntime``, ``Model(..., executor="onnxruntime")``, benchmarks)."""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..graph import executors
from .context import ExportError

__all__ = ["ort_executor", "session"]


def _ort():
    try:
        import onnxruntime
    except ImportError:
        raise ExportError("the onnxruntime backend needs the onnxruntime package: pip install onnxruntime") from None
    return onnxruntime


def session(model: Any, threads: int | None = None):
    """An onnxruntime CPU session of an ONNX ``ModelProto`` (warnings silenced)."""
    ort = _ort()
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    if threads:
        opts.intra_op_num_threads = int(threads)
    return ort.InferenceSession(model.SerializeToString(), sess_options=opts, providers=["CPUExecutionProvider"])


def ort_executor(graph: Any, input_names: Sequence[str], shapes: Mapping[str, tuple], dtypes: Mapping[str, Any],
                 params: Mapping[str, np.ndarray], opset: int | None = None,
                 threads: int | None = None) -> Callable[[Mapping[str, np.ndarray]], list]:
    """``f({input: array}) -> [outputs]`` running ``graph`` (specialized on ``shapes``) in onnxruntime."""
    from .export import graph_to_onnx

    model = graph_to_onnx(graph, params, dict(shapes), dict(dtypes), None, opset)
    sess = session(model, threads)
    feeds = [i.name for i in sess.get_inputs()]
    return lambda inputs: sess.run(None, {k: np.ascontiguousarray(inputs[k]) for k in feeds})


@executors.register("onnxruntime")
def _ort_program(graph: Any, input_names: list, shapes: dict, dtypes: dict, params: Mapping[str, np.ndarray],
                 training: bool) -> Callable[..., list]:
    """The executor registry's ``onnxruntime`` program: inputs by keyword."""
    run = ort_executor(graph, input_names, shapes, dtypes, params)
    return lambda **inputs: run(inputs)
