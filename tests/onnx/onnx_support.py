"""Helpers of the ONNX export tests (importable as ``onnx_support``: tests/onnx is put on sys.path
by conftest.py): an onnxruntime session of a ModelProto, strict checking."""
from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def checked(model):
    """``model`` after ONNX's full check (strict shape inference included)."""
    onnx.checker.check_model(model, full_check=True)
    return model


def session(model):
    """An onnxruntime session of ``model`` (a ModelProto or its serialized bytes). onnxruntime's
    graph optimizations are off: the session runs our nodes as exported (what the tests check),
    and building it no longer pre-folds the big models' hundreds of MB of weights."""
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    data = model if isinstance(model, bytes) else model.SerializeToString()
    return ort.InferenceSession(data, sess_options=opts, providers=["CPUExecutionProvider"])


def checked_session(model):
    """Full check and session from one serialization (the big models are hundreds of MB)."""
    data = model.SerializeToString()
    onnx.checker.check_model(data, full_check=True)
    return session(data)


def run(model, feeds: dict) -> list[np.ndarray]:
    sess = model if isinstance(model, ort.InferenceSession) else session(model)
    names = [i.name for i in sess.get_inputs()]
    assert sorted(names) == sorted(feeds), (names, list(feeds))
    return sess.run(None, feeds)


def dim_values(value_info) -> list:
    """Dimensions of a graph input/output: ints, or None where symbolic."""
    return [d.dim_value if d.HasField("dim_value") else None for d in value_info.type.tensor_type.shape.dim]
