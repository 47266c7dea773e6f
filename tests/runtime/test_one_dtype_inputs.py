"""Operator inputs that MXNet gives one dtype must have one dtype, as in MXNet 1.9.1.

MXNet never promotes: ``broadcast_mul(int32, float32)``, ``elemwise_add``, comparisons, logical
operators, ``NDArray * NDArray`` with different dtypes all fail (``Check failed: assign(&dattr,
vec.at(i)): Incompatible attr in node ... at 1-th input: expected int32, got float32``),
imperatively and when a hybridized graph is bound. The runtime used to compute them in the first
input's dtype instead; then a conversion documented to "fail when the graph is built, never
silently" for a tensor that is not float32 (``x * x.shape[0]`` -> ``F.broadcast_mul(x,
F.cast(..., dtype='float32'))``) ran on the runtime and gave a result MXNet refuses. Scalar
operators are unchanged: the scalar takes the tensor's dtype (``int32 + 1.5`` adds 1).

Checked against MXNet 1.9.1 when ``HYBRIDIZE_MXNET_PYTHON`` names its interpreter.
"""
from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest

from hybridize.runtime import nd
from hybridize.runtime.base import OperatorTypeError
from hybridize.runtime.gluon import nn

INTS = nd.array([1, 2, 3], dtype="int32")
FLOATS = nd.array([3, 2, 1], dtype="float32")


@pytest.mark.parametrize("call", [
    lambda: nd.broadcast_mul(INTS, FLOATS),
    lambda: nd.elemwise_add(INTS, FLOATS),
    lambda: nd.broadcast_equal(INTS, FLOATS),
    lambda: nd.broadcast_logical_or(INTS, FLOATS),
    lambda: nd.broadcast_maximum(INTS, nd.array([1, 1, 1], dtype="int64")),
    lambda: INTS * FLOATS,
    lambda: FLOATS - INTS,
    lambda: INTS == FLOATS,
], ids=["broadcast_mul", "elemwise_add", "broadcast_equal", "broadcast_logical_or", "int32-int64",
        "operator *", "operator -", "operator =="])
def test_two_dtypes_are_refused_imperatively(call):
    with pytest.raises(OperatorTypeError, match=r"Incompatible attr at 1-th input: expected \w+, got \w+"):
        call()


def test_one_dtype_and_scalars_keep_working():
    assert (INTS * INTS).dtype == np.int32
    assert (INTS == INTS).asnumpy().tolist() == [1, 1, 1]
    out = INTS + 1.5  # the scalar takes the tensor's dtype: 1
    assert out.dtype == np.int32 and out.asnumpy().tolist() == [2, 3, 4]


class Scale(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.broadcast_mul(x, F.cast(F.slice_axis(F.shape_array(x), axis=0, begin=0, end=1), dtype="float32"))


def test_a_hybridized_graph_with_two_dtypes_fails_when_it_runs():
    net = Scale()
    net.hybridize()
    assert net(FLOATS).asnumpy().tolist() == [9, 6, 3]
    with pytest.raises(OperatorTypeError, match="broadcast_mul: Incompatible attr at 1-th input: expected int32, got float32"):
        Scale()(INTS)  # imperatively
    net = Scale()
    net.hybridize()
    with pytest.raises(OperatorTypeError, match="expected int32, got float32"):
        net(INTS)


MXNET_SCRIPT = """
import mxnet as mx
a = mx.nd.array([1, 2, 3], dtype='int32'); b = mx.nd.array([3, 2, 1], dtype='float32')
for f in (mx.nd.broadcast_mul, mx.nd.elemwise_add, mx.nd.broadcast_equal):
    try:
        f(a, b).wait_to_read()
        print('computed')
    except mx.base.MXNetError as e:
        print('refused' if 'expected int32, got float32' in str(e) else 'other')
"""


def test_mxnet_refuses_the_same():
    python = os.environ.get("HYBRIDIZE_MXNET_PYTHON")
    if not python or not os.path.exists(python):
        pytest.skip("HYBRIDIZE_MXNET_PYTHON does not name MXNet 1.9.1's interpreter")
    out = subprocess.run([python, "-c", MXNET_SCRIPT], capture_output=True, text=True, timeout=120).stdout
    assert out.split() == ["refused"] * 3


# -- other operators whose inputs MXNet gives one dtype (``OpDef.same_dtype``) -----------------------
F32 = nd.ones((2, 2))
F64 = nd.ones((2, 2), dtype="float64")
I32 = nd.ones((2, 2), dtype="int32")
IMAGE = nd.ones((1, 2, 3, 3))


@pytest.mark.parametrize("call", [
    lambda: nd.where(F32, I32, F32),
    lambda: nd.concat(F32, I32, dim=0),
    lambda: nd.stack(F32, F64),
    lambda: nd.add_n(F32, F64),
    lambda: nd.dot(F32, F64),
    lambda: nd.batch_dot(F32.expand_dims(0), F64.expand_dims(0)),
    lambda: nd.FullyConnected(F32, F64, num_hidden=2, no_bias=True),
    lambda: nd.FullyConnected(F32, F32, nd.ones((2,), dtype="float64"), num_hidden=2),
    lambda: nd.Convolution(IMAGE, nd.ones((3, 2, 1, 1), dtype="float64"), kernel=(1, 1), num_filter=3, no_bias=True),
    lambda: nd.LayerNorm(F32, F64[0], F64[0]),
    lambda: nd.InstanceNorm(IMAGE, nd.ones((2,), dtype="float64"), nd.ones((2,))),
], ids=["where x/y", "concat", "stack", "add_n", "dot", "batch_dot", "FullyConnected weight", "FullyConnected bias",
        "Convolution", "LayerNorm", "InstanceNorm"])
def test_inputs_mxnet_gives_one_dtype_are_refused_with_two(call):
    with pytest.raises(OperatorTypeError, match=r"Incompatible attr at \d-th input: expected \w+, got \w+"):
        call()


def test_inputs_of_their_own_dtype_stay_free():
    """Conditions, indices and lengths are not part of the rule (as in MXNet)."""
    assert nd.where(I32, F32, F32).dtype == np.float32
    assert nd.take(F32, I32).dtype == np.float32
    assert nd.Embedding(I32, nd.ones((5, 3)), input_dim=5, output_dim=3).dtype == np.float32
    assert nd.SequenceMask(F32, nd.array([1, 2], dtype="int32"), use_sequence_length=True).dtype == np.float32


class Concat(nn.HybridBlock):
    def hybrid_forward(self, F, x, y):
        return F.concat(x, y, dim=0)


def test_a_graph_is_checked_where_its_dtypes_are_known():
    net = Concat()
    net.hybridize()
    with pytest.raises(OperatorTypeError, match="expected float32, got int32"):
        net(F32, I32)
    from hybridize.runtime import sym
    x, y = sym.var("x"), sym.var("y")
    out = sym.concat(x, y, dim=0)
    with pytest.raises(OperatorTypeError, match="expected float32, got float64"):
        out.infer_type(x="float32", y="float64")
    # y unknown: it takes x's dtype, as MXNet infers it (no float32 guess to contradict)
    assert out.infer_type(x="int32")[0] == [np.int32, np.int32]
