"""Runtime gaps found by running real-world Gluon models (docs/runtime-realworld.md), one test each.

Each test copies the construct (a few lines), never the package it came from.
"""
import numpy as np
import pytest

import hybridize.runtime as mx


def test_inputs_passed_as_none_by_keyword_are_skipped() -> None:
    """imgclsmob's octave convolution: ``F.Convolution(x, weight=w, bias=None, no_bias=True)``
    (MXNet's generated functions drop None inputs)."""
    x = mx.nd.array(np.arange(50, dtype=np.float32).reshape(1, 2, 5, 5))
    w = mx.nd.ones((3, 2, 3, 3))
    y = mx.nd.Convolution(x, weight=w, bias=None, no_bias=True, kernel=(3, 3), num_filter=3)
    ref = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=3, no_bias=True)
    np.testing.assert_array_equal(y.asnumpy(), ref.asnumpy())
    s = mx.sym.Convolution(mx.sym.var("x"), weight=mx.sym.var("w"), bias=None, no_bias=True,
                           kernel=(3, 3), num_filter=3)
    assert s.list_arguments() == ["x", "w"]
    fc = mx.nd.FullyConnected(mx.nd.ones((2, 3)), weight=mx.nd.ones((4, 3)), bias=None, no_bias=True,
                              num_hidden=4)
    assert fc.shape == (2, 4)
    with pytest.raises(TypeError, match="unexpected argument 'foo'"):
        mx.nd.Convolution(x, weight=w, foo=None, no_bias=True, kernel=(3, 3), num_filter=3)


def test_op_namespaces_are_importable_submodules() -> None:
    """gluon-cv: ``from mxnet.symbol.contrib import SyncBatchNorm``."""
    from hybridize.runtime.ndarray.contrib import box_nms  # noqa: F401
    from hybridize.runtime.ndarray.linalg import gemm2  # noqa: F401
    from hybridize.runtime.symbol.contrib import SyncBatchNorm
    from hybridize.runtime.symbol.random import uniform  # noqa: F401

    assert SyncBatchNorm is mx.sym.contrib.SyncBatchNorm


def test_zeros_with_unknown_dimensions_take_their_inferred_shape() -> None:
    """``sym.zeros((0, H))`` (a begin state traced with batch_size=0) feeding FullyConnected: the 0
    is learnt backwards from the consumers, as MXNet's shape inference does; compiled and
    interpreted graphs fill the zeros at that shape."""
    from hybridize.runtime.graph.codegen import compile_graph
    from hybridize.runtime.graph.interpret import evaluate

    x = mx.sym.var("x")
    h = mx.sym.zeros(shape=(0, 3))
    y = mx.sym.FullyConnected(x, num_hidden=4, name="i2h") + mx.sym.FullyConnected(h, num_hidden=4, name="h2h")
    params = {"i2h_weight": np.ones((4, 2), np.float32), "i2h_bias": np.zeros(4, np.float32),
              "h2h_weight": np.ones((4, 3), np.float32), "h2h_bias": np.full(4, 0.5, np.float32)}
    xv = np.arange(10, dtype=np.float32).reshape(5, 2)
    expected = xv @ params["i2h_weight"].T + 0.5
    arg_shapes, out_shapes, _ = y.infer_shape(x=(5, 2))
    assert out_shapes == [(5, 4)]
    g = y.graph()
    np.testing.assert_allclose(evaluate(g, {"x": xv, **params})[0], expected)
    for batch in (5, 7):  # one graph, several signatures: the traced attribute stays (0, 3)
        xb = np.ones((batch, 2), np.float32)
        prog = compile_graph(g, input_names=["x"], shapes={"x": xb.shape}, params=params)
        np.testing.assert_allclose(prog(xb)[0], xb @ params["i2h_weight"].T + 0.5)
    assert [n.attrs.get("shape") for n in g.nodes if n.op is not None and n.op.name == "_zeros"] == [(0, 3)]
