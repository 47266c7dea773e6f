"""ONNX forms of the linear-algebra, vision and contrib operators where ONNX has a direct equivalent: Convolution_v1 and
SparseEmbedding (as Convolution / Embedding), _grad_add, _CrossDeviceCopy, the straight-through
estimators (their forward: MXNet's round / sign), cumsum, linalg.det, image.to_tensor and
image.normalize (floating-point images; MXNet's integer wrap-around has no ONNX form)."""
from __future__ import annotations

import numpy as np

from ..ops._tuple_attrs import as_tuple
from .conv import convolution
from .dense import embedding
from .elemwise import round_half_away
from .misc import identity
from .registry import converter

converter("Convolution_v1")(convolution)
converter("_contrib_SparseEmbedding")(embedding)
converter("_contrib_round_ste")(round_half_away)
converter("_CrossDeviceCopy")(identity)


@converter("_grad_add")
def grad_add(n):
    return [n.op("Add", n.inputs[0], n.inputs[1])]


@converter("_contrib_sign_ste")
def sign_ste(n):
    return [n.op("Sign", n.inputs[0])]


@converter("_np_cumsum")
def cumsum(n):
    a = n.attrs
    x = n.inputs[0]
    if n.out_dtype(0) != n.in_dtype(0):
        x = n.cast(x, n.out_dtype(0))
    if a.axis is None:
        x = n.op("Reshape", x, n.const(np.asarray([-1], np.int64)))
        axis = 0
    else:
        axis = int(a.axis)
    return [n.op("CumSum", x, n.const(np.asarray(axis, np.int64)))]


@converter("_linalg_det")
def det(n):
    y = n.op("Det", n.inputs[0])
    if n.ndim == 2:     # MXNet gives shape (1,) for one matrix
        y = n.op("Reshape", y, n.const(np.asarray([1], np.int64)))
    return [y]


@converter("_image_to_tensor")
def to_tensor(n):
    nd = n.ndim
    x = n.cast(n.inputs[0], np.dtype(np.float32))
    y = n.op("Div", x, n.const(np.asarray(255.0, np.float32)))
    perm = [2, 0, 1] if nd == 3 else [0, 3, 1, 2]
    return [n.op("Transpose", y, perm=perm)]


@converter("_image_normalize")
def normalize(n):
    dt = n.in_dtype(0)
    if dt.kind != "f":
        n.fail(f"only floating-point images export (MXNet's {dt.name} result wraps around)")
    shape = n.in_shape(0)
    c = shape[0] if len(shape) == 3 else shape[1]
    m, s = as_tuple(n.attrs.mean), as_tuple(n.attrs.std)
    mean = np.asarray([m[0]] * c if len(m) == 1 else m[:c], np.float32).astype(dt).reshape(c, 1, 1)
    std = np.asarray([s[0]] * c if len(s) == 1 else s[:c], np.float32).astype(dt).reshape(c, 1, 1)
    return [n.op("Div", n.op("Sub", n.inputs[0], n.const(mean)), n.const(std))]
