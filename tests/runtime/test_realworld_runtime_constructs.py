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


class _Digitize(mx.operator.CustomOp):
    """gluon-ts' binning: np.digitize in a CustomOp (two outputs here, the second float64)."""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, is_train, req, in_data, out_data, aux):
        data, edges = in_data[0].asnumpy(), in_data[1].asnumpy()
        self.assign(out_data[0], req[0], mx.nd.array(np.digitize(data, edges[0]).astype(np.float32)))
        self.assign(out_data[1], req[1], mx.nd.array(data * self.scale, dtype="float64"))


@mx.operator.register("_test_digitize")
class _DigitizeProp(mx.operator.CustomOpProp):
    def __init__(self, scale="1"):
        super().__init__(need_top_grad=False)
        self.scale = float(scale)  # keyword arguments arrive as strings

    def list_arguments(self):
        return ["data", "bins"]

    def list_outputs(self):
        return ["output", "scaled"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0], in_shape[0]], []

    def infer_type(self, in_type):
        return in_type, [in_type[0], np.float64], []

    def create_operator(self, ctx, shapes, dtypes):
        assert dtypes == [0, 0]  # MXNet's type ids
        return _Digitize(self.scale)


def test_custom_operators_run_imperatively_in_graphs_and_from_json() -> None:
    """``mx.operator.CustomOpProp`` + ``F.Custom(..., op_type=...)`` as MXNet 1.9.1 (values, dtypes,
    output names and JSON attributes checked against it)."""
    from hybridize.runtime.gluon import HybridBlock

    x = np.array([[0.1, 0.5, 0.9], [0.3, 0.7, 0.2]], np.float32)
    bins = np.array([[0.25, 0.5, 0.75]], np.float32)
    idx = np.array([[0, 2, 3], [1, 2, 0]], np.float32)
    a, b = mx.nd.Custom(mx.nd.array(x), mx.nd.array(bins), op_type="_test_digitize", scale=1.5)
    np.testing.assert_array_equal(a.asnumpy(), idx)
    assert b.dtype == np.float64
    np.testing.assert_allclose(b.asnumpy(), x.astype(np.float64) * 1.5)

    class Net(HybridBlock):
        def hybrid_forward(self, F, data, edges):
            i, s = F.Custom(data, edges, op_type="_test_digitize", scale=2)
            return i + 1, s

    net = Net()
    imperative = [o.asnumpy() for o in net(mx.nd.array(x), mx.nd.array(bins))]
    net.hybridize()
    hybrid = [o.asnumpy() for o in net(mx.nd.array(x), mx.nd.array(bins))]
    np.testing.assert_array_equal(hybrid[0], idx + 1)
    np.testing.assert_allclose(hybrid[1], imperative[1])

    s = mx.sym.Custom(mx.sym.var("x"), mx.sym.var("b"), op_type="_test_digitize", scale=1.5, name="dig")
    assert s.list_outputs() == ["dig_output", "dig_scaled"]
    import json
    node = [n for n in json.loads(s.tojson())["nodes"] if n["op"] == "Custom"][0]
    assert node["attrs"] == {"op_type": "_test_digitize", "scale": "1.5"}
    back = mx.sym.load_json(s.tojson())
    out = back.eval(x=mx.nd.array(x), b=mx.nd.array(bins))
    np.testing.assert_array_equal(out[0].asnumpy(), idx)
    with pytest.raises(mx.base.HybridizeError, match="Cannot find custom operator 'nope'"):
        mx.nd.Custom(mx.nd.array(x), op_type="nope")


def test_amp_is_never_initialized_and_refuses() -> None:
    """gluon-nlp's attention cells read ``mxnet.contrib.amp.amp._amp_initialized`` on every call."""
    from hybridize.runtime.contrib.amp import amp

    assert amp._amp_initialized is False
    assert mx.contrib.nd is mx.nd.contrib and mx.contrib.symbol is mx.sym.contrib
    with pytest.raises(mx.base.HybridizeError, match="mixed precision"):
        amp.init()


def test_ops_without_parameters_ignore_unknown_attributes_as_mxnet() -> None:
    """MXNet ops without a parameter struct keep unknown attributes and ignore them (imgclsmob's
    CenterNet: ``F.zeros_like(x, dtype="int64")`` is float32; gluon's CosineEmbeddingLoss passes
    ``axis=`` to ``broadcast_maximum``); ops with parameters still refuse them."""
    import json

    z = mx.nd.zeros_like(mx.nd.ones((2, 2)), dtype="int64")
    assert z.dtype == np.float32 and z.shape == (2, 2)
    s = mx.sym.zeros_like(mx.sym.var("x"), dtype="int32")
    assert json.loads(s.tojson())["nodes"][1]["attrs"] == {"dtype": "int32"}
    assert s.infer_type(x="float32")[1] == [np.float32]
    np.testing.assert_array_equal(
        mx.nd.broadcast_maximum(mx.nd.array([1, -1]), mx.nd.zeros((2,)), axis=1).asnumpy(), [1, 0])
    loss = mx.gluon.loss.CosineEmbeddingLoss(margin=0.1)
    a = mx.nd.array([[1., 2., 0.], [0., 1., 1.], [1., 0., 0.]])
    b = mx.nd.array([[2., 1., 0.], [0., 1., -1.], [0., 1., 0.]])
    np.testing.assert_allclose(loss(a, b, mx.nd.array([1, -1, -1])).asnumpy(), [[0.2], [0.0], [0.0]], rtol=1e-6)
    with pytest.raises(TypeError, match="foo"):
        mx.nd.transpose(mx.nd.ones((2, 2)), foo=1)


def test_setitem_drops_leading_unit_axes_of_the_value_as_mxnet() -> None:
    """imgclsmob's heatmap refinement: ``pts[b, k, 0] += (hm[y, x + 1] - hm[y, x - 1]).sign() * 0.25``
    (every integer-indexed read is shape (1,), written back into one element)."""
    a = mx.nd.array(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    a[1, 2, 3] = mx.nd.array([100])
    a[1, 2, 3] += a[0, 0, 1] * 2
    assert a[1, 2, 3].shape == (1,) and a[1, 2, 3].asscalar() == 102
    a[0, 1] = mx.nd.ones((1, 4)) * 7
    np.testing.assert_array_equal(a[0, 1].asnumpy(), [7, 7, 7, 7])
    with pytest.raises(ValueError):
        a[0, 0, 0] = mx.nd.array([1.0, 2.0])


def test_random_namespace_has_mxnets_python_functions() -> None:
    """imgclsmob's X-DenseNet draws its masks with ``mx.nd.random.shuffle``."""
    mx.random.seed(3)
    x = mx.nd.random.shuffle(mx.nd.arange(6))
    assert sorted(x.asnumpy().tolist()) == list(range(6))
    assert mx.nd.random.randn(2, 3, loc=1).shape == (2, 3)
    idx, logp = mx.nd.random.multinomial(mx.nd.array([[0.0, 1.0], [1.0, 0.0]]), shape=3, get_prob=True)
    np.testing.assert_array_equal(idx.asnumpy(), [[1, 1, 1], [0, 0, 0]])
    assert idx.dtype == np.int32 and logp.shape == (2, 3)
    np.testing.assert_array_equal(logp.asnumpy(), np.zeros((2, 3), np.float32))
    assert len(mx.sym.random.multinomial(mx.sym.var("p"), shape=3).list_outputs()) == 2  # get_prob=True there
    assert mx.sym.random.shuffle(mx.sym.var("x")).name.startswith("_shuffle")


def test_autograd_function_runs_its_forward_once() -> None:
    """imgclsmob's iSQRT-COV pooling is an ``mx.autograd.Function`` (no gradients here)."""
    class Twice(mx.autograd.Function):
        def forward(self, x):
            self.save_for_backward(x)
            return x * 2

    f = Twice()
    np.testing.assert_array_equal(f(mx.nd.ones((2,))).asnumpy(), [2, 2])
    assert len(f.saved_tensors) == 1
    with pytest.raises(AssertionError, match="only be called once"):
        f(mx.nd.ones((2,)))


def test_contrib_control_flow_runs_imperatively() -> None:
    """MXNet's nd.contrib.foreach/while_loop/cond are Python loops (gluon-nlp's samplers, gluon-ts'
    binned distribution); with Symbols they build subgraph operators (tests/runtime/test_control_flow.py)."""
    def body(x, states):
        return x * 2 + states[0], [states[0] + x]

    out, states = mx.nd.contrib.foreach(body, mx.nd.arange(6).reshape((3, 2)), [mx.nd.zeros(2)])
    np.testing.assert_array_equal(out.asnumpy(), [[0, 2], [4, 7], [10, 14]])
    np.testing.assert_array_equal(states[0].asnumpy(), [6, 9])
    outs, (i, s) = mx.nd.contrib.while_loop(lambda i, s: i < 3, lambda i, s: (s, (i + 1, s + i)),
                                            [mx.nd.array([0]), mx.nd.array([1])], max_iterations=5)
    assert outs.shape == (5, 1) and i.asscalar() == 3 and s.asscalar() == 4
    np.testing.assert_array_equal(outs.asnumpy()[:3, 0], [1, 1, 2])
    assert mx.nd.contrib.cond(mx.nd.array([0]), lambda: "then", lambda: "else") == "else"
    np.testing.assert_array_equal(mx.nd.contrib.isfinite(mx.nd.array([1, np.inf, np.nan])).asnumpy(), [1, 0, 0])
    np.testing.assert_array_equal(mx.nd.contrib.isinf(mx.nd.array([1, -np.inf])).asnumpy(), [0, 1])
    sampled, count_true, count_sampled = mx.nd.contrib.rand_zipfian(mx.nd.array([3]), 4, 10)
    assert sampled.shape == (4,) and sampled.dtype == np.int64 and count_true.dtype == np.float64
    _, (i_sym,) = mx.sym.contrib.while_loop(lambda i: (i < 3).sum() > 0, lambda i: (i, [i + 1]),
                                            [mx.sym.var("i")], max_iterations=3)
    assert i_sym.outputs[0].node.op.name == "_while_loop"
    assert mx.sym.contrib.cond(mx.sym.var("p"), lambda: mx.sym.var("a"),
                               lambda: mx.sym.var("b")).outputs[0].node.op.name == "_cond"
    assert not hasattr(mx.sym.contrib, "isinf")  # as MXNet


def test_deformable_convolution_v1_and_v2_border_rules_as_mxnet_cpu() -> None:
    """v1 samples only inside [0, H) x [0, W) and clamps at the last row/column; v2 samples inside
    (-1, H) x (-1, W) with zeros outside (values recorded from MXNet 1.9.1; found through
    gluon.contrib.cnn.DeformableConvolution)."""
    x = mx.nd.array(np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3))
    w = mx.nd.ones((1, 1, 1, 1))
    dy = np.array([[-0.5, 0, 1.5], [-0.5, 0.25, 0], [0.7, 0, -0.2]], np.float32)
    dx = np.array([[0.5, 1.5, 0], [0, 0.25, -0.5], [0.3, 0.9, 0]], np.float32)
    off = mx.nd.array(np.stack([dy, dx])[None])
    v1 = mx.nd.contrib.DeformableConvolution(x, off, w, kernel=(1, 1), num_filter=1, no_bias=True)
    v2 = mx.nd.contrib.ModulatedDeformableConvolution(x, off, mx.nd.ones((1, 1, 3, 3)), w, kernel=(1, 1),
                                                      num_filter=1, no_bias=True)
    np.testing.assert_allclose(v1.asnumpy().ravel(), [0.0, 3.0, 7.5, 2.5, 6.0, 5.5, 7.3, 8.9, 8.4], rtol=1e-6)
    np.testing.assert_allclose(v2.asnumpy().ravel(), [0.75, 1.5, 7.5, 2.5, 6.0, 5.5, 2.19, 8.9, 8.4], rtol=1e-6)


def test_dtype_arguments_accept_numpy_types_as_mxnet() -> None:
    """gluon-nlp's sampler: ``F.sample_multinomial(probs, dtype=np.int32)`` (MXNet's generated
    functions pass ``dtype`` as ``np.dtype(dtype).name``, for enum-typed dtypes too)."""
    p = mx.nd.array([[0.2, 0.8], [0.5, 0.5]])
    assert mx.nd.sample_multinomial(p, dtype=np.int32).dtype == np.int32
    assert mx.nd.random.uniform(shape=(2,), dtype=np.float64).dtype == np.float64
    assert mx.nd.cast(p, dtype=np.int32).dtype == np.int32
    s = mx.sym.sample_multinomial(mx.sym.var("p"), dtype=np.int32)
    assert s.attr_dict()[s.name]["dtype"] == "int32"
    with pytest.raises(TypeError):
        mx.nd.cast(p, dtype=object())
